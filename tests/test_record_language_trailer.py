"""The record language's trailer, chunks, regions, computed values and validity checks, on
a small spec of their own (Craft uses them for real: tests/test_craft_*.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.emit.generate import render_spec
from runtime.core.errors import DecodeError, SpecError
from tests.test_generator import load_module

SPEC = """\
format: indexed
title: Indexed
doc: Items back to back, their sizes in a table at the end, found through the last byte.
endian: le
default_record: file
enums:
  kind:
    doc: What an item holds.
    type: u8
    values:
      TEXT: {value: 1, doc: "a string"}
      NUMBERS: {value: 2, doc: "varints"}
records:
  file:
    doc: The file.
    fields:
      - name: kinds
        type: uvarint_chunk
        count: "len(sizes)"
        enum: kind
        doc: The kind of each item.
      - name: entries
        type: item
        repeat: {count: "len(sizes)"}
        size: "sizes[_index]"
        doc: The items.
    trailer:
      - name: table_size
        type: reversed_uvarint
        value: "sizeof(sizes)"
        doc: Bytes of the size table.
      - name: sizes
        type: varint_chunk
        count: "table_size"
        size: table_size
        value: "sizeof(entries)"
        valid: "min(sizes + [0]) >= 0"
        doc: The size of every item.
  item:
    doc: One item.
    fields:
      - name: text
        type: str
        size: uvarint
        if: "_parent.kinds[_parent._index] == kind.TEXT"
        doc: A string.
      - name: numbers
        type: delta_uvarint_chunk
        count: 2
        if: "_parent.kinds[_parent._index] == kind.NUMBERS"
        doc: Two numbers.
"""


def module(tmp_path: Path, text: str = SPEC):
    spec = tmp_path / "indexed.yaml"
    spec.write_text(text)
    return load_module("indexed_mod", render_spec(spec)[1], tmp_path)


def spec_error(tmp_path: Path, old: str, new: str) -> SpecError:
    assert old in SPEC, old
    spec = tmp_path / "indexed.yaml"
    spec.write_text(SPEC.replace(old, new, 1))
    with pytest.raises(SpecError) as info:
        render_spec(spec)
    return info.value


def test_build_computes_the_trailer_and_parse_reads_it_first(tmp_path):
    mod = module(tmp_path)
    model = mod.File(
        kinds=[mod.Kind.TEXT, mod.Kind.NUMBERS],
        entries=[mod.Item(text="hi"), mod.Item(numbers=[5, 4])],
    )
    data = mod.build(model)
    # kinds | "hi" item | numbers item (5, then 4 - 5 mod 2**64) | sizes 3, 11 | table size
    assert data.hex(" ") == "01 02 02 68 69 05 ff ff ff ff ff ff ff ff ff 01 06 16 02"
    back = mod.parse(data)
    assert back.sizes == [3, 11] and back.table_size == 2
    assert back.entries == model.entries and back.kinds == model.kinds
    assert mod.build(mod.from_dict(mod.to_dict(back))) == data  # sizes left out, recomputed


def test_bad_trailers_are_decode_errors_at_the_field(tmp_path):
    mod = module(tmp_path)
    data = mod.build(mod.File(kinds=[mod.Kind.TEXT], entries=[mod.Item(text="hi")]))
    with pytest.raises(DecodeError) as err:
        mod.parse(data[:-1] + b"\x09")  # the table claims 9 bytes: more than there are
    assert (err.value.path, err.value.offset) == ("sizes", 5) and "outside" in err.value.message
    with pytest.raises(DecodeError) as err:
        mod.parse(data[:-2] + b"\x05\x01")  # a size of -3
    assert (
        err.value.path == "sizes" and "does not satisfy min(sizes + [0]) >= 0" in err.value.message
    )
    with pytest.raises(DecodeError) as err:
        mod.parse(b"\x01" + data)  # one byte more in front than the sizes account for
    assert err.value.path == "entries[0]"
    with pytest.raises(DecodeError) as err:
        mod.parse(b"")
    assert (err.value.path, err.value.offset) == ("table_size", 0)


MESSAGE_RULE = 'valid: {check: "all([s >= 0 for s in sizes])", message: "an item size is negative"}'


def test_a_validity_rule_over_every_element_may_say_its_own_message(tmp_path):
    mod = module(tmp_path, SPEC.replace('valid: "min(sizes + [0]) >= 0"', MESSAGE_RULE))
    data = mod.build(mod.File(kinds=[mod.Kind.TEXT], entries=[mod.Item(text="hi")]))
    assert mod.parse(data).sizes == [3]
    for parse in (mod.parse, mod.parse_construct):  # the fast path and construct
        with pytest.raises(DecodeError) as err:
            parse(data[:-2] + b"\x05\x01")  # a size of -3
        assert (err.value.path, err.value.offset, err.value.message) == (
            "sizes",
            4,
            "an item size is negative",
        )


def test_a_validity_rule_is_checked_when_the_spec_is_loaded(tmp_path):
    err = spec_error(
        tmp_path,
        'valid: "min(sizes + [0]) >= 0"',
        'valid: {check: "all([open(s) for s in sizes])", message: "no"}',
    )
    assert err.key == "records.file.trailer[1].valid.check" and "may not call" in str(err)
    assert "indexed.yaml:37: " in str(err)
    # a mapping is told what is wrong with it as the {check, message} form, not that no
    # form of the key fits
    err = spec_error(tmp_path, 'valid: "min(sizes + [0]) >= 0"', 'valid: {check: "1"}')
    assert str(err) == "indexed.yaml:37: records.file.trailer[1].valid: missing key 'message'"
    err = spec_error(tmp_path, 'valid: "min(sizes + [0]) >= 0"', 'valid: {chek: "1", message: m}')
    assert str(err).startswith("indexed.yaml:37: records.file.trailer[1].valid.chek: unknown key")
    err = spec_error(tmp_path, 'valid: "min(sizes + [0]) >= 0"', "valid: [1]")
    assert str(err).startswith("indexed.yaml:37: records.file.trailer[1].valid: not a valid form")


def test_a_chunk_needs_a_count(tmp_path):
    err = spec_error(
        tmp_path, '        count: "len(sizes)"\n        enum: kind', "        enum: kind"
    )
    assert err.key == "records.file.fields[0]" and "needs a count" in str(err)


def test_a_trailer_field_must_know_where_it_starts(tmp_path):
    err = spec_error(tmp_path, "        size: table_size\n", "")
    assert err.key == "records.file.trailer[1]" and "size: expression" in str(err)


def test_reversed_uvarint_only_in_a_trailer(tmp_path):
    err = spec_error(
        tmp_path,
        '        type: uvarint_chunk\n        count: "len(sizes)"\n        enum: kind',
        "        type: reversed_uvarint",
    )
    assert err.key == "records.file.fields[0].type" and "put it in trailer:" in str(err)


def test_sizeof_only_where_the_builder_computes(tmp_path):
    err = spec_error(tmp_path, 'valid: "min(sizes + [0]) >= 0"', 'valid: "sizeof(sizes) > 0"')
    assert err.key == "records.file.trailer[1].valid" and "sizeof only in value:" in str(err)


def test_a_region_needs_a_size_expression(tmp_path):
    text = SPEC.replace(
        "      - name: entries\n        type: item",
        "      - name: names\n        type: term_dictionary\n        doc: Names.\n"
        "      - name: entries\n        type: item",
    )
    spec = tmp_path / "indexed.yaml"
    spec.write_text(text)
    with pytest.raises(SpecError, match="term_dictionary takes the bytes a size: expression gives"):
        render_spec(spec)


def test_a_field_may_be_named_like_a_model_method(tmp_path):
    mod = module(tmp_path, SPEC.replace("entries", "items"))
    data = mod.build(mod.File(kinds=[mod.Kind.TEXT], items=[mod.Item(text="hi")]))
    assert mod.parse(data).items == [mod.Item(text="hi")]


def test_sizeof_takes_one_field(tmp_path):
    err = spec_error(tmp_path, 'value: "sizeof(sizes)"', 'value: "sizeof(sizes, entries)"')
    assert err.key == "records.file.trailer[0].value" and "sizeof takes one field" in str(err)


def test_a_trailer_field_that_cannot_be_read_backwards_is_a_spec_error():
    from construct import Int8ul

    from runtime.core.record import Record

    with pytest.raises(SpecError, match="cannot be read from the end"):
        Record("a" / Int8ul, trailer=["b" / Int8ul])
