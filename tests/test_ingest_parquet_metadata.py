"""``wirespec ingest parquet_metadata LAKE --output DIR``: a table per file, row group and
column chunk of the lake's Parquet files, equal to what pyarrow reads from them."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from generator.cli.main import main
from generator.cli.parquet_metadata import footer_rows


def write_lake(root):
    """Two files pyarrow writes (3 and 1 row groups), one that is not Parquet, and a
    Spark-style ``_SUCCESS`` marker (skipped)."""
    (root / "day=1").mkdir(parents=True)
    a = pa.table({"id": list(range(300)), "tag": [f"t{i % 4}" for i in range(300)]})
    pq.write_table(a, root / "day=1" / "a.parquet", row_group_size=100, compression="zstd")
    b = pa.table({"x": [1.5, None, 2.5], "s": ["p", "q", None], "n": [1, 2, 3]})
    pq.write_table(b.replace_schema_metadata({"team": "data"}), root / "b.parquet")
    (root / "broken.parquet").write_bytes(b"PAR1 not really PAR1")
    (root / "_SUCCESS").write_bytes(b"")
    return {"a": root / "day=1" / "a.parquet", "b": root / "b.parquet"}


def test_footer_rows_of_an_empty_file_is_a_decode_error(tmp_path):
    from runtime.core.errors import DecodeError

    (tmp_path / "empty.parquet").write_bytes(b"")
    with pytest.raises(DecodeError):
        footer_rows(str(tmp_path / "empty.parquet"))


def test_a_lake_without_parquet_files_is_one_line(tmp_path, capsys):
    (tmp_path / "lake").mkdir()
    (tmp_path / "lake" / "x.bin").write_bytes(b"x")
    args = ["ingest", "parquet_metadata", str(tmp_path / "lake"), "--output", str(tmp_path / "o")]
    assert main(args) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no .parquet files" in err


@pytest.mark.spark
def test_one_table_per_level_equal_to_pyarrow(spark, tmp_path):
    from generator.cli.ingest import ingest_parquet_metadata

    files = write_lake(tmp_path / "lake")
    out = tmp_path / "meta"
    summary = ingest_parquet_metadata([tmp_path / "lake"], out, spark=spark)
    assert (summary["files"], summary["corrupt"]) == (3, 1)
    read = {t: pq.read_table(out / "parquet_metadata" / t).to_pylist() for t in ("files",)}
    by_file = {r["file"]: r for r in read["files"]}
    assert set(by_file) == {str(p.resolve()) for p in files.values()}
    groups = pq.read_table(out / "parquet_metadata" / "row_groups").to_pylist()
    chunks = pq.read_table(out / "parquet_metadata" / "column_chunks").to_pylist()
    for path in files.values():
        meta = pq.ParquetFile(path).metadata
        name = str(path.resolve())
        row = by_file[name]
        assert (row["num_rows"], row["num_row_groups"], row["num_columns"]) == (
            meta.num_rows,
            meta.num_row_groups,
            meta.num_columns,
        )
        assert row["created_by"] == meta.created_by
        mine = sorted((g["row_group"], g["num_rows"]) for g in groups if g["file"] == name)
        assert mine == [(g, meta.row_group(g).num_rows) for g in range(meta.num_row_groups)]
        for chunk in (c for c in chunks if c["file"] == name):
            col = meta.row_group(chunk["row_group"]).column(chunk["column"])
            assert (chunk["path"], chunk["codec"], chunk["physical_type"]) == (
                col.path_in_schema,
                col.compression,
                col.physical_type,
            )
            assert chunk["total_compressed_size"] == col.total_compressed_size
            assert chunk["num_values"] == col.num_values
            assert chunk["null_count"] == col.statistics.null_count
    assert len(chunks) == 3 * 2 + 1 * 3
    assert dict(by_file[str(files["b"].resolve())]["key_value_metadata"])["team"] == "data"
    (bad,) = pq.read_table(out / "_corrupt" / "parquet_metadata").to_pylist()
    assert bad["file"].endswith("broken.parquet") and "footer length" in bad["_error"]
