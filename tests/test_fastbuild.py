"""The generated build fast path writes the bytes of the construct path.

For every generated module and every record with a fast writer (``FAST_WRITERS``): the
models of the shipped samples and property-generated models are written by the writer
itself (it must not give up on them) and equal construct's build; models it cannot write
fall back to construct, so the error is construct's. For Craft, ``encode_events`` with the
generated frame writer equals the construct-only codec on generated events.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import runtime.formats.craft as rt_craft
from generated import ticdc_craft as craft
from generator.emit.generate import render_spec
from runtime.core.chunks import Chunk
from runtime.core.errors import DecodeError, EncodeError, SpecError
from runtime.core.unmap import WriteFaults
from tests.test_craft_generated import _events
from tests.test_generator import load_module

ROOT = Path(__file__).resolve().parent.parent
CHECKED = rt_craft.CraftMessage(
    craft.frame,
    craft.VALUE_DECODERS["column_group.values"],
    craft.DICTIONARIES["frame.term_dictionary"],
    craft.MAPPINGS["message"],
    craft.UNMAPPINGS["message"],
    fast=False,
)
"""The construct-only codec: quick parts off, frames built by construct."""


def modules():
    out = []
    for path in sorted((ROOT / "generated").glob("*.py")):
        module = importlib.import_module(f"generated.{path.stem}")
        if getattr(module, "FAST_WRITERS", None):
            out.append(module)
    return out


def written(module, model, record) -> bytes:
    """The writer's own bytes (not the construct fallback of ``build``)."""
    out = bytearray()
    module.FAST_WRITERS[record](model, out)
    return bytes(out)


def sample_cases():
    """(format, sample, record) for every sample that parses as a record with a writer."""
    cases = []
    for module in modules():
        for path in sorted((ROOT / "samples" / module.FORMAT).iterdir()):
            for record in module.FAST_WRITERS:
                try:
                    module.parse_construct(path.read_bytes(), record)
                except DecodeError:
                    continue
                cases.append((module.FORMAT, path.name, record))
    return cases


def test_craft_layout_records_have_a_fast_writer():
    assert {"frame", "header", "column_group"} <= set(craft.FAST_WRITERS)
    assert "body" not in craft.FAST_WRITERS  # it reads `_parent`: written inside frame only
    assert craft._CRAFT_MESSAGE._write_fast_frame is craft.FAST_WRITERS["frame"]


@pytest.mark.parametrize(("fmt", "name", "record"), sample_cases())
def test_same_bytes_on_samples(fmt, name, record):
    module = importlib.import_module(f"generated.{fmt}")
    data = (ROOT / "samples" / fmt / name).read_bytes()
    model = module.parse_construct(data, record)
    expected = module.build_construct(model, record)
    assert written(module, model, record) == expected == module.build(model, record)


def strategy_cases():
    cases = []
    for module in modules():
        for record in module.FAST_WRITERS:
            entry = module._STRATEGY_RECORDS.get(record, {})
            if not entry.get("no_strategy") and not entry.get("needs_parent"):
                cases.append((module.FORMAT, record))
    return cases


@pytest.mark.parametrize(("fmt", "record"), strategy_cases())
def test_same_bytes_on_generated_models(fmt, record):
    module = importlib.import_module(f"generated.{fmt}")

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(module.strategies(record))
    def check(model):
        assert written(module, model, record) == module.build_construct(model, record)

    check()


def _frame_of(events):
    """The frame model ``encode`` builds from ``events`` (one message)."""
    parts = [CHECKED.parts(i, ev) for i, ev in enumerate(events)]
    frame = craft.UNMAPPINGS["message"].frame(parts, WriteFaults(("events",)))
    CHECKED.terms.intern(frame)
    return frame


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_events())
def test_craft_encoder_with_the_frame_writer_equals_the_construct_codec(events):
    frame = _frame_of(events)
    data = craft.frame.build(frame)
    assert written(craft, frame, "frame") == data
    assert craft._CRAFT_MESSAGE.encode(events) == CHECKED.encode(events) == data
    assert list(craft.encode_events(events, max_batch_size=3)) == list(
        CHECKED.encode_events(events, max_batch_size=3)
    )
    # the parsed frame (enum members, sizes as read) rebuilds the same way
    model = craft.parse(data, "frame")
    assert written(craft, model, "frame") == craft.build_construct(model, "frame") == data


def _error(build, model, record):
    with pytest.raises(EncodeError) as err:
        build(model, record)
    return str(err.value), err.value.path


def _row_frame():
    return craft.parse((ROOT / "samples" / "ticdc_craft" / "row_batch.bin").read_bytes(), "frame")


def _group(frame):
    return frame.bodies[0].column_groups[0]


CHANGES = {
    "version 2": lambda f: setattr(f, "version", 2),
    "unknown group type name": lambda f: setattr(_group(f), "type", "SIDEWAYS"),
    "unknown group type value": lambda f: setattr(_group(f), "type", 9),
    "fewer values than names": lambda f: _group(f).values.pop(),
    "name id beyond int64": lambda f: _group(f).names.__setitem__(0, 2**63),
    "negative commit ts": lambda f: f.header.commit_ts.__setitem__(0, -1),
    "a term that is not text": lambda f: f.term_dictionary.__setitem__(0, 7),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_models_the_writer_cannot_write_raise_constructs_error(change):
    frame = _row_frame()
    CHANGES[change](frame)
    expected = _error(craft.build_construct, frame, "frame")
    assert _error(craft.build, frame, "frame") == expected
    with pytest.raises(Exception):  # noqa: B017 - any failure: build() falls back
        written(craft, frame, "frame")


def test_the_writer_of_a_mapping_model_reads_items_not_methods():
    # construct builds a dict's items; a Container's `values` attribute is the dict method
    group = {
        "type": 1,
        "names": [0, 1],
        "types": [3, 15],
        "flags": [0, 0x80],
        "values": [None, b"x"],
    }
    expected = craft.build_construct(group, "column_group")
    assert written(craft, group, "column_group") == expected == craft.build(group, "column_group")


@given(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=8))
def test_varint_chunk_packs_read_back(values):
    # the quick branches of the runtime packs the writers call, read back by the readers
    unsigned = [v + 2**63 for v in values]
    for chunk, given_values in (
        (Chunk(0, zigzag=True, delta=True), values),
        (Chunk(0, delta=True), unsigned),
        (Chunk(0), unsigned),
        (Chunk(0, delta=True), [v % 200 for v in unsigned]),
        (Chunk(0), [v % 200 for v in unsigned]),
        (Chunk(0, zigzag=True, delta=True), [v % 100 - 50 for v in values]),
    ):
        out = bytearray()
        chunk.pack(given_values, len(given_values), out)
        assert chunk.unpack(bytes(out), 0, len(out), len(given_values))[0] == given_values


@given(st.lists(st.none() | st.binary(max_size=70), max_size=8), st.lists(st.text(max_size=70)))
def test_payload_chunk_packs_read_back(values, texts):
    for chunk, given_values in (
        (Chunk(0, zigzag=True, payload=True), values),
        (Chunk(0, payload=True, encoding="utf-8"), texts),
    ):
        out = bytearray()
        chunk.pack(given_values, len(given_values), out)
        assert chunk.unpack(bytes(out), 0, len(out), len(given_values))[0] == given_values


# -- the language features the writers know, on a small spec of their own -------------

SPEC = """\
format: mixed
title: Mixed
doc: Fixed and variable fields, nested records, conditions and computed values.
endian: le
default_record: file
enums:
  color:
    doc: A color.
    type: u8
    values:
      RED: {value: 1, doc: red}
      BLUE: {value: 2, doc: blue}
records:
  file:
    doc: The file.
    fields:
      - {name: magic, type: u16be, const: 0xCAFE, doc: A magic number.}
      - {name: color, type: u8, enum: color, doc: A color.}
      - {name: ok, type: bool, doc: A flag.}
      - {name: temp, type: f64, doc: A double.}
      - {name: delta, type: s32, doc: A signed int.}
      - {name: name, type: str, size: u16, max_length: 8, doc: A bounded string.}
      - {name: blob, type: bytes, size: 3, doc: Three bytes.}
      - {name: note_size, type: u8, value: "len(note)", doc: The note's length.}
      - {name: note, type: bytes, size: note_size, doc: A sized note.}
      - {name: count, type: uvarint, value: "len(entries)", doc: How many entries.}
      - {name: entries, type: item, repeat: {count: count}, doc: The entries.}
      - {name: boxed, type: item, size: u32, doc: An item after its length.}
      - {name: extra, type: varint, if: "ok", doc: Only when ok.}
      - {name: total, type: u16, value: "sizeof(boxed) + sum(sizeof(entries))", doc: Sizes.}
      - {name: rest, type: s64, repeat: eos, doc: The rest.}
  item:
    doc: One item.
    tag: 0x0f
    fields:
      - {name: value, tag: 0x07, type: s16, doc: A value after its tag.}
"""


def _mixed(tmp_path, text: str = SPEC):
    spec = tmp_path / "mixed.yaml"
    spec.write_text(text)
    return load_module("mixed_mod", render_spec(spec)[1], tmp_path)


def _outcome(build, model, record):
    try:
        return build(model, record)
    except EncodeError as err:
        return str(err), err.path


def test_language_features_write_the_bytes_of_construct(tmp_path):
    mixed = _mixed(tmp_path)
    assert set(mixed.FAST_WRITERS) == {"file", "item"}

    item = st.builds(mixed.Item, value=st.integers(-(2**15), 2**15 - 1))
    files = st.builds(
        mixed.File,
        color=st.sampled_from([*mixed.Color, "RED"]),
        ok=st.booleans(),
        temp=st.floats(),
        delta=st.integers(-(2**31), 2**31 - 1),
        name=st.text(max_size=3),
        blob=st.binary(min_size=3, max_size=3),
        note=st.binary(max_size=20),
        entries=st.lists(item, max_size=3),
        boxed=item,
        extra=st.none() | st.integers(-(2**63), 2**63 - 1),
        rest=st.lists(st.integers(-(2**63), 2**63 - 1), max_size=3),
    )

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(files)
    def check(model):
        expected = _outcome(mixed.build_construct, model, "file")
        assert _outcome(mixed.build, model, "file") == expected
        if isinstance(expected, bytes):  # the writer wrote it, not the fallback
            assert written(mixed, model, "file") == expected

    check()
    entries = [mixed.Item(value=1), mixed.Item(value=-2)]
    model = mixed.parse_construct(written(mixed, _mixed_model(mixed, entries=entries), "file"))
    assert model.total == (4 + 4) + 2 * 4 and model.extra == -3  # boxed: its length too
    bad = [
        {"magic": 0xBEEF},
        {"color": 7},
        {"ok": 1},
        {"name": "x" * 9},
        {"name": b"bytes"},
        {"blob": b"toolong"},
        {"delta": 2**31},
        {"entries": [mixed.Item(value=2**15)]},
        {"rest": [1.5]},
    ]
    for change in bad:
        broken = dataclasses.replace(_mixed_model(mixed, entries=entries), **change)
        expected = _outcome(mixed.build_construct, broken, "file")
        assert isinstance(expected, tuple), change
        assert _outcome(mixed.build, broken, "file") == expected


def _mixed_model(mixed, **repeated):
    return mixed.File(
        color=mixed.Color.BLUE, ok=True, temp=-0.0, delta=-5, name="héé", blob=b"abc",
        note=b"hi", boxed=mixed.Item(value=3), extra=-3, rest=[2**63 - 1, -(2**63)], **repeated,
    )  # fmt: skip


def _plainbuffer_message():
    from generated import plainbuffer

    data = (ROOT / "samples" / "plainbuffer" / "update_row_ops.bin").read_bytes()
    return plainbuffer, plainbuffer.parse(data)


PLAINBUFFER_CHANGES = {
    "no rows": lambda m: m.rows.clear(),
    "a name that is bytes": lambda m: setattr(m.rows[0].primary_key[0], "name", b"id"),
    "an unknown op": lambda m: setattr(m.rows[0].attributes[1], "op", "SHRED"),
    "a string value that is an int": lambda m: setattr(m.rows[0].primary_key[0].value, "value", 5),
    "an integer beyond int64": lambda m: setattr(m.rows[0].primary_key[1].value, "value", 2**63),
    "a wrong magic": lambda m: setattr(m, "header", 0x76),
}


@pytest.mark.parametrize("change", sorted(PLAINBUFFER_CHANGES))
def test_plainbuffer_models_the_writer_cannot_write_raise_constructs_error(change):
    plainbuffer, message = _plainbuffer_message()
    PLAINBUFFER_CHANGES[change](message)
    expected = _error(plainbuffer.build_construct, message, "message")
    assert _error(plainbuffer.build, message, "message") == expected
    with pytest.raises(Exception):  # noqa: B017 - any failure: build() falls back
        written(plainbuffer, message, "message")


def test_plainbuffer_checksums_are_computed_from_what_was_written():
    plainbuffer, message = _plainbuffer_message()
    data = plainbuffer.build(message)
    message.rows[0].checksum = message.rows[0].primary_key[0].checksum = 0  # ignored on build
    message.rows[0].attributes[0].timestamp += 1
    rebuilt = written(plainbuffer, message, "message")
    assert rebuilt != data and rebuilt == plainbuffer.build_construct(message, "message")
    assert plainbuffer.parse(rebuilt).rows[0].checksum != 0


def test_a_spec_whose_expression_reads_a_dict_method_name_is_refused(tmp_path):
    # construct's contexts are dicts: `len(items)` there would be len() of the items method
    with pytest.raises(SpecError, match="cannot read a field named 'items'"):
        _mixed(tmp_path, SPEC.replace("entries", "items"))


@pytest.mark.parametrize("value", [42, "row", (1, 2)])
def test_a_value_that_is_no_model_is_an_encode_error_on_both_paths(value):
    from generated import plainbuffer

    fast, oracle = (
        _outcome(b, value, "cell") for b in (plainbuffer.build, plainbuffer.build_construct)
    )
    assert (
        fast
        == oracle
        == (f"<model>: expected a model or a dict, got {type(value).__name__} {value!r}", "")
    )


FORWARD = """\
format: forward
title: Forward sizes
doc: Lengths written before the record and the list they measure.
endian: le
default_record: message
records:
  message:
    doc: One message.
    fields:
      - {name: length, type: u8, value: "sizeof(body)", doc: "The body's byte size."}
      - {name: body, type: item, size: length, doc: "The body."}
      - {name: count, type: u8, value: "len(entries)", doc: "How many entries."}
      - {name: total, type: u16, value: "sum(sizeof(entries))", doc: "The entries' bytes."}
      - {name: entries, type: item, repeat: {count: count}, doc: "The entries."}
  item:
    doc: An item.
    fields:
      - {name: a, type: u16, doc: "A number."}
      - {name: s, type: str, size: u8, doc: "A text."}
"""


def test_a_length_before_the_record_and_list_it_measures(tmp_path):
    """``value: sizeof(x)`` on a field written before ``x`` (a record, a list of them):
    construct builds ``x`` on its own to measure it, the fast writer the same way."""
    module = _mixed(tmp_path, FORWARD)
    assert module.FALLBACKS["build"] == {} and "message" in module.FAST_WRITERS
    items = st.builds(module.Item, a=st.integers(0, 2**16 - 1), s=st.text(max_size=5))

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(items, st.lists(items, max_size=4))
    def check(body, entries):
        model = module.Message(body=body, entries=entries)
        data = module.build_construct(model)
        assert written(module, model, "message") == data == module.build(model)
        parsed = module.parse(data)
        assert parsed.length == len(data) - 4 - parsed.total and parsed.body == body
        assert parsed.entries == entries

    check()


def test_the_compiled_writers_replace_the_fast_writers_where_built():
    """The compiled tier's writers (generator/emit/compiled_writers.py) are the ones
    ``build`` and the Craft codec use; pure Python keeps the fast writers."""
    if craft._COMPILED is None:
        assert craft.COMPILED_WRITERS == {} and craft.FAST_WRITERS["frame"] is craft._write_frame
        return
    assert set(craft.COMPILED_WRITERS) == {"header", "column_group", "frame"}
    assert all(craft.FAST_WRITERS[n] is w for n, w in craft.COMPILED_WRITERS.items())
    assert craft._CRAFT_MESSAGE._compiled_batches is craft.COMPILED_WAY_BACKS["message"][0]
