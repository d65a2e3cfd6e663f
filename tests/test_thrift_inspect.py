"""``wirespec inspect thrift_compact``: the traced readers report every field header,
value, length, container header, element, nested struct, skipped field, stop byte and the
message envelope; the untraced readers agree with them on every input."""

from __future__ import annotations

import itertools
import random
import uuid

import pytest

from generated import thrift_compact as tc
from generator.cli import inspect as insp
from generator.cli.main import main
from runtime.core.errors import DecodeError
from runtime.formats import thrift_compact as rt

USER = tc.User(
    id=5,
    name="bob",
    status=tc.Status.SUSPENDED,
    admin=True,
    age=30,
    logins=300,
    score=1.5,
    avatar=b"\x01\x02",
    token=uuid.UUID("6b25c293-63c6-4c30-97c0-34083266af3e"),
    tags=["a", "b"],
    addresses=[tc.Address("Main 1", "Springfield", "123"), tc.Address("x", "y")],
    prefs={"k": "v", "lang": "en"},
    shard=7,
)
REPLY = tc.Message("get_user", tc.MessageType.REPLY, 9, tc.get_user_result(success=USER))
CALL = tc.Message("get_user", tc.MessageType.CALL, -3, tc.get_user_args(tc.Lookup(name="bob")))
MODELS = [
    ("User", USER),
    ("User", tc.User(id=-(2**63), name="", admin=False)),
    ("Address", tc.Address("s", "c", "z")),
    ("NotFound", tc.NotFound(tc.Lookup(id=2**40))),
    ("get_user_result", tc.get_user_result(nf=tc.NotFound(tc.Lookup(name="n")))),
    ("TApplicationException", tc.TApplicationException("boom", 6)),
]


def _value_at(model, path: str):
    """The model's value at a span path (``success.addresses[1].city``, ``prefs[0].key``)."""
    v = model
    for part in path.replace("[", ".[").split("."):
        if not part:
            continue
        if part.startswith("["):
            i = int(part[1:-1])
            v = list(v.items())[i] if isinstance(v, dict) else v[i]
        elif isinstance(v, tuple) and part in ("key", "value"):
            v = v[part == "value"]
        else:
            v = getattr(v, part)
    return v


def _check_cover(result, data):
    assert result.error is None, result.error
    leaves = result.leaves()
    assert leaves[0].start == 0 and leaves[-1].end == len(data)
    for a, b in itertools.pairwise(leaves):
        assert a.end == b.start, (a, b)
    return leaves


@pytest.mark.parametrize("record,model", MODELS + [("message", REPLY)], ids=lambda v: str(v)[:20])
def test_spans_cover_every_byte_once_with_path_and_value(record, model):
    data = tc.build(model)
    body = "get_user_result" if record == "message" else None
    result = tc.trace(data, record, body=body)
    leaves = _check_cover(result, data)
    assert result.model == tc.parse(data, record, body=body) == model
    roles = set()
    for span in leaves:
        roles.add(span.role)
        raw = data[span.start : span.end]
        if span.path == "protocol_id":
            assert raw == b"\x82" == bytes([span.value])
        elif span.role == "value":
            assert _value_at(model, span.path) == span.value, span
        elif span.role == "field header":  # short form: delta and type; long: type, id
            assert raw[0] & 0x0F and (len(raw) == 1) == (raw[0] > 0x0F), span
        elif span.role == "stop":
            assert raw == b"\x00"
        elif span.role in ("length", "count"):
            assert span.value == len(_value_at(model, span.path)) or span.role == "length"
    assert "value" in roles and "stop" in roles
    assert insp.coarse_paths(result) == []


def test_user_reply_spans():
    data = tc.build(REPLY)
    result = tc.trace(data, "message", body="get_user_result")
    spans = {(s.path, s.role): (s.start, s.end, s.value) for s in result.leaves()}
    assert spans["protocol_id", "value"] == (0, 1, 0x82)
    assert spans["type", "value"] == (1, 2, tc.MessageType.REPLY)
    assert spans["seqid", "value"] == (2, 3, 9)
    assert spans["name", "length"] == (3, 4, 8)
    assert spans["name", "value"] == (4, 12, "get_user")
    # field 0 (success) has a long-form header: the STRUCT type byte and zigzag id 0
    assert spans["body.success", "field header"] == (12, 14, 0)
    assert data[12:14] == b"\x0c\x00"
    s, e, v = spans["body.success.name", "value"]
    assert data[s:e] == b"bob" and v == "bob"
    # a bool field is one byte, header and value at once
    s, e, v = spans["body.success.admin", "value"]
    assert e - s == 1 and v is True
    s, e, v = spans["body.success.prefs", "types"]
    assert v == "BINARY/BINARY" and e - s == 1
    assert spans["body.success.prefs[1].key", "value"][2] == "lang"
    assert spans["body.success.addresses[1].city", "value"][2] == "y"
    assert spans["body.success.tags", "count"][2] == 2
    s, e, v = spans["body.success.shard", "field header"]
    assert v == 16 and data[s:e] == b"\x44"  # delta 4 after id 12
    assert spans["body.success.token", "value"][1] - spans["body.success.token", "value"][0] == 16
    assert data[spans["body", "stop"][0]] == 0


def test_unknown_fields_are_spanned_as_skipped_values():
    # Address with an unknown field 20 (list<i32> [1, -1]) and a long-form bool 30
    data = bytes.fromhex("180161" "180162" "0928" "25" "0201" "013c" "00")
    result = tc.trace(data, "Address")
    leaves = _check_cover(result, data)
    got = [(s.path, s.role, data[s.start : s.end].hex(), s.value) for s in leaves]
    assert got == [
        ("street", "field header", "18", 1),
        ("street", "length", "01", 1),
        ("street", "value", "61", "a"),
        ("city", "field header", "18", 2),
        ("city", "length", "01", 1),
        ("city", "value", "62", "b"),
        ("#20", "field header", "0928", 20),
        ("#20", "count", "25", 2),
        ("#20[0]", "value", "02", 1),
        ("#20[1]", "value", "01", -1),
        ("#30", "value", "01", True),  # long form: the type byte (true), then the id
        ("#30", "field id", "3c", 30),
        ("", "stop", "00", None),
    ]
    assert result.model == tc.parse(data, "Address")
    assert result.model.wire_layout.unknown == (
        rt.UnknownField(20, tc.CompactType.LIST, bytes.fromhex("250201")),
        rt.UnknownField(30, tc.CompactType.BOOLEAN_TRUE, b""),
    )
    assert result.model.wire_layout.long_headers == (3,)  # 30 after 20 fits a delta
    assert tc.build(result.model) == data


def test_raw_message_body_without_a_schema():
    data = tc.build(CALL)
    result = tc.trace(data, "message")
    leaves = _check_cover(result, data)
    paths = [s.path for s in leaves if s.role == "value"]
    assert paths == ["protocol_id", "type", "seqid", "name", "body.#1.#2"]
    assert result.model == tc.parse(data)


@pytest.mark.parametrize(
    "cut,path",
    [
        (lambda d: d[: d.index(b"Springfield") + 3], "body.success.addresses[0].city"),
        (lambda d: d[:1] + b"\x42" + d[2:], "version"),
        (lambda d: d.replace(b"Springfield", b"Spring\xfffield"), "body.success.addresses[0].city"),
        (lambda d: d.replace(b"\x1a\x28", b"\x1a\x25", 1), "body.success.tags"),
    ],
)
def test_corrupt_message_names_path_and_offset(cut, path):
    data = tc.build(REPLY)
    bad = cut(data)
    with pytest.raises(DecodeError) as info:
        tc.parse(bad, "message", body="get_user_result")
    result = tc.trace(bad, "message", body="get_user_result")
    err = result.error
    assert (err.path, err.offset, err.message) == (
        info.value.path,
        info.value.offset,
        info.value.message,
    )
    assert err.path == path
    if result.failing:  # the innermost open node is the failing field
        assert result.failing[-1].path == path
    text = insp.plain_text(result, fmt="thrift_compact", record="message")
    assert f"field:  {path}" in text and f"offset: {err.offset}" in text


def _outcome(fn, *args, **kw):
    try:
        return ("ok", fn(*args, **kw))
    except DecodeError as err:
        return ("error", err.path, err.offset, err.message)


def test_fast_and_traced_readers_agree_on_mutated_input():
    """The in-order path of the untraced readers against the general loop (the traced
    readers have none): the same model or the same error on every mutation."""
    rng = random.Random(8)
    seeds = [(r, tc.build(m)) for r, m in MODELS] + [("message", tc.build(REPLY))]
    for _ in range(1500):
        record, data = rng.choice(seeds)
        body = "get_user_result" if record == "message" else None
        data = bytearray(data)
        for _ in range(rng.randrange(1, 3)):
            op = rng.randrange(3)
            i = rng.randrange(len(data))
            if op == 0:
                data[i] = rng.randrange(256)
            elif op == 1:
                del data[i:]
            else:
                data[i:i] = bytes([rng.randrange(256)])
            if not data:
                data = bytearray(b"\x00")
        data = bytes(data)
        fast = _outcome(tc.parse, data, record, body=body)
        traced = tc.trace(data, record, body=body)
        slow = ("ok", traced.model) if traced.error is None else (
            "error", traced.error.path, traced.error.offset, traced.error.message
        )  # fmt: skip
        assert fast == slow, (record, data.hex())
        if traced.error is None:
            _check_cover(traced, data)


def test_cli_shows_fields(tmp_path, capsys):
    path = tmp_path / "user.bin"
    path.write_bytes(tc.build(USER))
    assert main(["inspect", "thrift_compact", str(path), "--record", "User"]) == 0
    out = capsys.readouterr().out
    assert "addresses[0].city" in out and '"Springfield"' in out
    assert "field header" in out and "note:" not in out
