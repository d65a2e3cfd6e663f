"""The compiled protobuf loop (runtime/_compiled/protobuf.pyx) held equal to the Python
reader and writer of runtime/formats/protobuf.py (``read_exact``, ``write_exact``).

On every input the compiled reader either declines (None) or gives the model the Python
reader gives: the same classes, values (floats by their bits) and ``wire_layout``; where
the Python reader raises, it declines, and ``parse`` raises the same DecodeError with the
tier on. Its writer either declines or writes the Python writer's bytes.

Its models are lazy (a checked span, built on the first access of any field): every model
it gives is held equal when its fields are read all at once (``same``, ``repr``, ``==``),
one by one in a shuffled order (nested models too), written untouched, and pickled.

Inputs: upb's bytes of the gallery's hypothesis models, the same records shuffled,
unpacked and mixed with unknown fields, record soups of every field number and wire type
(values read over, oneof switches, empty packed records, defaults written, non-minimal
and overlong varints, groups), the samples, every truncation and seeded byte mutations of
each, tight limits; models made from values and models holding values of other types.
"""

from __future__ import annotations

import copy
import dataclasses
import gc
import math
import pathlib
import pickle
import random
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_gallery_protobuf_wire import records as _records
from test_gallery_protobuf_wire import uvarint

from generated import protobuf_wire as pw
from runtime.core.codec import to_jsonable
from runtime.core.errors import DecodeError, EncodeError
from runtime.core.limits import Limits
from samples.protobuf_peer import Peer

pytestmark = pytest.mark.skipif(
    pw.order.compiled is None, reason="the compiled protobuf loop is not built"
)

SAMPLES = sorted((pathlib.Path(__file__).parent.parent / "samples" / "protobuf_wire").glob("*.bin"))
PEER = Peer(pw)
CASES = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MUTATIONS = 30


def same(a, b) -> bool:
    """Equal as models, floats by their bits (NaN payloads, -0.0), dicts in their order."""
    if type(a) is not type(b):
        return False
    if dataclasses.is_dataclass(a):
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, float):
        return struct.pack("<d", a) == struct.pack("<d", b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return a == b


def exact(data: bytes, record: str, limits: Limits):
    """The Python reader's model, or its error as text."""
    try:
        model, end = pw.RECORDS[record].read_exact(data, 0, len(data), limits, 1)
    except DecodeError as err:
        return f"{type(err).__name__}: {err}"
    assert end == len(data)
    return model


def held_equal(data: bytes, record: str = "order", limits: Limits = pw._LIMITS) -> bool:
    """The compiled reader declines or gives the Python reader's model; ``parse`` gives
    the model or the same error with the tier on. True when the compiled reader took it."""
    message = pw.RECORDS[record]
    expected = exact(data, record, limits)
    got = message.compiled.try_read(data, 0, len(data), limits, 1)
    if isinstance(expected, str):
        assert got is None, (data.hex(), expected)
        with pytest.raises(DecodeError) as err:
            message.read(data, 0, len(data), limits, 1)
        assert f"{type(err.value).__name__}: {err.value}" == expected
        return False
    if got is None:
        return False
    assert got[1] == len(data)
    assert same(got[0], expected), (data.hex(), got[0], expected)
    writes_equal(got[0], record)
    lazy_equal(
        lambda: message.compiled.try_read(data, 0, len(data), limits, 1)[0],
        expected,
        exact(data, record, limits),
    )
    return True


def lazy_equal(fresh, expected, again) -> None:
    """Models from ``fresh()`` (a new lazy model each call) equal ``expected`` however
    they are first looked at (``again``: ``expected`` read once more, for ``==``, which a
    NaN read twice fails)."""
    assert repr(fresh()) == repr(expected)
    assert same(touched_one_by_one(fresh(), random.Random(repr(expected))), expected)
    assert (fresh() == expected) == (again == expected)
    message = next(m for m in pw.RECORDS.values() if m.model is type(expected))
    untouched, out, exact_out = fresh(), bytearray(), bytearray()
    message.write(untouched, out)
    message.write_exact(expected, exact_out)
    assert out == exact_out
    assert same(pickle.loads(pickle.dumps(fresh())), expected)


def touched_one_by_one(model, rnd: random.Random):
    """``model`` after reading its fields one at a time in a shuffled order, and those of
    the models it holds likewise."""
    names = [f.name for f in dataclasses.fields(model)]
    rnd.shuffle(names)
    for name in names:
        value = getattr(model, name)
        held = value.values() if isinstance(value, dict) else value
        for v in held if isinstance(value, (list, dict)) else [value]:
            if dataclasses.is_dataclass(v):
                touched_one_by_one(v, rnd)
    return model


def writes_equal(model, record: str = "order") -> bool:
    """The compiled writer declines or writes the Python writer's bytes (or declines where
    the Python writer raises). True when the compiled writer took it."""
    message = pw.RECORDS[record]
    expected = bytearray()
    try:
        message.write_exact(model, expected)
    except (EncodeError, TypeError, ValueError, AttributeError) as err:
        expected = err
    out = bytearray(b"head")
    took = message.compiled.try_write(model, out)
    if isinstance(expected, Exception):
        assert not took, (model, expected)
        return False
    if not took:
        assert out == b"head"  # declined: nothing written
        return False
    assert out == b"head" + expected, (model, bytes(out).hex(), expected.hex())
    return True


def record(number: int, wire_type: int, payload: bytes) -> bytes:
    key = uvarint(number << 3 | wire_type)
    if wire_type == 2:
        return key + uvarint(len(payload)) + payload
    return key + payload


def mutations(data: bytes, rnd: random.Random):
    for _ in range(MUTATIONS):
        b = bytearray(data)
        for _ in range(rnd.randint(1, 3)):
            op = rnd.random()
            if b and op < 0.5:
                b[rnd.randrange(len(b))] = rnd.randrange(256)
            elif op < 0.75:
                b.insert(rnd.randint(0, len(b)), rnd.randrange(256))
            elif b:
                del b[rnd.randrange(len(b))]
        yield bytes(b)


# -- upb's bytes and their variants -------------------------------------------------------


@CASES
@given(pw.strategies("order"), st.randoms(use_true_random=False))
def test_upb_bytes_shuffled_and_cut(model, rnd):
    data = PEER.to_pb("order", model).SerializeToString(deterministic=True)
    assert held_equal(data)  # canonical bytes: always compiled
    assert writes_equal(pw.parse(data))
    parts = _records(data)
    rnd.shuffle(parts)
    held_equal(b"".join(parts))
    for cut in sorted({rnd.randrange(len(data) + 1) for _ in range(8)}):
        held_equal(data[:cut])


@pytest.mark.parametrize("record", sorted(pw.RECORDS))
def test_models_made_from_values_build_alike(record):
    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(pw.strategies(record))
    def check(model):
        assert writes_equal(model, record)  # a model made from values: always compiled
        held_equal(pw.build(model, record), record)

    check()


# -- record soups: any number, any wire type, read over, nested --------------------------

NUMBERS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 2048, 21, 99]


def _payload(draw, depth: int) -> tuple[int, bytes]:
    wire_type = draw(st.sampled_from([0, 0, 1, 2, 2, 2, 5]))
    if wire_type == 0:
        value = draw(
            st.one_of(
                st.integers(0, 3),
                st.integers(0, 2**64 - 1),
                st.sampled_from([2**31, 2**32 + 5, 2**63, 2**64 - 1]),
            )
        )
        raw = uvarint(value)
        if draw(st.integers(0, 9)) == 0:  # a non-minimal varint
            raw = bytes(b | 0x80 for b in raw) + b"\x00"
        return 0, raw
    if wire_type in (1, 5):
        return wire_type, draw(
            st.binary(min_size=8 if wire_type == 1 else 4, max_size=8 if wire_type == 1 else 4)
        )
    if depth < 3 and draw(st.booleans()):
        return 2, draw(_soup(depth + 1))
    return 2, draw(st.one_of(st.binary(max_size=12), st.text(max_size=6).map(str.encode)))


@st.composite
def _soup(draw, depth: int = 0) -> bytes:
    parts = []
    for _ in range(draw(st.integers(0, 8))):
        number = draw(st.sampled_from(NUMBERS[:6] if depth else NUMBERS))
        wire_type, payload = _payload(draw, depth)
        parts.append(record(number, wire_type, payload))
    return b"".join(parts)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_soup(), st.sampled_from(sorted(pw.RECORDS)))
def test_record_soups(data, name):
    held_equal(data, name)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=64), st.sampled_from(sorted(pw.RECORDS)))
def test_any_bytes(data, name):
    held_equal(data, name)


# -- samples, truncations, mutations, limits -----------------------------------------------


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_samples_truncations_and_mutations(path):
    data = path.read_bytes()
    assert held_equal(data)
    for cut in range(len(data)):
        held_equal(data[:cut])
    for mutated in mutations(data, random.Random(path.name)):
        held_equal(mutated)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
@pytest.mark.parametrize(
    "limit", [{"max_depth": 1}, {"max_depth": 2}, {"max_depth": 3}, {"max_string": 4}]
)
def test_tight_limits(path, limit):
    held_equal(path.read_bytes(), limits=Limits(**limit))


def test_limits_beyond_c_are_the_python_readers():
    data = SAMPLES[0].read_bytes()
    huge = Limits(max_depth=2**70, max_string=2**70)
    assert pw.order.compiled.try_read(data, 0, len(data), huge, 1) is None
    assert same(pw.order.read(data, 0, len(data), huge, 1)[0], pw.parse(data))


MONEY = record(1, 2, b"EUR") + record(2, 0, uvarint(5))
CASES_BY_HAND = {
    "singular read twice": record(1, 2, b"a") + record(1, 2, b"b"),
    "oneof switch": record(13, 2, b"v") + record(14, 0, b"\x05") + record(12, 2, b""),
    "oneof member twice": record(14, 0, b"\x05") + record(14, 0, b"\x06"),
    "map key twice": record(8, 2, record(1, 2, b"k") + record(2, 2, b"v")) * 2,
    "map keys read again": b"".join(
        record(8, 2, record(1, 2, k) + record(2, 2, v))
        for k, v in [
            (b"a", b"1"),
            (b"b", b"2"),
            (b"a", b"3"),
            (b"c", b"4"),
            (b"b", b"5"),
            (b"a", b"6"),
        ]
    ),
    "map value before key": record(8, 2, record(2, 2, b"v") + record(1, 2, b"k")),
    "map entry with unknowns": record(8, 2, record(3, 0, b"\x01") + record(1, 2, b"k")),
    "map message value absent": record(19, 2, record(1, 2, b"EUR")),
    "map message value": record(19, 2, record(1, 2, b"EUR") + record(2, 2, MONEY)),
    "map empty entry": record(8, 2, b""),
    "packed empty": record(20, 2, b""),
    "packed twice": record(20, 2, b"\x01\x02") + record(20, 2, b"\x03"),
    "unpacked packable": record(20, 0, b"\x01") + record(20, 0, b"\x7f"),
    "packed unpacked field": record(10, 2, b"\x01\x00\x00\x00" * 2),
    "packed fixed ragged": record(10, 2, b"\x01\x00\x00"),
    "packed varint cut": record(20, 2, b"\x80"),
    "default written": record(2, 0, b"\x00") + record(17, 0, b"\x00"),
    "bool two": record(17, 0, b"\x02"),
    "minus zero": record(15, 1, struct.pack("<d", -0.0)),
    "nan payload": record(16, 5, b"\x01\x00\x80\x7f")
    + record(15, 1, b"\x01" + b"\x00" * 5 + b"\xf0\x7f"),
    "int32 ten bytes": record(20, 0, uvarint(2**64 - 1)),
    "out of order": record(2, 0, b"\x01") + record(1, 2, b"a"),
    "wrong wire type": record(2, 1, b"\x00" * 8) + record(1, 0, b"\x01"),
    "unknown fields": record(3000, 2, b"hello") + record(21, 5, b"\x00" * 4),
    "nested read twice": record(11, 2, MONEY) + record(11, 2, record(3, 5, b"\x01\x00\x00\x00")),
    "nested unknown": record(6, 2, record(9, 0, b"\x01")),
    "items": record(5, 2, record(3, 2, MONEY) + record(5, 2, b"x")) * 3,
    "non-minimal key": b"\x90\x00\x01",
    "key over 32 bits": b"\xff\xff\xff\xff\x7f\x00",
    "varint over 64 bits": b"\x10" + b"\xff" * 9 + b"\x02",
    "varint eleven bytes": b"\x10" + b"\x80" * 10 + b"\x00",
    "field number zero": b"\x00\x00",
    "group start": b"\x0b",
    "group": b"\x0b\x0c" + record(2, 0, b"\x01"),
    "group of records": bytes.fromhex("abbb01" "08011203616263" "1d00000000" "acbb01"),
    "nested groups": bytes.fromhex("ab01" + "0b" * 3 + "0c" * 3 + "ac01"),
    "group ends otherwise": bytes.fromhex("0b14"),
    "group in a map entry": record(8, 2, b"\x1b\x1c" + record(1, 2, b"k")),
    "group in a nested message": record(6, 2, b"\x0b\x0c"),
    "group end": b"\x0c",
    "wire type six": b"\x0e\x00",
    "length past end": b"\x0a\x05abc",
    "not utf-8": record(1, 2, b"\xc3\x28"),
    "nested not utf-8": record(6, 2, record(1, 2, b"\xff")),
    "largest number": uvarint((2**29 - 1) << 3) + b"\x01",
    "deep items": record(5, 2, record(3, 2, record(3, 5, b"\x00" * 4))),
}


@pytest.mark.parametrize("name", sorted(CASES_BY_HAND))
def test_cases_by_hand(name):
    data = CASES_BY_HAND[name]
    for record_name in pw.RECORDS:
        held_equal(data, record_name)
    held_equal(data, limits=Limits(max_depth=2))


def test_what_the_compiled_reader_takes():
    """Canonical and non-canonical bytes alike (groups kept whole, map keys read again,
    records in forms encode does not write kept as their bytes); errors are the Python
    reader's."""
    for name in (
        "out of order",
        "unknown fields",
        "singular read twice",
        "oneof switch",
        "packed twice",
        "unpacked packable",
        "default written",
        "group",
        "nested groups",
        "group in a nested message",
        "map key twice",
        "map keys read again",
        # kept as their record's bytes (tests/test_protobuf_kept_forms.py)
        "map message value absent",
        "group in a map entry",
        "non-minimal key",
        "bool two",
        "int32 ten bytes",
    ):
        assert held_equal(CASES_BY_HAND[name]), name
    assert not held_equal(CASES_BY_HAND["group start"])


# -- writing --------------------------------------------------------------------------------


def _odd_models():
    base = pw.parse(SAMPLES[0].read_bytes())
    yield base
    yield dataclasses.replace(base, status=pw.OrderStatus.PAID)  # an IntEnum
    yield dataclasses.replace(base, gift=1)
    yield dataclasses.replace(base, customer_id=-1)
    yield dataclasses.replace(base, customer_id=2**64)
    yield dataclasses.replace(base, ratings=(1, 2))
    yield dataclasses.replace(base, ratings=[2**31])
    yield dataclasses.replace(base, tags=None)
    yield dataclasses.replace(base, items=[None])
    yield dataclasses.replace(base, voucher_code="a", loyalty_points=1)
    yield dataclasses.replace(base, order_id="\ud800")
    yield dataclasses.replace(base, order_id=b"bytes")
    yield dataclasses.replace(base, delivery_longitude=1e300)
    yield dataclasses.replace(base, delivery_longitude=math.nan, delivery_latitude=-0.0)
    yield dataclasses.replace(base, delivery_latitude=1)
    yield dataclasses.replace(base, attributes={"k": None})
    yield dataclasses.replace(base, subtotals={"EUR": None})
    yield dataclasses.replace(base, subtotals={"EUR": pw.Money(units=-1)})
    yield dataclasses.replace(base, total={"units": 1})
    yield dataclasses.replace(base, wire_layout=(1, 2))
    yield dataclasses.replace(base, trace_id=bytearray(b"x"))
    yield pw.Order()


@pytest.mark.parametrize("index", range(22))
def test_writer_on_odd_models(index):
    writes_equal(list(_odd_models())[index])


# -- lazy models ------------------------------------------------------------------------------


def pending(model) -> bool:
    """Whether ``model`` is still a span: its slots hold the reader's ``Pending``."""
    return any(type(r).__name__ == "Pending" for r in gc.get_referents(model))


def test_a_parsed_model_is_built_on_first_access():
    data = SAMPLES[0].read_bytes()
    model = pw.parse(data)
    assert pending(model)
    assert model.order_id == exact(data, "order", pw._LIMITS).order_id
    assert not pending(model)  # the whole message, not one field
    assert model.items and all(pending(item) for item in model.items)  # nested: their turn
    assert same(model, exact(data, "order", pw._LIMITS))


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_writes_and_deletes_before_any_read(path):
    data = path.read_bytes()
    expected = exact(data, "order", pw._LIMITS)
    model = pw.parse(data)
    model.gift = not expected.gift
    expected.gift = not expected.gift
    assert same(model, expected) and pw.build(model) == pw.build(expected)
    model, expected = pw.parse(data), exact(data, "order", pw._LIMITS)
    del model.note
    del expected.note
    errors = []
    for m in (model, expected):
        with pytest.raises(AttributeError) as err:
            m.note  # noqa: B018 (the error of an unset slot is the test)
        errors.append(str(err.value))
    assert errors[0] == errors[1]
    with pytest.raises(AttributeError):
        del model.note
    assert same(model.items, expected.items) and model.tags == expected.tags


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_form_of_a_lazy_model_is_the_eager_one(path):
    data = path.read_bytes()
    expected = exact(data, "order", pw._LIMITS)
    assert pw.to_dict(pw.parse(data)) == pw.to_dict(expected)
    assert to_jsonable(pw.parse(data)) == to_jsonable(expected)
    assert list(pw.to_rows(pw.parse(data))) == list(pw.to_rows(expected))
    assert same(copy.copy(pw.parse(data)), expected)
    assert same(copy.deepcopy(pw.parse(data)), expected)
    assert same(dataclasses.replace(pw.parse(data)), expected)
    assert pw.build(pw.parse(data)) == pw.build(expected)
    assert same(pw.parse_construct(data), expected) and same(pw.parse(data), expected)


def test_the_input_buffer_is_never_shared():
    """A lazy model keeps the input only when it is ``bytes`` (immutable); a bytearray or
    memoryview the caller changes after ``parse`` or ``try_read`` does not change the model
    (runtime/_compiled/buffers.pxd copies it once)."""
    data = SAMPLES[0].read_bytes()
    expected = exact(data, "order", pw._LIMITS)
    for make in (bytearray, lambda d: memoryview(bytearray(d))):
        source = make(data)
        model = pw.parse(source)
        source[:] = bytes(len(data))
        assert same(model, expected)
    for make in (bytearray, lambda d: memoryview(bytearray(b"head" + d))[4:]):
        view = make(data)
        got = pw.order.compiled.try_read(view, 0, len(data), pw._LIMITS, 1)
        assert got is not None and got[1] == len(data)  # read in C, at the view's offsets
        view[:] = bytes(len(data))
        assert same(got[0], expected)
    view = memoryview(bytearray(data))
    got = pw.order.read(view, 0, len(data), pw._LIMITS, 1)[0]
    view[:] = bytes(len(data))
    assert same(got, expected)


BUFFERS = {
    "bytes": bytes,
    "bytearray": bytearray,
    "memoryview": memoryview,
    "memoryview of a bytearray": lambda d: memoryview(bytearray(d)),
}


@pytest.mark.parametrize("make", BUFFERS.values(), ids=BUFFERS)
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_parse_takes_any_contiguous_buffer_from_c(path, make):
    """``parse`` of a sample, a truncation and a mutation of it in bytes, a bytearray or a
    memoryview: read from C (``read_whole`` takes it) where bytes are, with the model or
    the DecodeError the Python reader gives for the bytes."""
    data = path.read_bytes()
    whole = pw.order.compiled.read_whole
    inputs = [data, data[: len(data) // 2], *mutations(data, random.Random(path.name))]
    for each in inputs:
        got = whole(make(each), {})
        assert (got is None) == (whole(each, {}) is None)
        expected = exact(each, "order", pw._LIMITS)
        if isinstance(expected, str):
            with pytest.raises(DecodeError) as raised:
                pw.parse(make(each))
            assert f"DecodeError: {raised.value}" == expected
            continue
        assert same(pw.parse(make(each)), expected)
        assert got is None or same(got, expected)


def test_the_class_keeps_its_slots():
    """On the class, a field is still its slot's ``member_descriptor``; on another object
    it raises what the slot raises."""
    import types

    assert type(pw.Order.order_id) is types.MemberDescriptorType
    lazy = pw.Order.__dict__["order_id"]
    with pytest.raises(TypeError):
        lazy.__get__(pw.Money(), pw.Money)
    with pytest.raises(TypeError):
        lazy.__set__(object(), "x")
    assert pw.Order(order_id="x").order_id == "x"


def test_parse_and_build_use_the_compiled_loop():
    data = SAMPLES[0].read_bytes()
    assert pw.FAST_READERS["order"] == pw.order.compiled.read
    assert pw.TABLE_READERS["order"] == pw.order.compiled.read_whole  # parse(data), from C
    assert pw.FAST_WRITERS["order"] == pw.order.compiled.write
    assert pw.build(pw.parse(data)) == data


def test_parse_from_c_declines_what_the_python_parse_decides():
    """``read_whole`` (what ``parse(data)`` runs first) reads only with the module's defaults
    (bytes, bytearray or a C-contiguous memoryview, of any format: its bytes); limits given,
    other buffers and messages over ``max_message_bytes`` go to the Python ``parse``, which
    gives its model or its error."""
    data = SAMPLES[0].read_bytes()
    whole = pw.order.compiled.read_whole
    assert same(whole(data, {}), exact(data, "order", pw._LIMITS))
    assert whole(data, {"max_depth": 1}) is None
    assert whole(memoryview(data)[::2], {}) is None
    assert same(whole(memoryview(data).cast("c"), {}), exact(data, "order", pw._LIMITS))
    try_read = pw.order.compiled.try_read  # ProtobufMessage.read's: the same buffers
    assert try_read(memoryview(data)[::2], 0, len(data) // 2, pw._LIMITS, 1) is None
    model, _ = try_read(memoryview(data).cast("c"), 0, len(data), pw._LIMITS, 1)
    assert same(model, exact(data, "order", pw._LIMITS))
    assert try_read("text", 0, 0, pw._LIMITS, 1) is None
    assert whole(data[:-1], {}) is None or same(
        whole(data[:-1], {}), exact(data[:-1], "order", pw._LIMITS)
    )
    with pytest.raises(DecodeError, match="max_message_bytes"):
        pw.parse(data, max_message_bytes=len(data) - 1)
    with pytest.raises(DecodeError, match="max_depth"):
        pw.parse(data, max_depth=1)


def test_max_count_is_counted_in_c():
    """A message longer than ``max_count`` bytes is read in C unless a list or map of it
    holds more elements than that, where the Python reader raises (the compiled reader
    declines, ``parse`` raises the same error); a map is counted by its entries' records,
    so a key read again may decline a map the Python reader takes."""
    limits = Limits(max_count=3)
    entries = b"".join(record(8, 2, record(1, 2, bytes([k])) + record(2, 2, b"v")) for k in b"abcd")
    taken = {
        "a long text": record(1, 2, b"a" * 20),
        "packed varints": record(20, 2, b"\x01\x02\x03") + record(1, 2, b"a" * 8),
        "packed twice": record(20, 2, b"\x01\x02") + record(20, 2, b"\x7f"),
        "unpacked fixed": record(10, 5, b"\x01\x00\x00\x00") * 3,
        "packed fixed": record(10, 2, b"\x01\x00\x00\x00" * 3),
        "map": entries[: 3 * len(entries) // 4],
        "nested lists": record(5, 2, record(5, 2, b"x" * 9) * 3) * 3,
        "non-minimal key": b"\x90\x00\x01" + record(20, 2, b"\x01\x02\x03"),
    }
    for name, data in taken.items():
        assert len(data) > 3 and held_equal(data, limits=limits), name
    declined = {
        "packed varints": record(20, 2, b"\x01\x02\x03\x04"),
        "packed twice": record(20, 2, b"\x01\x02") + record(20, 2, b"\x7f\x05"),
        "unpacked": record(20, 0, b"\x01") * 4,
        "unpacked fixed": record(10, 5, b"\x01\x00\x00\x00") * 4,
        "packed fixed": record(10, 2, b"\x01\x00\x00\x00" * 4),
        "strings": record(7, 2, b"t") * 4,
        "map": entries,
        "nested": record(5, 2, record(5, 2, b"x") * 4),
    }
    for name, data in declined.items():
        assert not held_equal(data, limits=limits), name
        with pytest.raises(DecodeError, match="max_count"):
            pw.parse(data, max_count=3)
    key_again = b"".join(
        record(8, 2, record(1, 2, bytes([k])) + record(2, 2, b"v")) for k in b"abca"
    )
    assert not held_equal(key_again, limits=limits)  # declined: the Python reader's
    assert pw.parse(key_again, max_count=3).attributes == dict.fromkeys("bca", "v")
