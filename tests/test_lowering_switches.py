"""Switches the lowering plans since issue #18: on a plain number (the switch's ``enum:``
names the cases) and within a size computed from earlier fields, with a CRC-32 over the
switch's bytes and a conditional one after it (the shape of a binlog event). A small spec,
rendered in a temporary folder: the plan, every tier's coverage (``FALLBACKS``), and the
quick tier held to the exact reader (the same model or a hand-over, never another model)
and the exact reader to construct on generated models, every truncation and mutations.
The compiled tier is the same plan rendered as Cython; its text is checked here (building
it takes a compiler: tests/test_serializable_compiled.py holds the built MySQL binlog file,
which has both switches, to the Python readers)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.emit.compiled import CompiledEmitter
from generator.emit.generate import render_spec
from generator.emit.lowering import Lowering
from generator.spec.loader import load
from generator.spec.validate import build_model
from runtime.core.errors import DecodeError
from tests.test_generator import load_module
from tests.test_quicktier import exact, quick

SWITCHES = """\
format: switches
title: Switches
doc: A frame whose payload is a switch on a plain code within a size.
endian: le
default_record: frame
enums:
  kind:
    doc: Kinds.
    type: u8
    values:
      NUM: {value: 1, doc: a number}
      TEXT: {value: 2, doc: text}
records:
  frame:
    doc: A frame.
    fields:
      - {name: size, type: u16, doc: Bytes of the code and the payload.}
      - {name: code, type: u8, doc: A plain code (no enum).}
      - name: payload
        switch_on: code
        enum: kind
        size: "size - 1"
        cases:
          NUM: {type: u32}
          TEXT: {type: str, size: u8}
          default: {type: bytes, size: eos}
        doc: The payload, within the size.
      - {name: flags, type: u8, doc: Bit 0 says a CRC-32 follows.}
      - name: crc
        type: u32
        if: "flags == 1"
        checksum: {algorithm: crc32, over: [size, code, payload, flags]}
        doc: A CRC-32 of what is before it.
"""


@pytest.fixture(scope="module")
def spec_path(tmp_path_factory):
    folder = tmp_path_factory.mktemp("switches")
    path = folder / "switches.yaml"
    path.write_text(SWITCHES)
    return path


@pytest.fixture(scope="module")
def module(spec_path, tmp_path_factory):
    folder = tmp_path_factory.mktemp("switches_module")
    return load_module("switches_mod", render_spec(spec_path)[1], folder)


def test_the_plan_reads_the_switch_within_its_size(spec_path):
    lowering = Lowering(build_model(load(spec_path)))
    assert lowering.refused == {} and lowering.entries == ["frame"]
    text = lowering.plans["frame"].describe()
    assert "    size n1 = f_size - 1" in text
    assert "    value f_payload: within n1 bytes (end2), inline, kept" in text
    assert "      switch f_payload on f_code (Kind)" in text
    assert "      checksum f_crc == crc32" in text  # inside the when


def test_every_tier_reads_it(module):
    assert all(not records for records in module.FALLBACKS.values())
    assert set(module.QUICK_READERS) == set(module.FAST_READERS) == {"frame"}


def test_the_compiled_tier_renders_the_switch_in_c(spec_path):
    compiled = CompiledEmitter(build_model(load(spec_path)))
    assert compiled.entries == ["frame"] and compiled.refused == {}
    text = compiled.module_text("test")
    assert "n1 = <Py_ssize_t>f_size - 1" in text  # C arithmetic, no Python
    assert "if f_code == 0x1:  # Kind.NUM" in text  # the plain C number
    assert "if (<int64_t>f_flags == 1):" in text


def _outcome(parse, data):
    try:
        return "ok", parse(data)
    except DecodeError as err:
        return str(err), err.offset, err.path


def _held(module, data: bytes) -> None:
    """The quick tier gives the exact reader's model or hands over; parse gives construct's
    outcome."""
    got = quick(module, data, "frame")
    if got is not None:
        want = exact(module, data, "frame")
        assert want is not None and want[0] == got
    assert _outcome(module.parse, data) == _outcome(module.parse_construct, data)


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_tiers_agree_on_generated_models_truncations_and_mutations(module, data):
    model = data.draw(module.strategies("frame"))
    payload = model.payload  # the size the spec leaves to the model: the code and payload
    if model.code == 1:
        model.size = 5
    else:
        text = payload.encode() if isinstance(payload, str) else payload
        model.size = 1 + len(text) + (model.code == 2)
    built = module.build(model)
    assert quick(module, built, "frame") == module.parse_construct(built)
    _held(module, built)
    for cut in range(len(built)):
        _held(module, built[:cut])
    buf = bytearray(built)
    for _ in range(data.draw(st.integers(1, 3))):
        buf[data.draw(st.integers(0, len(buf) - 1))] = data.draw(st.integers(0, 255))
    _held(module, bytes(buf))
