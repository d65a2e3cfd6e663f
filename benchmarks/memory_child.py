"""One decode in a bare process, for the memory check of ``python -m benchmarks``.

It imports nothing but the standard library and the generated module it decodes, so the
resident set after the imports is the process's size when decoding starts: the peak's
growth over it is what the decode held (input read included). Importing the benchmark suite first
(the SDKs, numpy) would leave freed memory the decode reuses unseen, so the growth would
under-report.

    python -m benchmarks.memory_child plainbuffer INPUT    # prints {"base", "peak", "size", "cpu"}
    python -m benchmarks.memory_child plainbuffer-one INPUT   # and one row read (-every: all)
    python -m benchmarks.memory_child arrow:plainbuffer:message INPUT [SIZES]

``arrow:FORMAT:RECORD`` runs ``decode()``'s ``BatchDecoder`` (the compiled tier's Arrow reader
when built) over one Arrow batch of the input: one message, or one a size in ``SIZES`` (a file
of native uint32s) when given. The batch's binary column holds the input's bytes as read (no
copy), as a Spark worker holds the batch it was sent.

The peak is ``ru_maxrss``. Linux carries it over ``exec`` from the process that started
this one (the benchmark suite, which held the input), so the decode runs in a grandchild
started by this bare process: what it carries over is this process's few MiB, below the
base the decode starts from.
"""

from __future__ import annotations

import importlib
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

DECODES = {
    "plainbuffer": ("generated.plainbuffer", lambda m, d: m.parse(d)),
    "plainbuffer-one": ("generated.plainbuffer", lambda m, d: _read_one(m.parse(d).rows)),
    "plainbuffer-every": ("generated.plainbuffer", lambda m, d: _read_every(m.parse(d).rows)),
    "plainbuffer-iter": ("generated.plainbuffer", lambda m, d: _drain(m.iter_rows(d))),
    "mysql": ("generated.mysql_serialization", lambda m, d: m.parse(d, "binlog_file")),
    "mysql-one": (
        "generated.mysql_serialization",
        lambda m, d: _read_one(m.parse(d, "binlog_file").events),
    ),
    "mysql-every": (
        "generated.mysql_serialization",
        lambda m, d: _read_every(m.parse(d, "binlog_file").events),
    ),
    "mysql-iter": (
        "generated.mysql_serialization",
        lambda m, d: _drain(m.iter_rows(d, "binlog_file")),
    ),
}


def _decoder(spark_decode, fmt: str, record: str):
    """The BatchDecoder ``decode()`` makes for ``record`` of ``fmt`` (FAILFAST)."""
    from pyspark.sql.types import BinaryType, StructField, StructType

    c = spark_decode.codec(fmt, record)
    spark_in = StructType([StructField("value", BinaryType())])
    schema, _ = spark_decode.output_schema(spark_in, c, "FAILFAST", ["value"], None)
    return spark_decode.BatchDecoder(c, schema)


def _message_batch(data, sizes=None):
    """One Arrow batch of the messages of ``data`` (one, or one a size in ``sizes``): its
    binary column's data buffer is ``data`` itself, not a copy."""
    import itertools

    import pyarrow as pa

    ends = list(itertools.accumulate(sizes)) if sizes else [len(data)]
    offsets = pa.array([0, *ends], pa.int32()).buffers()[1]
    column = pa.Array.from_buffers(pa.binary(), len(ends), [None, offsets, pa.py_buffer(data)])
    return pa.record_batch({"value": column})


def _warm_up(decoder, first_message) -> None:
    """Decode a small batch first (the imports, the tier's first call): the first message
    of many, or for one big message a batch of one null (its corrupt record)."""
    import pyarrow as pa

    from runtime.spark.decode import RecordDecodeError

    if first_message is not None:
        decoder.decode(_message_batch(first_message))
        return
    try:
        decoder.decode(pa.record_batch({"value": pa.array([None], pa.binary())}))
    except RecordDecodeError:
        pass


def _drain(rows) -> None:
    for _ in rows:
        pass


def _read_one(elements: list) -> list:
    """``elements`` (held) with one field of the middle one read: a model read in part."""
    repr(elements[len(elements) // 2])
    return elements


def _read_every(elements: list) -> list:
    """``elements`` (held) with a field of every one read: every model built."""
    for element in elements:
        element.__eq__(element)
    return elements


def _head(path: str, size: int) -> bytes:
    """The input's first ``size`` bytes, without holding the rest: a transient copy of the
    whole input before the base would hide that much of the decode's peak."""
    with open(path, "rb") as f:
        return f.read(size)


def _peak_kib() -> int:
    """The peak resident set of this process so far, in KiB (Linux's unit)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def main(kind: str, path: str, sizes_path: str | None = None) -> None:
    if kind.startswith("arrow:"):
        import array

        _, fmt, record = kind.split(":")
        module = importlib.import_module("runtime.spark.decode")
        decoder = _decoder(module, fmt, record)
        sizes = array.array("I", Path(sizes_path).read_bytes()) if sizes_path else None
        _warm_up(decoder, _head(path, sizes[0]) if sizes else None)

        def decode(_, data):
            return decoder.decode(_message_batch(data, sizes))

    else:
        module_name, decode = DECODES[kind]
        module = importlib.import_module(module_name)
    base = _peak_kib()
    data = Path(path).read_bytes()
    start = time.process_time()
    model = decode(module, data)
    spent = time.process_time() - start
    peak = _peak_kib()
    print(json.dumps({"base": base, "peak": peak, "size": len(data), "cpu": spent}))
    del model


if __name__ == "__main__":
    if sys.argv[1] == "--decode":
        main(*sys.argv[2:5])
    else:
        args = [sys.executable, "-m", "benchmarks.memory_child", "--decode", *sys.argv[1:4]]
        sys.exit(subprocess.run(args, check=False).returncode)
