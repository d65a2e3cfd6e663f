"""What a Spark worker's Python costs per PlainBuffer row, without a JVM (not a test).

    python -m benchmarks.plainbuffer_worker [--rows 50000] [--batch 10000] [--runs 7] [--ways arrow,models,rows]
    python -m benchmarks.plainbuffer_worker --instructions [--rows 20000]

Runs :class:`runtime.spark.decode.BatchDecoder` (what ``decode()``'s ``mapInArrow`` runs on
each worker) over Kafka-shaped Arrow batches of the small row of ``benchmarks/plainbuffer.py``
(64 distinct rows cycled, ``--batch`` messages a batch, the offset column passed through), in
each way the worker can take:

* ``arrow``: the compiled reader writes the Arrow columns straight from the bytes (no model
  objects; ``generated/_compiled/plainbuffer.pyx``'s ``arrow_*`` writers), when built;
* ``rows``: parse, ``to_rows`` tuples, ``pa.array`` (what a message the reader hands back
  takes, and a user's spec).

(The ``models`` way, the models-to-Arrow ``RowWriter``, was removed with it: branch
``arrow-rest``.)

CPU time per row (``time.process_time``), median of ``--runs`` interleaved runs after a
warm-up. ``--instructions`` runs each way under ``valgrind --tool=cachegrind`` twice (both
making the same input batches, one decoding them) and prints the difference per row: a count
the machine's load does not change.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from benchmarks.instructions import instructions_of

WAYS = ("arrow", "rows")


def decoder_and_batches(way: str, rows: int, batch: int):
    """A FAILFAST BatchDecoder of PlainBuffer taking ``way``, and the input batches."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import from_arrow_schema

    from benchmarks.plainbuffer import pb_small
    from runtime.spark.decode import INDEX_COL, BatchDecoder, codec, output_schema

    payloads = [pb_small(i) for i in range(64)]
    values = [payloads[i % 64] for i in range(rows)]
    batches = [
        pa.record_batch(
            {
                "value": pa.array(values[i : i + batch], pa.binary()),
                "offset": pa.array(range(i, min(i + batch, rows)), pa.int64()),
            }
        )
        for i in range(0, rows, batch)
    ]
    c = codec("plainbuffer")
    out_schema, renames = output_schema(
        from_arrow_schema(batches[0].schema), c, "FAILFAST", ["value"], INDEX_COL
    )
    decoder = BatchDecoder(c, out_schema, passthrough=list(renames), index_col=INDEX_COL)
    if way != "arrow":
        decoder.reader = None
    if way == "arrow" and getattr(decoder, "reader", None) is None:
        return None, batches
    return decoder, batches


def run_once(decoder, batches) -> float:
    start = time.process_time()
    for b in batches:
        decoder.decode(b)
    return time.process_time() - start


def _instructions(way: str, rows: int, batch: int) -> int:
    args = ["-m", "benchmarks.plainbuffer_worker", "--run", way, str(rows), "--batch", str(batch)]
    return instructions_of(args)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=50_000)
    ap.add_argument("--batch", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--instructions", action="store_true")
    ap.add_argument("--ways", default=",".join(WAYS), help="comma-separated ways to measure")
    ap.add_argument("--run", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.run:  # the measured process of --instructions: warm up, then decode n rows
        # both processes make the same batches; only the measured one decodes them, so
        # the difference is the decoding alone (not making the input)
        way, n = args.run[0], int(args.run[1])
        decoder, batches = decoder_and_batches(way, max(abs(n), args.batch), args.batch)
        decoder.decode(batches[0])
        batches = decoder_and_batches(way, abs(n), args.batch)[1]
        if n > 0:
            run_once(decoder, batches)
        return 0
    if args.instructions:
        print("| way | instructions/row |")
        print("|---|---:|")
        for way in args.ways.split(","):
            if way == "arrow" and decoder_and_batches(way, 1, 1)[0] is None:
                continue
            made = _instructions(way, -args.rows, args.batch)
            diff = _instructions(way, args.rows, args.batch) - made
            print(f"| {way} | {diff / args.rows:,.0f} |")
        return 0
    made = {way: decoder_and_batches(way, args.rows, args.batch) for way in args.ways.split(",")}
    made = {way: m for way, m in made.items() if m[0] is not None}
    for decoder, batches in made.values():
        run_once(decoder, batches[:1])
    took: dict[str, list[float]] = {way: [] for way in made}
    for _ in range(args.runs):
        for way, (decoder, batches) in made.items():
            took[way].append(run_once(decoder, batches))
    print(f"load average {os.getloadavg()[0]:.1f}; {args.rows:,} rows, batches of {args.batch:,}")
    for way, times in took.items():
        per_row = statistics.median(times) / args.rows * 1e6
        print(f"  {way:7s} {per_row:6.2f} us/row (median of {args.runs})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
