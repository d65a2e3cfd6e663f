"""Open Protocol messages not in the form tiflow writes are written back byte for byte.

Go's ``encoding/json`` (tiflow's ``MessageKey.Decode``, ``messageRow.decode`` with
``UseNumber``, ``messageDDL.decode``, ``UnmarshalClaimCheckMessage``) reads more than
``json.Marshal`` writes. Each such form the reader takes is kept: a message keeps the
Kafka key and value it was read from (``wire_form``) and a claim-check object its text
(``claim_check_form``), and build writes them while the model still reads as them; a
changed model is written as tiflow writes it. The forms Go refuses (``1.0`` for an
integer) and those the spec's documents do not take (a claim-check key in other case)
are a DecodeError. Runs in the tier the environment selects (CI runs both).
"""

from __future__ import annotations

import base64
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import generated.ticdc_open_protocol as op
from generated.models.ticdc_types import Column, DdlEvent, ResolvedEvent, RowChangedEvent
from runtime.core.errors import DecodeError
from runtime.formats.open_protocol_frames import join_frames

ROOT = Path(__file__).resolve().parents[1]
TS = 415508878783938562


def row() -> RowChangedEvent:
    columns = [Column("d", 5, 0, 1.5), Column("id", 3, 11, 7), Column("s", 15, 0, b"a/b<")]
    return RowChangedEvent(TS, schema="test", table="t1", new=columns)


def docs(message) -> list[tuple[bytes, bytes]]:
    """The (key JSON, value JSON) of each event of ``message`` as tiflow writes them."""
    return [op.encode_event(ev, message.layout) for ev in message.events]


def pair(documents) -> tuple[bytes, bytes]:
    return join_frames(list(documents))


ROW_KEY = b'{"ts":415508878783938562,"scm":"test","tbl":"t1","t":1}'
ROW_VALUE = (
    b'{"u":{"d":{"t":5,"f":0,"v":1.5},"id":{"t":3,"h":true,"f":11,"v":7},'
    b'"s":{"t":15,"f":0,"v":"a/b\\u003c"}}}'
)
DDL = DdlEvent(TS, "test", "t1", 5, "ALTER TABLE t1 ADD COLUMN c INT")
DDL_KEY, DDL_VALUE = op.encode_event(DDL)

# kind -> the key JSON and value JSON of a one-event message in that form
FORMS = {
    "spaces": (
        b'{ "ts": 415508878783938562, "scm": "test", "tbl": "t1", "t": 1 }',
        ROW_VALUE.replace(b'"u":', b'\n  "u" :\t').replace(b"},", b"} ,\r\n"),
    ),
    "space around the document": (b" \n" + ROW_KEY + b"\t", ROW_VALUE + b"\n"),
    "key order": (
        b'{"t":1,"tbl":"t1","scm":"test","ts":415508878783938562}',
        ROW_VALUE.replace(b'{"t":5,"f":0,"v":1.5}', b'{"v":1.5,"f":0,"t":5}'),
    ),
    "columns not sorted": (
        ROW_KEY,
        b'{"u":{"s":{"t":15,"f":0,"v":"a/b\\u003c"},"d":{"t":5,"f":0,"v":1.5},'
        + b'"id":{"t":3,"h":true,"f":11,"v":7}}}',
    ),
    "escapes Go does not write": (
        ROW_KEY.replace(b'"test"', b'"t\\u0065st"').replace(b'"t1"', b'"\\u00741"'),
        ROW_VALUE.replace(b"a/b\\u003c", b"a\\/b<").replace(b'"id"', b'"\\u0069\\u0064"'),
    ),
    "upper-case hex": (ROW_KEY, ROW_VALUE.replace(b"\\u003c", b"\\u003C")),
    "no HTML escaping": (ROW_KEY, ROW_VALUE.replace(b"\\u003c", b"<")),
    "invalid UTF-8": (ROW_KEY.replace(b'"t1"', b'"t\xff1"'), ROW_VALUE.replace(b"a/b", b"a\xc3b")),
    "unknown keys": (
        ROW_KEY.replace(b'"t":1', b'"t":1,"x":[1,{"y":null}]'),
        ROW_VALUE.replace(b'{"u":', b'{"z":"?","u":').replace(
            b'"f":0,"v":1.5', b'"f":0,"w":2,"v":1.5'
        ),
    ),
    "duplicate keys": (
        ROW_KEY.replace(b'{"ts":', b'{"ts":1,"ts":'),
        ROW_VALUE.replace(b'"t":5,', b'"t":3,"t":5,'),
    ),
    "float forms": (ROW_KEY, ROW_VALUE.replace(b'"v":1.5', b'"v":15E-1')),
    "pingcap/ticdc's rewrite": (ROW_KEY.replace(b'"t":1', b'"t":1,"ohk":false'), ROW_VALUE),
    "ddl spaced": (DDL_KEY.replace(b",", b", "), DDL_VALUE.replace(b":", b": ")),
}


@pytest.mark.parametrize("kind", FORMS)
def test_each_form_go_reads_decodes_and_is_written_back(kind):
    key_doc, value_doc = FORMS[kind]
    key, value = pair([(key_doc, value_doc), op.encode_event(ResolvedEvent(TS + 1))])
    message = op.parse_pair(key, value)
    canonical = op.build_pair(op.Message(message.events, message.layout, message.escapes))
    assert canonical != (key, value), "tiflow's own form: not a kept one"
    assert op.build_pair(message) == (key, value)
    # the model of tiflow's bytes (which sorts the columns by name)
    assert by_name(op.parse_pair(*canonical)) == by_name(message)


def by_name(message):
    for ev in message.events:
        if isinstance(ev, RowChangedEvent):
            ev.new = sorted(ev.new or [], key=lambda c: c.name.encode()) or ev.new
    return message


@pytest.mark.parametrize("kind", FORMS)
def test_a_changed_model_is_written_as_tiflow_writes_it(kind):
    message = op.parse_pair(*pair([FORMS[kind]]))
    message.events[0].commit_ts += 1
    fresh = op.Message(message.events, message.layout, message.escapes)
    assert op.build_pair(message) == op.build_pair(fresh)
    assert op.parse_pair(*op.build_pair(message)).wire_form == op.build_pair(fresh)


def test_another_messages_bytes_are_not_written_for_this_one():
    message = op.parse_pair(*pair([FORMS["spaces"]]))
    message.wire_form = pair([FORMS["key order"]])  # reads as the same events
    assert op.build_pair(message) == message.wire_form
    message.wire_form = pair([(DDL_KEY.replace(b",", b", "), DDL_VALUE)])  # another event
    assert op.build_pair(message) == op.build_pair(op.Message(message.events))
    message.wire_form = (b"not a key", b"")
    assert op.build_pair(message) == op.build_pair(op.Message(message.events))


def test_values_equal_in_python_but_not_on_the_wire_are_not_confused():
    # 7 == 7.0 and 0.0 == -0.0 in Python: the kept bytes must say the model's own value
    message = op.parse_pair(*pair([FORMS["spaces"]]))
    for column in message.events[0].new:
        if column.name == "d":
            column.value = -0.0
    negative = op.parse_pair(*op.build_pair(message))
    assert [c.value for c in negative.events[0].new if c.name == "d"] == [-0.0]
    assert op.build_pair(message) == op.build_pair(op.Message(message.events))


@pytest.mark.parametrize(
    "key_doc, message",
    [
        (ROW_KEY.replace(b'"t":1', b'"t":1.0'), "expected an integer, got number"),
        (ROW_KEY.replace(b'"ts":415508878783938562', b'"ts":4.155e17'), "expected an integer"),
    ],
)
def test_a_form_go_refuses_is_a_decode_error(key_doc, message):
    with pytest.raises(DecodeError, match=message) as info:
        op.parse_pair(*pair([(key_doc, ROW_VALUE)]))
    assert info.value.path.startswith("events[0].key") and info.value.offset is not None


def test_an_integer_column_as_a_float_is_a_decode_error():
    # Go: messageRow.decode reads json.Number, FormatColumn's ParseInt("7.0") panics
    with pytest.raises(DecodeError) as info:
        op.parse_pair(*pair([(ROW_KEY, ROW_VALUE.replace(b'"v":7', b'"v":7.0'))]))
    assert info.value.path.startswith("events[0].value.u.id")


def test_the_json_form_keeps_the_form_and_only_where_build_writes_it():
    message = op.parse_pair(*pair([FORMS["spaces"]]))
    form = op._KAFKA.to_dict(message)
    assert form["wire_form"]["key"] == {"$hex": message.wire_form[0].hex()}
    again = op._KAFKA.from_dict(json.loads(json.dumps(form)))
    assert again == message and op.build_pair(again) == message.wire_form
    tiflow = op.parse_pair(*op.build_pair(op.Message(message.events)))
    assert "wire_form" not in op._KAFKA.to_dict(tiflow)
    message.events[0].table = "t2"
    assert "wire_form" not in op._KAFKA.to_dict(message)


def wirespec(*args):
    return subprocess.run(
        [sys.executable, "-m", "generator.cli.main", *map(str, args)],
        capture_output=True, check=False, cwd=ROOT, timeout=60,
    )  # fmt: skip


def test_cli_decode_then_encode_gives_the_same_bytes(tmp_path):
    key, value = pair([FORMS["escapes Go does not write"], FORMS["ddl spaced"]])
    (tmp_path / "k").write_bytes(key)
    (tmp_path / "v").write_bytes(value)
    out = wirespec("decode", "ticdc_open_protocol", "--key", tmp_path / "k", tmp_path / "v")
    assert out.returncode == 0, out.stderr
    (tmp_path / "d.json").write_bytes(out.stdout)
    done = wirespec(
        "encode", "ticdc_open_protocol", tmp_path / "d.json",
        "-o", tmp_path / "v2", "--key-out", tmp_path / "k2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "k2").read_bytes() == key and (tmp_path / "v2").read_bytes() == value


# -- the claim-check object ------------------------------------------------------------


def claim_check(key: bytes, value: bytes, template: str = '{"key":"%s","value":"%s"}') -> bytes:
    b64 = base64.b64encode
    return (template % (b64(key).decode(), b64(value).decode())).encode()


OBJECT_FORMS = {
    "spaces": '{ "key" : "%s",\n  "value" : "%s" }\n',
    "key order": '{"value":"%s","key":"%s"}',
    "duplicate key": '{"key":"","key":"%s","value":"%s"}',
}


@pytest.mark.parametrize("kind", OBJECT_FORMS)
def test_a_claim_check_object_in_a_form_go_reads_is_written_back(kind):
    key, value = pair([(ROW_KEY, ROW_VALUE)])
    if kind == "key order":
        data = claim_check(value, key, OBJECT_FORMS[kind])
    else:
        data = claim_check(key, value, OBJECT_FORMS[kind])
    message = op.parse(data, "claim_check")
    assert message.claim_check_form == data and message.wire_form == (key, value)
    assert op.build(message, "claim_check") == data
    message.events[0].commit_ts += 1  # changed: Go's json.Marshal of the changed message
    assert op.build(message, "claim_check") == claim_check(*op.build_pair(message))


def test_a_claim_check_object_of_a_kept_message_keeps_both():
    key, value = pair([FORMS["unknown keys"]])
    data = claim_check(key, value).replace(b'","', b'", "').replace(b"/", b"\\/")
    message = op.parse(data, "claim_check")
    assert op.build(message, "claim_check") == data
    assert op.build_pair(message) == (key, value)


def test_the_claim_check_object_tiflow_writes_keeps_nothing():
    data = claim_check(*pair([(ROW_KEY, ROW_VALUE)]))
    message = op.parse(data, "claim_check")
    assert message.claim_check_form is None and op.build(message, "claim_check") == data


# -- any form: JSON re-written by another writer -----------------------------------------


def rewritten(document: bytes, rng: random.Random) -> bytes:
    """``document`` as Python's json writes it, in a random style Go reads too."""
    if not document:
        return document
    parsed = json.loads(document.decode("utf-8", "surrogateescape"))
    items = list(parsed.items())
    rng.shuffle(items)
    text = json.dumps(
        dict(items),
        ensure_ascii=rng.random() < 0.5,
        indent=rng.choice([None, 0, 2]),
        separators=rng.choice([None, (",", ":"), (" , ", " : ")]),
    )
    return text.encode("utf-8", "surrogatepass")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(op.strategies(op.KAFKA_RECORD), st.randoms(use_true_random=False))
def test_any_message_rewritten_by_another_json_writer_is_written_back(message, rng):
    documents = [(rewritten(k, rng), rewritten(v, rng)) for k, v in docs(message)]
    key, value = pair(documents)
    try:
        again = op.parse_pair(key, value)
    except DecodeError:
        return  # Python's json wrote what Go's reader refuses too (a float for an integer)
    assert op.build_pair(again) == (key, value)
