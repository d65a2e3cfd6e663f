"""A ``logical:`` time gives a ``<name>_ts`` TimestampType column beside its number without
``spark: {type:}``, whatever its integer type (``u64`` was DecimalType alone, ``s64`` LongType
alone): ``unix_millis`` as ``timestamp_ms``, ``unix_micros`` and ``postgres_micros`` as
``timestamp_us``, ``unix_nanos`` as ``timestamp_ns``. A number no LongType holds is null, a
time outside years 1-9999 is null: the row is still there. The compiled Arrow writer of
such columns (a derived one too): Kafka's record timestamps, tests/test_spark_decode.py."""

from __future__ import annotations

import datetime

import pytest

from generator.emit.user_spec import import_spec

SPEC = """\
format: clocks
title: Times of every integer type
doc: Milliseconds as a u64 and an s64, microseconds as a u32.
endian: be
default_record: clock
records:
  clock:
    doc: One reading of the clocks.
    fields:
      - {name: wide, type: u64, logical: unix_millis, doc: "Milliseconds, unsigned."}
      - {name: signed, type: s64, logical: unix_millis, doc: "Milliseconds, signed."}
      - {name: micros, type: u32, logical: unix_micros, doc: "Microseconds."}
      - {name: plain, type: u64, logical: unix_millis, spark: {type: timestamp_ms},
         doc: "As written before: the same columns."}
"""
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


@pytest.fixture(scope="module")
def clocks(tmp_path_factory):
    path = tmp_path_factory.mktemp("specs") / "clocks.yaml"
    path.write_text(SPEC)
    return import_spec(path)


def test_a_time_has_a_timestamp_column_by_default(clocks):
    pytest.importorskip("pyspark")
    fields = [(f.name, type(f.dataType).__name__) for f in clocks.spark_schema().fields]
    assert fields == [
        ("wide", "LongType"),
        ("wide_ts", "TimestampType"),
        ("signed", "LongType"),
        ("signed_ts", "TimestampType"),
        ("micros", "LongType"),
        ("micros_ts", "TimestampType"),
        ("plain", "LongType"),
        ("plain_ts", "TimestampType"),
    ]


MILLIS = 1_700_000_000_000


@pytest.mark.parametrize(
    "wide, signed, want",
    [
        (MILLIS, -1000, (MILLIS, EPOCH + datetime.timedelta(milliseconds=MILLIS))),
        (2**63, 2**63 - 1, (None, None)),  # past LongType: null, the row stays
        (2**64 - 1, -(2**63), (None, None)),
        (300_000_000_000_000, 0, (300_000_000_000_000, None)),  # after year 9999
    ],
)
def test_numbers_and_times_past_their_columns_are_null(clocks, wide, signed, want):
    data = wide.to_bytes(8, "big") + signed.to_bytes(8, "big", signed=True) + bytes(12)
    model = clocks.parse(data)
    assert clocks.build(model) == data
    [row] = list(clocks.to_rows(model))
    assert row[:2] == want
    assert row[2] == signed and row[4:6] == (0, EPOCH)
    fits = abs(signed) < 10**14
    assert row[3] == (EPOCH + datetime.timedelta(milliseconds=signed) if fits else None)
