"""Reports: the same Diagnosis rendered for a terminal (rich), as JSON, or as Markdown."""

from __future__ import annotations

from crashdoc.report.interface import Renderer
from crashdoc.report.json import JsonRenderer, to_dict

__all__ = ["Renderer", "JsonRenderer", "to_dict", "renderer_for"]


def renderer_for(fmt: str, **options: object) -> Renderer:
    """The renderer for a `--format` value (rich is imported only for the terminal report)."""
    if fmt == "json":
        return JsonRenderer()
    if fmt == "markdown":
        from crashdoc.report.markdown import MarkdownRenderer

        return MarkdownRenderer()
    if fmt == "terminal":
        from crashdoc.report.terminal import TerminalRenderer

        return TerminalRenderer(**options)  # type: ignore[arg-type]
    raise ValueError(f"unknown format {fmt!r}")
