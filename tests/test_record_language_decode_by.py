"""``decode_by:`` and an enum attribute's ``kinds:``: the elements of a bytes chunk are values
whose wire type their code's kind names, on a small spec of their own (Craft uses them for
real: its column values, tests/test_craft_*.py)."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

import runtime.core.value_kinds
from generator.emit.generate import render_spec
from runtime.core.errors import DecodeError, EncodeError, SpecError
from tests.test_generator import load_module

SPEC = """\
format: cells
title: Cells
doc: Cells whose bytes are decoded by the kind of their type code.
endian: be
default_record: row
enums:
  cell_type:
    doc: The type of a cell.
    type: u8
    attributes:
      wire:
        doc: How a cell's bytes are encoded.
        kinds:
          number: {type: varint, unsigned: uvarint}
          real: f64
          word: str
          nothing: "null"
    values:
      NUMBER: {value: 1, wire: number, doc: A number.}
      REAL: {value: 2, wire: real, doc: A real.}
      WORD: {value: 3, wire: word, doc: A word.}
      EMPTY: {value: 4, wire: nothing, doc: Nothing.}
  cell_flag:
    doc: Flags of a cell.
    type: u8
    flags: true
    values:
      POSITIVE: {value: 4, doc: Unsigned.}
records:
  row:
    doc: One row of cells.
    fields:
      - name: types
        type: uvarint_chunk
        count: 3
        enum: cell_type
        open: true
        doc: The type of each cell.
      - name: flags
        type: uvarint_chunk
        count: 3
        doc: The flags of each cell.
      - name: cells
        type: nullable_bytes_chunk
        count: 3
        decode_by: {code: types, attribute: cell_type.wire, signed_unless: "flags[_index] & cell_flag.POSITIVE"}
        doc: The cells.
"""


def spec_error(tmp_path: Path, old: str, new: str) -> SpecError:
    assert old in SPEC, old
    spec = tmp_path / "cells.yaml"
    spec.write_text(SPEC.replace(old, new, 1))
    with pytest.raises(SpecError) as info:
        render_spec(spec)
    return info.value


def test_the_module_configures_the_kinds_and_the_wire_keeps_bytes(tmp_path):
    spec = tmp_path / "cells.yaml"
    spec.write_text(SPEC)
    mod = load_module("cells_mod", render_spec(spec)[1], tmp_path)
    kinds = mod.VALUE_DECODERS["row.cells"]
    assert kinds.codes == {1: "number", 2: "real", 3: "word", 4: "nothing"}
    assert kinds.unsigned == 4 and kinds.byte_order == ">"  # the spec's endian
    assert kinds.wire_type(1, 0) == "varint" and kinds.wire_type(1, 4) == "uvarint"
    assert kinds.decode(1, 0, b"\x03") == -2 and kinds.decode(1, 4, b"\x03") == 3
    assert kinds.decode(2, 0, kinds.encode(2, 0, 1.5)) == 1.5
    assert kinds.encode(2, 0, 1.5) == bytes.fromhex("3ff8000000000000")
    with pytest.raises(DecodeError, match="unknown cell type code 9"):
        kinds.decode(9, 0, b"")
    with pytest.raises(DecodeError, match="1 bytes after the varint value"):
        kinds.decode(1, 0, b"\x01\x01")
    with pytest.raises(DecodeError, match="type code 4 is always NULL but has a value"):
        kinds.decode(4, 0, b"")
    with pytest.raises(EncodeError, match=r"expected str \(type code 3\), got int 1"):
        kinds.encode(3, 0, 1)
    # the frame itself keeps the bytes, whatever they are
    data = mod.build(mod.Row(types=[1, 9, 4], flags=[0, 0, 0], cells=[b"\x01\x01", None, b"x"]))
    assert mod.parse(data).cells == [b"\x01\x01", None, b"x"]


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("attribute: cell_type.wire,", "attribute: cell_type.other,", "is not ENUM.ATTRIBUTE with kinds:"),
        ("code: types,", "code: flags,", "is not a sibling chunk of integers with enum: cell_type"),
        ("code: types,", "code: cells,", "is not a sibling chunk of integers"),
        ('"flags[_index] & cell_flag.POSITIVE"', '"flags[_index] | 4"', "is not SIBLING[_index] & ENUM.MEMBER"),
        ('"flags[_index] & cell_flag.POSITIVE"', '"cells[_index] & cell_flag.POSITIVE"', "is not a sibling chunk of integers"),
        ('"flags[_index] & cell_flag.POSITIVE"', '"flags[_index] & cell_flag.NEGATIVE"', "cell_flag.NEGATIVE is not a member"),
        (', signed_unless: "flags[_index] & cell_flag.POSITIVE"}', "}", "kind 'number' has unsigned: it needs signed_unless:"),
        ("        decode_by: {code: types", "        count: 3\n        decode_by: {code: types", ""),
        ("      - name: cells\n        type: nullable_bytes_chunk", "      - name: cells\n        type: uvarint_chunk", "decode_by: is on a chunk of bytes"),
        ("          word: str\n", "          word: text\n", "word"),
        ("        kinds:\n", "        values: [a]\n        kinds:\n", "values: or kinds:, one of them"),
    ],
)  # fmt: skip
def test_bad_decode_by_is_a_spec_error_at_its_line(tmp_path, old, new, message):
    if not message:  # a duplicate key is the loader's own error
        spec_error(tmp_path, old, new)
        return
    err = spec_error(tmp_path, old, new)
    assert message in str(err)
    assert "cells.yaml:" in str(err)  # file:line


def test_spec_text_in_kind_names_stays_data(tmp_path):
    hostile = "x'); import os; ('"
    spec = tmp_path / "cells.yaml"
    spec.write_text(
        SPEC.replace("real: f64", f'"{hostile}": f64').replace("wire: real", f'wire: "{hostile}"')
    )
    mod = load_module("cells_hostile", render_spec(spec)[1], tmp_path)
    assert mod.VALUE_DECODERS["row.cells"].codes[2] == hostile


def test_the_runtime_value_kinds_examples():
    assert doctest.testmod(runtime.core.value_kinds).failed == 0
