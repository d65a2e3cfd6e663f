"""A wrong-typed value in a JSON form is an :class:`EncodeError` that starts with its key
path (``rows[1].primary_key: expected a list, got int``), in every format.

Each sample's JSON form has one value at a time replaced by a value of a wrong type: an int
where a list, an object, a string or bytes (``{"$hex"}``) is; a string or a bool where an
int or a float is; an int where a bool is; null where a value is. ``from_dict`` and then
``build`` either refuse it naming that path, or (a key the form shows but ``from_dict``
leaves out: a computed length, a checksum) give the model they give without the change.
Null may also stand where a value is optional, so it only holds the refusal to the path; an
int where a string is may be an enum's number (which may pick another case of a switch,
and the error be another key's), so it is only held to an EncodeError.
"""

from __future__ import annotations

import copy
import importlib
import re
from pathlib import Path

import pytest

from runtime.core.errors import EncodeError

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
FORMATS = sorted(
    p.name
    for p in SAMPLES.iterdir()
    if p.is_dir() and any(p.glob("*.bin")) or p.name == "ticdc_open_protocol"
)


def _cases():
    out = []
    for fmt in FORMATS:
        folder = SAMPLES / fmt
        if fmt == "ticdc_open_protocol":
            out += [(fmt, p) for p in sorted(folder.glob("*.key"))]
        else:
            out += [(fmt, p) for p in sorted(folder.glob("*.bin"))]
    return out


def _codec_of(fmt, path):
    """(module, the form, a function of a form -> the built bytes, the record)."""
    mod = importlib.import_module(f"generated.{fmt}")
    if fmt == "ticdc_open_protocol":
        model = mod.parse_pair(path.read_bytes(), path.with_suffix(".value").read_bytes())
        record = mod.DEFAULT_RECORD
        return mod, mod.to_dict(model), lambda form: mod.build_pair(mod.from_dict(form)), record
    record = mod.DEFAULT_RECORD
    model = mod.parse(path.read_bytes(), record)
    return (
        mod,
        mod.to_dict(model),
        lambda form: mod.build(mod.from_dict(form, record), record),
        record,
    )


def _leaves(form, at=()):
    """Every key path of ``form`` (a ``{"$hex"}``-like object is one value)."""
    if isinstance(form, dict):
        for key, value in form.items():
            yield at + (key,), value
            if not (isinstance(value, dict) and any(str(k).startswith("$") for k in value)):
                yield from _leaves(value, at + (key,))
    elif isinstance(form, list):
        for i, value in enumerate(form):
            yield at + (i,), value
            yield from _leaves(value, at + (i,))


def _text(at) -> str:
    out = ""
    for step in at:
        out += f"[{step}]" if isinstance(step, int) else ("." if out else "") + step
    return out


def _wrong(value):
    """(strict, the wrong value) pairs: strict ones must be refused or left out; None: any
    EncodeError will do."""
    if value is None:
        return []
    if isinstance(value, bool):
        return [(True, 7)]
    if isinstance(value, (int, float)):
        return [(True, "zz"), (True, True), (False, None)]
    if isinstance(value, str):
        return [(True, {"zz": 1}), (None, 7), (False, None)]
    if isinstance(value, dict) and "$f64" in value:
        return [(True, "zz")]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [(None, 7), (None, None)]  # (perhaps) flag names: a number is the same value
    # a list, an object, bytes, a $str: null may be an absent image another key disagrees with
    return [(True, 7), (None, None)]


def _shapes(form):
    """One key path of each shape (indices left out), the last: indices past 0 too."""
    out = {}
    for at, value in _leaves(form):
        out[re.sub(r"\[\d+\]", "[]", _text(at))] = (at, value)
    return list(out.values())


@pytest.mark.parametrize("fmt, path", _cases(), ids=lambda c: getattr(c, "name", c))
def test_a_wrong_typed_value_is_refused_naming_its_key_path(fmt, path):
    mod, form, encode, _ = _codec_of(fmt, path)
    model = mod.from_dict(form) if fmt == "ticdc_open_protocol" else None
    original = encode(form)
    checked = 0
    for at, value in _shapes(form):
        for strict, wrong in _wrong(value):
            bad = copy.deepcopy(form)
            node = bad
            for step in at[:-1]:
                node = node[step]
            node[at[-1]] = wrong
            where = _text(at)
            try:
                built = encode(bad)
            except EncodeError as err:
                assert strict is None or str(err).startswith(where), (where, repr(wrong), str(err))
                checked += 1
                continue
            # taken: a key from_dict leaves out gives the same bytes; else only a lenient
            # replacement (null where optional, an enum's number) may be taken
            assert not strict or built == original, (where, repr(wrong), "taken")
    del model
    assert checked


def test_the_message_names_what_was_expected_and_what_came():
    from generated import avro_container, plainbuffer

    with pytest.raises(EncodeError) as err:
        plainbuffer.from_dict({"rows": [{"primary_key": [{"name": "a", "value": 7}]}]})
    assert str(err.value) == "rows[0].primary_key[0].value: expected an object, got int"
    with pytest.raises(EncodeError) as err:
        plainbuffer.from_dict({"rows": [{}, {"attributes": "zz"}]})
    assert str(err.value) == "rows[1].attributes: expected a list, got str"
    with pytest.raises(EncodeError) as err:
        plainbuffer.from_dict({"rows": [{"delete_marker": 1}]})
    assert str(err.value) == "rows[0].delete_marker: expected true or false, got 1"
    with pytest.raises(EncodeError) as err:
        plainbuffer.from_dict(7)
    assert str(err.value) == "<model>: expected an object, got int"
    with pytest.raises(EncodeError, match=r"^meta: expected a list, got int"):
        avro_container.from_dict({"magic": 1, "meta": 7, "sync": {"$hex": "00"}})


def test_a_bool_is_not_an_enum_number():
    from generated import plainbuffer

    form = {"rows": [{"primary_key": [{"name": "a", "op": True}]}]}
    with pytest.raises(EncodeError, match=r"^rows\[0\]\.primary_key\[0\]\.op: True is not"):
        plainbuffer.from_dict(form)


def _strings_list(form, at=""):
    """The key path and parent of the first list of strings in a JSON form, or None."""
    items = form.items() if isinstance(form, dict) else enumerate(form)
    for key, value in items:
        where = f"{at}[{key}]" if isinstance(key, int) else (f"{at}.{key}" if at else key)
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return where, form, key
        if isinstance(value, (dict, list)) and (found := _strings_list(value, where)):
            return found
    return None


@pytest.mark.parametrize("fmt", ["avro_container", "parquet"])
@pytest.mark.parametrize("wrong", ["ab", {"a": "b"}])
def test_a_string_or_an_object_is_not_a_list_of_strings(fmt, wrong):
    """A string or an object where a list of strings belongs was iterated as its characters
    or keys: a list the user never wrote, built without a word."""
    mod = importlib.import_module(f"generated.{fmt}")
    sample = min((SAMPLES / fmt).glob("*.bin")).read_bytes()
    form = mod.to_dict(mod.parse(sample))
    where, parent, key = _strings_list(form)
    parent[key] = wrong
    with pytest.raises(EncodeError) as err:
        mod.from_dict(form)
    assert str(err.value).startswith(f"{where}: expected a list, got "), str(err.value)


@pytest.mark.parametrize("fmt", ["ticdc_craft", "ticdc_open_protocol"])
def test_a_column_that_is_no_object_is_refused_at_its_own_path(fmt):
    mod = importlib.import_module(f"generated.{fmt}")
    if fmt == "ticdc_open_protocol":
        folder = SAMPLES / fmt
        key, value = (folder / "row_batch.key").read_bytes(), (
            folder / "row_batch.value"
        ).read_bytes()
        form = mod.to_dict(mod.parse_pair(key, value))
    else:
        form = mod.to_dict(mod.parse((SAMPLES / fmt / "row_batch.bin").read_bytes()))
    form["events"][0]["new"][1] = 7
    with pytest.raises(EncodeError) as err:
        mod.from_dict(form)
    assert str(err.value) == "events[0].new[1]: expected an object, got int 7"


def test_an_enum_value_it_does_not_have_is_refused_with_the_names_it_has():
    """A name or number no member has says which names would do: the nearest ones, or (a
    short enum) all of them, so the reader need not open the spec to fix the form."""
    from generated import plainbuffer

    def refused(op):
        with pytest.raises(EncodeError) as err:
            plainbuffer.from_dict({"rows": [{"primary_key": [{"name": "a", "op": op}]}]})
        return str(err.value)

    at = "rows[0].primary_key[0].op"
    assert refused("DELETE_ALL_VERSIONS") == (
        f"{at}: 'DELETE_ALL_VERSIONS' is not a CellOp (did you mean 'DELETE_ALL_VERSION'?)"
    )
    members = "(one of DELETE_ALL_VERSION, DELETE_ONE_VERSION, INCREMENT)"
    assert refused("NOPE") == f"{at}: 'NOPE' is not a CellOp {members}"
    assert refused(9) == f"{at}: 9 is not a CellOp {members}"


@pytest.mark.parametrize("wrong", [{}, {"a": 1}, "ab", 0])
def test_an_object_or_a_string_is_not_a_list_of_records(wrong):
    """An empty object where a list of records belongs was taken as no records (the form
    built without a word), and an object with keys was refused as "expected an object,
    got str" (its first key, iterated)."""
    from generated import plainbuffer

    with pytest.raises(EncodeError) as err:
        plainbuffer.from_dict({"rows": wrong})
    assert str(err.value).startswith("rows: expected a list, got "), str(err.value)
    with pytest.raises(EncodeError) as err:
        plainbuffer.from_dict({"rows": [{"primary_key": wrong}]})
    assert str(err.value).startswith("rows[0].primary_key: expected a list, got ")
    assert plainbuffer.from_dict({"rows": None}) == plainbuffer.from_dict({})  # no rows
