"""Every limit (runtime/core/limits.py) is enforced in every format, per call, with a clear
message naming the limit, and before the allocation a hostile length would cause."""

from __future__ import annotations

import functools
import importlib
import tracemalloc

import pytest

from generator.cli import fuzz
from generator.cli.fuzz import builder_seeds, sample_seeds, split_pair
from runtime.core.errors import LimitError
from runtime.core.limits import Limits

FORMATS = [
    ("plainbuffer", "message"),
    ("mysql_serialization", "binlog_file"),
    ("thrift_compact", "User"),
    ("ticdc_craft", "message"),
    ("ticdc_open_protocol", "message"),
    ("avro_container", "container_file"),
    ("png", "png_file"),
    ("msgpack", "stream"),
    ("kafka_record_batch", "log_segment"),
    ("parquet", "FileMetaData"),
    ("protobuf_wire", "order"),
    ("pgoutput", "message"),
    ("bson", "stream"),
]


@functools.cache
def largest(fmt, record):
    found = sample_seeds(fmt, record) + builder_seeds(fmt, record, count=30)
    return max(found, key=len)


def parse(fmt, record, data, **limits):
    mod = importlib.import_module(f"generated.{fmt}")
    if getattr(mod, "KAFKA_RECORD", None) == record:
        return mod.parse_pair(*split_pair(data), **limits)
    return mod.parse(data, record, **limits)


def test_every_format_is_covered():
    assert {fmt for fmt, _ in FORMATS} == set(fuzz.FORMATS)


def test_defaults_are_the_documented_ones():
    assert Limits() == Limits(64 << 20, 64, 1_000_000, 16 << 20)


@pytest.mark.parametrize("fmt, record", FORMATS)
@pytest.mark.parametrize(
    "limit, value",
    [("max_message_bytes", None), ("max_count", 0), ("max_string", 0)],
)
def test_limit_is_enforced_with_a_clear_message(fmt, record, limit, value):
    data = largest(fmt, record)
    parse(fmt, record, data)  # fine with the defaults
    if value is None:
        value = (
            max(len(p) for p in split_pair(data)) - 1
            if fmt == "ticdc_open_protocol"
            else len(data) - 1
        )
    with pytest.raises(LimitError, match=limit) as info:
        parse(fmt, record, data, **{limit: value})
    assert info.value.offset is not None


@pytest.mark.parametrize(
    "fmt, record",
    [
        ("plainbuffer", "message"),
        ("mysql_serialization", "binlog_file"),
        ("thrift_compact", "User"),
        ("msgpack", "stream"),
        ("kafka_record_batch", "log_segment"),
        ("parquet", "FileMetaData"),
        ("protobuf_wire", "order"),
        ("pgoutput", "message"),
        ("bson", "stream"),
    ],
)
def test_max_depth_is_enforced(fmt, record):
    data = largest(fmt, record)
    if fmt == "thrift_compact":
        from generated import thrift_compact as tc

        data = tc.build(tc.User(id=1, name="n", addresses=[tc.Address(city="c")]))
    with pytest.raises(LimitError, match="max_depth"):
        parse(fmt, record, data, max_depth=1)


def test_thrift_depth_bomb_stops_at_the_limit():
    from generated import thrift_compact as tc

    # field 11 addresses: list of structs, each holding ... a deep nest of raw structs
    bomb = b"\x1c" * 5000  # field 1, type struct, nested 5000 times
    with pytest.raises(LimitError, match="max_depth"):
        tc.parse_raw(bomb + b"\x00" * 5000)
    with pytest.raises(LimitError, match="max_depth=8"):
        tc.parse_raw(bomb + b"\x00" * 5000, max_depth=8)


@pytest.mark.parametrize(
    "fmt, record, hostile",
    [
        # a string/blob length of ~2 GiB in a few bytes
        ("plainbuffer", "message", bytes.fromhex("75000000 01 03 04 ffffff7f")),
        ("thrift_compact", "User", bytes.fromhex("18 ffffffff07")),
        ("mysql_serialization", "gtid_tagged_body", bytes.fromhex("0201 8f ffffffff ffffffff")),
        ("ticdc_open_protocol", "key_frames", bytes.fromhex("0000000000000001 00000000ffffffff")),
        ("ticdc_craft", "message", bytes.fromhex("01 ff ff ff ff 0f")),
        ("msgpack", "stream", bytes.fromhex("c6 ffffffff")),  # bin32
        ("msgpack", "stream", bytes.fromhex("dd ffffffff")),  # array32's count
        ("kafka_record_batch", "log_segment", bytes.fromhex("0000000000000000 7fffffff")),
        ("parquet", "KeyValue", bytes.fromhex("18 ffffffff07")),
        ("protobuf_wire", "order", bytes.fromhex("0a ffffffff07")),
        # a text column of ~4 GiB, and a Truncate of ~4 billion tables
        ("pgoutput", "message", bytes.fromhex("49 00004005 4e 0001 74 fffffff0")),
        ("pgoutput", "message", bytes.fromhex("54 fffffff0 00")),
        # a document, a string and a binary of ~2 GiB
        ("bson", "stream", bytes.fromhex("ffffff7f 10")),
        ("bson", "stream", bytes.fromhex("10000000 02 6b00 ffffff7f 61")),
        ("bson", "stream", bytes.fromhex("10000000 05 6b00 feffff7f 00")),
    ],
)
def test_hostile_lengths_fail_before_allocating(fmt, record, hostile):
    importlib.import_module(f"generated.{fmt}")  # its import is not the parse's
    tracemalloc.start()
    try:
        with pytest.raises(Exception) as info:
            parse(fmt, record, hostile)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    from runtime.core.errors import DecodeError

    assert isinstance(info.value, DecodeError), info.value
    assert peak < 4 << 20, peak


def test_limits_are_per_call():
    from generated import plainbuffer

    data = largest("plainbuffer", "message")
    with pytest.raises(LimitError):
        plainbuffer.parse(data, max_count=0)
    assert plainbuffer.parse(data) == plainbuffer.parse(data, max_count=10**6)
    with pytest.raises(Exception, match="unknown limit"):
        plainbuffer.parse(data, max_things=1)


# -- Thrift: what a message may decode to ------------------------------------------------

AMPLIFY = (
    """\
format: thrift_amplify
protocol: thrift_compact
doc: Shapes that decode to many objects per input byte.
structs:
  Empty:
    fields: []
  Wide:
    fields:
"""
    + "".join(f"      - {{id: {i}, name: f{i}, type: i32, optional: true}}\n" for i in range(1, 21))
    + """\
  Bag:
    fields:
      - {id: 1, name: empties, type: "list<Empty>", optional: true}
      - {id: 2, name: lists, type: "list<list<i32>>", optional: true}
      - {id: 3, name: maps, type: "list<map<i32, i32>>", optional: true}
      - {id: 4, name: ints, type: "list<i32>", optional: true}
      - {id: 5, name: wides, type: "list<Wide>", optional: true}
      - {id: 6, name: strings, type: "list<string>", optional: true}
"""
)


@functools.cache
def amplify_module(tmp_dir):
    from generator.emit.user_spec import import_spec

    path = tmp_dir / "thrift_amplify.yaml"
    path.write_text(AMPLIFY)
    return import_spec(path)


def _list_field(field_id: int, elem_type: int, n: int, element: bytes) -> bytes:
    """A Bag holding field ``field_id``: a list of ``n`` copies of ``element``."""
    from runtime.core.leb128 import write_uvarint

    return bytes([field_id << 4 | 9, 0xF0 | elem_type]) + write_uvarint(n) + element * n + b"\0"


@pytest.mark.parametrize(
    "case, refused",
    [
        ("one million empty structs", True),
        ("empty structs of 20 fields", True),
        ("empty lists", True),
        ("empty maps", True),
        ("unknown bool fields", True),
        ("raw empty structs", True),
        ("small ints", False),
        ("two-letter strings", False),
    ],
)
def test_thrift_decodes_to_at_most_32x_its_size(case, refused, tmp_path_factory):
    """A message is refused (LimitError) or held within 32x its size: tracemalloc's peak
    over the decode, the objects it returns included."""
    mod = amplify_module(tmp_path_factory.getbasetemp())
    # tracemalloc looks up a line number per allocation, slowly in the long generated
    # readers: the other shapes are smaller (the ratio is what counts)
    size = 1_000_000 if case == "one million empty structs" else 30_000
    record, parse = "Bag", mod.parse
    if case == "one million empty structs":
        data = _list_field(1, 12, size, b"\0")  # list<Empty>: a stop byte each
    elif case == "empty structs of 20 fields":
        data = _list_field(5, 12, size, b"\0")
    elif case == "empty lists":
        data = _list_field(2, 9, size, b"\x05")  # list<list<i32>>: an empty list each
    elif case == "empty maps":
        data = _list_field(3, 11, size, b"\0")
    elif case == "unknown bool fields":
        data, record = b"\x11" * size + b"\0", "Empty"  # each kept as an unknown field
    elif case == "raw empty structs":
        data = _list_field(1, 12, size, b"\0")
        parse = lambda data, record: mod.parse_raw(data)
    elif case == "small ints":
        data = _list_field(4, 5, size, b"\x02")
    else:
        data = _list_field(6, 8, size // 3, b"\x02AB")
    tracemalloc.start()
    try:
        try:
            model = parse(data, record)
            outcome = "decoded"
        except LimitError as err:
            assert "32x" in str(err) or "24x" in str(err), err
            outcome = "refused"
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert outcome == ("refused" if refused else "decoded")
    assert peak <= 32 * len(data), (case, peak / len(data))
    if outcome == "decoded":
        assert mod.build(model) == data
