"""The ``wirespec`` Python data source: every input kind, one partition per file, streaming."""

from __future__ import annotations

import struct
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import functions as F
from spark_cases import CASES, SEED_ROW, normal, output_fields

from runtime.spark.decode import codec
from runtime.spark.source import detect_kind, split_frames

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.spark

PB = CASES["plainbuffer"][0]()
PB_ROWS = [normal(r) for _, v in PB for r in codec("plainbuffer").rows(None, v)]


def frames(*messages, keyed=False):
    out = b""
    for k, v in messages:
        if keyed:
            out += struct.pack(">I", 0xFFFFFFFF) if k is None else struct.pack(">I", len(k)) + k
        out += struct.pack(">I", len(v)) + v
    return out


def read(spark, path, fmt="plainbuffer", **options):
    reader = spark.read.format("wirespec").option("format", fmt)
    for k, v in options.items():
        reader = reader.option(k, v)
    return reader.load(str(path))


def decoded(df, fmt="plainbuffer"):
    """The decoded fields of every row, in file, position and event order (one job)."""
    names = codec(fmt).schema().names
    rows = df.select("_source_file", "_position", "_event_index", *names).collect()
    return [normal(tuple(r[3:])) for r in sorted(rows, key=lambda r: tuple(r[:3]))]


def test_kind_detection_and_framing(tmp_path):
    (tmp_path / "a.bin").write_bytes(SEED_ROW)
    (tmp_path / "b.ldr").write_bytes(frames(*PB))
    (tmp_path / "c.binlog").write_bytes(b"\xfebin" + bytes(20))
    pq.write_table(pa.table({"value": [SEED_ROW]}), tmp_path / "d.parquet")
    magics = (b"\xfebin",)  # MySQL's framed file (FRAMED_FILES: tests/test_framed_files.py)
    names = ("a.bin", "b.ldr", "c.binlog", "d.parquet")
    kinds = [detect_kind(str(tmp_path / n), magics=magics) for n in names]
    assert kinds == ["raw", "delimited", "binlog", "parquet"]
    records, tail = split_frames(frames(*PB)[:-2], keyed=False)
    assert len(records) == len(PB) - 1 and tail is not None


def test_a_file_the_spec_recognises_is_one_message_not_frames(tmp_path):
    # base offset 0, then batchLength: it tiles as two empty frames and the rest
    batch = (ROOT / "samples" / "kafka_record_batch" / "orders_batch.bin").read_bytes()
    assert split_frames(batch, keyed=False)[1] is None
    (tmp_path / "orders.bin").write_bytes(batch)
    recognise = codec("kafka_record_batch").module.detect_record
    assert detect_kind(str(tmp_path / "orders.bin")) == "delimited"
    assert detect_kind(str(tmp_path / "orders.bin"), recognise=recognise) == "raw"


def test_an_ambiguous_file_is_refused_until_inputkind_says(spark, tmp_path):
    # MessagePack documents framed by lengths decode whole too (a stream of values)
    docs = [
        (ROOT / "samples" / "msgpack" / n).read_bytes() for n in ("document.bin", "long_forms.bin")
    ]
    (tmp_path / "docs.bin").write_bytes(frames(*((None, d) for d in docs)))
    with pytest.raises(
        Exception, match="ambiguous input kind.*give option inputKind raw or delimited"
    ):
        read(spark, tmp_path, "msgpack").collect()

    def positions(kind):
        return sorted(
            {r._position for r in read(spark, tmp_path, "msgpack", inputKind=kind).collect()}
        )

    assert positions("raw") == [0]
    assert positions("delimited") == [0, 4 + len(docs[0])]


def collect_by_file(df, fmt="plainbuffer", *extra):
    """One Spark job (no shuffle): the rows, each with the partition that read it, sorted
    by file, position and event index here."""
    names = codec(fmt).schema().names
    cols = ["_source_file", "_position", "_event_index"]
    rows = df.select(F.spark_partition_id().alias("_part"), *cols, *extra, *names).collect()
    return sorted(rows, key=lambda r: (r._source_file, r._position, r._event_index))


def one_partition_per_file(rows, n_files):
    parts = {}
    for r in rows:
        parts.setdefault(r._source_file, set()).add(r._part)
    assert len(parts) == n_files and all(len(p) == 1 for p in parts.values())
    assert len(set.union(*parts.values())) == n_files  # and no two files share one


def test_reads_raw_delimited_and_parquet_files_one_partition_each(spark, tmp_path):
    n = len(codec("plainbuffer").schema().names)
    raw = tmp_path / "raw"
    raw.mkdir()
    for i, (_, v) in enumerate(PB):
        (raw / f"m{i}.bin").write_bytes(v)
    (raw / "_SUCCESS").write_bytes(b"")  # skipped, like Spark's own markers
    rows = collect_by_file(read(spark, raw))
    one_partition_per_file(rows, len(PB))
    assert [normal(tuple(r[-n:])) for r in rows] == PB_ROWS

    delim = tmp_path / "delim"
    delim.mkdir()
    (delim / "a.ldr").write_bytes(frames(*PB))
    (delim / "b.ldr").write_bytes(frames(*PB[:1]))
    rows = collect_by_file(read(spark, delim))
    one_partition_per_file(rows, 2)
    assert [normal(tuple(r[-n:])) for r in rows] == PB_ROWS + PB_ROWS[:1]
    firsts = [r._position for r in rows if r._event_index == 0]
    assert firsts[:2] == [0, 4 + len(PB[0][1])]

    kafka = tmp_path / "kafka"
    kafka.mkdir()
    for part in range(3):
        table = pa.table(
            {
                "key": pa.array([None] * len(PB), pa.binary()),
                "value": [v for _, v in PB],
                "topic": ["pb"] * len(PB),
                "partition": pa.array([part] * len(PB), pa.int32()),
                "offset": pa.array(range(len(PB)), pa.int64()),
            }
        )
        pq.write_table(table, kafka / f"part-{part}.parquet")
    df = read(spark, kafka)
    assert {"topic", "partition", "offset"} <= set(df.columns)
    rows = collect_by_file(df, "plainbuffer", "partition", "offset")
    one_partition_per_file(rows, 3)
    assert sorted(normal(tuple(r[-n:])) for r in rows) == sorted(PB_ROWS * 3)
    assert {r.partition for r in rows} == {0, 1, 2}
    assert all(r._position == r.offset for r in rows)  # the row number in its file


def test_keyed_format_reads_key_files_and_keyed_frames(spark, tmp_path):
    vectors = CASES["ticdc_open_protocol"][0]()
    want = [normal(r) for k, v in vectors for r in codec("ticdc_open_protocol").rows(k, v)]
    (tmp_path / "a.ldr").write_bytes(frames(*vectors, keyed=True))
    df = read(spark, tmp_path / "a.ldr", "ticdc_open_protocol", inputKind="delimited")
    assert decoded(df, "ticdc_open_protocol") == want
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "m.bin").write_bytes(vectors[0][1])
    (raw / "m.key").write_bytes(vectors[0][0])
    df = read(spark, raw, "ticdc_open_protocol")
    assert df.count() == len(codec("ticdc_open_protocol").rows(*vectors[0]))


def test_permissive_reports_file_and_position_of_bad_records(spark, tmp_path):
    good = frames(*PB)
    bad = frames((None, b"garbage!")) + frames(PB[0])[:-5]  # garbage, then a cut frame
    (tmp_path / "a.ldr").write_bytes(good + bad)
    df = read(spark, tmp_path / "a.ldr", mode="PERMISSIVE", inputKind="delimited")
    rows = collect_by_file(df, "plainbuffer", "_corrupt_record", "_error")  # one job
    corrupt = [r for r in rows if r._corrupt_record is not None]
    assert [(r._position, r._corrupt_record) for r in corrupt] == [
        (len(good), b"garbage!"),
        (len(good) + 12, frames(PB[0])[:-5]),
    ]
    assert "runs past the end" in corrupt[1]._error
    assert all(r._source_file.endswith("a.ldr") for r in corrupt)
    n = len(codec("plainbuffer").schema().names)
    assert [normal(tuple(r[-n:])) for r in rows if r._corrupt_record is None] == PB_ROWS
    assert all(r._error is None for r in rows if r._corrupt_record is None)
    with pytest.raises(Exception, match=rf"_source_file=.*a\.ldr _position={len(good)}"):
        read(spark, tmp_path / "a.ldr", inputKind="delimited").collect()


def test_stream_picks_up_new_files_resumes_from_checkpoint_and_drains(spark, tmp_path):
    src, out, chk = tmp_path / "in", tmp_path / "out", tmp_path / "chk"
    src.mkdir()
    for i in range(3):
        (src / f"{i:04d}.bin").write_bytes(SEED_ROW)  # one row each

    def run():
        stream = (
            spark.readStream.format("wirespec")
            .option("format", "plainbuffer")
            .option("maxFilesPerTrigger", 1)
            .load(str(src))
        )
        query = (
            stream.writeStream.format("parquet")
            .option("checkpointLocation", str(chk))
            .trigger(availableNow=True)
            .start(str(out))
        )
        query.awaitTermination()
        return [p["numInputRows"] for p in query.recentProgress if p["numInputRows"] > 0]

    assert run() == [1, 1, 1]  # availableNow drains all files, honouring one file per batch
    (src / "0003.bin").write_bytes(SEED_ROW)
    (src / "0004.bin").write_bytes(SEED_ROW)
    assert run() == [1, 1]  # resumed after the checkpointed offset: only the new files
    files = [
        r[0].rsplit("/", 1)[1]
        for r in spark.read.parquet(str(out)).select("_source_file").collect()
    ]
    assert sorted(files) == [f"{i:04d}.bin" for i in range(5)]  # each file exactly once


def test_binlog_file_one_partition_each_every_event_a_row(spark, tmp_path):
    """A real binlog (samples/): one partition per file; every event is a row, the tagged
    GTID events with their decoded body, the others with their raw body."""
    from spark_cases import SAMPLES

    from generated import mysql_serialization as ms

    data = (SAMPLES / "mysql_serialization" / "binlog.000001.binlog").read_bytes()
    parsed = ms.parse(data, "binlog_file")
    gtids = [e for e in parsed.events if e.type_code == ms.EventType.GTID_TAGGED_LOG_EVENT]
    assert len(gtids) >= 2 and len(parsed.events) > len(gtids)  # a realistic mix
    (tmp_path / "binlog.000001").write_bytes(data)
    (tmp_path / "binlog.000002").write_bytes(data)
    df = read(spark, tmp_path, "mysql_serialization")
    schema = codec("mysql_serialization", "binlog_file").schema()
    assert [f for f in df.schema.fields if f.name in schema.names] == output_fields(schema)
    rows = df.select(F.spark_partition_id().alias("_part"), "*").collect()  # one job
    rows.sort(key=lambda r: (r._source_file, r._position))
    one_partition_per_file(rows, 2)
    want = [normal(r) for r in ms.to_rows(parsed, "binlog_file")]
    assert len(rows) == 2 * len(parsed.events)
    assert [normal(tuple(r[n] for n in schema.names)) for r in rows] == want * 2
    # one record per event: its position is the event's byte offset in the file
    assert [(r._source_file.rsplit("/", 1)[1], r._position, r._event_index) for r in rows] == [
        (f"binlog.00000{f}", e.log_pos - e.event_size, 0) for f in (1, 2) for e in parsed.events
    ]
    tagged = [r for r in rows if r.body.gtid_tagged_log_event is not None]
    assert [r.type_code for r in tagged] == [42] * (2 * len(gtids))
    assert [r.body.gtid_tagged_log_event.gno for r in tagged] == [e.body.gno for e in gtids] * 2
    assert all(r.body.default is None for r in tagged)
    others = [r for r in rows if r.body.gtid_tagged_log_event is None]
    assert [r.body.default for r in others] == [
        e.body for e in parsed.events if e.type_code != 42
    ] * 2
    assert rows[-1].log_pos == len(data)


@pytest.mark.parametrize("mode", ["FAILFAST", "PERMISSIVE"])
def test_an_empty_record_is_one_row_and_limits_are_options(spark, tmp_path, mode):
    vectors = CASES["ticdc_open_protocol"][0]()
    empty = (struct.pack(">Q", 1), b"")  # the version header, then no events
    (tmp_path / "a.ldr").write_bytes(frames(vectors[0], empty, vectors[1], keyed=True))
    df = read(spark, tmp_path, "ticdc_open_protocol", mode=mode)
    rows = df.select("_position", "_event_index", "_op").collect()
    positions = sorted({r._position for r in rows})
    assert len(positions) == 3  # input records = distinct records of the output
    assert [(r._event_index, r._op) for r in rows if r._position == positions[1]] == [(None, None)]
    if mode == "PERMISSIVE":  # a limit as an option: every record is over it, none is lost
        df = read(spark, tmp_path, "ticdc_open_protocol", mode=mode, max_string="1")
        rows = df.select("_position", "_error").collect()
        errors = [r._error for r in sorted(rows)]
        assert "max_string=1" in errors[0] and "max_string=1" in errors[2]


@pytest.mark.parametrize(
    "options, message",
    [
        ({"mode": "LENIENT"}, "mode must be one of FAILFAST, PERMISSIVE, got 'LENIENT'"),
        ({"inputKind": "zip"}, "inputKind must be one of"),
        ({"max_count": "lots"}, "limit max_count must be a whole number"),
        ({"maxFilesPerTrigger": "0"}, "maxfilespertrigger must be a whole number >= 1"),
        ({"recrd": "message"}, r"unknown option\(s\) \['recrd'\]"),
    ],
)
def test_bad_options_are_refused_with_one_line(spark, tmp_path, options, message):
    (tmp_path / "a.bin").write_bytes(SEED_ROW)
    with pytest.raises(Exception, match=message):
        read(spark, tmp_path, **options).collect()


def stream_once(spark, src, out, chk, **options):
    """One ``Trigger.AvailableNow`` run over ``chk``: the files it read, in order."""
    reader = spark.readStream.format("wirespec").option("format", "plainbuffer")
    for k, v in options.items():
        reader = reader.option(k, v)
    query = (
        reader.load(str(src))
        .writeStream.format("parquet")
        .option("checkpointLocation", str(chk))
        .trigger(availableNow=True)
        .start(str(out))
    )
    query.awaitTermination()
    return [p["numInputRows"] for p in query.recentProgress if p["numInputRows"] > 0]


def test_stream_reads_late_files_with_earlier_names_exactly_once(spark, tmp_path):
    src, out, chk = tmp_path / "in", tmp_path / "out", tmp_path / "chk"
    src.mkdir()
    for name in ("b", "d"):
        (src / f"{name}.bin").write_bytes(SEED_ROW)
    assert stream_once(spark, src, out, chk) == [2]
    tmp = tmp_path / "staging.bin"  # written elsewhere, renamed in: arrives complete
    for name in ("a", "c", "e"):
        tmp.write_bytes(SEED_ROW)
        tmp.rename(src / f"{name}.bin")
    assert stream_once(spark, src, out, chk) == [3]
    assert stream_once(spark, src, out, chk) == []  # nothing new: nothing read again
    files = [r[0] for r in spark.read.parquet(str(out)).select("_source_file").collect()]
    assert sorted(f.rsplit("/", 1)[1] for f in files) == [f"{n}.bin" for n in "abcde"]


def test_stream_fails_on_a_file_changed_after_it_was_read(spark, tmp_path):
    src, out, chk = tmp_path / "in", tmp_path / "out", tmp_path / "chk"
    src.mkdir()
    (src / "a.bin").write_bytes(SEED_ROW)
    assert stream_once(spark, src, out, chk) == [1]
    with open(src / "a.bin", "ab") as f:  # appended after it was read
        f.write(SEED_ROW)
    with pytest.raises(Exception, match=r"a\.bin changed after it was read \(size"):
        stream_once(spark, src, out, chk)


def test_claim_check_objects_land_as_the_messages_they_carry(spark, tmp_path):
    import base64

    import generated.ticdc_open_protocol as op
    from runtime.spark.decode import decode

    vectors = CASES["ticdc_open_protocol"][0]()
    objects = [
        b'{"key":"%s","value":"%s"}' % (base64.b64encode(k), base64.b64encode(v))
        for k, v in vectors[:2]
    ]
    (tmp_path / "object.json").write_bytes(objects[0])
    rows = read(spark, tmp_path, "ticdc_open_protocol", record="claim_check").collect()
    carried = [op.parse_pair(*kv) for kv in vectors[:2]]
    assert [r._commit_ts for r in rows] == [e.commit_ts for e in carried[0].events]
    df = spark.createDataFrame([(o,) for o in objects], "value binary")
    decoded = decode(df, "ticdc_open_protocol", record="claim_check").collect()
    assert [r._commit_ts for r in decoded] == [e.commit_ts for m in carried for e in m.events]
