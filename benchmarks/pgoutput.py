#!/usr/bin/env python3
"""Decode cost of the generated pgoutput codec on PostgreSQL 15's own messages
(samples/pgoutput/: a CDC stream's Begin, Relation, Insert, Update, Delete, Commit, ...).

Each workload decodes every sample once, in file order (a replication stream's mix):
``stream`` the 56 messages, ``inserts`` the text and binary Inserts only (the rows a CDC
job spends its time on). Decoders: ``parse`` (the compiled reader where it is built),
``parse (pure Python)`` (``WIRESPEC_PURE_PYTHON=1``: the fast path) and
``parse_construct`` (the exact reader the others are checked against). Reported as
instructions per message (``valgrind --tool=cachegrind``: a run of N passes less a run of
none, the same imports; a measure the machine's load does not change), or with
``--time`` as messages/s (median of ``--runs``).

    .venv/bin/python -m benchmarks.pgoutput [--n 200] [--time --runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.instructions import instructions_of

SAMPLES = ROOT / "samples" / "pgoutput"
WORKLOADS = {
    "stream": "*.bin",
    "inserts": "*_insert.bin",
}
DECODERS = {
    "parse": ("parse", {}),
    "parse (pure Python)": ("parse", {"WIRESPEC_PURE_PYTHON": "1"}),
    "parse_construct": ("parse_construct", {"WIRESPEC_PURE_PYTHON": "1"}),
}


def payloads(workload: str) -> list[bytes]:
    return [p.read_bytes() for p in sorted(SAMPLES.glob(WORKLOADS[workload]))]


def run(workload: str, function: str, passes: int) -> float:
    """Decode the workload's messages ``passes`` times (the child of a measurement); the
    CPU seconds the passes took (not the import and the warm-up)."""
    import generated.pgoutput as pg

    decode, messages = getattr(pg, function), payloads(workload)
    for data in messages:  # warm-up: the first call binds the tiers
        decode(data)
    start = time.process_time()
    for _ in range(passes):
        for data in messages:
            decode(data)
    return time.process_time() - start


def instructions_per_message(workload: str, decoder: str, n: int) -> float:
    function, env = DECODERS[decoder]
    args = ["-m", "benchmarks.pgoutput", "--child", workload, function]
    runs = [instructions_of([*args, str(k)], dict(env, PYTHONPATH=str(ROOT))) for k in (n, 0)]
    return (runs[0] - runs[1]) / (n * len(payloads(workload)))


def messages_per_second(workload: str, decoder: str, n: int) -> float:
    function, env = DECODERS[decoder]
    code = f"import benchmarks.pgoutput as b; print(b.run({workload!r}, {function!r}, {n}))"
    env = dict(os.environ, PYTHONPATH=str(ROOT), **env)
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    return n * len(payloads(workload)) / float(out.stdout)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="passes over the workload")
    parser.add_argument("--time", action="store_true", help="messages/s instead")
    parser.add_argument("--runs", type=int, default=5, help="timed runs (median)")
    parser.add_argument("--child", nargs=3, metavar=("WORKLOAD", "FUNCTION", "PASSES"))
    args = parser.parse_args(argv)
    if args.child:
        workload, function, passes = args.child
        run(workload, function, int(passes))
        return 0
    unit = "messages/s" if args.time else "instructions/message"
    print(f"| workload | decoder | {unit} |\n|---|---|---:|")
    for workload in WORKLOADS:
        for decoder in DECODERS:
            if args.time:
                value = statistics.median(
                    messages_per_second(workload, decoder, args.n) for _ in range(args.runs)
                )
            else:
                value = instructions_per_message(workload, decoder, args.n)
            print(f"| {workload} | {decoder} | {value:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
