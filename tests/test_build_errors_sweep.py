"""A parsed model with one attribute set to a value of a wrong type is refused by ``build``
with our :class:`EncodeError`, at the path of the attribute that was set (or of its element),
in our words: never a foreign exception, never Python's text ("object has no attribute",
"NoneType", ...), never the error of a computed count or size that reads it.

Each shipped sample is parsed (a Thrift message also with its body typed), and so is one
model of each other top-level record (a record no other record holds, Craft's ``frame``,
MySQL's ``binlog_file``, ...): the largest sample that parses as it, else the bytes of the
first model its module's ``strategies(record)`` draws that builds (drawn derandomized with
settings of its own, so this process, with the suite's hypothesis profile, draws what the
pure-Python one its outcomes are held to draws: :func:`_drawn`). Every attribute
reachable in the model (of every dataclass: models, Thrift structs and messages, row events;
the first element of a list, the first entry of a map) is set in turn to a str, None, a
float, a list where a scalar is, an int where a list is and an empty dict (which no list or
scalar is: not an empty one, not a default), on a fresh parse each time. A value ``build``
takes is held to the original bytes (a computed or kept field the writer recomputes) unless
:data:`TAKEN` says why it may be taken. The suite runs this file in both tiers (compiled,
and ``WIRESPEC_PURE_PYTHON=1``); the compiled run also holds every case to what a
pure-Python process does with it (the same bytes, or the same error type, text and path).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from runtime.core import tier
from runtime.core.errors import DecodeError, EncodeError
from runtime.core.model import Model

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
FORMATS = sorted(p.name for p in SAMPLES.iterdir() if p.is_dir() and not p.name.startswith("_"))
THRIFT = ("parquet", "thrift_compact")
"""The Thrift formats."""
UNION_UNSET = "a union needs exactly one field set, 0 are"
"""What a Thrift union whose member was set to None (absent) says, at the union."""
THRIFT_TYPE = re.compile(r" \(field -?\d+, \w+\)")
"""What a raw Thrift field's path adds after its index: its field id and compact type."""
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
    # a column's value may be the JSON string its reader takes for any type (parse_pair
    # gives it back): a str for an integer column is one
    ("ticdc_open_protocol", "events[].new[].value"): "a str value is a JSON string",
    ("ticdc_open_protocol", "events[].old[].value"): "a str value is a JSON string",
}
"""(format, attribute path without indices) -> why a wrong-looking value is written."""

HEADER_COLUMNS = ("commit_ts", "type", "partition", "schema", "table")
"""The columns of a Craft frame's header."""

SIBLING = {
    # a switch's selector picks the case; the case's value is what no longer fits it
    ("plainbuffer", "rows[].primary_key[].value.type"): "rows[].primary_key[].value.value",
    ("plainbuffer", "rows[].attributes[].value.type"): "rows[].attributes[].value.value",
    # setting one member of a oneof while another is set: the oneof names both
    ("protobuf_wire", "card"): "voucher_code",
    # a row event without new (an insert's image) has no image at all: the event says so
    ("ticdc_craft", "events[].new"): "events[]",
    # a frame's header column given None is no elements: the bodies' rule (one element of
    # each column per body) names the columns
    **{("ticdc_craft", f"header.{column}"): "bodies" for column in HEADER_COLUMNS},
    # a column group's count is its names' length: names given None (no elements) leave
    # the next column, types, with more elements than the count
    ("ticdc_craft", "bodies[].column_groups[].names"): "bodies[].column_groups[].types",
}
"""(format, attribute path) -> the path the refusal names instead, and why (comments)."""
RAW_TYPE = re.compile(r"fields\[\]\.type$")
"""A schemaless Thrift field's type (at any depth): it says how the field's value is
written, and the value, which no longer fits it, is named."""

ELEMENT_TYPE = re.compile(r"elements\[\]\.type$")
"""A BSON element's type byte (at any depth) picks how its value is written: the value,
which no longer fits it, is named."""


def _samples(fmt):
    folder = SAMPLES / fmt
    return sorted(folder.glob("*.key" if fmt == "ticdc_open_protocol" else "*.bin"))


THRIFT_BODIES = {"call": "get_user_args", "reply": "get_user_result"}
"""A Thrift sample's message body struct by the kind its name says (``get_user_reply...``):
each such sample is swept with its body typed, and as the schemaless struct it is without."""


def _cases():
    """(format, sample, Thrift body struct or other record, or None) of every sample and
    body to sweep, then of every other top-level record (:func:`_other_records`)."""
    for fmt in FORMATS:
        for path in _samples(fmt):
            yield fmt, path, None
            body = THRIFT_BODIES.get(path.stem.split("_")[2]) if fmt == "thrift_compact" else None
            if body is not None:
                yield fmt, path, body
        for record, source in _other_records(fmt):
            yield fmt, source, record


@functools.cache
def _other_records(fmt) -> tuple:
    """(record, its sample) of each top-level record of ``fmt`` other than its default, a
    record no field of another holds (a Thrift format's structs are swept as bodies): the
    largest file of the format's samples that parses as it, or None (:func:`_drawn`)."""
    if fmt in THRIFT:
        return ()
    from generator.spec.loader import load
    from generator.spec.validate import build_model

    spec = build_model(load(ROOT / "specs" / f"{fmt}.yaml"))
    held = set()
    for record in spec.records.values():
        for field in [*record.fields, *record.trailer]:
            _record_names(field.type, held)
    mod = importlib.import_module(f"generated.{fmt}")
    found = []
    for name in spec.records:
        if name in held or name == spec.default_record:
            continue
        parsed = []
        for path in sorted((SAMPLES / fmt).iterdir()):
            try:
                mod.parse(path.read_bytes(), name)
            except DecodeError:  # a file that is no such record
                continue
            parsed.append(path)
        found.append((name, max(parsed, key=lambda p: (p.stat().st_size, p.name), default=None)))
    return tuple(found)


@functools.cache
def _drawn(fmt, record) -> bytes:
    """The bytes of the first model ``strategies(record)`` draws that ``build`` writes: the
    same in every process (derandomized: the seed is this function's, every setting that
    steers a draw is given here)."""
    from hypothesis import HealthCheck, Phase, given, settings

    mod = importlib.import_module(f"generated.{fmt}")
    found = []

    @settings(derandomize=True, database=None, max_examples=20, phases=[Phase.generate],
              deadline=None, suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(mod.strategies(record))
    def draw(model):
        if not found:
            try:
                found.append(mod.build(model, record))
            except EncodeError:  # a draw the writer refuses (a rule the strategy leaves open)
                pass

    draw()
    assert found, f"{fmt}: no draw of {record} builds"
    return found[0]


def _record_names(value, out: set) -> set:
    """The names of the records a field's type refers to, at any depth (a switch's cases, a
    list's element, a map's key and value)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if getattr(value, "kind", None) == "record":
            out.add(value.name)
        for f in dataclasses.fields(value):
            _record_names(getattr(value, f.name), out)
    elif isinstance(value, dict):
        for k, v in value.items():
            _record_names(k, out)
            _record_names(v, out)
    elif isinstance(value, list | tuple):
        for v in value:
            _record_names(v, out)
    return out


def _codec(fmt, path, body=None):
    """(a function giving a fresh model, the function building one); ``body``: the struct
    a Thrift message's body is read as, or another record of the format."""
    mod = importlib.import_module(f"generated.{fmt}")
    if body in dict(_other_records(fmt)):
        data = path.read_bytes() if path is not None else _drawn(fmt, body)
        return (lambda: mod.parse(data, body)), functools.partial(_build_record, mod, body)
    if fmt == "ticdc_open_protocol":
        key, value = path.read_bytes(), path.with_suffix(".value").read_bytes()
        return (lambda: mod.parse_pair(key, value)), mod.build_pair
    data = path.read_bytes()
    if body is not None:
        return (lambda: mod.parse(data, body=body)), mod.build
    return (lambda: mod.parse(data)), mod.build


def _build_record(mod, record, model):
    return mod.build(model, record)


def _attributes(value, at="", out=None):
    """(the model holding it, its name, its path) of each attribute, depth first: a
    model's, a Thrift struct's or message's, a row event's (every dataclass but a frozen
    one, which no one sets)."""
    out = [] if out is None else out
    if (
        dataclasses.is_dataclass(value)
        and not isinstance(value, type)
        and not value.__dataclass_params__.frozen
    ):
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


def _wrong_values(old, fmt=""):
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
            or isinstance(old, int)  # an enum's member: a number not a member is its value
            and type(wrong) is int
            or fmt in THRIFT  # a Thrift bool is any value's truth, as Apache's writers say it
            and type(old) is bool
            or fmt in THRIFT  # a schemaless BINARY is text or bytes (its reader cannot tell)
            and type(old) is bytes
            and type(wrong) is str
        )


def _outcomes(fmt, path, body=None) -> list:
    """(path, the wrong value's repr, what ``build`` did) of every case of one sample:
    ``["built", the bytes' repr]`` or ``[error type, its text, its path]``; a foreign exception
    is raised. Checks each case on the way (a refusal at its path in our words, a value taken
    only where it may be)."""
    fresh, build = _codec(fmt, path, body)
    original = build(fresh())
    count = len(_attributes(fresh()))
    found = []
    for n in range(count):
        owner, name, where = _attributes(fresh())[n]
        for wrong, strict in _wrong_values(getattr(owner, name), fmt):
            model = fresh()
            owner, name, where = _attributes(model)[n]
            setattr(owner, name, wrong)
            case = (where, repr(wrong))
            try:
                built = build(model)
            except EncodeError as err:
                found.append([where, repr(wrong), [type(err).__name__, str(err), err.path]])
                named = SIBLING.get((fmt, _shape(where)))
                if fmt in THRIFT and RAW_TYPE.search(_shape(where)):
                    named = RAW_TYPE.sub("fields[].value", _shape(where))
                if fmt == "bson" and ELEMENT_TYPE.search(_shape(where)):
                    named = ELEMENT_TYPE.sub("elements[].value", _shape(where))
                if wrong is None and err.message.startswith(UNION_UNSET):
                    named = _shape(where.rpartition(".")[0])  # the union is left with none
                at = _shape(THRIFT_TYPE.sub("", err.path))
                assert at.startswith(_shape(where)) or (
                    named is not None and at.startswith(named)
                ), (case, str(err))
                assert not PYTHON_TEXT.search(err.message), (case, str(err))
                continue
            found.append([where, repr(wrong), ["built", repr(built)]])
            taken = built == original or not strict or (fmt, _shape(where)) in TAKEN
            assert taken, (case, "taken")
    assert count == 0 or any(len(o) == 3 for _, _, o in found), "nothing refused"
    return found


def _every_outcome() -> dict:
    """:func:`_outcomes` of every case, by ``format/sample/body`` (for the other tier)."""
    return {_key(f, p, b): _outcomes(f, p, b) for f, p, b in _cases()}


def _key(fmt, path, body) -> str:
    return f"{fmt}/{path.name if path is not None else 'strategies'}/{body}"


@functools.cache
def _pure_python_outcomes() -> dict:
    """:func:`_every_outcome` in a process of the pure-Python tier."""
    code = "import json, tests.test_build_errors_sweep as t; print(json.dumps(t._every_outcome()))"
    env = dict(os.environ, **{tier.PURE_PYTHON_ENV: "1", "PYTHONHASHSEED": "0"})
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize("fmt, path, body", list(_cases()), ids=lambda c: getattr(c, "name", c))
def test_a_wrong_typed_attribute_is_refused_at_its_path_in_our_words(fmt, path, body):
    found = _outcomes(fmt, path, body)
    if tier.describe().active != "pure Python":  # the same refusals as the other tier
        other = _pure_python_outcomes()[_key(fmt, path, body)]
        assert [c for c in found if c not in other] == [], "not as in pure Python"
        assert len(found) == len(other)


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


@pytest.mark.parametrize(
    "wrong, said",
    [
        (None, "expected str, got None"),
        (b"x", "expected str, got bytes b'x'"),
        ("\udcff", "'\\udcff' is not text LATIN-1 can write (ordinal not in range(256))"),
    ],
)
def test_a_text_to_the_end_is_refused_in_our_words(wrong, said):
    """A ``size: eos`` text field (PNG's tEXt text) said construct's words ("string encoding
    failed, expected unicode string"); a ``size: eos`` bytes field (a MySQL binlog event's
    body of another type) Python's ("object of type 'NoneType' has no len()")."""
    from generated import mysql_serialization as ms
    from generated import png

    model = png.parse((SAMPLES / "png" / "photo_with_text.bin").read_bytes())
    model.chunks[1].data.text = wrong
    with pytest.raises(EncodeError) as err:
        png.build(model)
    assert str(err.value) == f"chunks[1].data.text: {said}"
    model = ms.parse(
        (SAMPLES / "mysql_serialization" / "binlog.000001.binlog").read_bytes(), "binlog_file"
    )
    model.events[0].body = None
    with pytest.raises(EncodeError) as err:
        ms.build(model, "binlog_file")
    assert str(err.value) == "events[0].body: expected bytes, got None"


def test_a_list_whose_length_is_another_lists_count_names_that_list():
    """A Craft column group's chunks are as long as its count, which is the length of its
    names: names given None (no elements) is refused at the next chunk, which says where
    its count comes from."""
    from generated import ticdc_craft

    data = (SAMPLES / "ticdc_craft" / "row_batch.bin").read_bytes()
    model = ticdc_craft.parse(data, "frame")
    model.bodies[0].column_groups[0].names = None
    with pytest.raises(EncodeError) as err:
        ticdc_craft.build(model, "frame")
    assert str(err.value) == (
        "bodies[0].column_groups[0].types: expected 0 elements (count = len(names)), found 7"
    )
