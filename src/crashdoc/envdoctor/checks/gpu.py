"""GPUs and driver: nvidia-smi, the driver against torch's CUDA build, processes holding GPU memory."""

from __future__ import annotations

import re
from dataclasses import asdict

from crashdoc.envdoctor.facts import Dist, ProbeFacts
from crashdoc.envdoctor.interface import (
    CheckContext,
    CheckResult,
    EnvCheck,
    EnvFinding,
    Subject,
    env_finding,
)
from crashdoc.envdoctor.nvidia_smi import Gpu, SmiAnswer, query
from crashdoc.envdoctor.table import CudaTable
from crashdoc.envdoctor.versions import (
    cuda_of_label,
    driver_tuple,
    pip_install,
    torch_build,
)
from crashdoc.envdoctor.words import listing, plural
from crashdoc.model import Fix, Skipped

NAME = "gpu"
HELD_MIB = 1024
_KERNEL_MODULE = re.compile(r"Kernel Module\s+(?:for\s+\S+\s+)?(\d+(?:\.\d+)+)")


def supported_cuda(driver: str, table: CudaTable) -> str | None:
    """The newest CUDA release the driver fully supports, from cuda.yaml."""
    ok = [c for c, need in table.drivers.items() if driver_tuple(driver) >= driver_tuple(need)]
    return max(ok, key=driver_tuple, default=None)


def torch_variant_for(driver: str, table: CudaTable) -> str | None:
    """The newest torch CUDA build (cu124 ...) this driver runs."""
    top = supported_cuda(driver, table)
    fits = [v for v in table.torch_variants if top and cuda_of_label(v) and
            driver_tuple(cuda_of_label(v) or "") <= driver_tuple(top)]
    return max(fits, key=lambda v: driver_tuple(cuda_of_label(v) or ""), default=None)


def _torch_fix(torch: Dist, variant: str | None) -> str | None:
    if not variant:
        return None
    return pip_install([f"torch=={torch.version.split('+')[0]}"], f"https://download.pytorch.org/whl/{variant}")


def _smi_error(ctx: CheckContext, error: str) -> EnvFinding:
    subject = Subject((), (), f"nvidia-smi: {error}")
    if "version mismatch" in error.lower():
        return env_finding(NAME, "nvml-mismatch", f"nvidia-smi: {error}", "cuda_driver_mismatch", Fix(
            "the driver's libraries were upgraded while the old kernel module is still loaded: reboot the host "
            "(or unload and reload the nvidia kernel modules with no process using the GPUs)", None),
            score=95, host=ctx.runner.host, subject=subject)
    return env_finding(NAME, "driver", f"nvidia-smi: {error}", "gpu_unavailable", Fix(
        "the NVIDIA driver is not working here: check that the kernel module is loaded (lsmod | grep nvidia; a "
        "kernel upgrade without the module rebuilt is the usual cause) and, in a container, that the GPUs are "
        "passed in (docker run --gpus all)", None), score=90, host=ctx.runner.host, subject=subject)


def _no_driver(ctx: CheckContext, torch: Dist, cuda: str, facts: ProbeFacts) -> EnvFinding:
    return env_finding(
        NAME, "no-driver", f"{torch.label} is a CUDA {cuda} build, but this host shows no NVIDIA driver or GPU "
        "(no nvidia-smi, no /proc/driver/nvidia/version, no /dev/nvidia* devices)", "gpu_unavailable",
        Fix("run the service where the NVIDIA driver and the GPUs are visible (a GPU host; docker run --gpus all; "
            "CUDA_VISIBLE_DEVICES), or install a CPU build of torch if it is meant to run without GPUs", None),
        score=70, host=ctx.runner.host,
        subject=Subject(("torch",), (), f"{torch.label} (CUDA {cuda}) on a host without an NVIDIA driver, {facts.home}"))


def _driver_findings(ctx: CheckContext, gpus: tuple[Gpu, ...], torch: Dist, cuda: str) -> list[EnvFinding]:
    table = ctx.table.cuda
    driver = gpus[0].driver
    major = cuda.split(".")[0]
    need_major, need_minor = table.minor_compat.get(major), table.drivers.get(cuda)
    variant = torch_variant_for(driver, table)
    command = _torch_fix(torch, variant)
    top = supported_cuda(driver, table)
    subject = Subject(("torch",), (), f"driver {driver}, {torch.label} (CUDA {cuda})")
    if need_major and driver_tuple(driver) < driver_tuple(need_major):
        return [env_finding(
            NAME, "driver-too-old", f"NVIDIA driver {driver} is too old for {torch.label}: CUDA {major}.x needs "
            f"driver {need_major} or newer (this driver supports CUDA up to {top or 'an unknown release'})",
            "cuda_driver_mismatch", Fix(f"upgrade the driver to {need_minor or need_major} or newer, or install the "
                                        f"torch build for this driver" + (f": {command}" if command else ""), command),
            score=90, host=ctx.runner.host, subject=subject)]
    if need_minor and driver_tuple(driver) < driver_tuple(need_minor):
        return [env_finding(
            NAME, "driver-minor", f"NVIDIA driver {driver} is older than CUDA {cuda}'s ({need_minor}); "
            f"{torch.label} runs through minor-version compatibility, but kernels compiled from PTX at run time "
            "fail (CUDA_ERROR_UNSUPPORTED_PTX_VERSION)", "cuda_driver_mismatch",
            Fix(f"upgrade the driver to {need_minor} or newer" + (f", or use the torch build for it: {command}" if command else ""),
                command), score=40, role="unknown", host=ctx.runner.host, subject=subject)]
    return []


def _arch_findings(ctx: CheckContext, gpus: tuple[Gpu, ...], torch: Dist, cuda: str) -> list[EnvFinding]:
    oldest = ctx.table.cuda.min_compute_capability.get(cuda.split(".")[0])
    old = [g for g in gpus if g.compute_cap and oldest and driver_tuple(g.compute_cap) < driver_tuple(oldest)]
    if not old:
        return []
    names = listing(sorted({f"{g.name} (compute {g.compute_cap})" for g in old}))
    return [env_finding(
        NAME, "arch", f"{names} is older than CUDA {cuda} supports (compute {oldest} and newer): {torch.label} has no "
        "kernels for it (\"no kernel image is available for execution on the device\")", "cuda_driver_mismatch",
        Fix(f"install a torch built for CUDA {int(cuda.split('.')[0]) - 1}.x on this GPU", None), score=80,
        host=ctx.runner.host, subject=Subject(("torch",), (), f"{names}, {torch.label}"))]


def _held(ctx: CheckContext, smi: SmiAnswer) -> list[EnvFinding]:
    by_uuid = {g.uuid: g for g in smi.gpus}
    held = [p for p in smi.processes if (p.used or 0) >= HELD_MIB]
    if not held:
        return []
    parts = [f"GPU {by_uuid[p.gpu_uuid].index if p.gpu_uuid in by_uuid else '?'}: {p.used} MiB by pid {p.pid} ({p.name})"
             for p in held]
    return [env_finding(
        NAME, "held", f"GPU memory is held by {plural(len(held), 'process')}: {listing(parts, 4)}", "gpu_unavailable",
        Fix("if these are not the service itself (a leftover worker of an earlier attempt, another job), stop them "
            f"(kill {' '.join(str(p.pid) for p in held)}); the engine only gets the memory that is free", None),
        score=45, role="unknown", evidence=tuple(parts), host=ctx.runner.host,
        subject=Subject((), (), listing(parts, 2)))]


def run(ctx: CheckContext) -> CheckResult:
    """Ask nvidia-smi, then set the driver and the GPUs against torch's CUDA build and the kernel module."""
    facts = ctx.probe
    torch = facts.dist("torch") if facts else None
    cuda, variant = torch_build(torch.version, facts.torch_build) if torch and facts else (None, None)
    host = facts.sections.get("host") if facts else None
    smi = query(ctx.runner)
    found: list[EnvFinding] = []
    lines = [f"torch: {torch.label}, {'CUDA ' + cuda if cuda else variant} build"] if torch else []
    if smi.missing:
        devices = [d for d in (host or {}).get("nvidia_devices", []) if d[6:].isdigit()]
        if facts and torch and cuda and host is not None and not host.get("nvidia_driver") and not devices:
            found.append(_no_driver(ctx, torch, cuda, facts))
        where = ctx.runner.host or "this machine"
        return CheckResult(tuple(found), (*lines, f"GPUs: nvidia-smi is not installed on {where}"), {},
                           (Skipped("gpu", f"nvidia-smi is not installed on {where}"),))
    if smi.error:
        return CheckResult((_smi_error(ctx, smi.error),), (*lines, f"GPUs: nvidia-smi failed: {smi.error}"),
                           {"error": smi.error})
    gpus = smi.gpus
    if gpus:
        names = sorted({g.name for g in gpus})
        lines.append(f"GPUs: {len(gpus)} x {' / '.join(names)}, driver {gpus[0].driver} "
                     f"(CUDA up to {supported_cuda(gpus[0].driver, ctx.table.cuda) or '?'})")
        lines += [f"GPU {g.index}: {g.memory_used} / {g.memory_total} MiB used" for g in gpus if (g.memory_used or 0) >= HELD_MIB]
        module = _KERNEL_MODULE.search((host or {}).get("nvidia_driver") or "")
        if module and module.group(1) != gpus[0].driver:
            found.append(_smi_error(ctx, f"kernel module {module.group(1)} but driver libraries {gpus[0].driver}: "
                                         "Driver/library version mismatch"))
        if torch and cuda:
            found += _driver_findings(ctx, gpus, torch, cuda) + _arch_findings(ctx, gpus, torch, cuda)
        if torch and variant == "cpu":
            command = _torch_fix(torch, torch_variant_for(gpus[0].driver, ctx.table.cuda))
            found.append(env_finding(
                NAME, "cpu-torch", f"{torch.label} is a CPU-only build, but this host has {plural(len(gpus), 'NVIDIA GPU')}",
                "dependency_version_mismatch", Fix("install the CUDA build of the same torch"
                                                   + (f": {command}" if command else ""), command),
                score=75, host=ctx.runner.host, subject=Subject(("torch",), (), f"{torch.label} on a GPU host")))
        found += _held(ctx, smi)
    else:
        lines.append("GPUs: nvidia-smi lists none")
    data = {"gpus": [asdict(g) for g in gpus], "processes": [asdict(p) for p in smi.processes],
            "torch_cuda": cuda, "torch_variant": variant}
    return CheckResult(tuple(found), tuple(lines), data)


CHECK = EnvCheck(NAME, "GPUs and driver (nvidia-smi) against torch's CUDA build; processes holding GPU memory", run,
                 frozenset({"dists", "host"}))
