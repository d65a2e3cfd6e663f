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
