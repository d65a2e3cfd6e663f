"""Craft's JSON form of events, rendered from the spec (``JSON_FORMS["message"]``,
generator/emit/event_json.py): the same text as the hand-written form it replaced for every
sample and vector (sha256 of ``json.dumps(to_dict(...))``, recorded before the change in
tests/data/craft_json_form.json), and its errors on what is no event."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from generated import ticdc_craft as craft
from runtime.core.errors import EncodeError

ROOT = Path(__file__).resolve().parent.parent
RECORDED = json.loads((ROOT / "tests/data/craft_json_form.json").read_text())


def _data(name: str) -> bytes:
    if name.startswith("vector:"):
        doc = json.loads((ROOT / "tests/data/vectors/ticdc_craft.json").read_text())
        vectors = doc["vectors"] if isinstance(doc, dict) else doc
        return bytes.fromhex(next(v["hex"] for v in vectors if v["name"] == name[7:]))
    return (ROOT / name).read_bytes()


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_the_json_form_is_the_recorded_text(name):
    text = json.dumps(craft.to_dict(craft.parse(_data(name))), ensure_ascii=False)
    assert hashlib.sha256(text.encode()).hexdigest() == RECORDED[name]


def test_every_sample_is_recorded():
    samples = {str(p.relative_to(ROOT)) for p in (ROOT / "samples/ticdc_craft").glob("*.bin")}
    assert samples <= set(RECORDED)


def _form(sample: str) -> dict:
    return json.loads(json.dumps(craft.to_dict(craft.parse((ROOT / sample).read_bytes()))))


@pytest.mark.parametrize(
    "sample, edit, message",
    [
        ("row_batch.bin", lambda e: e.pop("commit_ts"), "events[0].commit_ts: missing key 'commit_ts'"),
        ("row_batch.bin", lambda e: e.update(schema=5), "events[0].schema: expected a string or null, got 5"),
        ("row_batch.bin", lambda e: e.update(partition="x"), "events[0].partition: expected an integer, got 'x'"),
        ("row_batch.bin", lambda e: e["new"][1].pop("name"), "events[0].new[1].name: missing key 'name'"),
        ("row_batch.bin", lambda e: e["new"][0].update(type=7777), "events[0].new[0].type: unknown column type code 7777"),
        ("row_batch.bin", lambda e: e["new"][0].update(value="x"), "events[0].new[0].value: expected an integer, got 'x'"),
        ("row_batch.bin", lambda e: e.update(query="DROP TABLE t"), "events[0]: keys of both ROW_CHANGED (new, old) and DDL (ddl_type, query)"),
        ("ddl_add_column.bin", lambda e: e.pop("query"), "events[0].query: missing key 'query'"),
        ("ddl_add_column.bin", lambda e: e.update(ddl_type="NO_SUCH"), "events[0].ddl_type: 'NO_SUCH' is not a DdlType member or a number"),
        ("resolved.bin", lambda e: e.update(nwe=[]), "events[0]: a resolved event has only commit_ts, not ['nwe']"),
        ("resolved.bin", lambda e: e.update(commit_ts_time="2000-01-01T00:00:00.000Z"), "events[0].commit_ts_time: "),
    ],
)  # fmt: skip
def test_what_is_no_event_is_refused_at_its_key(sample, edit, message):
    form = _form(f"samples/ticdc_craft/{sample}")
    edit(form["events"][0])
    with pytest.raises(EncodeError) as err:
        craft.from_dict(form)
    assert str(err.value).startswith(message)


def test_fields_the_wire_has_no_place_for_are_shown_not_read_back():
    form = _form("samples/ticdc_craft/row_batch.bin")
    assert form["events"][0]["row_id"] is None and form["events"][0]["handle_key_only"] is False
    form["events"][0]["row_id"] = 5  # Open Protocol's rid: Craft carries none
    assert craft.from_dict(form).events[0].row_id is None


def test_a_json_form_is_of_a_map_with_a_way_back(tmp_path):
    from tests.test_record_language_map import spec_error

    err = spec_error(tmp_path, "json_form: message", "json_form: frame")
    assert "json_form: 'frame' is not a record with map: batch:" in str(err)


def test_both_formats_show_ints_past_2_53_as_strings():
    """One rule for the shared event model's JSON form: an integer a JSON reader's float64
    would round (past 2**53) is a decimal string, in Craft's and Open Protocol's alike
    (Open Protocol showed ``partition`` and ``row_id`` as raw ints before), read back both
    ways."""
    import dataclasses

    from generated import ticdc_craft, ticdc_open_protocol
    from generated.models.ticdc_types import Column, RowChangedEvent

    big = 2**53 + 1
    event = RowChangedEvent(big, "s", "t", partition=big, new=[Column("id", 8, 0, -big)])
    for module, extra in ((ticdc_craft, {}), (ticdc_open_protocol, {"row_id": -big})):
        message = module.Message(events=[dataclasses.replace(event, **extra)])
        [form] = module.to_dict(message)["events"]
        for name in ("commit_ts", "partition", *extra):
            assert form[name] == str(getattr(message.events[0], name)), (module, name)
        assert form["new"][0]["value"] == str(-big)
        assert module.from_dict(module.to_dict(message)).events == message.events
        form["partition"] = big  # a raw int still reads
        assert (
            module.from_dict({**module.to_dict(message), "events": [form]}).events == message.events
        )


KEPT = {
    # commit ts 127 in a 2-byte varint (tiflow's decoder takes it, its encoder writes 1 byte)
    "long varint": "01ff0003010101020c0b010005",
    # found by scripts/fuzz_tiers.py: a term dictionary with a term no event names
    "unused term": "01ffffffff070101040201020402fc01fd01ff01ff01180045cc4d62422161db183e34"
    "560403110701e995bfc3a6c593c386c592efac80caa4caa8c39fc3a5c2854e014f3f0212300134013407",
}


@pytest.mark.parametrize("name", sorted(KEPT))
def test_the_json_form_carries_the_bytes_a_message_keeps(name):
    """``encode`` of ``decode``'s JSON is the input, as ``build(parse(x))`` is: a message read
    from a form tiflow's encoder never writes shows its bytes as ``wire_form`` (as Open
    Protocol's does), written back while the events read as them."""
    data = bytes.fromhex(KEPT[name])
    form = json.loads(json.dumps(craft.to_dict(craft.parse(data))))
    assert form["wire_form"] == {"$hex": data.hex()}
    assert craft.build(craft.from_dict(form)) == data
    # a changed event: written as tiflow writes it
    form["events"][0].pop("commit_ts_time")
    form["events"][0]["commit_ts"] = 1
    assert craft.build(craft.from_dict(form)) == craft.build(
        craft.from_dict({**form, "wire_form": None})
    )


def test_a_wire_form_of_no_bytes_is_refused_at_its_key():
    form = craft.to_dict(craft.parse(bytes.fromhex(KEPT["long varint"])))
    with pytest.raises(EncodeError, match="^wire_form: "):
        craft.from_dict({**form, "wire_form": 7})
