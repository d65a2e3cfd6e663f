"""Paths a user reaches that the rest of the suite did not run (found by scripts/coverage.sh):
the snappy framing codec, 32-bit msb varint arrays, JSON arrays in ``inspect``'s byte spans
and a Thrift IDL default that names an enum member."""

from __future__ import annotations

import cramjam
import pytest

from generator.importers.thrift_idl import import_thrift
from runtime.core import fast, process
from runtime.core.errors import DecodeError, LimitError, SpecError
from runtime.core.spans import SpanRecorder, Trace
from runtime.formats import json_spans

PLAIN = bytes(range(256)) * 40  # 10 KiB: past the first 1 KiB guess, so the buffer grows


def test_snappy_framed_round_trip_and_limits():
    wire = process.encoder("snappy_framed")(PLAIN)
    assert wire == bytes(cramjam.snappy.compress(PLAIN))
    assert process.decode("snappy_framed", wire, 1 << 20) == PLAIN
    assert process.decode("snappy_framed", wire, len(PLAIN)) == PLAIN  # exactly the limit
    for limit in (len(PLAIN) - 1, 100):
        with pytest.raises(LimitError, match=f"max_decompressed_bytes={limit}"):
            process.decode("snappy_framed", wire, limit)
    assert process.decode("snappy_framed", b"", 100) == b""


@pytest.mark.parametrize("wire", [b"garbage", b"\xff\x06\x00\x00sNaPpY\x01\x07\x00\x00nW\xf1!abd"])
def test_snappy_framed_corrupt_input_is_a_decode_error(wire):
    with pytest.raises(DecodeError, match="corrupt compressed data"):
        process.decode("snappy_framed", wire, 1 << 20)


def test_msb_array_of_32_bit_values():
    assert fast.msb_uvar_array(b"\x02\x04\x01\x02", 0, 4, 3, 32) == ([1, 2, 128], 4)
    assert fast.msb_uvar_array(b"\x02\x04\x05\x02", 0, 4, 3, 32) == ([1, 2, 129], 4)
    assert fast.msb_uvar_array(b"\x02\x04", 0, 2, 3, 32) is None  # too short
    assert fast.msb_uvar_array(b"\x01\x00", 0, 2, 1, 32) is None  # 0 in two bytes
    assert fast.msb_uvar_array(b"\x03\x00", 0, 2, 1, 32) is None  # a 3-byte form


def test_json_spans_of_arrays_cover_every_byte():
    doc = b'{"a":[1, [] ,{"b":2}],"c":[]}'
    rec = SpanRecorder()
    assert json_spans.report(rec, doc, 0)
    rec.root.end = len(doc)
    leaves = list(Trace(doc, rec.root).leaves())
    assert b"".join(doc[s.start : s.end] for s in leaves) == doc
    values = {(s.path, s.value) for s in leaves if s.role == "value"}
    assert {("a.0", 1), ("a.2.b", 2)} <= values or {("a[0]", 1), ("a[2].b", 2)} <= values


def test_thrift_default_naming_an_enum_member(tmp_path):
    idl = tmp_path / "e.thrift"
    idl.write_text("enum Color { RED = 1, BLUE = 2 }\nstruct S { 1: i32 n = Color.BLUE }\n")
    assert '{id: 1, name: "n", type: i32, default: 2}' in import_thrift(idl)
    idl.write_text("enum Color { RED = 1 }\nstruct S { 1: i32 n = Color.PURPLE }\n")
    with pytest.raises(SpecError, match="enum Color has no member 'PURPLE'"):
        import_thrift(idl)
    idl.write_text("enum Color { RED = 1 }\nstruct S { 1: i32 n = Nope.X }\n")
    with pytest.raises(SpecError, match="unknown constant 'Nope.X'"):
        import_thrift(idl)
