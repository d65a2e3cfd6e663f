"""specs/pgoutput.yaml against the messages PostgreSQL 15's pgoutput plugin wrote
(samples/pgoutput/, made by samples/pgoutput_capture.py; nothing here needs PostgreSQL).

Every sample parses and rebuilds byte for byte in every tier; the values read are what
the SQL of the capture inserted (samples/_pgoutput/expected.json); a transaction's
Begin and Commit agree; the stream blocks of protocol 2 carry one xid; every truncation and
a few corruptions are a DecodeError with its offset and field path, the same from the fast
path and construct; the JSON form reads back to the same bytes.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import generated.pgoutput as pg
from runtime.core.errors import DecodeError, EncodeError
from tests.test_compiled import agree as compiled_agree
from tests.test_quicktier import agree as quick_agree

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples" / "pgoutput"
MESSAGES = sorted(SAMPLES.glob("*.bin"))
STREAMED = sorted((ROOT / "samples" / "_pgoutput" / "streamed").glob("*.bin"))
FRAMES = sorted((ROOT / "samples" / "_pgoutput" / "walsender").glob("*.bin"))
EVERY = (
    [(p, "message") for p in MESSAGES]
    + [(p, "streamed_message") for p in STREAMED]
    + [(p, "replication_frame") for p in FRAMES]
)
EXPECTED = json.loads((ROOT / "samples" / "_pgoutput" / "expected.json").read_text())
T = pg.MessageType
ORDERS_COLUMNS = ["id", "customer", "amount", "placed_at", "state", "payload", "notes"]
INT4, TEXT, NUMERIC, TIMESTAMPTZ, BYTEA, JSONB = 23, 25, 1700, 1184, 17, 3802


def message(name: str):
    return pg.parse((SAMPLES / name).read_bytes())


def messages(kind: T, run: str = "text") -> list:
    """The bodies of the ``run`` capture's messages of one type, in order."""
    out = [pg.parse(p.read_bytes()) for p in MESSAGES if f"_{run}_" in p.name]
    return [m.body for m in out if m.type == kind]


def values(tuple_data) -> list:
    """A TupleData's values: the text (or bytes), None for NULL, ... for unchanged TOAST."""
    kinds = pg.ColumnKind
    return [
        None if c.kind == kinds.NULL else ... if c.kind == kinds.UNCHANGED_TOAST else c.value
        for c in tuple_data.columns
    ]


@pytest.mark.parametrize("path, record", EVERY, ids=lambda v: getattr(v, "name", v))
def test_every_sample_parses_and_rebuilds_in_every_tier(path, record):
    data = path.read_bytes()
    model = pg.parse(data, record)
    assert pg.build(model, record) == data
    assert pg.to_dict(pg.parse_construct(data, record)) == pg.to_dict(model)
    assert pg.build(pg.from_dict(pg.to_dict(model), record), record) == data
    assert quick_agree(pg, data, record) or record not in pg.QUICK_READERS
    if pg.COMPILED_READERS:
        assert compiled_agree(pg, data, record)
    assert len(list(pg.to_rows(model, record))) == 1


def test_the_samples_cover_every_protocol_1_message_and_column_kind():
    types = {pg.parse(p.read_bytes()).type for p in MESSAGES}
    assert types >= {T.BEGIN, T.COMMIT, T.ORIGIN, T.RELATION, T.TYPE, T.INSERT, T.UPDATE}
    assert types >= {T.DELETE, T.TRUNCATE, T.MESSAGE, T.STREAM_START, T.STREAM_STOP}
    assert T.STREAM_COMMIT in types
    assert types >= {T.BEGIN_PREPARE, T.PREPARE, T.ROLLBACK_PREPARED, T.STREAM_PREPARE}
    assert T.COMMIT_PREPARED in types and T.STREAM_ABORT in types
    kinds = {
        column.kind
        for kind in (T.INSERT, T.UPDATE)
        for run in ("text", "binary")
        for body in messages(kind, run)
        for column in body.new_tuple.columns
    }
    assert kinds == set(pg.ColumnKind)


def test_the_inserted_rows_read_as_the_sql_wrote_them():
    first, second = (values(i.new_tuple) for i in messages(T.INSERT)[:2])
    assert first == [EXPECTED["orders_1001"][c] for c in ORDERS_COLUMNS]
    assert second == [EXPECTED["orders_1002"][c] for c in ORDERS_COLUMNS]


def test_the_binary_option_sends_each_types_send_format():
    row = messages(T.INSERT, "binary")[0].new_tuple.columns
    assert all(c.kind == pg.ColumnKind.BINARY for c in row)
    assert struct.unpack(">i", row[0].value) == (1001,)
    assert row[1].value == b"Ada Lovelace" and row[4].value == b"calm"
    assert row[5].value == bytes.fromhex("deadbeef")
    # numeric 42.50: 2 base-10000 digits, weight 0, sign +, dscale 2: 42, 5000
    assert struct.unpack(">hhHH2h", row[2].value) == (2, 0, 0, 2, 42, 5000)
    # timestamptz: microseconds since 2000-01-01, as the commit timestamps
    (micros,) = struct.unpack(">q", row[3].value)
    assert pg.to_dict(pg.Begin(final_lsn=0, commit_time=micros, xid=0))["commit_time_time"] == (
        "2024-11-22T10:15:00.123456Z"
    )


def test_the_relation_names_its_columns_types_and_key():
    orders = messages(T.RELATION)[0]
    (mood,) = messages(T.TYPE)
    assert (orders.namespace, orders.name, orders.replica_identity) == (
        "public",
        "orders",
        pg.ReplicaIdentity.DEFAULT,
    )
    assert [c.name for c in orders.columns] == ORDERS_COLUMNS
    numeric_10_2 = (10 << 16 | 2) + 4  # atttypmod: precision << 16 | scale, plus VARHDRSZ
    assert [(c.type_id, c.type_modifier) for c in orders.columns] == [
        (INT4, -1), (TEXT, -1), (NUMERIC, numeric_10_2), (TIMESTAMPTZ, -1),
        (mood.type_id, -1), (BYTEA, -1), (TEXT, -1),
    ]  # fmt: skip
    assert [c.flags for c in orders.columns] == [pg.ColumnFlag.KEY] + [0] * 6
    assert (mood.namespace, mood.name) == ("public", "mood")
    audit = next(r for r in messages(T.RELATION) if r.name == "audit")
    assert audit.replica_identity == pg.ReplicaIdentity.FULL
    assert [(c.name, c.type_id) for c in audit.columns][2] == ("detail", JSONB)


def test_updates_carry_unchanged_toast_and_old_images_as_the_replica_identity_says():
    amount, new_key, audit = messages(T.UPDATE)
    assert values(amount.new_tuple)[2] == "43.00" and values(amount.new_tuple)[6] is ...
    assert amount.old_key is None and amount.old_tuple is None
    assert values(new_key.old_key) == ["1002"] + [None] * 6  # 'K': the old key only
    assert values(new_key.new_tuple)[0] == "1003"
    assert audit.old_key is None and values(audit.old_tuple)[1] == "ops"  # 'O': FULL
    assert values(audit.new_tuple)[1] == "admin"


def test_deletes_carry_the_old_row_or_key():
    audit, orders = messages(T.DELETE)
    assert audit.old_kind == pg.OldImage.ROW and values(audit.old_tuple)[:2] == ["7", "admin"]
    assert orders.old_kind == pg.OldImage.KEY
    assert values(orders.old_tuple) == ["1003"] + [None] * 6


def test_truncate_messages_and_origin():
    (truncate,) = messages(T.TRUNCATE)
    flags = pg.TruncateOption
    assert truncate.options == flags.CASCADE | flags.RESTART_IDENTITY
    assert truncate.relation_count == len(truncate.relation_ids) == 2
    inside, heartbeat = messages(T.MESSAGE)
    assert (inside.flags, inside.prefix, inside.content.decode()) == (
        pg.MessageFlag.TRANSACTIONAL,
        EXPECTED["message_transactional"]["prefix"],
        EXPECTED["message_transactional"]["content"],
    )
    assert (heartbeat.flags, heartbeat.prefix, heartbeat.content.hex()) == (
        0,
        EXPECTED["message_heartbeat"]["prefix"],
        EXPECTED["message_heartbeat"]["content_hex"],
    )
    (origin,) = messages(T.ORIGIN)
    assert (origin.name, origin.origin_lsn) == (
        EXPECTED["origin"]["name"],
        EXPECTED["origin"]["lsn"],
    )
    # a replayed transaction commits at the origin's commit time
    last_commit = pg.to_dict(pg.Message(type=T.COMMIT, body=messages(T.COMMIT)[-1]))
    assert last_commit["body"]["commit_time_time"] == EXPECTED["origin_commit_time"][:-1] + (
        ".000000Z"
    )


def test_a_spark_row_has_each_commit_time_as_a_timestamp():
    commit = message("041_text_commit.bin")
    (row,) = pg.to_rows(commit)
    names = [f.name for f in pg.spark_schema()["body"].dataType["commit"].dataType.fields]
    columns = dict(zip(names, row[1][1]))
    assert columns["commit_time"] == commit.body.commit_time
    assert columns["commit_time_ts"].isoformat() == "2024-11-22T12:00:00+00:00"
    begin = pg.Message(type=T.BEGIN, body=pg.Begin(final_lsn=1, commit_time=2**63 - 1, xid=7))
    (row,) = pg.to_rows(begin)
    assert row[1][0][2:4] == (2**63 - 1, None)  # past year 9999: no timestamp, the number kept


def test_an_lsn_reads_as_postgresql_writes_it_beside_its_number():
    commit = message("041_text_commit.bin")
    shown = pg.to_dict(commit)["body"]
    lsn = commit.body.commit_lsn
    assert shown["commit_lsn"] == lsn
    assert shown["commit_lsn_text"] == f"{lsn >> 32:X}/{lsn & 0xFFFFFFFF:X}" == "0/" + (f"{lsn:X}")
    assert (
        pg.build(pg.from_dict(pg.to_dict(commit))) == (SAMPLES / "041_text_commit.bin").read_bytes()
    )
    begin = pg.Begin(final_lsn=0x1_0000_0028, commit_time=0, xid=7)
    assert pg.to_dict(begin)["final_lsn_text"] == "1/28"
    (row,) = pg.to_rows(pg.Message(type=T.BEGIN, body=begin))
    assert row[1][0][:2] == (0x1_0000_0028, "1/28")
    names = [f.name for f in pg.spark_schema()["body"].dataType["begin"].dataType.fields]
    assert names[:2] == ["final_lsn", "final_lsn_text"]
    # the number is what is built: a text that disagrees with it is refused, not ignored
    shown = pg.to_dict(begin)
    pg.from_dict({**shown, "final_lsn_text": "1/28"}, "begin")
    with pytest.raises(EncodeError, match="final_lsn_text"):
        pg.from_dict({**shown, "final_lsn_text": "0/28"}, "begin")
    frame = pg.parse(FRAMES[0].read_bytes(), "replication_frame")
    assert pg.to_dict(frame)["body"]["wal_end_text"].startswith("0/")


def test_a_rolled_back_subtransaction_of_a_streamed_transaction_is_a_stream_abort():
    (abort,) = messages(T.STREAM_ABORT, "v2abort")
    (commit,) = messages(T.STREAM_COMMIT, "v2abort")
    assert abort.xid == commit.xid != abort.subxid  # the subtransaction's changes undone
    assert abort.abort_lsn is None and abort.abort_time is None  # protocol 4 (16+) only
    streamed = [
        pg.parse(p.read_bytes(), "streamed_message") for p in STREAMED if "_v2abort_" in p.name
    ]
    # a streamed change carries its (sub)transaction's xid: the first block the top's, the
    # last the subtransaction the savepoint began again after ROLLBACK TO (a newer xid)
    assert streamed[0].xid == abort.xid < abort.subxid < streamed[-1].xid


def test_protocol_3_prepares_streams_and_finishes_two_phase_transactions():
    (begin,) = messages(T.BEGIN_PREPARE, "v3")
    (prepare,) = messages(T.PREPARE, "v3")
    (rollback,) = messages(T.ROLLBACK_PREPARED, "v3")
    assert begin.gid == prepare.gid == rollback.gid == "wirespec_small"
    assert begin.xid == prepare.xid == rollback.xid
    assert (prepare.prepare_lsn, prepare.end_lsn) == (begin.prepare_lsn, begin.end_lsn)
    assert rollback.prepare_end_lsn == prepare.end_lsn
    (stream_prepare,) = messages(T.STREAM_PREPARE, "v3")
    (committed,) = messages(T.COMMIT_PREPARED, "v3")
    assert stream_prepare.gid == committed.gid == "wirespec_big"
    starts = messages(T.STREAM_START, "v3")
    assert {s.xid for s in starts} == {stream_prepare.xid, committed.xid}
    streamed = [pg.parse(p.read_bytes(), "streamed_message") for p in STREAMED if "_v3_" in p.name]
    assert {m.xid for m in streamed} == {stream_prepare.xid}
    inserted = [values(m.body.new_tuple) for m in streamed if m.type == pg.StreamedType.INSERT]
    assert inserted[:2] == [["prep-1", "1"], ["prep-2", "2"]]
    shown = pg.to_dict(pg.Message(type=T.STREAM_PREPARE, body=stream_prepare))["body"]
    lsn = stream_prepare.prepare_lsn
    assert shown["prepare_lsn_text"] == f"{lsn >> 32:X}/{lsn & 0xFFFFFFFF:X}"


def test_begin_and_commit_of_each_transaction_agree():
    begins, commits = messages(T.BEGIN), messages(T.COMMIT)
    assert len(begins) == len(commits) > 5
    for begin, commit in zip(begins, commits):
        assert begin.final_lsn == commit.commit_lsn < commit.end_lsn
        assert begin.commit_time == commit.commit_time
    assert len({b.xid for b in begins}) == len(begins)


def test_a_streamed_transaction_carries_its_xid_in_every_block():
    starts = messages(T.STREAM_START, "v2")
    (commit,) = messages(T.STREAM_COMMIT, "v2")
    assert [s.first_segment for s in starts] == [1, 0]
    assert {s.xid for s in starts} == {commit.xid}
    streamed = [pg.parse(p.read_bytes(), "streamed_message") for p in STREAMED if "_v2_" in p.name]
    assert {m.xid for m in streamed} == {commit.xid}
    relation = streamed[0].body
    assert streamed[0].type == pg.StreamedType.RELATION and relation.name == "stock"
    inserted = [values(m.body.new_tuple) for m in streamed if m.type == pg.StreamedType.INSERT]
    assert inserted == [["bulk-1", "1"], ["bulk-2", "2"]]


def test_a_walsender_sends_each_message_in_an_xlog_data_frame_between_keepalives():
    frames = [pg.parse(p.read_bytes(), "replication_frame") for p in FRAMES]
    kinds = pg.FrameKind
    assert frames[0].kind == kinds.KEEPALIVE and frames[0].body.reply_requested == 0
    data = [f.body for f in frames[1:]]
    assert all(f.kind == kinds.XLOG_DATA for f in frames[1:])
    assert [d.message.type for d in data] == [T.BEGIN, T.RELATION, T.INSERT, T.COMMIT]
    begin, relation, insert, commit = (d.message.body for d in data)
    assert values(insert.new_tuple) == ["sku-w", "12"] and relation.name == "stock"
    # the transaction's changes start where the keepalive's WAL ended; the Commit's frame
    # starts at the end of the commit record; a Relation sent ahead has no position
    assert data[0].wal_start == data[2].wal_start == frames[0].body.wal_end
    assert data[1].wal_start == 0 and data[3].wal_start == commit.end_lsn
    assert begin.final_lsn == commit.commit_lsn
    assert data[0].send_time <= data[3].send_time  # the server's clock, in order


def _same_error(data: bytes, record: str) -> DecodeError:
    with pytest.raises(DecodeError) as fast:
        pg.parse(data, record)
    with pytest.raises(DecodeError) as slow:
        pg.parse_construct(data, record)
    assert (fast.value.offset, fast.value.path, str(fast.value)) == (
        slow.value.offset,
        slow.value.path,
        str(slow.value),
    )
    assert fast.value.offset is not None
    return fast.value


@pytest.mark.parametrize("path, record", EVERY, ids=lambda v: getattr(v, "name", v))
def test_every_truncation_is_a_decode_error_with_offset_and_path(path, record):
    data = path.read_bytes()
    step = max(1, len(data) // 97)  # the long TOASTed inserts: about a hundred cuts
    for cut in range(0, len(data), step):
        err = _same_error(data[:cut], record)
        assert err.offset <= cut
        if cut:
            assert err.path


def test_bad_bytes_name_the_field():
    insert = (SAMPLES / "003_text_insert.bin").read_bytes()
    err = _same_error(b"Z" + insert[1:], "message")
    assert (err.path, err.offset) == ("type", 0) and "MessageType" in str(err)
    err = _same_error(insert[:5] + b"X" + insert[6:], "message")
    assert err.offset == 5 and err.path.startswith("body.new_tuple")
    err = _same_error(insert[:8] + b"x" + insert[9:], "message")  # column kind 'x'
    assert (err.path, err.offset) == ("body.new_tuple.columns[0].kind", 8)
    err = _same_error(insert + b"\x00", "message")
    assert err.offset == len(insert)


def test_a_delete_needs_its_old_image():
    delete = (SAMPLES / "023_text_delete.bin").read_bytes()
    assert delete[5:6] == b"K"
    err = _same_error(delete[:5] + b"N" + delete[6:], "message")
    assert (err.path, err.offset) == ("body.old_kind", 5) and "OldImage" in str(err)


def test_a_huge_length_is_refused_before_it_is_read():
    data = b"M\x00" + bytes(8) + b"p\x00" + b"\xff\xff\xff\xf0" + b"abc"
    err = _same_error(data, "message")
    assert err.path == "body.content" and err.offset == 12


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_drawn_models_build_parse_and_agree_on_both_paths(data):
    """The module's own strategies: what build writes parses back to it, on the fast path
    as on construct, for both records."""
    record = data.draw(st.sampled_from(["message", "streamed_message"]))
    built = pg.build(data.draw(pg.strategies(record)), record)
    parsed = pg.parse(built, record)
    assert pg.to_dict(parsed) == pg.to_dict(pg.parse_construct(built, record))
    assert pg.build(parsed, record) == built


@pytest.mark.spark
def test_spark_reads_the_samples_one_row_a_message_and_the_streamed_changes(spark):
    from runtime.spark import decode

    frame = spark.read.format("wirespec").option("format", "pgoutput").load(str(SAMPLES))
    rows = frame.collect()
    assert len(rows) == len(MESSAGES)
    commits = sorted(
        (r for r in rows if r["type"] == "COMMIT"), key=lambda r: r["body"]["commit"]["commit_lsn"]
    )
    assert commits[-1]["body"]["commit"]["commit_time_ts"].isoformat() == "2024-11-22T12:00:00"
    last = commits[-1]["body"]["commit"]
    lsn = int(last["commit_lsn"])
    assert last["commit_lsn_text"] == f"{lsn >> 32:X}/{lsn & 0xFFFFFFFF:X}"
    values = spark.createDataFrame([(p.read_bytes(),) for p in STREAMED], "value binary")
    changes = decode(values, "pgoutput", record="streamed_message").collect()
    assert [c["type"] for c in changes] == [
        pg.StreamedType(pg.parse(p.read_bytes(), "streamed_message").type).name for p in STREAMED
    ]
