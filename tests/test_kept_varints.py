"""Varints longer than they need (runtime/core/kept.py): Avro's and Kafka's readers take
them, their writers never write them; a message holding one keeps its bytes
(``wire_form``), written back while the model still reads as them, so ``build(parse(x))
== x``. Kafka's batch CRC keeps random mutation from reaching them (tests/test_exactness.py
only finds Avro's), so the Kafka batches here are made by hand, with a correct CRC-32C.
Every tier: the fast path, construct (``parse_construct``/``build_construct``), the JSON
form; the quick and compiled readers decline such a message (the exact reader keeps it)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from kafka.record.default_records import DefaultRecordBatch

import generated.avro_container as avro
import generated.kafka_record_batch as kafka
from runtime.core.checksum import crc32c
from runtime.core.fast import Retry

SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "avro_container"


def kafka_segment(record: bytes, length: bytes | None = None) -> bytes:
    """A log segment of one batch of one record (body ``record``, after its varint
    ``length``: the shortest form when None), its CRC-32C computed."""
    if length is None:
        length = bytes([len(record) * 2])  # ZigZag, one byte: the records here are short
    after_crc = (
        struct.pack(">hiqqqhii", 0, 0, 1700000000000, 1700000000000, -1, -1, -1, 1)
        + length
        + record
    )
    batch = struct.pack(">ibI", -1, 2, crc32c(after_crc)) + after_crc
    return struct.pack(">qi", 42, len(batch)) + batch


# attributes 0, timestamp delta 0, offset delta 0, key null, value b"abc", no headers
SHORTEST = bytes.fromhex("00 00 00 01 06616263 00")
LONGER = {
    "a timestamp delta": bytes.fromhex("00 8000 00 01 06616263 00"),
    "an offset delta": bytes.fromhex("00 00 808000 01 06616263 00"),
    "a null key's length": bytes.fromhex("00 00 00 8100 06616263 00"),
    "a value's length": bytes.fromhex("00 00 00 01 8680808000616263 00"),
    "a header count": bytes.fromhex("00 00 00 01 06616263 8000"),
}


@pytest.mark.parametrize("where", LONGER)
def test_a_kafka_record_with_a_longer_varint_is_written_back_as_read(where):
    data = kafka_segment(LONGER[where])
    assert DefaultRecordBatch(data).validate_crc()  # a batch Kafka's own reader takes
    model = kafka.parse(data)
    assert model.wire_form == data
    assert kafka.build(model) == data
    assert kafka.parse_construct(data) == model
    assert kafka.build_construct(model) == data
    again = kafka.from_dict(kafka.to_dict(model))  # computed fields (the CRC) left out
    assert again.wire_form == data and kafka.build(again) == data


def test_a_longer_record_length_is_written_back_as_read():
    data = kafka_segment(SHORTEST, length=bytes.fromhex("9280808000"))
    assert DefaultRecordBatch(data).validate_crc()
    assert kafka.build(kafka.parse(data)) == data


def test_a_changed_model_is_written_shortest_with_its_crc():
    model = kafka.parse(kafka_segment(LONGER["a timestamp delta"]))
    model.batches[0].batch.records[0].value = b"abd"
    rebuilt = kafka.build(model)
    assert rebuilt == kafka_segment(SHORTEST.replace(b"abc", b"abd"))
    assert kafka.parse(rebuilt).wire_form is None


def test_what_the_writers_write_keeps_nothing():
    data = kafka_segment(SHORTEST)
    model = kafka.parse(data)
    assert model.wire_form is None and model.batches[0].batch.records[0].wire_form is None
    assert "wire_form" not in kafka.to_dict(model)
    assert kafka.build(model) == data


def test_a_kept_form_takes_part_in_equality():
    """The rule MySQL's ``wire_form`` and Thrift's ``wire_layout`` follow: a model read
    from non-canonical bytes carries them, and is not equal to the canonical one."""
    kept = avro.parse(bytes.fromhex("008100"), "counter")
    canonical = avro.parse(bytes.fromhex("0001"), "counter")
    assert kept != canonical
    kept.wire_form = None
    assert kept == canonical


def test_the_compiled_and_quick_readers_leave_a_longer_varint_to_the_exact_reader():
    data = kafka_segment(LONGER["a value's length"])
    record, (quick, _depth) = "log_segment", kafka.QUICK_READERS["log_segment"]
    with pytest.raises(Retry):  # the exact reader decides
        quick(data, 0, len(data), kafka._LIMITS)
    compiled = getattr(kafka, "COMPILED_READERS", {}).get(record)
    if compiled is not None:
        assert compiled(data, kafka._LIMITS) is None
        assert compiled(kafka_segment(SHORTEST), kafka._LIMITS) == kafka.parse(
            kafka_segment(SHORTEST)
        )


def test_an_avro_counter_written_longer_is_written_back_as_read():
    """The fuzzer's witness (tests/fuzz/crashes/avro_container/counter--924e13d83dd3)."""
    data = bytes.fromhex("008100")
    model = avro.parse(data, "counter")
    assert (model.key, model.value, model.wire_form) == ("", -1, data)
    assert avro.build(model, "counter") == avro.build_construct(model, "counter") == data
    assert avro.parse_construct(data, "counter") == model
    assert avro.to_dict(model)["wire_form"] == {"$hex": "008100"}
    model.value = 2
    assert avro.build(model, "counter").hex() == "0004"


def test_an_avro_file_with_a_longer_block_count_is_written_back_as_read():
    """The metadata map's first block count (2 entries, ``04``) written ``84 00``."""
    sample = (SAMPLES / "page_views_null.bin").read_bytes()
    assert sample[4] == 0x04
    data = sample[:4] + b"\x84\x00" + sample[5:]
    model = avro.parse(data)
    assert model.wire_form == data and model.meta_blocks == avro.parse(sample).meta_blocks
    assert avro.build(model) == avro.build_construct(model) == data
    assert avro.parse_construct(data) == model
    compiled = getattr(avro, "COMPILED_READERS", {}).get("container_file")
    if compiled is not None:
        assert compiled(data, avro._LIMITS) is None
    model.wire_form = None
    assert avro.build(model) == sample
