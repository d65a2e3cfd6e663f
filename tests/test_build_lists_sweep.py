"""Every list a parsed model holds, in every sample of every format, is given in turn as
None, as a tuple and as a generator, on a fresh parse each time, and ``build`` holds to one
rule in every tier (the suite runs this file compiled and with ``WIRESPEC_PURE_PYTHON=1``):

- None is no elements: it builds as ``[]`` does (the same bytes, or the same refusal),
  wherever the list is read (its count, a ``value:``, an ``if:``, a ``valid:``, a column);
- a tuple is a list: it builds as the same elements in a list do;
- what is neither (a generator, a map or filter iterator, a set) is refused at the list's
  path: ``expected a list, got generator``. A one-shot iterator would be used up by the
  first reader of the list (its count), leaving nothing for the next.

Where None has a meaning of its own on the wire, :data:`ABSENT` says which and why.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import sys

import pytest
import yaml

from generator.emit.render import render
from generator.spec.loader import load
from generator.spec.validate import build_model
from runtime.core.errors import EncodeError
from tests.test_build_errors_sweep import THRIFT_TYPE, _cases, _codec, _samples

ABSENT = {
    # a Thrift field's None is its absence (an optional one is left out, a required one
    # refused), as its reader gives an absent field: not the field written as empty
    "parquet": "a Thrift field",
    "thrift_compact": "a Thrift field",
    # a row event's None image is no image (an insert has no old columns): the group is
    # left out, where [] writes a group with no columns
    ("ticdc_craft", "events[].new"): "a row event's image",
    ("ticdc_craft", "events[].old"): "a row event's image",
    ("ticdc_open_protocol", "events[].new"): "a row event's image",
    ("ticdc_open_protocol", "events[].old"): "a row event's image",
}
"""A format, or (format, list path without indices) -> where None is not an empty list."""
COMPUTED = {
    # Craft frame's size tables are a `value:`: computed on build, whatever the model holds
    ("ticdc_craft", "size_tables"): "computed",
    ("ticdc_craft", "size_tables[]"): "computed",
}
"""(format, list path without indices) -> a list the writer computes (any value taken)."""
COUNTS = re.compile(r"_blocks$")
"""Avro's kept block counts beside a list, which say so: ``expected a list of counts``."""


def _lists(value, at="", out=None):
    """(the object holding it, its name, its path) of each list attribute, depth first:
    a dataclass's fields, a list's first element, a mapping's first value."""
    out = [] if out is None else out
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = [f.name for f in dataclasses.fields(value)]
    elif type(value).__module__.startswith("runtime.formats") and hasattr(value, "__dict__"):
        names = [n for n in vars(value) if not n.startswith("_")]
    else:
        names = []
        if isinstance(value, list) and value:
            _lists(value[0], f"{at}[0]", out)
        elif isinstance(value, dict) and value:
            key = next(iter(value))
            _lists(value[key], f"{at}[{key!r}]", out)
    for name in names:
        where = f"{at}.{name}" if at else name
        held = getattr(value, name)
        if isinstance(held, list):
            out.append((value, name, where))
        _lists(held, where, out)
    return out


def _given(fresh, build, n: int, change):
    """(the path of the ``n``-th list of a fresh model, what ``build`` makes of it changed):
    the bytes built, or the refusal's text."""
    model = fresh()
    owner, name, where = _lists(model)[n]
    setattr(owner, name, change(getattr(owner, name)))
    try:
        return where, build(model)
    except EncodeError as err:
        return where, str(err)


LISTLESS = {"pgoutput": "a Begin, Commit, Origin or stream message holds no list"}
"""Formats some of whose samples hold no list (every sample of the others holds one)."""
CASES = [c for c in _cases() if (c[2] is None and c[0] not in LISTLESS) or _lists(_codec(*c)[0]())]
"""Every sample (of a LISTLESS format: those that hold a list), and each Thrift message
whose typed body holds a list."""


@pytest.mark.parametrize("fmt, path, body", CASES, ids=lambda c: getattr(c, "name", c))
def test_none_is_no_elements_a_tuple_is_a_list_and_an_iterator_is_refused(fmt, path, body):
    fresh, build = _codec(fmt, path, body)
    lists = len(_lists(fresh()))
    assert lists, "a sample with no list holds nothing to this rule"
    for n in range(lists):

        def given(change, n=n):
            return _given(fresh, build, n, change)

        where, empty = given(lambda old: [])
        shape = re.sub(r"\[[^\]]*\]", "[]", where)
        none = given(lambda old: None)[1]
        if fmt not in ABSENT and (fmt, shape) not in ABSENT:
            assert none == empty, (where, "None")
        else:  # written without the list, or refused in our words at it
            assert not isinstance(none, str) or none.startswith(where.rpartition("[")[0]), none
        assert given(tuple)[1] == given(list)[1], (where, "tuple")
        if (fmt, shape) in COMPUTED:
            continue
        refused = given(lambda old: (e for e in old))[1]
        assert isinstance(refused, str), (where, "generator taken")
        what = "a list of counts" if COUNTS.search(where) else "a list"
        said = THRIFT_TYPE.sub("", refused)
        assert said.startswith(f"{where}: expected {what}, got generator"), refused


@pytest.mark.parametrize("make", [set, iter, lambda v: map(str, v), lambda v: filter(None, v)])
def test_an_iterator_or_a_set_is_refused_as_a_generator_is(make):
    from generated import kafka_record_batch as krb
    from generated import protobuf_wire

    model = protobuf_wire.parse(min(_samples("protobuf_wire")).read_bytes())
    model.tags = given = make(model.tags)
    with pytest.raises(EncodeError) as err:
        protobuf_wire.build(model)
    assert str(err.value).startswith(f"tags: expected a list, got {type(given).__name__}")
    model = krb.parse(min(_samples("kafka_record_batch")).read_bytes())
    model.batches = given = make(model.batches) if make is not set else set()
    with pytest.raises(EncodeError) as err:
        krb.build(model)
    assert str(err.value).startswith(f"batches: expected a list, got {type(given).__name__}")


BAG = {
    "format": "bag",
    "doc": "A list whose count, a condition and a check read it.",
    "endian": "be",
    "default_record": "bag",
    "records": {
        "bag": {
            "doc": "d",
            "fields": [
                {"name": "n", "type": "u8", "value": "len(things)", "doc": "its count"},
                {"name": "things", "type": "u8", "repeat": {"count": "n"}, "doc": "the list"},
                {"name": "extra", "type": "u8", "if": "len(things) > 0", "doc": "if any"},
                {"name": "tail", "type": "u8", "valid": "len(things) < 5", "doc": "checked"},
            ],
        }
    },
}


def test_none_is_no_elements_where_a_condition_or_a_check_reads_the_list(tmp_path):
    spec = tmp_path / "bag.yaml"
    spec.write_text(yaml.safe_dump(BAG, sort_keys=False))
    (tmp_path / "bag_module.py").write_text(render(build_model(load(spec))))
    found = importlib.util.spec_from_file_location("bag_module", tmp_path / "bag_module.py")
    module = importlib.util.module_from_spec(found)
    sys.modules["bag_module"] = module
    found.loader.exec_module(module)
    for build in (module.build, module.build_construct):  # the fast writer, construct
        for empty in (None, [], ()):
            model = module.parse(b"\x00\x07")
            model.things = empty
            assert build(model) == b"\x00\x07"
        model.things = (t for t in [1])
        with pytest.raises(EncodeError) as err:
            build(model)
        assert str(err.value).startswith("things: expected a list, got generator")
