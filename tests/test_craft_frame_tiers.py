"""TiCDC Craft's ``frame`` read by its plan in every tier: its trailer (the reversed uvarint,
the size tables and the term dictionary) is steps of the plan, so the generated compiled
reader (generated/_compiled/ticdc_craft.pyx) reads the whole frame. Held on every vector,
sample, truncation, missing prefix, byte mutation, limit and generated message: the compiled
reader takes exactly what the quick tier takes, with its model, which is the construct
path's; what both decline ``parse`` gives exactly as ``parse_construct`` does (the model, or
the DecodeError's offset and path). The compiled checks skip when the tier is not built."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generated import ticdc_craft as craft
from generator.emit.lowering import Lowering
from generator.spec.loader import load
from generator.spec.validate import build_model
from runtime.core.errors import EncodeError
from runtime.core.leb128 import write_reversed_uvarint, write_uvarint
from runtime.core.limits import DEFAULT, Limits
from tests.test_fastpath import Same, outcome
from tests.test_quicktier import exact, quick

ROOT = Path(__file__).resolve().parents[1]
VECTORS = json.loads((ROOT / "tests/data/vectors/ticdc_craft.json").read_text())
MESSAGES = {v["name"]: bytes.fromhex(v["hex"]) for v in VECTORS}
MESSAGES.update(
    {p.name: p.read_bytes() for p in sorted((ROOT / "samples/ticdc_craft").glob("*.bin"))}
)
COMPILED = craft.COMPILED_READERS.get("frame")


def held(data: bytes, limits: Limits = DEFAULT) -> bool:
    """Whether the plan's readers took ``data`` as a frame; they agree, their model is the
    exact reader's and construct's, and ``parse`` gives what ``parse_construct`` gives."""
    # a message longer than max_message_bytes is the exact reader's to refuse
    deep_enough = limits.max_depth >= 3 and len(data) <= limits.max_message_bytes
    want = quick(craft, data, "frame", limits) if deep_enough else None
    if COMPILED is not None:
        got = COMPILED(data, limits)
        assert (got is None) == (want is None), "compiled and quick tiers disagree"
        if got is not None:
            assert Same(craft, got) == Same(craft, want)
    if want is not None:
        assert Same(craft, want) == Same(craft, exact(craft, data, "frame", limits)[0])
        assert Same(craft, want) == Same(craft, craft.parse_construct(data, "frame"))
    if limits is DEFAULT:
        assert outcome(craft.parse, data, "frame", craft) == outcome(
            craft.parse_construct, data, "frame", craft
        )
    return want is not None


def kept(data: bytes) -> bool:
    """Whether ``data`` is a frame in a form its writer writes otherwise: the plan's readers
    decline it, and its model keeps it (``wire_form``) and is written back as it."""
    assert not held(data)
    frame = craft.parse(data, "frame")
    return frame.wire_form == data and craft.build(frame, "frame") == data


def test_the_trailer_is_steps_of_the_plan():
    plan = Lowering(build_model(load(ROOT / "specs" / "ticdc_craft.yaml"))).plans["frame"]
    text = plan.describe()
    assert "region f_size_tables: f_size_tables_length bytes ending at limit1" in text
    assert "no bytes: f_term_dictionary = []" in text
    assert "read by" not in text  # no runtime object reads a region


def test_the_compiled_tier_reads_the_whole_frame():
    if COMPILED is None:
        pytest.skip("the compiled tier of ticdc_craft is not built")
    assert "frame" not in craft.FALLBACKS["compiled"]


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_vectors_and_samples(name):
    assert held(MESSAGES[name])


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_every_truncation_and_missing_prefix(name):
    data = MESSAGES[name]
    for n in range(len(data)):
        held(data[:n])
        held(data[n + 1 :])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_byte_mutations(data):
    wire = bytearray(MESSAGES[data.draw(st.sampled_from(sorted(MESSAGES)))])
    for _ in range(data.draw(st.integers(1, 3))):
        wire[data.draw(st.integers(0, len(wire) - 1))] = data.draw(st.integers(0, 255))
    held(bytes(wire))


@pytest.mark.parametrize("seed", range(4))
def test_inserted_and_removed_bytes(seed):
    rnd = random.Random(seed)
    for name in sorted(MESSAGES):
        data = MESSAGES[name]
        for _ in range(40):
            at = rnd.randrange(len(data))
            held(data[:at] + bytes([rnd.randrange(256)]) + data[at:])
            held(data[:at] + data[at + 1 :])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), cut=st.integers(0, 400), byte=st.integers(0, 255))
def test_generated_messages(data, cut, byte):
    wire = craft.build(data.draw(craft.strategies("message")))
    assert held(wire)
    held(wire[:cut])
    if cut < len(wire):
        held(wire[:cut] + bytes([byte]) + wire[cut + 1 :])


@pytest.mark.parametrize(
    "limits",
    [
        {"max_count": 1},
        {"max_count": 2},
        {"max_string": 3},
        {"max_message_bytes": 20},
        {"max_depth": 2},
    ],
)
def test_limits(limits):
    lim = Limits.from_kwargs(limits)
    for data in MESSAGES.values():
        held(data, lim)


def _trailer(data: bytes) -> tuple[bytes, bytes, bytes]:
    """A frame as (front, term dictionary, size tables), its tables' length dropped."""
    frame = craft.parse(data, "frame")
    tables = frame.size_tables_length
    tail = len(write_reversed_uvarint(tables))
    terms = frame.size_tables[0][1]
    body_end = len(data) - tail - tables
    return data[: body_end - terms], data[body_end - terms : body_end], data[body_end:-tail]


def _frame(front: bytes, terms: bytes, tables: bytes) -> bytes:
    return front + terms + tables + write_reversed_uvarint(len(tables))


def test_trailers_read_in_their_odd_forms():
    front, terms, tables = _trailer(MESSAGES["seed_row_changed_update"])
    assert held(_frame(front, terms, tables))
    # the tables' length as a ten-byte reversed uvarint (the exact reader's: it keeps the
    # bytes), and one past 64 bits (refused)
    n = len(tables)
    assert kept(front + terms + tables + bytes([0x00] + [0x80] * 8 + [0x80 | n]))
    assert not held(front + terms + tables + bytes([0x02] + [0x80] * 8 + [0x80 | n]))
    # a table's count, a table's element as a non-shortest uvarint: kept too
    assert tables[0] == 2 and tables[1] < 0x80
    assert kept(_frame(front, terms, b"\x82\x00" + tables[1:]))
    assert kept(_frame(front, terms, tables[:1] + bytes([tables[1] | 0x80, 0]) + tables[2:]))
    # one more size table than the events need, or one fewer: refused
    assert not held(_frame(front, terms, tables + b"\x00"))
    assert not held(_frame(front, terms, tables[: tables.rindex(b"\x02")]))
    # a term dictionary of 0 terms (writers omit it), bytes after its last term, a term
    # that is no UTF-8: refused, with construct's errors
    count = write_uvarint(len(terms))
    assert not held(_frame(front, b"\x00", tables.replace(count, b"\x01", 1)))
    assert not held(_frame(front, terms + b"\x00", tables))
    bad = terms[: len(terms) - 1] + b"\xff"
    assert not held(_frame(front, bad, tables))


def test_a_frame_with_no_terms():
    assert held(MESSAGES["resolved.bin"])
    assert craft.parse(MESSAGES["resolved.bin"], "frame").term_dictionary == []


def test_a_text_field_given_bytes_is_refused_in_every_tier():
    model = craft.parse(MESSAGES["ddl_add_column.bin"], "frame")
    model.bodies[0].query = b"ALTER TABLE t"
    with pytest.raises(EncodeError, match=r"^bodies\[0\]\.query: expected str, got bytes"):
        craft.build(model, "frame")


@pytest.mark.parametrize("code", [0, 4, 2**32, True, "DDL", None])
def test_a_header_type_no_event_type_lists_is_refused_in_every_writer(code):
    """The header's ``type`` chunk has a strict enum: a code it does not list is written by
    no writer (it would be a DecodeError when read back), the fast or compiled one (the
    tier's) nor construct's."""
    for build in (craft.build, craft.build_construct):
        model = craft.parse(MESSAGES["ddl_add_column.bin"], "frame")
        model.header.type[0] = code
        with pytest.raises(EncodeError, match=r"is not an EventType") as info:
            build(model, "frame")
        assert info.value.path == "header.type[0]"


@pytest.mark.parametrize("column", ["commit_ts", "type", "partition", "schema", "table"])
@pytest.mark.parametrize("change", ["longer", "empty"])
def test_a_header_column_of_another_length_than_the_bodies_is_refused(column, change):
    """Each of the header's columns has one element per body (the size tables' count, read
    back): one longer or emptied is refused on build, not written for parse to refuse. An
    emptied ``type``, which the first body reads its event's type from, is refused by the
    same rule in the same words (it was Python's "list index out of range" there)."""
    for build in (craft.build, craft.build_construct):
        model = craft.parse(MESSAGES["ddl_add_column.bin"], "frame")
        values = getattr(model.header, column)
        setattr(model.header, column, values * 3 if change == "longer" else [])
        with pytest.raises(EncodeError) as info:
            build(model, "frame")
        assert (info.value.path, info.value.message) == (
            "bodies",
            "the header's commit_ts, type, partition, schema and table need one element per body",
        )


@pytest.mark.parametrize(
    "term, message",
    [
        (b"\xff", "invalid utf-8: invalid start byte at byte 0"),
        (b"ab\xc3", "invalid utf-8: unexpected end of data at byte 2"),
        (b"\xed\xa0\x80", "invalid utf-8: invalid continuation byte at byte 0"),
        ("s\udc80", "'s\\udc80' is not text UTF-8 can write (surrogates not allowed)"),
    ],
)
def test_a_term_that_is_no_utf8_is_refused_in_every_writer(term, message):
    """The term dictionary is text: its reader refuses bytes that are no UTF-8, so every
    writer (the tier's fast or compiled one, and construct's) refuses them, bytes or a str
    with a lone surrogate, at the term, in the same words; bytes that are UTF-8 are its
    text."""
    for build in (craft.build, craft.build_construct):
        model = craft.parse(MESSAGES["row_batch.bin"], "frame")
        model.term_dictionary[1] = term
        with pytest.raises(EncodeError) as info:
            build(model, "frame")
        assert (info.value.path, info.value.message) == ("term_dictionary[1]", message)
        model.term_dictionary[1] = b"orders"  # UTF-8: its text
        assert craft.parse(build(model, "frame"), "frame").term_dictionary[1] == "orders"


@pytest.mark.parametrize("given", ["ab", {}, {"a": 1}, 7])
def test_a_term_dictionary_that_is_no_list_is_refused_in_every_writer(given):
    """A str or a dict has a length and elements: taken, ``"ab"`` was the terms ``a`` and
    ``b``, ``{}`` no terms (the frame's ids then named none); every writer refuses it."""
    for build in (craft.build, craft.build_construct):
        model = craft.parse(MESSAGES["row_batch.bin"], "frame")
        model.term_dictionary = given
        with pytest.raises(EncodeError) as info:
            build(model, "frame")
        assert info.value.path == "term_dictionary"
        assert info.value.message.startswith(f"expected a list, got {type(given).__name__}")
