"""Instructions per decoded PlainBuffer row (or MySQL event), a measure the machine's load
does not change.

Runs ``valgrind --tool=cachegrind --cache-sim=no`` on this script twice per decoder: decoding
``--n`` rows and decoding none (same imports, payloads and warm-up), and prints the difference
divided by ``--n``, then each decoder's ratio to the SDK's Python decoder and to its native C
parser. The ratios track the
timed ones of ``python -m benchmarks`` within about 0.1x (benchmarks/README.md). Needs valgrind.

    python -m benchmarks.instructions [--n 300] [--workload small|wide|both]
    python -m benchmarks.instructions --only mysql [--n 20000]
    python -m benchmarks.instructions --only craft [--n 2000]
    python -m benchmarks.instructions --only craft-encode [--n 200]
    python -m benchmarks.instructions --only open_protocol [--n 500]
    python -m benchmarks.instructions --only calls [--n 2000]
    python -m benchmarks.instructions --only thrift [--n 400]
    python -m benchmarks.instructions --only arrow [--n 2048] [--collect '__pyx_pw_*write_arrow']

``--only mysql``: ``parse`` (the compiled tier when built) of the tagged GTID seed event, of
100 distinct events in turn, and of binlog files of 100 seed events (per event), with the
start-up heap frozen (``gc.freeze()``) so the collections the loop triggers do not walk it.
``--only craft``: ``parse`` of TiCDC Craft frames and a column group in each tier, beside the
exact reader alone and the compiled reader of whole messages rendered from ``map:``
(``CRAFT_DECODERS``).
``--only craft-encode``: ``list(encode_events(events, 16))`` of the seed row's events and of
batch16 by each of ``CRAFT_ENCODERS``, per call.
``--only calls``: a ``parse`` call of the compiled tier where its cost around the reader
shows (``CALL_WORKLOADS``).
``--only arrow``: ``BatchDecoder.decode`` into Arrow (``ARROW_WORKLOADS``), per message, by
the row tuples (``to_rows`` and ``pa.array``) and by ``write_arrow`` from the bytes.
``--only thrift``: ``parse`` of benchmarks/thrift_compact.py's Small and Wide structs (64 of
each, as Apache's writer writes them) and of a pyarrow Parquet footer (FileMetaData of 20
columns in 10 row groups, page indexes), with the compiled tier and in pure Python.
``--only open_protocol``: ``decode_message(key, value)`` of TiCDC Open Protocol messages
(benchmarks/ticdc_open_protocol.py: the seed row, 16 rows of 20 columns) in pure Python and
with the compiled tier, per message; and ``encode_events`` (pure Python in both tiers) of
those events and of 64 such rows (four messages by the spec's ``batch:``), per call.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

DECODERS = ("sdk", "wirespec", "sdk-c")
"""The SDK's Python decoder, ``parse`` (the compiled tier when built), the SDK's native C
parser (``tablestore.native.parse_single_row``: tuples, not objects; left out when absent)."""


MYSQL_WORKLOADS = ("seed", "distinct", "binlog")
"""Tagged GTID events: the seed, 100 distinct in turn, a binlog file of 100 seed events."""


def _decode_mysql(workload: str, n: int) -> None:
    """The measured process for ``--only mysql``: ``n`` events decoded by ``parse``."""
    import gc

    from benchmarks.__main__ import mysql_binlog, mysql_binlog_distinct
    from benchmarks.mysql_serialization import SEED_EVENT
    from generated import mysql_serialization as ms

    if workload == "binlog":
        record, payloads, per_call = "binlog_file", [mysql_binlog(100)], 100
    elif workload == "distinct":
        events = ms.parse(mysql_binlog_distinct(100), "binlog_file").events
        record, per_call = "gtid_tagged_event", 1
        payloads = [ms.build(event, record) for event in events]
    else:
        record, payloads, per_call = "gtid_tagged_event", [SEED_EVENT], 1
    for p in payloads * 2:
        ms.parse(p, record)
    gc.freeze()
    for i in range(n // per_call):
        ms.parse(payloads[i % len(payloads)], record)


CRAFT_WORKLOADS = ("craft-seed", "craft-batch16", "craft-group")
"""TiCDC Craft (benchmarks/ticdc_craft.py): ``parse(data, "frame")`` of the seed row and of
16 rows of 20 columns, and ``parse(data, "column_group")`` of batch16's first group."""
CRAFT_DECODERS = ("exact", "quick", "events", "compiled", "compiled+map", "rendered", "message")
"""The exact fast reader alone (what ``parse`` runs for a record with no plan), ``parse`` in
pure Python (the quick tier, then the exact reader), ``decode_message`` in pure Python (a
whole message to its events: the frame's fast reader, then the spec's mapping and the quick
columns), ``parse`` with the compiled tier, the compiled frame reader then the spec's
mapping and the quick columns in Python (``compiled+map``), the compiled reader of
whole messages rendered from the spec's ``map:`` (``rendered``: the frame read and each
event mapped as it is read, in C; the generated ``COMPILED_READERS["message"]``, which
``parse`` and ``decode_message`` try first), and ``parse(data)`` of a ``message`` (the
module's default record: ``rendered`` tried from C, its events keeping the bytes read).
``compiled``, ``compiled+map`` and ``rendered`` need the built extensions; ``events``,
``compiled+map``, ``rendered`` and ``message`` decode messages only."""
CRAFT_MESSAGE_ONLY = ("events", "compiled+map", "rendered", "message")


CRAFT_ENCODE_WORKLOADS = ("encode-seed", "encode-batch16")
"""``encode_events`` of the seed row's one event, and of 16 row events (one message)."""
CRAFT_ENCODERS = ("python", "python+compiled-frame", "compiled")
"""The module's codec without the compiled tier (benchmarks/ticdc_craft.py ``python_codec``);
the same with the compiled frame writer (``COMPILED_WRITERS["frame"]``); ``encode_events``
of the generated module, whose compiled path is the fused way back rendered from the spec
(``COMPILED_WAY_BACKS``, generator/emit/compiled_unmapping.py)."""


def _encode_craft(workload: str, encoder: str, n: int) -> None:
    """The measured process for ``--only craft-encode``: ``n`` calls of ``encode_events``."""
    import gc

    from benchmarks.ticdc_craft import batch16, python_codec, seed_row
    from generated import ticdc_craft as craft

    events = craft.decode_message(seed_row()) if workload == "encode-seed" else batch16()
    events = list(events)
    if encoder == "compiled":
        assert "message" in craft.COMPILED_WAY_BACKS, "the compiled way back is not built"
        encode = craft.encode_events
    else:
        codec = python_codec()
        if encoder == "python+compiled-frame":
            codec.use_fast_writers(craft.COMPILED_WRITERS["frame"])
        encode = codec.encode_events
    for _ in range(3):
        list(encode(events, 16))
    gc.freeze()
    for _ in range(n):
        list(encode(events, 16))


def _decode_craft(workload: str, decoder: str, n: int) -> None:
    """The measured process for ``--only craft``: ``n`` messages (or groups) decoded."""
    import gc

    from benchmarks.ticdc_craft import batch16, seed_row
    from generated import ticdc_craft as craft

    record, limits = "frame", craft._LIMITS
    if workload == "craft-seed":
        data = seed_row()
    else:
        (data,) = craft.encode_events(batch16())
    if workload == "craft-group":
        record = "column_group"
        data = craft.build(craft.parse(data, "frame").bodies[0].column_groups[0], record)
    if decoder == "rendered":
        read = craft.COMPILED_READERS["message"]
        fn = lambda: read(data, limits)
    elif decoder == "events":
        fn = lambda: craft.decode_message(data)
    elif decoder == "message":
        fn = lambda: craft.parse(data)
    elif decoder == "compiled+map":
        from runtime.core.unmap import give_up

        assert craft.COMPILED_READERS, "the compiled tier is not built"
        quick = craft.VALUE_DECODERS["column_group.values"].quick_values
        mapping = craft.MAPPINGS["message"]
        fn = lambda: mapping(craft.parse(data, record), give_up, quick)
    elif decoder == "exact":
        exact = craft.FAST_READERS[record]
        fn = lambda: exact(data, 0, len(data), limits, 1)
    else:
        assert (decoder == "compiled") == bool(craft.COMPILED_READERS), decoder
        fn = lambda: craft.parse(data, record)
    for _ in range(20):
        fn()
    gc.freeze()
    for _ in range(n):
        fn()


OPEN_PROTOCOL_WORKLOADS = ("op-seed", "op-batch16", "op-rows64")
"""TiCDC Open Protocol (benchmarks/ticdc_open_protocol.py): the seed row event, one Kafka
message, a 16-row batch of 20 columns, one Kafka message, and 64 such rows (encoded only:
four messages)."""
OPEN_PROTOCOL_DECODERS = ("quick", "compiled", "encode")
"""``decode_message`` in pure Python and with the compiled tier (when built), and
``list(encode_events(events))`` with the spec's default limits."""


def _decode_open_protocol(workload: str, decoder: str, n: int) -> None:
    """The measured process for ``--only open_protocol``: ``n`` messages decoded."""
    import gc

    from benchmarks.ticdc_open_protocol import UNLIMITED, batch_events, seed_events
    from generated import ticdc_open_protocol as op

    events = seed_events() if workload == "op-seed" else batch_events()
    if workload == "op-rows64":
        events = events * 4
    if decoder == "encode":
        for _ in range(20):
            list(op.encode_events(events))
        gc.freeze()
        for _ in range(n):
            list(op.encode_events(events))
        return
    ((key, value),) = op.encode_events(events, **UNLIMITED)
    assert (decoder == "compiled") == (op._KAFKA._read_pair is not None), decoder
    for _ in range(20):
        op.decode_message(key, value)
    gc.freeze()
    for _ in range(n):
        op.decode_message(key, value)


CALL_WORKLOADS = ("msgpack-fixint", "msgpack-log", "pb-small", "mysql-seed", "kafka-none",
                  "binlog", "binlog-rows")  # fmt: skip
"""``--only calls``: one ``parse`` (or ``iter_rows``) call of the compiled tier, where what
the call costs around its reader shows: msgpack's one-byte ``value`` (the call alone) and
log record (benchmarks/msgpack_values.py), a PlainBuffer small row, the MySQL GTID seed
event, a Kafka segment of 100 uncompressed batches (benchmarks/kafka_record_batch.py), a
binlog file of 100 seed events by ``parse`` and by ``iter_rows``."""


def _call(workload: str):
    """``--only calls``: (function, the argument tuples it is called with in turn)."""
    if workload.startswith("msgpack"):
        from benchmarks.msgpack_values import log_record
        from generated import msgpack

        payloads = [b"\x01"] if workload == "msgpack-fixint" else [log_record(i) for i in range(64)]
        return msgpack.parse, [(p, "value") for p in payloads]
    if workload == "pb-small":
        from benchmarks import plainbuffer as pb

        return pb.plainbuffer.parse, [(pb.pb_small(i),) for i in range(64)]
    if workload == "kafka-none":
        from benchmarks.kafka_record_batch import segment
        from generated import kafka_record_batch

        return kafka_record_batch.parse, [(segment(0),)]
    from benchmarks.__main__ import mysql_binlog
    from benchmarks.mysql_serialization import SEED_EVENT
    from generated import mysql_serialization as ms

    if workload == "mysql-seed":
        return ms.parse, [(SEED_EVENT, "gtid_tagged_event")]
    if workload == "binlog":
        return ms.parse, [(mysql_binlog(100), "binlog_file")]

    def rows(data):
        for _ in ms.iter_rows(data, "binlog_file"):
            pass

    return rows, [(mysql_binlog(100),)]


ARROW_WORKLOADS = ("pb-limits", "pb-columns", "msgpack-str8", "msgpack-int32",
                   "msgpack-float64", "msgpack-timestamp64", "msgpack:fixstr", "msgpack:ext8",
                   "msgpack:uint64", "avro_container:device", "avro_container:page_view",
                   "plainbuffer:cell_value", "png:image_header", "png:palette", "png:text",
                   "png:physical_dimensions", "mysql_serialization:format_description_event",
                   "ticdc_open_protocol:key_frames", "ticdc_open_protocol:value_frames",
                   "kafka_record_batch:record_batch", "png:compressed_text",
                   "mysql_serialization:gtid_tagged_event",
                   "mysql_serialization:gtid_tagged_event_no_checksum",
                   "mysql_serialization:gtid_tagged_body",
                   "mysql_serialization:binlog_file", "png:chunk", "png:png_file",
                   "protobuf_wire:order", "protobuf_wire:line_item",
                   "protobuf_wire:money", "ticdc_craft:frame",
                   "ticdc_craft:column_group")  # fmt: skip
"""``--only arrow``: ``BatchDecoder.decode`` of batches of 256 messages into Arrow (no Spark):
PlainBuffer small rows with a limit (``max_count``) and with two columns kept, MessagePack
values of one record each, and ``<format>:<record>``: the fuzzer's seeds of that record (its
samples and messages built from drawn models, generator/cli/fuzz.py) that parse, over and
over."""
ARROW_DECODERS = ("rows", "write_arrow")
"""The compiled parse, ``to_rows`` and ``pa.array`` (the models-to-Arrow ``RowWriter`` of
earlier tables is gone: branch ``arrow-rest``); ``write_arrow`` from the bytes (protobuf's:
runtime/_compiled/protobuf_arrow.pyx)."""


def _arrow_decoder(workload: str, decoder: str):
    """``--only arrow``: (a BatchDecoder, its messages)."""
    import struct

    from pyspark.sql.types import BinaryType, StructField, StructType

    from runtime.spark.decode import BatchDecoder, codec, output_schema

    if workload.startswith("pb-"):
        from benchmarks import plainbuffer as pb

        values = [pb.pb_small(i) for i in range(256)]
        limits = {"max_count": 100} if workload == "pb-limits" else None
        columns = ["primary_key", "delete_marker"] if workload == "pb-columns" else None
        c = codec("plainbuffer", "message", limits, columns)
    elif ":" in workload:
        values, c = _seed_messages(*workload.split(":")), codec(*workload.split(":"))
    else:
        record = workload.removeprefix("msgpack-")
        make = {
            "str8": lambda i: b"\xd9" + bytes([len(f"value {i}")]) + f"value {i}".encode(),
            "int32": lambda i: b"\xd2" + struct.pack(">i", i * 7919 - 10**6),
            "float64": lambda i: b"\xcb" + struct.pack(">d", i / 7),
            "timestamp64": lambda i: b"\xd7\xff" + struct.pack(">Q", (i << 34) | 1700000000),
        }[record]
        values = [make(i) for i in range(256)]
        c = codec("msgpack", record)
    spark_in = StructType([StructField("value", BinaryType())])
    out_schema, _ = output_schema(spark_in, c, "PERMISSIVE", ["value"], "_i")
    decoder_ = BatchDecoder(c, out_schema, mode="PERMISSIVE", index_col="_i")
    if decoder == "rows":
        decoder_.reader = None
    assert (decoder_.reader is None) == (decoder == "rows")
    return decoder_, values


_ARROW_INPUT = "WIRESPEC_ARROW_BENCH"
"""The environment variable naming the pickle of ``<format>:<record>`` workloads' messages
(made once by the parent: drawing the seeds is no part of what is counted, and its
instructions vary from run to run)."""


def _arrow_inputs(path: str, workloads) -> None:
    """Write the messages of ``workloads`` to ``path`` (see :data:`_ARROW_INPUT`)."""
    import pickle

    seeded = {w: _seed_messages(*w.split(":")) for w in workloads if ":" in w}
    with open(path, "wb") as out:
        pickle.dump(seeded, out)


def _seed_messages(fmt: str, record: str) -> list[bytes]:
    """256 messages of ``record``: its fuzz seeds whose rows are Spark's (they parse and their
    numbers fit the columns; and its test inputs, for Open Protocol's frames), in turn; read
    from :data:`_ARROW_INPUT` when it is set."""
    if os.environ.get(_ARROW_INPUT):
        import pickle

        with open(os.environ[_ARROW_INPUT], "rb") as made:
            return pickle.load(made)[f"{fmt}:{record}"]  # our own file
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    from generator.cli.fuzz import seeds
    from runtime.spark.decode import codec

    c = codec(fmt, record)
    row = pa.struct(list(to_arrow_schema(c.full_schema(), timezone="UTC")))
    found = seeds(fmt, record)
    if fmt == "ticdc_open_protocol":
        suffix = ".key" if record == "key_frames" else ".value"
        folder = Path(__file__).resolve().parent.parent / "samples" / fmt
        found += [p.read_bytes() for p in sorted(folder.glob("*" + suffix))]
    good = []
    for data in found:
        try:
            pa.array([dict(zip(row.names, r)) for r in c.rows(None, data)], row)
        except Exception:  # noqa: BLE001, S112 - any: not a message of this workload
            continue
        good.append(data)
    return [good[i % len(good)] for i in range(256)]


def _decode_arrow(workload: str, decoder: str, n: int) -> None:
    """The measured process for ``--only arrow``: ``n`` messages decoded, 256 a batch."""
    import gc

    import pyarrow as pa

    decoder_, values = _arrow_decoder(workload, decoder)
    batch = pa.RecordBatch.from_arrays([pa.array(values, pa.binary())], names=["value"])
    for _ in range(3):
        out = decoder_.decode(batch)
    # a binlog file's events are its rows (none: one row of nulls, as Spark's explode_outer)
    rows = decoder_.stats["rows"] // 3
    assert decoder_.stats["corrupt"] == 0 and out.num_rows >= max(rows, 1), decoder_.stats
    gc.freeze()
    for _ in range(n // len(values)):
        decoder_.decode(batch)


THRIFT_WORKLOADS = ("thrift-small", "thrift-wide", "parquet-footer")
THRIFT_DECODERS = ("compiled", "pure")
_THRIFT_INPUT = "WIRESPEC_THRIFT_BENCH"
"""The environment variable naming the pickle of ``--only thrift``'s inputs (written once by
the parent, so the measured process renders and encodes nothing)."""


def _thrift_inputs(path: str) -> None:
    """Write ``--only thrift``'s inputs to ``path``: the benchmark module's text, its Small
    and Wide messages, and the footer."""
    import io
    import pickle
    import struct
    import tempfile
    from pathlib import Path

    import pyarrow as pa
    import pyarrow.parquet as pq

    from benchmarks import thrift_compact as b
    from generator.emit.thrift_module import render_thrift
    from generator.spec.loader import load
    from generator.spec.thrift import build_thrift_model

    with tempfile.TemporaryDirectory() as tmp:
        spec_path = Path(tmp) / "thrift_bench.yaml"
        spec_path.write_text(b.spec_yaml())
        spec = build_thrift_model(load(spec_path, spec_path.name))
    classes = b.apache_classes(spec)
    small_a, wide_a = classes["Small"], classes["Wide"]
    out = io.BytesIO()
    table = pa.table({f"c{i}": list(range(1000)) for i in range(20)})
    pq.write_table(table, out, row_group_size=100, write_page_index=True)
    data = out.getvalue()
    (length,) = struct.unpack("<I", data[-8:-4])
    inputs = {
        "module": render_thrift(spec),
        "thrift-small": [b.encode(small_a(**b.small_values(i))) for i in range(64)],
        "thrift-wide": [b.encode(wide_a(**b.wide_values(i, small_a))) for i in range(64)],
        "parquet-footer": [data[-8 - length : -8]],
    }
    Path(path).write_bytes(pickle.dumps(inputs))


def _decode_thrift(workload: str, n: int) -> None:
    """The measured process for ``--only thrift``: ``n`` structs parsed."""
    import gc
    import importlib.util
    import pickle
    import tempfile
    from pathlib import Path

    inputs = pickle.loads(Path(os.environ[_THRIFT_INPUT]).read_bytes())
    if workload == "parquet-footer":
        from generated import parquet as module

        record = "FileMetaData"
    else:
        path = Path(tempfile.mkdtemp()) / "thrift_bench.py"
        path.write_text(inputs["module"])
        spec = importlib.util.spec_from_file_location("ws_bench_thrift", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up
        spec.loader.exec_module(module)
        record = "Small" if workload == "thrift-small" else "Wide"
    payloads = inputs[workload]
    for p in payloads * 2:
        module.parse(p, record)
    gc.freeze()
    for i in range(n):
        module.parse(payloads[i % len(payloads)], record)


def _decode_calls(workload: str, n: int) -> None:
    """The measured process for ``--only calls``: ``n`` calls."""
    import gc

    fn, calls = _call(workload)
    for args in calls * 2:
        fn(*args)
    gc.freeze()
    for i in range(n):
        fn(*calls[i % len(calls)])


def _decode(workload: str, decoder: str, n: int) -> None:
    """The measured process: build the payloads, warm up, decode ``n`` rows."""
    if workload in CALL_WORKLOADS:
        return _decode_calls(workload, n)
    if workload in ARROW_WORKLOADS:
        return _decode_arrow(workload, decoder, n)
    if workload in THRIFT_WORKLOADS:
        return _decode_thrift(workload, n)
    if workload in OPEN_PROTOCOL_WORKLOADS:
        return _decode_open_protocol(workload, decoder, n)
    if workload in MYSQL_WORKLOADS:
        return _decode_mysql(workload, n)
    if workload in CRAFT_WORKLOADS:
        return _decode_craft(workload, decoder, n)
    if workload in CRAFT_ENCODE_WORKLOADS:
        return _encode_craft(workload, decoder, n)
    from benchmarks import plainbuffer as pb

    make = pb.pb_small if workload == "small" else pb.pb_wide
    fn = {"sdk": pb.sdk_python, "wirespec": pb.wirespec_parse, "sdk-c": pb.parse_single_row}[
        decoder
    ]
    payloads = [make(i) for i in range(64)]
    for p in payloads:
        fn(p)
    for i in range(n):
        fn(payloads[i % 64])


def _instructions(workload: str, decoder: str, n: int, collect: str | None = None) -> int:
    pure = {"WIRESPEC_PURE_PYTHON": "1"} if decoder in ("quick", "events", "encode", "pure") else {}
    args = ["-m", "benchmarks.instructions", "--run", workload, decoder, str(n)]
    return instructions_of(args, pure, collect=collect)


def instructions_of(args: list[str], extra_env: dict | None = None, cwd=None, collect=None) -> int:
    """The instructions ``python *args`` runs (in ``cwd``), by cachegrind, with
    PYTHONHASHSEED=0: the one cachegrind invocation every instruction benchmark uses.
    ``collect``: only those inside the C functions of that name (wildcards allowed), by
    callgrind's ``--toggle-collect`` (this valgrind's cachegrind has no such option): the
    imports and start-up, which vary by 1-2 % of a small workload's figure between runs,
    are not counted."""
    env = dict(os.environ, PYTHONHASHSEED="0", **(extra_env or {}))
    # numpy's BLAS thread (the tablestore SDK imports numpy) otherwise spins
    env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    tool = ["--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    if collect:
        tool = ["--tool=callgrind", "--callgrind-out-file=/dev/null", f"--toggle-collect={collect}"]
    cmd = ["valgrind", *tool, sys.executable, *args]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True, cwd=cwd)
    counted = r"Collected\s*:\s*([\d,]+)" if collect else r"I\s+refs:\s+([\d,]+)"
    return int(re.search(counted, out.stderr).group(1).replace(",", ""))


def _per(workload: str, decoder: str, n: int, collect: str | None = None) -> float:
    """Instructions of one decode: a run of ``n`` less a run of none."""
    runs = [_instructions(workload, decoder, k, collect) for k in (n, 0)]
    return (runs[0] - runs[1]) / n


def _table(workloads, decoders, n: int, unit: str, collect: str | None = None) -> None:
    print(f"| workload | decoder | instructions/{unit} |")
    print("|---|---|---:|")
    for workload in workloads:
        for d in decoders:
            if workload == "craft-group" and d in CRAFT_MESSAGE_ONLY:
                continue
            if workload == "op-rows64" and d != "encode":
                continue
            print(f"| {workload} | {d} | {_per(workload, d, n, collect):,.0f} |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300, help="rows decoded in the measured run")
    ap.add_argument("--workload", choices=("small", "wide", "both"), default="both")
    ap.add_argument(
        "--only",
        choices=(
            "plainbuffer",
            "mysql",
            "craft",
            "craft-encode",
            "open_protocol",
            "calls",
            "thrift",
            "arrow",
        ),
        default="plainbuffer",
    )
    ap.add_argument(
        "--decoders", default=",".join(CRAFT_DECODERS), help="--only craft: these, comma-separated"
    )
    ap.add_argument("--workloads", help="--only arrow: these of ARROW_WORKLOADS, comma-separated")
    ap.add_argument(
        "--collect",
        help="--only arrow: count only what runs inside these C functions (callgrind's"
        " --toggle-collect), e.g. '__pyx_pw_*write_arrow': write_arrow alone",
    )
    ap.add_argument("--run", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.run:
        workload, decoder, n = args.run
        _decode(workload, decoder, int(n))
        return 0
    if args.only == "mysql":
        _table(MYSQL_WORKLOADS, ["wirespec"], max(args.n, 2000), "event")
        return 0
    if args.only == "craft":
        _table(CRAFT_WORKLOADS, args.decoders.split(","), max(args.n, 2000), "parse")
        return 0
    if args.only == "craft-encode":
        print("| workload | encoder | instructions/call |\n|---|---|---:|")
        for workload in CRAFT_ENCODE_WORKLOADS:
            n = max(args.n, 200) if workload == "encode-seed" else 30
            for encoder in CRAFT_ENCODERS:
                print(f"| {workload} | {encoder} | {_per(workload, encoder, n):,.0f} |")
        return 0
    if args.only == "calls":  # (a Kafka segment or a binlog file is a call: fewer of them)
        print("| workload | instructions/call |\n|---|---:|")
        for workload in CALL_WORKLOADS:
            n = max(args.n, 2000) if workload in CALL_WORKLOADS[:4] else 20
            print(f"| {workload} | {_per(workload, 'compiled', n):,.0f} |")
        return 0
    if args.only == "arrow":
        import tempfile

        workloads = args.workloads.split(",") if args.workloads else ARROW_WORKLOADS
        with tempfile.NamedTemporaryFile(suffix=".pickle") as inputs:
            _arrow_inputs(inputs.name, workloads)
            os.environ[_ARROW_INPUT] = inputs.name
            decoders = ["write_arrow"] if args.collect else ARROW_DECODERS
            _table(workloads, decoders, max(args.n, 2048), "message", args.collect)
        return 0
    if args.only == "open_protocol":
        _table(OPEN_PROTOCOL_WORKLOADS, OPEN_PROTOCOL_DECODERS, max(args.n, 500), "message")
        return 0
    if args.only == "thrift":
        import tempfile

        with tempfile.NamedTemporaryFile(suffix=".pickle") as inputs:
            _thrift_inputs(inputs.name)
            os.environ[_THRIFT_INPUT] = inputs.name
            print("| workload | decoder | instructions/struct |\n|---|---|---:|")
            for workload in THRIFT_WORKLOADS:
                n = args.n if workload != "parquet-footer" else max(args.n // 20, 10)
                for decoder in THRIFT_DECODERS:
                    # once outside cachegrind: .pyc files written before either run
                    run = [sys.executable, "-m", "benchmarks.instructions", "--run"]
                    subprocess.run([*run, workload, decoder, "0"], check=True)
                    print(f"| {workload} | {decoder} | {_per(workload, decoder, n):,.0f} |")
        return 0
    from benchmarks.plainbuffer import NATIVE_AVAILABLE

    decoders = [d for d in DECODERS if d != "sdk-c" or NATIVE_AVAILABLE]
    print("| workload | decoder | instructions/row | SDK / this | SDK's C / this |")
    print("|---|---|---:|---:|---:|")
    for workload in ("small", "wide") if args.workload == "both" else (args.workload,):
        per_row = {d: _per(workload, d, args.n) for d in decoders}
        native = per_row.get("sdk-c")
        for d, value in per_row.items():
            to_c = f"{native / value:.2f}x" if native else "-"
            print(f"| {workload} | {d} | {value:,.0f} | {per_row['sdk'] / value:.2f}x | {to_c} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
