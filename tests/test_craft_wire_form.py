"""Craft messages not in the form tiflow's encoder writes are built back byte for byte.

tiflow's decoder (pkg/sink/codec/craft/message_decoder.go) reads varints with Go's
``binary.Uvarint``/``Varint``, which take longer forms than needed, and looks term ids up
in the term dictionary, so terms no event names, or terms in another order, read as well.
``parse`` of a ``message`` keeps the bytes with its events (``ReadEvents.wire_form``) and
``build`` writes them while the events still read as them; changed events are written as
tiflow writes them. Runs in the tier the environment selects (CI runs both).
"""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import generated.ticdc_craft as craft
from runtime.formats.craft import ReadEvents

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = {p.name: p.read_bytes() for p in sorted((ROOT / "samples/ticdc_craft").glob("*.bin"))}


def uvarint(value: int, extra: int = 0) -> bytes:
    """``value`` as a LEB128 uvarint, ``extra`` bytes longer than it needs."""
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        if value == 0 and extra == 0:
            out.append(byte)
            return bytes(out)
        out.append(byte | 0x80)
        if value == 0:
            extra -= 1


def frame_of(data: bytes):
    return craft.parse(data, "frame")


def rebuilt(frame) -> bytes:
    """The frame's bytes, its size tables computed anew."""
    return craft.build(
        dataclasses.replace(frame, size_tables=None, size_tables_length=None), "frame"
    )


def renumbered(frame, order: list[int], unused: list[str] = ()):
    """``frame`` with its term dictionary in ``order`` (old ids) and ``unused`` terms added."""
    terms = [frame.term_dictionary[i] for i in order] + list(unused)
    new_id = {old: new for new, old in enumerate(order)}
    header = frame.header
    header = dataclasses.replace(
        header,
        schema=[new_id.get(i, i) for i in header.schema],
        table=[new_id.get(i, i) for i in header.table],
    )
    bodies = [
        dataclasses.replace(
            body,
            column_groups=(
                None
                if body.column_groups is None
                else [
                    dataclasses.replace(g, names=[new_id[i] for i in g.names])
                    for g in body.column_groups
                ]
            ),
        )
        for body in frame.bodies
    ]
    return dataclasses.replace(frame, header=header, bodies=bodies, term_dictionary=terms)


def forms() -> dict[str, bytes]:
    """Messages in forms tiflow's decoder reads and its encoder never writes."""
    row = SAMPLES["row_batch.bin"]
    frame = frame_of(row)
    n = len(frame.term_dictionary)
    out = {
        # the probe's: a commit ts of 127 in two bytes (size tables say so too)
        "long varint": bytes.fromhex("01ff0003010101020c0b010005"),
        "terms in another order": rebuilt(renumbered(frame, list(reversed(range(n))))),
        "a term no event names": rebuilt(renumbered(frame, list(range(n)), ["unused"])),
    }
    version = uvarint(1, extra=2)  # the version, 1, in three bytes
    out["long version varint"] = version + row[1:]
    return out


FORMS = forms()


@pytest.mark.parametrize("kind", FORMS)
def test_each_form_decodes_and_is_built_back(kind):
    data = FORMS[kind]
    message = craft.parse(data)
    fresh = craft.build(craft.Message(events=list(message.events)))
    assert fresh != data, "tiflow's own form: not a kept one"
    assert type(message.events) is ReadEvents and message.events.wire_form == data
    assert craft.build(message) == data
    assert craft.parse(fresh).events == message.events  # the same events as tiflow's bytes


@pytest.mark.parametrize("kind", FORMS)
def test_the_construct_path_keeps_it_too(kind):
    data = FORMS[kind]
    message = craft.parse_construct(data)
    assert message.events.wire_form == data
    assert craft.build_construct(message) == data == craft.build(message)


@pytest.mark.parametrize("kind", FORMS)
def test_changed_events_are_written_as_tiflow_writes_them(kind):
    message = craft.parse(FORMS[kind])
    message.events[0].commit_ts += 1
    fresh = craft.build(craft.Message(events=list(message.events)))
    assert craft.build(message) == fresh
    message = craft.parse(FORMS[kind])
    first = message.events[0]  # the list itself changed
    message.events[0] = dataclasses.replace(first, commit_ts=first.commit_ts + 2)
    assert craft.build(message) == craft.build(craft.Message(events=list(message.events)))


def test_another_messages_bytes_are_not_written_for_these_events():
    message = craft.parse(FORMS["long varint"])
    message.events.wire_form = FORMS["terms in another order"]
    assert craft.build(message) == craft.build(craft.Message(events=list(message.events)))
    message.events.wire_form = b"\x01"  # no message at all
    assert craft.build(message) == craft.build(craft.Message(events=list(message.events)))


def test_tiflows_own_form_builds_as_it_did():
    for data in SAMPLES.values():
        message = craft.parse(data)
        assert craft.build(message) == data == craft.build(craft.Message(list(message.events)))


def test_the_events_stay_a_list_for_what_takes_one():
    message = craft.parse(FORMS["terms in another order"])
    assert message.events == list(message.events) and isinstance(message.events, list)
    again = pickle.loads(pickle.dumps(message.events))  # Spark ships models pickled
    assert again == message.events and again.wire_form == message.events.wire_form
    batches = list(craft.encode_events(message.events))  # batched anew: tiflow's bytes
    assert batches == list(craft.encode_events(list(message.events)))
    assert (
        list(craft.decode_message(FORMS["long varint"])) == craft.parse(FORMS["long varint"]).events
    )


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_any_message_with_its_terms_reordered_is_built_back(data):
    events = data.draw(craft._CRAFT_MESSAGE.strategy(craft._STRATEGY_EVENTS))
    message = craft.build(craft.Message(events=events))
    frame = frame_of(message)
    n = len(frame.term_dictionary)
    order = data.draw(st.permutations(range(n)))
    unused = data.draw(st.lists(st.text(max_size=3), max_size=2))
    wire = rebuilt(renumbered(frame, list(order), unused))
    parsed = craft.parse(wire)
    assert parsed.events == craft.parse(message).events
    assert craft.build(parsed) == wire
