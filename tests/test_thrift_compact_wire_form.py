"""Thrift Compact in forms Apache's readers take and no writer writes: a varint longer than
its value needs (a value, a string length, a list or map size, a long-form field id, the
seqid), a stop byte whose high nibble is not 0 (``0x20``, ``0xe0``), a bool element other
than 1 or 2 (read as false), a map key written twice (the last value wins). Apache's
readers (lib/py/src/protocol/TCompactProtocol.py and the C reader lib/py/src/ext/compact.h)
take all of them (docs/reference/research/thrift_compact.md, "Forms kept"), so they decode
here too, and every such input is written back byte for byte: the struct whose own bytes
hold one keeps them as ``WireLayout.wire_form`` (a schemaless struct as
``RawStruct.wire_form``, an envelope as ``Message.wire_head``), and build writes them back
while the model still reads as them. The compiled loop gives the Python reader's model.
"""

from __future__ import annotations

import dataclasses
import json
import random
import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from thrift_support import apache_classes, codec, norm, struct_strategy, thrift_model

from generated import parquet
from generated import thrift_compact as tc
from generator.cli import fuzz
from generator.emit.user_spec import import_spec
from generator.spec.thrift import TType
from runtime.core.errors import DecodeError

SPEC = thrift_model()
MOD = codec()
APACHE = apache_classes(SPEC)
VARINT_BYTES = {"i16": 3, "i32": 5, "enum": 5, "i64": 10, "size": 5, "field id": 3}
"""The longest form of each varint Apache's C reader takes (its Python reader takes 10)."""


class Form:
    """How the writer below departs from the canonical form: ``extra[k]`` more bytes for
    the k-th varint (in wire order, up to its longest form), ``stops[k]`` the k-th stop
    byte, ``falses[k]`` the byte of the k-th false bool element."""

    def __init__(self, extra=(), stops=(), falses=()):
        self.extra, self.stops, self.falses = list(extra), list(stops), list(falses)

    def varint(self, u: int, what: str, out: bytearray) -> None:
        raw = bytearray()
        while u > 0x7F:
            raw.append(u & 0x7F | 0x80)
            u >>= 7
        raw.append(u)
        more = min(self.extra.pop(0) if self.extra else 0, VARINT_BYTES[what] - len(raw))
        if more > 0:
            raw[-1] |= 0x80
            raw += b"\x80" * (more - 1) + b"\x00"
        out += raw

    def stop(self) -> int:
        return self.stops.pop(0) if self.stops else 0

    def false(self) -> int:
        return self.falses.pop(0) if self.falses else 2


def zigzag(v: int) -> int:
    return (v << 1) ^ (v >> 63)


def write(mod, name: str, model, form: Form) -> bytes:
    """``model`` (a struct without a layout) as Thrift Compact in ``form``: the module's
    field tables walked as ``build`` walks them."""
    out = bytearray()
    _struct(mod, name, model, form, out)
    return bytes(out)


def _struct(mod, name, m, form, out):
    last = 0
    for fid, attr, _, tree in mod.FIELD_TABLES[name][4]:
        v = getattr(m, attr)
        if v is None:
            continue
        ct = (1 if v else 2) if tree[1] == "bool" else tree[0]
        if 0 < fid - last <= 15:
            out.append((fid - last) << 4 | ct)
        else:
            out.append(ct)
            form.varint(zigzag(fid), "field id", out)
        if tree[1] != "bool":
            _value(mod, tree, v, form, out)
        last = fid
    out.append(form.stop())


def _value(mod, tree, v, form, out):
    kind = tree[1]
    if kind == "bool":
        out.append(1 if v else form.false())
    elif kind == "i8":
        out.append(v & 0xFF)
    elif kind in ("i16", "i32", "i64", "enum"):
        form.varint(zigzag(int(v)) & (1 << 64) - 1, kind, out)
    elif kind == "double":
        out += struct.pack("<d", v)
    elif kind in ("string", "binary"):
        data = v.encode() if isinstance(v, str) else v
        form.varint(len(data), "size", out)
        out += data
    elif kind == "uuid":
        out += v.bytes
    elif kind == "struct":
        _struct(mod, tree[2], v, form, out)
    elif kind in ("list", "set"):
        et = tree[2][0]
        if len(v) <= 14:
            out.append(len(v) << 4 | et)
        else:
            out.append(0xF0 | et)
            form.varint(len(v), "size", out)
        for x in v:
            _value(mod, tree[2], x, form, out)
    else:
        form.varint(len(v), "size", out)
        if v:
            out.append(tree[2][0] << 4 | tree[3][0])
        for a, b in v.items():
            _value(mod, tree[2], a, form, out)
            _value(mod, tree[3], b, form, out)


def python_parse(mod, data, record, **kw):
    loop, mod._LOOP = mod._LOOP, None
    try:
        return mod.parse(data, record, **kw)
    finally:
        mod._LOOP = loop


def python_build(mod, model):
    loop, mod._LOOP = mod._LOOP, None
    try:
        return mod.build(model)
    finally:
        mod._LOOP = loop


def plain(model):
    """``model`` without its layouts (nested ones too): the values alone."""
    if isinstance(model, list):
        return [plain(x) for x in model]
    if isinstance(model, dict):
        return {plain(k): plain(v) for k, v in model.items()}
    if dataclasses.is_dataclass(model) and hasattr(model, "wire_layout"):
        values = {f.name: plain(getattr(model, f.name)) for f in dataclasses.fields(model)}
        return type(model)(**{**values, "wire_layout": None})
    return model


def compiled_parse(mod, data: bytes, record: str):
    """The compiled loop's model of ``data`` (None: it declines, or it is not built)."""
    if mod._LOOP is None or record in ("message", "raw"):
        return None
    return mod._LOOP.parse(record, data, mod._CONTRACT.options({}))


def assert_exact(mod, data: bytes, record: str, **kw):
    """Both tiers read ``data`` alike and write it back byte for byte, through the JSON form
    too. Returns the model."""
    model = mod.parse(data, record, **kw)
    python = python_parse(mod, data, record, **kw)
    assert repr(model) == repr(python)  # NaN != NaN: models compare by repr
    compiled = compiled_parse(mod, data, record)
    assert compiled is None or repr(compiled) == repr(python)
    assert repr(mod.trace(data, record, **kw).model) == repr(python)  # wirespec inspect's
    assert mod.build(model) == data
    assert python_build(mod, python) == data
    form = json.loads(json.dumps(mod.to_dict(model)))
    assert mod.build(mod.from_dict(form, record, **kw)) == data
    return model


def assert_apache_reads(name: str, data: bytes, model) -> None:
    """Apache's readers (pure Python and C) take ``data`` and read ``model``'s values."""
    t = TType("struct", name=name)
    for accelerated in (False, True):
        assert norm(SPEC, APACHE.read(name, data, accelerated), t) == norm(SPEC, model, t)


def full() -> object:
    """An AllTypes with every field set, containers long enough for the long header."""
    return MOD.AllTypes(
        f_bool=True,
        f_i8=-5,
        f_i16=-300,
        f_i32=70000,
        f_i64=-(2**40),
        f_double=-0.0,
        f_string="héllo",
        f_binary=b"\x00\xff" * 70,
        f_enum=MOD.Color.BLUE,
        f_list=list(range(-8, 12)) * 5,
        f_set=["a", "b"],
        f_map={"k": 1 << 33, "": -1},
        f_struct=MOD.Inner(a=200, s="x" * 130),
        f_bools=[True, False, False, True],
        f_bytemap={1: False, -1: True},
        f_doubles=[float("nan"), 1.5],
        f_bytes=[1, -1],
        f_bool2=False,
    )


def count_varints(model, name="AllTypes") -> int:
    form = Form([1] * 10_000)
    write(MOD, name, model, form)
    return 10_000 - len(form.extra)


def test_the_writer_here_writes_build_s_bytes_in_the_canonical_form():
    model = full()
    assert write(MOD, "AllTypes", model, Form()) == MOD.build(model)
    assert MOD.parse(MOD.build(model), "AllTypes").wire_layout is None


@pytest.mark.parametrize("k", range(count_varints(full())))
def test_every_varint_longer_than_it_needs(k):
    model = full()
    for more in (1, 9):
        data = write(MOD, "AllTypes", model, Form([0] * k + [more]))
        parsed = assert_exact(MOD, data, "AllTypes")
        assert repr(plain(parsed)) == repr(MOD.parse(MOD.build(model), "AllTypes"))
        assert_apache_reads("AllTypes", data, parsed)


@pytest.mark.parametrize("stop", [0x10, 0x20, 0xE0, 0xF0])
@pytest.mark.parametrize("which", [0, 1])  # the nested Inner's, then AllTypes' own
def test_stop_bytes_with_a_high_nibble(stop, which):
    model = full()
    data = write(MOD, "AllTypes", model, Form(stops=[stop if k == which else 0 for k in (0, 1)]))
    assert data != MOD.build(model)
    parsed = assert_exact(MOD, data, "AllTypes")
    kept = parsed.f_struct.wire_layout if which == 0 else parsed.wire_layout
    assert kept.wire_form[-1] == stop and kept.order == ()
    assert (parsed.wire_layout is None) == (which == 0)  # only the struct whose bytes they are
    if MOD._LOOP is not None:  # the compiled loop takes it (and keeps the same bytes)
        assert repr(compiled_parse(MOD, data, "AllTypes")) == repr(parsed)
    assert repr(plain(parsed)) == repr(MOD.parse(MOD.build(model), "AllTypes"))
    assert_apache_reads("AllTypes", data, parsed)


@pytest.mark.parametrize("false", [0x00, 0x03, 0x7F, 0xFF])
@pytest.mark.parametrize("where", ["list", "map"])
def test_bool_elements_other_than_1_or_2_read_false(false, where):
    model = full()
    falses = [false, 2, 2] if where == "list" else [2, 2, false]  # f_bools, then f_bytemap
    data = write(MOD, "AllTypes", model, Form(falses=falses))
    parsed = assert_exact(MOD, data, "AllTypes")
    assert parsed.f_bools == model.f_bools and parsed.f_bytemap == model.f_bytemap
    assert parsed.wire_layout.wire_form == data
    assert_apache_reads("AllTypes", data, parsed)


def test_a_map_key_twice_keeps_the_last_value_and_the_bytes():
    inner = MOD.Inner(a=1)
    canonical = MOD.build(MOD.Maps(by_color={MOD.Color.RED: 1.0}, by_id={7: inner}))
    # by_id (map<i64, Inner>): size 2, key 7 twice
    twice = bytes.fromhex("2b026c0e1502000e1504001b015702000000000000f03f00")
    model = assert_exact(MOD, twice, "Maps")
    assert model.by_id == {7: MOD.Inner(a=2)} and model.wire_layout.wire_form == twice
    assert MOD.build(plain(model)) != twice
    assert plain(model) == MOD.Maps(by_id={7: MOD.Inner(a=2)}, by_color={MOD.Color.RED: 1.0})
    assert len(canonical) == len(twice) - 4
    assert_apache_reads("Maps", twice, model)


def test_a_changed_model_is_written_in_the_canonical_form():
    data = write(MOD, "AllTypes", full(), Form([2] * 40, stops=[0x30, 0x40]))
    model = MOD.parse(data, "AllTypes")
    assert model.wire_layout.wire_form == data and model.f_struct.wire_layout.wire_form
    model.f_i32 += 1
    rebuilt = MOD.build(model)
    assert rebuilt == python_build(MOD, model)
    # the nested struct did not change: its own bytes are still written as they came
    nested = model.f_struct.wire_layout.wire_form
    assert nested in rebuilt
    model.f_struct.a += 1
    assert MOD.build(model) == MOD.build(plain(model))
    assert MOD.parse(MOD.build(model), "AllTypes").wire_layout is None


def test_kept_bytes_that_no_longer_read_as_the_model_are_not_written():
    model = MOD.parse(write(MOD, "AllTypes", full(), Form([1] * 5)), "AllTypes")
    other = write(MOD, "AllTypes", MOD.AllTypes(f_i64=1), Form([1]))
    for kept in (other, b"\xff", b""):
        model.wire_layout = dataclasses.replace(model.wire_layout, wire_form=kept)
        assert MOD.build(model) == MOD.build(plain(model)) == python_build(MOD, model)


def test_a_float_keeps_its_bits_when_the_bytes_are_compared():
    # NaN != NaN and 0.0 == -0.0: the kept bytes are written for the same bits only
    model = MOD.parse(write(MOD, "AllTypes", full(), Form([1])), "AllTypes")
    assert MOD.build(model) == write(MOD, "AllTypes", full(), Form([1]))
    model.f_double = 0.0  # was -0.0
    assert MOD.build(model) == MOD.build(plain(model))


NAMED_WIRE_FORM = """
format: thrift_named_wire_form
protocol: thrift_compact
doc: A struct with a field of its own named wire_form.
structs:
  Named:
    fields:
      - {id: 1, name: wire_form, type: binary, optional: true}
      - {id: 2, name: n, type: i32, optional: true}
"""


def test_a_field_named_wire_form_is_not_the_kept_bytes():
    # the struct's kept bytes are its layout's; its field of that name is a value like any
    mod = import_spec(Path("named_wire_form.yaml"), NAMED_WIRE_FORM)
    data = bytes.fromhex("18810061150200")  # the binary's length in two bytes
    model = assert_exact(mod, data, "Named")
    assert model.wire_form == b"a" and model.wire_layout.wire_form == data
    model.n = 2
    assert mod.build(model) == bytes.fromhex("180161150400")


SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(
    data=st.data(),
    name=st.sampled_from(["AllTypes", "Gaps", "Lists", "Maps", "Node", "Holder"]),
    extra=st.lists(st.sampled_from([0, 0, 0, 1, 2, 4, 9]), max_size=60),
    stops=st.lists(st.sampled_from([0, 0, 0x10, 0xF0]), max_size=8),
    falses=st.lists(st.sampled_from([2, 2, 0, 3, 0xFF]), max_size=8),
)
def test_any_model_in_any_longer_form_round_trips(data, name, extra, stops, falses):
    model = data.draw(struct_strategy(SPEC, MOD, name))
    bytes_ = write(MOD, name, model, Form(extra, stops, falses))
    parsed = assert_exact(MOD, bytes_, name)
    canonical = MOD.build(model)
    assert MOD.build(plain(parsed)) == canonical
    assert repr(plain(parsed)) == repr(plain(MOD.parse(canonical, name)))
    if bytes_ == canonical:
        assert parsed.wire_layout is None


@settings(SETTINGS, max_examples=30)
@given(
    data=st.data(),
    record=st.sampled_from(["ColumnChunk", "PageHeader", "SchemaElement", "LogicalType"]),
    extra=st.lists(st.sampled_from([0, 0, 1, 3, 9]), max_size=40),
    stops=st.lists(st.sampled_from([0, 0x20, 0xE0]), max_size=6),
)
def test_parquet_structs_in_longer_forms_round_trip(data, record, extra, stops):
    # the spec import-thrift made from parquet-format's IDL: the same runtime, the same rules
    model = data.draw(parquet.strategies(record))
    bytes_ = write(parquet, record, model, Form(extra, stops))
    parsed = assert_exact(parquet, bytes_, record)
    assert parquet.build(plain(parsed)) == parquet.build(model)


# -- envelopes and schemaless structs --------------------------------------------------


@pytest.mark.parametrize("seqid_more,name_more", [(0, 0), (1, 0), (3, 0), (0, 1), (0, 4), (2, 2)])
def test_message_envelopes_with_longer_varints(seqid_more, name_more):
    body = tc.build(tc.Address(street="s"))
    head = bytearray(b"\x82\x21")
    Form([seqid_more]).varint(5, "size", head)
    Form([name_more]).varint(8, "size", head)
    data = bytes(head) + b"get_user" + body
    for kw in ({}, {"body": "Address"}):
        model = assert_exact(tc, data, "message", **kw)
        assert model.wire_head == (bytes(head) + b"get_user" if seqid_more or name_more else None)
    model.seqid = 6  # changed: the envelope as build writes it
    assert tc.build(model) == b"\x82\x21\x06\x08get_user" + body
    for kept in (b"\x82", b"\xff\xff", bytes(head) + b"get_user" + b"?"):  # not its envelope
        model.wire_head = kept
        assert tc.build(model) == b"\x82\x21\x06\x08get_user" + body


@pytest.mark.parametrize(
    "head,body",
    [
        ("82 21 01 08 6765745f75736572", "1c 16 54 e0 00"),  # the probe's finding: stop 0xe0
        ("82 21 01 03 676574", "1c 05 04 00 00 00"),  # a long-form header where delta 2 fits
        ("82 21 01 03 676574", "15 81 00 00"),  # an i32 in two bytes
        ("82 21 01 03 676574", "19 31 00 01 03 00"),  # bool elements 0 and 3
        ("82 21 01 03 676574", "19 f1 83 00 01 02 01 00"),  # size 3 in the long form
    ],
)
def test_schemaless_bodies_are_written_back(head, body):
    head, body = bytes.fromhex(head), bytes.fromhex(body)
    model = assert_exact(tc, head + body, "message")
    assert model.body.wire_form == body and model.wire_head is None
    assert tc.build(dataclasses.replace(model.body, wire_form=None)) != body
    raw = tc.parse_raw(body)
    assert raw == model.body and tc.build(raw) == body
    model.body.fields.append(tc.RawField(40, tc.CompactType.I32, 1))  # changed: canonical
    assert tc.build(model).endswith(b"\x05\x50\x02\x00")


def test_canonical_schemaless_bodies_keep_no_bytes():
    data = bytes.fromhex("822101036765741c150400160400")
    assert tc.parse(data, "message").body.wire_form is None


# -- the fuzz seeds, mutated (a small fixed-seed probe) ----------------------------------


@pytest.mark.parametrize("fmt", ["thrift_compact", "parquet"])
def test_mutated_seeds_that_decode_are_written_back(fmt):
    mod = fuzz.module(fmt)
    rng = random.Random(1)
    decoded = 0
    records = fuzz.records(fmt)
    for record in records if fmt == "thrift_compact" else rng.sample(records, 8):
        for seed in fuzz.seeds(fmt, record)[:3]:
            for _ in range(60):
                data = bytearray(seed)
                for _ in range(rng.randint(1, 3)):
                    if data:
                        data[rng.randrange(len(data))] = rng.randrange(256)
                data = bytes(data)
                try:
                    model = mod.parse(data, record)
                except DecodeError:
                    continue
                decoded += 1
                assert mod.build(model, record) == data, (record, data.hex())
                assert repr(python_parse(mod, data, record)) == repr(model)
    assert decoded > 200
