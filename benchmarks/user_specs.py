"""What the benchmarks of a user's spec share (``benchmarks.cut_instructions``,
``benchmarks.pcap_instructions``): a spec of tests/data/user_specs generated and built as a
user builds it (``wirespec generate --specs DIR --out PKG --compiled``, into a temporary
directory), its module loaded in the measured process, and the instructions one call of a
workload costs there (``valgrind --tool=cachegrind --cache-sim=no`` on the benchmark's own
``--run PKG WORKLOAD N``, run with ``N`` calls and with none: the difference over ``N``).
"""

from __future__ import annotations

import contextlib
import importlib.util
import shutil
import sys
import tempfile
from pathlib import Path

from benchmarks.instructions import instructions_of

USER_SPECS = Path(__file__).resolve().parent.parent / "tests" / "data" / "user_specs"
TIERS = {"compiled": {}, "pure Python": {"WIRESPEC_PURE_PYTHON": "1"}}
"""Tier -> the environment that loads it: compiled where the extension is built, pure
Python (the quick tier) under ``WIRESPEC_PURE_PYTHON=1``."""


@contextlib.contextmanager
def built_package(spec: str, edit=None):
    """The folder of a package generated and compiled from ``spec`` (a file name in
    tests/data/user_specs; ``edit``, if given, makes the text used of its text) in a
    temporary directory, removed after; None where ``wirespec generate`` failed (it said
    why)."""
    from generator.cli.main import main as wirespec

    with tempfile.TemporaryDirectory() as tmp:
        specs, package = Path(tmp) / "specs", Path(tmp) / "pkg"
        specs.mkdir()
        if edit is None:
            shutil.copy(USER_SPECS / spec, specs)
        else:
            (specs / spec).write_text(edit((USER_SPECS / spec).read_text()))
        failed = wirespec(["generate", "--specs", str(specs), "--out", str(package), "--compiled"])
        yield None if failed else package


def load(package: Path, name: str):
    """The module ``name`` of ``package``, as the measured process imports it."""
    spec = importlib.util.spec_from_file_location(f"bench_user_{name}", package / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def instructions_per_call(benchmark: str, package: Path, workload: str, n: int, env) -> float:
    """Instructions one call of ``workload`` costs: ``python -m benchmark --run package
    workload N`` under cachegrind with ``env``, ``N`` = ``n`` less ``N`` = 0, over ``n``."""
    runs = [
        instructions_of(["-m", benchmark, "--run", str(package), workload, str(k)], env)
        for k in (n, 0)
    ]
    return (runs[0] - runs[1]) / n
