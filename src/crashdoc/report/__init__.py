"""Reports: the same Diagnosis rendered for a terminal (rich), as JSON, or as Markdown."""

from crashdoc.report.interface import Renderer
from crashdoc.report.json import JsonRenderer, to_dict
from crashdoc.report.markdown import MarkdownRenderer
from crashdoc.report.terminal import TerminalRenderer

__all__ = ["Renderer", "JsonRenderer", "MarkdownRenderer", "TerminalRenderer", "to_dict", "renderer_for"]


def renderer_for(fmt: str, **options: object) -> Renderer:
    """The renderer for a `--format` value."""
    if fmt == "json":
        return JsonRenderer()
    if fmt == "markdown":
        return MarkdownRenderer()
    if fmt == "terminal":
        return TerminalRenderer(**options)  # type: ignore[arg-type]
    raise ValueError(f"unknown format {fmt!r}")
