"""Signed and little-endian bit fields (``sb12``, ``b4le``, ``sb12le``) beside the
big-endian unsigned ``b<n>``, on a small spec of their own: known bytes both ways, the fast
reader and writer equal to construct on generated models, the refusals at load, and
``inspect`` showing every field of a run over the run's bytes with its bits."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from generator.cli import inspect as insp
from runtime.core.errors import EncodeError, SpecError
from tests.test_fastbuild import written
from tests.test_process import spec_module

SPEC = """\
format: bitty
title: Bit fields
doc: Runs of bit fields in both bit orders, signed and unsigned.
endian: le
default_record: packet
records:
  packet:
    doc: One packet.
    fields:
      - {name: version, type: b3, const: 5, doc: "The high 3 bits."}
      - {name: delta, type: sb5, doc: "A signed 5-bit delta."}
      - {name: low, type: b4le, doc: "The low nibble of a little-endian run."}
      - {name: offset, type: sb12le, doc: "The next 12 bits, signed."}
      - {name: flag, type: b1, doc: "A flag."}
      - {name: level, type: sb7, doc: "A signed 7-bit level."}
"""


@pytest.fixture(scope="module")
def bitty(tmp_path_factory):
    return spec_module(tmp_path_factory, "bitty_bits", SPEC)


def test_known_bytes_both_ways(bitty):
    # 101 11110 = version 5, delta -2; then 0x2a 0xf9 as little-endian 0xf92a: low 0xa,
    # offset 0xf92 (-110); then 1 0000001 = flag 1, level 1... with level -1: 1 1111111
    data = bytes([0b10111110, 0x2A, 0xF9, 0b11111111])
    model = bitty.parse(data)
    assert (model.version, model.delta, model.low, model.offset) == (5, -2, 0xA, 0xF92 - 0x1000)
    assert (model.flag, model.level) == (1, -1)
    assert bitty.parse_construct(data) == model
    assert bitty.build(model) == written(bitty, model, "packet") == data
    assert bitty.build_construct(model) == data


def test_fast_paths_equal_construct_on_generated_models(bitty):
    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(bitty.strategies("packet"))
    def check(model):
        data = bitty.build_construct(model)
        assert written(bitty, model, "packet") == data
        parsed = bitty.parse(data)
        assert parsed == bitty.parse_construct(data)
        assert parsed.version == 5 and (parsed.delta, parsed.offset) == (model.delta, model.offset)
        assert (parsed.low, parsed.flag, parsed.level) == (model.low, model.flag, model.level)

    check()


@pytest.mark.parametrize(("field", "value"), [("delta", 16), ("delta", -17), ("low", 16)])
def test_a_value_out_of_its_bits_is_constructs_encode_error(bitty, field, value):
    model = bitty.parse(bytes([0b10111110, 0x2A, 0xF9, 0xFF]))
    setattr(model, field, value)
    with pytest.raises(EncodeError, match="does not fit") as fast:
        bitty.build(model)
    with pytest.raises(EncodeError) as oracle:
        bitty.build_construct(model)
    assert str(fast.value) == str(oracle.value)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("type: b1,", "type: b1le,", "and level mix bit orders .* inside a byte"),
        ("type: sb5,", "type: sb5, const: 16,", "16 does not fit sb5"),
    ],
)
def test_refused_at_load_with_file_and_line(tmp_path, old, new, message):
    path = tmp_path / "bad.yaml"
    path.write_text(SPEC.replace(old, new))
    from generator.emit.generate import render_spec

    with pytest.raises(SpecError, match=message) as info:
        render_spec(path)
    assert "bad.yaml:" in str(info.value)


def test_inspect_shows_each_bit_field_over_its_run(bitty):
    data = bytes([0b10111110, 0x2A, 0xF9, 0b11111111])
    result = insp.trace(bitty, data, "packet")
    rows = {r.path: r for r in insp.rows(result.root, result.views) if r.leaf}
    assert (rows["version"].start, rows["version"].end) == (0, 1)
    assert (rows["delta"].start, rows["delta"].end) == (0, 1)
    assert rows["version"].text == "101. .... = 5"
    assert rows["delta"].text == "...1 1110 = -2"
    assert (rows["offset"].start, rows["offset"].end) == (1, 3)
    assert rows["low"].text == ".... .... .... 1010 = 10 (0xa)"
    assert rows["level"].text == ".111 1111 = -1"
