"""Fixtures for the container source: real podman with a private configuration and the stand-in image, and a
recording runner that answers docker's commands from recorded output."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from crashdoc.errors import TransportError
from crashdoc.report.json import schema_text, to_dict
from crashdoc.transport import CommandResult, Runner
from tests.support import container as rootfs_recipe
from tests.support.podman import Podman, configure, ensure_image, missing_tools

ASSETS = Path(__file__).resolve().parent / "assets"


@pytest.fixture(scope="session")
def podman(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Podman]:
    """podman with runc/cgroupfs/no default ulimits (CONTAINERS_CONF, also set for crashdoc's own podman calls)
    and the stand-in image; every test container is removed before and after the session."""
    missing = missing_tools()
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (apt-get install podman runc)")
    if os.geteuid() != 0:
        pytest.skip("the podman tests run rootful podman: they need root")
    if not (rootfs_recipe.rootfs_path() / ".crashdoc-complete").exists() and "mmdebstrap" in rootfs_recipe.missing_tools():
        pytest.skip("mmdebstrap is not installed (apt-get install mmdebstrap) and no root filesystem is cached")
    workdir = tmp_path_factory.mktemp("podman")
    rootfs = rootfs_recipe.build_rootfs(log=workdir / "mmdebstrap.log")
    env = configure(workdir)
    tool = Podman(env)
    with pytest.MonkeyPatch.context() as mp:
        for key, value in env.items():
            mp.setenv(key, value)
        tool.remove_test_containers()
        ensure_image(tool, rootfs, workdir)
        try:
            yield tool
        finally:
            tool.remove_test_containers()


def validate(diag: Any) -> dict[str, Any]:
    """The diagnosis as the JSON contract's object, validated against the shipped schema."""
    import jsonschema

    doc = to_dict(diag)
    jsonschema.validate(doc, json.loads(schema_text()))
    return doc


class _Proc:
    """What ContainerLogs reads of a Popen: two byte streams and an exit status."""

    def __init__(self, out: bytes, err: bytes, code: int) -> None:
        self.stdout, self.stderr, self.code = io.BytesIO(out), io.BytesIO(err), code

    def wait(self, timeout: float | None = None) -> int:
        return self.code


class RecordingRunner(Runner):
    """Records every argv and answers it from `answers` (argv -> (exit status, stdout, stderr), or a list of them
    given in turn, the last one repeated), by run() or by popen() (the two streams apart, as `docker logs` writes
    them)."""

    def __init__(self, answers: dict[tuple[str, ...], Any], host: str | None = None) -> None:
        self.answers = answers
        self.host = host
        self.calls: list[tuple[str, ...]] = []

    def _answer(self, argv: Sequence[str]) -> tuple[int, bytes, bytes]:
        self.calls.append(tuple(argv))
        if tuple(argv) not in self.answers:
            raise TransportError(f"{argv[0]}: unexpected command {' '.join(argv)}")
        answer = self.answers[tuple(argv)]
        if isinstance(answer, list):
            return answer.pop(0) if len(answer) > 1 else answer[0]
        return answer  # type: ignore[no-any-return]

    def run(self, argv: Sequence[str], *, timeout: float = 60.0, stdin: bytes | None = None) -> CommandResult:
        code, out, err = self._answer(argv)
        return CommandResult(tuple(argv), code, out, err, 0.01)

    def popen(self, argv: Sequence[str]) -> Any:
        code, out, err = self._answer(argv)
        return _Proc(out, err, code)
