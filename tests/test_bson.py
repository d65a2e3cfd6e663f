"""specs/bson.yaml against pymongo's ``bson`` module, both ways, and the samples made with it
(samples/bson/, by samples/make_samples.py --format bson).

Hypothesis draws documents of every type pymongo writes: what ``bson.encode`` writes parses
to the same values and rebuilds byte for byte; what we build from those values is what
``bson.encode`` writes (so ``bson.decode`` reads it back). The deprecated types pymongo
only reads (undefined, symbol, DBPointer) are read from bytes written by hand. A size that
disagrees with the bytes, a bool byte other than 0/1, a missing NUL, an unknown type byte
and every truncation are a DecodeError with its offset and field path, which pymongo
refuses too.
"""

from __future__ import annotations

import struct
from pathlib import Path

import bson
import pytest
from bson import (
    Binary,
    Code,
    DatetimeMS,
    Decimal128,
    Int64,
    MaxKey,
    MinKey,
    ObjectId,
    Regex,
    Timestamp,
)
from bson.errors import InvalidBSON
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import generated.bson as codec
from runtime.core.errors import DecodeError, EncodeError, LimitError
from tests.bson_support import OPTIONS, from_python, to_python

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "samples" / "bson").glob("*.bin"))

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
KEYS = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=8)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**31), 2**31 - 1),
    st.integers(-(2**63), 2**63 - 1).map(Int64),
    st.floats(allow_nan=False),
    TEXT,
    st.binary(max_size=12),
    st.builds(Binary, st.binary(max_size=12), st.sampled_from([1, 2, 3, 4, 5, 6, 0x80, 0xFF])),
    st.binary(min_size=12, max_size=12).map(ObjectId),
    st.integers(-(2**63), 2**63 - 1).map(DatetimeMS),
    st.builds(
        Regex,
        KEYS,
        st.sets(st.sampled_from("ilmsux")).map(lambda letters: "".join(sorted(letters))),
    ),
    st.builds(Code, TEXT),
    st.builds(Timestamp, st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)),
    st.binary(min_size=16, max_size=16).map(Decimal128.from_bid),
    st.just(MinKey()),
    st.just(MaxKey()),
)


def _nested(children):
    documents = st.dictionaries(KEYS, children, max_size=4)
    return st.one_of(
        st.lists(children, max_size=4),
        documents,
        st.builds(Code, TEXT, documents),
    )


VALUES = st.recursive(SCALARS, _nested, max_leaves=12)
DOCUMENTS = st.dictionaries(KEYS, VALUES, max_size=6)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def parse(data: bytes) -> codec.Document:
    return codec.parse(data, record="document")


def build(document: codec.Document) -> bytes:
    return codec.build(document, record="document")


@SETTINGS
@given(DOCUMENTS)
def test_what_bson_encodes_parses_to_its_values_and_rebuilds(document):
    data = bson.encode(document)
    parsed = parse(data)
    assert to_python(parsed) == bson.decode(data, codec_options=OPTIONS)
    assert build(parsed) == data


@SETTINGS
@given(DOCUMENTS)
@example({"": None, "_id": None})
def test_what_we_build_is_what_bson_encodes(document):
    if "_id" in document:  # pymongo writes a top-level document's _id first; we, the model
        document = {"_id": document["_id"], **document}
    data = build(from_python(document))
    assert data == bson.encode(document)
    assert bson.decode(data, codec_options=OPTIONS) == bson.decode(
        bson.encode(document), codec_options=OPTIONS
    )


def _element(kind: int, key: bytes, payload: bytes) -> bytes:
    return bytes([kind]) + key + b"\x00" + payload


def _document(*elements: bytes) -> bytes:
    body = b"".join(elements)
    return struct.pack("<i", len(body) + 5) + body + b"\x00"


def _string(text: bytes) -> bytes:
    return struct.pack("<i", len(text) + 1) + text + b"\x00"


def test_the_types_pymongo_only_reads():
    oid = bytes(range(12))
    data = _document(
        _element(0x06, b"undefined", b""),
        _element(0x0E, b"symbol", _string(b"sym")),
        _element(0x0C, b"pointer", _string(b"db.things") + oid),
    )
    parsed = parse(data)
    assert [e.type for e in parsed.elements.elements] == [
        codec.ElementType.UNDEFINED,
        codec.ElementType.SYMBOL,
        codec.ElementType.DB_POINTER,
    ]
    assert to_python(parsed) == bson.decode(data, codec_options=OPTIONS)
    assert build(parsed) == data


def test_a_nan_and_negative_zero_are_kept_bit_for_bit():
    nan = struct.pack("<Q", 0x7FF0000000000001)  # a signalling NaN with a payload
    data = _document(_element(0x01, b"n", nan), _element(0x01, b"z", struct.pack("<d", -0.0)))
    assert build(parse(data)) == data


def test_duplicate_keys_and_array_keys_are_kept_as_written():
    data = _document(
        _element(0x10, b"a", struct.pack("<i", 1)),
        _element(0x10, b"a", struct.pack("<i", 2)),
        _element(0x04, b"list", _document(_element(0x10, b"7", struct.pack("<i", 3)))),
    )
    parsed = parse(data)
    assert [e.key for e in parsed.elements.elements] == ["a", "a", "list"]
    assert parsed.elements.elements[2].value.elements.elements[0].key == "7"
    assert build(parsed) == data


def test_a_deep_document_builds_as_bson_encodes_it():
    # each level's size is measured before it is written: measured once per enclosing
    # measurement (runtime.core.fast.measured), not twice per level (2**20 writes)
    document = {"leaf": [1, "x"]}
    for level in range(19):
        document = {"level": level, "inner": document}
    data = bson.encode(document)
    assert build(parse(data)) == data == build(from_python(document))


def test_a_datetime_reads_as_a_time_in_json():
    data = bson.encode({"at": DatetimeMS(1_700_000_000_123)})
    text = str(codec.to_dict(parse(data)))
    assert "2023-11-14T22:13:20.123" in text


GOOD = _document(
    _element(0x08, b"ok", b"\x01"),
    _element(0x02, b"s", _string(b"text")),
    _element(0x03, b"d", _document(_element(0x10, b"i", struct.pack("<i", 5)))),
)


def _with(data: bytes, offset: int, new: bytes) -> bytes:
    return data[:offset] + new + data[offset + len(new) :]


def _refused_by_both(data: bytes) -> DecodeError:
    with pytest.raises(InvalidBSON):
        bson.decode(data)
    with pytest.raises(DecodeError) as refused:
        parse(data)
    assert refused.value.offset is not None and refused.value.offset <= len(data)
    return refused.value


@pytest.mark.parametrize(
    "name, data, path",
    [
        ("size one too large", _with(GOOD, 0, struct.pack("<i", len(GOOD) + 1)) + b"\x00", "type"),
        ("size one too small", _with(GOOD, 0, struct.pack("<i", len(GOOD) - 1)), "elements"),
        ("size below 5", _with(GOOD, 0, struct.pack("<i", 4)), "size"),
        ("a bool of 2", GOOD.replace(b"ok\x00\x01", b"ok\x00\x02"), "value"),
        ("no 0x00 at the end", GOOD[:-1] + b"\x01", "terminator"),
        ("an unknown type byte", GOOD.replace(b"\x08ok", b"\x14ok"), "type"),
        (
            "a string's length too large",
            GOOD.replace(b"\x05\x00\x00\x00text", b"\x06\x00\x00\x00text"),
            "value",
        ),
        ("a string without its NUL", GOOD.replace(b"text\x00", b"textx"), "value"),
    ],
)
def test_refused(name, data, path):
    error = _refused_by_both(data)
    assert path in str(error), (name, str(error))


def test_bytes_after_the_terminator_inside_the_size_are_refused():
    # the declared size takes one more byte, after the document's 0x00
    data = _with(GOOD, 0, struct.pack("<i", len(GOOD) + 1)) + b"\x00"
    _refused_by_both(data)


def test_every_truncation_is_refused():
    for end in range(len(GOOD)):
        with pytest.raises(DecodeError):
            parse(GOOD[:end])


def test_samples_parse_and_rebuild_and_read_as_bson_does():
    assert SAMPLES, "samples/bson/ is empty: python -m samples.make_samples --format bson"
    for path in SAMPLES:
        data = path.read_bytes()
        stream = codec.parse(data)
        assert codec.build(stream) == data, path.name
        expected = bson.decode_all(data, codec_options=OPTIONS)
        assert [to_python(d) for d in stream.documents] == expected, path.name


def test_a_utc_datetime_is_a_spark_timestamp_beside_its_millis():
    """``logical: unix_millis`` with ``spark: {type: timestamp_ms}``: the number as it is
    (LongType), then ``millis_ts`` (TimestampType; null past Python's datetime)."""
    pytest.importorskip("pyspark")
    import datetime

    from pyspark.sql.types import LongType, TimestampType

    from runtime.spark.decode import codec

    c = codec("bson", "utc_datetime")
    assert [(f.name, f.dataType) for f in c.schema().fields] == [
        ("millis", LongType()),
        ("millis_ts", TimestampType()),
    ]
    utc = datetime.timezone.utc
    rows = [c.rows(None, struct.pack("<q", v))[0] for v in (-1, 1795608000123, 2**63 - 1)]
    assert rows == [
        (-1, datetime.datetime(1969, 12, 31, 23, 59, 59, 999000, tzinfo=utc)),
        (1795608000123, datetime.datetime(2026, 11, 25, 12, 0, 0, 123000, tzinfo=utc)),
        (2**63 - 1, None),
    ]


def _nested(levels: int) -> bytes:
    """``levels`` documents in documents, a string in the innermost (pymongo's bytes)."""
    value: dict = {"s": "hi"}
    for _ in range(levels - 1):
        value = {"d": value}
    return bson.encode(value)


def test_the_100_levels_mongodb_allows_parse_and_build_back():
    data = _nested(100)
    assert codec.build(codec.parse(data)) == data


def test_the_construct_oracle_reads_and_builds_each_of_100_levels_once(monkeypatch):
    """``parse_construct``, ``build_construct`` and ``inspect`` of the 100 levels MongoDB
    allows: every record read once and built once. A document's size measured its
    elements by building them, and the elements were built again to be written: twice per
    level, 2**levels builds (30 levels ran for hours)."""
    from generator.cli.inspect import trace
    from runtime.core.record import Record

    counts = {"_parse": 0, "_build": 0}
    for name in counts:
        counted_method = getattr(Record, name)

        def counting(self, *args, _name=name, _method=counted_method):
            counts[_name] += 1
            return _method(self, *args)

        monkeypatch.setattr(Record, name, counting)
    data = _nested(100)
    records = 1 + 3 * 100 + 1  # the stream, each level's document, element list and element,
    # the innermost string
    model = codec.parse_construct(data)
    assert codec.build_construct(model) == data
    assert counts == {"_parse": records, "_build": records}
    assert trace(codec, data, "stream").error is None  # the spec's max_depth, not 64
    assert counts["_parse"] == 2 * records


def test_a_deep_model_the_fast_writer_refuses_is_refused_by_construct_in_linear_work():
    model = codec.parse(_nested(100))
    innermost = model.documents[0]
    for _ in range(99):
        innermost = innermost.elements.elements[0].value
    innermost.elements.elements[0].value.text = 7  # not text: the fast writer gives up
    with pytest.raises(EncodeError, match="text"):
        codec.build(model)


@pytest.mark.parametrize("levels", [101, 100_000])
def test_deeper_input_is_a_limit_error(levels):
    with pytest.raises(LimitError, match="max_depth=302"):
        codec.parse(_nested(levels) if levels < 900 else _deep_bytes(levels))


def _deep_bytes(levels: int) -> bytes:
    """Documents in documents past Python's stack (pymongo refuses to write them)."""
    body = b"\x02s\x00" + struct.pack("<i", 3) + b"hi\x00"
    sizes = range(len(body) + 5, len(body) + 5 + 8 * levels, 8)  # each level 8 bytes more
    heads = [struct.pack("<i", size) + b"\x03d\x00" for size in reversed(sizes[1:])]
    # joined once: a level at a time copies the bytes within it (100,000 levels: 40 s)
    return b"".join([*heads, struct.pack("<i", sizes[0]), body, b"\x00" * levels])


def test_a_model_nested_past_the_stack_is_an_encode_error():
    model = codec.parse(_nested(1))
    for _ in range(50_000):  # the compiled writers count against Python's recursion limit
        element = codec.Element(type=codec.ElementType.DOCUMENT, key="d", value=model)
        model = codec.Document(elements=codec.ElementList(elements=[element]))
    with pytest.raises(EncodeError, match="nesting too deep"):
        codec.build(codec.Stream(documents=[model]))
