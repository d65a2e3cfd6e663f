"""``wirespec ingest`` in-process on the shared session: Parquet tables, ``_corrupt/`` and a
summary whose counts add up (PERMISSIVE, a directory of good and bad records)."""

from __future__ import annotations

import json
import shutil
import struct

import pytest
from pyspark.sql import functions as F
from spark_cases import SAMPLES, craft_encode

from generated import mysql_serialization as ms
from generated.models.ticdc_types import Column, ResolvedEvent, RowChangedEvent
from generator.cli.ingest import MARKER, IngestError, ingest, log_config, print_summary

pytestmark = pytest.mark.spark

FMT = "mysql_serialization"


def frames(*values):
    return b"".join(struct.pack(">I", len(v)) + v for v in values)


def test_ingest_directory_with_good_and_corrupt_records(spark, tmp_path):
    src, out = tmp_path / "in", tmp_path / "out"
    (src / "2025").mkdir(parents=True)
    events = sorted((SAMPLES / FMT).glob("*.bin"))
    binlog = SAMPLES / FMT / "binlog.000001.binlog"
    for p in events:
        shutil.copy(p, src / p.name)
    shutil.copy(binlog, src / "2025" / "binlog.000001")
    first = events[0].read_bytes()
    bad_crc = first[:-1] + bytes([first[-1] ^ 0xFF])
    (src / "bad_crc.bin").write_bytes(bad_crc)
    (src / "2025" / "binlog.000002").write_bytes(binlog.read_bytes()[:-7])  # cut short
    good = [p.read_bytes() for p in events]
    (src / "batch.ldr").write_bytes(frames(*good, b"\x00garbage", *good[:1]))

    summary = ingest(FMT, [src], out, mode="PERMISSIVE", spark=spark)

    parsed = ms.parse(binlog.read_bytes(), "binlog_file")
    n_events = len(parsed.events)
    last_event_at = parsed.events[-1].log_pos - parsed.events[-1].event_size  # the cut one
    # records: 3 + 1 single-event files, 5 frames, the events of 2 binlog files
    records = len(events) + 1 + (len(good) + 2) + 2 * n_events
    corrupt = 3  # bad CRC, garbage frame, the cut binlog's last event
    assert summary["files"] == len(events) + 4
    assert (summary["records"], summary["corrupt"]) == (records, corrupt)
    assert summary["events"] == (len(events) + len(good) + 1) + 2 * n_events - 1
    tables = {p.split(str(out) + "/", 1)[1] for p in summary["tables"]}
    assert tables == {
        FMT,
        f"{FMT}.binlog_file",
        f"_corrupt/{FMT}",
        f"_corrupt/{FMT}.binlog_file",
    }

    # one Spark read per table; the assertions run on the collected rows
    rows = spark.read.parquet(str(out / FMT)).collect()
    binlog_rows = spark.read.parquet(str(out / f"{FMT}.binlog_file")).collect()
    bad = spark.read.parquet(str(out / "_corrupt" / FMT)).collect()
    bad += spark.read.parquet(str(out / "_corrupt" / f"{FMT}.binlog_file")).collect()

    assert len(rows) + len(binlog_rows) == summary["events"]
    assert "_corrupt_record" not in rows[0].asDict() and "_error" not in rows[0].asDict()
    want_gno = sorted(ms.parse(v).body.gno for v in good + good + good[:1])
    assert sorted(r.gno for r in rows) == want_gno
    # every event of a binlog file is a row (the cut one is corrupt), one record each
    assert len(binlog_rows) == 2 * n_events - 1
    by_name = {}
    for r in binlog_rows:
        by_name.setdefault(r._source_file.rsplit("/", 1)[1], []).append(r)
    assert {k: len(v) for k, v in by_name.items()} == {
        "binlog.000001": n_events,
        "binlog.000002": n_events - 1,
    }
    assert sorted(r._position for r in by_name["binlog.000001"]) == [
        e.log_pos - e.event_size for e in parsed.events
    ]
    assert sum(r.type_code == 42 for r in by_name["binlog.000001"]) == 2

    assert len(bad) == summary["corrupt"]
    assert all(
        set(r.asDict()) == {"_corrupt_record", "_error", "_source_file", "_position"} for r in bad
    )
    by_file = {(r._source_file.rsplit("/", 1)[1], r._position): r for r in bad}
    garbage_at = len(frames(*good))
    assert sorted(by_file) == [
        ("bad_crc.bin", 0),
        ("batch.ldr", garbage_at),
        ("binlog.000002", last_event_at),
    ]
    assert by_file[("bad_crc.bin", 0)]._corrupt_record == bad_crc
    assert "crc32" in by_file[("bad_crc.bin", 0)]._error
    assert by_file[("batch.ldr", garbage_at)]._corrupt_record == b"\x00garbage"
    cut = by_file[("binlog.000002", last_event_at)]
    assert cut._error.startswith(f"event at offset {last_event_at}: event_size")
    assert cut._corrupt_record == binlog.read_bytes()[last_event_at:-7]

    # the summary table prints the same counts
    from rich.console import Console

    console = Console(record=True, width=200)
    print_summary([summary], console=console)
    text = console.export_text()
    assert f"{FMT} " in text and f" {records} " in text and f" {corrupt} " in text
    assert str(out / "_corrupt" / FMT) in text


def test_spark_logging_config():
    assert "rootLogger.level = error" in log_config("error").read_text()


# -- upstream names never become paths ------------------------------------------------------


def hostile_names(tmp_path):
    """(schema, table) pairs whose names would climb out of, or collide in, a naive
    ``DIR/<format>/<schema>/<table>`` layout (built here, never written literally)."""
    up = "/".join([".."] * 4)
    victim = tmp_path / "victim"  # an absolute path: its planted file must survive
    return [
        (up, up + "/x"),
        ("shop", str(victim)),
        ("a.b", "c"),
        ("a", "b.c"),
        ("", ""),
        ("s" * 300, "\u00e9" * 150),  # 300 bytes each: over the 255-byte name limit
        ("\u5546\u5e97", "\u8ba2\u5355"),
    ]


def files_outside(root, *skip):
    return sorted(
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and not any(s in p.parents for s in skip)
    )


def test_ingest_keeps_hostile_table_names_inside_output_and_apart(spark, tmp_path):
    names = hostile_names(tmp_path)
    (tmp_path / "victim").mkdir()
    (tmp_path / "victim" / "keep.txt").write_text("planted")
    (tmp_path / "beside.txt").write_text("planted")
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    events = [
        RowChangedEvent(100 + i, schema, table, new=[Column("id", 8, 0x0A, row)])
        for i, (schema, table) in enumerate(names)
        for row in range(i + 1)  # table i has i + 1 rows
    ] + [ResolvedEvent(1000)]
    for i, message in enumerate(craft_encode(events, max_batch_size=4)):
        (src / f"m{i:03}.bin").write_bytes(message)
    before = files_outside(tmp_path, src, out)

    summary = ingest("ticdc_craft", [src], out, mode="PERMISSIVE", spark=spark)

    assert files_outside(tmp_path, src, out) == before  # nothing written or deleted outside
    assert (tmp_path / "victim" / "keep.txt").read_text() == "planted"
    assert summary["events"] == len(events)
    assert summary["corrupt"] == 0
    listed = json.loads((out / "ticdc_craft" / "_tables.json").read_text(encoding="utf-8"))
    names = [(s or None, t or None) for s, t in names]  # Craft carries an empty name as null
    assert sorted(((t["schema"], t["table"]) for t in listed), key=repr) == sorted(names, key=repr)
    folders = [t["path"] for t in listed]
    assert len(set(folders)) == len(names)
    paths = {}
    for t in listed:
        path = out / "ticdc_craft" / t["path"]
        assert path.resolve().parent == (out / "ticdc_craft" / "tables").resolve()
        assert len(path.name.encode()) < 255
        paths[str(path.resolve())] = (t["schema"], t["table"])
    # one read of every table (one job): each row knows its table's folder
    rows = (
        spark.read.parquet(*paths)
        .select("id", "_schema", "_table", F.input_file_name().alias("file"))
        .collect()
    )
    by_folder = {}
    for r in rows:
        folder = next(p for p in paths if f"/tables/{p.rsplit('/', 1)[1]}/" in r.file)
        by_folder.setdefault(folder, []).append(r)
    for folder, (schema, table) in paths.items():
        i = names.index((schema, table))
        assert sorted(r.id for r in by_folder[folder]) == list(range(i + 1))
        assert {(r._schema, r._table) for r in by_folder[folder]} == {names[i]}


def test_ingest_refuses_a_foreign_output_unless_asked(spark, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "theirs.txt").write_text("theirs")
    src = SAMPLES / "plainbuffer"
    with pytest.raises(IngestError, match="--overwrite"):
        ingest("plainbuffer", [src], out, spark=spark)
    summary = ingest("plainbuffer", [src], out, spark=spark, overwrite=True)
    assert summary["corrupt"] == 0 and (out / "theirs.txt").read_text() == "theirs"
    assert (out / MARKER).exists()
    (out / "plainbuffer" / "stale.parquet").write_bytes(b"")  # an earlier run's leftover
    again = ingest("plainbuffer", [src], out, spark=spark)  # a re-run: the marker is there
    assert (
        again["events"] == summary["events"]
        and not (out / "plainbuffer" / "stale.parquet").exists()
    )
    assert (out / "theirs.txt").read_text() == "theirs"


# -- binlog files: event by event, the limits per event ---------------------------------------


def binlog_bytes(copies: int, query_bytes: int = 0) -> tuple[bytes, int]:
    """A binlog of the sample's events ``copies`` times, made with the generated builder,
    each QUERY_EVENT padded to ``query_bytes``; and its event count."""
    model = ms.parse((SAMPLES / FMT / "binlog.000001.binlog").read_bytes(), "binlog_file")
    for event in model.events:
        if event.type_code == 2 and len(event.body) < query_bytes:
            event.event_size += query_bytes - len(event.body)
            event.body += b" " * (query_bytes - len(event.body))
    model.events = model.events * copies
    return ms.build(model, "binlog_file"), len(model.events)


def read_binlog(spark, path, **options):
    reader = spark.read.format("wirespec").option("format", FMT).option("mode", "PERMISSIVE")
    for k, v in options.items():
        reader = reader.option(k, v)
    df = reader.load(str(path))
    return df.select("_position", "type_code", "_error").collect()


def test_binlog_limits_hold_each_event_not_the_file(spark, tmp_path):
    data, n = binlog_bytes(43, query_bytes=500)  # 301 events, 2 of every 7 padded
    path = tmp_path / "binlog.000001"
    path.write_bytes(data)
    rows = read_binlog(spark, path, max_count="100", max_message_bytes=str(len(data) // 10))
    assert len(rows) == n and not any(r._error for r in rows)
    assert len({r._position for r in rows}) == n  # one record per event

    rows = read_binlog(spark, path, max_message_bytes="300")  # the padded events are over
    bad = [r for r in rows if r._error]
    assert len(rows) == n and len(bad) == 2 * 43
    assert all(r.type_code is None and "max_message_bytes=300" in r._error for r in bad)
    assert all(r._error.startswith(f"event at offset {r._position}:") for r in bad)
    with pytest.raises(Exception, match="max_count"):
        read_binlog(spark, path, max_count="lots")


def test_binlog_over_the_default_limits_lands_one_row_per_event(spark, tmp_path):
    # 70 events of 1 MiB (over the default max_message_bytes of 64 MiB as a file)
    data, n = binlog_bytes(35, query_bytes=1 << 20)
    assert len(data) > 64 << 20
    src = tmp_path / "in"
    src.mkdir()
    (src / "binlog.000001").write_bytes(data)
    del data
    rows = read_binlog(spark, src)
    assert len(rows) == n and not any(r._error for r in rows)
    summary = ingest(FMT, [src], tmp_path / "out", spark=spark)
    assert (summary["records"], summary["events"], summary["corrupt"]) == (n, n, 0)


def test_failfast_ends_with_the_first_bad_records_error_in_one_line(
    spark, tmp_path, capsys, monkeypatch
):
    import generator.cli.ingest
    from generator.cli.main import main

    monkeypatch.setattr(generator.cli.ingest, "session", lambda master, log_path=None: spark)

    src = tmp_path / "in"
    src.mkdir()
    good = (SAMPLES / FMT / "gtid_tagged_local.bin").read_bytes()
    (src / "a.bin").write_bytes(good)
    (src / "b.bin").write_bytes(good[:-1] + bytes([good[-1] ^ 0xFF]))
    args = [FMT, str(src), "--output", str(tmp_path / "out"), "--mode", "FAILFAST"]
    status = main(["ingest", *args])
    err = capsys.readouterr().err
    assert status == 1
    assert "Traceback" not in err and "at org.apache" not in err
    last = err.strip().splitlines()[-1]  # after the progress lines
    assert last.startswith("wirespec ingest: cannot decode mysql_serialization record")
    assert "b.bin" in last and "crc32" in last and "_ingest.log" in last


def test_a_record_of_no_events_is_counted_and_listed_in_empty(spark, tmp_path):
    from spark_cases import CASES

    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    good = CASES["ticdc_open_protocol"][0]()[0]
    empty = (struct.pack(">Q", 1), b"")  # the version header, then no events
    framed = b""
    for key, value in (good, empty, good):
        framed += frames(key) + frames(value)
    (src / "batch.ldr").write_bytes(framed)

    summary = ingest("ticdc_open_protocol", [src], out, mode="PERMISSIVE", spark=spark)

    assert (summary["records"], summary["corrupt"], summary["empty"]) == (3, 0, 1)
    listed = spark.read.parquet(str(out / "_empty" / "ticdc_open_protocol")).collect()
    assert len(listed) == 1 and listed[0]._source_file.endswith("batch.ldr")
    events = spark.read.parquet(str(out / "ticdc_open_protocol" / "_events"))
    assert events.where(F.col("_event_index").isNull()).count() == 0
    assert events.count() == summary["events"]
