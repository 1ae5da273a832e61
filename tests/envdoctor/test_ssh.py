"""Over ssh: the probe goes through the real sshd on 127.0.0.1; a missing interpreter is Skipped, an
unreachable host is an error."""

from __future__ import annotations

import json

import pytest

from crashdoc.envdoctor import check_environment
from crashdoc.errors import TransportError
from crashdoc.transport import runner_for
from tests.envdoctor.builders import Pkg
from tests.support.net import free_port


def test_probe_over_ssh_sees_the_same_venv(make_env, sshd):
    python = make_env(Pkg("flashinfer-python", "0.6.4", module="flashinfer"), Pkg("flashinfer-cubin", "0.6.3"))
    report = check_environment(runner_for(sshd.target, sshd.options), str(python), checks=["companions", "host"])
    [skew] = report.findings
    assert skew.fix.command == "pip install flashinfer-cubin==0.6.4" and skew.where.host == sshd.target
    json.dumps(report.facts)


def test_missing_interpreter_on_the_host_is_skipped(sshd):
    report = check_environment(runner_for(sshd.target, sshd.options), "/nonexistent/bin/python3", checks=["companions"])
    assert report.skipped[0].what == "python /nonexistent/bin/python3"
    assert report.skipped[0].reason.startswith(f"/nonexistent/bin/python3: no such interpreter on {sshd.target}")


def test_unreachable_host_raises(sshd):
    runner = runner_for(f"root@127.0.0.1:{free_port()}", sshd.options)
    with pytest.raises(TransportError, match="ssh root@127.0.0.1"):
        check_environment(runner, "python3", checks=["companions"])
