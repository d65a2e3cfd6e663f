"""runtime.core.tier in this checkout: the run has the tier it was started for, and the report
reads as documented, and a module built by hand is judged by modification time. (Building,
staleness and loading of real builds are in test_build.py.)"""

from __future__ import annotations

import os

import pytest

from runtime.core import tier
from runtime.core.tier import ModuleState, TierReport

EXPECT_TIER_ENV = "WIRESPEC_EXPECT_TIER"
"""Set by scripts/test.sh: ``compiled`` for the run after a build with a C compiler, ``pure
Python`` for the run with WIRESPEC_PURE_PYTHON=1."""


def test_the_run_has_the_tier_it_was_started_for():
    """A broken or stale build must not pass CI's compiled run as pure Python."""
    expected = os.environ.get(EXPECT_TIER_ENV)
    if not expected:
        pytest.skip(f"{EXPECT_TIER_ENV} is not set (scripts/test.sh sets it)")
    report = tier.describe()
    if expected == "compiled":
        not_compiled = [str(state) for state in report.modules if state.status != "compiled"]
        assert not not_compiled, "\n".join(["modules not compiled:", *not_compiled])
    else:
        assert expected == "pure Python" and tier.pure_python_forced()
        assert report.active == "pure Python", str(report)


def test_every_module_with_a_source_is_reported():
    names = tier.known_modules()
    assert [state.name for state in tier.describe().modules] == names
    assert all(name.startswith(tier.COMPILED_PACKAGES) for name in names)


def test_the_report_says_how_much_runs_compiled(monkeypatch):
    monkeypatch.delenv(tier.PURE_PYTHON_ENV, raising=False)
    compiled = ModuleState("runtime._compiled.a", "compiled")
    stale = ModuleState("runtime._compiled.b", "stale", "runtime/_compiled/b.pyx changed")
    assert TierReport((compiled,)).active == "compiled"
    assert TierReport((compiled, stale)).active == "partly compiled"
    assert TierReport((stale,)).active == "pure Python"
    assert str(TierReport((compiled, stale))).splitlines() == [
        "tier: partly compiled (1 of 2 modules compiled)",
        "  runtime._compiled.a: compiled",
        "  runtime._compiled.b: stale (runtime/_compiled/b.pyx changed)",
    ]
    assert str(TierReport(())) == "tier: pure Python (this version has no compiled modules)"
    monkeypatch.setenv(tier.PURE_PYTHON_ENV, "1")
    assert str(TierReport((compiled,))) == "tier: pure Python (WIRESPEC_PURE_PYTHON=1)"


def test_a_module_built_by_hand_is_stale_once_a_source_is_newer(tmp_path):
    """No record beside the extension (``cythonize -i``): its ``.pyx`` and the compiled
    packages' ``.pxd`` are compared with it by modification time. (test_build.py does so
    with a real build, in a subprocess.)"""
    import importlib.machinery

    folder = tmp_path / "runtime" / "_compiled"
    folder.mkdir(parents=True)
    extension = folder / f"probe{importlib.machinery.EXTENSION_SUFFIXES[0]}"
    extension.write_bytes(b"")
    pyx, pxd = folder / "probe.pyx", folder / "shared.pxd"
    pyx.write_text("")
    pxd.write_text("")
    built_at = extension.stat().st_mtime
    loaded = object()

    def check():
        return tier._checked("runtime._compiled.probe", extension, tier.REBUILD, lambda: loaded)

    for source in (pyx, pxd):
        os.utime(source, (built_at - 10, built_at - 10))
    assert check() == (loaded, ModuleState("runtime._compiled.probe", "compiled"))
    os.utime(pxd, (built_at + 10, built_at + 10))
    with pytest.warns(tier.StaleBuildWarning, match="shared.pxd changed since it was built"):
        module, state = check()
    assert module is None and state.status == "stale"
    assert (
        state.detail
        == f"runtime/_compiled/shared.pxd changed since it was built; rebuild: {tier.REBUILD}"
    )
