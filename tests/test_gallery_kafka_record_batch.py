"""specs/kafka_record_batch.yaml against kafka-python, both ways.

kafka-python's ``DefaultRecordBatchBuilder`` writes the bytes and ``DefaultRecordBatch``
reads them (its pure-Python record code, the reference the spec was written against):
its bytes parse to its values here, rebuild byte for byte, our build of the same values
is its bytes, and it reads our bytes. Also: the CRC-32C is verified (the error names the
field and both values) on both paths, every truncation is our DecodeError, a log segment
file decodes through the CLI, one Spark row per record with its absolute offset, and the
chain Kafka segment -> TiCDC Craft messages -> change rows.
"""

from __future__ import annotations

import json
from pathlib import Path

import cramjam
import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st
from kafka.record.default_records import DefaultRecordBatch, DefaultRecordBatchBuilder

import generated.kafka_record_batch as kafka
import generated.ticdc_craft as craft
from generator.cli.main import main as cli_main
from runtime.core.errors import DecodeError, LimitError
from samples.make_samples import kafka_batch

SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "kafka_record_batch"
SAMPLE_FILES = sorted(SAMPLES.glob("*.bin"))


def batches_of(data: bytes) -> list[DefaultRecordBatch]:
    """kafka-python's batches of a segment (its MemoryRecords walks them the same way)."""
    out, pos = [], 0
    while pos < len(data):
        size = 12 + int.from_bytes(data[pos + 8 : pos + 12], "big")
        out.append(DefaultRecordBatch(data[pos : pos + size]))
        pos += size
    return out


def kafka_view(data: bytes) -> list[dict]:
    """What kafka-python decodes of ``data``: every batch's header and records."""
    view = []
    for batch in batches_of(data):
        assert batch.validate_crc()
        head = {
            "base_offset": batch.base_offset,
            "attributes": batch.attributes,
            "compression": batch.compression_type,
            "transactional": batch.is_transactional,
            "control": batch.is_control_batch,
            "producer": (batch.producer_id, batch.producer_epoch, batch.base_sequence),
            "last_offset_delta": batch.last_offset_delta,
            "timestamps": (batch.first_timestamp, batch.max_timestamp),
            "leader_epoch": batch.leader_epoch,
            "crc": batch.crc,
            "records_count": batch.records_count,
        }
        head["records"] = [  # decompressed by kafka-python's codecs when compressed
            (r.offset, r.timestamp, r.key, r.value, [(k, v) for k, v in r.headers]) for r in batch
        ]
        view.append(head)
    return view


def our_view(model) -> list[dict]:
    """The same facts from our model (the derived offset and timestamp included)."""
    view = []
    for rb in model.batches:
        b = rb.batch
        head = {
            "base_offset": rb.base_offset,
            "attributes": b.attributes,
            "compression": b.compression,
            "transactional": b.is_transactional,
            "control": b.is_control,
            "producer": (b.producer_id, b.producer_epoch, b.base_sequence),
            "last_offset_delta": b.last_offset_delta,
            "timestamps": (b.base_timestamp, b.max_timestamp),
            "leader_epoch": b.partition_leader_epoch,
            "crc": b.crc,
            "records_count": b.records_count,
        }
        head["records"] = [
            (r.offset, r.timestamp, r.key, r.value, [(h.key, h.value) for h in r.headers])
            for r in b.records
        ]
        view.append(head)
    return view


def test_samples_exist():
    names = {p.stem for p in SAMPLE_FILES}
    assert {"orders_batch", "control_commit_batch", "segment_00000000000000000000"} <= names
    assert {"gzip_batch", "snappy_batch", "lz4_batch", "zstd_batch"} <= names


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.stem)
def test_sample_matches_kafka_python_and_rebuilds(path):
    data = path.read_bytes()
    model = kafka.parse(data)
    assert our_view(model) == kafka_view(data)
    assert kafka.parse_construct(data) == model
    assert kafka.build(model) == data
    assert kafka.build_construct(model) == data
    text = json.dumps(kafka.to_dict(model))
    assert kafka.build(kafka.from_dict(json.loads(text))) == data


def test_control_batch_and_transaction_bits():
    model = kafka.parse((SAMPLES / "control_commit_batch.bin").read_bytes(), "record_batch")
    assert model.batch.is_control and model.batch.is_transactional
    assert model.batch.records[0].key == bytes.fromhex("00000001")  # version 0, COMMIT
    assert model.base_offset + model.batch.records[0].offset_delta == 6


def expected_error(parse, data):
    with pytest.raises(DecodeError) as info:
        parse(data)
    return str(info.value), info.value.path, info.value.offset


def test_crc_mismatch_names_the_field_and_both_values():
    data = bytearray((SAMPLES / "orders_batch.bin").read_bytes())
    data[70] ^= 0x01  # inside the first record's key: the CRC no longer holds
    fast = expected_error(kafka.parse, bytes(data))
    assert fast == expected_error(kafka.parse_construct, bytes(data))
    message, path, offset = fast
    assert path == "batches[0].batch.crc" and offset == 17
    stored = kafka.parse((SAMPLES / "orders_batch.bin").read_bytes()).batches[0].batch.crc
    assert f"stored 0x{stored:08x}" in message and "computed 0x" in message


@pytest.mark.parametrize(
    "name", ["orders_batch", "control_commit_batch", "gzip_batch", "snappy_batch", "zstd_batch"]
)
def test_every_truncation_is_a_decode_error_on_both_paths(name):
    data = (SAMPLES / f"{name}.bin").read_bytes()
    for cut in range(1, len(data)):
        assert expected_error(kafka.parse, data[:cut]) == expected_error(
            kafka.parse_construct, data[:cut]
        ), cut


@pytest.mark.parametrize("name", ["gzip", "snappy", "lz4", "zstd"])
def test_corrupt_compressed_records_are_the_same_decode_error_on_both_paths(name):
    data = (SAMPLES / f"{name}_batch.bin").read_bytes()
    for at in range(61, len(data), 3):
        for flip in (0x01, 0x80):
            bad = bytearray(data)
            bad[at] ^= flip
            assert expected_error(kafka.parse, bytes(bad)) == expected_error(
                kafka.parse_construct, bytes(bad)
            ), (at, flip)


def test_decompressed_size_is_bounded_by_the_limit():
    """A batch whose records decode to 1 MiB: with max_decompressed_bytes below that it is
    a LimitError at the records' first byte (no more than the limit is ever allocated)."""
    big = [(0, 0, None, bytes(1 << 20), [])]
    model = kafka.parse(kafka_batch(big, compression=4))
    data = kafka.build(model)
    assert len(data) < 1000
    for parse in (kafka.parse, kafka.parse_construct):
        with pytest.raises(LimitError) as info:
            parse(data, max_decompressed_bytes=64 * 1024)
        assert info.value.offset == 61 and info.value.path == "batches[0].batch.records"
    assert kafka.parse(data).batches[0].batch.records[0].value == bytes(1 << 20)


def test_snappy_reads_xerial_blocks_and_a_raw_block():
    """kafka-python (like snappy-java) writes xerial 32 KiB blocks; a raw snappy block, as
    some other clients write, reads too. Both rebuild byte for byte."""
    rows = [(i, i, b"k%d" % i, b"%06d" % i * 1000, []) for i in range(12)]  # ~72 kB
    theirs = kafka_batch(rows, compression=2)
    model = kafka.parse(theirs)
    assert our_view(model) == kafka_view(theirs) and kafka.build(model) == theirs
    model.batches[0].batch.records_wire = None  # a fresh compression: kafka-python's blocks
    assert kafka.build(model) == theirs
    plain = kafka.parse(kafka_batch(rows))
    raw = kafka.parse(kafka_batch(rows))
    raw.batches[0].batch.attributes |= 2
    raw.batches[0].batch.records_wire = bytes(cramjam.snappy.compress_raw(kafka_batch(rows)[61:]))
    data = kafka.build(raw)
    assert kafka.parse(data).batches[0].batch.records == plain.batches[0].batch.records
    assert kafka.build(kafka.parse(data)) == data
    assert kafka_view(data) == our_view(kafka.parse(data))  # kafka-python reads it too


def test_an_unknown_codec_is_a_decode_error_at_the_records():
    data = bytearray((SAMPLES / "orders_batch.bin").read_bytes())
    data[22] |= 7  # codec 7: none Kafka knows (the CRC is checked after the records)
    fast = expected_error(kafka.parse, bytes(data))
    assert fast == expected_error(kafka.parse_construct, bytes(data))
    assert "no codec for 7" in fast[0] and fast[1:] == ("batches[0].batch.records", 61)


# -- both ways on generated cases -------------------------------------------------------

repetitive = st.builds(
    lambda part, n: part * n, st.binary(min_size=1, max_size=8), st.integers(1, 40)
)
"""Values that compress: kafka-python sends a batch uncompressed when its codec gains nothing."""
headers = st.lists(
    st.tuples(st.text(max_size=8), st.one_of(st.none(), st.binary(max_size=8))), max_size=3
)
records = st.lists(
    st.tuples(
        st.one_of(st.none(), st.binary(max_size=24)),  # key
        st.one_of(st.none(), st.binary(max_size=200), repetitive),  # value
        headers,
        st.integers(0, 2**31),  # timestamp delta (ms)
    ),
    min_size=1,
    max_size=6,
)
batch_values = st.fixed_dictionaries(
    {
        "records": records,
        "base_offset": st.integers(0, 2**62),
        "base_timestamp": st.integers(0, 2**41),
        "transactional": st.booleans(),
        "compression": st.integers(0, 4),  # none, gzip, snappy (xerial), lz4 frame, zstd
        "producer": st.one_of(
            st.just((-1, -1, -1)),
            st.tuples(st.integers(0, 2**62), st.integers(0, 2**15 - 1), st.integers(0, 2**30)),
        ),
    }
)


def kafka_python_bytes(v) -> bytes:
    codec, transactional = v.get("compression", 0), int(v["transactional"])
    builder = DefaultRecordBatchBuilder(2, codec, transactional, *v["producer"], 1 << 24)
    for i, (key, value, hdrs, delta) in enumerate(v["records"]):
        builder.append(i, timestamp=v["base_timestamp"] + delta, key=key, value=value, headers=hdrs)
    data = bytes(builder.build())
    return v["base_offset"].to_bytes(8, "big") + data[8:]


def our_model(v, compression: int = 0):
    stamps = [v["base_timestamp"] + d for *_, d in v["records"]]
    producer_id, producer_epoch, base_sequence = v["producer"]
    records = [
        kafka.KafkaRecord(
            attributes=0,
            timestamp_delta=stamp - stamps[0],
            offset_delta=i,
            key=key,
            value=value,
            headers=[kafka.Header(key=k, value=h) for k, h in hdrs],
        )
        for i, ((key, value, hdrs, _), stamp) in enumerate(zip(v["records"], stamps))
    ]
    batch = kafka.Batch(
        partition_leader_epoch=0,
        attributes=(0x10 if v["transactional"] else 0) | compression,
        last_offset_delta=len(records) - 1,
        base_timestamp=stamps[0],
        max_timestamp=max(stamps),
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        base_sequence=base_sequence,
        records_count=len(records),
        records=records,
    )
    return kafka.LogSegment(batches=[kafka.RecordBatch(base_offset=v["base_offset"], batch=batch)])


@settings(max_examples=300, deadline=None)
@given(batch_values)
def test_kafka_python_bytes_parse_to_its_values_and_rebuild(v):
    data = kafka_python_bytes(v)
    model = kafka.parse(data)
    assert our_view(model) == kafka_view(data)
    assert kafka.build(model) == data


@settings(max_examples=300, deadline=None)
@given(batch_values)
def test_our_bytes_are_kafka_pythons_and_it_reads_them(v):
    theirs = kafka_python_bytes(v)
    codec = theirs[22] & 7  # what kafka-python sent: none when its codec gained nothing
    ours = kafka.build(our_model(v, codec))
    if codec in DETERMINISTIC:
        assert ours == theirs
    else:
        assert kafka.parse(ours).batches[0].batch.compression == codec
    assert kafka_view(ours) == our_view(kafka.parse(ours))


DETERMINISTIC = {0, 2, 4}
"""Codecs whose fresh output is kafka-python's byte for byte: none, snappy (xerial blocks of
raw snappy: cramjam's equal python-snappy's) and zstd (both write through zstandard at its
default level, the content size in the frame). Not gzip (kafka-python's header holds the clock; ours 0) nor lz4 (python-lz4's frame
flags differ from cramjam's): for those the library reads our bytes."""


zstd_values = batch_values.map(lambda v: {**v, "compression": 4})


@settings(max_examples=100, deadline=None)
@given(zstd_values)
def test_zstd_batches_are_kafka_pythons_both_ways(v):
    """zstd alone (runtime/core/process.py decodes it through zstandard): kafka-python's bytes
    parse to its values and rebuild exactly; our fresh build is its bytes; it reads ours."""
    theirs = kafka_python_bytes(v)
    codec = theirs[22] & 7  # none when zstd gained nothing
    model = kafka.parse(theirs)
    assert our_view(model) == kafka_view(theirs) and kafka.build(model) == theirs
    ours = kafka.build(our_model(v, codec))
    assert ours == theirs and kafka_view(ours) == our_view(kafka.parse(ours))


def test_a_zstd_frame_without_its_content_size_reads_and_rebuilds():
    """Kafka's Java producers stream their zstd frames: no content size in the header. Such
    a batch parses to the same records, rebuilds byte for byte, and kafka-python reads it."""
    theirs = kafka_python_bytes(
        {
            "records": [(b"k%d" % i, b"value %d " % i * 20, [("h", b"v")], i) for i in range(8)],
            "base_offset": 100,
            "base_timestamp": 1_732_240_800_000,
            "transactional": False,
            "compression": 4,
            "producer": (-1, -1, -1),
        }
    )
    model = kafka.parse(theirs)
    batch = model.batches[0].batch
    plain = zstandard.ZstdDecompressor().decompress(batch.records_wire)
    batch.records_wire = zstandard.ZstdCompressor(write_content_size=False).compress(plain)
    assert zstandard.frame_content_size(batch.records_wire) == -1
    java = kafka.build(model)  # the kept frame written back, the CRC over it
    again = kafka.parse(java)
    assert again.batches[0].batch.records == batch.records and kafka.build(again) == java
    view, reference = kafka_view(java), kafka_view(theirs)
    assert view[0]["records"] == reference[0]["records"] and view[0]["crc"] != reference[0]["crc"]


# -- CLI, Spark rows, and the chain to TiCDC Craft -------------------------------------


def test_cli_decodes_a_log_segment_file(tmp_path, capsys):
    segment = tmp_path / "00000000000000000000.log"
    segment.write_bytes((SAMPLES / "segment_00000000000000000000.bin").read_bytes())
    assert cli_main(["decode", "kafka_record_batch", str(segment)]) == 0
    decoded = json.loads(capsys.readouterr().out)
    offsets = [r["offset"] for b in decoded["batches"] for r in b["batch"]["records"]]
    assert offsets == list(range(11))


def test_one_spark_row_per_record_with_its_absolute_offset_and_batch_columns():
    pytest.importorskip("pyspark")
    data = (SAMPLES / "segment_00000000000000000000.bin").read_bytes()
    names = [f.name for f in kafka.spark_schema().fields]
    rows = [dict(zip(names, row)) for row in kafka.iter_rows(data)]
    assert [r["offset"] for r in rows] == list(range(11))
    assert [r["base_offset"] for r in rows] == [0] * 4 + [4, 4, 6] + [7] * 4
    assert rows[6]["is_control"] and rows[4]["producer_id"] == 4000
    assert "batch_attributes" in names and "attributes" in names  # the record's own
    assert all(len(row) == len(names) for row in kafka.iter_rows(data))


def test_chain_kafka_segment_to_craft_messages_to_change_rows():
    """A Kafka topic of TiCDC Craft messages, read from the segment bytes: each record's
    value is a Craft message and decodes to its change rows, in offset order."""
    model = kafka.parse((SAMPLES / "craft_values_batch.bin").read_bytes())
    values = [r.value for b in model.batches for r in b.batch.records]
    expected = sorted(p.read_bytes() for p in (SAMPLES.parent / "ticdc_craft").glob("*.bin"))
    assert sorted(values) == expected
    rows = [row for value in values for row in craft.to_rows(craft.parse(value))]
    by_message = [list(craft.to_rows(craft.parse(v))) for v in values]
    assert len(rows) == sum(map(len, by_message)) >= len(values)


@pytest.mark.spark
def test_chain_in_spark_segment_files_then_decode_of_their_values(spark, tmp_path):
    """The README's Spark chain: the data source reads the segment file, one row per Kafka
    record; ``decode`` turns each record's value into its Craft change rows."""
    from runtime.spark import decode

    segment = tmp_path / "segments" / "00000000000000000000.log"
    segment.parent.mkdir()
    segment.write_bytes((SAMPLES / "craft_values_batch.bin").read_bytes())
    records = spark.read.format("wirespec").option("format", "kafka_record_batch")
    records = records.load(str(segment.parent))
    changes = decode(records.select("offset", "value"), "ticdc_craft").collect()
    model = kafka.parse(segment.read_bytes())
    values = {r.offset: r.value for b in model.batches for r in b.batch.records}
    assert sorted(row["offset"] for row in records.collect()) == sorted(values)
    expected = {o: len(list(craft.to_rows(craft.parse(v)))) for o, v in values.items()}
    got = {o: sum(1 for row in changes if row["offset"] == o) for o in values}
    assert got == expected


@settings(max_examples=30, deadline=None)
@given(kafka.strategies("log_segment"))
def test_generated_models_build_parse_and_agree_on_both_paths(model):
    """The module's own strategy (null keys and values drawn, CRC and derived values left
    to the codec): what build writes parses back, on the fast path as on construct."""
    data = kafka.build(model)
    assert kafka.build_construct(model) == data
    parsed = kafka.parse(data)
    assert parsed == kafka.parse_construct(data)
    assert kafka.build(parsed) == data


def test_the_quick_tier_reads_segments_and_batches():
    """The lowering plans derived values, nullable lengths and the CRC span (batch and
    kafka_record are read inline, so their `_parent.x` are variables): the quick tier
    (tests/test_quicktier.py, and the compiled tier, tests/test_compiled.py) reads them."""
    assert set(kafka.QUICK_READERS) == {"header", "record_batch", "log_segment"}
    assert set(kafka.FAST_READERS) >= {"log_segment", "record_batch"}


def test_a_compressed_batch_gives_one_row_per_record():
    pytest.importorskip("pyspark")
    data = (SAMPLES / "gzip_batch.bin").read_bytes()
    names = [f.name for f in kafka.spark_schema().fields]
    rows = [dict(zip(names, row)) for row in kafka.iter_rows(data)]
    assert [r["offset"] for r in rows] == [10, 11, 12, 13]
    assert {r["compression"] for r in rows} == {1} and rows[0]["records_count"] == 4
    assert "records_wire" not in names


@pytest.mark.parametrize("name", ["gzip", "snappy", "lz4", "zstd"])
def test_compressed_samples_decode_to_the_orders_batch_records(name):
    plain = kafka.parse((SAMPLES / "orders_batch.bin").read_bytes()).batches[0].batch
    batch = kafka.parse((SAMPLES / f"{name}_batch.bin").read_bytes()).batches[0].batch
    assert batch.records_wire is not None and plain.records_wire is None
    fields = ("timestamp", "key", "value", "headers", "offset_delta")
    assert [[getattr(r, f) for f in fields] for r in batch.records] == [
        [getattr(r, f) for f in fields] for r in plain.records
    ]


@pytest.mark.spark
def test_spark_takes_the_rows_of_a_segment_and_a_compressed_batch(spark):
    files = ["segment_00000000000000000000.bin", "gzip_batch.bin"]
    rows = [row for name in files for row in kafka.iter_rows((SAMPLES / name).read_bytes())]
    frame = spark.createDataFrame(rows, kafka.spark_schema())
    assert frame.count() == 15
    assert frame.where("offset is not null").count() == 15
