"""``spark: {row: readings}`` (one step) joins the record's other columns into each row, as a
dotted path joins each record it steps through: a station's ``id`` and ``name`` in every
reading's row (it gave the reading's columns only). A column name the element has too gets
the record's name as its prefix (``station_id``). The Spark reading of such a record:
tests/test_spark_decode.py."""

from __future__ import annotations

import pytest

from generator.emit.user_spec import import_spec

SPEC = """\
format: stations
title: Stations and their readings
doc: A station's id and name, then its readings to the end.
endian: be
default_record: station
records:
  station:
    doc: One station.
    spark: {row: readings}
    fields:
      - {name: magic, type: u8, const: 0x53, doc: "S (a constant: no column)."}
      - {name: id, type: u16, doc: "The station's id."}
      - {name: name, type: str, size: u8, doc: "Its name."}
      - {name: readings, type: reading, repeat: eos, doc: "Its readings."}
  reading:
    doc: One reading.
    fields:
      - {name: id, type: u8, doc: "The reading's id."}
      - {name: value, type: s16, doc: "The value."}
"""
DATA = bytes.fromhex("53 0007 03") + b"abc" + bytes.fromhex("01 0005 02 fffe")


@pytest.fixture(scope="module")
def stations(tmp_path_factory):
    path = tmp_path_factory.mktemp("specs") / "stations.yaml"
    path.write_text(SPEC)
    return import_spec(path)


def test_each_row_has_the_enclosing_records_columns(stations):
    pytest.importorskip("pyspark")
    names = [f.name for f in stations.spark_schema().fields]
    assert names == ["id", "value", "station_id", "name"]
    assert list(stations.to_rows(stations.parse(DATA))) == [(1, 5, 7, "abc"), (2, -2, 7, "abc")]


def test_a_record_with_no_other_columns_keeps_the_elements_rows(tmp_path):
    """Its other fields constants (no column): the rows are the elements' as they were."""
    path = tmp_path / "stations.yaml"
    spec = SPEC.replace("name: id, type: u16", "name: id, type: u16, const: 7")
    spec = spec.replace('      - {name: name, type: str, size: u8, doc: "Its name."}\n', "")
    path.write_text(spec)
    module = import_spec(path)
    assert module._SPARK_ROWS == {"station": ("readings", "reading")}
    data = bytes.fromhex("53 0007 01 0005")
    assert list(module.to_rows(module.parse(data))) == [(1, 5)]


@pytest.mark.parametrize("fmt", ["kafka_record_batch", "avro_container"])
def test_a_row_path_is_many_rows_to_from_wirespec(fmt):
    """``from_wirespec`` returns an array (to explode) for a record of a row path, as for a
    one-step row: it was one struct, the first row of each message."""
    pytest.importorskip("pyspark")
    from runtime.spark.decode import codec

    assert not codec(fmt).one_row
