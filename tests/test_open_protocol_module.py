"""The generated Open Protocol module: its contract over every vector, the tables it hands
the runtime, the Kafka-pair hook, random round trips through the JSON form, and the CLI."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_open_protocol import (
    BAD,
    FRAMED,
    canonical,
    events,
    expected_event,
    frame,
    u64,
)

import generated.ticdc_open_protocol as op
from generated.models.ticdc_types import Column, RowChangedEvent
from generator.emit.generate import render_spec
from runtime.core.errors import DecodeError, EncodeError
from runtime.formats import ticdc_rows
from tests.test_generator import load_module

ROOT = Path(__file__).resolve().parents[1]
SEED = [v for v in FRAMED if v["name"].startswith("seed_log_")]


def pair(vector) -> tuple[bytes, bytes]:
    return bytes.fromhex(vector["hex"]["key"]), bytes.fromhex(vector["hex"]["value"])


# ---------------------------------------------------------------- the contract, per vector


@pytest.mark.parametrize("vector", FRAMED, ids=[v["name"] for v in FRAMED])
def test_vector_through_the_module(vector):
    key, value = pair(vector)
    model = op.parse_pair(key, value)
    assert model.events == [expected_event(e) for e in vector["decoded"]["events"]]
    assert model.layout == ("legacy" if vector.get("legacy_layout") else "tiflow")
    assert op.build_pair(model) == (key, value)
    # the JSON form is stable, exact and carries the layout: JSON text -> same bytes
    again = op.from_dict(json.loads(json.dumps(op.to_dict(model))), "message")
    assert again == model and op.build_pair(again) == (key, value)
    assert op.parse_kafka(key, value) == model


def test_all_fourteen_seed_log_lines_are_vectors():
    assert len(SEED) == 14
    kinds = [op.parse_pair(*pair(v)).events[0].op for v in SEED]
    assert kinds.count("resolved") == 4 and kinds.count("ddl") == 2
    assert kinds.count("insert") == 6 and kinds.count("delete") == 2


def test_the_seed_row_in_json_form():
    doc = op.to_dict(op.parse_pair(*pair(SEED[4])))
    assert doc["layout"] == "legacy"
    [ev] = doc["events"]
    assert ev["commit_ts"] == "415508878783938562"  # above 2**53: a string, exact
    assert ev["new"] == [  # names for the codes, text columns as text
        {"name": "id", "type": "LONG", "flags": ["HANDLE_KEY"], "value": 1},
        {"name": "val", "type": "VARCHAR", "flags": [], "value": "aa"},
    ]


def test_frame_records_parse_and_build_single_byte_strings():
    key, value = pair(next(v for v in FRAMED if v["name"] == "upstream_case_set_simple"))
    keys = op.parse(key, "key_frames")
    values = op.parse(value, "value_frames")
    assert len(keys.keys) == len(values.values) == 4
    assert json.loads(keys.keys[3]) == {"ts": 4, "scm": "a", "tbl": "c", "ptn": 6, "t": 1}
    assert op.build(keys, "key_frames") == key and op.build(values, "value_frames") == value
    with pytest.raises(DecodeError, match="parse_pair"):
        op.parse(value)  # the default record is the pair
    with pytest.raises(DecodeError) as info:
        op.parse(u64(2) + key[8:], "key_frames")
    assert info.value.offset == 0


def test_spark_contract_is_the_shared_ticdc_shape():
    assert op.SPARK_INPUT == ("key", "value")
    assert op.spark_schema() == ticdc_rows.spark_schema()
    model = op.parse_pair(*pair(SEED[4]))
    assert list(op.to_rows(model)) == [ticdc_rows.to_row(e) for e in model.events]
    assert op.encode_events is not None and op.decode_message(*pair(SEED[1]))[0].op == "resolved"


# ---------------------------------------------------------------- the spec drives the codec


def edited_module(tmp_path: Path, name: str, old: str, new: str):
    """The generated module of the Open Protocol spec with ``old`` replaced by ``new``."""
    for imported in ("mysql_types.yaml", "ticdc_types.yaml"):
        shutil.copy(ROOT / "specs" / imported, tmp_path / imported)
    text = (ROOT / "specs" / "ticdc_open_protocol.yaml").read_text()
    assert old in text, old
    path = tmp_path / "ticdc_open_protocol.yaml"
    path.write_text(text.replace(old, new))
    return load_module(name, render_spec(path)[1], tmp_path)


def test_rendering_table_comes_from_the_spec(tmp_path):
    assert op.COLUMN_TYPE_RENDERING[op.ColumnType.BLOB] == "base64"
    assert op.COLUMN_TYPE_RENDERING[op.ColumnType.VARCHAR] == "string"
    edited = edited_module(
        tmp_path,
        "op_varchar_base64",
        "VARCHAR: {rendering: string}",
        "VARCHAR: {rendering: base64}",
    )
    event = RowChangedEvent(1, new=[Column("c", 15, 0, b"aa")])
    assert op.encode_event(event)[1] == b'{"u":{"c":{"t":15,"f":0,"v":"aa"}}}'
    assert edited.encode_event(event)[1] == b'{"u":{"c":{"t":15,"f":0,"v":"YWE="}}}'


def test_key_order_and_omission_come_from_the_spec(tmp_path):
    event = RowChangedEvent(7, "s", "t", partition=0, new=[], row_id=5)
    assert op.encode_event(event)[0] == b'{"ts":7,"scm":"s","tbl":"t","rid":5,"ptn":0,"t":1}'
    text = (ROOT / "specs" / "ticdc_open_protocol.yaml").read_text()
    rid, ptn, ccl = (
        next(line for line in text.splitlines(True) if line.lstrip().startswith("- {name: " + n))
        for n in ("rid", "ptn", "ccl")
    )
    # pingcap/ticdc's order: ts, scm, tbl, t, ohk, ccl, ptn, rid
    old = rid + ptn + text.split(rid + ptn)[1].split(ccl)[0] + ccl
    new = old[len(rid + ptn) :] + ptn + rid
    edited = edited_module(tmp_path, "op_pingcap_order", old, new)
    assert edited.encode_event(event)[0] == b'{"ts":7,"scm":"s","tbl":"t","t":1,"ptn":0,"rid":5}'
    assert "def _json_write_event_key" in (tmp_path / "op_pingcap_order.py").read_text()


# ---------------------------------------------------------------- random round trips


def message_of(evs, layout="tiflow"):
    return op.Message(list(evs), layout)


@settings(max_examples=80, deadline=None)
@given(st.lists(events, max_size=5))
def test_random_messages_round_trip_through_bytes_and_the_json_form(evs):
    key, value = op.build_pair(message_of(evs))
    decoded = op.parse_pair(key, value)
    assert canonical(decoded.events) == canonical(evs)
    assert op.build_pair(decoded) == (key, value)
    text = json.dumps(op.to_dict(decoded), allow_nan=False)
    assert op.build_pair(op.from_dict(json.loads(text), "message")) == (key, value)


def test_extremes_of_every_column_kind_round_trip():
    cols = [
        Column("u64max", 8, 0x80, 2**64 - 1),
        Column("i64min", 8, 0, -(2**63)),
        Column("null", 3, 0x40, None),
        Column("bin", 253, 0x01, b'\x00\x01\x7f\x80\xff\n"\\'),
        Column("text", 15, 0, "naïve 😀 <&>".encode()),
        Column("blob", 252, 0x01, bytes(range(256))),
        Column("f32", 4, 0x01, -0.0),
        Column("f64", 5, 0x01, 5e-324),
        Column("dec", 246, 0x01, "-0.000100"),
        Column("bit", 16, 0x81, 2**64 - 1),
        Column("json", 245, 0, '{"a": [1, "\\u2028"]}'),
        Column("tiny_as_text", 1, 0, "aa"),  # upstream fixtures do this
        Column("geom", 255, 0, None),
    ]
    model = message_of([RowChangedEvent(2**64 - 1, "数据", "t", new=cols, old=cols[:3])])
    key, value = op.build_pair(model)
    again = op.from_dict(json.loads(json.dumps(op.to_dict(op.parse_pair(key, value)))), "message")
    assert canonical(again.events) == canonical(model.events)
    assert op.build_pair(again) == (key, value)


def test_invalid_utf8_in_a_binary_string_survives_and_in_text_is_an_escaped_fffd():
    evs = [RowChangedEvent(1, new=[Column("b", 254, 1, b"\xff\xfe"), Column("t", 254, 0, b"\xfe")])]
    key, value = op.build_pair(message_of(evs))
    assert b'"v":"\\ufffd"' in value  # what Go writes for an invalid byte
    [ev] = op.parse_pair(key, value).events  # the byte is lost; 0xFF stands for it
    assert ev.new == [Column("b", 254, 1, b"\xff\xfe"), Column("t", 254, 0, b"\xff")]


BAD_FORMS = {
    "not an object": ([], ""),
    "unknown layout": ({"layout": "canal", "events": []}, "layout"),
    "unknown event type": ({"events": [{"type": "upsert", "commit_ts": 1}]}, "events[0].type"),
    "ts not a number": (
        {"events": [{"type": "resolved", "commit_ts": "x"}]},
        "events[0].commit_ts",
    ),
    "a boolean as a value": (
        {
            "events": [
                {"type": "row", "commit_ts": 1, "new": [{"name": "c", "type": 15, "value": True}]}
            ]
        },
        "events[0].new[0].value",
    ),
    "an unknown type name": (
        {
            "events": [
                {
                    "type": "row",
                    "commit_ts": 1,
                    "new": [{"name": "c", "type": "TEXTY", "value": "x"}],
                }
            ]
        },
        "events[0].new[0].type",
    ),
    "op disagrees": (
        {"events": [{"type": "row", "op": "delete", "commit_ts": 1, "new": []}]},
        "events[0].op",
    ),
}


@pytest.mark.parametrize("doc, path", BAD_FORMS.values(), ids=BAD_FORMS.keys())
def test_bad_json_forms_raise_encode_error_with_path(doc, path):
    with pytest.raises(EncodeError) as info:
        op.from_dict(doc, "message")
    assert info.value.path == path


def test_build_pair_refuses_what_is_not_a_message():
    with pytest.raises(EncodeError):
        op.build_pair([])
    with pytest.raises(EncodeError):
        op.build(message_of([]))


# ---------------------------------------------------------------- the CLI


def wirespec(*args, stdin: bytes = b""):
    return subprocess.run(
        [sys.executable, "-m", "generator.cli.main", *map(str, args)],
        input=stdin,
        capture_output=True,
        check=False,
        cwd=ROOT,
        timeout=60,
    )


def test_cli_decode_with_key_and_encode_with_key_out(tmp_path):
    key, value = pair(next(v for v in FRAMED if v["name"] == "upstream_case_set_expand_char"))
    (tmp_path / "k").write_bytes(key)
    (tmp_path / "v").write_bytes(value)
    out = wirespec("decode", "ticdc_open_protocol", "--key", tmp_path / "k", tmp_path / "v")
    assert out.returncode == 0, out.stderr
    (tmp_path / "d.json").write_bytes(out.stdout)
    assert json.loads(out.stdout)["events"][0]["schema"] == "a"
    done = wirespec(
        "encode", "ticdc_open_protocol", tmp_path / "d.json",
        "-o", tmp_path / "v2", "--key-out", tmp_path / "k2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "k2").read_bytes() == key and (tmp_path / "v2").read_bytes() == value


CLI_BAD = {
    "truncated frame": ("truncated key length", None),
    "version other than 1": ("version 2", None),
    "length beyond the data": ("value length beyond data", None),
    "key/value counts disagree": ("fewer values", None),
    "malformed JSON": ("value not JSON", None),
    "wrong JSON type": ("int v is a float", None),
    "ts above 2**64": ("ts above 2**64", None),
}


DRIVER = """
import contextlib, io, json, sys
from generator.cli.main import main
out = []
for argv in json.loads(sys.argv[1]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = main(argv)  # an escaping exception fails the whole run with a traceback
    out.append([status, err.getvalue()])
print(json.dumps(out))
"""


def test_cli_bad_input_exits_nonzero_with_offset_and_path(tmp_path):
    runs, expected = [], []
    for i, (case, _) in enumerate(CLI_BAD.values()):
        (key, value), path, offset = BAD[case]
        (tmp_path / f"k{i}").write_bytes(key)
        (tmp_path / f"v{i}").write_bytes(value)
        runs.append(
            [
                "decode",
                "ticdc_open_protocol",
                "--key",
                str(tmp_path / f"k{i}"),
                str(tmp_path / f"v{i}"),
            ]
        )
        expected.append((path, offset))
    out = subprocess.run(
        [sys.executable, "-c", DRIVER, json.dumps(runs)],
        capture_output=True, cwd=ROOT, timeout=60, check=False,
    )  # fmt: skip
    assert out.returncode == 0 and b"Traceback" not in out.stderr, out.stderr
    for (status, err), (path, offset) in zip(json.loads(out.stdout), expected, strict=True):
        assert status != 0 and f"offset {offset}" in err and path in err, err


def test_cli_needs_the_key_for_open_protocol(tmp_path):
    (tmp_path / "v").write_bytes(frame(b"{}"))
    out = wirespec("decode", "ticdc_open_protocol", tmp_path / "v")
    assert out.returncode != 0 and b"--key" in out.stderr and b"Traceback" not in out.stderr
    out = wirespec("decode", "plainbuffer", "--key", tmp_path / "v", tmp_path / "v")
    assert out.returncode != 0 and b"Traceback" not in out.stderr


def test_year_is_signed_even_when_the_column_says_unsigned():
    """MySQL marks YEAR columns UNSIGNED, but TiDB's mounter hands the codec an int64: the
    spec's `sint` rendering ignores the flag, as Craft's YEAR does (a -1 survives both)."""
    assert op.COLUMN_TYPE_RENDERING[op.ColumnType.YEAR] == "sint"
    event = RowChangedEvent(7, "s", "t", new=[Column("y", 13, 0x80, -1)])
    key, value = op.build_pair(op.Message([event]))
    assert b'"v":-1' in value
    assert op.parse_pair(key, value).events == [event]


def test_document_code_refuses_names_it_would_have_to_escape():
    # spec text reaches the generated readers and writers only as literals; a key name JSON
    # would escape, or a field that is no identifier, is refused, never spliced in
    from generator.emit.json_documents import _identifier, _json_name

    assert _json_name("ts") == '"ts":'
    for name in ('a"b', "a\\b", "<x>", "é", "a\nb"):
        with pytest.raises(ValueError):
            _json_name(name)
    for field in ("commit ts", "import", "x)"):
        with pytest.raises(ValueError):
            _identifier(field, "field")
