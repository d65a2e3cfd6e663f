"""tiflow's claim-check object (``{"key": base64, "value": base64}``, the large message
TiCDC keeps in external storage) as the ``claim_check`` record of the Open Protocol
module: it decodes to the message it carries, through ``parse``, ``parse_kafka`` (what
the Spark glue calls) and the CLI, and encodes back byte for byte."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

import generated.ticdc_open_protocol as op
from generated.models.ticdc_types import Column, RowChangedEvent
from runtime.core.errors import DecodeError

ROOT = Path(__file__).resolve().parents[1]
LOCATION = "s3://bucket/claim-check/0b5f2e0c-4a52-4d5b-9f77-1c0f2d5c1e44.json"


def big_row(**key) -> RowChangedEvent:
    # in the order tiflow writes them: sorted by name
    columns = [Column("doc", 15, 0, b"x" * 300 + "é<&>".encode()), Column("id", 3, 11, 7)]
    return RowChangedEvent(415508878783938562, schema="test", table="t1", new=columns, **key)


def claim_check_object(message) -> bytes:
    """What tiflow's ClaimCheck.WriteMessage stores, written out by hand here."""
    key, value = op.build_pair(message)
    b64 = base64.b64encode
    return b'{"key":"' + b64(key) + b'","value":"' + b64(value) + b'"}'


def test_the_object_decodes_to_the_message_and_encodes_back():
    message = op.Message([big_row()])
    data = claim_check_object(message)
    for parse in (op.parse, op.parse_construct):
        assert parse(data, "claim_check") == message
    assert op.build(message, "claim_check") == data
    assert op.parse_kafka(None, data, record="claim_check") == message  # the Spark hook
    form = json.loads(json.dumps(op.to_dict(message)))
    assert op.build(op.from_dict(form, "claim_check"), "claim_check") == data
    assert list(op.to_rows(message, "claim_check")) == list(op.to_rows(message, "message"))
    assert op.spark_schema("claim_check") == op.spark_schema("message")


def test_the_kafka_message_pointing_to_it_round_trips():
    # handle-key-only columns, the object's URI in the key's ccl
    pointer = RowChangedEvent(
        415508878783938562, schema="test", table="t1", new=[Column("id", 3, 11, 7)],
        claim_check_location=LOCATION,
    )  # fmt: skip
    key, value = op.build_pair(op.Message([pointer]))
    assert b'"ccl":"s3://bucket/claim-check/' in key
    model = op.parse_pair(key, value)
    assert model.events[0].claim_check_location == LOCATION
    assert op.build_pair(model) == (key, value)


@pytest.mark.parametrize(
    "data, path, message",
    [
        (b'{"key":"AAAA"}', "value", "has key and value"),
        (b'{"key":"AAAA","value":"AAAA","x":1}', "x", "has no 'x'"),
        (b'{"key":"AAB=","value":"AAAA"}', "key", "non-canonical base64"),
        (b'{"key":1,"value":"AAAA"}', "key", "expected a string"),
        (b"[]", "", "expected a JSON object"),
        (b"{", "", "malformed JSON"),
    ],
)
def test_a_bad_object_is_a_decode_error(data, path, message):
    with pytest.raises(DecodeError, match=message) as info:
        op.parse(data, "claim_check")
    assert info.value.path == path and info.value.offset is not None


def test_an_object_not_as_tiflow_writes_it_is_kept_as_read():
    # Go's json.Unmarshal reads it (tiflow's UnmarshalClaimCheckMessage): the message keeps
    # the text and writes it back (tests/test_open_protocol_wire_form.py has every kind)
    message = op.Message([big_row()])
    spaced = claim_check_object(message).replace(b'","value"', b'", "value"')
    for parse in (op.parse, op.parse_construct):
        again = parse(spaced, "claim_check")
        assert again == message and again.claim_check_form == spaced
        assert op.build(again, "claim_check") == spaced


def test_an_object_with_a_key_the_document_does_not_have_is_a_decode_error():
    data = claim_check_object(op.Message([big_row()]))
    with pytest.raises(DecodeError, match="a claim-check object has key and value") as info:
        op.parse(data.replace(b'"key"', b'"Key"'), "claim_check")  # Go matches any case
    assert info.value.path == "key"
    with pytest.raises(DecodeError, match="a claim-check object has no 'uri'") as info:
        op.parse(data[:-1] + b',"uri":""}', "claim_check")  # Go skips it
    assert info.value.path == "uri"


def test_a_bad_carried_message_names_its_own_path():
    bad = base64.b64encode(b"\x00" * 7).decode()
    data = ('{"key":"' + bad + '","value":""}').encode()
    with pytest.raises(DecodeError, match="truncated batch version") as info:
        op.parse(data, "claim_check")
    assert info.value.path == "version"


def wirespec(*args):
    return subprocess.run(
        [sys.executable, "-m", "generator.cli.main", *map(str, args)],
        capture_output=True, check=False, cwd=ROOT, timeout=60,
    )  # fmt: skip


def test_cli_decode_and_encode_with_record_claim_check(tmp_path):
    data = claim_check_object(op.Message([big_row()]))
    (tmp_path / "obj.json").write_bytes(data)
    out = wirespec(
        "decode", "ticdc_open_protocol", "--record", "claim_check", tmp_path / "obj.json"
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["events"][0]["table"] == "t1"
    (tmp_path / "d.json").write_bytes(out.stdout)
    done = wirespec(
        "encode", "ticdc_open_protocol", "--record", "claim_check", tmp_path / "d.json",
        "-o", tmp_path / "again.json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "again.json").read_bytes() == data
