"""generator.cli.parquet_metadata: one row per file, row group and column chunk, equal to what
pyarrow reads; a file that is not Parquet is a DecodeError with an offset."""

from __future__ import annotations

import io

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from generator.cli.parquet_metadata import SCHEMAS, TABLES, footer, metadata_rows
from runtime.core.errors import DecodeError


@pytest.fixture(scope="module")
def written():
    table = pa.table({"id": list(range(300)), "tag": [f"t{i % 4}" for i in range(300)]})
    table = table.replace_schema_metadata({"team": "data"})
    out = io.BytesIO()
    pq.write_table(table, out, row_group_size=100, compression="zstd", write_page_index=True)
    return out.getvalue()


def test_rows_per_file_row_group_and_column_chunk(written):
    rows = metadata_rows("a.parquet", written)
    meta = pq.ParquetFile(io.BytesIO(written)).metadata
    assert set(rows) == set(TABLES) == set(SCHEMAS)
    (file_row,) = rows["files"]
    assert (file_row["num_rows"], file_row["num_row_groups"], file_row["num_columns"]) == (
        300,
        3,
        2,
    )
    assert file_row["key_value_metadata"]["team"] == "data"
    assert [g["num_rows"] for g in rows["row_groups"]] == [100, 100, 100]
    assert len(rows["column_chunks"]) == 3 * 2
    for chunk in rows["column_chunks"]:
        col = meta.row_group(chunk["row_group"]).column(chunk["column"])
        assert chunk["path"] == col.path_in_schema and chunk["codec"] == col.compression
        assert tuple(chunk["encodings"]) == col.encodings
        assert chunk["null_count"] == col.statistics.null_count
        assert chunk["offset_index_offset"] is not None
    assert all(r["file"] == "a.parquet" for t in TABLES for r in rows[t])


@pytest.mark.parametrize(
    "mangle, offset",
    [
        (lambda d: d[:5], 0),
        (lambda d: b"PAR0" + d[4:], 0),
        (lambda d: d[:-1] + b"2", None),
        (lambda d: d[:-8] + b"\xff\xff\xff\x7f" + d[-4:], None),
    ],
)
def test_not_parquet_is_a_decode_error(written, mangle, offset):
    bad = mangle(written)
    with pytest.raises(DecodeError) as err:
        metadata_rows("bad.parquet", bad)
    assert err.value.offset == (offset if offset is not None else err.value.offset)
    assert err.value.offset is not None and 0 <= err.value.offset <= len(bad)


def test_a_broken_footer_names_its_offset_in_the_file(written):
    raw = footer(written)
    start = len(written) - 8 - len(raw)
    broken = written[:start] + b"\x0f" * len(raw) + written[-8:]
    with pytest.raises(DecodeError) as err:
        metadata_rows("bad.parquet", broken)
    assert start <= err.value.offset < len(written) - 8


@pytest.mark.spark
def test_rows_fit_their_spark_schemas(spark, written):
    from generator.cli.parquet_metadata import spark_schema

    rows = metadata_rows("a.parquet", written)
    for table in TABLES:
        schema = spark_schema(table)
        frame = spark.createDataFrame(
            [tuple(r[f.name] for f in schema.fields) for r in rows[table]], schema
        )
        assert frame.count() == len(rows[table])
