"""``wirespec ingest ticdc_craft`` on a folder of N Craft row events: wall s, CPU s (not a test).

    .venv/bin/python -m benchmarks.ingest_craft [--repo PATH] [--events 1000000] [--files 16]

Builds ``--files`` length-delimited files (``part-NNNN.ldr``: ``u32`` big-endian length +
message, back to back; the data source has read this layout since before the ingest verb
existed) holding ``--events`` row events in total, encoded by this checkout's generated
``ticdc_craft`` module and batched 16 per message as tiflow does: inserts, updates (old and
new images) and deletes on four upstream tables in two schemas, four to six columns each of
integer, decimal, double, string, blob and datetime types. Then it runs
``python -m generator ingest ticdc_craft DIR --output TMP`` in the checkout ``--repo``
(default: this one; point it at another checkout to compare before/after; the input is the
same bytes either way) and prints wall seconds, the CPU seconds of the whole process tree
(driver, JVM, Python workers; :mod:`benchmarks.proctree`), the events ingest reports,
events per CPU second, and the peak RSS of the JVM and of the Python processes.
"""

from __future__ import annotations

import argparse
import os
import re
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.proctree import Watch

ROOT = Path(__file__).resolve().parent.parent
FIRST_TS = 440000000000000000
TABLES = ("shop.orders", "shop.customers", "shop.items", "billing.invoices")
"""Upstream tables, cycled event by event (so each message mixes tables, as a TiCDC
partition carrying several tables does)."""


def row_images(table: str, i: int):
    """The columns of row ``i`` of ``table``: a handful of MySQL types per table."""
    from generated.models.ticdc_types import Column

    key = Column("id", 8, 0x0A, i)  # BIGINT, handle key + primary key
    if table == "shop.orders":
        return [
            key,
            Column("qty", 3, 0, i % 1000),
            Column("price", 246, 0, f"{i % 10000}.{i % 100:02d}"),
            Column("note", 15, 0, b"order note %d" % i),
            Column("at", 12, 0, "2026-11-25 12:00:00"),
        ]
    if table == "shop.customers":
        return [
            key,
            Column("name", 15, 0, b"customer %d" % i),
            Column("score", 5, 0, i / 7.0),
            Column("joined", 12, 0, "2025-01-01 08:30:00"),
        ]
    if table == "shop.items":
        return [
            key,
            Column("sku", 15, 0, b"SKU-%08d" % i),
            Column("stock", 3, 0, i % 5000),
            Column("weight", 5, 0, (i % 977) / 10.0),
            Column("photo", 252, 0x01, bytes(range(i % 32))),  # BLOB, binary
            Column("updated", 12, 0, "2026-11-24 23:59:59"),
        ]
    return [
        key,
        Column("customer", 8, 0, i // 3),
        Column("total", 246, 0, f"{i % 100000}.{i % 97:02d}"),
        Column("currency", 15, 0, b"EUR"),
    ]


def events(start: int, count: int):
    """Row events ``start`` .. ``start + count``: 70% inserts, 20% updates, 10% deletes."""
    from generated.models.ticdc_types import RowChangedEvent

    for i in range(start, start + count):
        schema, table = TABLES[i % len(TABLES)].split(".")
        row = row_images(f"{schema}.{table}", i)
        kind = i % 10
        if kind < 7:
            new, old = row, None
        elif kind < 9:
            new, old = row, row_images(f"{schema}.{table}", i - 1)
        else:
            new, old = None, row
        yield RowChangedEvent(FIRST_TS + i, schema, table, new=new, old=old)


def build_input(folder: Path, n_events: int, n_files: int) -> tuple[int, int]:
    """Write the ``.ldr`` files; returns (messages, bytes)."""
    from generated.ticdc_craft import encode_events

    messages = size = 0
    per_file, extra = divmod(n_events, n_files)
    start = 0
    for k in range(n_files):
        count = per_file + (k < extra)
        with open(folder / f"part-{k:04d}.ldr", "wb") as f:
            for message in encode_events(events(start, count), max_batch_size=16):
                f.write(struct.pack(">I", len(message)))
                f.write(message)
                messages += 1
                size += 4 + len(message)
        start += count
    return messages, size


def reported_events(stdout: str) -> int | None:
    """The ``events`` column of ingest's summary table (old and new CLIs print one)."""
    header = next((line for line in stdout.splitlines() if " events " in line), None)
    row = next((line for line in stdout.splitlines() if "ticdc_craft" in line), None)
    if header is None or row is None:
        return None
    names = [c.strip() for c in re.split(r"[│┃|]", header)]
    cells = [c.strip() for c in re.split(r"[│┃|]", row)]
    try:
        return int(cells[names.index("events")].replace(",", ""))
    except (ValueError, IndexError):
        return None


def run_ingest(repo: Path, folder: Path, output: Path) -> tuple[float, Watch, str]:
    env = dict(os.environ, PYTHONPATH=str(repo), COLUMNS="200")
    env.setdefault("PYSPARK_PYTHON", sys.executable)
    env.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    cmd = [sys.executable, "-m", "generator", "ingest", "ticdc_craft", str(folder)]
    cmd += ["--output", str(output)]
    print(f"running in {repo}: {' '.join(cmd[1:])}", flush=True)
    began = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    watch = Watch(proc.pid)
    out, err = proc.communicate()
    watch.stop()
    if proc.returncode:
        sys.exit(f"ingest failed with {proc.returncode}:\n{err[-3000:]}")
    return time.perf_counter() - began, watch, out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, default=ROOT)
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--files", type=int, default=16)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="wirespec-craft-bench-") as tmp:
        folder = Path(tmp) / "in"
        folder.mkdir()
        began = time.perf_counter()
        messages, size = build_input(folder, args.events, args.files)
        print(
            f"built {args.events:,} events in {messages:,} messages, {size / 2**20:,.1f} MiB, "
            f"{args.files} files in {time.perf_counter() - began:.1f} s",
            flush=True,
        )
        load = os.getloadavg()
        wall, watch, out = run_ingest(args.repo.resolve(), folder, Path(tmp) / "out")
        load_after = os.getloadavg()
    print(out)
    reported = reported_events(out)
    peaks, cpu = watch.peak_kib, watch.cpu_seconds
    print(
        "| checkout | events (reported) | wall s | CPU s (tree) | events/CPU s | "
        "peak RSS JVM MiB | peak RSS Python MiB | load 1 min before/after |"
    )
    print(
        f"| {args.repo} | {reported if reported is not None else '?'} | {wall:,.1f} | "
        f"{cpu:,.1f} | {args.events / cpu:,.0f} | {peaks['jvm'] / 1024:,.0f} | "
        f"{peaks['python'] / 1024:,.0f} | {load[0]:.1f} / {load_after[0]:.1f} |",
        flush=True,
    )


if __name__ == "__main__":
    main()
