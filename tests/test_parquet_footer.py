"""The Parquet showcase: ``generated/parquet.py`` (from parquet-format's parquet.thrift via
import-thrift) decodes the footers of files pyarrow writes to what pyarrow reads from them,
and rebuilds them byte for byte."""

from __future__ import annotations

import io
import struct

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from generated import parquet as spec

N = 500


def _table():
    ids = pa.array(range(N), pa.int64())
    names = pa.array([None if i % 7 == 0 else f"name-{i % 13}" for i in range(N)])
    scores = pa.array([i / 3 for i in range(N)], pa.float64())
    tags = pa.array([[f"t{i % 3}"] * (i % 4) if i % 5 else None for i in range(N)])
    point = pa.array(
        [{"x": i, "y": None if i % 2 else -i} for i in range(N)],
        pa.struct([("x", pa.int32()), ("y", pa.int32())]),
    )
    attrs = pa.array(
        [[("k", i)] if i % 3 else [] for i in range(N)], pa.map_(pa.string(), pa.int16())
    )
    flags = pa.array([i % 3 == 0 for i in range(N)])
    return pa.table(
        {
            "id": ids,
            "name": names,
            "score": scores,
            "tags": tags,
            "point": point,
            "attrs": attrs,
            "flag": flags,
        }
    )


WRITES = {
    "snappy": {"compression": "snappy"},
    "zstd_page_index": {"compression": "zstd", "write_page_index": True, "row_group_size": 120},
    "per_column_codecs": {
        "compression": {
            "id": "gzip",
            "name": "zstd",
            "score": "none",
            "tags": "snappy",
            "point.x": "gzip",
            "point.y": "none",
            "attrs.key_value.key": "snappy",
            "attrs.key_value.value": "zstd",
            "flag": "none",
        },
        "use_dictionary": ["name"],
        "write_page_index": True,
        "row_group_size": 200,
        "data_page_size": 256,
    },
    "no_statistics_v1": {
        "compression": "none",
        "write_statistics": False,
        "data_page_version": "1.0",
        "row_group_size": N,
    },
}


@pytest.fixture(scope="module", params=sorted(WRITES))
def written(request):
    out = io.BytesIO()
    table = _table().replace_schema_metadata({"origin": "wirespec test", "rows": str(N)})
    pq.write_table(table, out, **WRITES[request.param])
    data = out.getvalue()
    assert data[-4:] == b"PAR1"
    (length,) = struct.unpack("<I", data[-8:-4])
    footer = data[-8 - length : -8]
    return data, footer, pq.ParquetFile(io.BytesIO(data)).metadata


def test_footer_rebuilds_byte_for_byte(written):
    _, footer, _ = written
    assert spec.build(spec.parse(footer)) == footer
    assert spec.DEFAULT_RECORD == "FileMetaData"


def _stat_bytes(value, physical: str) -> bytes:
    if physical == "INT64":
        return struct.pack("<q", value)
    if physical == "INT32":
        return struct.pack("<i", value)
    if physical == "DOUBLE":
        return struct.pack("<d", value)
    if physical == "BOOLEAN":
        return bytes([value])
    return value.encode() if isinstance(value, str) else value


def test_footer_decodes_to_what_pyarrow_reads(written):
    _, footer, meta = written
    fm = spec.parse(footer)
    assert (fm.num_rows, fm.version) == (meta.num_rows, int(meta.format_version.split(".")[0]))
    assert fm.created_by == meta.created_by
    kv = {e.key.encode(): e.value.encode() for e in fm.key_value_metadata}
    assert kv == meta.metadata
    leaves = [e for e in fm.schema if e.num_children is None]
    assert [e.name for e in leaves] == [meta.schema.column(i).name for i in range(meta.num_columns)]
    assert len(fm.row_groups) == meta.num_row_groups > 0
    for r, group in enumerate(fm.row_groups):
        ours = meta.row_group(r)
        assert (group.num_rows, group.total_byte_size) == (ours.num_rows, ours.total_byte_size)
        assert len(group.columns) == ours.num_columns
        for c, chunk in enumerate(group.columns):
            col, md = ours.column(c), chunk.meta_data
            assert ".".join(md.path_in_schema) == col.path_in_schema
            assert md.type.name == col.physical_type
            assert md.codec.name == col.compression
            assert tuple(e.name for e in md.encodings) == col.encodings
            assert (md.num_values, md.data_page_offset) == (col.num_values, col.data_page_offset)
            assert md.dictionary_page_offset == (
                col.dictionary_page_offset if col.has_dictionary_page else None
            )
            assert md.total_compressed_size == col.total_compressed_size
            assert md.total_uncompressed_size == col.total_uncompressed_size
            assert (chunk.column_index_offset is not None) == col.has_column_index
            assert (chunk.offset_index_offset is not None) == col.has_offset_index
            stats = col.statistics
            assert (md.statistics is not None) == col.is_stats_set
            if stats is not None and stats.has_min_max:
                assert md.statistics.null_count == stats.null_count
                assert md.statistics.min_value == _stat_bytes(stats.min, col.physical_type)
                assert md.statistics.max_value == _stat_bytes(stats.max, col.physical_type)


def test_page_indexes_decode_and_rebuild(written):
    data, footer, meta = written
    fm = spec.parse(footer)
    seen = 0
    for group in fm.row_groups:
        for chunk in group.columns:
            if chunk.offset_index_offset is None:
                continue
            start = chunk.offset_index_offset
            raw = data[start : start + chunk.offset_index_length]
            index = spec.parse(raw, "OffsetIndex")
            assert spec.build(index) == raw
            first = chunk.meta_data.dictionary_page_offset or chunk.meta_data.data_page_offset
            pages = index.page_locations
            assert pages and pages[0].offset >= first and pages[0].first_row_index == 0
            start = chunk.column_index_offset
            raw = data[start : start + chunk.column_index_length]
            column_index = spec.parse(raw, "ColumnIndex")
            assert spec.build(column_index) == raw
            assert len(column_index.null_pages) == len(pages)
            seen += 1
    expected = sum(
        meta.row_group(r).column(c).has_offset_index
        for r in range(meta.num_row_groups)
        for c in range(meta.num_columns)
    )
    assert seen == expected


def test_footer_json_form_round_trips(written):
    _, footer, _ = written
    fm = spec.parse(footer)
    doc = spec.to_dict(fm)
    assert doc["row_groups"][0]["columns"][0]["meta_data"]["codec"] in (
        "SNAPPY", "ZSTD", "GZIP", "UNCOMPRESSED"
    )  # fmt: skip
    assert spec.build(spec.from_dict(doc)) == footer


def test_an_empty_struct_is_a_presence_flag_in_spark():
    # parquet's StringType has no fields, and Parquet cannot store a struct without any: in
    # Spark it is true when present, null when absent
    from pyspark.sql.types import BooleanType

    logical = {f.name: f.dataType for f in spec.spark_schema("LogicalType").fields}
    assert logical["STRING"] == BooleanType()
    (values,) = spec.to_rows(spec.LogicalType(STRING=spec.StringType()), "LogicalType")
    row = dict(zip(logical, values))
    assert row["STRING"] is True and row["MAP"] is None
