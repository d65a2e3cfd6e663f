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


def test_pure_python_element_classes_are_never_changed():
    """The pure-Python tier's pending elements are models of a pending class (a subclass of
    the element class, made at its first pending list) that turn into models of the element
    class when built: the element class keeps its member descriptors, so a model built of it
    after a big input is read and written as before any (no Python call a field)."""
    code = """if True:
        import copy, pickle, types
        import generated.mysql_serialization as my
        import generated.plainbuffer as pb
        from runtime.core.pending import PendingModel, pending
        from tests.test_pending_elements import big_inputs
        fields = {"BinlogEvent": "crc32", "Row": "checksum"}
        classes = [my.BinlogEvent, pb.Row]
        before = {c: dict(c.__dict__) for c in classes}
        events = my.parse(big_inputs("mysql_serialization")[0], "binlog_file").events
        rows = pb.parse(big_inputs("plainbuffer")[0]).rows
        for cls, elements in ((my.BinlogEvent, events), (pb.Row, rows)):
            assert dict(cls.__dict__) == before[cls], cls  # nothing put over its fields
            assert type(cls.__dict__[fields[cls.__name__]]) is types.MemberDescriptorType
            assert not issubclass(cls, PendingModel)
            kind = type(elements[0])
            assert kind is not cls and issubclass(kind, cls) and kind.__name__ == cls.__name__
            assert all(type(e) is kind and pending(e) for e in elements)
            # built by its first read, of the element class from then on
            assert getattr(elements[1], fields[cls.__name__]) is not None
            assert type(elements[1]) is cls and not pending(elements[1])
            assert type(elements[2]) is kind and elements[2].__class__ is cls
            assert type(elements[2]) is cls
            # a model built of the class after a big input is a plain one
            fresh = copy.copy(elements[1])
            assert type(fresh) is cls and fresh == elements[1]
            assert type(pickle.loads(pickle.dumps(elements[3]))) is cls
            assert type(copy.deepcopy(elements[4])) is cls
        row = pb.Row(primary_key=[], attributes=None, delete_marker=False, checksum=0)
        assert type(row) is pb.Row and not pending(row)
        assert rows[5] != row and row != rows[6] and type(rows[6]) is pb.Row
    """
    env = dict(os.environ, WIRESPEC_PURE_PYTHON="1")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env=env)


def test_a_pending_class_constructed_makes_a_model_of_the_element_class():
    """A pending class called as its element class would be (``type(model)(...)``, as
    ``dataclasses.replace`` does on a model given every field) makes a model that turns
    into one of the element class at its first access, the same model."""
    code = """if True:
        import dataclasses
        import generated.plainbuffer as pb
        from runtime.core.pending import pending
        from tests.test_pending_elements import big_inputs
        rows = pb.parse(big_inputs("plainbuffer")[0]).rows
        kind = type(rows[0])
        made = kind(primary_key=[], attributes=None, delete_marker=True, checksum=7)
        assert type(made) is pb.Row and not pending(made)
        assert made == pb.Row(primary_key=[], attributes=None, delete_marker=True, checksum=7)
        fields = {f.name: getattr(rows[1], f.name) for f in dataclasses.fields(pb.Row)}
        again = dataclasses.replace(rows[2], **fields)
        assert type(again) is pb.Row and again == rows[1]
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
