"""The streaming reader's offsets, driven by hand (no JVM): arrival order, the remembered
window, changed files, and offsets of the earlier name-ordered reader."""

from __future__ import annotations

import time

import pytest
from spark_cases import SEED_ROW

from runtime.spark.source import ChangedFileError, WirespecStreamReader


def stream_reader(src, **options):
    return WirespecStreamReader({"format": "plainbuffer", "path": str(src), **options}, None)


def names(reader, start, end):
    return [p.name for p in reader.partitions(start, end)]


def test_files_are_read_once_by_arrival_and_forgotten_after_the_window(tmp_path):
    (tmp_path / "b.bin").write_bytes(SEED_ROW)
    reader = stream_reader(tmp_path, rememberSeconds="1")
    start = reader.initialOffset()
    first = reader.latestOffset(start)
    assert names(reader, start, first) == ["b.bin"]
    (tmp_path / "a.bin").write_bytes(SEED_ROW)  # an earlier name, arriving later
    second = reader.latestOffset(first)
    assert names(reader, first, second) == ["a.bin"]
    assert reader.latestOffset(second) == second  # nothing new
    time.sleep(1.2)
    (tmp_path / "c.bin").write_bytes(SEED_ROW)
    third = reader.latestOffset(second)
    assert names(reader, second, third) == ["c.bin"]
    assert [p.rsplit("/", 1)[1] for p in third["files"]] == ["c.bin"]  # a, b forgotten
    assert reader.latestOffset(third) == third  # and not read again


def test_a_changed_file_fails_while_remembered(tmp_path):
    (tmp_path / "a.bin").write_bytes(SEED_ROW)
    reader = stream_reader(tmp_path)
    first = reader.latestOffset(reader.initialOffset())
    with open(tmp_path / "a.bin", "ab") as f:
        f.write(b"more")
    with pytest.raises(ChangedFileError, match=r"a\.bin changed after it was read"):
        reader.latestOffset(first)


def test_an_offset_of_the_name_ordered_reader_resumes(tmp_path):
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.bin").write_bytes(SEED_ROW)
    reader = stream_reader(tmp_path)
    old = {"file": "b.bin"}
    assert names(reader, old, reader.latestOffset(old)) == ["c.bin"]
