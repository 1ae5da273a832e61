"""Reports: the same Diagnosis rendered for a terminal (rich), as JSON, or as Markdown."""

from __future__ import annotations

from typing import TextIO

from crashdoc.model import Diagnosis
from crashdoc.report.interface import Renderer
from crashdoc.report.json import JsonRenderer, to_dict
from crashdoc.report.redact import redact_diagnosis

__all__ = ["Renderer", "JsonRenderer", "to_dict", "render", "renderer_for", "redact_diagnosis"]


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


def render(diag: Diagnosis, fmt: str, out: TextIO, width: int | None = None, redact: bool = True,
           redact_hosts: bool = False) -> None:
    """Write `diag` in `fmt` (terminal, json, markdown) to `out`: the one report writer of every command.

    With `redact` (the default) every string of the report has its secrets replaced first (report/redact.py),
    and the report says how many; `redact=False` is for local use (`--no-redact`). `redact_hosts`
    (`--redact-hosts`) also replaces host names and IP addresses by pseudonyms, and the report says so."""
    count = 0
    if redact or redact_hosts:
        diag, count = redact_diagnosis(diag, hosts=redact_hosts) if redact else _hosts_only(diag)
    opts = {"width": width} if fmt == "terminal" else {}
    renderer = renderer_for(fmt, **opts)
    renderer.redactions = count
    renderer.render(diag, out)
    out.flush()


def _hosts_only(diag: Diagnosis) -> tuple[Diagnosis, int]:
    """`--no-redact --redact-hosts`: host pseudonyms, secrets kept."""
    from crashdoc.report.redact import redact_hosts

    return redact_hosts(diag), 0
