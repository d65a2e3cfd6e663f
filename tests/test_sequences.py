"""Repetition until a terminator and block-encoded sequences (runtime/core/sequences.py) on a
small spec of their own; Avro's container files use the blocks for real
(tests/test_gallery_avro_container.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.core import leb128
from runtime.core.errors import DecodeError, EncodeError
from tests.test_fastbuild import written
from tests.test_process import spec_module

SPEC = """\
format: seqs
title: Sequences
doc: Lists ended by a terminator, and Avro-style blocks.
endian: le
default_record: message
records:
  message:
    doc: Three lists.
    fields:
      - name: kept
        type: u8
        repeat: {until: "_item == 0"}
        doc: Bytes up to and including a 0.
      - name: words
        type: word
        repeat: {until: "len(_item.text) == 0", include: false, terminator: {text: ""}}
        doc: Words until an empty one, which is not in the list.
      - name: numbers
        type: varint
        repeat: blocks
        doc: Avro-style blocks of longs.
      - name: pairs
        type: pair
        repeat: blocks
        doc: Blocks of records (Avro's map entries).
  word:
    doc: A length-prefixed word.
    fields:
      - {name: text, type: str, size: u8, doc: "The text."}
  pair:
    doc: A key and a value.
    fields:
      - {name: key, type: str, size: varint, doc: "The key."}
      - {name: value, type: varint, doc: "The value."}
"""


@pytest.fixture(scope="module")
def seqs(tmp_path_factory):
    return spec_module(tmp_path_factory, "seqs_sequences", SPEC)


def z(n: int) -> bytes:
    return leb128.write_zigzag(n)


def test_until_and_blocks_parse_and_rebuild(seqs):
    numbers = z(2) + z(5) + z(-1) + z(-1) + z(1) + z(7) + z(0)  # [5, -1], then sized [7]
    pairs = z(1) + z(1) + b"a" + z(9) + z(0)
    data = b"\x03\x01\x00" + b"\x02hi\x00" + numbers + pairs
    model = seqs.parse(data)
    assert model.kept == [3, 1, 0]
    assert [w.text for w in model.words] == ["hi"] and model.words_terminator.text == ""
    assert model.numbers == [5, -1, 7] and model.numbers_blocks == [2, -1]
    assert [(p.key, p.value) for p in model.pairs] == [("a", 9)]
    assert seqs.build(model) == data
    assert written(seqs, model, "message") == data  # the fast writer's own bytes
    assert seqs.build(seqs.from_dict(seqs.to_dict(model))) == data


def test_new_models_write_one_block(seqs):
    model = seqs.Message(kept=[0], words=[seqs.Word("x")], numbers=[1, 2, 3], pairs=[])
    data = seqs.build(model)
    assert data == b"\x00" + b"\x01x\x00" + z(3) + z(1) + z(2) + z(3) + z(0) + z(0)
    assert written(seqs, model, "message") == data
    model.numbers_blocks = [1, 1]  # no longer adds up: one block again
    assert seqs.build(model) == written(seqs, model, "message") == data
    model.numbers_blocks = [-2, 1]  # adds up: a sized block, then a plain one
    model.words_terminator = seqs.Word("")
    assert written(seqs, model, "message") == seqs.build_construct(model)
    assert seqs.parse(seqs.build(model)).numbers_blocks == [-2, 1]


@pytest.mark.parametrize(
    "change",
    [
        {"kept": [1]},  # no terminator last
        {"kept": [0, 0]},  # a terminator before the last
        {"words": [("",)]},  # the excluded terminator inside the list
        {"words_terminator": ("x",)},  # a terminator that does not end the list
        {"numbers": ["1"]},
    ],
)
def test_models_the_writer_cannot_write_are_constructs_encode_error(seqs, change):
    fields = {"kept": [0], "words": [], "numbers": [], "pairs": []}
    for name, value in change.items():
        if name.startswith("words"):
            value = [seqs.Word(*v) for v in value] if name == "words" else seqs.Word(*value)
        fields[name] = value
    model = seqs.Message(**fields)
    with pytest.raises(Exception):  # noqa: B017 - any failure: build() falls back
        written(seqs, model, "message")
    with pytest.raises(EncodeError) as fast:
        seqs.build(model)
    with pytest.raises(EncodeError) as oracle:
        seqs.build_construct(model)
    assert (str(fast.value), fast.value.path) == (str(oracle.value), oracle.value.path)


def test_errors(seqs):
    with pytest.raises(DecodeError, match="before its terminator") as info:
        seqs.parse(b"\x03\x01")
    assert info.value.path == "kept"
    bad_size = b"\x00" + b"\x00" + z(-1) + z(5) + z(1) + z(0) + z(0)
    with pytest.raises(DecodeError, match="byte size") as info:
        seqs.parse(bad_size)
    assert info.value.path == "numbers"
    with pytest.raises(DecodeError, match="max_count"):
        seqs.parse(b"\x00\x00" + z(10**9), max_count=1000)
    with pytest.raises(EncodeError, match="terminator"):
        seqs.build(seqs.Message(kept=[1], words=[], numbers=[], pairs=[]))


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.integers(1, 255)),
    st.lists(st.text(min_size=1, max_size=5).filter(lambda t: len(t.encode()) < 256)),
    st.lists(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1), max_size=4),
    st.lists(st.booleans(), min_size=4, max_size=4),
)
def test_generated(seqs, kept, words, blocks, sized):
    numbers = b""
    for block, with_size in zip(blocks, sized):
        items = b"".join(z(n) for n in block)
        numbers += z(-len(block)) + z(len(items)) if with_size else z(len(block))
        numbers += items
    numbers += z(0)
    text = b"".join(bytes([len(w.encode())]) + w.encode() for w in words) + b"\x00"
    data = bytes(kept) + b"\x00" + text + numbers + z(0)
    model = seqs.parse(data)
    assert model.numbers == [n for block in blocks for n in block]
    assert seqs.build(model) == data == written(seqs, model, "message")
