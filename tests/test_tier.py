"""runtime.core.tier in this checkout: the run has the tier it was started for, and the report
reads as documented. (Building, staleness and loading are in test_build.py.)"""

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
