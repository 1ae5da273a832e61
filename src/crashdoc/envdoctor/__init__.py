"""The environment doctor: checks the Python environment and host a service really runs in, locally or over ssh.

    report = check_environment(runner_for(host), "/venv/bin/python", since=first_failure, port=8000)
    diagnosis = apply_to_diagnosis(diagnosis, report)

Checks live in `crashdoc.envdoctor.checks` (a registry with default and opt-in sets); the companion groups
and CUDA facts are data (groups.yaml, cuda.yaml); the probe (probe.py) runs in the target interpreter with
its standard library only.
"""

from crashdoc.envdoctor.checks import (
    CHECKS,
    DEFAULT_CHECKS,
    OPTIONAL_CHECKS,
    list_checks,
)
from crashdoc.envdoctor.confirm import (
    apply_to_diagnosis,
    environment_diagnosis,
    since_from_diagnosis,
)
from crashdoc.envdoctor.doctor import check_environment
from crashdoc.envdoctor.errors import (
    CheckSkipped,
    EnvDoctorError,
    ProbeError,
    TableError,
)
from crashdoc.envdoctor.interface import (
    CheckContext,
    CheckResult,
    EnvCheck,
    EnvReport,
    Subject,
)

__all__ = [
    "CHECKS",
    "DEFAULT_CHECKS",
    "OPTIONAL_CHECKS",
    "CheckContext",
    "CheckResult",
    "CheckSkipped",
    "EnvCheck",
    "EnvDoctorError",
    "EnvReport",
    "ProbeError",
    "Subject",
    "TableError",
    "apply_to_diagnosis",
    "check_environment",
    "environment_diagnosis",
    "list_checks",
    "since_from_diagnosis",
]
