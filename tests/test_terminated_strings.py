"""``terminator:`` on str and bytes (Kaitai's ``strz``; issue #18): the value runs to a byte
that is read and written but is no part of it. A small spec of its own, rendered in a
temporary folder: known bytes both ways, every tier held equal to construct (the exact fast
reader's errors, the quick tier's model or hand-over) on drawn models, truncations and
mutations, the writers' refusal of a value holding its terminator, ``sizeof`` counting it,
the refusals at load with file and line, ``inspect`` marking the byte, and the compiled
tier's text (building a test spec takes a compiler and too long for the suite; PNG's
keywords run it compiled)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.cli import inspect as insp
from generator.emit.compiled import CompiledEmitter
from generator.emit.generate import render_spec
from generator.spec.loader import load
from generator.spec.validate import build_model
from runtime.core.errors import EncodeError, SpecError
from tests.test_process import spec_module
from tests.test_quicktier import exact, quick
from tests.test_repeat_until import held, outcome_of

SPEC = """\
format: termy
title: Terminated strings
doc: Text and bytes that run to a terminator byte.
endian: be
default_record: packet
records:
  packet:
    doc: One packet.
    fields:
      - {name: keyword, type: str, terminator: 0, encoding: latin-1, doc: "Latin-1, to a NUL."}
      - {name: line, type: bytes, terminator: 10, doc: "Bytes up to a newline."}
      - {name: body_length, type: u16, value: "sizeof(body)", doc: "The body's byte length."}
      - {name: body, type: body, size: body_length, doc: "A sized body."}
      - {name: tail, type: u8, doc: "A byte after the body."}
  body:
    doc: Terminated text inside a sized region.
    fields:
      - {name: title, type: str, terminator: 0, doc: "UTF-8, to a NUL."}
      - {name: names, type: str, terminator: 0, encoding: ascii, repeat: eos, doc: "To the end."}
"""

KNOWN = b"Title\x00line\n" + b"\x00\x0a" + "hé".encode() + b"\x00ab\x00cd\x00" + b"\x07"


@pytest.fixture(scope="module")
def termy(tmp_path_factory):
    return spec_module(tmp_path_factory, "termy_strings", SPEC)


def test_known_bytes_both_ways(termy):
    model = termy.parse(KNOWN)
    assert (model.keyword, model.line, model.body_length) == ("Title", b"line", 10)
    assert (model.body.title, model.body.names, model.tail) == ("hé", ["ab", "cd"], 7)
    assert termy.parse_construct(KNOWN) == model == quick(termy, KNOWN, "packet")
    assert exact(termy, KNOWN, "packet")[0] == model
    assert termy.build(model) == termy.build_construct(model) == KNOWN
    model.body_length = None  # computed: sizeof counts each terminator
    model.keyword = "Ä"
    assert termy.build(model) == termy.build_construct(model) == b"\xc4" + KNOWN[5:]


def test_a_missing_terminator_is_a_decode_error_at_the_regions_end(termy):
    cases = {
        b"Title": ("no terminator byte 0x00 after the string", 5, "keyword"),
        b"T\x00line": ("no terminator byte 0x0a after the bytes", 6, "line"),
        # the body's region is 3 bytes: its title's NUL would be the 4th
        b"T\x00l\n\x00\x03abc\x00\x07": ("after the string", 9, "body.title"),
        b"T\x00l\n\x00\x05a\x00b\x00c\x07": ("after the string", 11, "body.names[1]"),
        b"T\x00l\n\x00\x02\xff\x00\x07": ("invalid utf8", 6, "body.title"),
        b"T\x00l\n\x00\x04a\x00\xff\x00\x07": ("invalid ascii", 8, "body.names[0]"),
    }
    for data, (words, offset, path) in cases.items():
        outcome = outcome_of(termy.parse, data)
        assert outcome == outcome_of(termy.parse_construct, data)
        assert words in outcome[0] and outcome[1:] == (offset, path), outcome
        assert quick(termy, data, "packet") is None
    long = b"x" * 40 + b"\x00\n\x00\x00\x07"
    outcome = outcome_of(termy.parse, long, max_string=39)
    assert "max_string" in outcome[0] and outcome[1:] == (0, "keyword")
    assert outcome == outcome_of(termy.parse_construct, long, max_string=39)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_tiers_agree_on_drawn_models_truncations_and_mutations(termy, data):
    model = data.draw(termy.strategies("packet"))
    assert "\x00" not in model.keyword and b"\n" not in model.line  # never drawn
    assert all("\x00" not in v for v in [model.body.title, *model.body.names])
    built = termy.build(model)
    assert built == termy.build_construct(model)
    parsed = termy.parse_construct(built)
    assert parsed == termy.parse(built) == quick(termy, built, "packet")
    assert (parsed.keyword, parsed.line, parsed.body.title) == (
        model.keyword,
        model.line,
        model.body.title,
    )
    held(termy, built, "packet")
    held(termy, built, "packet", max_string=2)
    for cut in range(len(built)):
        held(termy, built[:cut], "packet")
    buf = bytearray(built)
    for _ in range(data.draw(st.integers(1, 3))):
        buf[data.draw(st.integers(0, len(buf) - 1))] = data.draw(st.sampled_from([0, 10, 65]))
    held(termy, bytes(buf), "packet")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("keyword", "a\x00b", "keyword: the value holds its terminator byte 0x00 at byte 1"),
        ("line", b"one\ntwo", "line: the value holds its terminator byte 0x0a at byte 3"),
        ("keyword", "\u20ac", "codec can't encode"),
        ("line", "text", "expected bytes, got str"),
    ],
)
def test_the_writers_refuse_a_value_that_would_not_read_back(termy, field, value, message):
    model = termy.parse(KNOWN)
    setattr(model, field, value)
    with pytest.raises(EncodeError) as fast:
        termy.build(model)
    with pytest.raises(EncodeError) as oracle:
        termy.build_construct(model)
    assert str(fast.value) == str(oracle.value)
    assert message in str(fast.value)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("type: bytes, terminator: 10,", "type: bytes, terminator: 10, size: 4,",
         "takes a size or a terminator"),
        ("type: u8, doc", "type: u8, terminator: 0, doc", "terminator: goes with a str or bytes"),
        ("terminator: 0, encoding: latin-1,", "terminator: 0, encoding: utf-16,",
         "encoding of single bytes, not 'utf-16'"),
        ("terminator: 0, encoding: latin-1,", "terminator: 0, max_length: 9,",
         "max_length needs a length-prefix size"),
        ("terminator: 0, encoding: latin-1,", "terminator: 0, pad: nul,",
         "pad: goes with a str of a fixed size"),
        ("type: bytes, terminator: 10,", "type: bytes, terminator: 10, nullable: true,",
         "nullable: goes with str/bytes of a signed length prefix"),
        ("type: bytes, terminator: 10,", "type: bytes, terminator: 10, process: zlib,",
         "process: goes with a sized str or bytes"),
        ("terminator: 10,", "terminator: 256,", "256 is greater than the maximum of 255"),
    ],
)  # fmt: skip
def test_refused_at_load_with_file_and_line(tmp_path, old, new, message):
    path = tmp_path / "bad.yaml"
    assert old in SPEC
    path.write_text(SPEC.replace(old, new, 1))
    with pytest.raises(SpecError, match=message) as info:
        render_spec(path)
    assert "bad.yaml:" in str(info.value)


def test_inspect_marks_the_terminator_byte(termy):
    result = insp.trace(termy, KNOWN, "packet")
    rows = [(r.start, r.end, r.path) for r in insp.rows(result.root, result.views) if r.leaf]
    assert (0, 5, "keyword") in rows and (5, 6, "keyword") in rows  # the text, its NUL
    assert (6, 10, "line") in rows and (10, 11, "line") in rows
    assert rows[-1] == (len(KNOWN) - 1, len(KNOWN), "tail")
    text = {r.start: r.text for r in insp.rows(result.root, result.views) if r.leaf}
    assert "terminator" in text[5] and "terminator" in text[10]


def test_every_tier_has_it_and_the_compiled_tier_finds_it_with_memchr(tmp_path, termy):
    assert termy.FALLBACKS["build"] == {}
    assert set(termy.QUICK_READERS) >= {"packet"}
    path = tmp_path / "termy.yaml"
    path.write_text(SPEC)
    compiled = CompiledEmitter(build_model(load(path)))
    assert "packet" in compiled.entries and compiled.refused == {}
    text = compiled.module_text("termy")
    assert "from libc.string cimport memchr" in text
    assert "memchr(buf + pos, 10, <size_t>(end - pos))" in text
