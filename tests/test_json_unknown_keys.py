"""``from_dict`` refuses a key a record's JSON form does not have (a misspelt key would
otherwise be dropped without a word), naming it and the nearest known key."""

from __future__ import annotations

import copy
import importlib
import re
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


def _event_forms(fmt):
    """(module, JSON form) of each sample of Craft or Open Protocol that has a row image."""
    mod = importlib.import_module(f"generated.{fmt}")
    out = []
    for path in sorted((SAMPLES / fmt).glob("*.key" if fmt == "ticdc_open_protocol" else "*.bin")):
        if fmt == "ticdc_open_protocol":
            model = mod.parse_pair(path.read_bytes(), path.with_suffix(".value").read_bytes())
        else:
            model = mod.parse(path.read_bytes())
        form = mod.to_dict(model)
        if any(e.get(image) for e in form["events"] for image in ("new", "old")):
            out.append((mod, form))
    return out


@pytest.mark.parametrize("fmt", ["ticdc_craft", "ticdc_open_protocol"])
def test_a_bogus_or_misspelt_key_in_a_column_is_refused_naming_it(fmt):
    forms = _event_forms(fmt)
    assert forms
    for mod, form in forms:
        assert mod.from_dict(copy.deepcopy(form)) is not None  # every key known: taken
        for i, event in enumerate(form["events"]):
            for image in ("new", "old"):
                for j, column in enumerate(event.get(image) or []):
                    where = rf"^events\[{i}\]\.{image}\[{j}\]"
                    bad = copy.deepcopy(form)
                    bad["events"][i][image][j][BOGUS] = 1
                    with pytest.raises(EncodeError, match=rf"{where}\.{BOGUS}: unknown key"):
                        mod.from_dict(bad)
                    for key in column:  # one in place of a known key, which is then absent
                        bad = copy.deepcopy(form)
                        cut = bad["events"][i][image][j]
                        cut[key[::-1]] = cut.pop(key)
                        with pytest.raises(
                            EncodeError, match=rf"{where}\.{key[::-1]}: unknown key .* in column"
                        ):
                            mod.from_dict(bad)


@pytest.mark.parametrize("fmt", ["ticdc_craft", "ticdc_open_protocol"])
def test_a_column_may_leave_out_its_flags_and_value(fmt):
    mod, form = _event_forms(fmt)[0]
    image = next(e.get("new") or e["old"] for e in form["events"] if e.get("new") or e.get("old"))
    for column in image:
        del column["flags"], column["value"]
    message = mod.from_dict(form)
    columns = next(e.new or e.old for e in message.events if e.new or e.old)
    assert [(c.flags, c.value) for c in columns] == [(0, None)] * len(columns)


@pytest.mark.parametrize(
    "name, text",
    [
        (KeyError, "missing key 'name' (the wire keys a column by its name)"),
        (None, "expected a string, got None"),
        (5, "expected a string, got int 5"),
    ],
)
def test_an_open_protocol_column_needs_its_name(name, text):
    """The wire keys each column by its name (tiflow's ``map[string]column``): a column
    form without one is refused at its path, not taken to fail in build."""
    mod, form, i, event = next(
        (mod, form, i, e)
        for mod, form in _event_forms("ticdc_open_protocol")
        for i, e in enumerate(form["events"])
        if len(e.get("new") or ()) > 1
    )
    if name is KeyError:
        del event["new"][1]["name"]
    else:
        event["new"][1]["name"] = name
    with pytest.raises(EncodeError) as err:
        mod.from_dict(form)
    assert str(err.value) == f"events[{i}].new[1].name: {text}"


def _raw_forms(form, at=""):
    """(key path, form, its kind) of each raw struct, field, list, set or map in a Thrift
    message's raw body."""
    out = []
    if isinstance(form, dict):
        kind = next((k for k in ("fields", "set", "list", "map") if k in form), None)
        if kind is None and {"id", "type", "value"} <= set(form):
            kind = "field"
        if kind is not None:
            out.append((at, form, {"fields": "struct"}.get(kind, kind)))
        for key, value in form.items():
            out += _raw_forms(value, f"{at}.{key}" if at else key)
    elif isinstance(form, list):
        for i, value in enumerate(form):
            out += _raw_forms(value, f"{at}[{i}]")
    return out


@pytest.mark.parametrize(
    "path", sorted((SAMPLES / "thrift_compact").glob("*.bin")), ids=lambda p: p.name
)
def test_a_bogus_or_misspelt_key_in_a_thrift_raw_form_is_refused_naming_it(path):
    from generated import thrift_compact as tc

    form = tc.to_dict(tc.parse(path.read_bytes()))  # no body struct named: a raw body
    raw = _raw_forms(form["body"], "body")
    assert {kind for _, _, kind in raw} >= {"struct", "field"}
    for at, node, kind in raw:
        node[BOGUS] = 1
        escaped = re.escape(f"{at}.{BOGUS}: unknown key '{BOGUS}' in {kind}")
        with pytest.raises(EncodeError, match=f"^{escaped}"):
            tc.from_dict(form)
        del node[BOGUS]
        for key in list(node):
            # one in place of a required key: the count of keys is right (the raw forms'
            # keys are checked by their count alone), and the key found absent is then
            # looked for among the others: the one in its place is named, not the absence
            node[key + "x"] = node.pop(key)
            hint = "" if key == "set" else f" (did you mean '{key}'?)"  # no "set": a list's
            escaped = re.escape(f"{at}.{key}x: unknown key '{key}x' in ")
            with pytest.raises(EncodeError, match=f"^{escaped}") as err:
                tc.from_dict(form)
            assert str(err.value).endswith(hint)
            node[key] = node.pop(key + "x")
    assert tc.build(tc.from_dict(form)) == path.read_bytes()


def test_an_unknown_column_key_on_the_wire_is_kept_not_refused():
    """The wire reader stays exact: a key tiflow does not write, in a column of the value's
    JSON, is read and kept (the message's wire_form), and its JSON form, whose columns have
    their four keys, goes back through from_dict to the same bytes."""
    from generated import ticdc_open_protocol as op

    folder = SAMPLES / "ticdc_open_protocol"
    key, value = (folder / "update.key").read_bytes(), (folder / "update.value").read_bytes()
    n = int.from_bytes(value[:8], "big")
    body = value[8 : 8 + n].replace(b'{"t":', b'{"' + BOGUS.encode() + b'":1,"t":', 1)
    value = len(body).to_bytes(8, "big") + body + value[8 + n :]
    form = op.to_dict(op.parse_pair(key, value))
    assert "wire_form" in form and BOGUS not in str(form["events"])
    assert op.build_pair(op.from_dict(form)) == (key, value)


def test_an_open_protocol_column_name_may_be_a_str_subclass():
    """json_paths' replay hands from_dict subclasses of str: a name, like any other str."""

    class Name(str):
        pass

    mod, form, event = next(
        (mod, form, e)
        for mod, form in _event_forms("ticdc_open_protocol")
        for e in form["events"]
        if len(e.get("new") or ()) > 1
    )
    event["new"][1]["name"] = Name(event["new"][1]["name"])
    message = mod.from_dict(form)
    assert any(c.name == event["new"][1]["name"] for e in message.events for c in e.new or ())
