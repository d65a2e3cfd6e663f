"""A fixed-width size written before what it measures (generator/emit/fastbuild_sizes.py):
the fast writers reserve it, write the field, then patch it, in one pass; where something
reads the size while the field is written they measure the field first, as before. The
bytes are construct's either way."""

from __future__ import annotations

import struct

import pytest

from generated import bson
from generator.emit.fastbuild import BuildEmitter
from generator.emit.generate import render_spec
from generator.spec.loader import load
from generator.spec.validate import build_model
from runtime.core.errors import EncodeError
from tests.test_generator import load_module

SPEC = """\
format: framed
title: Framed
doc: A frame's length, a kind byte, then the body the length measures.
endian: be
default_record: frame
records:
  frame:
    doc: A frame.
    fields:
      - name: length
        type: u16
        value: "sizeof(body) + 2"
        valid: "length >= 3"
        doc: The body's size and this field's.
      - {name: kind, type: u8, doc: "Between the length and the body."}
      - name: body
        type: inner
        size: "length - 2"
        doc: The body.
  inner:
    doc: The body's text.
    fields:
      - {name: text, type: str, size: eos, doc: "The text."}
"""


def _framed(tmp_path, text=SPEC):
    path = tmp_path / "framed.yaml"
    path.write_text(text)
    writers = BuildEmitter(build_model(load(path, path.name))).supported
    return load_module("framed_mod", render_spec(path)[1], tmp_path), writers["frame"]


def test_the_size_is_patched_after_the_body(tmp_path):
    mod, writer = _framed(tmp_path)
    assert "rt_fast.measured" not in writer and "out[f_length_at : f_length_at + 2]" in writer
    model = mod.Frame(kind=7, body=mod.Inner(text="héllo"))
    fast = bytearray()
    mod.FAST_WRITERS["frame"](model, fast)
    assert bytes(fast) == mod.build(model) == b"\x00\x08\x07h\xc3\xa9llo"
    assert mod.parse(bytes(fast)).length == 8


def test_a_size_the_type_cannot_hold_or_valid_refuses_is_constructs_error(tmp_path):
    mod, _ = _framed(tmp_path)
    with pytest.raises(Exception):  # noqa: B017 - the fast writer: anything, construct then builds
        mod.FAST_WRITERS["frame"](mod.Frame(kind=1, body=mod.Inner(text="x" * 70000)), bytearray())
    with pytest.raises(EncodeError):
        mod.build(mod.Frame(kind=1, body=mod.Inner(text="x" * 70000)))
    with pytest.raises(EncodeError, match="length"):
        mod.build(mod.Frame(kind=1, body=mod.Inner(text="")))  # 2: valid wants 3


def test_a_size_read_while_its_field_is_written_is_measured_first(tmp_path):
    text = SPEC.replace(
        '        size: "length - 2"\n', '        size: "length - 2"\n        if: "length > 2"\n'
    )
    mod, writer = _framed(tmp_path, text)
    assert "rt_fast.measured(_write_inner" in writer
    model = mod.Frame(kind=7, body=mod.Inner(text="hi"))
    assert mod.build(model) == b"\x00\x04\x07hi"


def _nested(levels: int) -> bytes:
    """A document holding a document ... ``levels`` deep, an int32 in the innermost."""
    body = b"\x10n\x00" + struct.pack("<i", levels)
    for _ in range(levels):
        doc = struct.pack("<i", len(body) + 5) + body + b"\x00"
        body = b"\x03d\x00" + doc
    return doc


def test_nested_documents_build_in_one_pass():
    data = _nested(15)
    model = bson.parse(data, record="document")
    assert bson.build(model, record="document") == data
    out = bytearray()
    bson.FAST_WRITERS["document"](model, out)
    assert bytes(out) == data
