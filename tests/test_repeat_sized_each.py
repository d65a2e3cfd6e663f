"""A repeat of records each sized by an expression over ``_index`` (``repeat: {count:}``
with ``size: "sizes[_index]"``, as Craft's bodies and column groups are sized by its size
tables) in the plan the quick and compiled tiers render. A small spec, rendered in a
temporary folder: the plan, every tier's coverage (``FALLBACKS``), and on samples, every
truncation and mutations: the quick tier gives the exact reader's model or hands over,
``parse`` gives construct's outcome. The compiled tier's text is checked here (building a
test spec takes a compiler and too long for the suite); tests/test_compiled.py holds the
built Craft readers to the quick tier."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.emit.compiled import CompiledEmitter
from generator.emit.lowering import Lowering
from generator.spec.loader import load
from generator.spec.validate import build_model
from tests.test_process import spec_module
from tests.test_quicktier import quick
from tests.test_repeat_until import held

SIZED = """\
format: sized_each
title: Sized each
doc: Items whose sizes are listed before them.
endian: le
default_record: frame
records:
  item:
    doc: An item, as long as its size says.
    fields:
      - {name: kind, type: u8, doc: A byte.}
      - {name: rest, type: bytes, size: eos, doc: The rest of its size.}
  frame:
    doc: Sizes, then the items they size.
    fields:
      - {name: n, type: u8, doc: How many items.}
      - {name: sizes, type: u8, repeat: {count: n}, doc: The size of each item.}
      - name: items
        type: item
        repeat: {count: "len(sizes)"}
        size: "sizes[_index]"
        doc: One item per size.
"""


@pytest.fixture(scope="module")
def spec_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("sized_each") / "sized_each.yaml"
    path.write_text(SIZED)
    return path


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return spec_module(tmp_path_factory, "sized_each_mod", SIZED)


def test_the_plan_sizes_each_item_by_its_index(spec_path):
    lowering = Lowering(build_model(load(spec_path)))
    assert lowering.refused == {}
    text = lowering.plans["frame"].describe()
    assert "repeat f_items: item len(f_sizes) times, within end, <= max_count" in text
    assert "index f__index" in text
    assert "f_sizes[f__index]" in text


def test_every_tier_reads_it(module):
    assert "frame" not in module.FALLBACKS["quick"]
    assert "frame" not in module.FALLBACKS["compiled"]
    assert "frame" in module.QUICK_READERS


def test_the_compiled_tier_renders_it(spec_path):
    compiled = CompiledEmitter(build_model(load(spec_path)))
    assert "frame" in compiled.entries and compiled.refused == {}
    text = compiled.module_text("test")
    assert "f__index = item" in text
    assert "f_sizes[(<object>f__index)]" in text


def _frame(items: list[bytes]) -> bytes:
    return bytes([len(items), *map(len, items)]) + b"".join(items)


SAMPLES = [_frame([]), _frame([b"\x01"]), _frame([b"\x02ab", b"\x03", b"\x04xyz"])]


def test_samples_are_taken_by_the_quick_tier(module):
    for data in SAMPLES:
        assert quick(module, data, "frame") is not None
        held(module, data)
    assert quick(module, _frame([b""]), "frame") is None  # an item too short for its byte
    held(module, _frame([b""]))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    items=st.lists(st.binary(min_size=1, max_size=6), max_size=5),
    cut=st.integers(0, 40),
    at=st.integers(0, 40),
    byte=st.integers(0, 255),
)
def test_tiers_agree_on_truncations_and_mutations(module, items, cut, at, byte):
    data = _frame(items)
    held(module, data)
    held(module, data[:cut])
    if at < len(data):
        held(module, data[:at] + bytes([byte]) + data[at + 1 :])
