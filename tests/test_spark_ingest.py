"""``wirespec ingest`` in-process on the shared session: Parquet tables, ``_corrupt/`` and a
summary whose counts add up (PERMISSIVE, a directory of good and bad records)."""

from __future__ import annotations

import shutil
import struct

import pytest
from spark_cases import SAMPLES

from generated import mysql_serialization as ms
from generator.ingest import ingest, log_config, print_summary

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
