"""``build`` refuses what ``parse`` would never give back, in every tier (compiled and
``WIRESPEC_PURE_PYTHON=1``): a bool where the field is an integer (construct's ``struct``
packs it as 0 or 1, so the bytes would read back as an int), with our EncodeError naming
the field's path, as bit fields and varints already refuse it; a protobuf model of another
message than the one built (its fields would be written under the other's numbers); bytes
in a Craft text field (the compiled frame writer took them); a value that breaks its field's
``valid:`` rule (checked on parse only, build wrote it), with the rule quoted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generated import msgpack, png
from generated import protobuf_wire as pw
from generated import ticdc_craft as craft
from runtime.core.errors import EncodeError

ROOT = Path(__file__).resolve().parents[1]
PNG_FILE = min((ROOT / "samples/png").glob("*.bin")).read_bytes()


@pytest.mark.parametrize("name", ["width", "height", "bit_depth"])
def test_a_png_header_integer_given_a_bool_is_refused(name):
    model = png.parse(PNG_FILE)
    setattr(model.chunks[0].data, name, True)
    with pytest.raises(
        EncodeError, match=rf"^chunks\[0\]\.data\.{name}: expected an integer, got bool"
    ):
        png.build(model)


@pytest.mark.parametrize(
    "hex_value, expected",
    [
        ("ce00000005", "an integer"),  # uint32
        ("cd0102", "an integer"),  # uint16
        ("d2ffffffff", "an integer"),  # int32
        ("e0", "an integer"),  # negative_fixint, an s8
        ("ca3f800000", "a number"),  # float32
        ("cb3ff0000000000000", "a number"),  # float64
    ],
)
@pytest.mark.parametrize("flag", [True, False])
def test_a_msgpack_number_given_a_bool_is_refused(hex_value, expected, flag):
    model = msgpack.parse(bytes.fromhex(hex_value), "value")
    model.form.value = flag
    with pytest.raises(EncodeError, match=rf"^form\.value: expected {expected}, got bool {flag}"):
        msgpack.build(model, "value")


def test_a_bit_field_given_a_bool_is_still_refused():
    model = msgpack.parse(bytes.fromhex("05"), "value")  # positive_fixint: a b7
    model.form.value = True
    with pytest.raises(EncodeError, match=r"^form\.value: "):
        msgpack.build(model, "value")


MONEY = pw.Money(currency_code="EUR", units=3, nanos=5)


@pytest.mark.parametrize("record", ["address", "line_item", "order"])
def test_a_protobuf_model_of_another_message_is_refused(record):
    assert pw.build(MONEY, "money") == bytes.fromhex("0a0345555210031d05000000")
    expected = rf"^<model>: expected {getattr(pw, record).model.__name__}, got Money"
    for build in (pw.build, pw.build_construct):
        with pytest.raises(EncodeError, match=expected):
            build(MONEY, record)


def test_a_protobuf_message_field_holding_another_message_is_refused():
    order = pw.Order(order_id="o1", shipping=MONEY)
    for build in (pw.build, pw.build_construct):
        with pytest.raises(EncodeError, match=r"^shipping: expected Address, got Money"):
            build(order, "order")
    order.shipping = pw.Address(city="Oslo")
    assert pw.parse(pw.build(order, "order"), "order") == order


CRAFT = {
    v["name"]: bytes.fromhex(v["hex"])
    for v in json.loads((ROOT / "tests/data/vectors/ticdc_craft.json").read_text())
}


def test_a_craft_text_field_given_bytes_is_refused_where_a_text_chunk_takes_them():
    data = CRAFT["seed_row_changed_update"]
    model = craft.parse(data, "frame")
    model.term_dictionary = [term.encode() for term in model.term_dictionary]
    assert craft.build(model, "frame") == data  # a chunk of text takes bytes, in every tier
    model = craft.parse((ROOT / "samples/ticdc_craft/ddl_add_column.bin").read_bytes(), "frame")
    model.bodies[0].query = b"ALTER TABLE t"
    with pytest.raises(EncodeError, match=r"^bodies\[0\]\.query: expected str, got bytes"):
        craft.build(model, "frame")


@pytest.mark.parametrize(
    "hex_value, field, value, rule",
    [
        ("e0", "value", 1, "value >= -32 and value <= -1"),  # negative_fixint
        ("e0", "value", -33, "value >= -32 and value <= -1"),
        ("c70cff000000050000000000000001", "nanoseconds", 10**9, "nanoseconds < 1000000000"),
    ],
)
def test_a_msgpack_value_breaking_its_valid_rule_is_refused(hex_value, field, value, rule):
    model = msgpack.parse(bytes.fromhex(hex_value), "value")
    setattr(model.form, field, value)
    with pytest.raises(
        EncodeError, match=rf"^form\.{field}: {field} = {value} does not satisfy {rule}$"
    ):
        msgpack.build(model, "value")
    setattr(model.form, field, -1 if field == "value" else 10**9 - 1)
    assert msgpack.build(model, "value") == msgpack.build_construct(model, "value")


@pytest.mark.parametrize("width", [0, 2**31])
def test_a_png_width_breaking_its_valid_rule_is_refused(width):
    model = png.parse(PNG_FILE)
    model.chunks[0].data.width = width
    rule = "width >= 1 and width <= 0x7fffffff"
    with pytest.raises(
        EncodeError, match=rf"^chunks\[0\]\.data\.width: width = {width} does not satisfy {rule}$"
    ):
        png.build(model)
