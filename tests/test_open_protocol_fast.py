"""Open Protocol's fast readers agree with its checked readers, on good and bad input.

Decoding tries a fast reader first (the compiled tier when built, whole frames, key
fields, tiflow column maps; JSON through the C scanner directly, without a parse_int hook
unless a -0 may be there) and falls back to the checked reader, which names what is wrong. Here every fast reader is switched off to get the checked result, and the
two must give the same events and layout, or the same error (class, message, offset,
path), on vectors, generated messages and mutations of single JSON members.
"""

from __future__ import annotations

import base64
import json
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_open_protocol import FRAMED, UNLIMITED, events

import runtime.formats.open_protocol as rt_op
from benchmarks import ticdc_craft as craft_bench
from generated.models.ticdc_types import Column, RowChangedEvent
from generated.ticdc_open_protocol import _KAFKA, encode_events
from runtime.core.errors import DecodeError
from runtime.core.limits import Limits
from runtime.formats import gojson
from runtime.formats import open_protocol_frames as op_frames
from runtime.formats import open_protocol_json as op_json
from runtime.formats.open_protocol_frames import join_frames, split_frames

# JSON texts a member may be set to: every JSON kind, and integers at each bound
TOKENS = [
    "null", "true", "false", "0", "-0", "1", "-1", "3", "11", "255", "256", "-0.0", "1.5",
    "1e400", "1e39", "-1e-7", "9223372036854775807", "9223372036854775808",
    "-9223372036854775808", "-9223372036854775809", "18446744073709551615",
    "18446744073709551616", '""', '"YQ=="', '"YQ"', '"@@"', '"abc"', '"\\\\x89\\\\q"',
    '"\\\\x89PNG"', '"\\ud800"', '"2024-11-22"', "[]", "{}", '{"t":3,"f":0,"v":1}',
]  # fmt: skip
MEMBERS = ["t", "f", "h", "v", "x", "ts", "scm", "tbl", "rid", "ptn", "ohk", "ccl", "q"]


def outcome(key: bytes, value: bytes, **limits):
    try:
        message = _KAFKA.parse_pair(key, value, **limits)
    except DecodeError as err:
        return type(err), str(err), err.offset, err.path
    return repr(message)  # repr tells 0 from 0.0 and -0.0, and shows the layout


def checked(key: bytes, value: bytes, **limits):
    """The outcome of a decode with every fast reader switched off."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(_KAFKA, "_read_pair", None)
        m.setattr(rt_op.OpenProtocol, "_tiflow_columns", lambda self, cols: None)
        m.setattr(op_frames, "_whole_frames", lambda key, value, limits: [])
        m.setattr(gojson, "loads", reference_loads)
        return outcome(key, value, **limits)


def assert_agree(key: bytes, value: bytes, **limits):
    assert outcome(key, value, **limits) == checked(key, value, **limits)


# ---------------------------------------------------------------- whole messages


@pytest.mark.parametrize("vector", FRAMED, ids=[v["name"] for v in FRAMED])
def test_vectors(vector):
    assert_agree(bytes.fromhex(vector["hex"]["key"]), bytes.fromhex(vector["hex"]["value"]))


def test_the_benchmark_batch():
    [(key, value)] = encode_events(craft_bench.batch16(), **UNLIMITED)
    assert_agree(key, value)
    for limits in ({"max_count": 15}, {"max_string": 700}, {"max_message_bytes": len(value) - 1}):
        assert_agree(key, value, **limits)


@settings(max_examples=60, deadline=None)
@given(st.lists(events, max_size=5), st.sampled_from(["tiflow", "legacy"]))
def test_generated_messages(evs, layout):
    for key, value in encode_events(evs, layout=layout, max_batch_size=3):
        assert_agree(key, value)


# ---------------------------------------------------------------- one member changed


def _docs(key: bytes, value: bytes) -> list[list[bytes]]:
    return [[key[ks:ke], value[vs:ve]] for ks, ke, vs, ve in split_frames(key, value, Limits())]


def _frame(docs: list[list[bytes]]) -> tuple[bytes, bytes]:
    return join_frames([(k, v) for k, v in docs])


def _dump(obj, raw_at, raw: str) -> str:
    """``obj`` as compact JSON, with the member at path ``raw_at`` written as ``raw``
    (a member added when absent; ``raw`` None deletes it)."""
    if not raw_at:
        return raw
    if not isinstance(obj, dict):
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    head, rest = raw_at[0], raw_at[1:]
    parts = []
    for name, v in {**obj, **({} if head in obj else {head: None})}.items():
        text = (
            _dump(v, rest, raw)
            if name == head
            else json.dumps(v, separators=(",", ":"), ensure_ascii=False)
        )
        if text is not None:
            parts.append(json.dumps(name, ensure_ascii=False) + ":" + text)
    return "{" + ",".join(parts) + "}"


def _paths(obj, depth: int = 0):
    """Paths (tuples of member names) to every object member, up to the column level."""
    if isinstance(obj, dict) and depth < 3:
        for name, v in obj.items():
            yield (name,)
            for sub in _paths(v, depth + 1):
                yield (name, *sub)


ROW = RowChangedEvent(424316552636792833, "shop", "orders", partition=7, new=[
    Column("id", 3, 0x0B, 1), Column("n", 3, 0, -5), Column("big", 8, 0x81, 2**64 - 1),
    Column("year", 13, 0x81, 2024), Column("bits", 16, 0, 5), Column("f32", 4, 0, 0.5),
    Column("f64", 5, 0, -0.0), Column("at", 12, 0, "2024-11-22"), Column("s", 15, 0, b"a"),
    Column("bin", 253, 0x01, b"\x89"), Column("blob", 252, 0, b"a"), Column("nul", 6, 0, None),
])  # fmt: skip
[(ROW_KEY, ROW_VALUE)] = encode_events([ROW])
ROW_COLUMNS = json.loads(ROW_VALUE[8:])["u"]


KEY_MEMBERS = [*json.loads(ROW_KEY[16:]), "rid", "ohk", "ccl", "x"]


def column_member_changed(column: str):
    """ROW's (key, value) with each member of ``column`` set to every token or deleted."""
    for member in ("t", "f", "h", "v", "x"):
        for raw in [*TOKENS, None]:
            doc = _dump(json.loads(ROW_VALUE[8:]), ("u", column, member), raw).encode()
            yield ROW_KEY, _frame([[ROW_KEY[16:], doc]])[1]


def key_member_changed(member: str):
    """ROW's (key, value) with the key's ``member`` set to every token or deleted."""
    for raw in [*TOKENS, None]:
        doc = _dump(json.loads(ROW_KEY[16:]), (member,), raw).encode()
        yield _frame([[doc, ROW_VALUE[8:]]])


@pytest.mark.parametrize("column", list(ROW_COLUMNS))
def test_every_member_of_every_kind_of_column_set_to_every_token(column):
    for key, value in column_member_changed(column):
        assert_agree(key, value)


@pytest.mark.parametrize("member", KEY_MEMBERS)
def test_every_key_member_set_to_every_token(member):
    for key, value in key_member_changed(member):
        assert_agree(key, value)


SOURCES = [
    (bytes.fromhex(v["hex"]["key"]), bytes.fromhex(v["hex"]["value"])) for v in FRAMED
] + list(encode_events(craft_bench.batch16()[:2], **UNLIMITED))


def one_member_changed(data) -> tuple[bytes, bytes] | None:
    """A source message with one JSON member set to a token, added or deleted (drawn
    from hypothesis ``data``); None when the drawn document has no member."""
    key, value = data.draw(st.sampled_from(SOURCES))
    docs = _docs(key, value)
    event = data.draw(st.integers(0, len(docs) - 1))
    which = data.draw(st.integers(0, 1))
    if not docs[event][which]:
        return None
    obj = json.loads(docs[event][which])
    paths = list(_paths(obj))
    if not paths:
        return None
    path = data.draw(st.sampled_from(paths))
    if data.draw(st.booleans()):  # a new member beside it
        path = (*path[:-1], data.draw(st.sampled_from(MEMBERS)))
    raw = data.draw(st.sampled_from([*TOKENS, None]))
    docs[event][which] = _dump(obj, path, raw).encode()
    return _frame(docs)


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_one_member_set_added_or_deleted(data):
    message = one_member_changed(data)
    if message is not None:
        assert_agree(*message)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(SOURCES), st.data())
def test_frames_cut_or_with_a_changed_length(source, data):
    parts = [bytearray(source[0]), bytearray(source[1])]
    part = parts[data.draw(st.integers(0, 1))]
    if data.draw(st.booleans()):
        del part[data.draw(st.integers(0, len(part))) :]
    else:
        at = data.draw(st.integers(0, max(0, len(part) - 8)))
        part[at : at + 8] = struct.pack(">Q", data.draw(st.integers(0, 2**64 - 1)))
    limits = data.draw(st.sampled_from([{}, {"max_count": 1}, {"max_string": 40}]))
    assert_agree(bytes(parts[0]), bytes(parts[1]), **limits)


# ---------------------------------------------------------------- JSON reading


JSON_TEXTS = st.recursive(
    st.sampled_from(TOKENS) | st.text(max_size=4).map(json.dumps),
    lambda inner: (
        st.lists(inner, max_size=3).map(lambda xs: "[" + ",".join(xs) + "]")
        | st.dictionaries(st.text(max_size=3), inner, max_size=3).map(
            lambda d: "{" + ",".join(json.dumps(k) + ":" + v for k, v in d.items()) + "}"
        )
    ),
    max_leaves=8,
)


def reference_loads(data: bytes, mark_replaced: bool = False):
    """gojson.loads the plain way: the -0 hook on every integer, through decode()."""
    if mark_replaced and b"\\ufffd" in data:
        data = gojson._mark_escaped_replacements(data)
    try:
        text, escaped = data.decode(), None
    except UnicodeDecodeError:
        escaped = data.decode("utf-8", "surrogateescape")
        text = escaped.translate(gojson._SURROGATES_TO_FFFD)
    try:
        doc = gojson._DECODER_NEG_ZERO.decode(text)
    except json.JSONDecodeError as err:
        where = (escaped or text)[: err.pos].encode("utf-8", "surrogateescape")
        raise DecodeError(f"malformed JSON: {err.msg}", offset=len(where)) from None
    except (ValueError, RecursionError) as err:
        raise DecodeError(f"malformed JSON: {err}", offset=0) from None
    surrogates = gojson._SURROGATE_NOT_REPLACED if mark_replaced else gojson._LONE_SURROGATE
    return gojson._replace_lone_surrogates(doc, surrogates)


def _loaded(loads, data: bytes):
    try:
        return repr(loads(data))
    except DecodeError as err:
        return str(err), err.offset


@settings(max_examples=300, deadline=None)
@given(JSON_TEXTS, st.sampled_from(["", " ", "\n", "x", ",1", "-0", "\xff"]), st.booleans())
def test_loads_agrees_with_the_hooked_decoder(text, around, before):
    data = ((around if before else "") + text + ("" if before else around)).encode()
    assert _loaded(gojson.loads, data) == _loaded(reference_loads, data)


@pytest.mark.parametrize(
    "text",
    ["-0", " -0", "-0 ", "-0\n", "-0\t", "-0\r", "[-0]", "[-0 ]", "[1,-0,2]", '{"a":-0}',
     '{"a":-0\n}', '["a-0",-0]', '["a-0, b"]', '"-0"', "-0.0", "-0e1", "-01", "[-0,]", "-0x",
     "[-0.5,-0]", '{"v":-0,"w":0}', '{"d":"2024-01-05"}'],
)  # fmt: skip
def test_negative_zero_wherever_it_stands(text):
    assert _loaded(gojson.loads, text.encode()) == _loaded(reference_loads, text.encode())


def test_flags_above_uint64_are_refused():
    # the fast column reader once checked only f >= 0, and such a column then failed to
    # re-encode
    doc = ROW_VALUE[8:].replace(b'"f":0,', b'"f":18446744073709551616,', 1)
    with pytest.raises(DecodeError) as info:
        _KAFKA.parse_pair(ROW_KEY, _frame([[ROW_KEY[16:], doc]])[1])
    assert info.value.path.endswith(".f") and "outside" in info.value.message


@settings(max_examples=500, deadline=None)
@given(
    st.binary(max_size=7).map(lambda b: base64.b64encode(b).decode())
    | st.text("AQYZaz09+/=\n é", max_size=9)
)
def test_the_c_base64_check_accepts_exactly_what_the_checked_one_does(text):
    try:
        checked_value = op_json.b64(text, "v")
    except DecodeError:
        checked_value = None
    try:
        fast_value = op_json._canonical_b64(text)
    except DecodeError:
        fast_value = None
    assert fast_value == checked_value
