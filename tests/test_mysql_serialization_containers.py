"""mysql::serialization vectors, maps and nested messages from the spec language
(``repeat: msb_count``, ``map: {key: ..., value: ...}``, a field whose type is another
``layout: serializable`` record), through a module rendered from a small test spec.

Expected bytes are worked out by hand from research/mysql_serialization.md §4-5: an
msb-count varint below 128 is one byte ``v << 1``; 255 is ``(255 << 2) | 0b01`` little
endian = ``fd 03``; signed values are zigzagged first; a vector is its count then the
elements; a map its pair count then key, value, ...; a nested field is its id, then size
(counted from the id), lnifid and its fields; a message in a container has no id.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from generator.emit.generate import render_spec
from runtime.core.errors import DecodeError, SpecError
from tests.test_generator import load_module

SPEC = """\
format: containers_test
title: mysql::serialization containers (test)
doc: A message with vectors, maps and nested messages.
endian: le
default_record: outer
records:
  point:
    doc: A message nested in outer.
    layout: serializable
    fields:
      - {name: x, id: 0, type: msb_varint32, doc: "x"}
      - {name: y, id: 1, type: msb_uvarint16, default: 0, doc: "y, written when not 0"}
  outer:
    doc: The top-level message.
    layout: serializable
    fields:
      - {name: ints, id: 0, type: msb_uvarint32, repeat: msb_count, doc: "a vector of ints"}
      - {name: names, id: 1, type: str, size: msb_uvarint64, max_length: 8,
         repeat: msb_count, doc: "a vector of strings"}
      - name: counts
        id: 2
        map: {key: {type: str, size: msb_uvarint64}, value: msb_varint64}
        doc: a map string -> int
      - {name: points, id: 3, type: point, repeat: msb_count, doc: "a vector of messages"}
      - {name: origin, id: 4, type: point, doc: "a nested message"}
      - name: by_id
        id: 5
        map: {key: msb_uvarint16, value: point}
        doc: a map int -> message
"""

# Outer(ints=[1, 255], names=["a"], counts={"a": 2}, points=[Point(-1)], origin=Point(1, 2),
# by_id={3: Point(0)}), field by field:
HAND = (
    "024a00"  # version 1, size 37 (37 << 1), lnifid 0
    "000402fd03"  # id 0, count 2, 1, 255
    "02020261"  # id 1, count 1, "a"
    "0402026108"  # id 2, 1 pair, "a" -> zigzag(2) = 4
    "060208000002"  # id 3, count 1, size 4, lnifid 0, x: id 0 zigzag(-1) = 1
    "080e0000040204"  # id 4, size 7 (from the id), lnifid, x: zigzag(1), y = 2
    "0a020608000000"  # id 5, 1 pair, key 3, size 4, lnifid, x = 0
)


FIELDS = ("ints", "names", "counts", "points", "origin", "by_id")


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    root = tmp_path_factory.mktemp("containers")
    path = root / "containers_test.yaml"
    path.write_text(SPEC)
    return load_module(*render_spec(path), root)


def hand_model(mod):
    return mod.Outer(
        ints=[1, 255],
        names=["a"],
        counts={"a": 2},
        points=[mod.Point(x=-1, y=0)],
        origin=mod.Point(x=1, y=2),
        by_id={3: mod.Point(x=0, y=0)},
    )


def test_constructs_are_vectors_maps_and_nested_messages(mod):
    fields = {f.name: f.subcon for f in mod.outer.fields}
    assert type(fields["ints"]).__name__ == "MsbVector"
    assert type(fields["counts"]).__name__ == "MsbMap"
    assert type(fields["origin"]).__name__ == "SerializableMessage"
    assert not fields["origin"].top_level and not fields["points"].element.top_level
    assert "outer" not in mod.FAST_READERS  # containers: the construct path


def test_build_matches_hand_computed_bytes(mod):
    data = bytes.fromhex(HAND)
    assert len(data) == 37
    assert mod.build(hand_model(mod), "outer") == data
    parsed = mod.parse(data, "outer")
    assert parsed.ints == [1, 255] and parsed.names == ["a"] and parsed.counts == {"a": 2}
    assert parsed.points[0].x == -1 and parsed.origin.y == 2 and parsed.by_id[3].x == 0
    assert parsed.origin.serializable_field_size == 7  # counted from its field id
    assert parsed.points[0].serializable_field_size == 4  # no id in a container
    assert mod.build(parsed, "outer") == data


def test_json_round_trip_of_hand_model(mod):
    parsed = mod.parse(bytes.fromhex(HAND), "outer")
    text = json.dumps(mod.to_dict(parsed))
    d = json.loads(text)
    assert d["by_id"]["3"]["x"] == 0  # integer keys as decimal text
    assert d["counts"] == {"a": 2}
    assert mod.from_dict(d, "outer") == parsed


def test_map_keys_that_look_internal_survive_json(mod):
    model = hand_model(mod)
    model.counts = {"_": 1, "_io": -5}
    parsed = mod.parse(mod.build(model, "outer"), "outer")
    again = mod.from_dict(json.loads(json.dumps(mod.to_dict(parsed))), "outer")
    assert again.counts == {"_": 1, "_io": -5}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=__import__("hypothesis").strategies.data())
def test_hypothesis_round_trips(mod, data):
    from pyspark.sql.types import _make_type_verifier

    model = data.draw(mod.strategies("outer"))
    raw = mod.build(model, "outer")
    parsed = mod.parse(raw, "outer")
    assert mod.build(parsed, "outer") == raw
    assert mod.from_dict(json.loads(json.dumps(mod.to_dict(parsed))), "outer") == parsed
    verify = _make_type_verifier(mod.spark_schema("outer"))
    for row in mod.to_rows(parsed, "outer"):
        verify(row)


def test_spark_schema_types(mod):
    from pyspark.sql.types import ArrayType, MapType, StructType, _make_type_verifier

    schema = mod.spark_schema("outer")
    types = {f.name: f.dataType for f in schema.fields}
    assert isinstance(types["ints"], ArrayType) and isinstance(types["points"], ArrayType)
    assert isinstance(types["points"].elementType, StructType)
    assert isinstance(types["counts"], MapType) and isinstance(types["by_id"], MapType)
    assert isinstance(types["origin"], StructType)
    (row,) = mod.to_rows(mod.parse(bytes.fromhex(HAND), "outer"), "outer")
    _make_type_verifier(schema)(row)
    assert row[2] == {"a": 2} and row[5] == {3: (0, 0)}


def test_count_limit(mod):
    data = bytes.fromhex(HAND)
    with pytest.raises(DecodeError) as info:
        mod.parse(data, "outer", max_count=1)
    assert info.value.path == "ints" and info.value.offset == 4
    assert mod.parse(data, "outer", max_count=2).ints == [1, 255]


def test_string_bound_in_a_vector(mod):
    model = hand_model(mod)
    model.names = ["123456789"]
    with pytest.raises(Exception, match="bound"):
        mod.build(model, "outer")


def test_truncation_at_every_offset(mod):
    data = bytes.fromhex(HAND)
    for cut in range(len(data)):
        with pytest.raises(DecodeError) as info:
            mod.parse(data[:cut], "outer")
        assert info.value.offset is not None and 0 <= info.value.offset <= cut, cut
    # With the top-level size shrunk to match, a cut inside the fields is the error of the
    # field it fell in (or of the first field missing): a path, and an offset within it.
    for cut in range(4, len(data)):
        shrunk = b"\x02" + bytes([cut << 1]) + data[2:cut]
        with pytest.raises(DecodeError) as info:
            mod.parse(shrunk, "outer")
        err = info.value
        assert err.path.split("[")[0].split(".")[0] in FIELDS, (cut, str(err))
        assert 3 <= err.offset <= cut, (cut, str(err))


def test_truncated_inner_message_names_its_path(mod):
    # Shrink the outer size to match, so the error is the nested message's own.
    data = bytes.fromhex(HAND)
    cut = data[:-1]
    fixed = bytes([0x02, 36 << 1]) + cut[2:]
    with pytest.raises(DecodeError) as info:
        mod.parse(fixed, "outer")
    assert info.value.path.startswith("by_id[0]"), info.value.path


def spec_error(tmp_path: Path, old: str, new: str) -> SpecError:
    assert old in SPEC
    path = tmp_path / "bad.yaml"
    path.write_text(SPEC.replace(old, new, 1))
    with pytest.raises(SpecError) as info:
        render_spec(path)
    return info.value


def test_map_without_value_is_a_spec_error(tmp_path):
    err = spec_error(
        tmp_path, "map: {key: msb_uvarint16, value: point}", "map: {key: msb_uvarint16}"
    )
    assert "bad.yaml:" in str(err)


def test_map_with_a_bytes_key_is_a_spec_error(tmp_path):
    err = spec_error(
        tmp_path,
        "map: {key: msb_uvarint16, value: point}",
        "map: {key: {type: bytes, size: msb_uvarint64}, value: point}",
    )
    assert "bad.yaml:" in str(err) and "key" in str(err)


def test_map_with_a_type_is_a_spec_error(tmp_path):
    err = spec_error(
        tmp_path,
        "map: {key: msb_uvarint16, value: point}",
        "type: point\n        map: {key: msb_uvarint16, value: point}",
    )
    assert "bad.yaml:" in str(err)


def test_msb_count_outside_a_message_is_a_spec_error(tmp_path):
    plain = "records:\n  plain:\n    doc: p\n    fields:\n"
    plain += "      - {name: v, type: u8, repeat: msb_count, doc: v}\n"
    err = spec_error(tmp_path, "records:\n", plain)
    assert "bad.yaml:" in str(err) and "repeat" in str(err)


def test_docs_describe_vectors_and_maps(tmp_path):
    from generator.emit.docs import render_spec_doc

    path = tmp_path / "containers_test.yaml"
    path.write_text(SPEC)
    _, text = render_spec_doc(path)
    assert "a vector: varint count, then the elements" in text
    assert "map (varint pair count) of `msb_uvarint16` to record [`point`]" in text


def test_unknown_fields_of_nested_messages_stay_between_the_parents_known_ids(mod):
    # HAND with a newer writer's field 2 (= 5) in origin (id 4, before by_id, id 5) and a
    # field 2 (= 1) in the first element of points: each kept in its own message.
    data = bytes.fromhex(
        "025200"  # version 1, size 41, lnifid 0
        "000402fd03"
        "02020261"
        "0402026108"
        "06020c0000020402"  # points: 1 element, size 6, x = -1, unknown "04 02"
        "08120000040204040a"  # origin: id 4, size 9, x = 1, y = 2, unknown "04 0a"
        "0a020608000000"  # by_id, after origin's unknown field
    )
    parsed = mod.parse(data, "outer")
    assert parsed.origin.unknown_fields == bytes.fromhex("040a")
    assert parsed.points[0].unknown_fields == bytes.fromhex("0402")
    assert parsed.by_id[3].x == 0 and parsed.unknown_fields is None
    assert mod.build(parsed, "outer") == data
    d = json.loads(json.dumps(mod.to_dict(parsed)))
    assert d["origin"]["unknown_fields"] == {"$hex": "040a"}
    assert mod.build(mod.from_dict(d, "outer"), "outer") == data


def test_messages_not_in_mysqls_form_are_kept_by_the_model_parse_returns(mod):
    # HAND with the ints' count 2 in two bytes (09 00), the element of points with y = 0
    # written, origin's x = 1 in two bytes (09 00): the outer model keeps the message's
    # bytes, the messages inside keep none (runtime.core.kept).
    point = "0c0000020200"  # size 6, lnifid 0, x = -1, y = 0 (its default) written
    origin = "08100000090002" + "04"  # id 4, size 8, x = 1 as 09 00, y = 2
    data = bytes.fromhex(
        "025200"  # version 1, size 41, lnifid 0
        "00090002fd03" + "02020261" + "0402026108" + "0602" + point + origin + "0a020608000000"
    )
    parsed = mod.parse(data, "outer")
    assert (parsed.ints, parsed.points[0].y, parsed.origin.x) == ([1, 255], 0, 1)
    assert parsed.wire_form == data
    assert parsed.points[0].wire_form is parsed.origin.wire_form is None
    assert mod.parse_construct(data, "outer") == parsed
    assert mod.build(parsed, "outer") == mod.build_construct(parsed, "outer") == data
    d = json.loads(json.dumps(mod.to_dict(parsed)))
    assert d["wire_form"] == {"$hex": data.hex()} and "wire_form" not in d["origin"]
    assert mod.build(mod.from_dict(d, "outer"), "outer") == data
    # changed: written anew in MySQL's form, the values of its messages as they were
    parsed.ints = [1, 256]
    parsed.serializable_field_size = None
    rebuilt = mod.build(parsed, "outer")
    assert rebuilt == mod.build_construct(parsed, "outer")
    again = mod.parse(rebuilt, "outer")
    assert again.wire_form is None
    assert (again.points[0].x, again.points[0].y, again.origin.x, again.origin.y) == (-1, 0, 1, 2)
