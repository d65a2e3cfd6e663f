"""One big MySQL binlog file through ``wirespec ingest``: events/s and peak memory (not a test).

    .venv/bin/python -m benchmarks.ingest_binlog [--mib 1024] [--query-bytes 0] [--master local[*]]

Builds a binlog file of about ``--mib`` MiB in a temporary directory with the generated
module's builder (the events of the shipped sample, GTID_TAGGED_LOG_EVENTs and others,
repeated; ``--query-bytes`` pads the QUERY_EVENTs to row-event sizes), runs ``python -m generator ingest mysql_serialization FILE --output DIR`` with
Spark's default JVM memory, and samples every 0.5 s the resident memory of the process tree
below it: the JVM, and the Python processes (the ingest driver and the Spark workers). It
prints the file size, the events, the decode and total seconds, events/s over the decode
the CPU seconds of the whole tree, and the peak RSS of the JVM and of the Python processes
(each group summed at each sample; :mod:`benchmarks.proctree`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.proctree import Watch

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "mysql_serialization" / "binlog.000001.binlog"
BLOCK_COPIES = 1000
"""Copies of the sample's events in the block written over and over."""
QUERY_EVENT = 2


def build_binlog(path: Path, mib: int, query_bytes: int = 0) -> tuple[int, int]:
    """Write a binlog of at least ``mib`` MiB; returns (bytes, events). ``query_bytes``
    pads the body of each QUERY_EVENT to that size (row-sized events, fewer per MiB)."""
    from generated import mysql_serialization as ms

    model = ms.parse(SAMPLE.read_bytes(), "binlog_file")
    for event in model.events:
        if event.type_code == QUERY_EVENT and len(event.body) < query_bytes:
            event.event_size += query_bytes - len(event.body)
            event.body += b" " * (query_bytes - len(event.body))
    model.events = model.events * BLOCK_COPIES
    whole = ms.build(model, "binlog_file")
    head = 4 + int.from_bytes(whole[13:17], "little")  # the magic and the format description
    block, per_block = whole[head:], len(model.events)
    size, events = head, 0
    with open(path, "wb") as f:
        f.write(whole[:head])
        while size < mib << 20:
            f.write(block)
            size += len(block)
            events += per_block
    return size, events


CHILD = """
import json, sys
from generator.cli.ingest import ingest, session, claim_output, LOG_NAME
out = claim_output(sys.argv[2])
spark = session(sys.argv[3], out / LOG_NAME)
print(json.dumps(ingest("mysql_serialization", [sys.argv[1]], out, spark=spark)))
"""


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=1024)
    ap.add_argument("--master", default="local[*]")
    ap.add_argument("--query-bytes", type=int, default=0, help="pad QUERY_EVENT bodies")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="wirespec-binlog-bench-") as tmp:
        path = Path(tmp) / "binlog.000001"
        began = time.perf_counter()
        size, events = build_binlog(path, args.mib, args.query_bytes)
        print(f"built {size:,} bytes, {events:,} events in {time.perf_counter() - began:.1f} s")
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        env.setdefault("PYSPARK_PYTHON", sys.executable)
        env.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        cmd = [sys.executable, "-c", CHILD, str(path), str(Path(tmp) / "out"), args.master]
        began = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
        watch = Watch(proc.pid)
        out, _ = proc.communicate()
        watch.stop()
        wall = time.perf_counter() - began
        peaks = watch.peak_kib
        if proc.returncode:
            sys.exit(f"ingest failed ({proc.returncode}); see {Path(tmp) / 'out' / '_ingest.log'}")
        summary = json.loads(out.strip().splitlines()[-1])
        assert summary["events"] == events and summary["corrupt"] == 0, summary
        print(
            f"| {size / 2**20:,.0f} MiB | {events:,} | {summary['decode_seconds']:,.1f} | "
            f"{wall:,.1f} | {watch.cpu_seconds:,.0f} | {summary['events_per_s']:,.0f} | "
            f"{peaks['jvm'] / 1024:,.0f} | {peaks['python'] / 1024:,.0f} |"
        )


if __name__ == "__main__":
    main()
