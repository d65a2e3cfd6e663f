"""Instructions per ``parse`` and per ``build`` of a log whole and cut, in both tiers.

A user's spec with ``on_cut: keep`` (tests/data/user_specs/cutlog.yaml: a version byte,
then sized entries to the end of the input, the entry the input ends inside kept as
``entries_cut``) generated and built as a user builds it (``wirespec generate --specs DIR
--out PKG --compiled``, into a temporary directory), then ``valgrind --tool=cachegrind
--cache-sim=no`` on this script twice per workload and tier: ``ENTRIES`` entries of 20 to
59 bytes, whole or cut 5 bytes before the end (inside its last entry), parsed or built 20
times to warm up, ``gc.freeze()``, then ``--n`` times or none; it prints the difference
divided by ``--n``. The tier is the one the module loads: compiled where its extension is
built, pure Python (the quick tier) under ``WIRESPEC_PURE_PYTHON=1``. Needs valgrind and a
C compiler.

    python -m benchmarks.cut_instructions [--n 20]
"""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path

from benchmarks.user_specs import TIERS, built_package, instructions_per_call, load

BENCHMARK = "benchmarks.cut_instructions"
WORKLOADS = ("parse whole", "parse cut", "build whole", "build cut")
ENTRIES = 100
CUT = 5
WARM_UP = 20


def log_bytes(whole: bool) -> bytes:
    """The version, then ``ENTRIES`` entries of 20 to 59 bytes; cut: less its last ``CUT``.

    >>> len(log_bytes(True)) - len(log_bytes(False))
    5
    """
    out = bytearray([1])
    for k in range(ENTRIES):
        size = 20 + k % 40
        out += bytes([size]) + bytes(range(k, k + size))
    return bytes(out if whole else out[:-CUT])


def _run(package: str, workload: str, n: int) -> None:
    """The measured process."""
    module = load(Path(package), "cutlog")
    verb, shape = workload.split()
    data = log_bytes(shape == "whole")
    model = module.parse(data)
    assert (model.entries_cut is None) == (shape == "whole") and module.build(model) == data
    call, arg = (module.parse, data) if verb == "parse" else (module.build, model)
    for _ in range(WARM_UP):
        call(arg)
    gc.freeze()
    for _ in range(n):
        call(arg)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20, help="calls in the measured run")
    ap.add_argument("--workloads", nargs="*", default=WORKLOADS, choices=WORKLOADS)
    ap.add_argument("--run", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.run:
        _run(args.run[0], args.run[1], int(args.run[2]))
        return 0
    with built_package("cutlog.yaml") as package:
        if package is None:
            return 1
        print(f"| tier | workload ({ENTRIES} entries) | instructions/call |")
        print("|---|---|---:|")
        for tier, env in TIERS.items():
            for workload in args.workloads:
                per = instructions_per_call(BENCHMARK, package, workload, args.n, env)
                print(f"| {tier} | {workload} | {per:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
