"""A model that ``build`` refuses names the value it could not write by its whole path, list
indices and map keys included (``kids[1].kids[0].value``, ``subtotals['b'].nanos``), in
Thrift and protobuf, with the same text in both tiers (the compiled writers decline a model
they cannot write, and the Python writer says why). A Thrift JSON form without a
``required`` field is refused by ``from_dict`` at its key path; a field of default
requiredness may be left out, as Apache's writers leave it out.

The suite runs this file with the compiled tier and with ``WIRESPEC_PURE_PYTHON=1``; each
test also holds ``build`` (the compiled tier first, when built) to the Python writer's
error.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from thrift_support import codec

from generated import parquet
from generated import protobuf_wire as pw
from generated import thrift_compact as tc
from runtime.core.errors import EncodeError
from runtime.formats import thrift_compact as rt

SHAPES = codec()
ORDER = pw.RECORDS["order"]
SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "protobuf_wire"


def thrift_refusal(module, model) -> str:
    """``build``'s error, held equal to the Python writer's."""
    with pytest.raises(EncodeError) as built:
        module.build(model)
    with pytest.raises(EncodeError) as written:
        rt.build_with(module._WRITERS[type(model).__name__], model)
    assert str(built.value) == str(written.value)
    return str(built.value)


def protobuf_refusal(model) -> str:
    """``build``'s error, held equal to the Python writer's; the compiled writer declines."""
    with pytest.raises(EncodeError) as built:
        pw.build(model)
    with pytest.raises(EncodeError) as written:
        ORDER.write_exact(model, bytearray())
    assert str(built.value) == str(written.value)
    if ORDER.compiled is not None:
        out = bytearray()
        assert not ORDER.compiled.try_write(model, out) and not out
    return str(built.value)


# -- Thrift: build -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "text"),
    [
        (
            tc.User(id=1, name="x", addresses=[tc.Address("a"), tc.Address(street=5)]),
            "addresses[1].street: expected str, got int 5",
        ),
        (tc.User(id=1, name="x", tags=["a", "b", 7]), "tags[2]: expected str, got int 7"),
        (tc.User(id=1, name="x", prefs={"a": "b", "k": 5}), "prefs['k']: expected str, got int 5"),
        (
            tc.User(id=1, name="x", prefs={"a": "b", 5: "x"}),
            "prefs[5]: key: expected str, got int 5",
        ),
        (
            SHAPES.Node(
                value=1, kids=[SHAPES.Node(value=2), SHAPES.Node(value=3, kids=[SHAPES.Node()])]
            ),
            "kids[1].kids[0].value: required field is not set",
        ),
        (
            SHAPES.Node(value=1, tail=SHAPES.Node(kids=[SHAPES.Node()])),
            "tail.value: required field is not set",
        ),
        (
            SHAPES.Maps(mm={"a": {1: ["x"], 2: ["y", 3]}}),
            "mm['a'][2][1]: expected str, got int 3",
        ),
        (
            SHAPES.Maps(by_id={5: SHAPES.Inner(a=2**40)}),
            "by_id[5].a: zigzag varint 1099511627776 is out of range for int32",
        ),
        (
            SHAPES.Lists(nested=[[1], [2, 2**40]]),
            "nested[1][1]: zigzag varint 1099511627776 is out of range for int32",
        ),
        (
            SHAPES.Holder(id=1, all=SHAPES.AllTypes(f_i64=1, f_bytemap={300: True})),
            "all.f_bytemap[300]: key: i8 300 is out of range",
        ),
        (
            SHAPES.Holder(id=1, all=SHAPES.AllTypes(f_i64=1, f_bytes=[1, 2, 300])),
            "all.f_bytes[2]: i8 300 is out of range",
        ),
        # what Python raised on a value of the wrong type is said as what was expected
        (SHAPES.Node(value="x"), "value: expected an integer, got str 'x'"),
        (
            SHAPES.Maps(mm={"a": {1: ["s"], "x": ["t"]}}),
            "mm['a']['x']: key: expected an integer, got str 'x'",
        ),
        (
            SHAPES.Maps(by_color={SHAPES.Color.RED: "x"}),
            "by_color[Color.RED]: expected a number, got str 'x'",
        ),
        (SHAPES.Lists(shorts=[1, 2.5]), "shorts[1]: expected an integer, got float 2.5"),
        (SHAPES.Lists(nested=7), "nested: expected a list, got int 7"),
        # a str or bytes has a len() and iterates: it would write its characters
        (SHAPES.Lists(flags="ab"), "flags: expected a list, got str 'ab'"),
        (SHAPES.Lists(longs=b"ab"), "longs: expected a list, got bytes b'ab'"),
        # a set<> reads as a list; a Python set (its order its hashes') is no list or set<>
        (SHAPES.Lists(shorts={1, 2}), "shorts: expected a list, got set {1, 2}"),
        (
            SHAPES.Lists(longs=frozenset([1])),
            "longs: expected a list, got frozenset frozenset({1})",
        ),
        (SHAPES.Lists(nested=[[1], {2}]), "nested[1]: expected a list, got set {2}"),
        # an empty list, str or set has no entries, but is no map
        (SHAPES.Maps(by_id=[]), "by_id: expected a mapping, got list []"),
        (SHAPES.Maps(by_id=""), "by_id: expected a mapping, got str ''"),
        (SHAPES.Maps(mm={"a": set()}), "mm['a']: expected a mapping, got set set()"),
        (SHAPES.Maps(mm={"a": {1: "st"}}), "mm['a'][1]: expected a list, got str 'st'"),
        (SHAPES.Maps(by_id=[1]), "by_id: expected a mapping, got list [1]"),
        (SHAPES.Maps(mm={"a": [1]}), "mm['a']: expected a mapping, got list [1]"),
        (SHAPES.Holder(id=1, all=5), "all: expected struct AllTypes, got int 5"),
        (
            SHAPES.Holder(id=1, all=SHAPES.AllTypes(f_i64=1, f_uuid="zz")),
            "all.f_uuid: expected a uuid.UUID, got str 'zz'",
        ),
    ],
)
def test_thrift_build_errors_name_indices_and_keys(model, text):
    assert thrift_refusal(SHAPES if type(model).__module__ != tc.__name__ else tc, model) == text


def test_thrift_map_keys_read_as_python_would_look_them_up():
    by_color = SHAPES.Maps(by_color={SHAPES.Color.RED: 1.0, SHAPES.Color.BLUE: "x"})
    assert thrift_refusal(SHAPES, by_color).startswith("by_color[Color.BLUE]: ")
    long_key = SHAPES.Holder(id=1, all=SHAPES.AllTypes(f_i64=1, f_map={"k" * 100: "x"}))
    path = thrift_refusal(SHAPES, long_key).split(": ")[0]
    assert path.startswith("all.f_map['kkk") and "..." in path and len(path) < 50


def test_thrift_index_of_an_element_that_repeats_is_its_first():
    """The index is found by identity once the write failed: the same object earlier in the
    list would have failed there."""
    bad = SHAPES.Node()
    model = SHAPES.Node(value=1, kids=[SHAPES.Node(value=2), bad, bad])
    assert thrift_refusal(SHAPES, model) == "kids[1].value: required field is not set"


def test_thrift_struct_laid_out_as_read_names_the_element():
    """A parsed struct keeps its wire layout (ids out of order here): its own writer, which
    the compiled tier leaves to Python, names the element too."""
    data = bytes.fromhex("29 3c 150400 150600 150800" "05 02 02" "00")  # kids, then value
    node = SHAPES.parse(data, "Node")
    assert node.wire_layout is not None and SHAPES.build(node) == data
    node.kids[2].value = "x"
    assert thrift_refusal(SHAPES, node).startswith("kids[2].value: ")


@pytest.mark.parametrize(
    ("attr", "value", "text"),
    [
        ("type", "x", "type: expected a MessageType, got str 'x'"),
        ("seqid", "x", "seqid: expected an integer, got str 'x'"),
        ("seqid", 1.5, "seqid: expected an integer, got float 1.5"),
    ],
)
def test_thrift_message_head_says_what_was_expected(attr, value, text):
    """A message's type or seqid that is no number: an EncodeError at its path, where build
    let Python's ValueError out or said 'not a model of this record'."""
    message = tc.Message("get_user", tc.MessageType.CALL, 1, tc.get_user_args())
    setattr(message, attr, value)
    with pytest.raises(EncodeError) as err:
        tc.build(message)
    assert str(err.value) == text


def test_thrift_message_body_paths():
    body = tc.get_user_result(success=tc.User(id=1, name="x", tags=["a", None]))
    message = tc.Message("get_user", tc.MessageType.REPLY, 1, body)
    with pytest.raises(EncodeError, match=r"^body\.success\.tags\[1\]: expected str, got None$"):
        tc.build(message)


CT, RAW = tc.CompactType, tc.RawStruct


@pytest.mark.parametrize(
    ("fields", "text"),
    [
        (
            [tc.RawField(1, CT.I32, 5), tc.RawField(7, CT.I32, "x")],
            "fields[1] (field 7, I32).value: ",
        ),
        ([tc.RawField(1, CT.I32, 5), 5], "fields[1]: expected a RawField, got int 5"),
        ([tc.RawField(1, "zz", 5)], "fields[0].type: expected a compact type, got str 'zz'"),
        ([tc.RawField("a", CT.I32, 5)], "fields[0].id: expected an integer, got str 'a'"),
        (
            [tc.RawField(3, CT.STRUCT, RAW([tc.RawField(2, CT.DOUBLE, "x")]))],
            "fields[0] (field 3, STRUCT).value.fields[0] (field 2, DOUBLE).value: expected a",
        ),
        (
            [tc.RawField(1, CT.LIST, tc.RawList(CT.I64, [1, 2, "x"]))],
            "fields[0] (field 1, LIST).value.items[2]: expected an integer, got str 'x'",
        ),
        ([tc.RawField(1, CT.SET, 5)], "fields[0] (field 1, SET).value: expected a RawList, got"),
        (
            [tc.RawField(1, CT.MAP, tc.RawMap(CT.BINARY, CT.I32, [("a", 1), (5, 2)]))],
            "fields[0] (field 1, MAP).value.items[1]: key: expected str, got int",
        ),
        (
            [tc.RawField(1, CT.MAP, tc.RawMap(CT.BINARY, CT.I32, [("a", 1), ("b", 2.5)]))],
            "fields[0] (field 1, MAP).value.items[1]: expected an integer, got float 2.5",
        ),
    ],
)
def test_thrift_raw_struct_errors_name_the_field_id_and_type(fields, text):
    """The schemaless writer names a field by its place in ``fields`` and, when its value
    fails, by its id and compact type too (what the read side calls ``#7``)."""
    assert thrift_refusal(tc, RAW(fields)).startswith(text)
    message = tc.Message("get_user", tc.MessageType.CALL, 1, RAW(fields))
    with pytest.raises(EncodeError, match="^body." + re.escape(text)):
        tc.build(message)


# -- Thrift: from_dict of a form without a required field -----------------------------------


def test_from_dict_refuses_an_absent_required_field_at_its_key_path():
    form = {"value": 1, "kids": [{"value": 2}, {"value": 3, "kids": [{}]}]}
    with pytest.raises(EncodeError) as info:
        SHAPES.from_dict(form, "Node")
    assert str(info.value) == "kids[1].kids[0].value: missing key 'value' (the field is required)"
    form["kids"][1]["kids"][0]["value"] = None
    with pytest.raises(EncodeError) as info:
        SHAPES.from_dict(form, "Node")
    assert (
        str(info.value)
        == "kids[1].kids[0].value: expected a value, got null (the field is required)"
    )
    with pytest.raises(EncodeError, match=r"^name: missing key 'name' \(the field is required\)$"):
        tc.from_dict({"id": 1}, "User")
    with pytest.raises(EncodeError, match=r"^all\.f_i64: missing key 'f_i64'"):
        SHAPES.from_dict({"id": 1, "all": {}}, "Holder")


def test_from_dict_leaves_default_and_optional_fields_out():
    """Only ``required`` must be set: ``city`` (default requiredness) and ``zip`` (optional)
    may be absent, and build leaves them out, as Apache's writers do."""
    user = tc.from_dict({"id": 1, "name": "x", "addresses": [{"street": "a"}]}, "User")
    assert user.addresses == [tc.Address("a")]
    assert tc.parse(tc.build(user), "User") == user


def test_from_dict_refuses_what_build_would_refuse_in_a_message_and_a_footer():
    form = tc.to_dict(
        tc.parse(
            tc.build(
                tc.Message("get_user", 2, 1, tc.get_user_result(success=tc.User(id=1, name="x")))
            ),
            "message",
            body="get_user_result",
        )
    )
    del form["body"]["success"]["id"]
    with pytest.raises(EncodeError, match=r"^body\.success\.id: missing key 'id'"):
        tc.from_dict(form, "message", body="get_user_result")
    footer = parquet.to_dict(parquet.FileMetaData(version=2, schema=[], num_rows=0, row_groups=[]))
    del footer["num_rows"]
    with pytest.raises(
        EncodeError, match=r"^num_rows: missing key 'num_rows' \(the field is required\)$"
    ):
        parquet.from_dict(footer, "FileMetaData")


def test_a_model_made_without_a_required_field_still_fails_at_build():
    user = tc.User(name="x")
    with pytest.raises(EncodeError, match=r"^id: required field is not set$"):
        tc.build(user)
    assert thrift_refusal(tc, tc.User(id=1)) == "name: required field is not set"


# -- protobuf ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "text"),
    [
        (
            pw.Order(items=[pw.LineItem(), pw.LineItem(unit_price=pw.Money(units="x"))]),
            "items[1].unit_price.units: expected an integer, got str 'x'",
        ),
        (
            pw.Order(items=[pw.LineItem(labels=["a", b"b"])]),
            "items[0].labels[1]: expected str, got bytes b'b'",
        ),
        (pw.Order(tags=["a", 5]), "tags[1]: expected str, got int 5"),
        (  # packed: one record of every element
            pw.Order(ratings=[1, 2, 2**40]),
            "ratings[2]: int32 value 1099511627776 is not in -2147483648..2147483647",
        ),
        (pw.Order(coupon_ids=[1, -1]), "coupon_ids[1]: fixed32 value -1 is not in 0..4294967295"),
        (
            pw.Order(subtotals={"a": pw.Money(), "b": pw.Money(nanos="x")}),
            "subtotals['b'].nanos: expected an integer, got str 'x'",
        ),
        (pw.Order(subtotals={"a": None}), "subtotals['a']: a message element cannot be None"),
        (
            pw.Order(attributes={"a": "b", 3: "x"}),
            "attributes[3]: key: expected str, got int 3",
        ),
        (pw.Order(attributes={"a": "b", "c": 3}), "attributes['c']: expected str, got int 3"),
        # a repeated field or a map that is no list or mapping: Python's len() or .items()
        (pw.Order(ratings=5), "ratings: expected a list, got int 5"),
        (pw.Order(attributes=["a"]), "attributes: expected a mapping, got list ['a']"),
        (pw.Order(items=[pw.LineItem(labels=7)]), "items[0].labels: expected a list, got int 7"),
    ],
)
def test_protobuf_build_errors_name_indices_and_keys(model, text):
    assert protobuf_refusal(model) == text


def test_protobuf_layout_kept_names_the_element():
    """A parsed message written by its layout names the element it could not write."""
    data = bytes.fromhex("a201020102" "a2010103")  # ratings packed in two records: [1, 2], [3]
    order = pw.parse(data)
    assert order.wire_layout == ((20, 2), (20, 1)) and pw.build(order) == data
    order.ratings[2] = "x"
    assert protobuf_refusal(order) == "ratings[2]: expected an integer, got str 'x'"
    order.ratings[2] = 3
    order.ratings[1] = 2**40
    assert protobuf_refusal(order).startswith("ratings[1]: ")


def test_protobuf_samples_still_write():
    for path in sorted(SAMPLES.glob("*.bin")):
        data = path.read_bytes()
        assert pw.build(pw.parse(data)) == data


# -- construct records: a fixed-width number ---------------------------------------------


def _sample_model(fmt: str):
    mod = importlib.import_module(f"generated.{fmt}")
    folder = Path(__file__).resolve().parent.parent / "samples" / fmt
    return mod, mod.parse(min(folder.glob("*.bin")).read_bytes())


@pytest.mark.parametrize(
    ("fmt", "at", "value", "text"),
    [
        ("mysql_serialization", ("server_id",), "x", "server_id: expected an integer, got str 'x'"),
        ("mysql_serialization", ("server_id",), -1, "server_id: -1 is out of range for uint32"),
        ("mysql_serialization", ("body", "gno"), "x", "body.gno: expected an integer, got str 'x'"),
        (
            "kafka_record_batch",
            ("batches", 0, "base_offset"),
            1.5,
            "batches[0].base_offset: expected an integer, got float 1.5",
        ),
        (
            "plainbuffer",
            ("rows", 0, "primary_key", 0, "timestamp"),
            [1],
            "rows[0].primary_key[0].timestamp: expected an integer, got list [1]",
        ),
        ("plainbuffer", ("rows",), 5, "rows: expected a list, got int 5"),
        ("kafka_record_batch", ("batches",), 1.5, "batches: expected a list, got float 1.5"),
    ],
)
def test_a_wrong_typed_number_of_a_record_says_what_was_expected(fmt, at, value, text):
    """construct's ``struct '<L' error during building, given value 'x'`` (a fixed-width
    number) and a varint's refusal read as the other writers' words, in both tiers."""
    mod, model = _sample_model(fmt)
    node = model
    for step in at[:-1]:
        node = node[step] if isinstance(step, int) else getattr(node, step)
    setattr(node, at[-1], value)
    with pytest.raises(EncodeError) as err:
        mod.build(model)
    assert str(err.value) == text


def test_a_counted_list_that_is_none_says_how_many_it_needs():
    from construct import Int8ul

    from runtime.core.record import Record, RepeatCount

    with pytest.raises(EncodeError, match=r"^xs: expected 2 elements, got 0$"):
        Record("xs" / RepeatCount(Int8ul, 2)).build({"xs": None})


@pytest.mark.parametrize(
    ("fmt", "at"),
    [
        ("kafka_record_batch", ("batches", 0, "batch", "records", 0, "headers")),  # its count
        ("avro_container", ("blocks", 0, "records", "objects")),  # the count of the block over it
        ("msgpack", ("values", 0, "form", "pairs")),  # a map16's computed count
    ],
)
def test_a_list_given_none_is_no_elements_for_the_count_computed_from_it(fmt, at):
    """None is an empty list where a list is built (``runtime.core.sequences._listed``), and a
    ``value:`` computed from the list (its count, here) reads it so too: ``build`` and the
    construct path write what they write for ``[]``."""
    mod, model = _sample_model(fmt)
    node = model
    for step in at[:-1]:
        node = node[step] if isinstance(step, int) else getattr(node, step)
    setattr(node, at[-1], [])
    empty = mod.build(model)
    setattr(node, at[-1], None)
    assert mod.build(model) == mod.build_construct(model) == empty
