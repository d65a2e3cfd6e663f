"""The compiled protobuf reader and writer on kept records (runtime/_compiled/protobuf.pyx's
``Ctx.kept``, protobuf_write.pyx's ``kept_reads_as``), held to the Python reader's models
and the Python writer's bytes (``read_exact``, ``write_exact``, ``_reads_as``).

The compiled reader reads a message holding such records itself: its check declines them
first, then reads the message again taking them (``check_root``), and the model it hands
out (lazy, as any) keeps them as the Python reader does. Every input here is read by both
readers: the compiled one gives the same model (tests/test_protobuf_compiled.py's
``held_equal``: values, layout, lazy forms, bytes written), and declines none the Python
reader reads.

A record read in a form upb reads and encode does not write is kept in ``wire_layout`` as
``(number, bytes)`` or ``(number, count, bytes)``. The compiled writer writes the model's
record of that entry, re-reads the kept bytes as one record of its field and writes what
they read as: the kept bytes when that is the model's record, else the model's. It
declines (the whole message goes to the Python writer) where the kept bytes are not one
record of the entry's field and form (edited bytes), and for a kept message record (the
re-read of a nested message is the Python reader's). Every model here is written by both
writers: the compiled one takes it and writes the same bytes, or declines.

Inputs: upb's forms by hand (tests/test_protobuf_kept_forms.py), their values changed and
their kept bytes edited, and drawn messages of every field of every record with non-minimal
keys, lengths and varints, 32-bit varints past 32 bits, bools of 2, packed records of odd
elements and map entries in any order, with parts missing or unknown fields, and groups.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_gallery_protobuf_wire import uvarint
from test_protobuf_compiled import exact, held_equal, pending, writes_equal
from test_protobuf_kept_forms import CASES, UPB_UNKNOWN_ENTRY

from generated import protobuf_wire as pw
from runtime.core.errors import DecodeError, EncodeError
from runtime.formats.protobuf import LEN, SCALARS, VARINT, ProtobufMessage
from runtime.formats.protobuf_records import record_field

pytestmark = pytest.mark.skipif(
    pw.order.compiled is None, reason="the compiled protobuf loop is not built"
)

DRAWN = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def python_read(data: bytes, record: str = "order"):
    """The Python reader's model (the one the compiled reader is held to)."""
    return pw.RECORDS[record].read_exact(data, 0, len(data), pw._LIMITS, 1)[0]


def compiled_bytes(model, record: str = "order") -> bytes | None:
    out = bytearray()
    return bytes(out) if pw.RECORDS[record].compiled.try_write(model, out) else None


def compiled_declines(model, message: ProtobufMessage) -> bool:
    """Whether ``model`` or a model in it keeps a record of a message (a field's, or a map
    entry's with a message value), or a replaced record of a known field as bytes (a field
    read twice): the compiled writer declines those."""
    for entry in model.wire_layout or ():
        if type(entry) is bytes and record_field(message, entry) is not None:
            return True
        if type(entry) is tuple and type(entry[-1]) is bytes:
            f = message.by_number[entry[0]]
            if f.kind == "message" or isinstance(f.map_value, ProtobufMessage):
                return True
    for f in message.fields:
        nested = f.message or (f.map_value if isinstance(f.map_value, ProtobufMessage) else None)
        value = getattr(model, f.name)
        held = value.values() if isinstance(value, dict) else value
        for v in held if isinstance(value, (list, dict)) else [value]:
            if nested is not None and v is not None and compiled_declines(v, nested):
                return True
    return False


# -- upb's forms by hand ------------------------------------------------------------------

KEPT_GROUPS = {
    "group holding a non-minimal varint": bytes.fromhex("0a0178" "ab01" "088100" "ac01" "1007"),
    "group of a non-minimal start key": bytes.fromhex("ab8100" "0801" "ac01" "1007"),
    "group of a non-minimal end key": bytes.fromhex("0a0178" "ab01" "0801" "ac8100"),
    "group holding a non-minimal key and length": bytes.fromhex("ab01" "928000" "8100" "78" "ac01"),
    "nested group holding a non-minimal varint": bytes.fromhex("ab01" "0b" "08ff8100" "0c" "ac01"),
    "group in a nested message": bytes.fromhex("3207" "0b" "0880808000" "0c"),
    "group in a map entry": bytes.fromhex("420d" "1b" "1080808000" "1c" "0a016b" "1201" "76"),
}
"""Groups (wire types 3 and 4) holding forms encode does not write: a group is kept whole
as an unknown record's bytes, whatever its records' forms, so it is written back as read
(read in C since the shared records of runtime/_compiled/protobuf_records.pxd)."""

BY_HAND = {**CASES, **KEPT_GROUPS, "map entry with an unknown field": UPB_UNKNOWN_ENTRY}


@pytest.mark.parametrize("data", BY_HAND.values(), ids=BY_HAND)
def test_the_compiled_writer_writes_kept_records_back(data):
    model = python_read(data)
    assert writes_equal(model) != compiled_declines(model, pw.order)
    if not compiled_declines(model, pw.order):
        assert compiled_bytes(model) == data
        assert pw.build(pw.parse(data)) == data


def test_changed_values_are_written_canonically_in_c():
    model = python_read(CASES["int32 enum past 32 bits"])
    model.status = 3
    assert compiled_bytes(model) == b"\x20\x03"
    packed = python_read(CASES["packed int32 non-minimal element"])
    packed.ratings.append(9)
    assert compiled_bytes(packed) == CASES["packed int32 non-minimal element"] + b"\xa2\x01\x01\x09"
    packed.ratings[0] = 2
    assert compiled_bytes(packed) == b"\xa2\x01\x02\x02\x05\xa2\x01\x01\x09"
    del packed.ratings[1:]  # fewer elements than the kept record holds: written anew
    assert compiled_bytes(packed) == b"\xa2\x01\x01\x02"
    entry = python_read(CASES["map entry value then key"])
    entry.attributes["k"] = "w"
    assert compiled_bytes(entry) == b"\x42\x06\x0a\x01k\x12\x01w"
    for changed in (model, packed, entry):
        assert writes_equal(changed)


def test_a_replaced_record_left_alone_is_refused():
    """The oneof read twice keeps its first member's record as bytes; with the second gone,
    parse would read that record as the model's value: refused (the compiled writer hands
    it to Python)."""
    data = CASES["oneof uint64, then a non-minimal voucher"]
    voucher = python_read(data)
    assert voucher.wire_layout[0] == b"\x70\x05"
    assert compiled_bytes(voucher) is None and pw.build(voucher) == data
    voucher.voucher_code = None
    assert compiled_bytes(voucher) is None
    with pytest.raises(EncodeError, match=r"^wire_layout\[0\]: bytes 7005 are a record of "):
        pw.build(voucher)
    assert not writes_equal(voucher)


EDITED = [
    b"",
    b"\xff",
    b"\xa2\x01\x01\x05",
    b"\xa2\x01\x04\x81\x00\x05\x07",
    b"\x10\x01",
    b"\xa2\x01\x03\x81\x00\x05\x10\x01",
    b"\xa2\x01\x03\x81\x00\x05\x08\x01",
    b"\xa2\x01\x02\x01\x05",  # the model's record, written as encode writes it
    b"\xa2\x81\x00\x02\x01\x05",  # the same elements in another form
    b"\xa2\x01\x03\x01\x05",  # a length past the end
    b"\xa0\x01\x01",  # an unpacked record of the field
]


@pytest.mark.parametrize("kept", EDITED)
def test_edited_kept_bytes_are_the_python_writers(kept):
    model = python_read(CASES["packed int32 non-minimal element"])
    model.wire_layout = ((20, 2, kept),)
    writes_equal(model)
    expected = bytearray()
    pw.order.write_exact(model, expected)
    assert pw.build(model) == bytes(expected)


# -- drawn non-canonical messages ---------------------------------------------------------


def _longer(raw: bytes) -> bytes:
    """A shortest varint written one byte longer than it needs."""
    return bytes(b | 0x80 for b in raw) + b"\x00"


@st.composite
def _varint(draw, value: int, odd: int = 4) -> bytes:
    raw = uvarint(value)
    return _longer(raw) if draw(st.integers(0, odd)) == 0 else raw


_VARINTS = st.one_of(
    st.integers(0, 3),
    st.integers(0, 2**64 - 1),
    st.sampled_from([2**31, 2**32 - 1, 2**32 + 5, 2**35 + 3, 2**63, 2**64 - 1]),
)


@st.composite
def _value(draw, kind: str, message, depth: int) -> bytes:
    """One value of ``kind`` as it follows its key (a LEN value with its length)."""
    if kind in SCALARS and SCALARS[kind][0] == VARINT:
        return draw(_varint(draw(_VARINTS)))
    if kind in SCALARS and SCALARS[kind][0] != LEN:
        width = 4 if SCALARS[kind][0] == 5 else 8
        return draw(st.binary(min_size=width, max_size=width))
    if kind == "string":
        payload = draw(st.text(max_size=5)).encode()
    elif kind == "bytes":
        payload = draw(st.binary(max_size=5))
    else:
        payload = draw(_message(message, depth + 1))
    return draw(_varint(len(payload), 6)) + payload


@st.composite
def _record(draw, message: ProtobufMessage, depth: int) -> bytes:
    if draw(st.integers(0, 9)) == 0:  # a group of a varint record, kept whole
        n = draw(st.integers(1, 30))
        inner = draw(_varint(1 << 3)) + draw(_varint(draw(_VARINTS)))
        return draw(_varint(n << 3 | 3)) + inner + draw(_varint(n << 3 | 4))
    f = draw(st.sampled_from(message.fields))
    if f.kind == "map":
        key_field, value_field = message.entries[f.number]
        parts = [
            draw(_varint(1 << 3 | key_field.wire_type, 8)) + draw(_value(f.map_key, None, depth)),
            draw(_varint(2 << 3 | value_field.wire_type, 8))
            + draw(_value(value_field.kind, value_field.message, depth)),
            b"\x18\x01",  # an unknown field of the entry
        ]
        kept = draw(st.lists(st.sampled_from(range(3)), max_size=3, unique=True))
        if draw(st.booleans()):
            kept = [0, 1]  # key then value, as encode writes it
        payload = b"".join(parts[i] for i in kept)
        return draw(_varint(f.number << 3 | LEN)) + draw(_varint(len(payload), 6)) + payload
    if f.packable and draw(st.booleans()):
        elements = draw(st.lists(_value(f.kind, None, depth), max_size=4))
        payload = b"".join(elements)
        return draw(_varint(f.number << 3 | LEN)) + draw(_varint(len(payload), 6)) + payload
    return draw(_varint(f.number << 3 | f.wire_type)) + draw(_value(f.kind, f.message, depth))


@st.composite
def _message(draw, message: ProtobufMessage, depth: int = 0) -> bytes:
    size = 6 if depth == 0 else 3 if depth == 1 else 0
    return b"".join(draw(st.lists(_record(message, depth), max_size=size)))


def _drawn_model(data: bytes, record: str):
    try:
        return python_read(data, record)
    except DecodeError:
        assume(False)


def _taken_where_it_should_be(model, record: str) -> None:
    took = writes_equal(model, record)
    if not compiled_declines(model, pw.RECORDS[record]):
        assert took, model


@DRAWN
@given(st.data(), st.sampled_from(sorted(pw.RECORDS)))
def test_drawn_non_canonical_messages(data, record):
    message = pw.RECORDS[record]
    raw = data.draw(_message(message))
    model = _drawn_model(raw, record)
    _taken_where_it_should_be(model, record)
    assert pw.build(model, record) == raw  # the exactness the kept records are for
    # a kept record's bytes edited: another record of any field, or any bytes
    layout = list(model.wire_layout or ())
    kept_at = [i for i, e in enumerate(layout) if type(e) is tuple and type(e[-1]) is bytes]
    if kept_at:
        i = data.draw(st.sampled_from(kept_at))
        other = data.draw(st.one_of(_record(message, 1), st.binary(max_size=6)))
        layout[i] = (*layout[i][:-1], other)
        writes_equal(dataclasses.replace(model, wire_layout=tuple(layout)), record)


_EDITS = {
    "int32": st.integers(-(2**31), 2**31 - 1),
    "int64": st.integers(-(2**63), 2**63 - 1),
    "uint32": st.integers(0, 2**32 - 1),
    "uint64": st.integers(0, 2**64 - 1),
    "sint32": st.integers(-(2**31), 2**31 - 1),
    "sint64": st.integers(-(2**63), 2**63 - 1),
    "enum": st.integers(-(2**31), 2**31 - 1),
    "bool": st.booleans(),
    "fixed32": st.integers(0, 2**32 - 1),
    "sfixed32": st.integers(-(2**31), 2**31 - 1),
    "fixed64": st.integers(0, 2**64 - 1),
    "sfixed64": st.integers(-(2**63), 2**63 - 1),
    "float": st.sampled_from([0.0, 1.5, -2.0]),
    "double": st.floats(allow_nan=False),
    "string": st.text(max_size=3),
    "bytes": st.binary(max_size=3),
}


@DRAWN
@given(st.data())
def test_drawn_messages_with_a_value_changed(data):
    raw = data.draw(_message(pw.order))
    model = _drawn_model(raw, "order")
    scalars = [f for f in pw.order.fields if f.kind in _EDITS]
    for _ in range(data.draw(st.integers(1, 3))):
        f = data.draw(st.sampled_from(scalars))
        value = getattr(model, f.name)
        if f.repeated is not None:
            if value and data.draw(st.booleans()):
                value[data.draw(st.integers(0, len(value) - 1))] = data.draw(_EDITS[f.kind])
            elif value and data.draw(st.booleans()):
                value.pop(data.draw(st.integers(0, len(value) - 1)))
            else:
                value.append(data.draw(_EDITS[f.kind]))
        elif f.oneof is None:
            setattr(model, f.name, data.draw(_EDITS[f.kind]))
    if model.attributes and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(model.attributes)))
        model.attributes[key] = data.draw(st.text(max_size=3))
    _taken_where_it_should_be(model, "order")


# -- the compiled reader ------------------------------------------------------------------


@pytest.mark.parametrize("data", BY_HAND.values(), ids=BY_HAND)
def test_the_compiled_reader_reads_kept_records(data):
    assert held_equal(data)  # taken, and the Python reader's model
    model = pw.parse(data)
    assert pending(model)  # read in C: a lazy model, not the Python reader's
    assert model.wire_layout == python_read(data).wire_layout
    assert pw.build(model) == data


def test_a_kept_record_inside_keeps_the_nested_models_kept():
    data = CASES["sint32 past 32 bits in a nested message"]
    model = pw.parse(data)
    assert model.wire_layout is None  # the order's own records are as encode writes them
    assert pending(model.items[0]) and model.items[0].wire_layout == ((4, data[2:]),)
    assert pw.build(model) == data


@DRAWN
@given(st.data(), st.sampled_from(sorted(pw.RECORDS)))
def test_drawn_non_canonical_messages_are_read_in_c(data, record):
    raw = data.draw(_message(pw.RECORDS[record]))
    took = held_equal(raw, record)
    assert took == (not isinstance(exact(raw, record, pw._LIMITS), str)), raw.hex()
    if took:
        assert pw.build(pw.parse(raw, record), record) == raw
