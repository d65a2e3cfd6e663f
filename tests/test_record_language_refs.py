"""``ref:`` and ``interned:``: integer fields that name the entries of a dictionary read
elsewhere in the message, on a small spec of their own (Craft uses them for real: its
term ids, tests/test_craft_*.py)."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

import runtime.core.refs
from generator.emit.generate import render_spec
from runtime.core.errors import SpecError
from tests.test_generator import load_module

SPEC = """\
format: named
title: Named
doc: Rows whose column names are ids into the names chunk in front.
endian: le
default_record: file
records:
  file:
    doc: The file.
    fields:
      - name: names
        type: string_chunk
        count: 2
        interned: [owner, "rows[*].ids"]
        doc: Every name, once.
      - name: owner
        type: varint
        ref: {to: names, "null": -1, empty: refused}
        doc: The owner's name, -1 = none.
      - name: rows
        type: row
        repeat: {count: 2}
        doc: The rows.
  row:
    doc: One row.
    fields:
      - name: ids
        type: delta_varint_chunk
        count: 2
        ref: {to: _parent.names}
        doc: The names of its two columns.
"""


def spec_error(tmp_path: Path, old: str, new: str) -> SpecError:
    assert old in SPEC, old
    spec = tmp_path / "named.yaml"
    spec.write_text(SPEC.replace(old, new, 1))
    with pytest.raises(SpecError) as info:
        render_spec(spec)
    return info.value


def test_the_module_configures_the_dictionary_and_the_wire_keeps_ids(tmp_path):
    spec = tmp_path / "named.yaml"
    spec.write_text(SPEC)
    mod = load_module("named_mod", render_spec(spec)[1], tmp_path)
    terms = mod.DICTIONARIES["file.names"]
    assert [ref.path for ref in terms.interned] == ["owner", "rows[*].ids"]
    assert terms.ref("owner") == runtime.core.refs.Ref("owner", null=-1, empty_refused=True)
    model = {"owner": "b", "rows": [{"ids": ["a", "b"]}, {"ids": ["c", "a"]}]}
    terms.intern(model)
    assert model["names"] == ["b", "a", "c"] and model["owner"] == 0
    assert [row["ids"] for row in model["rows"]] == [[1, 0], [2, 1]]
    # the frame itself reads ids, whatever they name
    data = mod.build(mod.File(names=["x", ""], owner=7, rows=[mod.Row(ids=[0, 9])] * 2))
    assert mod.parse(data).owner == 7
    assert (
        terms.ref("owner").problem(7, ["x", ""], terms.noun) == "entry id 7 out of range (-1 .. 1)"
    )
    assert terms.ref("owner").problem(1, ["x", ""], terms.noun).endswith("which is written as -1")


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("ref: {to: names,", "ref: {to: nothing,", "record file has no dictionary 'nothing'"),
        ("ref: {to: names,", "ref: {to: rows,", "record file has no dictionary 'rows'"),
        ("ref: {to: _parent.names}", "ref: {to: names}", "record row has no dictionary"),
        ("ref: {to: _parent.names}", "ref: {to: _parent._parent.names}", "no record encloses"),
        ("ref: {to: _parent.names}", "ref: {to: '_parent..names'}", "ref: to is _parent."),
        (', "null": -1, empty: refused}', ", empty: refused}", "empty: refused writes the empty"),
        ("type: varint\n", "type: str\n        size: uvarint\n", "holds integer ids"),
        ('interned: [owner, "rows[*].ids"]', "interned: [owner]", "row.ids refs names"),
        ('interned: [owner, "rows[*].ids"]', 'interned: [owner, "rows.ids"]', "is a repeat"),
        ('interned: [owner, "rows[*].ids"]', 'interned: [owner, "rows[*].x"]', "no field 'x'"),
        ('        interned: [owner, "rows[*].ids"]\n', "", "it needs interned:"),
    ],
)
def test_bad_refs_are_spec_errors_at_their_line(tmp_path, old, new, message):
    err = spec_error(tmp_path, old, new)
    assert message in str(err)
    assert "named.yaml:" in str(err)  # file:line


def test_the_runtime_dictionary_examples():
    assert doctest.testmod(runtime.core.refs).failed == 0
