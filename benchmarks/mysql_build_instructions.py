"""Instructions per built MySQL tagged GTID event, a measure the machine's load does not change.

Runs ``valgrind --tool=cachegrind --cache-sim=no`` on this script twice per builder: building
``--n`` events and building none (same imports, models and warm-up), and prints the
difference divided by ``--n``, and each builder's ratio to construct's. Needs valgrind.

    python -m benchmarks.mysql_build_instructions [--n 2000]

Builders: ``build`` (``ms.build``: the fast writers, construct where ``FALLBACKS`` says) and
``construct`` (``ms.build_construct``), of the seed event and of its body alone.
"""

from __future__ import annotations

import argparse
import sys

from benchmarks.instructions import instructions_of

WORKLOADS = ("event", "body")
BUILDERS = ("build", "construct")


def _build(workload: str, builder: str, n: int) -> None:
    """The measured process: parse the seed event, warm up, build ``n`` times."""
    from benchmarks.mysql_serialization import SEED_EVENT
    from generated import mysql_serialization as ms

    event = ms.parse(SEED_EVENT)
    model, record = (
        (event, "gtid_tagged_event") if workload == "event" else (event.body, "gtid_tagged_body")
    )
    fn = ms.build if builder == "build" else ms.build_construct
    for _ in range(50):
        fn(model, record)
    for _ in range(n):
        fn(model, record)


def _instructions(workload: str, builder: str, n: int) -> int:
    args = ["-m", "benchmarks.mysql_build_instructions", "--run", workload, builder, str(n)]
    return instructions_of(args)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="builds in the measured run")
    ap.add_argument("--run", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.run:
        workload, builder, n = args.run
        _build(workload, builder, int(n))
        return 0
    print("| workload | builder | instructions/build | construct / this |")
    print("|---|---|---:|---:|")
    for workload in WORKLOADS:
        per = {
            b: (_instructions(workload, b, args.n) - _instructions(workload, b, 0)) / args.n
            for b in BUILDERS
        }
        for b, value in per.items():
            print(f"| {workload} | {b} | {value:,.0f} | {per['construct'] / value:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
