"""``wirespec ingest`` in-process on the shared session: Parquet tables, ``_corrupt/`` and a
summary whose counts add up (PERMISSIVE, a directory of good and bad records)."""

from __future__ import annotations

import shutil
import struct

import pytest
from spark_cases import SAMPLES

from generated import mysql_serialization as ms
from generator.ingest import QUIET_LOG4J2, ingest, print_summary

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

    n_events = len(ms.parse(binlog.read_bytes(), "binlog_file").events)
    # records: 3 + 1 single-event files, 5 frames, 2 binlog files
    records = len(events) + 1 + (len(good) + 2) + 2
    corrupt = 3  # bad CRC, garbage frame, cut binlog
    assert summary["files"] == len(events) + 4
    assert (summary["records"], summary["corrupt"]) == (records, corrupt)
    assert summary["events"] == (len(events) + len(good) + 1) + n_events
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
    assert len(binlog_rows) == n_events
    assert {r._source_file.rsplit("/", 1)[1] for r in binlog_rows} == {"binlog.000001"}
    assert sum(r.type_code == 42 for r in binlog_rows) == 2

    assert len(bad) == summary["corrupt"]
    assert all(
        set(r.asDict()) == {"_corrupt_record", "_error", "_source_file", "_position"} for r in bad
    )
    by_file = {(r._source_file.rsplit("/", 1)[1], r._position): r for r in bad}
    garbage_at = len(frames(*good))
    assert sorted(by_file) == [
        ("bad_crc.bin", 0),
        ("batch.ldr", garbage_at),
        ("binlog.000002", 0),
    ]
    assert by_file[("bad_crc.bin", 0)]._corrupt_record == bad_crc
    assert "crc32" in by_file[("bad_crc.bin", 0)]._error
    assert by_file[("batch.ldr", garbage_at)]._corrupt_record == b"\x00garbage"
    assert by_file[("binlog.000002", 0)]._error.count("offset") >= 1

    # the summary table prints the same counts
    from rich.console import Console

    console = Console(record=True, width=200)
    print_summary([summary], console=console)
    text = console.export_text()
    assert f"{FMT} " in text and f" {records} " in text and f" {corrupt} " in text
    assert str(out / "_corrupt" / FMT) in text


def test_quiet_spark_logging_config():
    assert "rootLogger.level = error" in QUIET_LOG4J2
