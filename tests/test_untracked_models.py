"""Compiled models and lists that hold only atomic values are not tracked by the cyclic GC
(generator/emit/untracked.py, runtime/_compiled/slots.pxd): CPython's rule for tuples. A
model or list from the compiled tier is untracked exactly when every value it holds is
atomic (None, a number, text, bytes, an enum member, a UUID, or a model or list that is
itself untracked); one that holds a dict or a tracked model or list stays tracked. Models
stay equal to the construct path's, pure-Python models are tracked as before, and a user
who makes an untracked model or list part of a reference cycle leaks that cycle, without a
crash."""

from __future__ import annotations

import copy
import dataclasses
import enum
import gc
import importlib
import os
import pickle
import subprocess
import sys
import uuid

import pytest

from generator.emit.generate import ROOT
from generator.emit.lowering import Lowering
from generator.emit.untracked import atomic_classes, is_atomic, value_kinds
from generator.spec.loader import load
from generator.spec.validate import build_model
from runtime.core import tier
from tests.test_fastpath import Same, inputs

ATOMIC_TYPES = (type(None), bool, int, float, str, bytes, enum.Enum, uuid.UUID)

EXACT = [
    "avro_container",
    "kafka_record_batch",
    "msgpack",
    "mysql_serialization",
    "plainbuffer",
    "parquet",
    "png",
    "ticdc_craft",
]
"""Formats whose models on the samples are built by compiled code (but Craft's ``frame``
record, the wire layout, which is read in Python)."""


HAND_WRITTEN = {
    "parquet": "thrift_compact",
    "ticdc_open_protocol": "open_protocol",
}
"""Formats read by a hand-written loop of runtime/_compiled/ (the rest: generated/_compiled/)."""


def compiled(fmt: str):
    """The generated module, when its compiled tier is built."""
    name = HAND_WRITTEN.get(fmt)
    extension = f"runtime._compiled.{name}" if name else f"generated._compiled.{fmt}"
    if tier.compiled(extension) is None:
        pytest.skip(f"the compiled tier of {fmt} is not built")
    return importlib.import_module(f"generated.{fmt}")


def slot_values(model) -> list:
    """Every slot value of a model (its dataclass fields and any other slot), set or not."""
    names = {name for cls in type(model).__mro__ for name in cls.__dict__.get("__slots__", ())}
    names.discard("__weakref__")
    return [getattr(model, name) for name in sorted(names) if hasattr(model, name)]


def is_model(value) -> bool:
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def should_track(value) -> bool:
    """The rule, in Python: a model or list is tracked unless all it holds is atomic."""
    held = value if isinstance(value, list) else slot_values(value)
    return not all(
        isinstance(v, ATOMIC_TYPES) or (is_model(v) or isinstance(v, list)) and not should_track(v)
        for v in held
    )


def models_in(value, lists: bool = False):
    """Every model reachable from ``value`` through models, lists, tuples and dicts (and
    the lists in models, with ``lists``)."""
    if is_model(value):
        yield value
        for inner in slot_values(value):
            yield from models_in(inner, lists)
    elif isinstance(value, (list, tuple)):
        if lists and isinstance(value, list):
            yield value
        for item in value:
            yield from models_in(item, lists)
    elif isinstance(value, dict):
        for item in value.values():
            yield from models_in(item, lists)


def parsed(module, record, data):
    return module.parse(data) if record is None else module.parse(data, record)


@pytest.mark.parametrize("fmt", EXACT)
def test_compiled_models_are_untracked_exactly_when_atomic(fmt):
    module = compiled(fmt)
    seen_untracked = 0
    for record, data in inputs(fmt):
        if record == "frame":
            continue
        model = parsed(module, record, data)
        for inner in models_in(model, lists=True):
            want = should_track(inner)
            assert gc.is_tracked(inner) == want, (type(inner).__name__, want, record)
            seen_untracked += not want
        if hasattr(module, "parse_construct"):  # parquet: tests/test_thrift_compiled.py
            args = (data,) if record is None else (data, record)
            assert Same(module, model) == Same(module, module.parse_construct(*args))
    assert seen_untracked, "no sample has a model of atomic values only"


def test_open_protocol_models_never_untracked_while_holding_a_list():
    module = compiled("ticdc_open_protocol")
    for record, data in inputs("ticdc_open_protocol"):
        for inner in models_in(parsed(module, record, data)):
            if should_track(inner):
                assert gc.is_tracked(inner), type(inner).__name__


def test_the_static_rule_of_the_plans():
    """Kafka's header holds two atomic values: untracked with no check at run time. A
    record's ``headers`` list holds headers only, so the plan proves it atomic too; the
    record itself holds derived values (an expression's: checked at run time)."""
    spec = build_model(load(ROOT / "specs" / "kafka_record_batch.yaml"))
    lowering = Lowering(spec)
    atomic = atomic_classes(lowering)
    assert "Header" in atomic
    kinds = value_kinds(lowering.plans["record_batch"].steps, lowering.plans)
    headers = next(var for var, held in kinds.items() if held == {"items item12"})
    assert is_atomic(kinds[headers], atomic, kinds)
    assert not is_atomic({"items nowhere"}, atomic, kinds)  # what it holds is unknown


def test_a_compiled_kafka_segment_is_untracked_whole():
    """Every model and list of a segment of plain records: the GC walks none of them."""
    module = compiled("kafka_record_batch")
    for sample in sorted((ROOT / "samples" / "kafka_record_batch").glob("*.bin")):
        model = module.parse(sample.read_bytes())
        found = list(models_in(model, lists=True))
        assert any(isinstance(value, list) for value in found)
        assert not any(gc.is_tracked(value) for value in found), sample.name


def test_untracked_models_pickle_copy_and_compare_as_before():
    """A model allocated untracked is an ordinary instance: equal to its copies and to
    what pickle gives back, whose models and lists Python tracks as it makes them."""
    module = compiled("kafka_record_batch")
    data = (ROOT / "samples" / "kafka_record_batch" / "orders_batch.bin").read_bytes()
    model = module.parse(data)
    assert not gc.is_tracked(model)
    for other in (copy.copy(model), copy.deepcopy(model), pickle.loads(pickle.dumps(model))):
        assert other == model and other is not model
    assert gc.is_tracked(copy.deepcopy(model))
    del model
    gc.collect()  # freed by reference counting; the collector finds nothing amiss


def test_a_reused_model_is_tracked_again_when_it_holds_a_list():
    """mysql::serialization entries write into the model returned last once it is dead
    (runtime/_compiled/reuse.pxd): its tracking follows what it holds each time."""
    module = compiled("mysql_serialization")
    for record, data in inputs("mysql_serialization"):
        for _ in range(3):  # the second and third reads reuse the first model
            for inner in models_in(parsed(module, record, data)):
                assert gc.is_tracked(inner) == should_track(inner), type(inner).__name__


def test_a_cycle_a_user_makes_through_an_untracked_model_leaks_without_a_crash():
    module = compiled("kafka_record_batch")
    data = (ROOT / "samples" / "kafka_record_batch" / "orders_batch.bin").read_bytes()
    model = module.parse(data)
    header = next(m for m in models_in(model) if type(m).__name__ == "Header")
    assert not gc.is_tracked(header)
    holder = [header]
    header.value = holder  # header -> list -> header: a cycle the collector cannot see
    del holder, model
    gc.collect()
    gc.collect()
    assert header.value[0] is header  # kept (leaked), intact
    header.value = None  # broken by hand: freed by reference counting


def test_a_cycle_a_user_makes_through_an_untracked_list_leaks_without_a_crash():
    module = compiled("kafka_record_batch")
    data = (ROOT / "samples" / "kafka_record_batch" / "orders_batch.bin").read_bytes()
    model = module.parse(data)
    record = model.batches[0].batch.records[0]
    headers = record.headers
    assert not gc.is_tracked(headers) and not gc.is_tracked(record)
    headers.append(headers)  # the list holds itself: a cycle the collector cannot see
    headers.append(record)  # and the record that holds it
    assert not gc.is_tracked(headers)  # appending does not track it again (CPython's lists)
    del model, record
    gc.collect()
    gc.collect()
    assert headers[-2] is headers and headers[-1].headers is headers  # kept (leaked), intact
    headers.clear()  # broken by hand: freed by reference counting


def test_pure_python_models_are_tracked_as_before():
    code = (
        "import gc, sys\n"
        "import generated.kafka_record_batch as k\n"
        "assert not k.COMPILED_READERS\n"
        "m = k.parse(open(sys.argv[1], 'rb').read())\n"
        "h = m.batches[0].batch.records[0].headers[0]\n"
        "assert gc.is_tracked(h) and gc.is_tracked(m)\n"
    )
    sample = ROOT / "samples" / "kafka_record_batch" / "orders_batch.bin"
    env = dict(os.environ, WIRESPEC_PURE_PYTHON="1")
    subprocess.run([sys.executable, "-c", code, str(sample)], env=env, check=True, cwd=ROOT)
