"""What generator/emit/compiled_arrow.py leaves to the Python rows in a user's spec, said
by its reason (``refused``): such a record has no Arrow writer and decodes the Python way,
as tests/test_arrow_reader.py holds for the shipped formats."""

from __future__ import annotations

import pytest

from generator.emit.compiled_arrow import ArrowEmitter
from generator.emit.lowering import Lowering
from generator.emit.module_emitter import ModuleEmitter
from generator.spec.loader import load
from generator.spec.validate import build_model

CHOICE = """\
format: choices
title: Choices
doc: A number and a choice that Spark leaves out.
endian: be
default_record: tagged
records:
  tagged:
    doc: A number and a choice.
    fields:
      - {name: n, type: u8, doc: "a number"}
      - {name: form, choice: [small, nil], spark: {skip: true}, doc: "no column"}
  small:
    doc: "0xxxxxxx"
    fields:
      - {name: code, type: b1, const: 0, doc: "0"}
      - {name: value, type: b7, doc: "the integer"}
  nil:
    doc: "0xc0"
    fields:
      - {name: code, type: u8, const: 0xc0, doc: "0xc0"}
"""
CRCS = """\
format: crcs
title: CRCs
doc: Counted cells and a CRC-8 over their members.
endian: be
default_record: framed
records:
  framed:
    doc: Counted cells and a CRC-8 over members of each.
    fields:
      - {name: count, type: u8, value: "len(cells)", doc: "how many cells"}
      - {name: cells, type: cell, repeat: {count: count}, doc: "the cells"}
      - name: checksum
        type: u8
        checksum:
          algorithm: crc8
          over:
            - {each: cells, member: checksum, as: u8}
            - {each: cells, member: MEMBER, as: u8}
        doc: "CRC-8 of the cells' checksums, then of a member of each again"
  cell:
    doc: A value and its CRC-8.
    fields:
      - {name: v, type: u8, doc: "a byte"}
      - name: checksum
        type: u8
        checksum: {algorithm: crc8, over: [v]}
        doc: "CRC-8 of v"
"""


def arrow_of(tmp_path, text: str) -> ArrowEmitter:
    """The Arrow writers of the spec ``text``, as generator/emit/render.py renders them."""
    path = tmp_path / "spec.yaml"
    path.write_text(text, encoding="utf-8")
    spec = build_model(load(path, "spec.yaml"))
    rows = {r.name: r.spark_row for r in spec.records.values() if r.spark_row}
    return ArrowEmitter(spec, Lowering(spec), ModuleEmitter(spec).spark_tables(), rows)


def test_a_record_with_a_choice_spark_leaves_out_has_no_arrow_writer(tmp_path):
    """Its columns have a table (the choice has none), but the writer reads no choice."""
    arrow = arrow_of(tmp_path, CHOICE)
    assert arrow.refused == {"tagged": "f_form: a choice"}
    assert sorted(arrow.functions) == ["nil", "small"]


@pytest.mark.parametrize("member", ["checksum", "v"])
def test_a_crc8_reads_only_the_member_the_element_writers_return(tmp_path, member):
    """A list a CRC-8 reads twice is kept, as the bytes its elements' writers return: the
    one member the checksum reads first (another member of them cannot be read again)."""
    arrow = arrow_of(tmp_path, CRCS.replace("MEMBER", member))
    if member == "checksum":
        assert (
            arrow.refused == {}
            and "_CRC8[f_checksum_crc ^ <uint8_t>e]" in arrow.functions["framed"]
        )
    else:
        assert arrow.refused == {"framed": "a checksum of cell.v, not checksum"}
