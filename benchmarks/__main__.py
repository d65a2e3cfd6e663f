"""The benchmark suite: every format's decode workloads in one process, peers side by side.

    python -m benchmarks [--runs 5] [--seconds 0.25] [--mem-mib 64] [--only plainbuffer,...]

Workloads come from the per-format scripts in this folder (the same payloads and peers):
PlainBuffer small/wide rows (tablestore SDK Python decoder and its native C parser), Thrift
Compact small/wide structs (Apache thrift pure Python and C accelerated, thriftpy2), Parquet
footers (Apache thrift C, thriftpy2, pyarrow's C++ metadata reader), TiCDC
Craft and Open Protocol (the seed row and a 16-row batch, the same events in both), and the
MySQL tagged GTID event (no Python peer). wirespec runs twice: the generated fast path
(``parse``) and the construct path (``parse_construct``, the oracle); every format also runs
the compiled tier (``wirespec compiled``, when built) beside the fast path, whose row then
runs the Python readers alone.

Timing: per (workload, decoder) a pass decodes the workload's payloads (cycled) for about
``--seconds`` of CPU time (``time.process_time``, so time the scheduler gives to other
processes on a busy machine is not counted); runs are interleaved (run 1 of every
decoder, then run 2, ...) and the median of ``--runs`` is reported. Ratios are taken within
one run, then their median reported. Peak memory is a separate pass under ``tracemalloc``:
64 messages decoded with every model kept, reported per message.

The memory check decodes one ``--mem-mib`` input (concatenated PlainBuffer rows in one
message; a binlog file of tagged GTID events) with ``parse`` and with ``iter_rows``, and the
PlainBuffer rows with Spark's ``BatchDecoder`` (as one message, and as a message a row in one
Arrow batch), each in a fresh process, and reports the peak resident memory it took (the
input's bytes included) / input bytes (issues #8, #17: at most 3x).
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import io
import os
import platform
import statistics
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
"""The repo's root: every file a benchmark reads is inside it."""
sys.path.insert(0, str(ROOT))
warnings.filterwarnings("ignore")


class Workload:
    """Payloads of one shape and the decoders to run on them."""

    def __init__(self, fmt, name, payloads, decoders, events_per_msg=1, note="", published=()):
        self.fmt, self.name, self.payloads = fmt, name, payloads
        self.decoders = decoders  # [(label, fn, is_peer)]
        self.events_per_msg = events_per_msg
        self.note = note
        self.published = published  # [(label, seconds per message)]: figures not run here
        self.bytes_per_msg = sum(map(len, payloads)) / len(payloads)


# -- workloads, from the per-format scripts ------------------------------------------------


def plainbuffer_workloads():
    from benchmarks import plainbuffer as b
    from generated import plainbuffer

    out = []
    for name, make in (("small row", b.pb_small), ("wide row", b.pb_wide)):
        payloads = [make(i) for i in range(64)]
        decoders = [("wirespec fast path", b.python_tiers, False)]
        if b.COMPILED:
            decoders.append(("wirespec compiled", plainbuffer.parse, False))
        decoders += [
            ("wirespec construct path", plainbuffer.parse_construct, False),
            ("tablestore SDK Python", b.sdk_python, True),
        ]
        if b.NATIVE_AVAILABLE:
            decoders.append(("tablestore SDK native C (tuples)", b.parse_single_row, True))
        out.append(Workload("PlainBuffer", name, payloads, decoders))
    return out


def thrift_workloads():
    import tempfile

    import thriftpy2
    from thrift.protocol.TCompactProtocol import TCompactProtocol, TCompactProtocolAccelerated
    from thrift.transport.TTransport import TMemoryBuffer
    from thriftpy2.protocol import TCompactProtocolFactory
    from thriftpy2.utils import deserialize

    from benchmarks import thrift_compact as b
    from generated import parquet
    from generator.emit.thrift_module import render_thrift
    from generator.spec.loader import load
    from generator.spec.thrift import build_thrift_model

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "thrift_bench.yaml"
        path.write_text(b.spec_yaml())
        spec = build_thrift_model(load(path, path.name))
        ws, ws_python = b.wirespec_tiers(render_thrift(spec), Path(tmp), "suite_thrift")
        parquet_python = b.wirespec_tiers(Path(parquet.__file__).read_text(), Path(tmp), "pq")[1]
    classes = b.apache_classes(spec)
    small_a = classes["Small"]
    tp2 = thriftpy2.load_fp(io.StringIO(b.IDL), module_name="suite_thrift")
    fac = TCompactProtocolFactory()

    def apache(cls, accelerated):
        def decode(data):
            obj = cls()
            buf = TMemoryBuffer(data)
            proto = TCompactProtocolAccelerated(buf, fallback=False) if accelerated else None
            obj.read(proto or TCompactProtocol(buf))
            return obj

        return decode

    def tiers(module, python, record):
        rows = [("wirespec fast path", lambda d: python.parse(d, record), False)]
        if module._LOOP is not None:
            rows.insert(0, ("wirespec compiled", lambda d: module.parse(d, record), False))
        return rows

    out = []
    for name, struct, tp_cls, values in (
        ("small struct", "Small", tp2.Small, lambda i: b.small_values(i)),
        ("wide struct", "Wide", tp2.Wide, lambda i: b.wide_values(i, small_a)),
    ):
        cls = classes[struct]
        payloads = [b.encode(cls(**values(i))) for i in range(64)]
        decoders = tiers(ws, ws_python, struct) + [
            ("Apache thrift pure Python", apache(cls, False), True),
            ("Apache thrift C accelerated", apache(cls, True), True),
            ("thriftpy2", lambda d, c=tp_cls: deserialize(c(), d, fac), True),
        ]
        out.append(Workload("Thrift Compact", name, payloads, decoders))
    out.append(parquet_footer_workload(parquet, parquet_python, tiers, apache))
    return out


def parquet_footer_workload(parquet, parquet_python, tiers, apache):
    """Parquet footers (``FileMetaData``) of files pyarrow writes: wirespec's generated
    parquet module in both tiers, Apache thrift's C reader with classes built from the same
    spec, thriftpy2 from parquet-format's IDL, and pyarrow's own metadata reader (C++; it
    takes the whole file)."""
    import struct

    import pyarrow as pa
    import pyarrow.parquet as pq
    import thriftpy2
    from thriftpy2.protocol import TCompactProtocolFactory
    from thriftpy2.utils import deserialize

    from benchmarks import thrift_compact as b
    from generator.spec.loader import load
    from generator.spec.thrift import build_thrift_model

    files = []
    for columns, row_groups in ((4, 1), (20, 10)):
        table = pa.table({f"c{i}": list(range(1000)) for i in range(columns)})
        out = io.BytesIO()
        pq.write_table(table, out, row_group_size=1000 // row_groups, write_page_index=True)
        files.append(out.getvalue())
    footers = {}
    for data in files:
        (length,) = struct.unpack("<I", data[-8:-4])
        footers[data[-8 - length : -8]] = data
    spec_path = ROOT / "specs" / "parquet.yaml"
    apache_cls = b.apache_classes(build_thrift_model(load(spec_path, spec_path.name)))
    idl = ROOT / "tests" / "data" / "thrift" / "idl" / "parquet" / "parquet.thrift"
    tp2 = thriftpy2.load(str(idl), module_name="suite_parquet_thrift")
    fac = TCompactProtocolFactory()
    decoders = tiers(parquet, parquet_python, "FileMetaData") + [
        ("Apache thrift C accelerated", apache(apache_cls["FileMetaData"], True), True),
        ("thriftpy2", lambda d: deserialize(tp2.FileMetaData(), d, fac), True),
        ("pyarrow ParquetFile.metadata (C++)",
         lambda d: pq.ParquetFile(io.BytesIO(footers[d])).metadata, True),
    ]  # fmt: skip
    sizes = ", ".join(f"{len(f):,} B" for f in footers)
    return Workload(
        "Parquet", "footer", list(footers), decoders, note=f"footers of {sizes} (page indexes)"
    )


GO_CRAFT_DECODE_NS = 7944
GO_CRAFT_LABEL = "Go reference (published BenchmarkCraftDecoding, another machine)"


def ticdc_workloads():
    from benchmarks import ticdc_craft as b
    from generated import ticdc_craft as craft
    from generated import ticdc_open_protocol as op
    from runtime.formats.open_protocol import OpenProtocol

    pure_op = OpenProtocol(
        op.JSON_DOCUMENTS, op.JSON_CODE, op.EVENT_CLASSES, key="event_key", models=op._KAFKA.models
    )
    pure_op._compiled = None  # the Python reader alone: today's fast path

    def per_pair(decode, pairs):
        """Decode every Kafka message of ``pairs`` (the payload stands for all of them)."""
        if len(pairs) == 1:
            [(key, value)] = pairs
            return lambda _d: decode(key, value)
        return lambda _d: [decode(k, v) for k, v in pairs]

    out = []
    row = b.seed_row()
    seed_events = list(craft.decode_message(row))
    rows16 = b.batch16()
    (msg16,) = craft.encode_events(rows16)
    python, compiled = b.python_parse(), b.compiled_parse()
    for name, events, data in (("seed row", seed_events, row), ("batch16", rows16, msg16)):
        decoders = [("wirespec fast path", python, False)]
        if compiled is not None:  # parse tries the compiled reader first
            decoders.append(("wirespec compiled", compiled, False))
        decoders.append(("wirespec construct path", craft.parse_construct, False))
        out.append(
            Workload(
                "TiCDC Craft", name, [data], decoders,
                events_per_msg=len(events),
                note="Go reference (published): 7,944 ns/op for the seed row" if name == "seed row" else "",
                published=[(GO_CRAFT_LABEL, GO_CRAFT_DECODE_NS * 1e-9)] if name == "seed row" else [],
            )
        )  # fmt: skip
        pairs = list(op.encode_events(events))
        payload = b"".join(k + v for k, v in pairs)
        decoders = [("wirespec fast path", per_pair(pure_op.decode_message, pairs), False)]
        if op._KAFKA._read_pair is not None:
            decoders.append(("wirespec compiled", per_pair(op.decode_message, pairs), False))
        out.append(
            Workload("TiCDC Open Protocol", name, [payload], decoders, events_per_msg=len(events))
        )
    return out


def mysql_binlog(n_events: int) -> bytes:
    """A binlog file: the format description, then ``n_events`` tagged GTID events (CRC32)."""
    from benchmarks.mysql_serialization import SEED_EVENT
    from generated import mysql_serialization as ms

    fde = ms.FormatDescriptionEvent(
        timestamp=1739823000, server_id=1, event_size=81 + 42, log_pos=4 + 81 + 42, flags=0,
        binlog_version=4, server_version="9.2.0".ljust(50, "\x00"), create_timestamp=1739823000,
        post_header_lengths=bytes(range(1, 43)), checksum_alg="CRC32",
    )  # fmt: skip
    head = ms.build(ms.BinlogFile(format_description=fde, events=[]), "binlog_file")
    return head + SEED_EVENT * n_events


def mysql_binlog_distinct(n_events: int) -> bytes:
    """A binlog file of ``n_events`` tagged GTID events that all differ, the source UUID
    too (the seed's with its last 4 bytes counting): no event repeats an earlier one."""
    from benchmarks.mysql_serialization import SEED_EVENT
    from generated import mysql_serialization as ms

    seed = ms.parse(SEED_EVENT)
    events = []
    for i in range(n_events):
        uuid = seed.body.uuid[:12] + list((0x9E3779B9 * (i + 1) & 0xFFFFFFFF).to_bytes(4, "big"))
        body = dataclasses.replace(
            seed.body, uuid=uuid, gno=seed.body.gno + i, sequence_number=i + 1,
            last_committed=i, serializable_field_size=None,
        )  # fmt: skip
        size = 19 + len(ms.build(body, "gtid_tagged_body")) + 4
        events.append(ms.build(dataclasses.replace(seed, body=body, event_size=size)))
    return mysql_binlog(0) + b"".join(events)


def mysql_workloads():
    from benchmarks.mysql_serialization import SEED_EVENT, compiled_parse, fast_path_parse
    from generated import mysql_serialization as ms

    binlog = mysql_binlog(100)
    distinct = mysql_binlog_distinct(100)

    def decoders(record):
        out = [
            ("wirespec fast path", lambda d: fast_path_parse(d, record), False),
            ("wirespec construct path", lambda d: ms.parse_construct(d, record), False),
        ]
        if compiled_parse is not None:
            out.insert(0, ("wirespec compiled", lambda d: compiled_parse(d, record), False))
        return out

    # the distinct binlog's events one at a time: no value repeats from the event before
    distinct_events = [
        ms.build(event, "gtid_tagged_event") for event in ms.parse(distinct, "binlog_file").events
    ]
    return [
        Workload("MySQL GTID", "tagged GTID event", [SEED_EVENT], decoders("gtid_tagged_event")),
        Workload("MySQL GTID", "tagged GTID events, 100 distinct", distinct_events,
                 decoders("gtid_tagged_event")),
        Workload("MySQL GTID", "binlog file, 100 events", [binlog], decoders("binlog_file"),
                 events_per_msg=100),
        Workload("MySQL GTID", "binlog file, 100 events, 100 UUIDs", [distinct],
                 decoders("binlog_file"), events_per_msg=100),
    ]  # fmt: skip


def suite_labels(decoders, compiled: bool):
    """A gallery script's (label, fn) pairs under the suite's labels, so that the ratio
    columns fill: its compiled ``parse`` is "wirespec compiled" (dropped where the tier is
    not built, since ``parse`` is then the quick tier again) and its exact reader alone is
    "wirespec fast path"; peers are every decoder not ours."""
    named = {"wirespec exact fast path": "wirespec fast path"}
    out = []
    for label, fn, *_ in decoders:
        if label.startswith("wirespec parse") and "(" in label:
            if not compiled:
                continue
            label = "wirespec compiled"
        elif label == "wirespec parse":
            label = "wirespec compiled" if compiled else label
        out.append((named.get(label, label), fn, not label.startswith("wirespec")))
    return out


def msgpack_workloads():
    from benchmarks import msgpack_values as b

    decoders = suite_labels(b.DECODERS, bool(b.codec.COMPILED_READERS))
    return [
        Workload("MessagePack", shape, [make(i) for i in range(64)], decoders)
        for shape, make in b.SHAPES
    ]


def png_workloads():
    from benchmarks import png as b

    decoders = suite_labels(b.DECODERS, bool(b.codec.COMPILED_READERS))
    return [Workload("PNG", shape, [make()], decoders) for shape, make in b.SHAPES]


def avro_workloads():
    """The gallery's PageView records in container files of 500 records, 100 a block,
    one file per block codec; an event is a record."""
    from benchmarks import avro_container as b

    named = {"wirespec compiled tier": "wirespec compiled"}
    decoders = [
        (named.get(label, label), fn, not label.startswith("wirespec"))
        for label, fn in b.decoders().items()
        if b.av.COMPILED_READERS or "compiled" not in label
    ]
    records = b.avro_page_views(500)
    return [
        Workload("Avro", f"container, {codec}", [b.avro_file(records, codec, 100)], decoders, 500)
        for codec in ("null", "deflate", "snappy")
    ]


def kafka_workloads():
    """A log segment of 100 batches of 10 records, uncompressed and zstd; every decoder
    reads every record's offset, timestamp, key, value and headers, CRCs checked."""
    from aiokafka.record._crecords import DefaultRecordBatch as CBatch
    from kafka.record.default_records import DefaultRecordBatch

    from benchmarks import kafka_record_batch as b

    decoders = [
        ("wirespec quick tier", b.wirespec_reader(b.python_tier(quick=True)), False),
        ("wirespec fast path", b.wirespec_reader(b.python_tier(quick=False)), False),
        ("wirespec construct path", b.wirespec_reader(b.kafka.parse_construct), False),
        ("kafka-python", b.peer_reader(DefaultRecordBatch), True),
        ("aiokafka C", b.peer_reader(CBatch), True),
    ]
    if b.kafka.COMPILED_READERS:
        decoders.insert(0, ("wirespec compiled", b.wirespec_reader(b.kafka.parse), False))
    events = b.BATCHES * b.RECORDS
    return [
        Workload("Kafka", f"segment, {name}", [b.segment(codec)], decoders, events)
        for name, codec in (("none", 0), ("zstd", 4))
    ]


def protobuf_workloads():
    """The gallery's two orders; "+ every field" reads every field into plain values
    (upb's messages and our models are both lazy until a field is read)."""
    from benchmarks import protobuf_wire as b
    from generated import protobuf_wire as pw
    from samples.protobuf_peer import Peer

    named = {"wirespec parse (pure Python)": "wirespec fast path"}
    decoders = [
        (named.get(label, label), fn, not label.startswith("wirespec"))
        for label, fn in b._decoders(Peer(pw), pw).items()
    ]
    if pw.order.compiled is None:
        decoders = [d for d in decoders if d[0] != "wirespec fast path"]
    else:
        decoders = [("wirespec compiled" if d[0] == "wirespec parse" else d[0], *d[1:])
                    for d in decoders]  # fmt: skip
    return [
        Workload("Protocol Buffers", name, [data], decoders) for name, data in b._payloads().items()
    ]


WORKLOADS = {
    "avro": avro_workloads,
    "kafka": kafka_workloads,
    "protobuf": protobuf_workloads,
    "png": png_workloads,
    "msgpack": msgpack_workloads,
    "plainbuffer": plainbuffer_workloads,
    "thrift": thrift_workloads,
    "ticdc": ticdc_workloads,
    "mysql": mysql_workloads,
}


# -- measuring -------------------------------------------------------------------------


def one_pass(fn, payloads, n):
    count = len(payloads)
    start = time.process_time()
    for i in range(n):
        fn(payloads[i % count])
    return (time.process_time() - start) / n


def calibrate(fn, payloads, seconds):
    n, spent = 1, 0.0
    while spent < seconds / 10:
        n *= 2
        spent = one_pass(fn, payloads, n) * n
    # every pass decodes each payload at least once, even when one is slow (a big footer)
    return max(len(payloads), int(n * seconds / max(spent, 1e-9)))


def peak_per_msg(fn, payloads):
    gc.collect()
    tracemalloc.start()
    kept = [fn(payloads[i % len(payloads)]) for i in range(64)]
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del kept
    return peak / 64


def measure(workloads, runs, seconds):
    results = {}  # (workload index, label) -> list of seconds per message
    plan = []
    for wi, w in enumerate(workloads):
        for label, fn, _ in w.decoders:
            for payload in w.payloads:  # warm-up (a first call may be slow), and a failure
                fn(payload)  # here names the decoder
            plan.append((wi, label, fn, calibrate(fn, w.payloads, seconds)))
    for _ in range(runs):
        for wi, label, fn, n in plan:
            results.setdefault((wi, label), []).append(one_pass(fn, workloads[wi].payloads, n))
    return results


def table(workloads, results, runs):
    lines = [
        "| format | workload | decoder | B/msg | msgs/s | events/s | MB/s | fast path speed-up over it | compiled speed-up over it | peak KiB/msg |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    summary = {}

    def speed_up(times, base):
        # the ratio within each run, then the median: robust to load swings
        return statistics.median(t / f for t, f in zip(times, base))

    for wi, w in enumerate(workloads):
        fast = results.get((wi, "wirespec fast path"))
        compiled = results.get((wi, "wirespec compiled"))
        for label, fn, _peer in w.decoders:
            times = results[wi, label]
            per = statistics.median(times)
            ratio = compiled_ratio = ""
            if fast is not None and label != "wirespec fast path":
                r = speed_up(times, fast)
                ratio = f"{r:.2f}x"
                summary[w.fmt, w.name, label] = r
            if compiled is not None and label != "wirespec compiled":
                r = speed_up(times, compiled)
                compiled_ratio = f"{r:.2f}x"
                summary[w.fmt, w.name, label, "compiled"] = r
            peak = peak_per_msg(fn, w.payloads) / 1024
            lines.append(
                f"| {w.fmt} | {w.name} | {label} | {w.bytes_per_msg:,.0f} | {1 / per:,.0f} | "
                f"{w.events_per_msg / per:,.0f} | {w.bytes_per_msg / per / 1e6:.2f} | {ratio} | "
                f"{compiled_ratio} | {peak:,.1f} |"
            )
            summary[w.fmt, w.name, label, "s"] = per
            summary[w.fmt, w.name, label, "s/event"] = per / w.events_per_msg
        for label, per in w.published:  # beside ours, not measured: ratios to our medians
            ratio = f"{per / statistics.median(fast):.2f}x" if fast else ""
            compiled_ratio = f"{per / statistics.median(compiled):.2f}x" if compiled else ""
            lines.append(
                f"| {w.fmt} | {w.name} | {label} | {w.bytes_per_msg:,.0f} | {1 / per:,.0f} | "
                f"{w.events_per_msg / per:,.0f} | {w.bytes_per_msg / per / 1e6:.2f} | {ratio} | "
                f"{compiled_ratio} |  |"
            )
    return lines, summary


def plainbuffer_message(target: int) -> bytes:
    """One PlainBuffer message of up to ``target`` bytes: the benchmark's 64 wide rows,
    repeated, then as many of them again as fit."""
    from benchmarks import plainbuffer as b

    rows = [b.pb_wide(i)[4:] for i in range(64)]  # rows without the 4-byte message header
    laps, size = divmod(target - 4, sum(map(len, rows)))
    extra, total = [], 0
    for r in rows:
        if total + len(r) > size:
            break
        extra.append(r)
        total += len(r)
    return b.pb_wide(0)[:4] + b"".join(rows) * laps + b"".join(extra)


def memory_check(mib: int):
    """Peak resident memory of one decode, in a fresh process each (input read included)."""
    import array
    import json
    import subprocess
    import tempfile

    from benchmarks import plainbuffer as b
    from benchmarks.mysql_serialization import SEED_EVENT

    target = mib * 1024 * 1024 - 4096
    rows = [b.pb_wide(i)[4:] for i in range(64)]  # rows without the 4-byte message header
    laps = (target - 4) // sum(map(len, rows))
    pb_input = plainbuffer_message(target)
    # the same rows as messages of one row each (Kafka-sized records), in one Arrow batch
    messages = [b.pb_wide(0)[:4] + rows[i % len(rows)] for i in range(len(rows) * laps)]
    sizes, many = array.array("I", map(len, messages)), b"".join(messages)
    del messages
    binlog = mysql_binlog((target - 200) // len(SEED_EVENT))
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        pb, my, each = f"PlainBuffer, {mib} MiB of wide rows", f"MySQL binlog, {mib} MiB", None
        for kind, name, data, sizes_of in (
            ("plainbuffer", f"{pb} in one message: parse", pb_input, each),
            ("plainbuffer-one", f"{pb} in one message: parse, a row read", pb_input, each),
            ("plainbuffer-iter", f"{pb}: iter_rows", pb_input, each),
            ("arrow:plainbuffer:message", f"{pb} in one message: BatchDecoder", pb_input, each),
            ("arrow:plainbuffer:message", f"{pb}, a message each: BatchDecoder", many, sizes),
            ("mysql", f"{my} of tagged GTID events: parse", binlog, each),
            ("mysql-one", f"{my} of tagged GTID events: parse, an event read", binlog, each),
            ("mysql-iter", f"{my} of tagged GTID events: iter_rows", binlog, each),
        ):
            path = Path(tmp) / "input"
            path.write_bytes(data)
            args = [sys.executable, "-m", "benchmarks.memory_child", kind, str(path)]
            if sizes_of is not None:
                (Path(tmp) / "sizes").write_bytes(sizes_of.tobytes())
                args.append(str(Path(tmp) / "sizes"))
            res = subprocess.run(args, capture_output=True, text=True, check=True, cwd=ROOT)
            r = json.loads(res.stdout.strip().splitlines()[-1])
            held = (r["peak"] - r["base"]) * 1024
            out.append(
                f"| {name} | {r['size'] / 2**20:.1f} MiB | {held / 2**20:,.1f} MiB | "
                f"{held / r['size']:.2f}x | {r['cpu']:.1f} s |"
            )
    del pb_input, binlog, many
    return out


GALLERY_PEERS = (
    ("Avro", ("container, null", "container, deflate", "container, snappy"),
     "fastavro pure Python", "fastavro C"),
    ("Kafka", ("segment, none", "segment, zstd"), "kafka-python", "aiokafka C"),
    ("Protocol Buffers", ("order_card", "order_voucher"), None, "protobuf FromString"),
    ("MessagePack", ("log record", "nested document"),
     "msgpack.fallback (pure Python)", "msgpack C extension"),
    ("PNG", ("icon", "photo with text", "many IDAT"), "pypng Reader.chunks()", None),
)  # fmt: skip
"""Issue #18's peers: (format, workloads, the pure-Python reference, the C reader)."""


def targets(workloads, results, summary, memory) -> list[str]:
    """One line per target of issues #8, #17 and #18: the measured value and met / NOT
    met (a ratio of medians where the two decoders' ratio is not a column)."""
    out = []

    def ratio(fmt, name, peer):
        return summary.get((fmt, name, peer))

    def line(what, value, ok):
        if value is None:
            out.append(f"- {what}: not measured")
        else:
            out.append(f"- {what}: {value} -> {'met' if ok else 'NOT met'}")

    for name in ("small struct", "wide struct"):
        r = ratio("Thrift Compact", name, "thriftpy2")
        line(f"Thrift {name}: fast path / thriftpy2 >= 2x", r and f"{r:.2f}x", r and r >= 2)
    r = ratio("Thrift Compact", "wide struct", "Apache thrift C accelerated")
    line(
        "Thrift wide struct: within 2x of Apache C (fast/C >= 0.5x)",
        r and f"{r:.2f}x",
        r and r >= 0.5,
    )
    for fmt, name in (
        ("Thrift Compact", "small struct"),
        ("Thrift Compact", "wide struct"),
        ("Parquet", "footer"),
    ):
        r = summary.get((fmt, name, "Apache thrift C accelerated", "compiled"))
        line(f"{fmt} {name}: compiled / Apache C >= 2x (#17)", r and f"{r:.2f}x", r and r >= 2)
    for name in ("small row", "wide row"):
        r = ratio("PlainBuffer", name, "tablestore SDK Python")
        line(f"PlainBuffer {name}: fast path / SDK Python >= 3x", r and f"{r:.2f}x", r and r >= 3)
    for name in ("small row", "wide row"):  # issue #17
        c = ratio("PlainBuffer", name, "tablestore SDK native C (tuples)")
        f = ratio("PlainBuffer", name, "wirespec compiled")
        r = c and f and c / f  # both relative to the fast path within each run
        line(f"PlainBuffer {name}: compiled / SDK native C >= 1x", r and f"{r:.2f}x", r and r >= 1)
    craft = summary.get(("TiCDC Craft", "seed row", "wirespec fast path", "s"))
    if craft is not None:
        ns = craft * 1e9
        line(
            "Craft seed row decode <= 4 x 7,944 ns",
            f"{ns:,.0f} ns ({ns / 7944:.1f}x Go)",
            ns <= 4 * 7944,
        )
    for name in ("seed row", "batch16"):  # issue #17: compiled, at most 2 us an event
        c = summary.get(("TiCDC Craft", name, "wirespec compiled", "s/event"))
        if c is not None:
            ns = c * 1e9
            line(
                f"Craft {name} compiled decode <= 2,000 ns an event (Go: 7,944 ns the seed row)",
                f"{ns:,.0f} ns ({ns / 7944:.2f}x Go's seed row)",
                ns <= 2000,
            )
    for name in ("seed row", "batch16"):
        c = summary.get(("TiCDC Craft", name, "wirespec fast path", "s"))
        o = summary.get(("TiCDC Open Protocol", name, "wirespec fast path", "s"))
        if c and o:
            line(
                f"Open Protocol decodes the {name} faster than Craft",
                f"OP takes {o / c:.2f}x Craft's time",
                o < c,
            )
    for name in ("seed row", "batch16"):
        r = ratio("TiCDC Open Protocol", name, "wirespec compiled")
        line(
            f"Open Protocol {name}: compiled >= 3x the fast path (issue #17)",
            r and f"{1 / r:.2f}x",
            r and 1 / r >= 3,
        )
    g = summary.get(("MySQL GTID", "tagged GTID event", "wirespec fast path", "s"))
    line(
        "MySQL tagged GTID event >= 200k events/s", g and f"{1 / g:,.0f}/s", g and 1 / g >= 200_000
    )
    for name in ("tagged GTID event", "tagged GTID events, 100 distinct"):
        g = summary.get(("MySQL GTID", name, "wirespec compiled", "s"))
        if g is not None:
            line(f"MySQL {name} compiled >= 2M events/s (#17)", f"{1 / g:,.0f}/s", 1 / g >= 2e6)
    for fmt, names, pure_peer, c_peer in GALLERY_PEERS:  # issue #18
        for name in names:
            if pure_peer:  # pure Python's parse: the quick tier first, where there is one
                peer = summary.get((fmt, name, pure_peer, "s"))
                ours = summary.get((fmt, name, "wirespec quick tier", "s")) or summary.get(
                    (fmt, name, "wirespec fast path", "s")
                )
                r = peer and ours and peer / ours
                line(f"{fmt} {name}: pure-Python parse >= {pure_peer}", r and f"{r:.2f}x",
                     r and r >= 1)  # fmt: skip
            if c_peer:
                r = summary.get((fmt, name, c_peer, "compiled"))
                line(f"{fmt} {name}: compiled >= {c_peer}", r and f"{r:.2f}x", r and r >= 1)
    for row in memory:
        cells = [c.strip() for c in row.strip("|").split("|")]
        x = float(cells[3].rstrip("x"))
        line(f"memory: {cells[0]} peak <= 3x input", f"{x:.2f}x", x <= 3)
    return out


def machine() -> str:
    model = platform.processor() or platform.machine() or "unknown CPU"
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"{os.cpu_count()} CPUs ({model}), Python {platform.python_version()} "
        f"({platform.python_implementation()}), load average {load}"
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=0.25, help="CPU seconds per pass")
    ap.add_argument("--mem-mib", type=int, default=64, help="0 skips the memory check")
    ap.add_argument("--only", default="", help=f"comma list of {', '.join(WORKLOADS)}")
    args = ap.parse_args(argv)
    chosen = [s for s in args.only.split(",") if s] or list(WORKLOADS)
    workloads = [w for key in chosen for w in WORKLOADS[key]()]
    print(f"machine: {machine()}")
    print(
        f"median of {args.runs} interleaved runs, ~{args.seconds} CPU s per pass "
        "(process_time); MB = 10^6 input bytes\n"
    )
    results = measure(workloads, args.runs, args.seconds)
    lines, summary = table(workloads, results, args.runs)
    print("\n".join(lines))
    notes = [w.note for w in workloads if w.note]
    for note in notes:
        print(f"\n{note}")
    memory = []
    if args.mem_mib:
        print(
            f"\nmemory check: one decode of {args.mem_mib} MiB in a fresh process; peak "
            "resident memory (ru_maxrss) minus the process before reading the input, so the "
            "input's own bytes count\n"
        )
        print("| input | size | peak held | peak / input | decode CPU time |")
        print("|---|---:|---:|---:|---:|")
        memory = memory_check(args.mem_mib)
        print("\n".join(memory))
    print("\ntargets of issues #8, #17 and #18 (this run)\n")
    print("\n".join(targets(workloads, results, summary, memory)))
    print(f"\nload average after the run: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
