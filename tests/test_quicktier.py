"""The quick tier (``_quick_<record>``, generator/emit/quicktier.py): ``parse`` tries it first,
so it must take the shipped inputs itself (else it only costs time) and must never take
what the exact fast path refuses, nor give another model. ``tests/test_fastpath.py`` holds
``parse`` (quick tier, then the exact reader) to the construct path on the same inputs;
here the quick reader alone is held to the exact one."""

from __future__ import annotations

import importlib
import textwrap

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import runtime.core.fast as rt_fast
from generator.emit.generate import render_spec
from runtime.core.limits import DEFAULT
from tests.test_fastpath import Same, fast_formats, inputs
from tests.test_generator import load_module


def quick_formats() -> list[str]:
    return [f for f in fast_formats() if importlib.import_module(f"generated.{f}").QUICK_READERS]


def quick(module, data: bytes, record: str, limits=DEFAULT):
    """The quick reader's model, or None where it hands the input to the exact reader."""
    reader, depth = module.QUICK_READERS[record]
    assert depth <= limits.max_depth
    try:
        model, pos = reader(data, 0, len(data), limits)
    except rt_fast.QUICK_FAILURES:
        return None
    return model if pos == len(data) else None


def exact(module, data: bytes, record: str, limits=DEFAULT):
    try:
        return module.FAST_READERS[record](data, 0, len(data), limits, 1)
    except module.DecodeError:
        return None


def agree(module, data: bytes, record: str) -> bool:
    """Whether the quick reader took ``data``; when it did, the exact reader took it too
    and gave the same model."""
    got = quick(module, data, record)
    if got is None:
        return False
    want = exact(module, data, record)
    assert want is not None and want[1] == len(data), "the quick tier took refused bytes"
    assert Same(module, got) == Same(module, want[0])
    return True


def test_plainbuffer_and_mysql_have_quick_tiers():
    assert "plainbuffer" in quick_formats()
    pb = importlib.import_module("generated.plainbuffer")
    # cell_value is read inline by the cell (its only reader), so it has no entry of its own
    assert set(pb.QUICK_READERS) == {"message", "row", "cell"}
    assert pb.QUICK_READERS["message"][1] == 4  # message > row > cell > cell_value
    mysql = importlib.import_module("generated.mysql_serialization").QUICK_READERS
    # a message counts no nesting (as construct's); the event around it is one deep
    assert {name: depth for name, (_, depth) in mysql.items()} == {
        "gtid_tagged_body": 0,
        "gtid_tagged_event": 1,
        "gtid_tagged_event_no_checksum": 1,
        "gtid_body": 3,  # body > commit_timestamps > uint56 (or > packed_integer > uint24)
        "binlog_file": 5,  # file > event > an untagged GTID body (a tagged one: a message)
    }


@pytest.mark.parametrize("fmt", quick_formats())
def test_the_quick_tier_takes_every_sample(fmt):
    module = importlib.import_module(f"generated.{fmt}")
    for record, data in inputs(fmt):
        record = record or module.DEFAULT_RECORD
        if record in module.QUICK_READERS:
            assert agree(module, data, record), record


@pytest.mark.parametrize("fmt", quick_formats())
def test_the_quick_tier_refuses_every_truncation(fmt):
    module = importlib.import_module(f"generated.{fmt}")
    for record, data in inputs(fmt):
        record = record or module.DEFAULT_RECORD
        if record in module.QUICK_READERS:
            for n in range(len(data)):
                agree(module, data[:n], record)


@pytest.mark.parametrize("fmt", quick_formats())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_quick_tier_takes_only_what_the_exact_reader_takes(fmt, data):
    module = importlib.import_module(f"generated.{fmt}")
    mutated, record = mutated_sample(module, fmt, data)
    if record in module.QUICK_READERS:  # (MySQL's files and unsummed events have none)
        agree(module, mutated, record)


def mutated_sample(module, fmt: str, data) -> tuple[bytes, str]:
    """One of ``fmt``'s inputs with one to three bytes changed, and its record."""
    samples = inputs(fmt)
    record, raw = samples[data.draw(st.integers(0, len(samples) - 1))]
    buf = bytearray(raw)
    for _ in range(data.draw(st.integers(1, 3))):
        buf[data.draw(st.integers(0, len(buf) - 1))] = data.draw(st.integers(0, 255))
    return bytes(buf), record or module.DEFAULT_RECORD


@pytest.mark.parametrize("record", ["message", "row", "cell"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_quick_tier_takes_every_generated_plainbuffer_model(record, data):
    module = importlib.import_module("generated.plainbuffer")
    model = data.draw(module.strategies(record))
    wire = module.build(model, record)
    # a model may build bytes that another case reads (msgpack: an ext8 of type -1 and 12
    # bytes is a timestamp, whose nanoseconds may then be out of range): not a reader's model
    assume(exact(module, wire, record) is not None)
    assert agree(module, wire, record)


def test_limits_send_the_input_to_the_exact_reader():
    module = importlib.import_module("generated.plainbuffer")
    data = max((d for _, d in inputs("plainbuffer")), key=len)
    for limits in ({"max_count": 1}, {"max_string": 2}, {"max_message_bytes": 4}):
        assert quick(module, data, "message", DEFAULT.from_kwargs(limits, DEFAULT)) is None


def test_a_read_past_a_length_is_refused():
    # The quick tier reads fixed items without bounds checks: an INTEGER value whose length
    # says 1 byte is read 8 bytes into what follows, and refused because it ends past the
    # length (the exact reader refuses it for its truncation).
    module = importlib.import_module("generated.plainbuffer")
    cell = module.Cell(
        name="n", value=module.CellValue(type=module.ValueType.INTEGER, value=7), timestamp=1
    )
    data = bytearray(module.build(cell, "cell"))
    length_at = 1 + 1 + 4 + 1 + 1  # cell tag, name tag, name length, "n", value tag
    assert data[length_at : length_at + 4] == (9).to_bytes(4, "little")
    data[length_at : length_at + 4] = (1).to_bytes(4, "little")
    assert quick(module, bytes(data), "cell") is None
    with pytest.raises(module.DecodeError, match="truncated") as err:
        module.parse(bytes(data), "cell")
    assert err.value.path == "value.value"


_SPEC = """\
format: quickcheck
title: Quick tier coverage
doc: Every kind of item the quick tier reads that PlainBuffer does not.
endian: be
default_record: frame
enums:
  kind:
    doc: Which payload.
    type: u8
    values:
      NUMBER: {value: 1, doc: a u16}
      FLAG: {value: 2, doc: a bool}
      OTHER: {value: 3, doc: anything else}
records:
  point:
    doc: A point, read twice by the frame (so called, not inlined).
    fields:
      - {name: x, type: s8, doc: x}
      - {name: y, type: f32, doc: y}
  item:
    doc: One item.
    fields:
      - {name: kind, type: u8, enum: kind, doc: selector}
      - name: payload
        doc: by kind
        switch_on: kind
        cases:
          NUMBER: u16
          FLAG: bool
          default: {type: bytes, size: u8}
  frame:
    doc: A frame.
    fields:
      - {name: magic, type: u16, const: 0xcafe, doc: magic}
      - {name: code, type: str, size: 3, encoding: ascii, doc: fixed-size text}
      - {name: note, type: str, size: u8, max_length: 10, doc: short text}
      - {name: a, type: point, doc: a point}
      - {name: b, type: point, doc: another}
      - {name: first, type: item, size: u16, doc: one item in its length}
      - {name: crc, type: u32, doc: of the note and first, checksum: {algorithm: crc32, over: [note, first]}}
      - {name: items, type: item, repeat: eos, doc: the rest}
"""


def test_other_items_in_a_spec_of_their_own(tmp_path):
    path = tmp_path / "quickcheck.yaml"
    path.write_text(textwrap.dedent(_SPEC))
    _, text = render_spec(path)
    module = load_module("quickcheck_generated", text, tmp_path)
    assert set(module.QUICK_READERS) == {"frame", "item", "point"}
    assert "f_a, pos = _quick_point(" in text  # read twice: called, not inlined

    @settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(model=module.strategies("frame"), cut=st.integers(0, 60), byte=st.integers(0, 255))
    def check(model, cut, byte):
        data = module.build(model, "frame")
        assert agree(module, data, "frame")
        agree(module, data[:cut], "frame")
        if cut < len(data):
            agree(module, data[:cut] + bytes([byte]) + data[cut + 1 :], "frame")

    check()


@pytest.mark.parametrize(
    "fmt, record",
    [
        ("avro_container", "container_file"),
        ("avro_container", "page_view"),
        ("kafka_record_batch", "log_segment"),
        ("msgpack", "stream"),
        ("msgpack", "value"),
        ("png", "png_file"),
    ],
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_quick_tier_takes_every_generated_gallery_model(fmt, record, data):
    module = importlib.import_module(f"generated.{fmt}")
    model = data.draw(module.strategies(record))
    wire = module.build(model, record)
    # a model may build bytes that another case reads (msgpack: an ext8 of type -1 and 12
    # bytes is a timestamp, whose nanoseconds may then be out of range): not a reader's model
    assume(exact(module, wire, record) is not None)
    assert agree(module, wire, record)


def drawn_craft_column_groups(data) -> list[bytes]:
    """The column groups of a drawn Craft message, each built on its own (a column group
    has no strategy of its own: its size comes from the message's trailer)."""
    craft = importlib.import_module("generated.ticdc_craft")
    frame = craft.parse(craft.build(data.draw(craft.strategies("message"))), "frame")
    groups = [g for body in frame.bodies for g in body.column_groups or ()]
    return [craft.build(group, "column_group") for group in groups]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), cut=st.integers(0, 80), byte=st.integers(0, 255))
def test_the_quick_tier_takes_every_generated_craft_column_group(data, cut, byte):
    craft = importlib.import_module("generated.ticdc_craft")
    for wire in drawn_craft_column_groups(data):
        assert agree(craft, wire, "column_group")
        agree(craft, wire[:cut], "column_group")
        if cut < len(wire):
            agree(craft, wire[:cut] + bytes([byte]) + wire[cut + 1 :], "column_group")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), cut=st.integers(0, 400), byte=st.integers(0, 255))
def test_the_quick_tier_takes_every_generated_craft_frame(data, cut, byte):
    """The frame (its trailer read from the end, its chunks counted by it, its bodies and
    column groups sized by its size tables) of drawn messages, cut and mutated."""
    craft = importlib.import_module("generated.ticdc_craft")
    wire = craft.build(data.draw(craft.strategies("message")))
    assert agree(craft, wire, "frame")
    agree(craft, wire[:cut], "frame")
    if cut < len(wire):
        agree(craft, wire[:cut] + bytes([byte]) + wire[cut + 1 :], "frame")


def test_a_recursive_record_is_read_as_deep_as_max_depth_allows_and_no_deeper():
    module = importlib.import_module("generated.msgpack")
    for max_depth in (2, 3, 9, 64):
        limits = DEFAULT.from_kwargs({"max_depth": max_depth}, DEFAULT)
        for levels in range(40):
            data = b"\x91" * levels + b"\xc0"  # arrays of one, then nil
            got, want = quick(module, data, "value", limits), exact(module, data, "value", limits)
            assert (got is None) == (want is None), (max_depth, levels)
            assert got is None or Same(module, got) == Same(module, want[0])


def test_a_recursion_deeper_than_the_python_stack_goes_to_the_exact_reader():
    module = importlib.import_module("generated.msgpack")
    limits = DEFAULT.from_kwargs({"max_depth": 10**9}, DEFAULT)
    assert quick(module, b"\x91" * 20_000 + b"\xc0", "value", limits) is None
