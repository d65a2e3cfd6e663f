"""``wirespec inspect`` on TiCDC Open Protocol: the JSON documents split into member spans.

Issue #10: on the seed examples the spans cover every byte of the Kafka key and value
exactly once, each labelled with its field path (``events[i].key.ts``,
``events[i].value.u.<column>.v``) and value.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest

from generated.models.ticdc_types import Column, DdlEvent, RowChangedEvent
from generator.cli import inspect as insp
from runtime.core.errors import WirespecError

op = pytest.importorskip("generated.ticdc_open_protocol")

VECTORS = Path(__file__).resolve().parent / "data" / "vectors" / "ticdc_open_protocol.json"


def _vectors():
    if not VECTORS.exists():
        pytest.skip(f"{VECTORS} is not there")
    out = []
    for v in json.loads(VECTORS.read_text())["vectors"]:
        hexes = v.get("hex")
        if isinstance(hexes, dict) and hexes.get("key") is not None:
            out.append((v, bytes.fromhex(hexes["key"]), bytes.fromhex(hexes.get("value") or "")))
        elif "rule" in v.get("generated", {}) and v["name"] == "upstream_case_set_lang_event":
            out.append((v, *_lang_event()))
    return out


def _lang_event() -> tuple[bytes, bytes]:
    """The vector's ``generated.rule``: 1024 events in one message."""
    pairs = []
    for i in range(1024):
        key = {"ts": 1, "scm": "a", **({"tbl": "8" * i} if i else {}), "t": 1}
        value = {"u": {"col1": {"t": 1, "f": 0, "v": "8" * i}}}
        pairs.append(tuple(json.dumps(d, separators=(",", ":")).encode() for d in (key, value)))
    return op_join(pairs)


def op_join(pairs):
    from runtime.formats.open_protocol_frames import join_frames

    return join_frames(pairs)


def _traces(key: bytes, value: bytes):
    parts = insp.trace_kafka(op, key, value)
    assert [(c, r) for c, r, _ in parts] == [("key", "key_frames"), ("value", "value_frames")]
    return {c: t for c, _, t in parts}


def _assert_tiles(leaves, size: int, name: str) -> None:
    pos = 0
    for span in leaves:
        assert span.start == pos, (name, span)
        assert span.end > span.start, (name, span)
        pos = span.end
    assert pos == size, name


def _by_path(trace, role="value"):
    return {s.path: s for s in trace.leaves() if s.role == role}


def test_every_vector_covers_both_streams_exactly_once():
    checked = 0
    for v, key, value in _vectors():
        name = v["name"]
        try:
            message = op.parse_pair(key, value)
        except WirespecError:
            continue
        traces = _traces(key, value)
        for column, data in (("key", key), ("value", value)):
            t = traces[column]
            assert t.error is None and t.model == message, name
            leaves = t.leaves()
            _assert_tiles(leaves, len(data), f"{name} {column}")
            for span in leaves:
                raw = data[span.start : span.end]
                if span.path == "version":
                    assert span.value == 1 and raw == bytes(7) + b"\1"
                elif span.role == "length":
                    assert re.fullmatch(r"events\[\d+\]", span.path), span
                    assert int.from_bytes(raw, "big") == span.value
                elif span.role == "syntax":
                    assert raw.decode() == span.value and raw.strip() in b"{}[],:", span
                elif span.role == "key":
                    member = span.path.rsplit(".", 1)[-1]
                    assert raw.rstrip(b": ") == json.dumps(member).encode(), span
                else:
                    assert span.role == "value", span
                    assert re.match(rf"events\[\d+\]\.{column}\.", span.path), span
                    assert json.loads(raw) == span.value, span
            # every key of a document is reported, with its documented value
            for i, ev in enumerate(v.get("decoded", {}).get("events", [])):
                doc = ev.get(column) or {}
                for k, want in _flatten(doc, f"events[{i}].{column}"):
                    assert _by_path(t)[k].value == want, (name, k)
        checked += 1
    assert checked >= 15


def _flatten(doc, prefix):
    for k, v in doc.items():
        if isinstance(v, dict):
            yield from _flatten(v, f"{prefix}.{k}")
        else:
            yield f"{prefix}.{k}", v


def test_seed_row_labels_and_values():
    v, key, value = next(x for x in _vectors() if x[0]["name"] == "seed_log_05_row")
    traces = _traces(key, value)
    keys, values = _by_path(traces["key"]), _by_path(traces["value"])
    ts = keys["events[0].key.ts"]
    assert int(key[ts.start : ts.end]) == v["decoded"]["events"][0]["key"]["ts"] == ts.value
    assert key[ts.start - 5 : ts.start] == b'"ts":'
    assert [s.path for s in traces["key"].leaves() if s.role == "key"] == [
        "events[0].key.ts",
        "events[0].key.scm",
        "events[0].key.tbl",
        "events[0].key.t",
    ]
    col = values["events[0].value.u.val.v"]
    assert value[col.start : col.end] == b'"YWE="' and col.value == "YWE="
    assert values["events[0].value.u.id.v"].value == 1
    assert values["events[0].value.u.id.h"].value is True
    assert values["events[0].value.u.val.t"].value == 15
    # the frame and the document are headers with the decoded event
    text = insp.plain_text(traces["value"])
    assert 'events[0].value.u.val.v = "YWE="' in text
    assert "events[0]  length 61" in text
    assert "note:" not in text  # nothing is left in one piece


def test_ddl_value_members():
    ev = DdlEvent(7, "s", "t", 3, "CREATE TABLE t(id int)")
    key, value = op.build_pair(op.parse_pair(*op.build_pair(op.Message([ev]))))
    values = _by_path(_traces(key, value)["value"])
    assert values["events[0].value.q"].value == "CREATE TABLE t(id int)"
    assert values["events[0].value.t"].value == 3


def test_non_ascii_text_keeps_byte_offsets():
    cols = [
        Column("名前", 15, 0, "héllo wörld ✓".encode()),
        Column("z", 252, 1, b"\xff\x00"),
        Column("ñ", 3, 0, 5),
    ]
    ev = RowChangedEvent(commit_ts=9, schema="sché", table="ta€", new=cols)
    key, value = next(op.encode_events([ev]))
    traces = _traces(key, value)
    for column, data in (("key", key), ("value", value)):
        _assert_tiles(traces[column].leaves(), len(data), column)
    keys, values = _by_path(traces["key"]), _by_path(traces["value"])
    scm = keys["events[0].key.scm"]
    assert key[scm.start : scm.end].decode() == '"sché"' and scm.value == "sché"
    tbl = keys["events[0].key.tbl"]
    assert json.loads(key[tbl.start : tbl.end]) == "ta€"
    v = values["events[0].value.u.名前.v"]
    assert json.loads(value[v.start : v.end]) == "héllo wörld ✓" == v.value
    n = values["events[0].value.u.ñ.v"]
    assert value[n.start : n.end] == b"5"
    name = next(s for s in traces["value"].leaves() if s.path == "events[0].value.u.名前")
    assert value[name.start : name.end] == '"名前":'.encode()


def test_corrupt_json_names_the_path_and_offset():
    good_key, good_value = op.build_pair(
        op.Message([DdlEvent(7, "s", "t", 3, "CREATE TABLE t(id int)")])
    )
    # a key document that stops in the middle of a member
    bad = b'{"ts":7,"scm":}'
    key = good_key[:8] + len(bad).to_bytes(8, "big") + bad
    with pytest.raises(WirespecError) as raised:
        op.parse_pair(key, good_value)
    traces = _traces(key, good_value)
    err = traces["key"].error
    assert traces["value"].error is None
    assert (err.path, err.offset) == (raised.value.path, raised.value.offset)
    assert err.path.startswith("events[0].key") and 16 <= err.offset <= len(key)
    text = insp.plain_text(traces["key"])
    assert f"field:  {err.path}\n" in text and f"offset: {err.offset}\n" in text
    # the document the walker cannot follow is one leaf; nothing overlaps
    leaves = traces["key"].leaves()
    for a, b in itertools.pairwise(leaves):
        assert a.end <= b.start
    # a bad value inside a well-formed document: the member is named
    doc = b'{"u":{"id":{"t":3,"f":0,"v":true}}}'
    rk = b'{"ts":1,"t":1}'
    key = good_key[:8] + len(rk).to_bytes(8, "big") + rk
    value = len(doc).to_bytes(8, "big") + doc
    traces = _traces(key, value)
    err = traces["value"].error
    assert err is not None and err.path == "events[0].value.u.id.v"
    _assert_tiles(traces["value"].leaves(), len(value), "value")


def test_no_recorder_no_walk(monkeypatch):
    """Decoding never calls the span walker."""
    import runtime.formats.json_spans as js

    def boom(*a, **k):
        raise AssertionError("walked without a recorder")

    monkeypatch.setattr(js, "report", boom)
    _, key, value = next(x for x in _vectors() if x[0]["name"] == "seed_log_05_row")
    assert op.decode_message(key, value)


def test_html_of_a_kafka_pair_is_a_page_per_column(tmp_path, capsys):
    """``--html OUT``: the value's page at OUT, the key's beside it (OUT.key.html), each
    with a span per byte of its own column."""
    from generator.cli.main import main

    sample = Path(__file__).resolve().parents[1] / "samples" / "ticdc_open_protocol" / "update"
    out = tmp_path / "pair.html"
    assert main(["inspect", "ticdc_open_protocol", f"{sample}.value", "--html", str(out)]) == 0
    capsys.readouterr()
    for page, column in ((out, "value"), (tmp_path / "pair.key.html", "key")):
        text = page.read_text()
        assert f"ticdc_open_protocol {column}" in text
        assert text.count('class="b ') == len(sample.with_suffix(f".{column}").read_bytes())
