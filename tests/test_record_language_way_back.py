"""The way back of ``map:`` (``write:``, ``write_message:``, ``batch:``) on the Craft spec
that uses it (its bytes and errors are held by tests/test_craft_*.py): what the loader
refuses at the spec's file:line, that spec text stays data, and that the codec runs the
rendered functions."""

from __future__ import annotations

import ast
import doctest
import shutil

import pytest

import runtime.core.unmap
from generated import ticdc_craft as craft
from generated.models.ticdc_types import Column, RowChangedEvent
from generator.emit.generate import render_spec
from runtime.core.unmap import GiveUp, WriteFaults, give_up
from tests.test_record_language_map import SPECS, spec_error

PARTITION = """partition: {value: "-1 if partition is None else partition",
                        message: "partition {value!r}: None or a table id >= 0"}"""
DDL_RULE = """            - {check: "header.partition[i] == -1", at: "header.partition[i]",
               message: "partition {value} out of range (always -1 here)"}
          fields:
            commit_ts: "header.commit_ts[i]"
            schema: "header.schema[i]"
            table: "header.table[i]"
            ddl_type"""


@pytest.mark.parametrize(
    "old, new, message",
    [
        ('      write_message: "not a ticdc_types event: {type}"\n', "", "needs write_message: (a model of no class)"),
        ("alone: [DDL, RESOLVED]", "alone: [DDL, RESOLVE]", "'RESOLVE' is not a class of this map:"),
        (PARTITION, PARTITION.replace("partition:", "partitions:"), "'partitions' is not a field of this class"),
        (PARTITION, 'partition: {message: "no inverse"}', "is not an element written back as it is"),
        ('"-1 if partition is None else partition"', "\"__import__('os')\"", "the only call is sizeof(NAME)"),
        ('"-1 if partition is None else partition"', '"partition.__class__"', "Attribute is not allowed here"),
        ('"-1 if partition is None else partition"', '"-1 if partition is None else partitions"', "unknown name 'partitions'"),
        ('"-1 if partition is None else partition"', '"-1 if partition is None else \'x\'"', "constants are integers or None"),
        ('"32 + sizeof(schema) + sizeof(table)"', '"32 + sizeof(schemas)"', "unknown name 'schemas'"),
        ('"32 + sizeof(schema) + sizeof(table)"', '"32 + len(schema)"', "the only call is sizeof(NAME)"),
        ('"32 + sizeof(schema) + sizeof(table)"', '"32 + sizeof(schema + table)"', "the only call is sizeof(NAME)"),
        ("max_bytes: {argument: max_message_bytes", "max_bytes: {argument: max_batch_size", "are two arguments"),
        (DDL_RULE, DDL_RULE.replace('"header.partition[i] == -1"', '"header.partition[i] <= -1"'), "no field of DDL writes header.partition[i] and no rule fixes it"),
        ('            write_message: {model: "expected a Column with a str name, got {value!r}",\n                            empty: "a row event needs new or old columns"}\n', "", "needs write_message: {model:, empty:}"),
        ("          unmapping: message\n", "          unmapping: frame\n", "'frame' is not a record with map: batch:"),
    ],
)  # fmt: skip
def test_a_bad_way_back_is_a_spec_error_at_its_line(tmp_path, old, new, message):
    err = spec_error(tmp_path, old, new)
    assert message in str(err)
    assert "ticdc_craft.yaml:" in str(err)  # file:line


def test_write_messages_stay_data(tmp_path):
    hostile = "x'); import os; ('"
    for name in ("mysql_types.yaml", "ticdc_types.yaml"):
        shutil.copy(SPECS / name, tmp_path / name)
    text = (SPECS / "ticdc_craft.yaml").read_text(encoding="utf-8")
    spec = tmp_path / "ticdc_craft.yaml"
    text = text.replace("None or a table id >= 0", hostile, 1)
    spec.write_text(text.replace("at least one event", hostile, 1), encoding="utf-8")
    tree = ast.parse(render_spec(spec)[1])
    constants = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
    assert "partition {value!r}: " + hostile in constants
    assert "a message holds " + hostile in constants
    imports = [n for n in ast.walk(tree) if isinstance(n, ast.Import)]
    assert not any(alias.name == "os" for n in imports for alias in n.names)


def test_the_rendered_way_back_is_the_one_the_codec_runs():
    way_back = craft.UNMAPPINGS["message"]
    assert way_back is craft._CRAFT_MESSAGE.unmapping
    assert way_back.batch.__name__ == "_batch_message"
    values = craft.VALUE_DECODERS["column_group.values"]
    event = RowChangedEvent(7, "s", "t", 3, new=[Column("a", 3, 0, 2000)])
    parts = way_back.unmap(event, give_up, values)
    assert parts == way_back.unmap(event, WriteFaults(("events", 0)), values)
    assert parts[1] == (7, 1, 3, "s", "t") and parts[2].column_groups[0]["values"] == [b"\xa0\x1f"]
    with pytest.raises(GiveUp):  # the quick path gives up where the checked one raises
        way_back.unmap(RowChangedEvent(7, "s", "t", -1), give_up, values)


def test_the_runtime_of_the_way_back_has_working_examples():
    assert doctest.testmod(runtime.core.unmap).failed == 0


def test_a_wrong_typed_text_says_what_it_got_as_every_writer_does():
    """``expected str, got int 7`` (``EncodeError.expected``'s words), not the type alone."""
    from runtime.core.errors import EncodeError

    way_back, values = craft.UNMAPPINGS["message"], craft.VALUE_DECODERS["column_group.values"]
    for event, text in [
        (RowChangedEvent(7, 5, "t", 3), "events[0].schema: expected str or None, got int 5"),
        (RowChangedEvent(7, "s", b"t", 3), "events[0].table: expected str or None, got bytes b't'"),
    ]:
        with pytest.raises(EncodeError) as err:
            way_back.unmap(event, WriteFaults(("events", 0)), values)
        assert str(err.value) == text
