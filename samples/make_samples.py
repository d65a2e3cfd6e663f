#!/usr/bin/env python3
"""Write realistic sample messages of every format with wirespec's own builders.

    python samples/make_samples.py [--format NAME ...] [--output DIR]

Each format has one ``make_<format>(out_dir)`` function that builds its messages as models
with ``generated.<format>.build`` and writes ``<out_dir>/<format>/<name>.bin``; the
``MAKERS`` registry maps format names to those functions. To add a format, write its
function and register it. Every message is parsed back and must rebuild byte for byte
before it is written, so a sample is never something the codec cannot read.
Output is deterministic: fixed values, no clocks, no randomness.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from pathlib import Path

from construct import Container

SAMPLES = Path(__file__).resolve().parent


def _write(out_dir: Path, fmt: str, messages: dict[str, object]) -> list[Path]:
    """Build, check and write ``messages`` (name -> model) of format ``fmt``."""
    codec = importlib.import_module(f"generated.{fmt}")
    target = out_dir / fmt
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, model in messages.items():
        data = codec.build(model)
        if codec.build(codec.parse(data)) != data:
            raise SystemExit(f"{fmt}/{name}: does not rebuild byte for byte")
        path = target / f"{name}.bin"
        path.write_bytes(data)
        written.append(path)
    return written


# -- plainbuffer -------------------------------------------------------------------------------


def make_plainbuffer(out_dir: Path) -> list[Path]:
    """Tablestore PlainBuffer rows as the SDK would send them for an ``orders`` table with
    primary key (``user_id`` STRING, ``order_id`` INTEGER)."""
    from generated.plainbuffer import CellOp, ValueType

    ts = 1_732_240_800_000  # 2024-11-22T02:00:00Z, in milliseconds

    def value(vtype, v=None):
        return Container(type=vtype, value=v)

    def cell(name, val=None, op=None, timestamp=None):
        return Container(name=name, value=val, op=op, timestamp=timestamp)

    def pk(user, order):
        return [
            cell("user_id", value(ValueType.STRING, user)),
            cell(
                "order_id",
                order if isinstance(order, Container) else value(ValueType.INTEGER, order),
            ),
        ]

    def row(primary_key, attributes=None, deleted=False):
        return Container(primary_key=primary_key, attributes=attributes, delete_marker=deleted)

    def message(*rows):
        return Container(rows=list(rows))

    order_attributes = [
        cell("status", value(ValueType.STRING, "PAID"), timestamp=ts),
        cell("amount", value(ValueType.DOUBLE, 129.95), timestamp=ts),
        cell("items", value(ValueType.INTEGER, 3), timestamp=ts),
        cell("gift", value(ValueType.BOOLEAN, False), timestamp=ts),
        cell("note", value(ValueType.STRING, "leave at the door / 放在门口"), timestamp=ts),
        cell("receipt_sha1", value(ValueType.BLOB, bytes.fromhex("9f2c" * 10)), timestamp=ts),
    ]
    messages = {
        # PutRow: a new order, every attribute versioned at the same timestamp
        "put_row": message(row(pk("u-000042", 1001), order_attributes)),
        # UpdateRow: a put, a delete of one version, a delete of all versions, an increment
        "update_row_ops": message(
            row(
                pk("u-000042", 1001),
                [
                    cell("status", value(ValueType.STRING, "SHIPPED"), timestamp=ts + 86_400_000),
                    cell("amount", op=CellOp.DELETE_ONE_VERSION, timestamp=ts),
                    cell("note", op=CellOp.DELETE_ALL_VERSION),
                    cell("views", value(ValueType.INTEGER, 1), op=CellOp.INCREMENT),
                ],
            )
        ),
        # DeleteRow: primary key and the delete marker only
        "delete_row": message(row(pk("u-000042", 1001), deleted=True)),
        # BatchWriteRow-style message: header once, three rows back to back
        "multi_row": message(
            row(pk("u-000042", 1002), order_attributes[:3]),
            row(
                pk("u-000043", 7),
                [cell("status", value(ValueType.STRING, "CANCELLED"), timestamp=ts + 5)],
            ),
            row(pk("u-000044", 12), deleted=True),
        ),
        # GetRange bounds: every order of one user, from INF_MIN to INF_MAX
        "range_start_inf_min": message(row(pk("u-000042", value(ValueType.INF_MIN)))),
        "range_end_inf_max": message(row(pk("u-000042", value(ValueType.INF_MAX)))),
        # PutRow into a table whose second key column is auto-increment
        "put_row_auto_increment": message(
            row(
                pk("u-000042", value(ValueType.AUTO_INCREMENT)),
                [cell("status", value(ValueType.STRING, "NEW"))],
            )
        ),
    }
    return _write(out_dir, "plainbuffer", messages)


# -- registry ----------------------------------------------------------------------------------

MAKERS: dict[str, Callable[[Path], list[Path]]] = {
    "plainbuffer": make_plainbuffer,
}


# -- ticdc_craft -------------------------------------------------------------------------------


def make_ticdc_craft(out_dir: Path) -> list[Path]:
    """TiCDC Craft messages of a ``shop.orders`` table, as TiCDC writes them: a batch of row
    changes (insert, update with old values, delete of the handle key), a DDL, a resolved ts."""
    from generated.models.ticdc_types import Column, DdlEvent, ResolvedEvent, RowChangedEvent
    from generated.ticdc_craft import ColumnFlag as F
    from generated.ticdc_craft import ColumnType as T
    from generated.ticdc_craft import DdlType, Message

    ts = 454_000_000_000_000_000  # a TSO: physical ms << 18
    pk = int(F.HANDLE_KEY | F.PRIMARY_KEY | F.BINARY)

    def order(oid, status, amount, note=None):
        return [
            Column("id", int(T.LONGLONG), pk | int(F.UNSIGNED), oid),
            Column("status", int(T.VARCHAR), 0, status.encode()),
            Column("amount", int(T.NEWDECIMAL), int(F.BINARY), amount),
            Column("items", int(T.LONG), int(F.BINARY), 3),
            Column("created", int(T.DATETIME), int(F.BINARY), "2024-11-22 02:00:00"),
            Column("weight_kg", int(T.DOUBLE), int(F.BINARY), 1.25),
            Column("note", int(T.BLOB), int(F.NULLABLE), note),
        ]

    rows = [
        RowChangedEvent(ts + 1, "shop", "orders", new=order(1001, "NEW", "129.95")),
        RowChangedEvent(ts + 2, "shop", "orders", new=order(1002, "NEW", "15.00", "放在门口".encode())),
        RowChangedEvent(ts + 3, "shop", "orders", new=order(1001, "PAID", "129.95"),
                        old=order(1001, "NEW", "129.95")),
        RowChangedEvent(ts + 4, "shop", "orders",
                        old=[Column("id", int(T.LONGLONG), pk | int(F.UNSIGNED), 1002)]),
    ]  # fmt: skip
    ddl = DdlEvent(ts + 5, "shop", "orders", int(DdlType.ADD_COLUMN),
                   "ALTER TABLE `shop`.`orders` ADD COLUMN `coupon` VARCHAR(32) NULL")  # fmt: skip
    return _write(
        out_dir,
        "ticdc_craft",
        {
            "row_batch": Message(events=rows),
            "ddl_add_column": Message(events=[ddl]),
            "resolved": Message(events=[ResolvedEvent(ts + 6)]),
        },
    )


MAKERS["ticdc_craft"] = make_ticdc_craft


# -- ticdc_open_protocol -----------------------------------------------------------------------


def make_ticdc_open_protocol(out_dir: Path) -> list[Path]:
    """TiCDC Open Protocol messages for a ``shop.orders`` table: each is a Kafka key and
    value, written as ``<name>.key`` + ``<name>.value`` (the pair the Spark data source and
    ``samples/decode_all.py`` read). A tiflow row batch, an update with old values, a delete,
    the seed doc's 2020-layout row, a DDL and a resolved event."""
    from generated.models.ticdc_types import Column, DdlEvent, ResolvedEvent, RowChangedEvent
    from generated.ticdc_open_protocol import Message, build_pair, parse_pair

    ts = 424316552636792833

    def order(i, status=b"PAID"):
        return [
            Column("amount", 246, 0x41, f"{i}29.9500"),
            Column("created", 12, 0x41, "2024-11-22 02:00:00.000000"),
            Column("id", 8, 0x0B, 1000 + i),
            Column("note", 15, 0x40, "leave at the door / 放在门口".encode() if i % 2 else None),
            Column("receipt", 252, 0x41, bytes.fromhex("9f2c" * 10)),
            Column("status", 15, 0x40, status),
            Column("total_u", 8, 0xC1, 2**64 - 1 - i),
        ]

    rows = [
        RowChangedEvent(ts + i, "shop", "orders", new=order(i), row_id=1000 + i) for i in range(3)
    ]
    messages = {
        "row_batch": Message(rows),
        "update": Message([RowChangedEvent(ts + 3, "shop", "orders", new=order(1, b"SHIPPED"),
                                           old=order(1), row_id=1001)]),
        "delete": Message([RowChangedEvent(ts + 4, "shop", "orders", old=order(2)[2:3], row_id=1002)]),
        "seed_legacy_row": Message([RowChangedEvent(415508878783938562, "test", "t1", new=[
            Column("id", 3, 0x02, 1), Column("val", 15, 0, b"aa")])], "legacy"),
        "ddl_add_column": Message([DdlEvent(ts + 5, "shop", "orders", 5,
                                            "ALTER TABLE `shop`.`orders` ADD COLUMN `coupon` VARCHAR(32) NULL")]),
        "resolved": Message([ResolvedEvent(ts + 6)]),
    }  # fmt: skip
    target = out_dir / "ticdc_open_protocol"
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, model in messages.items():
        key, value = build_pair(model)
        if build_pair(parse_pair(key, value)) != (key, value):
            raise SystemExit(f"ticdc_open_protocol/{name}: does not rebuild byte for byte")
        for suffix, data in ((".key", key), (".value", value)):
            path = target / f"{name}{suffix}"
            path.write_bytes(data)
            written.append(path)
    return written


MAKERS["ticdc_open_protocol"] = make_ticdc_open_protocol


# -- thrift_compact ----------------------------------------------------------------------------


def make_thrift_compact(out_dir: Path) -> list[Path]:
    """Thrift Compact messages of the demo service in ``specs/thrift_compact.yaml``
    (``User get_user(1: Lookup key) throws (1: NotFound nf)``), as a client and server
    exchange them: calls by id and by name, a reply with a full ``User``, a reply carrying
    the declared ``NotFound`` exception, and an EXCEPTION envelope for an unknown method.
    Each file is one message envelope: the module's default record (``message``)."""
    import uuid

    from generated.thrift_compact import (
        Address,
        Lookup,
        Message,
        MessageType,
        NotFound,
        Status,
        TApplicationException,
        TApplicationExceptionType,
        User,
        get_user_args,
        get_user_result,
    )

    ada = User(
        id=42,
        name="Ada Lovelace",
        status=Status.ACTIVE,
        admin=True,
        age=36,
        logins=1815,
        score=99.5,
        avatar=bytes.fromhex("89504e470d0a1a0a"),  # the PNG signature
        token=uuid.UUID("6f1c2e0a-4b7d-4e8a-9c3f-2a5d8e1b7c40"),
        tags=["math", "engines"],
        addresses=[Address("12 St James's Square", "London", "SW1Y 4JH"), Address("Ockham Park", "Ockham")],
        prefs={"lang": "en-GB", "tz": "Europe/London"},
        shard=300,  # field id 16: the long-form field header
    )  # fmt: skip
    messages = {
        "get_user_call_by_id": Message("get_user", MessageType.CALL, 1, get_user_args(Lookup(id=42))),
        "get_user_call_by_name": Message("get_user", MessageType.CALL, 2,
                                         get_user_args(Lookup(name="grace.hopper"))),
        "get_user_reply": Message("get_user", MessageType.REPLY, 1, get_user_result(success=ada)),
        "get_user_reply_suspended": Message("get_user", MessageType.REPLY, 3, get_user_result(
            success=User(id=7, name="Grace Hopper", status=Status.SUSPENDED, logins=3))),
        "get_user_reply_not_found": Message("get_user", MessageType.REPLY, 2, get_user_result(
            nf=NotFound(Lookup(name="grace.hopper")))),
        "get_usr_exception": Message("get_usr", MessageType.EXCEPTION, 4, TApplicationException(
            "Invalid method name: 'get_usr'", TApplicationExceptionType.UNKNOWN_METHOD)),
    }  # fmt: skip
    return _write(out_dir, "thrift_compact", messages)


MAKERS["thrift_compact"] = make_thrift_compact


# -- mysql_serialization -----------------------------------------------------------------------


def make_mysql_serialization(out_dir: Path) -> list[Path]:
    """MySQL 9.2 binlog events with tagged GTIDs (``SET GTID_NEXT='AUTOMATIC:<tag>'``):

    * ``<name>.bin``: single GTID_TAGGED_LOG_EVENTs (the default record, CRC32 binlog): a
      local commit, one replicated from an 8.4 source (original commit time and server
      version differ) and one from a Group Replication member (commit group ticket);
    * ``binlog.000001.binlog``: a small binlog file (record ``binlog_file``): the
      FORMAT_DESCRIPTION_EVENT, PREVIOUS_GTIDS, then two transactions, each a tagged GTID,
      ``BEGIN`` (QUERY_EVENT) and an XID_EVENT; the events other than the GTIDs pass through
      as raw bodies."""
    import struct
    import uuid as uuid_mod

    from generated import mysql_serialization as ms

    source = list(uuid_mod.UUID("896e7882-18fe-11ef-ab88-22222d34d411").bytes)
    other = list(uuid_mod.UUID("3e11fa47-71ca-11e1-9e33-c80aa9429562").bytes)
    t0 = 1_739_823_289  # 2025-02-17T20:14:49Z
    us = t0 * 1_000_000 + 123_456

    def body(gno, tag, seq, ts_us, *, uuid=source, length=0, **more):
        # original_* left out: equal to immediate_* (not written); no commit group ticket
        return ms.GtidTaggedBody(**{
            "gtid_flags": 0, "uuid": uuid, "gno": gno, "tag": tag, "last_committed": seq - 1,
            "sequence_number": seq, "immediate_commit_timestamp": ts_us,
            "transaction_length": length, "immediate_server_version": 90200, **more,
        })  # fmt: skip

    def header(type_code, size, log_pos, *, ts=t0, server_id=1):
        return {"timestamp": ts, "type_code": type_code, "server_id": server_id,
                "event_size": size, "log_pos": log_pos, "flags": 0}  # fmt: skip

    def gtid_event(b, log_pos, **kw):
        size = 19 + len(ms.build(b, "gtid_tagged_body")) + 4
        h = header(ms.EventType.GTID_TAGGED_LOG_EVENT, size, log_pos, **kw)
        del h["type_code"]
        return ms.GtidTaggedEvent(body=b, **h)

    events = {
        "gtid_tagged_local": gtid_event(body(1, "orders_etl", 1, us, length=312), 234),
        "gtid_tagged_replicated_from_8_4": gtid_event(
            body(1042, "nightly", 57, us + 900, uuid=other, length=1_843_201,
                 original_commit_timestamp=us - 2_500_000, original_server_version=80400),
            9_871_234, server_id=2),
        "gtid_tagged_group_replication": gtid_event(
            body(77, "gr_app", 12, us + 5_000, gtid_flags=1, length=655, commit_group_ticket=3),
            41_020, server_id=3),
    }  # fmt: skip
    written = _write(out_dir, "mysql_serialization", events)

    # -- binlog.000001: FDE, PREVIOUS_GTIDS, two transactions (GTID, BEGIN, XID) ----------
    crc = 4
    post_header_lengths = bytes.fromhex(  # one byte per event type from 1 (8.0+ layout)
        "000d0008000000000400040000006200041a08000000080808020000000a0a0a2a2a0012340a280000"
    )
    fde = ms.FormatDescriptionEvent(
        timestamp=t0 - 60, server_id=1, event_size=81 + len(post_header_lengths),
        log_pos=4 + 81 + len(post_header_lengths), flags=0, binlog_version=4,
        server_version="9.2.0", create_timestamp=t0 - 60,  # NUL-padded by the spec (pad: nul)
        post_header_lengths=post_header_lengths, checksum_alg=ms.ChecksumAlg.CRC32,
        unverified_checksum=None,
    )  # fmt: skip

    def query(text, db=b"shop"):  # thread id, exec time, db len, error code, status vars
        return struct.pack("<IIBHH", 8, 0, len(db), 0, 0) + db + b"\x00" + text

    def raw(type_code, payload):
        return (type_code, payload)

    plan = [raw(ms.EventType.PREVIOUS_GTIDS_LOG_EVENT, struct.pack("<Q", 0))]
    for i, (tag, xid) in enumerate((("orders_etl", 1201), ("orders_etl", 1202))):
        txn = [
            raw(ms.EventType.QUERY_EVENT, query(b"BEGIN")),
            raw(ms.EventType.XID_EVENT, struct.pack("<Q", xid)),
        ]
        length = sum(19 + len(p) + crc for _, p in txn)
        gtid = body(i + 1, tag, i + 1, us + i * 1_000, length=length)
        for _ in range(2):  # the GTID event counts itself in transaction_length
            size = 19 + len(ms.build(gtid, "gtid_tagged_body")) + crc
            gtid.transaction_length = length + size
        plan += [(ms.EventType.GTID_TAGGED_LOG_EVENT, gtid), *txn]
    pos, file_events = fde.log_pos, []
    for type_code, payload in plan:
        raw_body = payload if isinstance(payload, bytes) else ms.build(payload, "gtid_tagged_body")
        size = 19 + len(raw_body) + crc
        pos += size
        file_events.append(ms.BinlogEvent(body=payload, **header(int(type_code), size, pos)))
    model = ms.BinlogFile(format_description=fde, events=file_events)
    data = ms.build(model, "binlog_file")
    if ms.build(ms.parse(data, "binlog_file"), "binlog_file") != data:
        raise SystemExit("mysql_serialization/binlog.000001: does not rebuild byte for byte")
    path = out_dir / "mysql_serialization" / "binlog.000001.binlog"
    path.write_bytes(data)
    return [*written, path]


MAKERS["mysql_serialization"] = make_mysql_serialization


# -- parquet -----------------------------------------------------------------------------------


def make_parquet(out_dir: Path) -> list[Path]:
    """Parquet footers (``FileMetaData``, the Thrift Compact bytes before a file's last 8)
    of small files pyarrow writes: nested list columns, two row groups, zstd and snappy,
    page indexes. ``created_by`` is set to one fixed text, so the samples do not change with
    the pyarrow version."""
    import io
    import struct

    import pyarrow as pa
    import pyarrow.parquet as pq

    from generated import parquet

    table = pa.table(
        {
            "id": pa.array([1, 2, 3], pa.int64()),
            "name": ["a", "b", None],
            "tags": [["x"], [], ["y", "z"]],
        }
    )
    footers = {}
    for name, options in {
        "zstd_page_index": {"compression": "zstd", "write_page_index": True},
        "snappy_statistics": {"compression": "snappy"},
    }.items():
        buf = io.BytesIO()
        pq.write_table(table, buf, row_group_size=2, **options)
        data = buf.getvalue()
        (length,) = struct.unpack("<I", data[-8:-4])
        meta = parquet.parse(data[-8 - length : -8])
        meta.created_by = "parquet-cpp-arrow (wirespec samples)"
        footers[name] = meta
    return _write(out_dir, "parquet", footers)


MAKERS["parquet"] = make_parquet


# -- kafka_record_batch ------------------------------------------------------------------------


def kafka_batch(
    records, *, base_offset=0, compression=0, transactional=False, producer=(-1, -1, -1)
):
    """One RecordBatch v2 as kafka-python's ``DefaultRecordBatchBuilder`` writes it:
    ``records`` are (offset_delta, timestamp ms, key, value, headers); the base offset is
    the log's (a producer writes 0 and the broker assigns it; it is outside the CRC)."""
    from kafka.record.default_records import DefaultRecordBatchBuilder

    producer_id, producer_epoch, base_sequence = producer
    builder = DefaultRecordBatchBuilder(
        2, compression, int(transactional), producer_id, producer_epoch, base_sequence, 1 << 24
    )
    for offset, timestamp, key, value, headers in records:
        builder.append(offset, timestamp=timestamp, key=key, value=value, headers=headers)
    data = bytes(builder.build())
    return base_offset.to_bytes(8, "big", signed=True) + data[8:]


def make_kafka_record_batch(out_dir: Path) -> list[Path]:
    """Kafka RecordBatch v2 bytes from kafka-python's ``DefaultRecordBatchBuilder`` (an
    orders topic: JSON values, keys, headers, a null key and a tombstone), a transaction's
    batch and its COMMIT control batch (built with our builder: kafka-python's cannot set
    the control bit), batches with the four codecs, a log segment file
    (``00000000000000000000.log``: batches back to back), and a batch whose values are the
    TiCDC Craft samples (Kafka segment -> Craft messages -> change rows)."""
    import generated.kafka_record_batch as kafka

    t0 = 1_732_240_800_000  # 2024-11-22T02:00:00Z, ms
    orders = [
        (0, t0, b"order-1001", b'{"id":1001,"status":"NEW","amount":"129.95"}',
         [("content-type", b"application/json"), ("trace-id", b"4bf92f3577b34da6")]),
        (1, t0 + 7, b"order-1002", b'{"id":1002,"status":"NEW","amount":"15.00"}', []),
        (2, t0 + 9, None, b'{"heartbeat":true}', [("source", None)]),
        (3, t0 + 12, b"order-1002", None, []),  # a tombstone: the key's latest value is null
    ]  # fmt: skip
    batches = {
        "orders_batch": kafka_batch(orders),
        "transactional_batch": kafka_batch(
            orders[:2], base_offset=4, transactional=True, producer=(4000, 0, 0)
        ),
    }
    # the transaction's COMMIT marker: key = version 0, type 1; value = version 0, epoch 7
    marker = kafka.parse(batches["transactional_batch"], "record_batch")
    marker.base_offset, batch = 6, marker.batch
    batch.attributes |= 0x30  # transactional and control
    batch.records, batch.records_count = [batch.records[0]], 1
    batch.records[0].key = bytes.fromhex("00000001")
    batch.records[0].value = bytes.fromhex("000000000007")
    batch.records[0].headers = []
    batch.last_offset_delta, batch.max_timestamp = 0, batch.base_timestamp
    batches["control_commit_batch"] = kafka.build(marker, "record_batch")
    for codec, name in enumerate(("gzip", "snappy", "lz4", "zstd"), start=1):
        batches[f"{name}_batch"] = kafka_batch(orders, base_offset=10 * codec, compression=codec)
    # gzip's header holds the time it was written: zero it (and so the CRC) for a fixed sample
    gzipped = kafka.parse(batches["gzip_batch"], "record_batch")
    stream = bytearray(gzipped.batch.records_wire)
    stream[4:8] = bytes(4)
    gzipped.batch.records_wire = bytes(stream)
    batches["gzip_batch"] = kafka.build(gzipped, "record_batch")
    craft = sorted((SAMPLES / "ticdc_craft").glob("*.bin"))
    values = [(i, t0 + i, b"shop.orders", p.read_bytes(), []) for i, p in enumerate(craft)]
    batches["craft_values_batch"] = kafka_batch(values, base_offset=100)
    segment = b"".join(
        batches[n] for n in ("orders_batch", "transactional_batch", "control_commit_batch")
    ) + kafka_batch(orders, base_offset=7)
    models = {}
    for name, data in {**batches, "segment_00000000000000000000": segment}.items():
        models[name] = kafka.parse(data)
        if kafka.build(models[name]) != data:
            raise SystemExit(f"kafka_record_batch/{name}: does not rebuild byte for byte")
    return _write(out_dir, "kafka_record_batch", models)


MAKERS["kafka_record_batch"] = make_kafka_record_batch


# -- avro_container ----------------------------------------------------------------------------

AVRO_PAGE_VIEW_SCHEMA = {
    "type": "record",
    "name": "PageView",
    "namespace": "com.example.events",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "user", "type": "string"},
        {"name": "score", "type": "double"},
        {"name": "ratio", "type": "float"},
        {"name": "active", "type": "boolean"},
        {"name": "email", "type": ["null", "string"]},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "counters", "type": {"type": "map", "values": "long"}},
        {
            "name": "kind",
            "type": {"type": "enum", "name": "Kind", "symbols": ["VIEW", "CLICK", "PURCHASE"]},
        },
        {"name": "digest", "type": {"type": "fixed", "name": "Digest", "size": 8}},
        {
            "name": "device",
            "type": {
                "type": "record",
                "name": "Device",
                "fields": [{"name": "os", "type": "string"}, {"name": "version", "type": "int"}],
            },
        },
        {"name": "payload", "type": "bytes"},
    ],
}
"""The record schema ``specs/avro_container.yaml`` declares (``page_view``)."""
AVRO_SYNC = bytes.fromhex("5a17c0de0ddba11fee1dcafe5eed0b0e")
"""A fixed sync marker: the samples are the same bytes on every run."""


def avro_page_views(n: int) -> list[dict]:
    """``n`` page views of a small web shop, as an events pipeline would log them."""
    kinds = ["VIEW", "VIEW", "CLICK", "VIEW", "PURCHASE"]
    pages = ["home", "search", "product", "cart", "checkout"]
    return [
        {
            "id": 1_700_000_000_000 + 37 * i,
            "user": f"user-{(i * 7919) % 97:03d}",
            "score": round(0.5 + (i % 13) / 8, 3),
            "ratio": (i % 5) / 4,
            "active": i % 4 != 3,
            "email": None if i % 3 else f"user-{(i * 7919) % 97:03d}@example.com",
            "tags": pages[: i % 4],
            "counters": {page: (i * 31 + j) % 1000 for j, page in enumerate(pages[: i % 3])},
            "kind": kinds[i % 5],
            "digest": (i * 0x9E3779B97F4A7C15 % 2**64).to_bytes(8, "big"),
            "device": {"os": ["android", "ios", "linux"][i % 3], "version": 10 + i % 7},
            "payload": bytes([i % 256, (i * 3) % 256]) * (i % 3),
        }
        for i in range(n)
    ]


def avro_file(records: list[dict], codec: str, block_records: int) -> bytes:
    """A container file as fastavro writes it: ``block_records`` records per block."""
    import io

    from fastavro import parse_schema
    from fastavro.write import Writer

    out = io.BytesIO()
    writer = Writer(out, parse_schema(AVRO_PAGE_VIEW_SCHEMA), codec=codec, sync_marker=AVRO_SYNC)
    for i, record in enumerate(records, 1):
        writer.write(record)
        if i % block_records == 0:
            writer.flush()
    writer.flush()
    return out.getvalue()


def make_avro_container(out_dir: Path) -> list[Path]:
    """Avro container files of PageView records written by fastavro (the reference
    library) with a fixed sync marker, one per codec; several blocks each."""
    from generated.avro_container import build, parse

    target = out_dir / "avro_container"
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for codec, n, per_block in (("null", 12, 5), ("deflate", 40, 16), ("snappy", 40, 16)):
        data = avro_file(avro_page_views(n), codec, per_block)
        if build(parse(data)) != data:
            raise SystemExit(f"avro_container/{codec}: does not rebuild byte for byte")
        path = target / f"page_views_{codec}.bin"
        path.write_bytes(data)
        written.append(path)
    return written


MAKERS["avro_container"] = make_avro_container


# -- msgpack -----------------------------------------------------------------------------------


def make_msgpack(out_dir: Path) -> list[Path]:
    """MessagePack values written by the reference library (``msgpack.packb``, which picks
    the smallest form of each value) and read with our codec: a Fluentd forward-protocol
    event (``[tag, [[time, record], ...]]`` with EventTime-like timestamps), a nested
    document of every scalar form, a stream of log records back to back (one Spark row
    each), and one value in longer forms than needed (kept as written)."""
    import datetime

    import msgpack

    from generated import msgpack as codec

    epoch = datetime.datetime(2026, 11, 25, 12, 0, 0, tzinfo=datetime.timezone.utc)
    stamp = msgpack.Timestamp.from_datetime(epoch)
    record = {"level": "info", "msg": "order paid", "order_id": 100234, "amount": 42.5}
    forward = [
        "app.orders",
        [
            [stamp, record],
            [msgpack.Timestamp(stamp.seconds + 1, 250_000_000), {**record, "order_id": 100235}],
        ],
    ]
    document = {
        "nil": None, "yes": True, "no": False, "small": 7, "minus": -5, "u8": 200, "u16": 60000,
        "u32": 4_000_000_000, "u64": 2**63 + 5, "i8": -100, "i16": -30000, "i32": -2_000_000_000,
        "i64": -(2**62), "f64": 3.141592653589793, "text": "caf\u00e9", "str8": "x" * 40,
        "bin": b"\x00\x01\xfe\xff", "ext": msgpack.ExtType(7, b"\x01\x02\x03\x04"),
        "t32": msgpack.Timestamp(1_764_072_000, 0), "t96": msgpack.Timestamp(-1, 5),
        "nested": [[1, [2, [3, {"deep": [None]}]]]], "f32": 1.5,
    }  # fmt: skip
    values = {
        "fluentd_forward": msgpack.packb(forward),
        "document": msgpack.packb(document, use_single_float=False).replace(
            msgpack.packb(1.5), msgpack.packb(1.5, use_single_float=True)
        ),
    }
    models = {name: codec.parse(data, "value") for name, data in values.items()}
    long_forms = bytes.fromhex("dc0002ce00000005d9016b")
    models["long_forms"] = codec.parse(long_forms, "value")  # array16 [uint32 5, str8 "k"]
    logs = b"".join(
        msgpack.packb({**record, "order_id": 100234 + i, "ts": stamp}) for i in range(5)
    )
    streams = {name: codec.Stream(values=[model]) for name, model in models.items()}
    streams["log_stream"] = codec.parse(logs)  # the default record: values back to back
    return _write(out_dir, "msgpack", streams)


MAKERS["msgpack"] = make_msgpack


# -- bson --------------------------------------------------------------------------------------


def make_bson(out_dir: Path) -> list[Path]:
    """BSON documents written by pymongo's ``bson.encode`` (the reference) and read with our
    codec: an oplog update entry and a change stream insert event as a MongoDB 7 server
    lays them out (their fields and types; the values are made up), a document of every
    type pymongo writes, and five orders back to back as mongodump writes a collection's
    ``.bson`` file (one Spark row each)."""
    import datetime

    import bson
    from bson import Binary, Code, Decimal128, Int64, MaxKey, MinKey, ObjectId, Regex, Timestamp

    from generated import bson as codec

    wall = datetime.datetime(2026, 11, 25, 12, 0, 0, 123000, tzinfo=datetime.timezone.utc)
    order_id = ObjectId("6924a2c0f1e2d3c4b5a69788")
    collection_uuid = Binary(bytes.fromhex("8c1f2a3b4c5d4e6f8a9b0c1d2e3f4051"), 4)
    oplog = {
        "op": "u", "ns": "shop.orders", "ui": collection_uuid,
        "o": {"$v": 2, "diff": {"u": {"status": "paid", "paid_at": wall}}},
        "o2": {"_id": order_id}, "ts": Timestamp(1764072000, 3), "t": Int64(7),
        "v": Int64(2), "wall": wall,
    }  # fmt: skip
    order = {
        "_id": order_id, "customer": "c-90210", "status": "new", "amount": Decimal128("42.50"),
        "items": [{"sku": "MUG-01", "qty": 2, "price": 12.99}, {"sku": "TEA-GREEN", "qty": 1}],
        "created_at": wall, "tags": ["express", "fragile"], "gift": False, "note": None,
    }  # fmt: skip
    change = {
        "_id": {"_data": "826924A2C0000000032B042C0100296E5A1004"},
        "operationType": "insert", "clusterTime": Timestamp(1764072000, 3), "wallTime": wall,
        "fullDocument": order, "ns": {"db": "shop", "coll": "orders"},
        "documentKey": {"_id": order_id},
    }  # fmt: skip
    every_type = {
        "double": -0.0, "string": "caf\u00e9 \u2615", "document": {"a": {"b": {}}},
        "array": [1, "two", [3.0]], "binary": b"\x00\x01\xfe\xff", "old_binary": Binary(b"xyz", 2),
        "uuid": collection_uuid, "user": Binary(b"mine", 0x80), "object_id": order_id,
        "true": True, "false": False, "datetime": wall, "before_1970": datetime.datetime(1900, 1, 1),
        "null": None, "regex": Regex("^c-[0-9]+$", "im"), "code": Code("x + 1"),
        "code_with_scope": Code("x + y", {"y": 2}), "int32": -(2**31), "timestamp": Timestamp(1, 2),
        "int64": Int64(2**62), "decimal128": Decimal128("-1.5E-6175"), "min_key": MinKey(),
        "max_key": MaxKey(),
    }  # fmt: skip
    dump = b"".join(
        bson.encode({**order, "_id": ObjectId(f"6924a2c0f1e2d3c4b5a6{9788 + i:04x}"), "qty": i})
        for i in range(5)
    )
    streams = {
        "oplog_update": bson.encode(oplog),
        "change_event_insert": bson.encode(change),
        "every_type": bson.encode(every_type),
        "orders_dump": dump,
    }
    return _write(out_dir, "bson", {name: codec.parse(data) for name, data in streams.items()})


MAKERS["bson"] = make_bson


# -- protobuf_wire -----------------------------------------------------------------------------


def make_protobuf_wire(out_dir: Path) -> list[Path]:
    """Order events of ``specs/protobuf_wire.yaml`` as the protobuf package (upb) writes
    them from a descriptor made of the same schema (``samples/protobuf_peer.py``): a card
    payment with every kind of field, a small voucher order, and one as a mixed fleet
    writes it: upb's bytes of an older writer (ratings unpacked) followed by a newer
    writer's fields this schema does not know (21, 3000) and a later status, so fields
    are out of order, repeated and unknown (protobuf reads concatenated messages as one)."""
    from generated import protobuf_wire

    from .protobuf_peer import Peer

    peer = Peer(protobuf_wire)
    order_class = peer.classes["order"]
    card = order_class(
        order_id="ORD-2026-000417", customer_id=90210, created_at_micros=1764100800123456,
        status=2, tags=["express", "fragile"], price_adjustments=[-500, 125, 0],
        coupon_ids=[1001, 1002], delivery_latitude=52.520008, delivery_longitude=13.404954,
        gift=True, note="Leave at the door", ratings=[5, -1], trace_id=bytes(range(16)),
    )  # fmt: skip
    card.items.add(sku="MUG-01", quantity=2, discount_permille=-50, labels=["ceramic"])
    card.items[0].unit_price.currency_code, card.items[0].unit_price.units = "EUR", 12
    card.items[0].unit_price.nanos = 990000000
    card.items.add(sku="TEA-GREEN", quantity=1).unit_price.units = 7
    card.shipping.street, card.shipping.city = "Unter den Linden 1", "Berlin"
    card.shipping.postal_code, card.shipping.country_code = "10117", "DE"
    card.attributes["channel"], card.attributes["campaign"] = "web", "winter-sale"
    card.total.currency_code, card.total.units, card.total.nanos = "EUR", 32, 980000000
    card.card.network, card.card.last4, card.card.expiry_month = "VISA", 4242, 11
    card.card.expiry_year = 2029
    card.subtotals["EUR"].units = 32
    voucher = order_class(order_id="ORD-2026-000418", customer_id=7, voucher_code="WELCOME10")
    voucher.items.add(sku="GIFT-CARD", quantity=1)
    older = order_class(order_id="ORD-2026-000419", customer_id=12, status=1).SerializeToString()
    older += bytes.fromhex("a001" "04" "a001" "03")  # ratings 4, 3 as unpacked records
    newer = (
        bytes.fromhex("a801" "2a") + bytes.fromhex("c2bb01" "05") + b"hello"
    )  # 21: 42, 3000: "hello"
    later = order_class(status=3).SerializeToString()
    messages = {
        "order_card": card.SerializeToString(deterministic=True),
        "order_voucher": voucher.SerializeToString(deterministic=True),
        "order_mixed_writers": older + newer + later,
    }
    return _write(
        out_dir,
        "protobuf_wire",
        {name: protobuf_wire.parse(data) for name, data in messages.items()},
    )


MAKERS["protobuf_wire"] = make_protobuf_wire


# -- png ---------------------------------------------------------------------------------------


def make_png(out_dir: Path) -> list[Path]:
    """PNG images written by the reference library, pypng (``png.Writer``, pure Python, zlib
    at its default level), and read with our codec: an 8-bit greyscale gradient, an RGBA
    badge with gAMA and pHYs (72 dpi), a 4-bit palette image, and an interlaced RGB photo
    strip with the text and time chunks a camera or editor adds (tEXt, zTXt, iTXt in
    German, tIME), put in after IHDR by ``png.write_chunks``, which computes their CRCs."""
    import io
    import zlib

    import png

    from generated import png as codec

    def written(width, height, rows, **options) -> bytes:
        out = io.BytesIO()
        png.Writer(width, height, **options).write(out, rows)
        return out.getvalue()

    def with_chunks(data: bytes, extra: list[tuple[bytes, bytes]]) -> bytes:
        chunks = list(png.Reader(bytes=data).chunks())
        out = io.BytesIO()
        png.write_chunks(out, chunks[:1] + extra + chunks[1:])
        return out.getvalue()

    gradient = [[(x * 8 + y) % 256 for x in range(32)] for y in range(16)]
    badge = [[v for x in range(12) for v in (200, 40 + 10 * y, 20 * x % 256, 255 - 20 * x)]
             for y in range(12)]  # fmt: skip
    palette = [(0, 0, 0), (255, 255, 255), (220, 40, 40), (40, 160, 60), (30, 80, 200)]
    indexed = [[(x // 4 + y) % len(palette) for x in range(20)] for y in range(10)]
    strip = [[(x * 13 + y * 7 + c * 50) % 256 for x in range(24) for c in range(3)]
             for y in range(9)]  # fmt: skip
    comment = "Shot on the Elbe at dusk; white balance 5200 K, ISO 400. " * 4
    text = [
        (b"tEXt", b"Title\x00Elbufer bei D\xe4mmerung"),  # Latin-1: the a-umlaut is one byte
        (b"tEXt", b"Software\x00pypng 0.20220715.0"),
        (b"zTXt", b"Comment\x00\x00" + zlib.compress(comment.encode("latin-1"))),
        (b"iTXt", b"Description\x00\x01\x00de-DE\x00Beschreibung\x00"
                  + zlib.compress("Die Elbe im Abendlicht, \u00fcber Dresden".encode())),
        (b"iTXt", b"Author\x00\x00\x00\x00\x00Jana M\xc3\xbcller"),
        (b"tIME", bytes.fromhex("07ea0b1a113000")),  # 2026-11-26 17:48:00 UTC
    ]  # fmt: skip
    images = {
        "greyscale_gradient": written(32, 16, gradient, greyscale=True),
        "rgba_badge": written(12, 12, badge, greyscale=False, alpha=True, gamma=0.45455,
                              x_pixels_per_unit=2835, y_pixels_per_unit=2835,
                              unit_is_meter=True),
        "palette_4bit": written(20, 10, indexed, palette=palette, bitdepth=4),
        "photo_with_text": with_chunks(
            written(24, 9, strip, greyscale=False, interlace=True), text
        ),
    }  # fmt: skip
    target = out_dir / "png"
    target.mkdir(parents=True, exist_ok=True)
    written_paths = []
    for name, data in images.items():
        if codec.build(codec.parse(data)) != data:
            raise SystemExit(f"png/{name}: does not rebuild byte for byte")
        path = target / f"{name}.bin"
        path.write_bytes(data)
        written_paths.append(path)
    return written_paths


MAKERS["png"] = make_png


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--format", action="append", choices=sorted(MAKERS), help="only these formats"
    )
    parser.add_argument("--output", type=Path, default=SAMPLES, help="samples folder")
    args = parser.parse_args(argv)
    for fmt in args.format or sorted(MAKERS):
        for path in MAKERS[fmt](args.output):
            print(f"{path} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
