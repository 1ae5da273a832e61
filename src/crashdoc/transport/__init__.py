"""Running commands on the host that runs the service: locally, or over the user's OpenSSH client."""

from crashdoc.transport.interface import CommandResult, Runner
from crashdoc.transport.local import LocalRunner
from crashdoc.transport.safety import check_unit_name, check_word
from crashdoc.transport.ssh import SshRunner, SshTarget, parse_target

__all__ = [
    "CommandResult",
    "Runner",
    "LocalRunner",
    "SshRunner",
    "SshTarget",
    "parse_target",
    "check_unit_name",
    "check_word",
    "runner_for",
]


def runner_for(host: str | None, ssh_options: tuple[str, ...] = ()) -> Runner:
    """A runner for `host` (`[user@]host[:port]`), or the local machine when host is None."""
    if not host:
        return LocalRunner()
    return SshRunner(parse_target(host), extra_options=ssh_options)
