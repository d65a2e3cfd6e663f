"""The spec-language concepts Kafka brought, on a small spec of their own: a checksum over
fields after it (``span:``), derived values, nullable lengths and a nested Spark row
path; each refusal at load with its ``file:line``."""

from __future__ import annotations

import pytest

from generator.emit.generate import render_spec
from runtime.core.errors import DecodeError, SpecError
from tests.test_generator import load_module

SPEC = """\
format: framed
title: Framed
doc: A CRC over what follows it, a derived total, nullable names.
endian: be
default_record: file
records:
  file:
    doc: Frames back to back.
    spark: {row: frames.body.items}
    fields:
      - {name: frames, type: frame, repeat: eos, doc: "the frames"}
  frame:
    doc: A base, then a sized body.
    fields:
      - {name: base, type: u16, doc: "added to every item"}
      - {name: body, type: body, size: u8, doc: "the body"}
  body:
    doc: A CRC over the rest, then items.
    fields:
      - name: crc
        type: u32
        checksum: {algorithm: crc32c, over: [{span: [count, items]}]}
        doc: CRC-32C of count and items.
      - {name: count, type: u8, doc: "how many items"}
      - {name: doubled, type: u16, derived: "count * 2", doc: "not on the wire"}
      - {name: items, type: item, repeat: {count: count}, doc: "the items"}
  item:
    doc: One item.
    fields:
      - {name: delta, type: varint, doc: "a delta"}
      - {name: total, type: s64, derived: "_parent._parent.base + delta", doc: "base + delta"}
      - {name: name, type: str, size: varint, nullable: true, doc: "-1 is null"}
"""


@pytest.fixture(scope="module")
def framed(tmp_path_factory):
    path = tmp_path_factory.mktemp("framed") / "framed.yaml"
    path.write_text(SPEC)
    _, text = render_spec(path)
    return load_module("framed", text, path.parent)


def model(m, names):
    items = [m.Item(delta=i, name=n) for i, n in enumerate(names)]
    body = m.Body(count=len(items), items=items)
    return m.File(frames=[m.Frame(base=100, body=body)])


def test_build_writes_the_crc_and_parse_derives(framed):
    data = framed.build(model(framed, ["a", None]))
    assert framed.build_construct(model(framed, ["a", None])) == data
    parsed = framed.parse(data)
    assert parsed == framed.parse_construct(data)
    body = parsed.frames[0].body
    assert body.doubled == 4 and [i.total for i in body.items] == [100, 101]
    assert [i.name for i in body.items] == ["a", None] and data[-1] == 0x01  # zigzag -1
    assert framed.build(parsed) == data
    assert len(list(framed.to_rows(parsed))) == 2


def test_a_corrupt_byte_after_the_crc_is_its_mismatch_on_both_paths(framed):
    data = bytearray(framed.build(model(framed, ["abc"])))
    data[-1] ^= 0x20  # inside the name, after the CRC
    errors = []
    for parse in (framed.parse, framed.parse_construct):
        with pytest.raises(DecodeError) as info:
            parse(bytes(data))
        errors.append((str(info.value), info.value.path))
    assert errors[0] == errors[1]
    assert errors[0][1] == "frames[0].body.crc" and "checksum mismatch: stored 0x" in errors[0][0]


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("{span: [count, items]}", "{span: [items, count]}", "wire order"),
        ("{span: [count, items]}", "{span: [count, doubled]}", "not a field on the wire"),
        ("size: varint, nullable: true", "size: u8, nullable: true", "signed length prefix"),
        ('derived: "count * 2"', 'derived: "count * 2", size: 2', "derived value"),
        ("row: frames.body.items", "row: frames.base", "row path"),
        # a misspelt name in a row path, a row field or a Spark type: the names near it
        (
            "row: frames.body.items",
            "row: frames.bdy.items",
            r"row path .* \(did you mean 'body'\?\)",
        ),
        (
            "row: frames.body.items",
            "row: frame",
            r"repeated record field \(did you mean 'frames'\?\)",
        ),
        (
            'doc: "a delta"}',
            'doc: "a delta", spark: {type: timestamp_mus}}',
            r"'timestamp_mus' \(did you mean 'timestamp_ms' or 'timestamp_us'\?\)",
        ),
    ],
)
def test_refused_at_load_with_file_and_line(tmp_path, old, new, message):
    path = tmp_path / "framed.yaml"
    assert old in SPEC
    path.write_text(SPEC.replace(old, new))
    with pytest.raises(SpecError, match=message) as info:
        render_spec(path)
    assert "framed.yaml:" in str(info.value)
