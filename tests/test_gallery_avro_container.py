"""The gallery's Avro object container files (specs/avro_container.yaml) against fastavro,
the reference library, both ways: fastavro's files parse to what fastavro decodes and
rebuild byte for byte; files we build from the same values are fastavro's bytes (null and
snappy; deflate: see below) and fastavro reads them back."""

from __future__ import annotations

import io
from pathlib import Path

import fastavro
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import avro_container as av
from runtime.core.errors import DecodeError
from samples.make_samples import AVRO_SYNC, avro_file, avro_page_views
from tests.test_fastbuild import written

SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "avro_container"
CODECS = ("null", "deflate", "snappy")


def to_avro(view: av.PageView) -> dict:
    """Our model of one record as fastavro decodes it."""
    return {
        "id": view.id,
        "user": view.user,
        "score": view.score,
        "ratio": view.ratio,
        "active": view.active,
        "email": view.email if view.email_branch == av.Nullable.STRING else None,
        "tags": list(view.tags),
        "counters": {c.key: c.value for c in view.counters},
        "kind": view.kind.name,
        "digest": view.digest,
        "device": {"os": view.device.os, "version": view.device.version},
        "payload": view.payload,
    }


def from_avro(record: dict) -> av.PageView:
    """One fastavro record as our model (a new model: no kept block splits)."""
    return av.PageView(
        id=record["id"],
        user=record["user"],
        score=record["score"],
        ratio=record["ratio"],
        active=record["active"],
        email_branch=av.Nullable.NULL if record["email"] is None else av.Nullable.STRING,
        email=record["email"],
        tags=list(record["tags"]),
        counters=[av.Counter(k, v) for k, v in record["counters"].items()],
        kind=av.Kind[record["kind"]],
        digest=record["digest"],
        device=av.Device(**record["device"]),
        payload=record["payload"],
    )


def records_of(model) -> list[dict]:
    return [to_avro(view) for block in model.blocks for view in block.records.objects]


def fastavro_records(data: bytes) -> list[dict]:
    return list(fastavro.reader(io.BytesIO(data)))


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.bin")), ids=lambda p: p.name)
def test_samples_parse_as_fastavro_reads_them_and_rebuild(path):
    data = path.read_bytes()
    model = av.parse(data)
    assert av.detect_record(data) == "container_file"
    assert len(model.blocks) > 1
    assert records_of(model) == fastavro_records(data)
    assert av.build(model) == data
    assert written(av, model, "container_file") == data  # the fast writer, not construct
    assert av.build(av.from_dict(av.to_dict(model))) == data


strings = st.text(max_size=12)
longs = st.integers(-(2**63), 2**63 - 1)
page_views = st.fixed_dictionaries(
    {
        "id": longs,
        "user": strings,
        "score": st.floats(allow_nan=False),
        "ratio": st.floats(width=32, allow_nan=False),
        "active": st.booleans(),
        "email": st.none() | strings,
        "tags": st.lists(strings, max_size=4),
        "counters": st.dictionaries(strings, longs, max_size=3),
        "kind": st.sampled_from(["VIEW", "CLICK", "PURCHASE"]),
        "digest": st.binary(min_size=8, max_size=8),
        "device": st.fixed_dictionaries(
            {"os": strings, "version": st.integers(-(2**31), 2**31 - 1)}
        ),
        "payload": st.binary(max_size=20),
    }
)
files = st.tuples(st.lists(page_views, max_size=8), st.sampled_from(CODECS), st.integers(1, 4))


@settings(max_examples=300, deadline=None)
@given(files)
def test_fastavro_files_parse_and_rebuild(file):
    records, codec, per_block = file
    data = avro_file(records, codec, per_block)
    model = av.parse(data)
    assert records_of(model) == fastavro_records(data)
    assert av.build(model) == data
    assert written(av, model, "container_file") == data  # the fast writer, not construct


@settings(max_examples=300, deadline=None)
@given(files)
def test_our_files_are_fastavros(file):
    records, codec, per_block = file
    reference = avro_file(records, codec, per_block)
    header = av.parse(reference)  # the metadata values fastavro writes (schema JSON, codec)
    blocks = [
        av.DataBlock(
            records=av.BlockRecords(objects=[from_avro(r) for r in records[i : i + per_block]]),
            sync=AVRO_SYNC,
        )
        for i in range(0, len(records), per_block)
    ]
    model = av.ContainerFile(meta=header.meta, sync=AVRO_SYNC, blocks=blocks)
    ours = av.build(model)
    assert written(av, model, "container_file") == ours == av.build_construct(model)
    assert fastavro_records(ours) == fastavro_records(reference)
    if codec != "deflate":
        assert ours == reference
    # fastavro's deflate blocks are zlib.compress(...)[2:-1]: the raw stream and 3 stray
    # bytes of the Adler-32; ours is the raw stream alone, as Java's Deflater(nowrap)
    # writes it. Either reads in both libraries.


def test_sync_marker_and_codec_are_checked():
    data = (SAMPLES / "page_views_snappy.bin").read_bytes()
    sync_at = data.rindex(AVRO_SYNC)
    broken = data[:sync_at] + bytes(16)
    with pytest.raises(DecodeError, match="sync == _parent.sync"):
        av.parse(broken)
    crc_broken = bytearray(data)
    crc_broken[sync_at - 1] ^= 1  # the last byte of the last block's CRC-32
    with pytest.raises(DecodeError, match="CRC-32 mismatch") as info:
        av.parse(bytes(crc_broken))
    assert "records" in info.value.path


def test_unknown_codec_is_a_decode_error():
    data = avro_file(avro_page_views(3), "null", 3).replace(b"\x08null", b"\x08zstd", 1)
    with pytest.raises(DecodeError, match="no codec for b'zstd'"):
        av.parse(data)


def test_decompression_is_bounded():
    data = avro_file([dict(avro_page_views(1)[0], payload=bytes(100_000))], "deflate", 1)
    with pytest.raises(DecodeError, match="max_decompressed_bytes=50000"):
        av.parse(data, max_decompressed_bytes=50_000)


def test_rows_one_per_record_with_the_block_and_file_columns():
    """One Spark row per record (``spark: {row: blocks.records.objects}``), the block's
    count and sync marker and the file's metadata and sync marker joined; a file of no
    records gives no row."""
    for path in sorted(SAMPLES.glob("*.bin")):
        data = path.read_bytes()
        model = av.parse(data)
        names = [f.name for f in av.spark_schema().fields]
        rows = [dict(zip(names, row)) for row in av.to_rows(model)]
        assert len(rows) == len(fastavro_records(data)) == sum(b.count for b in model.blocks)
        assert [(r["id"], r["user"]) for r in rows] == [
            (r["id"], r["user"]) for r in fastavro_records(data)
        ]
        assert {r["blocks_sync"] for r in rows} == {r["sync"] for r in rows} == {model.sync}
        assert "records_wire" not in names and "objects" not in names
    assert list(av.to_rows(av.parse(avro_file([], "null", 1)))) == []


@pytest.mark.spark
def test_ingest_lands_one_row_per_record_and_the_counts_add_up(spark, tmp_path):
    from generator.cli.ingest import ingest

    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    records = 0
    for path in sorted(SAMPLES.glob("*.bin")):
        (src / path.name).write_bytes(path.read_bytes())
        records += len(fastavro_records(path.read_bytes()))
    cut = (SAMPLES / "page_views_deflate.bin").read_bytes()[:-20]
    (src / "cut.avro").write_bytes(cut)  # its last block cut short: one corrupt record
    summary = ingest("avro_container", [src], out, mode="PERMISSIVE", spark=spark)
    files = len(list(SAMPLES.glob("*.bin"))) + 1
    assert (summary["files"], summary["records"], summary["corrupt"]) == (files, files, 1)
    assert summary["events"] == records
    rows = spark.read.parquet(str(out / "avro_container")).collect()
    assert len(rows) == records
    by_file = {}
    for row in rows:
        by_file[row._source_file.rsplit("/", 1)[1]] = (
            by_file.get(row._source_file.rsplit("/", 1)[1], 0) + 1
        )
    assert by_file == {p.name: len(fastavro_records(p.read_bytes())) for p in SAMPLES.glob("*.bin")}
