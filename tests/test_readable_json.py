"""The JSON form reads like the data and still rebuilds every sample and vector exactly.

Text columns are strings, UUIDs canonical, codes their enum names, times shown beside
their numbers, padded strings trimmed; ``encode`` takes all of that back (and the older
spellings: ``$hex`` for text, lists of ints for uuids, numbers for enums), byte for byte.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

from generated import mysql_serialization as ms
from generated import ticdc_craft as craft
from generated import ticdc_open_protocol as op
from runtime.core.errors import EncodeError

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
VECTORS = ROOT / "tests" / "data" / "vectors"


def _through_json(form):
    """What a file written by ``decode`` and read by ``encode`` holds."""
    return json.loads(json.dumps(form, ensure_ascii=False))


def _mysql_record(path: Path) -> str:
    return "binlog_file" if path.suffix == ".binlog" else ms.DEFAULT_RECORD


def _single_samples():
    out = []
    for fmt in ("mysql_serialization", "ticdc_craft", "plainbuffer", "thrift_compact"):
        out += sorted((SAMPLES / fmt).glob("*.bin")) + sorted((SAMPLES / fmt).glob("*.binlog"))
    return out


@pytest.mark.parametrize("path", _single_samples(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_sample_rebuilds_from_its_json_form(path):
    mod = importlib.import_module(f"generated.{path.parent.name}")
    record = _mysql_record(path) if path.parent.name == "mysql_serialization" else None
    record = record or mod.DEFAULT_RECORD
    data = path.read_bytes()
    model = mod.parse(data, record)
    assert mod.build(mod.from_dict(_through_json(mod.to_dict(model)), record), record) == data


@pytest.mark.parametrize(
    "stem", sorted({p.stem for p in (SAMPLES / "ticdc_open_protocol").glob("*.key")})
)
def test_every_open_protocol_sample_rebuilds_from_its_json_form(stem):
    key = (SAMPLES / "ticdc_open_protocol" / f"{stem}.key").read_bytes()
    value = (SAMPLES / "ticdc_open_protocol" / f"{stem}.value").read_bytes()
    form = _through_json(op.to_dict(op.parse_pair(key, value)))
    assert op.build_pair(op.from_dict(form)) == (key, value)


def _vectors(name):
    doc = json.loads((VECTORS / f"{name}.json").read_text())
    return doc["vectors"] if isinstance(doc, dict) else doc


def _decodes(parse, *data):
    from runtime.core.errors import DecodeError

    try:
        return parse(*data)
    except DecodeError:
        return None  # an invalid vector: nothing to rebuild


@pytest.mark.parametrize("vec", _vectors("ticdc_craft"), ids=lambda v: v["name"])
def test_every_craft_vector_rebuilds_from_its_json_form(vec):
    data = bytes.fromhex(vec["hex"])
    model = _decodes(craft.parse, data)
    if model is not None:
        assert craft.build(craft.from_dict(_through_json(craft.to_dict(model)))) == data


@pytest.mark.parametrize(
    "vec", [v for v in _vectors("ticdc_open_protocol") if v["hex"]["key"]], ids=lambda v: v["name"]
)
def test_every_open_protocol_vector_rebuilds_from_its_json_form(vec):
    key, value = bytes.fromhex(vec["hex"]["key"]), bytes.fromhex(vec["hex"]["value"])
    model = _decodes(op.parse_pair, key, value)
    if model is not None:
        assert op.build_pair(op.from_dict(_through_json(op.to_dict(model)))) == (key, value)


@pytest.mark.parametrize("vec", _vectors("mysql_serialization"), ids=lambda v: v["name"])
def test_every_mysql_vector_rebuilds_from_its_json_form(vec):
    data = bytes.fromhex(vec["hex"])
    for record in ("gtid_tagged_body", "gtid_tagged_event"):
        model = _decodes(lambda d, r=record: ms.parse(d, r), data)
        if model is not None:
            form = _through_json(ms.to_dict(model))
            assert ms.build(ms.from_dict(form, record), record) == data


# -- what the JSON form shows ---------------------------------------------------------------


def _columns(events, image="new"):
    return {c["name"]: c for ev in events for c in ev.get(image) or []}


def test_craft_text_columns_are_strings_and_codes_are_names():
    form = craft.to_dict(craft.parse((SAMPLES / "ticdc_craft/row_batch.bin").read_bytes()))
    cols = _columns(form["events"][:1])
    assert cols["status"] == {"name": "status", "type": "VARCHAR", "flags": [], "value": "NEW"}
    assert cols["id"]["type"] == "LONGLONG"
    assert cols["id"]["flags"] == ["BINARY", "HANDLE_KEY", "PRIMARY_KEY", "UNSIGNED"]
    assert cols["amount"]["type"] == "NEWDECIMAL"
    event = form["events"][0]
    assert event["commit_ts"] == "454000000000000001"
    assert event["commit_ts_time"] == "2024-11-17T19:42:38.593Z"


def test_craft_ddl_type_is_named():
    form = craft.to_dict(craft.parse((SAMPLES / "ticdc_craft/ddl_add_column.bin").read_bytes()))
    assert form["events"][0]["ddl_type"] == "ADD_COLUMN"


def test_open_protocol_text_columns_are_strings_binary_ones_hex():
    key = (SAMPLES / "ticdc_open_protocol/update.key").read_bytes()
    value = (SAMPLES / "ticdc_open_protocol/update.value").read_bytes()
    form = op.to_dict(op.parse_pair(key, value))
    cols = _columns(form["events"])
    assert cols["status"]["value"] == "SHIPPED"
    assert cols["note"]["value"] == "leave at the door / 放在门口"
    assert cols["receipt"]["value"] == {"$hex": "9f2c" * 10}  # BINARY: stays hex
    assert cols["status"]["type"] == "VARCHAR" and cols["status"]["flags"] == ["NULLABLE"]
    assert form["events"][0]["commit_ts_time"].endswith("Z")


def test_mysql_uuid_enum_names_times_and_trimmed_version():
    data = (SAMPLES / "mysql_serialization/binlog.000001.binlog").read_bytes()
    form = ms.to_dict(ms.parse(data, "binlog_file"))
    fde = form["format_description"]
    assert fde["server_version"] == "9.2.0"
    assert fde["type_code"] == "FORMAT_DESCRIPTION_EVENT"
    assert fde["timestamp_time"] == "2025-02-17T20:13:49Z"
    kinds = [e["type_code"] for e in form["events"]]
    assert kinds[:3] == ["PREVIOUS_GTIDS_LOG_EVENT", "GTID_TAGGED_LOG_EVENT", "QUERY_EVENT"]
    body = form["events"][1]["body"]
    assert body["uuid"] == "896e7882-18fe-11ef-ab88-22222d34d411"
    assert body["immediate_commit_timestamp_time"] == "2025-02-17T20:14:49.123456Z"


# -- what encode takes back -----------------------------------------------------------------


def test_encode_takes_the_older_spellings():
    data = (SAMPLES / "ticdc_craft/row_batch.bin").read_bytes()
    form = craft.to_dict(craft.parse(data))
    for ev in form["events"]:
        ev.pop("commit_ts_time")
        for c in (ev.get("new") or []) + (ev.get("old") or []):
            c["type"] = craft.ColumnType[c["type"]].value
            c["flags"] = sum(craft.ColumnFlag[f].value for f in c["flags"])
            if isinstance(c["value"], str) and c["type"] in (15, 252, 253, 254):
                c["value"] = {"$hex": c["value"].encode().hex()}
    assert craft.build(craft.from_dict(form)) == data

    event = (SAMPLES / "mysql_serialization/gtid_tagged_local.bin").read_bytes()
    form = ms.to_dict(ms.parse(event))
    form["body"]["uuid"] = list(bytes.fromhex(form["body"]["uuid"].replace("-", "")))
    assert ms.build(ms.from_dict(form)) == event


def test_unknown_codes_stay_numbers_and_round_trip():
    data = (SAMPLES / "mysql_serialization/binlog.000001.binlog").read_bytes()
    model = ms.parse(data, "binlog_file")
    model.events[0].type_code = 99  # no member: stays a number (a body of raw bytes)
    form = _through_json(ms.to_dict(model))
    assert form["events"][0]["type_code"] == 99
    assert ms.from_dict(form, "binlog_file").events[0].type_code == 99


def test_a_time_that_disagrees_with_its_number_is_refused():
    event = (SAMPLES / "mysql_serialization/gtid_tagged_local.bin").read_bytes()
    form = ms.to_dict(ms.parse(event))
    form["timestamp_time"] = "2000-01-01T00:00:00Z"
    with pytest.raises(EncodeError, match="timestamp_time"):
        ms.from_dict(form)
    form = craft.to_dict(craft.parse((SAMPLES / "ticdc_craft/resolved.bin").read_bytes()))
    form["events"][0]["commit_ts_time"] = "2000-01-01T00:00:00.000Z"
    with pytest.raises(EncodeError, match="commit_ts_time"):
        craft.from_dict(form)


def test_invalid_utf8_in_a_text_column_stays_hex_and_rebuilds():
    from generated.models.ticdc_types import Column, RowChangedEvent

    ev = RowChangedEvent(1 << 18, "s", "t", new=[Column("c", 15, 0, b"ok\xff")])
    data = craft.build(craft.Message(events=[ev]))
    form = _through_json(craft.to_dict(craft.parse(data)))
    assert form["events"][0]["new"][0]["value"] == {"$hex": "6f6bff"}
    assert craft.build(craft.from_dict(form)) == data


def test_padding_with_bytes_after_the_first_nul_rebuilds():
    import zlib

    data = (SAMPLES / "mysql_serialization/binlog.000001.binlog").read_bytes()
    fde = bytearray(data[4 : 4 + 122])  # the format description event
    fde[fde.index(b"9.2.0\0") + 6] = ord("x")  # "9.2.0\0x\0...": only trailing NULs pad
    fde[-4:] = zlib.crc32(bytes(fde[:-4])).to_bytes(4, "little")
    file = data[:4] + bytes(fde)
    for parse in (ms.parse, ms.parse_construct):
        model = parse(file, "binlog_file")
        assert model.format_description.server_version == "9.2.0\0x"
        assert ms.build(model, "binlog_file") == ms.build_construct(model, "binlog_file") == file
        form = _through_json(ms.to_dict(model))
        assert ms.build(ms.from_dict(form, "binlog_file"), "binlog_file") == file


def test_a_padded_value_given_with_its_padding_writes_the_same_bytes():
    data = (SAMPLES / "mysql_serialization/binlog.000001.binlog").read_bytes()
    model = ms.parse(data, "binlog_file")
    model.format_description.server_version = "9.2.0" + "\0" * 45  # the older JSON form
    assert ms.build(model, "binlog_file") == data
    model.format_description.server_version = "9" * 51
    with pytest.raises(EncodeError, match="at most 50 bytes"):
        ms.build(model, "binlog_file")


# -- inspect shows values as the JSON form does ---------------------------------------------

REPR = re.compile(r"""\bb'|\bb"|UUID\(|<[^>\s]*>>|\w+\(\w+=""")
"""Python reprs (``b'NEW'``, ``UUID('...')``, ``Column(name=...``) and doubled mark labels."""


def _inspected(fmt, path: Path):
    from generator.cli import inspect as insp

    mod = importlib.import_module(f"generated.{fmt}")
    record = _mysql_record(path) if fmt == "mysql_serialization" else mod.DEFAULT_RECORD
    result = insp.trace(mod, path.read_bytes(), record)
    assert result.error is None
    return (
        insp.plain_text(result, fmt=fmt, record=record),
        insp.render_html(result, fmt=fmt, record=record),
    )


@pytest.mark.parametrize("path", _single_samples(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_inspect_shows_no_python_reprs(path):
    text, page = _inspected(path.parent.name, path)
    assert not REPR.search(text), REPR.search(text)
    data = json.loads(
        page.split('<script id="data" type="application/json">')[1].split("</script>")[0]
    )
    shown = json.dumps(data, ensure_ascii=False)
    assert not REPR.search(shown), REPR.search(shown)


@pytest.mark.parametrize(
    "stem", sorted({p.stem for p in (SAMPLES / "ticdc_open_protocol").glob("*.key")})
)
def test_inspect_of_open_protocol_shows_no_python_reprs(stem):
    from generator.cli import inspect as insp

    key = (SAMPLES / "ticdc_open_protocol" / f"{stem}.key").read_bytes()
    value = (SAMPLES / "ticdc_open_protocol" / f"{stem}.value").read_bytes()
    for column, record, result in insp.trace_kafka(op, key, value):
        text = insp.plain_text(result, fmt=column, record=record)
        assert not REPR.search(text), REPR.search(text)
        if stem == "update" and column == "value":  # the column codes by their names
            assert "events[0].value.u.amount.t = NEWDECIMAL (246)" in text
            assert "events[0].value.u.amount.f = BINARY|NULLABLE (65)" in text
        if stem == "ddl_add_column":  # the event kind and the DDL type too
            assert ("events[0].key.t = DDL (2)" if column == "key" else "ADD_COLUMN (5)") in text


def _marks(tree):
    yield from tree["marks"]
    for child in tree["children"]:
        yield from _marks(child)


def test_inspect_shows_names_uuid_and_text():
    text, page = _inspected(
        "mysql_serialization", SAMPLES / "mysql_serialization/binlog.000001.binlog"
    )
    assert "type_code = GTID_TAGGED_LOG_EVENT (42)" in text
    assert 'body.uuid = "896e7882-18fe-11ef-ab88-22222d34d411"' in text
    assert "body.uuid[" not in text  # one row, not sixteen
    assert 'server_version = "9.2.0"' in text
    assert "896e7882-18fe-11ef-ab88-22222d34d411" in page and "GTID_TAGGED_LOG_EVENT (42)" in page
    text, page = _inspected("ticdc_craft", SAMPLES / "ticdc_craft/row_batch.bin")
    assert 'values[1]  status: "NEW"' in text
    assert "types[1]  status: VARCHAR (15)" in text and "VARCHAR (15)" in page
    assert "flags[0]  id: BINARY|HANDLE_KEY|PRIMARY_KEY|UNSIGNED (139)" in text


def test_inspect_html_mark_labels_are_clean():
    _, page = _inspected("ticdc_craft", SAMPLES / "ticdc_craft/row_batch.bin")
    data = json.loads(
        page.split('<script id="data" type="application/json">')[1].split("</script>")[0]
    )
    marks = list(_marks(data["tree"]))
    assert marks
    for mark in marks:  # the label once, the value without it
        assert not mark["role"].endswith((":", "->")) and "<" not in mark["role"]
        assert not mark["value"].startswith(mark["role"]) or not mark["role"], mark
    labelled = {(m["role"], m["value"]) for m in marks}
    assert ("status: delta +1", "3") in labelled  # was `<status: delta +1 ->> status: ...`
    assert ("status", '"NEW"') in labelled
    assert ("count", "7") in labelled
    assert "row(m, it.mark.role," in page  # no "<" + role + ">" around the label


def test_inspect_shows_a_thrift_uuid_as_its_text():
    import uuid

    from generated import thrift_compact as tc
    from generator.cli import inspect as insp

    token = uuid.UUID("6b25c293-63c6-4c30-97c0-34083266af3e")
    data = tc.build(tc.User(id=1, name="a", token=token), "User")
    text = insp.plain_text(tc.trace(data, "User"), fmt="thrift_compact", record="User")
    assert f'token = "{token}"' in text and "UUID(" not in text
    assert tc.to_dict(tc.parse(data, "User"))["token"] == str(token)


# -- the spec keys are checked on load -------------------------------------------------------

SPEC_MISTAKES = {
    "open without enum": (
        "        logical: unix_millis\n",
        "        open: true\n",
        "goes with enum",
    ),
    "a uuid of 8 bytes": ("        logical: unix_millis\n", "        logical: uuid\n", "16 bytes"),
    "a time on text": (
        "        size: s32\n        doc: Column name,",
        "        size: s32\n        logical: unix_seconds\n        doc: Column name,",
        "integer time",
    ),
    "pad on a length-prefixed string": (
        "        size: s32\n        doc: Column name,",
        "        size: s32\n        pad: nul\n        doc: Column name,",
        "fixed size",
    ),
    "an unknown logical type": (
        "        logical: unix_millis\n",
        "        logical: unix_hours\n",
        "unix_hours",
    ),
}


@pytest.mark.parametrize("old, new, message", SPEC_MISTAKES.values(), ids=SPEC_MISTAKES.keys())
def test_readable_spec_keys_are_validated(tmp_path, old, new, message):
    from generator.emit.generate import render_spec
    from runtime.core.errors import SpecError

    text = (ROOT / "specs/plainbuffer.yaml").read_text()
    assert old in text, old
    path = tmp_path / "plainbuffer.yaml"
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(SpecError, match=message):
        render_spec(path)


_PADDED_SPEC = """\
format: padcheck
title: pad coverage
doc: A NUL-padded fixed-size string in a record every path reads and writes.
endian: le
default_record: frame
records:
  frame:
    doc: A frame.
    fields:
      - {name: version, type: str, size: 8, encoding: ascii, pad: nul, doc: padded text}
      - {name: n, type: u8, doc: a number after it}
      - {name: crc, type: u32, doc: over the padded bytes, checksum: {algorithm: crc32, over: [version, n]}}
"""


def test_every_path_trims_and_pads_a_padded_string(tmp_path):
    import textwrap
    import zlib

    from hypothesis import given, settings

    from generator.emit.generate import render_spec
    from tests.test_generator import load_module

    path = tmp_path / "padcheck.yaml"
    path.write_text(textwrap.dedent(_PADDED_SPEC))
    _, text = render_spec(path)
    module = load_module("padcheck_generated", text, tmp_path)
    assert "frame" in module.QUICK_READERS and "frame" in module.FAST_WRITERS
    for raw in (b"9.2.0\0\0\0", b"9.2\0x\0\0\0", b"\0" * 8, b"12345678"):
        data = raw + b"\x05" + zlib.crc32(raw + b"\x05").to_bytes(4, "little")
        quick, _ = module.QUICK_READERS["frame"][0](data, 0, len(data), module._LIMITS)
        for model in (module.parse(data), module.parse_construct(data), quick):
            assert model.version == raw.rstrip(b"\0").decode()
            assert module.build(model) == module.build_construct(model) == data

    @settings(max_examples=50, deadline=None)
    @given(model=module.strategies("frame"))
    def round_trip(model):
        data = module.build(model)
        assert module.parse(data) == module.parse_construct(data)
        assert (module.parse(data).version, module.parse(data).n) == (model.version, model.n)

    round_trip()


def test_unnamed_flag_bits_stay_a_number_in_the_list_and_round_trip():
    from generated.models.ticdc_types import Column, RowChangedEvent

    ev = RowChangedEvent(1 << 18, "s", "t", new=[Column("c", 3, 0x1041, 5)])
    data = craft.build(craft.Message(events=[ev]))
    form = _through_json(craft.to_dict(craft.parse(data)))
    assert form["events"][0]["new"][0]["flags"] == ["BINARY", "NULLABLE", 0x1000]
    assert craft.build(craft.from_dict(form)) == data
