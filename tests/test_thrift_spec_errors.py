"""A Thrift spec's mistakes (specs/README.md, Thrift) are SpecErrors naming the file, line and
key: a type that does not read, a typedef cycle, a duplicate id or name, a default that does not
fit its type, a service naming no struct. None of them reaches a generated module."""

from __future__ import annotations

import copy

import pytest
import yaml

from generator.spec.loader import load
from generator.spec.thrift import build_thrift_model
from runtime.core.errors import SpecError

BASE = {
    "format": "rpc",
    "doc": "R.",
    "protocol": "thrift_compact",
    "enums": {"Color": {"doc": "C.", "type": "i32", "values": {"RED": {"value": 1}}}},
    "structs": {
        "Point": {"doc": "P.", "fields": [{"id": 1, "name": "x", "type": "i32"}]},
        "Shape": {"doc": "S.", "fields": [{"id": 1, "name": "p", "type": "Point"}]},
    },
}
X = ("structs", "Point", "fields", 0)


def _set(*path_value):
    """A change to BASE: ``(*key path, value)``."""

    def change(spec):
        *path, key, value = path_value
        node = spec
        for part in path:
            node = node[part]
        node[key] = value

    return change


def _x(**keys):
    """Point.x with these keys changed."""
    return lambda spec: spec["structs"]["Point"]["fields"][0].update(keys)


def _service(**body):
    return _set("services", {"S": {"doc": "S.", "methods": {"m": {"args": "Point"}}, **body}})


CASES = [
    # types
    (_x(type="list<i32"), "structs.Point.fields[0].type", "type 'list<i32' ends too early"),
    (_x(type="list<i32>>"), "structs.Point.fields[0].type", "unexpected '>' in type"),
    (_x(type="list(i32)"), "structs.Point.fields[0].type", "cannot read the type 'list(i32)'"),
    (_x(type="map<i32 i32>"), "structs.Point.fields[0].type", "expected ',' in type"),
    (_x(type="map<Point,i32>"), "structs.Point.fields[0].type", "map keys of type Point are"),
    (_x(type="i33"), "structs.Point.fields[0].type", "unknown type 'i33' (did you mean"),
    (
        lambda s: (_x(type="T")(s), s.update(typedefs={"T": "U", "U": "T"})),
        "structs.Point.fields[0].type",
        "typedef 'T' refers to itself",
    ),
    # names and numbers
    (_set("enums", "Color", "values", "BLUE", {"value": 1}), "enums.Color.values.BLUE", "value 1"),
    (_set("enums", "Color", "values", "BLUE", {"value": 2**31}), "enums.Color.values.BLUE", "i32"),
    (_set("typedefs", {"Point": "i32"}), "structs.Point", "'Point' is already a type name"),
    (_set("structs", "class", {"doc": "K.", "fields": []}), "structs.class", "Python keyword"),
    (
        lambda s: s["structs"]["Point"]["fields"].append({"id": 1, "name": "y", "type": "i32"}),
        "structs.Point.fields[1].id",
        "field id 1 used twice",
    ),
    (
        lambda s: s["structs"]["Point"]["fields"].append({"id": 2, "name": "x", "type": "i32"}),
        "structs.Point.fields[1].name",
        "field name 'x' used twice",
    ),
    (_x(required=True, optional=True), "structs.Point.fields[0]", "both required and optional"),
    (
        lambda s: (_x(required=True)(s), s["structs"]["Point"].update(kind="union")),
        "structs.Point.fields[0]",
        "union fields cannot be required",
    ),
    (_set("default_record", "Pointe"), "default_record", "no struct 'Pointe'"),
    # services
    (
        _set("services", {"S": {"doc": "S.", "methods": {"m": {"args": "Nope"}}}}),
        "services.S.methods.m.args",
        "no struct 'Nope'",
    ),
    (
        _service(methods={"m": {"args": "Point", "oneway": True, "result": "Shape"}}),
        "services.S.methods.m",
        "a oneway method has no result",
    ),
    (_service(extends="T"), "services.S.extends", "no service 'T'"),
    (_service(extends="S"), "services.S.extends", "a service cannot extend itself"),
    # defaults
    (_x(default="seven"), "structs.Point.fields[0].default", "default 'seven' is not an i32"),
    (_x(default=2**31), "structs.Point.fields[0].default", "default 2147483648 is not an i32"),
    (_x(type="bool", default=1), "structs.Point.fields[0].default", "default 1 is not a bool"),
    (_x(type="double", default=True), "structs.Point.fields[0].default", "is not a number"),
    (_x(type="string", default=3), "structs.Point.fields[0].default", "3 is not a string"),
    (_x(type="uuid", default="no"), "structs.Point.fields[0].default", "'no' is not a UUID"),
    (_x(type="binary", default={"$hex": "zz"}), "structs.Point.fields[0].default", "not hex"),
    (_x(type="binary", default=5), "structs.Point.fields[0].default", "not a string or {$hex"),
    (_x(type="Color", default="GREEN"), "structs.Point.fields[0].default", "not a member of"),
    (_x(type="Color", default=1.5), "structs.Point.fields[0].default", "not a member of Color"),
    (_x(type="list<i32>", default=7), "structs.Point.fields[0].default", "7 is not a list"),
    (_x(type="map<i32,i32>", default=7), "structs.Point.fields[0].default", "7 is not a map"),
    (
        _set("structs", "Shape", "fields", 0, "default", 7),
        "structs.Shape.fields[0].default",
        "default 7 is not a mapping of field names",
    ),
    (
        _set("structs", "Shape", "fields", 0, "default", {"z": 1}),
        "structs.Shape.fields[0].default",
        "Point has no field 'z'",
    ),
]


def _spec_error(tmp_path, change) -> SpecError:
    spec = copy.deepcopy(BASE)
    change(spec)
    path = tmp_path / "rpc.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    with pytest.raises(SpecError) as caught:
        build_thrift_model(load(path, "specs/rpc.yaml"))
    return caught.value


def test_the_base_spec_builds(tmp_path):
    path = tmp_path / "rpc.yaml"
    path.write_text(yaml.safe_dump(BASE, sort_keys=False))
    assert list(build_thrift_model(load(path, "specs/rpc.yaml")).structs) == ["Point", "Shape"]


@pytest.mark.parametrize("change, key, message", CASES, ids=[c[2] for c in CASES])
def test_a_thrift_spec_mistake_names_its_key_and_line(change, key, message, tmp_path):
    err = _spec_error(tmp_path, change)
    assert (err.file, err.key) == ("specs/rpc.yaml", key)
    assert message in err.message
    lines = (tmp_path / "rpc.yaml").read_text().splitlines()
    last = key.replace("]", "").split(".")[-1].split("[")[0]
    assert f"{last}:" in lines[err.line - 1] or lines[err.line - 1].lstrip().startswith("- ")


def test_a_protocol_other_than_thrift_compact_is_refused_by_the_schema(tmp_path):
    """The one place a protocol is checked (build_thrift_model takes it as read)."""
    path = tmp_path / "rpc.yaml"
    path.write_text(yaml.safe_dump({**BASE, "protocol": "thrift_binary"}, sort_keys=False))
    with pytest.raises(SpecError, match="'thrift_binary' is not one of") as caught:
        load(path, "specs/rpc.yaml")
    assert (caught.value.key, caught.value.line) == ("protocol", 3)


def test_a_protocol_spec_beside_it_without_wire_is_refused(tmp_path):
    """A thrift_compact.yaml next to the spec is its protocol spec: it must hold wire:."""
    (tmp_path / "thrift_compact.yaml").write_text(
        "format: thrift_compact\ndoc: Not the protocol.\nenums:\n"
        "  e: {doc: E., type: u8, values: {A: {value: 1, doc: A.}}}\n"
    )
    err = _spec_error(tmp_path, lambda spec: None)
    assert (err.file, err.key, err.line) == ("specs/rpc.yaml", "protocol", 3)
    assert err.message == "thrift_compact.yaml has no wire: section"
