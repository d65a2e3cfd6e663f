"""A parsed model with one attribute set to a value of a wrong type is refused by ``build``
with our :class:`EncodeError`, at the path of the attribute that was set (or of its element),
in our words: never a foreign exception, never Python's text ("object has no attribute",
"NoneType", ...), never the error of a computed count or size that reads it.

Each shipped sample is parsed; every attribute reachable in the model (the first element of
a list, the first entry of a map, a bounded number per sample) is set in turn to a str, None,
a float, a list where a scalar is, an int where a list is and an empty dict (which no list or
scalar is: not an empty one, not a default), on a fresh parse each time. A value ``build`` takes is held to the original bytes (a computed or kept field the writer
recomputes) unless :data:`TAKEN` says why it may be taken. The suite runs this file in both
tiers (compiled, and ``WIRESPEC_PURE_PYTHON=1``).
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from pathlib import Path

import pytest

from runtime.core.errors import EncodeError
from runtime.core.model import Model

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
FORMATS = sorted(p.name for p in SAMPLES.iterdir() if p.is_dir() and not p.name.startswith("_"))
MAX_ATTRIBUTES = 80
"""Attributes set per sample (the first ones met, depth first)."""
WRONG = ("zz", None, 1.5, [1], 7, {})
PYTHON_TEXT = re.compile(
    r"object has no attribute|unsupported operand|not subscriptable|argument|NoneType"
    r"|not iterable|has no len|bad operand|bytes-like|unhashable|object is not|must be"
    r"|can't|cannot be interpreted|invalid literal|struct '|Error in path"
)
"""Python's or construct's words, which our messages never are."""

TAKEN = {
    # a flag is written as bool(value), as Python's bool() and Thrift's writers take it
    ("plainbuffer", "rows[].delete_marker"): "a flag takes any truthy value",
    # a wire layout is a list of field numbers: [1] is one (the rest written canonically)
    ("protobuf_wire", "wire_layout"): "[1] is a layout (order_id first)",
    ("protobuf_wire", "subtotals[].wire_layout"): "[1] is a layout (currency_code first)",
}
"""(format, attribute path without indices) -> why a wrong-looking value is written."""

SIBLING = {
    # a switch's selector picks the case; the case's value is what no longer fits it
    ("plainbuffer", "rows[].primary_key[].value.type"): "rows[].primary_key[].value.value",
    ("plainbuffer", "rows[].attributes[].value.type"): "rows[].attributes[].value.value",
    # setting one member of a oneof while another is set: the oneof names both
    ("protobuf_wire", "card"): "voucher_code",
}
"""(format, attribute path) -> the path the refusal names instead, and why (comments)."""


def _samples(fmt):
    folder = SAMPLES / fmt
    return sorted(folder.glob("*.key" if fmt == "ticdc_open_protocol" else "*.bin"))


def _codec(fmt, path):
    """(a function giving a fresh model, the function building one)."""
    mod = importlib.import_module(f"generated.{fmt}")
    if fmt == "ticdc_open_protocol":
        key, value = path.read_bytes(), path.with_suffix(".value").read_bytes()
        return (lambda: mod.parse_pair(key, value)), mod.build_pair
    data = path.read_bytes()
    return (lambda: mod.parse(data)), mod.build


def _attributes(value, at="", out=None):
    """(the model holding it, its name, its path) of each attribute, depth first."""
    out = [] if out is None else out
    if isinstance(value, Model) and dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            where = f"{at}.{f.name}" if at else f.name
            out.append((value, f.name, where))
            _attributes(getattr(value, f.name), where, out)
    elif isinstance(value, list) and value:
        _attributes(value[0], f"{at}[0]", out)
    elif isinstance(value, dict) and value:
        key = next(iter(value))
        _attributes(value[key], f"{at}[{key!r}]", out)
    return out


def _shape(path: str) -> str:
    return re.sub(r"\[[^\]]*\]", "[]", path)


def _wrong_values(old):
    for wrong in WRONG:
        if isinstance(wrong, list) and isinstance(old, list | tuple):
            continue  # an int stands where a list is
        if type(wrong) is type(old) or old is None:
            continue  # the right type, or an absent optional field given a value
        # None is an optional field's absence and an empty list; an int is a float; a dict
        # is a model (a protobuf message's absent fields are its defaults)
        yield wrong, not (
            wrong is None
            or isinstance(old, float)
            and type(wrong) is int
            or isinstance(old, Model)
            and isinstance(wrong, dict)
        )


@pytest.mark.parametrize(
    "fmt, path", [(f, p) for f in FORMATS for p in _samples(f)], ids=lambda c: getattr(c, "name", c)
)
def test_a_wrong_typed_attribute_is_refused_at_its_path_in_our_words(fmt, path):
    fresh, build = _codec(fmt, path)
    original = build(fresh())
    count = min(len(_attributes(fresh())), MAX_ATTRIBUTES)
    refused = 0
    for n in range(count):
        owner, name, where = _attributes(fresh())[n]
        for wrong, strict in _wrong_values(getattr(owner, name)):
            model = fresh()
            owner, name, where = _attributes(model)[n]
            setattr(owner, name, wrong)
            case = (where, repr(wrong))
            try:
                built = build(model)
            except EncodeError as err:
                refused += 1
                named = SIBLING.get((fmt, _shape(where)))
                assert _shape(err.path).startswith(_shape(where)) or (
                    named is not None and _shape(err.path).startswith(named)
                ), (case, str(err))
                assert not PYTHON_TEXT.search(err.message), (case, str(err))
                continue
            taken = built == original or not strict or (fmt, _shape(where)) in TAKEN
            assert taken, (case, "taken")
    assert refused or count == 0


def test_a_computed_count_names_the_list_it_counts():
    from generated import avro_container

    data = min(_samples("avro_container")).read_bytes()
    model = avro_container.parse(data)
    model.blocks[0].records = 7
    with pytest.raises(EncodeError) as err:
        avro_container.build(model)
    assert str(err.value) == "blocks[0].records: expected a model, got int 7"
    model = avro_container.parse(data)
    model.blocks[0].records.objects = 7
    with pytest.raises(EncodeError) as err:
        avro_container.build(model)
    assert str(err.value) == "blocks[0].records.objects: expected a list, got int 7"


def test_a_measured_record_names_its_own_field():
    from generated import png

    model = png.parse(min(_samples("png")).read_bytes())
    model.chunks[0].data.width = "zz"
    with pytest.raises(EncodeError) as err:
        png.build(model)
    assert str(err.value) == "chunks[0].data.width: expected an integer, got str 'zz'"
    model = png.parse(min(_samples("png")).read_bytes())
    model.chunks[0].type = "zz"  # the switch's key: refused before the data it picks
    with pytest.raises(EncodeError) as err:
        png.build(model)
    assert str(err.value) == "chunks[0].type: expected an integer, got str 'zz'"


def test_kept_wire_bytes_of_a_wrong_type_are_refused_at_their_name():
    from generated import kafka_record_batch as krb

    model = krb.parse((SAMPLES / "kafka_record_batch" / "gzip_batch.bin").read_bytes())
    model.batches[0].batch.records_wire = "zz"
    with pytest.raises(EncodeError) as err:
        krb.build(model)
    assert str(err.value) == "batches[0].batch.records_wire: expected bytes, got str 'zz'"


@pytest.mark.parametrize("wrong", [10**12, "zz"])
def test_a_kept_form_of_no_bytes_is_no_json_of_zero_bytes(wrong):
    """A model's ``wire_form`` set to what is no bytes is not written (build writes the
    model), and its JSON form refuses it: ``bytes(10**12)`` is no form of it (found by
    scripts/fuzz_tiers.py, which sets attributes to hostile values)."""
    from generated import mysql_serialization as ms

    data = (SAMPLES / "mysql_serialization" / "gtid_tagged_local.bin").read_bytes()
    model = ms.parse(data)
    model.wire_form = wrong
    assert ms.build(model) == data
    with pytest.raises(TypeError, match="as kept bytes in JSON"):
        ms.to_dict(model)


def test_a_str_is_no_list_of_strings():
    from generated import protobuf_wire

    model = protobuf_wire.parse(min(_samples("protobuf_wire")).read_bytes())
    model.tags = "ab"
    with pytest.raises(EncodeError) as err:
        protobuf_wire.build(model)
    assert str(err.value) == "tags: expected a list, got str 'ab'"


def test_a_generator_is_no_list_where_a_counted_list_is():
    """A counted list is counted before it is written, which would use a generator up: it
    is refused, as everywhere (``tests/test_build_lists_sweep.py``)."""
    from generated import kafka_record_batch as krb

    model = krb.parse((SAMPLES / "kafka_record_batch" / "craft_values_batch.bin").read_bytes())
    model.batches[0].batch.records = (r for r in model.batches[0].batch.records)
    with pytest.raises(EncodeError) as err:
        krb.build(model)
    assert str(err.value).startswith("batches[0].batch.records: expected a list, got generator")


@pytest.mark.parametrize("empty", ["", {}])
def test_an_empty_str_or_dict_is_no_empty_list(empty):
    """The fast writers refuse it as construct does (they took it for no elements)."""
    from generated import kafka_record_batch as krb

    model = krb.parse((SAMPLES / "kafka_record_batch" / "gzip_batch.bin").read_bytes())
    model.batches[0].batch.records[0].headers = empty
    with pytest.raises(EncodeError) as err:
        krb.build(model)
    name = type(empty).__name__
    assert (
        str(err.value)
        == f"batches[0].batch.records[0].headers: expected a list, got {name} {empty!r}"
    )
