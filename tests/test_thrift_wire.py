"""Nothing dropped: a struct read with an older schema, or from a writer that lays it out
otherwise, keeps its unknown fields, unknown union members, bool container types, field
order and header forms (a ``WireLayout``), and rebuilds byte for byte. The bytes come from
Apache thrift (pure Python and C) and thriftpy2, written with the newer schema."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from thrift_support import (
    SHAPES,
    apache_classes,
    codec,
    norm,
    struct_strategy,
    thrift_model,
    thriftpy2_module,
    tp2_to_peer,
)

from generator.emit.user_spec import import_spec
from generator.spec.thrift import TType
from runtime.core.errors import DecodeError, EncodeError
from runtime.formats import thrift_compact as rt

NEW_SPEC = thrift_model()
NEW = codec()
APACHE = apache_classes(NEW_SPEC)
TP2 = thriftpy2_module(NEW_SPEC, "wire_shapes_thrift")
NAMES = ["AllTypes", "Gaps", "Lists", "Maps", "Node", "Holder"]
SETTINGS = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# What the older reader lacks: fields and a union member (Choice.inner: the shape of
# parquet-cpp's newer LogicalType members); AllTypes.f_i16 is an i32 to it (a known id with
# another wire type); it declares Lists' fields in reverse (writers use the newer order).
DROPPED = {
    "AllTypes": {9, 13, 16},
    "Gaps": {5, 2000},
    "Lists": {2, 4},
    "Maps": {3},
    "Choice": {3},
    "Holder": {2},
}


def _older_module():
    data = yaml.safe_load(SHAPES.read_text())
    data["format"] = "thrift_shapes_older"
    for name, ids in DROPPED.items():
        body = data["structs"][name]
        body["fields"] = [f for f in body["fields"] if f["id"] not in ids]
    for f in data["structs"]["AllTypes"]["fields"]:
        if f["id"] == 3:
            f["type"] = "i32"
    data["structs"]["Lists"]["fields"].reverse()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "shapes_older.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False))
        return import_spec(path)


OLD = _older_module()


def stype(name):
    return TType("struct", name=name)


def _tp2_bytes(model, name):
    from thriftpy2.protocol import TCompactProtocolFactory
    from thriftpy2.utils import serialize

    return serialize(tp2_to_peer(TP2, NEW_SPEC, model, stype(name)), TCompactProtocolFactory())


WRITERS = {
    "wirespec": lambda model, name: NEW.build(model),
    "apache-py": lambda model, name: APACHE.write(APACHE.to_peer(model, stype(name))),
    "apache-c": lambda model, name: APACHE.write(APACHE.to_peer(model, stype(name)), True),
    "thriftpy2": _tp2_bytes,
}


def _rebuilds(mod, data, name):
    """``data`` read by ``mod`` rebuilds byte for byte, also through the JSON form, and
    the traced reader agrees with the fast one."""
    model = mod.parse(data, name)
    assert mod.build(model) == data
    assert mod.build(mod.from_dict(mod.to_dict(model), name)) == data
    assert mod.to_dict(mod.trace(data, name).model) == mod.to_dict(model)  # NaN != NaN
    return model


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.parametrize("name", NAMES)
def test_peer_bytes_rebuild_byte_for_byte_with_the_older_and_the_same_schema(name, writer):
    @SETTINGS
    @given(struct_strategy(NEW_SPEC, NEW, name, uuid_ok=writer != "thriftpy2"))
    def check(model):
        data = WRITERS[writer](model, name)
        _rebuilds(NEW, data, name)
        _rebuilds(OLD, data, name)

    check()


@pytest.mark.parametrize("name", ["AllTypes", "Holder"])
def test_a_changed_older_model_keeps_the_newer_fields(name):
    """The older reader changes a field it knows; Apache, with the newer schema, reads
    that change and every field the older one kept as bytes."""

    @SETTINGS
    @given(struct_strategy(NEW_SPEC, NEW, name))
    def check(model):
        data = WRITERS["apache-py"](model, name)
        older = OLD.parse(data, name)
        if name == "AllTypes":
            older.f_i64 = model.f_i64 = 42
        else:
            older.id = model.id = 42
        peer = APACHE.read(name, OLD.build(older))
        assert norm(NEW_SPEC, peer, stype(name)) == norm(NEW_SPEC, model, stype(name))

    check()


def test_unknown_union_member_decodes_and_rebuilds():
    model = NEW.Holder(id=7, choice=NEW.Choice(inner=NEW.Inner(a=1, s="x")))
    data = WRITERS["apache-c"](model, "Holder")
    older = _rebuilds(OLD, data, "Holder")
    choice = older.choice
    assert (choice.n, choice.s) == (None, None)
    (member,) = choice.wire_layout.unknown
    assert member == rt.UnknownField(3, OLD.CompactType.STRUCT, NEW.build(NEW.Inner(a=1, s="x")))
    assert OLD.to_dict(choice) == {
        "$wire": {"order": [{"id": 3, "type": "STRUCT", "data": {"$hex": member.data.hex()}}]}
    }
    choice.n = 5  # a member set since parsing replaces the unknown one
    assert NEW.parse(OLD.build(older), "Holder").choice == NEW.Choice(n=5)
    with pytest.raises(DecodeError, match="no field set"):  # an empty union is still refused
        OLD.parse(b"\x00", "Choice")
    with pytest.raises(EncodeError, match="exactly one"):
        OLD.build(OLD.Choice())


def _bool_types_2(value):
    """A raw struct's bool containers with element type 2 (as datafusion writes them)."""
    if isinstance(value, NEW.RawStruct):
        for f in value.fields:
            _bool_types_2(f.value)
    elif isinstance(value, NEW.RawList):
        if value.element_type == NEW.CompactType.BOOLEAN_TRUE:
            value.element_type = NEW.CompactType.BOOLEAN_FALSE
        for x in value.items:
            _bool_types_2(x)
    elif isinstance(value, NEW.RawMap):
        if value.value_type == NEW.CompactType.BOOLEAN_TRUE:
            value.value_type = NEW.CompactType.BOOLEAN_FALSE
        for k, v in value.items:
            _bool_types_2(k)
            _bool_types_2(v)


@pytest.mark.parametrize("name", ["AllTypes", "Lists", "Holder"])
def test_bool_element_type_2_is_kept(name):
    @SETTINGS
    @given(struct_strategy(NEW_SPEC, NEW, name))
    def check(model):
        raw = NEW.parse_raw(NEW.build(model))
        _bool_types_2(raw)
        data = NEW.build(raw)
        _rebuilds(NEW, data, name)
        _rebuilds(OLD, data, name)
        for accelerated in (False, True):
            peer = APACHE.read(name, data, accelerated)
            assert norm(NEW_SPEC, peer, stype(name)) == norm(NEW_SPEC, model, stype(name))

    check()


def test_datafusion_bool_list_header():
    data = bytes.fromhex("59 32 010201 00")  # Lists.flags = [T, F, T], element type 2
    lists = _rebuilds(NEW, data, "Lists")
    assert lists.flags == [True, False, True]
    assert lists.wire_layout.header_types == b"\x02"
    assert NEW.build(NEW.Lists(flags=[True, False, True])).hex() == "593101020100"


@pytest.mark.parametrize(
    "hex_, value, layout",
    [
        # a long-form header where a delta fits (05 = i32, then zigzag id 1)
        ("050202 00", 1, rt.WireLayout((1,), (0,))),
        # field 1 twice (the second header is long: delta 0): the last value is the
        # model's, as in every peer; the first is kept as bytes
        ("1502 050204 00", 2, rt.WireLayout((rt.UnknownField(1, 5, b"\x02"), 1))),
        # a known id with another wire type: a string where the schema says i32
        ("180178 00", None, rt.WireLayout((rt.UnknownField(1, 8, b"\x01x"),))),
        # an unknown bool field, long form though the delta fits
        ("1502 0106 00", 1, rt.WireLayout((1, rt.UnknownField(3, 1, b"")), (1,))),
    ],
)
def test_header_forms_repeats_and_types_are_kept(hex_, value, layout):
    data = bytes.fromhex(hex_)
    inner = _rebuilds(NEW, data, "Inner")
    assert (inner.a, inner.wire_layout) == (value, layout)
    assert APACHE.read("Inner", data).a == value


def test_an_empty_list_keeps_its_element_type_and_a_long_size_its_form():
    data = bytes.fromhex("19 05 00")  # Lists.shorts = [] with element type i32 (not i16)
    assert _rebuilds(NEW, data, "Lists").shorts == []
    data = bytes.fromhex("19 f4 02 02 04 00")  # shorts = [1, 2], the size after the header
    assert _rebuilds(NEW, data, "Lists").shorts == [1, 2]
    assert APACHE.read("Lists", data).shorts == [1, 2]


def test_canonical_bytes_keep_no_layout():
    for name, model in [
        ("Gaps", NEW.Gaps(hundred=1, one="a", big=True, far=0.5)),
        ("Lists", NEW.Lists(shorts=[], flags=[True], nested=[[]], colors=[])),
        ("AllTypes", NEW.AllTypes(f_i64=1, f_bools=[], f_bytemap={1: False})),
    ]:
        assert NEW.parse(NEW.build(model), name).wire_layout is None


def test_new_messages_follow_declaration_order_and_set_fields_follow_the_layout():
    gaps = NEW.Gaps(hundred=1, five=True, one="a", zero=3)
    assert NEW.build(gaps) == WRITERS["apache-py"](gaps, "Gaps")  # IDL order, as Apache
    ascending = WRITERS["apache-c"](gaps, "Gaps")  # the C writer goes by id
    parsed = _rebuilds(NEW, ascending, "Gaps")
    assert parsed.wire_layout.order == (0, 1, 5, 100)
    parsed.six, parsed.one = 6, None
    again = NEW.parse(NEW.build(parsed), "Gaps")
    assert again.wire_layout.order == (0, 5, 100, 6)
    assert dataclasses.replace(again, wire_layout=None) == NEW.Gaps(
        hundred=1, five=True, zero=3, six=6
    )


@pytest.mark.parametrize(
    "wire",
    [
        {"order": [1, 1]},
        {"order": [{"id": 3, "type": "STOP", "data": {"$hex": ""}}]},
        {"order": [{"id": "7", "type": 5, "data": {"$hex": "02"}}]},
        {"order": [{"id": 7, "type": 16, "data": {"$hex": "02"}}]},
        {"order": [{"id": 7, "type": 5, "data": "02"}]},
        {"order": [1], "long_headers": [4]},
        {"order": [1], "extra": 1},
    ],
)
def test_bad_layouts_in_the_json_form_are_encode_errors(wire):
    with pytest.raises(EncodeError):
        NEW.from_dict({"a": 1, "$wire": wire}, "Inner")
