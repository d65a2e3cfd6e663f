"""``from_dict`` and ``build`` on hostile JSON forms, in every format: each value of a
sample's JSON form replaced in turn by a value of the wrong kind, an integer past every
width, NaN, or a list nested deeper than the Python stack. Each gives a model that builds,
or an :class:`~runtime.core.errors.WirespecError`; never a foreign exception (a nesting
bomb once escaped as a RecursionError from the repr in an error message)."""

from __future__ import annotations

import copy
import importlib

import pytest

from generator.cli.fuzz import records, seeds, target
from runtime.core.errors import WirespecError

FORMATS = (
    "avro_container",
    "kafka_record_batch",
    "msgpack",
    "mysql_serialization",
    "parquet",
    "plainbuffer",
    "png",
    "protobuf_wire",
    "thrift_compact",
    "ticdc_craft",
    "ticdc_open_protocol",
)
PLACES = 8
"""Values of each sample's JSON form replaced (spread over the form)."""


def nested(depth: int) -> list:
    bomb: list = []
    for _ in range(depth):
        bomb = [bomb]
    return bomb


HOSTILE = (
    None,
    True,
    "NOPE",
    -1,
    2**200,
    float("nan"),
    {"$hex": "zz"},
    [{}],
    nested(20_000),
)


def places(form, prefix=()):
    """The paths of every value in a JSON form, outermost first."""
    out = [prefix]
    if isinstance(form, dict):
        for key, value in form.items():
            out += places(value, prefix + (key,))
    elif isinstance(form, list):
        for i, value in enumerate(form):
            out += places(value, prefix + (i,))
    return out


def replaced(form, path, value):
    form = copy.deepcopy(form)
    node = form
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return form


def first_sample(fmt):
    """(module, record, model) of the first sample (or drawn message) of a format."""
    mod = importlib.import_module(f"generated.{fmt}")
    for record in [mod.DEFAULT_RECORD, *records(fmt)]:
        found = [data for data in seeds(fmt, record) if data]
        if found:
            return mod, record, target(fmt, record).parse(found[0])
    raise AssertionError(f"{fmt} has no sample")


@pytest.mark.parametrize("fmt", FORMATS)
def test_hostile_values_in_a_json_form_are_encode_errors(fmt):
    mod, record, model = first_sample(fmt)
    form = mod.to_dict(model)
    paths = places(form)[1:]
    step = max(1, len(paths) // PLACES)
    kafka = getattr(mod, "KAFKA_RECORD", None) == record
    for path in paths[::step]:
        for value in HOSTILE:
            try:
                rebuilt = mod.from_dict(replaced(form, path, value), record)
                mod.build_pair(rebuilt) if kafka else mod.build(rebuilt, record)
            except WirespecError:
                pass


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_form_nested_deeper_than_the_stack_is_an_encode_error(fmt):
    mod, record, _ = first_sample(fmt)
    with pytest.raises(WirespecError):
        mod.from_dict(nested(100_000), record)
