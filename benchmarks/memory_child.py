"""One decode in a bare process, for the memory check of ``python -m benchmarks``.

It imports nothing but the standard library and the generated module it decodes, so the
resident set after the imports is the process's size when decoding starts: the peak's
growth over it is what the decode held (input read included). Importing the benchmark suite first
(the SDKs, numpy) would leave freed memory the decode reuses unseen, so the growth would
under-report.

    python -m benchmarks.memory_child plainbuffer INPUT    # prints {"base", "peak", "size", "cpu"}
"""

from __future__ import annotations

import importlib
import json
import resource
import sys
import time
from pathlib import Path

DECODES = {
    "plainbuffer": ("generated.plainbuffer", lambda m, d: m.parse(d)),
    "plainbuffer-iter": ("generated.plainbuffer", lambda m, d: _drain(m.iter_rows(d))),
    "plainbuffer-arrow": ("runtime.spark.decode", lambda m, d: _arrow_batch(m, d)),
    "mysql": ("generated.mysql_serialization", lambda m, d: m.parse(d, "binlog_file")),
    "mysql-iter": (
        "generated.mysql_serialization",
        lambda m, d: _drain(m.iter_rows(d, "binlog_file")),
    ),
}


def _arrow_batch(spark_decode, data: bytes):
    """What a Spark worker holds for the input as one record: ``BatchDecoder`` writes its
    rows into Arrow (the compiled tier's reader when built) and returns the batch."""
    import pyarrow as pa

    return _decoder(spark_decode).decode(pa.record_batch({"value": pa.array([data])}))


def _decoder(spark_decode):
    """The PlainBuffer BatchDecoder of ``decode()`` (its imports made before the base)."""
    from pyspark.sql.types import BinaryType, StructField, StructType

    c = spark_decode.codec("plainbuffer")
    spark_in = StructType([StructField("value", BinaryType())])
    schema, _ = spark_decode.output_schema(spark_in, c, "FAILFAST", ["value"], None)
    return spark_decode.BatchDecoder(c, schema)


def _drain(rows) -> None:
    for _ in rows:
        pass


def _one_row_batch():
    import pyarrow as pa

    from generated import plainbuffer

    cell = plainbuffer.Cell(name="k", value=plainbuffer.CellValue(plainbuffer.ValueType.INTEGER, 1))
    row = plainbuffer.Row(primary_key=[cell], attributes=[], delete_marker=False)
    model = plainbuffer.Message(rows=[row])
    return pa.record_batch({"value": pa.array([plainbuffer.build(model)], pa.binary())})


def _rss_kib(field: str) -> int:
    """``VmRSS`` (resident now) or ``VmHWM`` (its peak) of this process, in KiB. Not
    ``ru_maxrss``: Linux carries that over ``exec`` from the parent, so a parent that held
    the input made the base a peak the decode never reached (the check under-reported)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def main(kind: str, path: str) -> None:
    module_name, decode = DECODES[kind]
    module = importlib.import_module(module_name)
    if kind == "plainbuffer-arrow":
        _decoder(module).decode(_one_row_batch())  # imports pyarrow, pyspark, the tier
    base = _rss_kib("VmRSS")
    data = Path(path).read_bytes()
    start = time.process_time()
    model = decode(module, data)
    spent = time.process_time() - start
    peak = _rss_kib("VmHWM")
    print(json.dumps({"base": base, "peak": peak, "size": len(data), "cpu": spent}))
    del model


if __name__ == "__main__":
    main(*sys.argv[1:3])
