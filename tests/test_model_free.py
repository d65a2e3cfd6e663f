"""Compiled model classes are freed by runtime/_compiled/slots.pxd's ``wirespec_model_dealloc``:
their slots cleared in one sweep and their memory kept for the next model the module makes.
What a user sees does not change: the values a model held are released when it is, a
subclass (with a dict, weak references or ``__del__``) is freed as CPython frees it, deep
nesting does not overflow the C stack, and the models the compiled reader makes from kept
memory equal the Python readers' models."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import weakref

import pytest

from generated import plainbuffer
from generator.emit.generate import ROOT
from runtime.core import tier

SAMPLES = [p.read_bytes() for p in sorted((ROOT / "samples/plainbuffer").glob("*.bin"))]

pytestmark = pytest.mark.skipif(
    tier.compiled("generated._compiled.plainbuffer") is None,
    reason="the compiled tier is not built",
)


class Value:
    """Something a slot holds whose release a weak reference sees."""


def python_parse(data: bytes):
    """The Python readers' model (limits passed: the compiled tier is skipped)."""
    return plainbuffer.parse(data, max_depth=64)


def test_the_values_a_freed_model_held_are_released():
    value = Value()
    seen = weakref.ref(value)
    cell = plainbuffer.Cell(name="x", value=value)
    del value
    assert seen() is not None
    del cell
    assert seen() is None


def test_a_subclass_with_a_dict_weak_references_and_del_is_freed_as_before():
    finalized = []

    class Mine(plainbuffer.Cell):
        def __del__(self):
            finalized.append(self.name)

    value = Value()
    seen_value = weakref.ref(value)
    mine = Mine(name="mine", value=value)
    mine.extra = Value()
    seen_extra = weakref.ref(mine.extra)
    seen_mine = weakref.ref(mine)
    del value, mine
    assert finalized == ["mine"]
    assert seen_mine() is None and seen_value() is None and seen_extra() is None


def test_deep_nesting_is_freed_without_overflowing_the_c_stack():
    code = (
        "from generated import plainbuffer\n"
        "v = None\n"
        "for _ in range(300000):\n"
        "    v = plainbuffer.CellValue(value=plainbuffer.Cell(value=v))\n"
        "del v\n"
        "print('freed')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=dict(os.environ), check=False,
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "freed\n"


def test_models_made_from_kept_memory_equal_the_python_readers():
    payloads = SAMPLES * 10
    # models made in Python and dropped: their memory is kept too
    made = [plainbuffer.Cell(name=str(i), checksum=i) for i in range(300)]
    del made
    for data in payloads:
        model = plainbuffer.parse(data)
        assert model == python_parse(data)
        assert not gc.is_tracked(model.rows[0].primary_key[0])
    kept = [plainbuffer.parse(data) for data in payloads]  # held: new memory
    assert kept == [python_parse(data) for data in payloads]


def test_a_model_of_kept_memory_made_in_python_is_tracked():
    for _ in range(3):
        for data in SAMPLES:
            plainbuffer.parse(data)
    cell = plainbuffer.Cell(name="x", value=[])
    assert gc.is_tracked(cell)
    assert cell == plainbuffer.Cell(name="x", value=[])
