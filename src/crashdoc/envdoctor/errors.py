"""Errors of the environment doctor; all are CrashdocError subclasses."""

from __future__ import annotations

from crashdoc.errors import CrashdocError


class EnvDoctorError(CrashdocError):
    """Base of the environment doctor's errors."""

    exit_status = 2


class CheckSkipped(EnvDoctorError):
    """A check cannot run here (no nvidia-smi, the probe failed); it becomes a Skipped value, never an abort."""


class ProbeError(CheckSkipped):
    """The probe could not run in the target interpreter, or its answer was not JSON."""


class TableError(EnvDoctorError):
    """A data file of the environment doctor (groups.yaml, cuda.yaml) is malformed; names the file and field."""

    exit_status = 1
