"""Pending elements (generator/emit/compiled_pending.py): ``parse`` of a big PlainBuffer
message or MySQL binlog file hands out its rows or events unbuilt, each built on the first
access of any of its fields, and they behave exactly as the eager models: ``==``, repr,
``to_dict``, ``build``, pickling, writes and deletes, and a bad input's ``DecodeError`` at
parse time. The big inputs are the samples' elements repeated past ``PENDING_BYTES``.

Both tiers pend: the compiled readers (generator/emit/compiled_pending.py) and, in the
pure-Python tier, the quick tier's (generator/emit/quick_pending.py, runtime/core/pending.py).
The eager models they are held to are the exact reader's."""

from __future__ import annotations

import copy
import dataclasses
import functools
import gc
import importlib
import os
import pickle
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.emit.compiled_pending import PENDING_BYTES
from generator.emit.generate import ROOT
from runtime.core import tier
from runtime.core.limits import DEFAULT
from tests.test_fastpath import Same, inputs, outcome

ROW_FIELDS = {"plainbuffer": ("message", "rows"), "mysql_serialization": ("binlog_file", "events")}
"""Format -> the record whose row field is pending in a big input, and that field."""


def lapped(module, record: str, model, field: str, laps: int) -> bytes:
    """``model`` built with the elements of its ``field`` repeated ``laps`` times."""
    elements = getattr(model, field)
    again = copy.copy(model)
    setattr(again, field, [copy.deepcopy(e) for _ in range(laps) for e in elements])
    return module.build(again, record)


@functools.cache
def big_inputs(fmt: str) -> list[bytes]:
    """Each sample of the record, its elements repeated to just past ``PENDING_BYTES``."""
    module = importlib.import_module(f"generated.{fmt}")
    record, field = ROW_FIELDS[fmt]
    out = []
    for name, data in inputs(fmt):
        if (name or module.DEFAULT_RECORD) != record:
            continue
        model = module.parse(data, record)
        lap = len(lapped(module, record, model, field, 2)) - len(data)
        out.append(lapped(module, record, model, field, PENDING_BYTES // lap + 2))
    assert out, f"no {fmt} {record} samples"
    return out


CASES = [(fmt, i) for fmt in sorted(ROW_FIELDS) for i in range(len(big_inputs(fmt)))]


def eager_model(module, data: bytes, record: str):
    """The exact reader's model of ``data`` (it never pends)."""
    model, pos = module.FAST_READERS[record](data, 0, len(data), DEFAULT, 1)
    assert pos == len(data)
    return model


def parsed(fmt: str, i: int):
    """(module, record, field, the big input, its eager model by the exact reader)."""
    module = importlib.import_module(f"generated.{fmt}")
    record, field = ROW_FIELDS[fmt]
    data = big_inputs(fmt)[i]
    return module, record, field, data, eager_model(module, data, record)


def pending(model) -> bool:
    """Whether ``model``'s slots hold a pending element (read without building it: the
    collector's view of its slots): the compiled tier's ``PendingElement``, or the
    pure-Python tier's ``Elements``."""
    return any(type(v).__name__ in ("PendingElement", "Elements") for v in gc.get_referents(model))


def pends(module) -> bool:
    """Whether ``parse`` of ``module`` pends: by its compiled readers, or by its quick tier
    where the compiled tier's lazy models do not run (the classes take one kind of
    descriptor)."""
    if getattr(module, "COMPILED_READERS", None):
        return True
    return tier.compiled("runtime._compiled.lazy") is None


@pytest.mark.parametrize("fmt", sorted(ROW_FIELDS))
def test_a_big_input_is_pending_until_read(fmt):
    module = importlib.import_module(f"generated.{fmt}")
    if not pends(module):
        pytest.skip(f"{fmt} is read by its quick tier beside the compiled lazy models")
    record, field = ROW_FIELDS[fmt]
    data = big_inputs(fmt)[0]
    elements = getattr(module.parse(data, record), field)
    assert len(elements) > 1000 and all(pending(e) for e in elements)
    elements[7].__repr__()
    assert not pending(elements[7]) and pending(elements[6]) and pending(elements[8])
    # a small input is read eagerly
    small = next(d for name, d in inputs(fmt) if (name or module.DEFAULT_RECORD) == record)
    small = getattr(module.parse(small, record), field)
    assert not any(pending(e) for e in small)


@pytest.mark.parametrize("fmt, i", CASES)
def test_every_form_of_a_pending_element_is_the_eager_one(fmt, i):
    module, record, field, data, eager = parsed(fmt, i)

    def fresh():
        return module.parse(data, record)

    assert Same(module, fresh()) == Same(module, eager)
    assert Same(module, eager) == Same(module, fresh())
    assert repr(fresh()) == repr(eager)
    assert module.to_dict(fresh()) == module.to_dict(eager)
    assert module.build(fresh(), record) == data
    assert Same(module, pickle.loads(pickle.dumps(fresh()))) == Same(module, eager)
    assert Same(module, copy.deepcopy(fresh())) == Same(module, eager)
    # element by element, in any order
    model, want = getattr(fresh(), field), getattr(eager, field)
    for k in (len(want) - 1, 0, len(want) // 2):
        assert repr(model[k]) == repr(want[k])
        assert Same(module, model[k]) == Same(module, want[k])
    # one element at a time, by each of the ways that read it
    model = getattr(fresh(), field)
    assert Same(module, copy.copy(model[1])) == Same(module, want[1])
    assert Same(module, pickle.loads(pickle.dumps(model[2]))) == Same(module, want[2])
    assert Same(module, copy.deepcopy(model[3])) == Same(module, want[3])
    assert module.to_dict(model[4]) == module.to_dict(want[4])
    assert model[5] == want[5] and want[6] == model[6]


@pytest.mark.parametrize("fmt", sorted(ROW_FIELDS))
def test_a_write_or_delete_builds_the_element_first(fmt):
    module, record, field, data, eager = parsed(fmt, 0)
    name = dataclasses.fields(getattr(eager, field)[0])[0].name
    model = module.parse(data, record)
    element, want = getattr(model, field)[3], copy.deepcopy(getattr(eager, field)[3])
    setattr(element, name, None)
    setattr(want, name, None)
    assert repr(element) == repr(want)
    element = getattr(module.parse(data, record), field)[4]
    delattr(element, name)
    with pytest.raises(AttributeError):
        getattr(element, name)
    others = [f.name for f in dataclasses.fields(element)][1:]
    assert [repr(getattr(element, f)) for f in others] == [
        repr(getattr(getattr(eager, field)[4], f)) for f in others
    ]


@pytest.mark.parametrize("fmt", sorted(ROW_FIELDS))
def test_any_field_written_or_deleted_first(fmt):
    """Every field of a pending element, each the first access of its own element: the
    pure-Python tier's first slot holds the offset and its second says it is pending."""
    module, record, field, data, eager = parsed(fmt, 0)
    names = [f.name for f in dataclasses.fields(getattr(eager, field)[0])]
    elements, want = getattr(module.parse(data, record), field), getattr(eager, field)
    for k, name in enumerate(names):
        element = elements[2 * k]
        delattr(element, name)
        with pytest.raises(AttributeError):
            getattr(element, name)
        assert [getattr(element, n) for n in names if n != name] == [
            getattr(want[2 * k], n) for n in names if n != name
        ]
        element = elements[2 * k + 1]
        setattr(element, name, "written")
        again = copy.deepcopy(want[2 * k + 1])
        setattr(again, name, "written")
        assert repr(element) == repr(again)
    # the second field deleted, then the first read: built by the delete
    element = elements[2 * len(names)]
    delattr(element, names[1])
    assert getattr(element, names[0]) == getattr(want[2 * len(names)], names[0])
    # a class's fields still refuse what is not its model, as a slot does
    with pytest.raises(TypeError):
        type(element).__dict__[names[0]].__get__(object(), object)


def python_outcome(module, data: bytes, record: str):
    """What the Python readers make of ``data`` (the exact reader: its model or error)."""

    def read(data, record):
        return module.FAST_READERS[record](data, 0, len(data), DEFAULT, 1)[0]

    return outcome(read, data, record, module)


@pytest.mark.parametrize("fmt", sorted(ROW_FIELDS))
def test_a_bad_element_is_the_exact_error_at_parse_time(fmt):
    module = importlib.import_module(f"generated.{fmt}")
    record, _ = ROW_FIELDS[fmt]
    data = bytearray(big_inputs(fmt)[0])
    data[-1] ^= 0xFF  # the last element's checksum
    want = python_outcome(module, bytes(data), record)
    assert want[0] == "DecodeError"
    assert outcome(module.parse, bytes(data), record, module) == want


@pytest.mark.parametrize("fmt", sorted(ROW_FIELDS))
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_mutated_big_input_reads_as_the_python_readers_read_it(fmt, data):
    module = importlib.import_module(f"generated.{fmt}")
    record, _ = ROW_FIELDS[fmt]
    buf = bytearray(big_inputs(fmt)[0])
    for _ in range(data.draw(st.integers(1, 3))):
        buf[data.draw(st.integers(0, len(buf) - 1))] = data.draw(st.integers(0, 255))
    want = python_outcome(module, bytes(buf), record)
    assert outcome(module.parse, bytes(buf), record, module) == want


def test_fields_stay_member_descriptors_until_a_big_input():
    """The first pending element puts ``LazySlot``s over its class's slots (read slower than
    member descriptors): a process that parses only small inputs never has them."""
    if not getattr(importlib.import_module("generated.plainbuffer"), "COMPILED_READERS", None):
        pytest.skip("the compiled tier of plainbuffer is not built")
    code = """if True:
        import types
        import generated.plainbuffer as pb
        from tests.test_fastpath import inputs
        from tests.test_pending_elements import big_inputs
        small, big = inputs("plainbuffer")[0][1], big_inputs("plainbuffer")[0]
        pb.parse(small).rows[0].checksum
        assert type(pb.Row.__dict__["checksum"]) is types.MemberDescriptorType
        rows = pb.parse(big).rows
        assert type(pb.Row.__dict__["checksum"]).__name__ == "LazySlot"
        assert rows[1].checksum == pb.parse(big).rows[1].checksum
    """
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_pure_python_fields_stay_member_descriptors_until_a_big_input():
    """The pure-Python tier's the same: its ``PendingField``s go over the fields at the first
    pending list."""
    code = """if True:
        import types
        import generated.mysql_serialization as my
        from tests.test_fastpath import inputs
        from tests.test_pending_elements import big_inputs
        big = big_inputs("mysql_serialization")[0]
        assert type(my.BinlogEvent.__dict__["crc32"]) is types.MemberDescriptorType
        events = my.parse(big, "binlog_file").events
        assert type(my.BinlogEvent.__dict__["crc32"]).__name__ == "PendingField"
        assert events[1].crc32 == my.parse(big, "binlog_file").events[1].crc32
    """
    env = dict(os.environ, WIRESPEC_PURE_PYTHON="1")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env=env)


def test_pure_python_elements_are_read_again_by_their_quick_reader():
    """A pending row is checked by ``_quick_row`` without its model, and read again by it
    (the model the exact reader makes, cheaper); where the quick reader gives up, by the
    exact reader: the same model."""
    code = """if True:
        import gc
        import generated.plainbuffer as pb
        import runtime.core.fast as rt_fast
        from runtime.core.pending import Elements
        from tests.test_pending_elements import big_inputs, eager_model
        big = big_inputs("plainbuffer")[0]
        want = eager_model(pb, big, "message").rows
        rows = pb.parse(big).rows
        elements = next(v for v in gc.get_referents(rows[0]) if type(v) is Elements)
        assert elements.quick is pb._quick_row
        # the loop checked it without building it, to the same end
        at = gc.get_referents(rows[1])
        at = next(v for v in at if type(v) is int)
        checked = pb._quick_row(big, at, len(big), elements.limits, True)
        assert checked[0] is None and checked[1] == pb._quick_row(big, at, len(big), elements.limits)[1]
        assert repr(rows[0]) == repr(want[0])

        def gives_up(buf, pos, end, limits):
            raise rt_fast.Retry

        elements.quick = gives_up
        assert repr(rows[1]) == repr(want[1]) and rows[1] == want[1]
    """
    env = dict(os.environ, WIRESPEC_PURE_PYTHON="1")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env=env)
