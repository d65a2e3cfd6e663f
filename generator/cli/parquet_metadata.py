"""Rows about Parquet files, read from their footers: one row per file, per row group and
per column chunk (the ``parquet_metadata`` input of ``wirespec ingest``; its Spark tasks
call :func:`footer_rows`).

A Parquet file is ``PAR1``, the column chunks, the Thrift Compact ``FileMetaData``, its
length as a little-endian u32, and ``PAR1`` again; ``generated/parquet.py`` (from
parquet-format's IDL) decodes the footer. Only the footer is read, so a file's data pages
are never decompressed.

    >>> import io, pyarrow as pa, pyarrow.parquet as pq
    >>> out = io.BytesIO(); pq.write_table(pa.table({"a": [1, 2, 3]}), out)
    >>> rows = metadata_rows("t.parquet", out.getvalue())
    >>> rows["files"][0]["num_rows"], rows["column_chunks"][0]["codec"]
    (3, 'SNAPPY')
"""

from __future__ import annotations

import struct

from generator.cli.target import load_codec
from runtime.core.errors import DecodeError

MAGIC = b"PAR1"
TAIL = 8
"""The footer's length (u32 little-endian) and the closing magic."""

TABLES = ("files", "row_groups", "column_chunks")

SCHEMAS = {
    "files": "file STRING NOT NULL, num_rows BIGINT, num_row_groups INT, num_columns INT, "
    "created_by STRING, version INT, footer_bytes INT, key_value_metadata MAP<STRING, STRING>",
    "row_groups": "file STRING NOT NULL, row_group INT NOT NULL, num_rows BIGINT, "
    "total_byte_size BIGINT, total_compressed_size BIGINT, file_offset BIGINT, ordinal INT",
    "column_chunks": "file STRING NOT NULL, row_group INT NOT NULL, column INT NOT NULL, "
    "path STRING, physical_type STRING, codec STRING, encodings ARRAY<STRING>, "
    "num_values BIGINT, total_compressed_size BIGINT, total_uncompressed_size BIGINT, "
    "data_page_offset BIGINT, dictionary_page_offset BIGINT, null_count BIGINT, "
    "distinct_count BIGINT, min_value BINARY, max_value BINARY, "
    "column_index_offset BIGINT, offset_index_offset BIGINT, bloom_filter_offset BIGINT",
}
"""The Spark DDL of each table (``StructType.fromDDL``)."""

GROUP_FIELDS = ("num_rows", "total_byte_size", "total_compressed_size", "file_offset", "ordinal")
"""The columns of a ``row_groups`` row that are the ``RowGroup``'s fields of that name."""
CHUNK_FIELDS = {
    "meta_data": (
        "num_values",
        "total_compressed_size",
        "total_uncompressed_size",
        "data_page_offset",
        "dictionary_page_offset",
        "bloom_filter_offset",
    ),
    "statistics": ("null_count", "distinct_count", "min_value", "max_value"),
    "chunk": ("column_index_offset", "offset_index_offset"),
}
"""The columns of a ``column_chunks`` row that are fields of that name, by the struct that
holds them (``ColumnChunk``, its ``ColumnMetaData`` and that one's ``Statistics``; null
when the struct is absent)."""


def footer(data: bytes) -> bytes:
    """The Thrift Compact bytes of a Parquet file's ``FileMetaData``."""
    if len(data) < len(MAGIC) + TAIL:
        raise DecodeError(f"{len(data)} bytes is too short for a Parquet file", offset=0)
    if data[:4] != MAGIC:
        raise DecodeError("a Parquet file starts with PAR1", offset=0, path="magic")
    if data[-4:] != MAGIC:
        raise DecodeError("a Parquet file ends with PAR1", offset=len(data) - 4, path="magic")
    (length,) = struct.unpack("<I", data[-TAIL:-4])
    start = len(data) - TAIL - length
    if start < len(MAGIC):
        raise DecodeError(
            f"footer length {length} is more than the file holds",
            offset=len(data) - TAIL,
            path="footer_length",
        )
    return data[start : len(data) - TAIL]


def _name(value) -> str | None:
    return None if value is None else getattr(value, "name", str(value))


def _chunk_row(chunk) -> dict:
    """The columns of one ``ColumnChunk`` after ``file``, ``row_group`` and ``column``."""
    md = chunk.meta_data
    holders = {"meta_data": md, "statistics": md and md.statistics, "chunk": chunk}
    return {
        "path": ".".join(md.path_in_schema) if md else None,
        "physical_type": _name(md.type) if md else None,
        "codec": _name(md.codec) if md else None,
        "encodings": [_name(e) for e in md.encodings] if md else None,
        **{
            name: getattr(holders[holder], name) if holders[holder] else None
            for holder, names in CHUNK_FIELDS.items()
            for name in names
        },
    }


def metadata_rows(file: str, data: bytes) -> dict[str, list[dict]]:
    """The rows of :data:`TABLES` for one file (``file`` names it in every row)."""
    raw = footer(data)
    try:
        meta = load_codec("parquet").parse(raw, "FileMetaData")
    except DecodeError as err:
        err.shift(len(data) - TAIL - len(raw))  # offsets in the file, not the footer
        raise
    files = [
        {
            "file": file,
            "num_rows": meta.num_rows,
            "num_row_groups": len(meta.row_groups),
            "num_columns": sum(1 for e in meta.schema if not e.num_children),
            "created_by": meta.created_by,
            "version": meta.version,
            "footer_bytes": len(raw),
            "key_value_metadata": {kv.key: kv.value for kv in meta.key_value_metadata or []},
        }
    ]
    groups, chunks = [], []
    for g, group in enumerate(meta.row_groups):
        fields = {n: getattr(group, n) for n in GROUP_FIELDS}
        groups.append({"file": file, "row_group": g, **fields})
        for c, chunk in enumerate(group.columns):
            chunks.append({"file": file, "row_group": g, "column": c, **_chunk_row(chunk)})
    return {"files": files, "row_groups": groups, "column_chunks": chunks}


def footer_rows(path: str) -> dict[str, list[dict]]:
    """:func:`metadata_rows` of one file, memory-mapped: only its head and footer pages are
    read."""
    import mmap
    import os

    with open(path, "rb") as f:
        if not os.fstat(f.fileno()).st_size:  # mmap cannot map an empty file
            return metadata_rows(path, b"")
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return metadata_rows(path, data)


def spark_schema(table: str):
    """The Spark ``StructType`` of one of :data:`TABLES`."""
    from pyspark.sql.types import StructType

    return StructType.fromDDL(SCHEMAS[table])
