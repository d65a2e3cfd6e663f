"""``models:`` (generator/spec/model_classes.py): plain classes a spec declares for the specs
that import it, rendered as ``generated/models/<spec>.py``; the TiCDC events are theirs."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import pytest

from generated import ticdc_craft, ticdc_open_protocol
from generated.models import ticdc_types
from generator.emit.generate import render_models_module
from generator.spec.loader import load
from generator.spec.validate import build_model
from runtime.core.errors import SpecError

ROOT = Path(__file__).resolve().parent.parent

SHAPES = """\
format: shapes
doc: Shared shapes.
models:
  Point:
    doc: A point.
    fields:
      - {name: x, type: int}
      - {name: y, type: int, default: 0}
      - {name: label, type: str, optional: true, doc: "a name"}
  Path:
    doc: Points in order.
    fields:
      - {name: points, type: Point, repeat: true, optional: true}
    properties:
      kind: "'empty' if points is None else 'points'"
    constants:
      shape: path
"""


def _spec(tmp_path: Path, text: str):
    path = tmp_path / "shapes.yaml"
    path.write_text(text)
    return build_model(load(path, "shapes.yaml"))


def test_a_declared_model_is_a_slots_dataclass(tmp_path):
    path = tmp_path / "shapes.yaml"
    path.write_text(SHAPES)
    namespace: dict = {}
    exec(compile(render_models_module(path), "shapes.py", "exec"), namespace)  # noqa: S102
    point, path_class = namespace["Point"], namespace["Path"]
    p = point(1, label="a")
    assert (p.x, p.y, p.label) == (1, 0, "a") and not hasattr(p, "__dict__")
    assert [f.name for f in dataclasses.fields(path_class)] == ["points"]
    assert path_class().kind == "empty" and path_class([p]).kind == "points"
    assert path_class.shape == "path"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            '{name: label, type: str, optional: true, doc: "a name"}',
            "{name: label, type: str}",
            "'label' has no default but follows",
        ),
        (
            "{name: y, type: int, default: 0}",
            "{name: x, type: int, default: 0}",
            "two fields named 'x'",
        ),
        ("type: Point, repeat", "type: Pointe, repeat", "unknown type 'Pointe'"),
        ("'empty' if points", "__import__('os') if points", "may not call"),
        (
            "{name: label, type: str, optional: true,",
            "{name: label, type: str, optional: true, default: b,",
            "an optional field's default is None",
        ),
        ("  Path:\n", "  None:\n", "is a Python keyword"),
        (
            "{name: x, type: int}",
            "{name: x, type: int, range: [0, s65]}",
            "'s65' is not an integer type",
        ),
        ("{name: x, type: int}", "{name: x, type: int, range: [5, 1]}", "an empty range: 5 > 1"),
        ("{name: x, type: int}", "{name: x, type: int, range: [0, 1, 2]}", "is too long"),
        (
            'optional: true, doc: "a name"}',
            "optional: true, range: u8}",
            "range: is for an int field, not str",
        ),
        (
            "{name: x, type: int}",
            "{name: x, type: int, enum: colour}",
            "no enum 'colour' in this spec",
        ),
        (
            "{name: x, type: int}",
            "{name: x, type: int, nonempty: true}",
            "only an optional field can be nonempty",
        ),
    ],
)
def test_a_bad_model_is_a_spec_error_at_its_line(tmp_path, old, new, message):
    assert old in SHAPES
    with pytest.raises(SpecError) as err:
        _spec(tmp_path, SHAPES.replace(old, new))
    assert message in str(err.value) and "shapes.yaml:" in str(err.value)


CELLS = """\
format: cells
doc: Cells.
enums:
  bits:
    doc: Bits.
    type: u8
    flags: true
    values:
      RAW: {value: 1, doc: "shown as hex"}
models:
  Cell:
    doc: A cell.
    fields:
      - {name: kind, type: int, json: {names: kind}}
      - {name: bits, type: int, default: 0, enum: bits}
      - {name: value, type: value, optional: true, json: {text_unless: bits.RAW}}
"""


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("json: {names: kind}", "json: {names: Kind}", "json.names: "),
        ("type: int, json: {names: kind}", "type: str, json: {names: kind}", "json.names: names: is for an int field"),
        ("json: {names: kind}", "json: {nmes: kind}", "json.nmes: unknown key"),
        ("json: {names: kind}", "json: {names: kind, text_unless: bits.RAW}", "too many properties"),
        ("json: {text_unless: bits.RAW}", "json: {text_unless: bits.HEX}", "json.text_unless: bits has no member 'HEX'"),
        ("json: {text_unless: bits.RAW}", "json: {text_unless: kind.RAW}", "json.text_unless: 'kind' is no field of this class with a flags enum:"),
        ("type: value, optional: true, json", "type: int, optional: true, json", "json.text_unless: text_unless: is for a bytes or value field"),
        ("json: {text_unless: bits.RAW}", "json: {text_unless: bits}", "json.text_unless: "),
    ],
)  # fmt: skip
def test_a_bad_json_key_is_a_spec_error_at_its_line(tmp_path, old, new, message):
    """``json:`` of a models: field: ``names:`` an enum name for an int field,
    ``text_unless:`` FIELD.MEMBER of a flags field for a bytes or value field."""
    assert old in CELLS
    path = tmp_path / "cells.yaml"
    build_model(load(_write(path, CELLS), "cells.yaml"))  # the unedited spec is fine
    with pytest.raises(SpecError) as err:
        build_model(load(_write(path, CELLS.replace(old, new)), "cells.yaml"))
    text = str(err.value)
    where = (
        "cells.yaml:14: models.Cell.fields[0].json"
        if "names" in old
        else "cells.yaml:16: models.Cell.fields[2].json"
    )
    assert text.startswith(where) and message in text, text


def test_a_json_names_enum_the_importing_spec_lacks_is_an_error_at_its_imports(tmp_path):
    """``json: {names: ENUM}`` names the importing format's enum: a spec that imports the
    class without one is refused at its ``imports:``."""
    _write(tmp_path / "cells.yaml", CELLS)
    user = "format: user\ndoc: Uses cells.\nimports: [cells]\nenums:\n  {name}:\n"
    user += "    doc: Kinds.\n    type: u8\n    values:\n      A: {{value: 1, doc: a}}\n"
    path = _write(tmp_path / "user.yaml", user.format(name="kind"))
    assert build_model(load(path, "user.yaml")).imported_models["cells.Cell"]
    _write(path, user.format(name="sort"))
    with pytest.raises(SpecError, match=r"user\.yaml:3: imports: cells\.Cell\.kind shows json"):
        build_model(load(path, "user.yaml"))


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_both_formats_show_columns_as_the_model_says():
    """The row images' JSON form is rendered from ticdc_types' json: into each format
    (``_IMAGE_JSON``), by that format's own enums: Craft lists DECIMAL (0), Open Protocol
    does not, so code 0 shows as a number there."""
    column = ticdc_types.Column("s", 0, 0x41, b"\xff")
    craft_form, op_form = ticdc_craft.JSON_FORMS["message"][2], ticdc_open_protocol._IMAGE_JSON
    assert craft_form[0]([column], None) == [
        {"name": "s", "type": "DECIMAL", "flags": ["BINARY", "NULLABLE"], "value": {"$hex": "ff"}}
    ]
    assert op_form[0]([column], None)[0]["type"] == 0
    column.flags = 0
    assert op_form[0]([column, column], None)[1]["value"] == {"$hex": "ff"}
    column.value = "é".encode()
    assert craft_form[0]([column], None)[0]["value"] == "é"
    assert craft_form[1]["flags"].from_json(["BINARY", "UNSIGNED"]) == 0x81


def test_both_ticdc_formats_make_the_one_declared_class():
    """The classes are one, so events transcode and share a Spark table; the generator
    checks the specs' map: and kafka_message: fields against the declaration."""
    craft_events = ticdc_craft.decode_message(
        bytes.fromhex("018180e0bb9bb6def10503010101021a19010005")
    )
    [(key, value)] = ticdc_open_protocol.encode_events(list(craft_events))
    assert type(ticdc_open_protocol.decode_message(key, value)[0]) is ticdc_types.ResolvedEvent
    event = ticdc_types.RowChangedEvent(5, "s", "t", new=[ticdc_types.Column("id", 3, 0, 7)])
    assert pickle.loads(pickle.dumps(event)) == event and event.op == "insert"
    spec = build_model(load(ROOT / "specs/ticdc_craft.yaml", "specs/ticdc_craft.yaml"))
    assert spec.imported_models["ticdc_types.Column"].field_names == (
        "name",
        "type",
        "flags",
        "value",
    )


def test_ticdc_strategies_draw_the_ranges_the_specs_say():
    """``models:`` ``range:``/``enum:``/``nonempty:``, narrowed by each format's own type of
    a field and limited to the fields it carries (_STRATEGY_EVENTS)."""
    spec = build_model(load(ROOT / "specs/ticdc_types.yaml", "specs/ticdc_types.yaml"))
    fields = {f.name: f for f in spec.models["DdlEvent"].fields}
    assert fields["ddl_type"].range == (-(2**63), 2**64 - 1)
    flags = {f.name: f for f in spec.models["Column"].fields}["flags"]
    assert flags.flags and flags.members == (1, 2, 4, 8, 16, 32, 64, 128)
    craft = dict(ticdc_craft._STRATEGY_EVENTS["classes"])
    op = dict(ticdc_open_protocol._STRATEGY_EVENTS["classes"])
    assert craft[ticdc_types.DdlEvent]["ddl_type"] == {"kind": "int", "lo": 0, "hi": 2**64 - 1}
    assert op[ticdc_types.DdlEvent]["ddl_type"] == {"kind": "int", "lo": -(2**63), "hi": 2**63 - 1}
    assert "row_id" not in craft[ticdc_types.RowChangedEvent]
    assert op[ticdc_types.RowChangedEvent]["row_id"]["nonempty"]
    assert ticdc_craft._STRATEGY_EVENTS["alone"] == (
        ticdc_types.DdlEvent,
        ticdc_types.ResolvedEvent,
    )
    assert ticdc_open_protocol._STRATEGY_EVENTS["unique_names"]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("s8", (-128, 127)), ("[u8, s16]", (0, 32767)), ("[s64, u64]", (-(2**63), 2**64 - 1))],
)
def test_a_range_of_integer_types_is_their_least_and_largest_values(tmp_path, raw, expected):
    spec = _spec(
        tmp_path, SHAPES.replace("{name: x, type: int}", f"{{name: x, type: int, range: {raw}}}")
    )
    assert {f.name: f for f in spec.models["Point"].fields}["x"].range == expected
