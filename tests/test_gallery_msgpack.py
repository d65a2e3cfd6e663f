"""The MessagePack gallery spec against the ``msgpack`` library, both ways: the library's
bytes parse to what it decodes and rebuild exactly; our build of the same values is the
library's bytes; the library (C and pure Python) reads what we build, non-canonical forms
included. Plus recursion bounded by ``max_depth`` and the bit fields of the short forms."""

from __future__ import annotations

import io
from pathlib import Path

import msgpack
import msgpack.fallback
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from generated import msgpack as codec
from runtime.core.errors import DecodeError
from runtime.core.fast import QUICK_FAILURES
from runtime.core.limits import DEFAULT
from tests.msgpack_support import Unhashable, from_python, same, to_python
from tests.test_fastpath import Same

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "samples" / "msgpack").glob("*.bin"))

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**64 - 1),
    st.sampled_from([0, 127, 128, 255, 256, 65535, 65536, 2**32 - 1, 2**32, -32, -33, -128,
                     -129, -32768, -32769, -(2**31), -(2**31) - 1, -(2**63), 2**64 - 1]),
    st.floats(allow_nan=True),
    st.text(max_size=40) | st.sampled_from(["x" * 31, "x" * 32, "y" * 300]),
    st.binary(max_size=40) | st.sampled_from([b"z" * 256]),
    st.builds(msgpack.ExtType, st.integers(0, 127), st.binary(max_size=20)),
    st.builds(msgpack.Timestamp, st.integers(0, 2**32 - 1), st.just(0)),
    st.builds(msgpack.Timestamp, st.integers(0, 2**34 - 1), st.integers(0, 999_999_999)),
    st.builds(msgpack.Timestamp, st.integers(-(2**63), 2**63 - 1), st.integers(0, 999_999_999)),
)  # fmt: skip
_KEYS = st.one_of(st.text(max_size=10), st.integers(-1000, 1000), st.binary(max_size=4))
VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=5)
    | st.lists(inner, min_size=16, max_size=17)
    | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=20,
)


def _unpack(data: bytes, unpackb=msgpack.unpackb):
    return unpackb(data, strict_map_key=False, raw=False)


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_library_bytes_parse_to_its_values_and_rebuild(value):
    data = msgpack.packb(value)
    model = codec.parse(data, "value")
    assert same(to_python(model), _unpack(data))
    assert codec.build(model, "value") == data


@settings(max_examples=40, deadline=None)
@given(VALUES)
def test_the_construct_oracle_agrees(value):
    data = msgpack.packb(value)
    model = codec.parse(data, "value")
    assert codec.to_dict(codec.parse_construct(data, "value")) == codec.to_dict(model)
    assert codec.build_construct(model, "value") == data


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_our_build_of_the_values_is_the_library_bytes(value):
    data = codec.build(from_python(value), "value")
    assert data == msgpack.packb(value)
    assert same(_unpack(data), _unpack(msgpack.packb(value)))


@settings(max_examples=300, deadline=None)
@given(codec.strategies("value"))
def test_the_library_reads_what_we_build(model):
    """Our models include the forms the library never writes (a uint64 holding 1, a
    str32 of 2 bytes, a fixext4 of type -1 that is a timestamp): it reads them all."""
    data = codec.build(model, "value")
    try:
        expected = to_python(model)
    except Unhashable:
        assume(False)
    except ValueError:  # ext type -1 of a length no timestamp has: the library refuses it
        with pytest.raises(ValueError):
            _unpack(data)
        return
    assert same(_unpack(data), expected)
    assert codec.build(codec.parse(data, "value"), "value") == data


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_samples_against_the_library(path):
    data = path.read_bytes()
    stream = codec.parse(data)
    assert codec.build(stream) == data
    expected = list(msgpack.Unpacker(io.BytesIO(data), strict_map_key=False))
    assert same([to_python(v) for v in stream.values], expected)
    fallback = list(msgpack.fallback.Unpacker(io.BytesIO(data), strict_map_key=False))
    assert same(fallback, expected)
    assert len(list(codec.to_rows(stream))) == len(expected)  # one Spark row per value


def test_long_forms_are_kept():
    model = codec.parse(bytes.fromhex("dc0002ce00000005d9016b"), "value")
    assert type(model.form).__name__ == "Array16"
    assert [type(v.form).__name__ for v in model.form.elements] == ["Uint32", "Str8"]
    assert codec.build(model, "value") == bytes.fromhex("dc0002ce00000005d9016b")


def test_short_forms_are_bit_fields_computed_on_build():
    model = codec.parse(msgpack.packb([1, "ab", {"k": None}]), "value")
    array = model.form
    assert (array.code, array.count) == (0x9, 3)
    assert (array.elements[1].form.code, array.elements[1].form.length) == (0x5, 2)
    array.elements.append(from_python(-7))
    array.elements[1].form.data = "h\u00e9llo"
    array.count = array.elements[1].form.length = None  # computed: the model need not say
    data = codec.build(model, "value")
    assert data == msgpack.packb([1, "h\u00e9llo", {"k": None}, -7])
    assert codec.build_construct(model, "value") == data


def test_json_form_names_the_form_and_shows_times():
    model = codec.parse(msgpack.packb([msgpack.Timestamp(1_764_072_000, 5)]), "value")
    form = codec.to_dict(model)["form"]["fixarray"]["elements"][0]["form"]
    assert form["timestamp64"]["seconds_time"] == "2025-11-25T12:00:00Z"
    assert codec.build(codec.from_dict(codec.to_dict(model), "value"), "value") == codec.build(
        model, "value"
    )


@settings(max_examples=150, deadline=None)
@given(VALUES, st.integers(0, 3))
def test_the_quick_and_compiled_tiers_give_the_construct_model(value, cut):
    """The quick and compiled tiers read library bytes to the construct oracle's model, and
    decline (None) what it refuses (here: the bytes cut short); the compiled tier is
    compared where it is built."""
    data = msgpack.packb(value)[: -cut or None]
    try:
        want = Same(codec, codec.parse_construct(data, "value"))
    except DecodeError:
        want = None
    try:
        model, pos = codec.QUICK_READERS["value"][0](data, 0, len(data), DEFAULT)
        quick = Same(codec, model) if pos == len(data) else None
    except QUICK_FAILURES:
        quick = None
    assert quick == want
    if "value" in codec.COMPILED_READERS:
        compiled = codec.COMPILED_READERS["value"](data, DEFAULT)
        assert (compiled is None) == (quick is None)
        assert compiled is None or Same(codec, compiled) == want


def _nested(levels: int) -> bytes:
    return b"\x91" * levels + b"\xc0"


@pytest.mark.parametrize("parse", [codec.parse, codec.parse_construct])
def test_nesting_past_max_depth_is_a_decode_error_with_offset_and_path(parse):
    assert to_python(parse(_nested(31), "value")) == msgpack.unpackb(_nested(31))
    with pytest.raises(DecodeError) as err:
        parse(_nested(40), "value")
    assert "max_depth" in str(err.value) and err.value.offset == 32  # the 33rd value
    assert err.value.path.startswith("form.elements[0].form.elements[0]")
    with pytest.raises(DecodeError):
        parse(_nested(10), "value", max_depth=8)


@pytest.mark.parametrize("parse", [codec.parse, codec.parse_construct])
def test_a_huge_max_depth_still_ends_in_a_decode_error(parse):
    with pytest.raises(DecodeError):
        parse(_nested(20_000), "value", max_depth=10**9)


@pytest.mark.parametrize(
    "data",
    [b"", b"\xc1", b"\x92\x01", b"\xa3ab", b"\xd7\xff" + b"\xff" * 8, b"\xdc\xff",
     bytes.fromhex("c70cff80000000") + bytes(8)],  # timestamp96: nanoseconds past 10**9
)  # fmt: skip
def test_bad_bytes_fail_the_same_on_both_paths(data):
    with pytest.raises(DecodeError) as fast:
        codec.parse(data, "value")
    with pytest.raises(DecodeError) as slow:
        codec.parse_construct(data, "value")
    assert (fast.value.offset, fast.value.path, str(fast.value)) == (
        slow.value.offset,
        slow.value.path,
        str(slow.value),
    )


@pytest.mark.spark
def test_a_stream_of_values_is_a_row_per_value_in_spark(spark):
    """Spark types cannot recurse: where a value holds values, each is its JSON text."""
    import json

    data = (ROOT / "samples" / "msgpack" / "log_stream.bin").read_bytes()
    stream = codec.parse(data)
    frame = spark.createDataFrame(list(codec.to_rows(stream)), codec.spark_schema())
    rows = frame.select("form.fixmap.count", "form.fixmap.pairs").collect()
    assert len(rows) == 5 and {r["count"] for r in rows} == {5}
    keys = [json.loads(p["key"])["form"]["fixstr"]["data"] for p in rows[0]["pairs"]]
    assert keys == list(msgpack.unpackb(codec.build(stream.values[0], "value")))
