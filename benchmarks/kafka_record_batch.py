#!/usr/bin/env python3
"""Decode speed of wirespec's Kafka RecordBatch v2 codec (``generated.kafka_record_batch``)
beside kafka-python's pure-Python reader and aiokafka's C (Cython) reader.

Workload, one process: a log segment of 100 uncompressed batches of 10 records each (a
16-byte key, a 120-byte JSON value, one header), written by kafka-python's
``DefaultRecordBatchBuilder``. Every decoder reads every record's offset, timestamp, key,
value and headers and checks each batch's CRC-32C (``--codec N``: the batches compressed
by kafka-python, 1 gzip, 2 snappy, 3 lz4, 4 zstd; every decoder decompresses them):

* ``wirespec parse``: ``parse(segment)``, the compiled tier when it is built, else the
  Python tiers (models of every batch and record, CRC verified, absolute offsets derived);
* ``wirespec quick tier`` and ``wirespec exact fast path``: the Python tiers on their own
  (``_quick_log_segment`` then the exact reader; the exact reader alone);
* ``wirespec iter_rows``: the Spark rows (one tuple per record with its batch's columns);
* ``wirespec construct``: ``parse_construct``, the oracle path;
* ``kafka-python``: ``DefaultRecordBatch`` per batch, ``validate_crc()``, then its records;
* ``aiokafka C``: aiokafka's Cython ``DefaultRecordBatch``, the same calls.

Also the CRC-32C itself on one batch's bytes: the ``crc32c`` package (the CPU's CRC
instruction; what wirespec uses) against anycrc's ``CRC32C`` model.

Reported: ns per record (the median of ``--runs`` passes), records/s and the ratio to
kafka-python. ``python benchmarks/kafka_record_batch.py [--runs 7]``

``--instructions N`` counts instead, which the machine's load does not change: valgrind's
cachegrind runs this script decoding the segment N more times and 0 more times (same
imports and warm-up) for wirespec ``parse`` and aiokafka C, and the difference per record
is printed (``--gc off``: with ``gc.disable()`` before the passes). Needs valgrind.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

import anycrc
import crc32c
from aiokafka.record._crecords import DefaultRecordBatch as CDefaultRecordBatch
from kafka.record.default_records import DefaultRecordBatch, DefaultRecordBatchBuilder

import generated.kafka_record_batch as kafka
from runtime.core import codec as rt_codec

BATCHES, RECORDS = 100, 10


def segment(codec: int = 0) -> bytes:
    """100 batches of 10 records back to back, base offsets as a broker assigns them
    (``codec``: kafka-python's compression, 0 none .. 4 zstd)."""
    out = bytearray()
    for b in range(BATCHES):
        builder = DefaultRecordBatchBuilder(2, codec, 0, -1, -1, -1, 1 << 20)
        for i in range(RECORDS):
            n = b * RECORDS + i
            value = b'{"id":%d,"status":"NEW","amount":"129.95","note":"%s"}' % (n, b"x" * 60)
            builder.append(
                i, timestamp=1_732_240_800_000 + n, key=b"order-%010d" % n,
                value=value, headers=[("content-type", b"application/json")],
            )  # fmt: skip
        data = bytes(builder.build())
        out += (b * RECORDS).to_bytes(8, "big") + data[8:]
    return bytes(out)


def batch_slices(data: bytes) -> list[bytes]:
    out, pos = [], 0
    while pos < len(data):
        size = 12 + int.from_bytes(data[pos + 8 : pos + 12], "big")
        out.append(data[pos : pos + size])
        pos += size
    return out


def peer_reader(batch_class):
    """A reference library's decode of the segment: every record's fields, CRC checked."""

    def read(data: bytes) -> int:
        n = 0
        for chunk in batch_slices(data):
            batch = batch_class(chunk)
            if not batch.validate_crc():
                raise ValueError("crc")
            for r in batch:
                fields = (r.offset, r.timestamp, r.key, r.value, r.headers)
                n += len(fields) // 5
        return n

    return read


def wirespec_reader(parse):
    def read(data: bytes) -> int:
        n = 0
        for rb in parse(data).batches:
            for r in rb.batch.records:
                fields = (r.offset, r.timestamp, r.key, r.value, r.headers)
                n += len(fields) // 5
        return n

    return read


def python_tier(quick: bool):
    """``parse`` without the compiled tier: the quick tier first (``quick``), then the
    exact reader."""
    record = kafka.DEFAULT_RECORD
    tier = kafka.QUICK_READERS.get(record) if quick else None
    return lambda data: rt_codec.parse_fast(kafka.FAST_READERS[record], data, quick=tier)


def rows(data: bytes) -> int:
    return sum(1 for _ in kafka.iter_rows(data))


def timed(function, data, runs: int) -> float:
    """Median seconds of one call over ``runs`` passes."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function(data)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


COUNTED = {
    "wirespec parse": wirespec_reader(kafka.parse),
    "aiokafka C": peer_reader(CDefaultRecordBatch),
}
"""The decoders ``--instructions`` counts."""


def counted_run(name: str, codec: int, passes: int, collect: bool) -> None:
    """The process cachegrind measures: set up, warm up, then ``passes`` decodes."""
    data, read = segment(codec), COUNTED[name]
    read(data)
    read(data)
    if not collect:
        gc.disable()
    for _ in range(passes):
        read(data)


def instructions(name: str, codec: int, passes: int, collect: bool) -> float:
    """Instructions per record of ``name``: ``passes`` decodes minus none."""
    from benchmarks.instructions import instructions_of  # here: the counted child runs as a script

    def count(n: int) -> int:
        gc_mode = "on" if collect else "off"
        args = [__file__, "--codec", str(codec), "--gc", gc_mode, "--counted-run", name, str(n)]
        return instructions_of(args)

    return (count(passes) - count(0)) / (passes * BATCHES * RECORDS)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--codec", type=int, default=0, help="1 gzip, 2 snappy, 3 lz4, 4 zstd")
    parser.add_argument("--instructions", type=int, metavar="N", help="count N passes instead")
    parser.add_argument("--gc", choices=("on", "off"), default="on")
    parser.add_argument("--counted-run", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.counted_run:
        counted_run(args.counted_run[0], args.codec, int(args.counted_run[1]), args.gc == "on")
        return 0
    if args.instructions:
        counts = {
            n: instructions(n, args.codec, args.instructions, args.gc == "on") for n in COUNTED
        }
        for name, per_record in counts.items():
            ratio = counts["aiokafka C"] / per_record
            print(f"{name:16} {per_record:9,.0f} instructions/record  {ratio:5.2f}x aiokafka C")
        return 0
    data = segment(args.codec)
    total = BATCHES * RECORDS
    decoders = {
        "wirespec parse": wirespec_reader(kafka.parse),
        "wirespec quick tier": wirespec_reader(python_tier(quick=True)),
        "wirespec exact fast path": wirespec_reader(python_tier(quick=False)),
        "wirespec iter_rows": rows,
        "wirespec construct": wirespec_reader(kafka.parse_construct),
        "kafka-python": peer_reader(DefaultRecordBatch),
        "aiokafka C": peer_reader(CDefaultRecordBatch),
    }
    for name, function in decoders.items():  # each reads every record
        assert function(data) == total, name
    print(f"segment: {len(data)} bytes, {BATCHES} batches x {RECORDS} records, codec {args.codec}")
    results = {name: timed(f, data, args.runs) for name, f in decoders.items()}
    base, c = results["kafka-python"], results["aiokafka C"]
    for name, seconds in results.items():
        print(
            f"{name:24} {seconds / total * 1e9:9.0f} ns/record {total / seconds:12,.0f} records/s"
            f"  {base / seconds:6.2f}x kafka-python  {c / seconds:5.2f}x aiokafka C"
        )
    one = batch_slices(data)[0][21:]
    model = anycrc.Model("CRC32C")
    for name, crc in (("crc32c package", crc32c.crc32c), ("anycrc CRC32C", model.calc)):
        seconds = timed(lambda d, crc=crc: [crc(d) for _ in range(10000)], one, args.runs) / 10000
        print(f"{name:20} {seconds * 1e9:9.0f} ns per {len(one)}-byte batch")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
