"""Spark decode() throughput against the same parse in a plain Python loop (not a test).

    .venv/bin/python benchmarks/spark_ingest.py [--events 1000000] [--master local[2]]

Builds Craft messages holding ``--events`` row events (16 per message, as tiflow batches
them) plus a mix of the other formats, writes them as Kafka-shaped Parquet, then for each
format measures, in the same run:

* the plain loop: ``codec.rows(key, value)`` (parse + to_rows) over every message on one
  core, no Spark;
* Spark: ``decode(spark.read.parquet(...), fmt)`` written to the ``noop`` sink on
  ``--master`` (default ``local[2]``), best of two runs after a warm-up.

It prints events/s for both and the Spark overhead per event in core-microseconds
(cores x wall / events minus the plain loop's per-event time).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def craft_messages(n_events: int):
    from spark_cases import craft_encode

    from runtime.ticdc import Column, RowChangedEvent

    events = [
        RowChangedEvent(
            400000000000000000 + i,
            "shop",
            "orders",
            new=[
                Column("id", 8, 0x0A, i),
                Column("qty", 3, 0, i % 1000),
                Column("price", 246, 0, f"{i % 10000}.{i % 100:02d}"),
                Column("note", 15, 0, b"order note %d" % i),
                Column("at", 12, 0, "2024-05-01 12:00:00"),
            ],
        )
        for i in range(n_events)
    ]
    return [(None, m) for m in craft_encode(events, max_batch_size=16)]


def other_messages(n: int):
    from spark_cases import CASES

    out = {}
    for fmt in ("plainbuffer", "ticdc_open_protocol"):
        vectors = [kv for kv in CASES[fmt][0]()]
        out[fmt] = (vectors * (n // len(vectors) + 1))[:n]
    return out


def plain_loop(fmt, messages):
    from runtime.spark_decode import codec

    c = codec(fmt)
    start = time.perf_counter()
    events = 0
    for k, v in messages:
        events += len(c.rows(k, v))
    return events, time.perf_counter() - start


def spark_run(spark, fmt, path, cores):
    from runtime.spark import decode

    best = None
    for _ in range(3):  # the first run warms up the workers
        start = time.perf_counter()
        decode(spark.read.parquet(path), fmt).write.format("noop").mode("overwrite").save()
        took = time.perf_counter() - start
        best = took if best is None else min(best, took)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--others", type=int, default=50_000, help="messages per other format")
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args(argv)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyspark.sql import SparkSession

    print(f"building {args.events:,} Craft events ...", flush=True)
    workloads = {"ticdc_craft": craft_messages(args.events), **other_messages(args.others)}
    tmp = Path(tempfile.mkdtemp(prefix="wirespec-bench-"))
    paths = {}
    for fmt, msgs in workloads.items():
        path = tmp / fmt
        path.mkdir()
        for part in range(4):  # four files -> four input splits
            chunk = msgs[part::4]
            pq.write_table(
                pa.table(
                    {
                        "key": pa.array([k for k, _ in chunk], pa.binary()),
                        "value": pa.array([v for _, v in chunk], pa.binary()),
                        "offset": pa.array(range(len(chunk)), pa.int64()),
                    }
                ),
                path / f"part-{part}.parquet",
            )
        paths[fmt] = str(path)
    spark = (
        SparkSession.builder.master(args.master)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "4g")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    cores = spark.sparkContext.defaultParallelism
    print(f"{'format':22} {'messages':>9} {'events':>10} {'loop ev/s':>11} "
          f"{'spark ev/s':>11} {'loop us/ev':>10} {'spark overhead us/ev':>21}")  # fmt: skip
    for fmt, msgs in workloads.items():
        events, loop_s = plain_loop(fmt, msgs)
        spark_s = spark_run(spark, fmt, paths[fmt], cores)
        loop_us = loop_s / events * 1e6
        overhead = cores * spark_s / events * 1e6 - loop_us
        print(
            f"{fmt:22} {len(msgs):>9,} {events:>10,} {events / loop_s:>11,.0f} "
            f"{events / spark_s:>11,.0f} {loop_us:>10.2f} {overhead:>21.2f}",
            flush=True,
        )
    spark.stop()


if __name__ == "__main__":
    main()
