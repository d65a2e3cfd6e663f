"""Instructions per message of ``BatchDecoder.decode`` where no ``write_arrow`` runs: the
models go through ``to_rows`` and the row tuples are built into Arrow column by column.

    python -m benchmarks.python_way [--n 512] [--workloads user-spec,kafka-empty,corrupt]

Cachegrind (``--cache-sim=no``) of a process decoding ``--n`` messages less one decoding
none, both after the same warm-up of 64 and ``gc.freeze()``, PERMISSIVE with an index
column (the method of benchmarks/README.md's section "Spark: ``RowWriter`` gone"):

``user-spec``
    PlainBuffer's small row (benchmarks/plainbuffer.py ``pb_small``) through the Spark
    ``spec`` option: specs/plainbuffer.yaml rendered in memory, its parse pure Python.
``kafka-empty``
    Kafka ``batch``es of no records (they parse: one row each).
``corrupt``
    Messages of each of the records that read their parent (:func:`parent_readers`, seven;
    every one corrupt on its own), per message of them all.
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

from benchmarks.instructions import instructions_of

WORKLOADS = ("user-spec", "kafka-empty", "corrupt")
WARM_UP = 64
"""Messages decoded before ``gc.freeze()`` in both runs."""
SAMPLES = Path(__file__).resolve().parent.parent / "samples"


@functools.cache
def parent_readers() -> tuple[tuple[str, str], ...]:
    """``(format, record)`` of the shipped records that read their parent (``_parent.x``),
    as their modules' ``FALLBACKS`` say (the fast path's ``needs_parent``): they have no
    plan of their own, so no ``write_arrow``, and on their own they parse only where the
    parent is never read (a Kafka ``batch`` of no records). tests/test_arrow_reader.py
    holds them to the Python way.

    >>> parent_readers()[:2]
    (('avro_container', 'block_records'), ('avro_container', 'data_block'))
    """
    from generator.emit.fallbacks import alone
    from runtime.spark.decode import load_module

    alone_parse = alone("parse")
    found = []
    for path in sorted((SAMPLES.parent / "generated").glob("*.py")):
        if path.stem != "__init__":
            why = getattr(load_module(path.stem), "FALLBACKS", {}).get("parse", {})
            found += [(path.stem, record) for record in why if why[record] == alone_parse]
    return tuple(found)


def _decoder(c):
    from pyspark.sql.types import BinaryType, StructField, StructType

    from runtime.spark.decode import BatchDecoder, output_schema

    spark_in = StructType([StructField("value", BinaryType())])
    out_schema, _ = output_schema(spark_in, c, "PERMISSIVE", ["value"], "_i")
    return BatchDecoder(c, out_schema, mode="PERMISSIVE", index_col="_i")


def empty_kafka_batch() -> bytes:
    """A Kafka ``batch`` of no records: its kafka_records would read their grandparent."""
    import dataclasses

    from runtime.spark.decode import load_module

    mod = load_module("kafka_record_batch")
    whole = mod.parse((SAMPLES / "kafka_record_batch" / "orders_batch.bin").read_bytes())
    batch = whole.batches[0].batch
    return mod.build(dataclasses.replace(batch, records=[], records_count=0), "batch")


def _jobs(workload: str, n: int) -> list:
    """``[(decoder, messages)]`` of ``workload``, ``n`` messages each."""
    from runtime.spark.decode import codec

    if workload == "user-spec":
        from benchmarks.plainbuffer import pb_small

        spec = str(SAMPLES.parent / "specs" / "plainbuffer.yaml")
        c = codec("plainbuffer", "message", spec=spec)
        return [(_decoder(c), [pb_small(i) for i in range(n)])]
    if workload == "kafka-empty":
        return [(_decoder(codec("kafka_record_batch", "batch")), [empty_kafka_batch()] * n)]
    jobs = []
    for fmt, record in parent_readers():
        folder = sorted((SAMPLES / fmt).glob("*"))
        found = [p.read_bytes()[:200] for p in folder if p.suffix != ".py"]
        jobs.append((_decoder(codec(fmt, record)), [found[i % len(found)] for i in range(n)]))
    return jobs


def _run(workload: str, n: int) -> None:
    """The measured process: the warm-up, then ``n`` messages of each job in one batch."""
    import gc

    import pyarrow as pa

    def batch(values):
        return pa.RecordBatch.from_arrays([pa.array(values, pa.binary())], names=["value"])

    jobs = _jobs(workload, max(n, WARM_UP))
    for decoder, values in jobs:
        decoder.decode(batch(values[:WARM_UP]))
    batches = [(decoder, batch(values[:n])) for decoder, values in jobs]
    gc.freeze()
    for decoder, b in batches:
        if n:
            decoder.decode(b)


def per_message(workload: str, n: int) -> float:
    """Instructions per message of ``workload``: a run of ``n`` less a run of none."""
    args = ["-m", "benchmarks.python_way", "--run", workload]
    runs = [instructions_of([*args, str(k)]) for k in (n, 0)]
    jobs = len(parent_readers()) if workload == "corrupt" else 1
    return (runs[0] - runs[1]) / (n * jobs)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=512, help="messages decoded in the measured run")
    ap.add_argument("--workloads", default=",".join(WORKLOADS), help="comma-separated")
    ap.add_argument("--run", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.run:
        _run(args.run[0], int(args.run[1]))
        return 0
    print("| workload | instructions/message |\n|---|---:|")
    for workload in args.workloads.split(","):
        print(f"| {workload} | {per_message(workload, args.n):,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
