"""``map:``: a record made from another record, on the Craft spec that uses it (its
behaviour, errors included, is held by tests/test_craft_*.py): what the loader refuses at
the spec's file:line, and what the generated module renders."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from generated import ticdc_craft as craft
from generator.emit.generate import render_spec
from runtime.core.errors import SpecError

SPECS = Path(__file__).resolve().parent.parent / "specs"


def spec_error(tmp_path: Path, old: str, new: str) -> SpecError:
    for name in ("mysql_types.yaml", "ticdc_types.yaml"):  # what ticdc_craft.yaml imports
        shutil.copy(SPECS / name, tmp_path / name)
    text = (SPECS / "ticdc_craft.yaml").read_text(encoding="utf-8")
    assert old in text
    spec = tmp_path / "ticdc_craft.yaml"
    spec.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(SpecError) as info:
        render_spec(spec)
    return info.value


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("      from: frame\n", "      from: framed\n", "'framed' is not a record of this spec"),
        ("      each: bodies\n", "      each: header\n", "'header' is not a repeated record field of frame"),
        ('class_by: "header.type[i]"', 'class_by: "header.type"', "is not FIELD.CHUNK[i] of frame"),
        ('class_by: "header.type[i]"', 'class_by: "header.partition[i]"', "has no closed enum:"),
        ("        RESOLVED:\n          model", "        RESOLVE:\n          model", "'RESOLVE' is not a member of event_type"),
        ("          model: ticdc.DdlEvent\n", "          model: os.system\n", "'os.system' is not one of"),
        ("            query: body.query\n", "            query: body.text\n", "body has no field 'text'"),
        ("            query: body.query\n", "            op: body.query\n", "has no field 'op'"),
        ("            query: body.query\n", "            query: \"__import__('os')\"\n", "may not call functions"),
        ('{check: "header.partition[i] >= -1", at: "header.partition[i]"', '{check: "header.partition[i] >= -1", at: "bodies[i]"', "is not FIELD.CHUNK[i]"),
        ('{check: "header.partition[i] >= -1"', '{check: "header.partitions[i] >= -1"', "header has no field 'partitions'"),
        ("          mapping: message\n", "          mapping: frame\n", "'frame' is not a record with map:"),
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
          model: ticdc.ResolvedEvent
          rules:
            - {check: "header.partition[i] == -1", at: "header.partition[i]",
               message: "partition {value} out of range (always -1 here)"}
            - {check: "header.schema[i] == -1", at: "header.schema[i]",
               message: "term id {value} out of range (always -1 here)"}
            - {check: "header.table[i] == -1", at: "header.table[i]",
               message: "term id {value} out of range (always -1 here)"}
          fields:
            commit_ts: "header.commit_ts[i]"
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


def test_the_generated_mapping_is_the_one_the_codec_runs():
    assert craft.MAPPINGS["message"] is craft._CRAFT_MESSAGE.mapping
    message = bytes.fromhex("018180e0bb9bb6def10503010101021a19010005")
    frame = craft.parse(message, "frame")

    def fail(*fault):
        raise AssertionError(fault)

    assert craft.MAPPINGS["message"](frame, fail) == craft.parse(message).events
