"""The opt-in imports check: each serving package imported in a fresh process of the target interpreter."""

from __future__ import annotations

from crashdoc.envdoctor import check_environment
from crashdoc.transport import LocalRunner
from tests.envdoctor.builders import Pkg

FLASHINFER_INIT = '''\
import flashinfer_cubin
__version__ = "0.6.4"
if flashinfer_cubin.__version__ != __version__:
    raise RuntimeError(
        f"flashinfer-cubin version ({flashinfer_cubin.__version__}) does not match "
        f"flashinfer version ({__version__}). Please install the same version of both packages. "
        "Set FLASHINFER_DISABLE_VERSION_CHECK=1 to bypass this check."
    )
'''


def test_import_reproduces_the_error(make_env):
    python = make_env(Pkg("flashinfer-python", "0.6.4", files={"flashinfer/__init__.py": FLASHINFER_INIT}),
                      Pkg("flashinfer-cubin", "0.6.3"), Pkg("transformers", "4.57.1"))
    report = check_environment(LocalRunner(), str(python), checks=["imports"])
    [failed] = report.findings
    assert failed.exception == "RuntimeError" and failed.category == "dependency_version_mismatch"
    assert failed.message.startswith("import flashinfer fails: RuntimeError: flashinfer-cubin version (0.6.3) does not match")
    assert "import transformers: ok" in report.section.lines


def test_imports_is_opt_in():
    from crashdoc.envdoctor import DEFAULT_CHECKS
    assert "imports" not in DEFAULT_CHECKS
