"""The compiled Open Protocol reader (the framing generated from the spec's records,
generated/_compiled/ticdc_open_protocol.pyx, over the JSON kernel
runtime/_compiled/open_protocol.pyx) gives exactly the Python reader's Message, or declines.

On every vector and sample, every truncation, byte mutations, single JSON members set to
every kind of token, generated events and generated strings, the compiled plan's result is
either None (the Python reader then decides) or equal to the Python reader's (compared
by ``repr``, which tells 0 from 0.0 and -0.0). It must also accept the common form: the
benchmark batch, the tiflow samples and generated tiflow messages.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_open_protocol import FRAMED, UNLIMITED, events
from test_open_protocol_fast import (
    KEY_MEMBERS,
    ROW_COLUMNS,
    ROW_KEY,
    ROW_VALUE,
    _dump,
    _frame,
    column_member_changed,
    key_member_changed,
    one_member_changed,
)

import runtime.formats.open_protocol as rt_op
from benchmarks import ticdc_craft as craft_bench
from generated.ticdc_open_protocol import _KAFKA, JSON_CODE, build_pair, encode_events
from runtime.core.errors import DecodeError
from runtime.core.limits import DEFAULT, Limits

READ_PAIR = _KAFKA._read_pair
pytestmark = pytest.mark.skipif(
    READ_PAIR is None, reason="the compiled framing or the JSON kernel is not built"
)

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "ticdc_open_protocol"
SAMPLE_PAIRS = {
    p.stem: (p.read_bytes(), p.with_suffix(".value").read_bytes())
    for p in sorted(SAMPLES.glob("*.key"))
}


def python_outcome(key: bytes, value: bytes, **limits):
    """The Python reader's Message (repr) or error, the compiled tier switched off."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(_KAFKA, "_read_pair", None)
        try:
            return repr(_KAFKA.parse_pair(key, value, **limits))
        except DecodeError as err:
            return type(err), str(err), err.offset, err.path


def compiled_outcome(key: bytes, value: bytes, **limits):
    lim = Limits.from_kwargs(limits) if limits else DEFAULT
    message = READ_PAIR(key, value, lim, _KAFKA._read_documents)
    return None if message is None else repr(message)


def agree(key: bytes, value: bytes, **limits) -> bool:
    """Assert the compiled result is None or the Python one; True when it accepted."""
    compiled = compiled_outcome(key, value, **limits)
    if compiled is not None:
        assert compiled == python_outcome(key, value, **limits)
    return compiled is not None


def pairs(source) -> tuple[bytes, bytes]:
    return bytes.fromhex(source["hex"]["key"]), bytes.fromhex(source["hex"]["value"])


BATCH = encode_events(craft_bench.batch16(), **UNLIMITED)
[(BATCH_KEY, BATCH_VALUE)] = BATCH


# ---------------------------------------------------------------- the common form


def test_the_benchmark_batch_is_accepted_and_equal():
    assert agree(BATCH_KEY, BATCH_VALUE)
    for limits in ({"max_count": 15}, {"max_string": 700}, {"max_message_bytes": 1000}):
        assert not agree(BATCH_KEY, BATCH_VALUE, **limits)  # over a limit: Python's error
    assert agree(BATCH_KEY, BATCH_VALUE, max_count=16, max_string=1 << 20)


@pytest.mark.parametrize("name", list(SAMPLE_PAIRS))
def test_samples(name):
    key, value = SAMPLE_PAIRS[name]
    accepted = agree(key, value)
    assert accepted == ("legacy" not in name)  # the 2020 layout is the Python reader's


@pytest.mark.parametrize("vector", FRAMED, ids=[v["name"] for v in FRAMED])
def test_vectors(vector):
    agree(*pairs(vector))


def test_most_vectors_are_accepted():
    accepted = sum(agree(*pairs(v)) for v in FRAMED)
    assert accepted >= len(FRAMED) // 2


@settings(max_examples=80, deadline=None)
@given(st.lists(events, max_size=5), st.sampled_from(["tiflow", "legacy"]))
def test_generated_messages(evs, layout):
    for key, value in encode_events(evs, layout=layout, max_batch_size=3):
        if agree(key, value) and layout == "tiflow":
            assert build_pair(_KAFKA.parse_pair(key, value)) == (key, value)


# ---------------------------------------------------------------- broken input


@pytest.mark.parametrize(
    "source", [*FRAMED, *SAMPLE_PAIRS.values()], ids=[*(v["name"] for v in FRAMED), *SAMPLE_PAIRS]
)
def test_every_truncation(source):
    key, value = pairs(source) if isinstance(source, dict) else source
    for cut in range(len(key)):
        agree(key[:cut], value)
    for cut in range(len(value)):
        agree(key, value[:cut])


def test_truncations_of_the_batch():
    for cut in range(0, len(BATCH_KEY), 7):
        agree(BATCH_KEY[:cut], BATCH_VALUE)
    for cut in range(0, len(BATCH_VALUE), 97):
        agree(BATCH_KEY, BATCH_VALUE[:cut])


BYTES = b'\x00\x01\x08\x1f "\\-0159.eE+/:,{}[]tfnuAz\x7f\x80\xc3\xed\xef\xf0\xff'


@pytest.mark.parametrize("name", list(SAMPLE_PAIRS))
def test_byte_mutations(name):
    rng = random.Random(name)
    key, value = SAMPLE_PAIRS[name]
    for _ in range(300):
        parts = [bytearray(key), bytearray(value)]
        part = parts[rng.randrange(2)]
        if not part:
            continue
        for _ in range(rng.choice((1, 1, 2))):
            at = rng.randrange(len(part))
            if rng.random() < 0.2:
                part.insert(at, rng.choice(BYTES))
            else:
                part[at] = rng.choice(BYTES)
        agree(bytes(parts[0]), bytes(parts[1]))


@pytest.mark.parametrize("column", list(ROW_COLUMNS))
def test_every_member_of_every_kind_of_column_set_to_every_token(column):
    for key, value in column_member_changed(column):
        agree(key, value)


@pytest.mark.parametrize("member", KEY_MEMBERS)
def test_every_key_member_set_to_every_token(member):
    for key, value in key_member_changed(member):
        agree(key, value)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_one_member_set_added_or_deleted(data):
    message = one_member_changed(data)
    if message is not None:
        agree(*message)


# ---------------------------------------------------------------- strings and numbers

# JSON string texts: Go's own escapes and others (\/, \u escapes of anything, surrogate
# pairs, the escapes that decide a message's style), raw bytes that are no UTF-8
ACCEPTED_PIECES = st.sampled_from(
    ["a", "é", "客", "😀", "\\\"", "\\\\", "\\/", "\\n", "\\b", "\\f", "\\u003c", "\\u00e9",
     "\\u2028", "\\ud83d\\ude00", "\\x89", "\x7f", "\ufffd", "=", "+/", "YQ==", "2024-11-22"]
)  # fmt: skip
DECLINED_PIECES = st.sampled_from(
    ["\\u0008", "\\u000C", "\\ufffd", "\\uFFFD", "\\ud800", "\\udcff", "\\ud83dx", "\\u12",
     "\\q"]
)  # fmt: skip
PIECES = st.one_of(ACCEPTED_PIECES, ACCEPTED_PIECES, ACCEPTED_PIECES, DECLINED_PIECES)
RAW = st.sampled_from([b""] * 8 + [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
                                   b"\xc0\xaf", b"\x01", b"\t"])  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(
    st.lists(PIECES, max_size=5).map("".join),
    RAW,
    st.sampled_from([*ROW_COLUMNS, "new"]),
    st.sampled_from(["v", "name", "scm"]),
)
def test_generated_strings(text, raw, column, where):
    body = b'"' + text.encode() + raw + b'"'
    value = json.loads(ROW_VALUE[8:])
    if where == "scm":
        key = _dump(json.loads(ROW_KEY[16:]), ("scm",), "@").encode().replace(b":@", b":" + body)
        agree(*_frame([[key, ROW_VALUE[8:]]]))
        return
    if where == "name":  # a column renamed
        cols = value["u"]
        text_cols = ",".join(
            (body.decode("latin-1") if n == column else json.dumps(n)) + ":" + json.dumps(c)
            for n, c in cols.items()
        )
        doc = ('{"u":{' + text_cols + "}}").encode("latin-1")
    else:
        doc = _dump(value, ("u", column, "v"), "@").encode().replace(b":@", b":" + body)
    agree(ROW_KEY, _frame([[ROW_KEY[16:], doc]])[1])


GO_QUOTED = st.lists(
    st.sampled_from(
        ["x", "é", "\\x89", "\\xFf", "\\xg1", "\\x8", "\\377", "\\400", "\\0", "\\012",
         "\\a", "\\v", "\\'", "\\\\", '\\"', '"', "\n", "\\", "\\u00e9", "\\U0001F600",
         "\\ud800", "\\u12"]
    ),
    max_size=6,
).map("".join)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(GO_QUOTED, st.sampled_from(["bin", "s"]))
def test_generated_strconv_quoted_text(text, column):
    # "bin" is BINARY (strconv.Quote'd), "s" is not (its text as UTF-8)
    doc = _dump(json.loads(ROW_VALUE[8:]), ("u", column, "v"), json.dumps(text)).encode()
    agree(ROW_KEY, _frame([[ROW_KEY[16:], doc]])[1])


NUMBERS = st.one_of(
    st.integers(-(2**65), 2**65).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.from_regex(r"-?(0|[1-9][0-9]{0,21})(\.[0-9]{1,20})?([eE][-+]?[0-9]{1,3})?", fullmatch=True),
)


@settings(max_examples=400, deadline=None)
@given(NUMBERS, st.sampled_from(list(ROW_COLUMNS)))
def test_generated_numbers_in_every_kind_of_column(number, column):
    doc = _dump(json.loads(ROW_VALUE[8:]), ("u", column, "v"), number).encode()
    agree(ROW_KEY, _frame([[ROW_KEY[16:], doc]])[1])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "ab", "é", "\\u0061", "A", ""]), max_size=5))
def test_column_names_duplicated_or_in_any_order(names):
    cols = ",".join(f'"{n}":{{"t":3,"f":0,"v":{i}}}' for i, n in enumerate(names))
    doc = ('{"u":{' + cols + "}}").encode()
    agree(ROW_KEY, _frame([[ROW_KEY[16:], doc]])[1])


@pytest.mark.parametrize(
    "doc",
    [b' {"u" : { "a" : { "t" : 3 , "f" : 0 , "v" : 1 } } } ', b'{"u":{}}', b"{}",
     b'{"u":null}', b'{"u":{},"u":{}}', b'{"p":{"a":{"t":3,"f":0,"v":1}}}',
     b'{"d":{"a":{"t":3,"f":0,"v":1}}}', b'{"d":{},"u":{}}', b'{"u":{},"p":{}}',
     b'{"u":{"a":{"t":3,"h":true,"f":2,"v":1}}}', b'{"u":{"a":{"t":3,"h":true,"f":0,"v":1}}}',
     b'{"u":{"a":{"t":3,"f":0,"v":1,"t":3}}}', b'{"u":{"a":{"t":3,"f":0}}}', b'{"x":1}'],
)  # fmt: skip
def test_row_documents(doc):
    agree(ROW_KEY, _frame([[ROW_KEY[16:], doc]])[1])


def test_plan_is_built_from_the_codec_tables():
    # a codec whose renderings the compiled reader does not know gets no plan
    codec = rt_op.OpenProtocol(
        _KAFKA.documents,
        JSON_CODE,
        _KAFKA.classes.values(),
        key="event_key",
        models=_KAFKA.models,
    )
    assert codec._compiled is not None
    codec._readings = {**codec._readings, 3: frozenset({("type", "decimal128")})}
    assert rt_op._compiled_plan(codec) is None
