"""``map:``: a record made from another record, on the Craft spec that uses it (its
behaviour, errors included, is held by tests/test_craft_*.py): what the loader refuses at
the spec's file:line, and what the generated module renders."""

from __future__ import annotations

import ast
import inspect
import json
import shutil
from pathlib import Path

import pytest

from generated import ticdc_craft as craft
from generator.emit.compiled import CompiledEmitter
from generator.emit.generate import render_spec
from generator.spec.loader import load
from generator.spec.validate import build_model
from runtime.core.errors import SpecError

SPECS = Path(__file__).resolve().parent.parent / "specs"
VECTORS = json.loads(
    (Path(__file__).resolve().parent / "data/vectors/ticdc_craft.json").read_text()
)


def spec_copy(tmp_path: Path, old: str = "", new: str = "") -> Path:
    """ticdc_craft.yaml (and what it imports) in ``tmp_path``, its first ``old`` made ``new``."""
    for name in ("mysql_types.yaml", "ticdc_types.yaml"):  # what ticdc_craft.yaml imports
        shutil.copy(SPECS / name, tmp_path / name)
    text = (SPECS / "ticdc_craft.yaml").read_text(encoding="utf-8")
    assert old in text
    spec = tmp_path / "ticdc_craft.yaml"
    spec.write_text(text.replace(old, new, 1), encoding="utf-8")
    return spec


def spec_error(tmp_path: Path, old: str, new: str) -> SpecError:
    with pytest.raises(SpecError) as info:
        render_spec(spec_copy(tmp_path, old, new))
    return info.value


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("      from: frame\n", "      from: framed\n", "'framed' is not a record of this spec"),
        ("      each: bodies\n", "      each: header\n", "'header' is not a repeated record field of frame"),
        ('class_by: "header.type[i]"', 'class_by: "header.type"', "is not FIELD.CHUNK[i] of frame"),
        ('class_by: "header.type[i]"', 'class_by: "header.partition[i]"', "has no closed enum:"),
        ("        RESOLVED:\n          model", "        RESOLVE:\n          model", "'RESOLVE' is not a member of event_type"),
        ("          model: ticdc_types.DdlEvent\n", "          model: os.system\n", "'os.system' is not one of"),
        ("            query: body.query\n", "            query: body.text\n", "body has no field 'text'"),
        ("            query: body.query\n", "            op: body.query\n", "has no field 'op'"),
        ("            query: body.query\n", "            query: \"__import__('os')\"\n", "may not call __import__: only len"),
        ('{check: "header.partition[i] >= -1", at: "header.partition[i]"', '{check: "header.partition[i] >= -1", at: "bodies[i]"', "is not FIELD.CHUNK[i]"),
        ('{check: "header.partition[i] >= -1"', '{check: "header.partitions[i] >= -1"', "header has no field 'partitions'"),
        ("          mapping: message\n", "          mapping: frame\n", "'frame' is not a record with map:"),
        ("            each: body.column_groups\n", "            each: column_groups\n", "is not body.FIELD, a repeated record field of body"),
        ("            each: body.column_groups\n", "            each: body.query\n", "is not body.FIELD"),
        ("            by: type ", "            by: count ", "'count' is not a field of column_group with a closed enum"),
        ("into: {NEW: new, OLD: old}", "into: {NEW: new, OLDER: old}", "'OLDER' is not a member of group_type"),
        ("into: {NEW: new, OLD: old}", "into: {NEW: new}", "group_type OLD goes into no field"),
        ("into: {NEW: new, OLD: old}", "into: {NEW: new, OLD: new}", "has no free field 'new'"),
        ("into: {NEW: new, OLD: old}", "into: {NEW: new, OLD: schema}", "has no free field 'schema'"),
        ("            model: ticdc_types.Column ", "            model: ticdc_types.RowChangedEvent ", "is not one of"),
        ("            model: ticdc_types.Column ", "            model: os.path ", "'os.path' is not one of"),
        ("columns: {name: names, type: types, flags: flags, value: values}", "columns: {name: names, type: types, value: values}", "ticdc_types.Column needs the fields ['name', 'type', 'flags', 'value'], in order"),
        ("columns: {name: names, type: types, flags: flags, value: values}", "columns: {name: names, type: types, flags: count, value: values}", "'count' is not a chunk of column_group"),
        ("columns: {name: names, type: types, flags: flags, value: values}", "columns: {name: types, type: types, flags: flags, value: values}", "one column is the name of an id into frame"),
        ("columns: {name: names, type: types, flags: flags, value: values}", "columns: {name: names, type: types, flags: flags, value: flags}", "one column is the value of a decode_by: chunk"),
    ],
)  # fmt: skip
def test_bad_map_is_a_spec_error_at_its_line(tmp_path, old, new, message):
    err = spec_error(tmp_path, old, new)
    assert message in str(err)
    assert "ticdc_craft.yaml:" in str(err)  # file:line


def test_a_member_without_a_class_is_refused(tmp_path):
    err = spec_error(
        tmp_path,
        """        RESOLVED:
          model: ticdc_types.ResolvedEvent
          rules:
            - {check: "header.partition[i] == -1", at: "header.partition[i]",
               message: "partition {value} out of range (always -1 here)"}
            - {check: "header.schema[i] == -1", at: "header.schema[i]",
               message: "term id {value} out of range (always -1 here)"}
            - {check: "header.table[i] == -1", at: "header.table[i]",
               message: "term id {value} out of range (always -1 here)"}
          fields:
            commit_ts: "header.commit_ts[i]"
          write:
            commit_ts: {message: "commit ts {value!r} is not a uint64"}
""",
        "",
    )
    assert "event_type RESOLVED has no class" in str(err) and "ticdc_craft.yaml:" in str(err)


def test_rule_messages_stay_data(tmp_path):
    hostile = "x'); import os; ('"
    for name in ("mysql_types.yaml", "ticdc_types.yaml"):
        shutil.copy(SPECS / name, tmp_path / name)
    text = (SPECS / "ticdc_craft.yaml").read_text(encoding="utf-8")
    spec = tmp_path / "ticdc_craft.yaml"
    spec.write_text(text.replace("else a table id)", hostile + ")", 1), encoding="utf-8")
    tree = ast.parse(render_spec(spec)[1])
    constants = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
    assert "partition {value} out of range (-1 = none, " + hostile + ")" in constants
    imports = [n for n in ast.walk(tree) if isinstance(n, ast.Import)]
    assert not any(alias.name == "os" for n in imports for alias in n.names)


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v["name"])
def test_the_generated_mapping_is_the_one_the_codec_runs(vector):
    assert craft.MAPPINGS["message"] is craft._CRAFT_MESSAGE.mapping
    message = bytes.fromhex(vector["hex"])
    frame = craft.parse(message, "frame")

    def fail(*fault):
        raise AssertionError(fault)

    decode = craft.VALUE_DECODERS["column_group.values"].decode_all
    assert craft.MAPPINGS["message"](frame, fail, decode) == craft.parse(message).events


def test_the_groups_are_rendered_from_the_spec():
    """A row event's columns come from its groups as the spec's groups: says (the group's
    type picks new or old, the names resolved, the values decoded)."""
    source = inspect.getsource(craft._map_message)
    assert '"new" if kind == 1 else "old"' in source
    assert "decode(group_types, group_flags, group_values)" in source
    assert "map(names.__getitem__, group_names)" in source
    assert (
        "'a second group of type {value}'" in source or '"a second group of type {value}"' in source
    )


@pytest.mark.parametrize("bad_partition", [False, True])
def test_groups_are_checked_after_every_events_header(bad_partition):
    """A second group of a type in body 0, and maybe a bad partition in the last event:
    the partition first (every element's class rules before any group), as the checked
    path has always said; the group's fault is at its type."""
    faults = []

    def fail(path, message=None, into=None):
        faults.append(path)
        raise LookupError

    row = next(v for v in VECTORS if v["name"] == "tibigdata_row_0")
    frame = craft.parse(bytes.fromhex(row["hex"]), "frame")
    groups = frame.bodies[0].column_groups
    groups.append(groups[0])
    last = len(frame.bodies) - 1
    if bad_partition:
        frame.header.partition[last] = -5
    with pytest.raises(LookupError):
        craft.MAPPINGS["message"](frame, fail, None)
    want = (
        ("header", "partition", last)
        if bad_partition
        else ("bodies", 0, "column_groups", len(groups) - 1, "type")
    )
    assert faults == [want]


def compiled(spec: Path) -> CompiledEmitter:
    return CompiledEmitter(build_model(load(spec)))


def test_the_compiled_tier_renders_the_map_from_its_plan(tmp_path):
    """The lowering plans the map: (part of the digest both tiers check), and the compiled
    module reads the frame and maps each element as it is read (its groups by their own
    reader, given the names); the runtime's classes come from the generated module's
    namespace at bind, by name, and nothing else of the spec's is code."""
    emitter = compiled(spec_copy(tmp_path))
    assert "message -> Message.events: map of frame.bodies" in emitter.lowering.describe()
    assert list(emitter.mapped) == ["message"] and "message" not in emitter.refused
    text = emitter.module_text("test")
    assert (
        "cdef object _read_message(" in text
        and "_read_frame(buf"
        not in text.split("cdef object _read_message(", 1)[1].split("\ndef ", 1)[0]
    )
    assert "_group_column_group_In_message(buf, pos, end16, lim, &pos, f_term_dictionary" in text
    assert 'namespace["rt_ticdc_types"].RowChangedEvent' in text
    # an entry of parse_first, whose events are the primitive's kept_as class (ReadEvents),
    # keeping the bytes read (_whole_message), as the Python readers keep them
    assert 'readers["message"] = read_message' in text
    assert '_ENTRIES["message"] = _entry(_read_message, 3, _kept_message)' in text
    assert "f_bodies = <list>wirespec_alloc(_Message_events_Kept)" in text
    assert '_Message_events_Kept = namespace["rt_craft"].ReadEvents' in text


def test_a_map_the_compiled_tier_cannot_say_is_left_to_python(tmp_path):
    """An expression naming an enum (or calling anything) is refused by the compiled tier
    only: the frame keeps its compiled reader, the Python mapping runs the message."""
    spec = spec_copy(
        tmp_path,
        '"None if header.partition[i] == -1 else header.partition[i]"',
        '"None if header.partition[i] == event_type.ROW_CHANGED - 2 else header.partition[i]"',
    )
    emitter = compiled(spec)
    assert "message" not in emitter.mapped and "EventType" in emitter.refused["message"]
    assert "frame" in emitter.entries
    assert "_read_message" not in emitter.module_text("test")
