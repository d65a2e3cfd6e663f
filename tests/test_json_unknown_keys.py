"""``from_dict`` refuses a key a record's JSON form does not have (a misspelt key would
otherwise be dropped without a word), naming it and the nearest known key."""

from __future__ import annotations

import copy
import importlib
from pathlib import Path

import pytest

from runtime.core.errors import EncodeError

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
RECORD_FORMATS = (
    "avro_container",
    "kafka_record_batch",
    "msgpack",
    "mysql_serialization",
    "plainbuffer",
    "png",
    "protobuf_wire",
    "ticdc_craft",
)
"""The formats whose records' JSON forms are the generated ``*_from_dict``'s (and Craft's
events' ``_event_from_json_*``)."""
BOGUS = "zz_not_a_key"


def _samples():
    out = []
    for fmt in RECORD_FORMATS:
        out += sorted((SAMPLES / fmt).glob("*.bin")) + sorted((SAMPLES / fmt).glob("*.binlog"))
    return out


def _record_dicts(form, mod, path=()):
    """Paths of the dicts in ``form`` that are a record's JSON form (not a map, ``$hex``
    or a choice's ``{case: form}``): those whose keys all are some record's keys."""
    out = []
    if isinstance(form, dict):
        if form and any(set(form) <= keys for keys in _key_sets(mod)):
            out.append(path)
        for key, value in form.items():
            out += _record_dicts(value, mod, path + (key,))
    elif isinstance(form, list):
        for i, value in enumerate(form):
            out += _record_dicts(value, mod, path + (i,))
    return out


def _key_sets(mod):
    """The key sets ``from_dict`` holds a record's (``_<record>_keys``) or an event's
    (``_EVENT_KEYS_<class>``) JSON form to."""
    return [
        keys
        for name, keys in vars(mod).items()
        if (name.endswith("_keys") or name.startswith("_EVENT_KEYS_"))
        and isinstance(keys, frozenset)
    ]


@pytest.mark.parametrize("path", _samples(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_bogus_key_at_any_record_level_is_an_encode_error_naming_it(path):
    mod = importlib.import_module(f"generated.{path.parent.name}")
    record = "binlog_file" if path.suffix == ".binlog" else mod.DEFAULT_RECORD
    form = mod.to_dict(mod.parse(path.read_bytes(), record))
    _refuses_a_bogus_key_at_each_level(mod, form, record)


@pytest.mark.parametrize(
    "stem", sorted(p.stem for p in (SAMPLES / "ticdc_open_protocol").glob("*.key"))
)
def test_a_bogus_key_in_an_open_protocol_event_is_an_encode_error_naming_it(stem):
    from generated import ticdc_open_protocol as op

    key = (SAMPLES / "ticdc_open_protocol" / f"{stem}.key").read_bytes()
    value = (SAMPLES / "ticdc_open_protocol" / f"{stem}.value").read_bytes()
    _refuses_a_bogus_key_at_each_level(op, op.to_dict(op.parse_pair(key, value)), op.DEFAULT_RECORD)


def _refuses_a_bogus_key_at_each_level(mod, form, record):
    levels = _record_dicts(form, mod)
    assert levels
    for level in levels:
        bad = copy.deepcopy(form)
        node = bad
        for step in level:
            node = node[step]
        node[BOGUS] = 1
        with pytest.raises(EncodeError, match=BOGUS):
            mod.from_dict(bad, record)


def test_a_misspelt_key_names_the_nearest_one():
    from generated import plainbuffer

    with pytest.raises(
        EncodeError, match=r"unknown key 'rowz' in message \(did you mean 'rows'\?\)"
    ):
        plainbuffer.from_dict({"rowz": []})


@pytest.mark.parametrize("stem", ["row_batch", "resolved"])
def test_a_bogus_key_at_the_top_of_an_open_protocol_message_is_refused(stem):
    from generated import ticdc_open_protocol as op

    key = (SAMPLES / "ticdc_open_protocol" / f"{stem}.key").read_bytes()
    value = (SAMPLES / "ticdc_open_protocol" / f"{stem}.value").read_bytes()
    form = op.to_dict(op.parse_pair(key, value))
    form["layuot"] = form.pop("layout")
    with pytest.raises(
        EncodeError, match=r"^layuot: unknown key 'layuot' in message \(did you mean 'layout'\?\)"
    ):
        op.from_dict(form)


@pytest.mark.parametrize(
    "path", sorted((SAMPLES / "thrift_compact").glob("*.bin")), ids=lambda p: p.name
)
def test_a_bogus_key_in_a_thrift_message_is_refused(path):
    from generated import thrift_compact as tc

    form = tc.to_dict(tc.parse(path.read_bytes()))
    bad = copy.deepcopy(form)
    bad["seqdi"] = bad.pop("seqid")
    with pytest.raises(EncodeError, match=r"^seqdi: unknown key 'seqdi' in message \(did you"):
        tc.from_dict(bad)
