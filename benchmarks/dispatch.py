"""What a generated module's ``parse`` costs around its reader, on small messages.

A small message is read in a few hundred nanoseconds, so the call itself (argument parsing,
the limits, the tier dispatch) is a large part of it. For a MySQL tagged GTID event, a
protobuf message and a small PlainBuffer row this prints ``parse(data)`` (the path without
limits), ``parse(data, max_depth=64)`` (with one) and, where it is exposed, the reader that
``parse`` dispatches to called directly (the floor), each as

* the median of ``--runs`` timed runs of ``--n`` calls (ns per call; swings with the load);
* with ``--instructions``, instructions per call under ``valgrind --tool=cachegrind``
  (``--n`` calls minus none, same imports and warm-up): what the load does not change.

    python -m benchmarks.dispatch [--n 20000] [--runs 7] [--instructions] [--match TEXT]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from benchmarks.instructions import instructions_of

ROOT = Path(__file__).resolve().parent.parent


def _cases() -> dict:
    """Case -> (call, payload), for each way of calling ``parse`` measured."""
    from benchmarks.mysql_serialization import SEED_EVENT
    from benchmarks.plainbuffer import pb_small
    from generated import mysql_serialization, plainbuffer, protobuf_wire

    order = (ROOT / "samples" / "protobuf_wire" / "order_card.bin").read_bytes()
    row = pb_small(7)
    cases = {}
    for name, module, data in (
        ("mysql gtid event", mysql_serialization, SEED_EVENT),
        ("protobuf order", protobuf_wire, order),
        ("plainbuffer small row", plainbuffer, row),
    ):
        cases[f"{name}: parse(data)"] = (module.parse, data)
        cases[f"{name}: parse(data, max_depth=64)"] = (
            lambda data, parse=module.parse: parse(data, max_depth=64),
            data,
        )
        floor = _reader(module)
        if floor is not None:
            cases[f"{name}: its reader alone"] = (floor, data)
    return cases


def _reader(module):
    """The default record's compiled or table reader called directly, or None."""
    limits = module._LIMITS
    compiled = getattr(module, "COMPILED_READERS", {}).get(module.DEFAULT_RECORD)
    if compiled is not None:
        return lambda data: compiled(data, limits)
    table = getattr(module, "TABLE_READERS", {}).get(module.DEFAULT_RECORD)
    if table is not None:
        return lambda data: table(data, {})
    return None


def _run(call, data, n: int) -> None:
    for _ in range(n):
        call(data)


def timed(n: int, runs: int, match: str = "") -> dict:
    """Case -> median ns per call; the runs interleave the cases."""
    cases = {case: v for case, v in _cases().items() if match in case}
    samples = {case: [] for case in cases}
    for call, data in cases.values():
        _run(call, data, 1000)  # warm-up
    for _ in range(runs):
        for case, (call, data) in cases.items():
            start = time.perf_counter_ns()
            _run(call, data, n)
            samples[case].append((time.perf_counter_ns() - start) / n)
    return {case: statistics.median(values) for case, values in samples.items()}


def _instructions(case: str, n: int) -> int:
    return instructions_of(["-m", "benchmarks.dispatch", "--run", case, str(n)])


def instructions(n: int, match: str = "") -> dict:
    """Case -> instructions per call (``n`` calls minus none, in fresh processes)."""
    return {
        case: (_instructions(case, n) - _instructions(case, 0)) / n
        for case in _cases()
        if match in case
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000, help="calls per timed run")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--instructions", action="store_true", help="also count under cachegrind")
    ap.add_argument("--match", default="", help="only the cases whose name has this text")
    ap.add_argument("--run", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.run:
        case, n = args.run
        call, data = _cases()[case]
        _run(call, data, 1000)
        _run(call, data, int(n))
        return 0
    times = timed(args.n, args.runs, args.match)
    counts = instructions(min(args.n, 2000), args.match) if args.instructions else {}
    print(f"load average {os.getloadavg()[0]:.1f}")
    print("| case | ns/call (median) |" + (" instructions/call |" if counts else ""))
    print("|---|---:|" + ("---:|" if counts else ""))
    for case, ns in times.items():
        extra = f" {counts[case]:,.0f} |" if counts else ""
        print(f"| {case} | {ns:,.0f} |{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
