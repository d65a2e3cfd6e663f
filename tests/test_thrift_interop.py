"""Differential tests: wirespec's generated Thrift Compact codec against Apache thrift
(pure Python and the C extension) and thriftpy2, on property-generated values."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from thrift_support import (
    apache_classes,
    codec,
    norm,
    struct_strategy,
    thrift_model,
    thriftpy2_module,
    tp2_to_peer,
)

from generator.spec.thrift import TType

SPEC = thrift_model()
MOD = codec()
APACHE = apache_classes(SPEC)
SHAPES = ["AllTypes", "Gaps", "Lists", "Maps", "Node", "Holder"]
ASCENDING = [
    n
    for n in SHAPES
    if [f.id for f in SPEC.structs[n].fields] == sorted(f.id for f in SPEC.structs[n].fields)
]
SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

try:
    from thrift.protocol import fastbinary  # noqa: F401

    HAVE_C = True
except ImportError:  # pragma: no cover
    HAVE_C = False

ACCEL = [False, True] if HAVE_C else [False]


def values(name, uuid_ok=True):
    return struct_strategy(SPEC, MOD, name, uuid_ok=uuid_ok)


def stype(name):
    return TType("struct", name=name)


@pytest.mark.parametrize("name", SHAPES)
@pytest.mark.parametrize("accelerated", ACCEL, ids=lambda a: "apache-c" if a else "apache-py")
def test_apache_bytes_decode_to_the_same_values(name, accelerated):
    @SETTINGS
    @given(values(name))
    def check(model):
        peer = APACHE.to_peer(model, stype(name))
        data = APACHE.write(peer, accelerated)
        decoded = MOD.parse(data, name)
        assert norm(SPEC, decoded, stype(name)) == norm(SPEC, model, stype(name))

    check()


@pytest.mark.parametrize("name", SHAPES)
@pytest.mark.parametrize("accelerated", ACCEL, ids=lambda a: "apache-c" if a else "apache-py")
def test_wirespec_bytes_decode_to_the_same_values_in_apache(name, accelerated):
    @SETTINGS
    @given(values(name))
    def check(model):
        data = MOD.build(model)
        peer = APACHE.read(name, data, accelerated)
        assert norm(SPEC, peer, stype(name)) == norm(SPEC, model, stype(name))
        assert MOD.parse(data, name) == model or norm(
            SPEC, MOD.parse(data, name), stype(name)
        ) == norm(SPEC, model, stype(name))

    check()


@pytest.mark.parametrize("name", SHAPES)
def test_same_bytes_as_apache_pure_python_in_declared_order(name):
    @SETTINGS
    @given(values(name))
    def check(model):
        # sets: Apache writes a Python set in its iteration order; give both that order
        peer = APACHE.to_peer(model, stype(name))
        assert MOD.build(model) == APACHE.write(peer) or _set_order_differs(model)

    check()


@pytest.mark.parametrize("name", ASCENDING)
@pytest.mark.skipif(not HAVE_C, reason="Apache's C extension is not built")
def test_same_bytes_as_apache_c_when_ids_ascend(name):
    @SETTINGS
    @given(values(name))
    def check(model):
        peer = APACHE.to_peer(model, stype(name))
        assert MOD.build(model) == APACHE.write(peer, True) or _set_order_differs(model)

    check()


def _set_order_differs(model) -> bool:
    """Sets and maps round-trip through Python sets/dicts in Apache; only a set whose
    iteration order differs from the list order may legitimately change the bytes."""
    seen = []

    def walk(v):
        if hasattr(v, "__dataclass_fields__"):
            for n in v.__dataclass_fields__:
                walk(getattr(v, n))
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for a, b in v.items():
                walk(a)
                walk(b)

    walk(model)
    # Only structs with set fields can reorder: check the set fields directly.
    for s in SPEC.structs.values():
        for f in s.fields:
            if f.type.kind == "set":
                seen.append(f)
    return bool(seen) and _has_reordered_set(model)


def _has_reordered_set(v) -> bool:
    if hasattr(v, "__dataclass_fields__"):
        s = SPEC.structs.get(type(v).__name__)
        for f in s.fields if s else ():
            x = getattr(v, f.attr)
            if f.type.kind == "set" and x is not None and list(set(x)) != list(x):
                return True
            if _has_reordered_set(x):
                return True
    elif isinstance(v, list):
        return any(_has_reordered_set(x) for x in v)
    elif isinstance(v, dict):
        return any(_has_reordered_set(x) for x in v.values())
    return False


# -- thriftpy2 (no uuid) ---------------------------------------------------------------

TP2 = thriftpy2_module(SPEC)
TP2_SHAPES = ["AllTypes", "Gaps", "Lists", "Maps", "Node", "Holder"]


def _tp2_dumps(obj):
    from thriftpy2.protocol import TCompactProtocolFactory
    from thriftpy2.utils import serialize

    return serialize(obj, TCompactProtocolFactory())


def _tp2_loads(name, data):
    from thriftpy2.protocol import TCompactProtocolFactory
    from thriftpy2.utils import deserialize

    return deserialize(getattr(TP2, name)(), data, TCompactProtocolFactory())


@pytest.mark.parametrize("name", TP2_SHAPES)
def test_thriftpy2_both_directions_and_same_bytes(name):
    @SETTINGS
    @given(values(name, uuid_ok=False))
    def check(model):
        t = stype(name)
        data = MOD.build(model)
        assert norm(SPEC, _tp2_loads(name, data), t) == norm(SPEC, model, t)
        peer_bytes = _tp2_dumps(tp2_to_peer(TP2, SPEC, model, t))
        assert norm(SPEC, MOD.parse(peer_bytes, name), t) == norm(SPEC, model, t)
        # thriftpy2 writes fields in ascending id order
        if name in ASCENDING and not _has_reordered_set(model):
            assert data == peer_bytes

    check()


# -- fixed vectors from the research notes (Apache's pure-Python writer) ----------------


@pytest.mark.parametrize(
    "model, hex_",
    [
        ({"hundred": 1, "one": "a"}, "05c801020802016100"),
        ({"five": True, "big": False}, "5102d80400"),
        ({"zero": 0}, "04000000"),
    ],
)
def test_gaps_vectors(model, hex_):
    m = MOD.Gaps(**model)
    assert MOD.build(m).hex() == hex_
    assert MOD.parse(bytes.fromhex(hex_), "Gaps") == m


def test_bool_elements_write_1_2_and_read_anything_but_1_as_false():
    m = MOD.Lists(flags=[True, False, True, True, False])
    assert MOD.build(m).hex() == "5951010201010200"
    assert MOD.parse(bytes.fromhex("5951010201010200"), "Lists") == m
    odd = bytes.fromhex("594200030 1ff00".replace(" ", ""))
    assert MOD.parse(odd, "Lists").flags == [False, False, True, False]


def test_list_headers_14_15_200():
    for n, head in [(14, "e4"), (15, "f40f"), (200, "f4c801")]:
        data = MOD.build(MOD.Lists(shorts=[1] * n))
        assert data[1 : 1 + len(head) // 2].hex() == head


def test_empty_map_is_one_zero_byte_and_i8_is_raw():
    assert MOD.build(MOD.Maps(mm={})).hex() == "1b0000"
    assert MOD.build(MOD.AllTypes(f_i8=-1, f_i64=0)).hex() == "23ff360000"


def test_doubles_little_endian_keep_nan_payload_and_negative_zero():
    import struct

    nan = struct.unpack("<d", bytes.fromhex("0100000000f8ff7f"))[0]
    m = MOD.AllTypes(f_i64=0, f_double=nan)
    data = MOD.build(m)
    assert bytes.fromhex("0100000000f8ff7f") in data
    assert struct.pack("<d", MOD.parse(data, "AllTypes").f_double).hex() == "0100000000f8ff7f"
    m = MOD.AllTypes(f_i64=0, f_double=-0.0)
    assert struct.pack("<d", MOD.parse(MOD.build(m), "AllTypes").f_double) == struct.pack(
        "<d", -0.0
    )


def test_unknown_fields_are_kept_at_any_depth():
    # Inner knows ids 1 (i32) and 2 (string): every Holder field is unknown or of another
    # type, so all of them (structs, containers, uuids, bools...) are kept as bytes by
    # wire type, and written back where they were.
    @SETTINGS
    @given(values("Holder"))
    def check(model):
        data = MOD.build(model)
        inner = MOD.parse(data, "Inner")
        assert dataclasses.replace(inner, wire_layout=None) == MOD.Inner()
        assert MOD.build(inner) == data
        raw = MOD.parse_raw(data)
        assert MOD.build(raw) == data

    check()


def test_fields_in_any_order_decode():
    m = MOD.AllTypes(f_i64=5, f_i32=3, f_string="x", f_bool=True)
    raw = MOD.parse_raw(MOD.build(m))
    raw.fields.reverse()
    data = MOD.build(raw)
    parsed = MOD.parse(data, "AllTypes")
    assert dataclasses.replace(parsed, wire_layout=None) == m
    assert parsed.wire_layout.order == (7, 5, 4, 1) and MOD.build(parsed) == data


def test_message_envelope_like_apache():
    from thrift.protocol.TCompactProtocol import TCompactProtocol
    from thrift.Thrift import TMessageType
    from thrift.transport.TTransport import TMemoryBuffer

    for seqid in (0, 1, -1, 2**31 - 1, -(2**31)):
        buf = TMemoryBuffer()
        p = TCompactProtocol(buf)
        p.writeMessageBegin("getUser", TMessageType.CALL, seqid)
        APACHE.to_peer(MOD.Inner(a=3), stype("Inner")).write(p)
        p.writeMessageEnd()
        data = buf.getvalue()
        msg = MOD.parse(data, "message", body="Inner")
        assert (msg.name, msg.type, msg.seqid, msg.body) == (
            "getUser",
            MOD.MessageType.CALL,
            seqid,
            MOD.Inner(a=3),
        )
        assert MOD.build(msg) == data
        raw = MOD.parse(data, "message")
        assert MOD.build(raw) == data
        assert MOD.build(MOD.from_dict(MOD.to_dict(raw), "message")) == data


@given(st.data())
@settings(max_examples=20, deadline=None)
def test_json_form_round_trips(data):
    name = data.draw(st.sampled_from(SHAPES))
    model = data.draw(values(name))
    wire = MOD.build(model)
    again = MOD.from_dict(MOD.to_dict(model), name)
    assert MOD.build(again) == wire
