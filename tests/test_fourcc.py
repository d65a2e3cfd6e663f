"""Four-character codes (``logical: fourcc`` on a ``u32be``, with an open enum or none): a
PNG-like chunk type whose listed codes read as their names and any other as its four
letters ("prVt", a private chunk), a number where the letters would not read back (not
printable, or a member's name); JSON both ways, Spark, ``inspect``, and the refusals at load."""

from __future__ import annotations

import pytest

from generator.cli import inspect as insp
from generator.emit.generate import render_spec
from runtime.core.errors import EncodeError, SpecError
from tests.test_fastbuild import written
from tests.test_process import spec_module

SPEC = """\
format: fourccs
title: Four-character codes
doc: Chunk types read as their letters.
endian: be
default_record: chunks
enums:
  chunk_type:
    doc: Chunk types.
    type: u32
    values:
      IHDR: {value: 0x49484452, doc: "the header"}
      IEND: {value: 0x49454e44, doc: "the end"}
      DATA: {value: 0x64617461, doc: "'data': its name is the letters of another code"}
  flag:
    doc: Flags.
    type: u32
    flags: true
    values:
      A: {value: 1, doc: "a"}
records:
  chunks:
    doc: Chunks to the end.
    fields:
      - {name: chunks, type: chunk, repeat: eos, doc: "the chunks"}
  chunk:
    doc: One chunk.
    fields:
      - {name: type, type: u32, enum: chunk_type, open: true, logical: fourcc, doc: "its type"}
      - {name: length, type: u8, doc: "the body's length"}
      - name: body
        switch_on: type
        size: length
        doc: the body, by the type
        cases:
          IHDR: u16
          IEND: empty
          DATA: {type: bytes, size: eos}
          default: {type: bytes, size: eos}
  riff:
    doc: A form type with no enum.
    fields:
      - {name: form, type: u32be, logical: fourcc, doc: "the form type"}
      - name: header
        switch_on: form
        enum: chunk_type
        doc: a u16 after IHDR, else nothing
        cases: {IHDR: u16, IEND: empty, DATA: empty, default: empty}
"""

IHDR = bytes.fromhex("49484452" "02" "0102")
PRIVATE = b"prVt" + bytes.fromhex("01" "ff")
CAPITAL_DATA = b"DATA" + bytes.fromhex("00")  # the letters of the member DATA's name
UNPRINTABLE = bytes.fromhex("00000001" "00")
IEND = bytes.fromhex("49454e44" "00")
DATA = IHDR + PRIVATE + CAPITAL_DATA + UNPRINTABLE + IEND


@pytest.fixture(scope="module")
def cc(tmp_path_factory):
    return spec_module(tmp_path_factory, "fourccs_codes", SPEC)


def test_a_listed_code_reads_as_its_name_another_as_its_letters(cc):
    model = cc.parse(DATA)
    assert [c.type for c in model.chunks][:2] == [cc.ChunkType.IHDR, 0x70725674]
    form = cc.to_dict(model)
    assert [c["type"] for c in form["chunks"]] == ["IHDR", "prVt", 0x44415441, 1, "IEND"]
    assert cc.build(cc.from_dict(form)) == cc.build_construct(model) == DATA
    assert written(cc, model, "chunks") == DATA
    for riff in (b"WAVE", b"IHDR\x00\x07"):  # a switch on a code its own enum names
        model = cc.parse(riff, "riff")
        assert model == cc.parse_construct(riff, "riff")
        assert cc.build(cc.from_dict(cc.to_dict(model), "riff"), "riff") == riff
    assert cc.to_dict(cc.parse(b"WAVE", "riff")) == {"form": "WAVE", "header": None}


@pytest.mark.parametrize(
    "given, value",
    [
        ("IHDR", 0x49484452),
        ("prVt", 0x70725674),
        ("DATA", 0x64617461),  # the member's name, not the letters D A T A
        (0x44415441, 0x44415441),
        ("9", 9),  # a number in a string (as JSON keeps big ones), not four letters
    ],
)
def test_the_json_form_takes_a_name_four_letters_or_a_number(cc, given, value):
    form = {"chunks": [{"type": given, "length": 1, "body": {"$hex": "00"}}]}
    if value == cc.ChunkType.IHDR:
        form["chunks"][0].update(length=2, body=3)
    assert cc.from_dict(form).chunks[0].type == value


@pytest.mark.parametrize("given", ["IHDRX", "pr\u00e9t", "p\trt", [], None])
def test_the_json_form_refuses_what_is_no_code(cc, given):
    with pytest.raises(EncodeError, match=r"chunks\[0\]\.type"):
        cc.from_dict({"chunks": [{"type": given, "length": 0, "body": {"$hex": ""}}]})


def test_spark_shows_the_text(cc):
    pytest.importorskip("pyspark")
    from pyspark.sql.types import StringType

    schema = cc.spark_schema("chunk")
    assert {f.name: f.dataType for f in schema.fields}["type"] == StringType()
    types = [next(iter(cc.to_rows(c, "chunk")))[0] for c in cc.parse(DATA).chunks]
    assert types == ["IHDR", "prVt", str(0x44415441), "1", "IEND"]


def test_inspect_shows_the_letters_and_the_number(cc):
    result = insp.trace(cc, DATA, "chunks")
    rows = {r.path: r.text for r in insp.rows(result.root, result.views) if r.leaf}
    assert rows["chunks[1].type"] == f"prVt ({0x70725674})"
    assert rows["chunks[0].type"] == f"IHDR ({0x49484452})"


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("type: u32be, logical: fourcc", "type: u32le, logical: fourcc", "one u32be"),
        ("type: u32be, logical: fourcc", "type: u16, logical: fourcc", "one u32be"),
        (
            "type: u32be, logical: fourcc",
            "type: u32be, repeat: {count: 2}, logical: fourcc",
            "one u32be",
        ),
        ("enum: chunk_type, open: true, logical", "enum: chunk_type, logical", "open: true"),
        (
            'logical: fourcc, doc: "the form',
            'enum: flag, open: true, logical: fourcc, doc: "the form',
            "not flags",
        ),
    ],
)
def test_refused_at_load_with_file_and_line(tmp_path, old, new, message):
    assert old in SPEC
    path = tmp_path / "bad.yaml"
    path.write_text(SPEC.replace(old, new))
    with pytest.raises(SpecError, match=message) as info:
        render_spec(path)
    assert (
        "bad.yaml:" in str(info.value)
        and ".logical" in str(info.value)
        or ".enum" in str(info.value)
    )
