"""Framed files (a spec's ``framed:``): the table the generator derives, the reader the Spark
data source frames a file by (:func:`runtime.spark.source.framed_records`, no JVM needed),
and the spec errors for a file record the table cannot describe."""

from __future__ import annotations

import re
import struct
import types
from pathlib import Path

import pytest

import generated.mysql_serialization as ms
from generator.emit.user_spec import import_spec
from runtime.core.errors import SpecError
from runtime.spark.decode import codec
from runtime.spark.source import _DecodedRecords, detect_kind, framed_records

ROOT = Path(__file__).resolve().parent.parent
BINLOG = (ROOT / "samples" / "mysql_serialization" / "binlog.000001.binlog").read_bytes()
FIRST = 126
"""Where the sample's first event after the format description starts (4 + 122)."""
FRAMING = ms.FRAMED_FILES["binlog_file"]


def test_the_binlog_table_is_what_the_reader_hard_coded():
    """The literals runtime/spark/source.py had before the spec said them."""
    assert FRAMING == {
        "magic": b"\xfebin",
        "leading": (("format_description", "format_description_event"),),
        "field": "events",
        "each": "event",
        "header": 19,
        "size": "event_size",
        "size_at": 9,
        "size_format": "<I",
        "counts_header": True,
    }


def _event_size(data: bytes, at: int, size: int) -> bytes:
    out = bytearray(data)
    struct.pack_into("<I", out, at + 9, size)
    return bytes(out)


_BIG = bytearray(200)
struct.pack_into("<I", _BIG, 9, 200)
_SAMPLE_EVENTS = [(126, 31), (157, 86), (243, 46), (289, 31), (320, 86), (406, 46), (452, 31)]
_FDE = "event at offset 0: format description event: "
CASES = {  # data, limit, prefix length, [(position, length, error)]
    "sample": (BINLOG, 10**6, FIRST, [(p, n, None) for p, n in _SAMPLE_EVENTS]),
    "no magic": (
        b"abcd" + BINLOG[4:], 100, 0,
        [(0, 100, "DecodeError: event at offset 0: not a binlog file: starts with '61626364'")],
    ),
    "format description truncated": (
        BINLOG[:14], 100, 0,
        [(0, 14, f"DecodeError: {_FDE}truncated event header: needs 19 bytes, 10 remain")],
    ),
    "format description under its header": (
        _event_size(BINLOG, 4, 18), 100, 0,
        [(0, 100, f"DecodeError: {_FDE}event_size 18 is less than the 19-byte header")],
    ),
    "format description past the end": (
        _event_size(BINLOG, 4, 10**5), 100, 0,
        [(0, 100, (f"DecodeError: {_FDE}event_size 100000 runs past the end of the file "
                  "(479 bytes remain)"))],
    ),
    "format description over the limit": (
        BINLOG, 121, 0,
        [(0, 121, f"DecodeError: {_FDE}122 bytes exceed the limit max_message_bytes=121")],
    ),
    "event under its header: the rest is one record": (
        _event_size(BINLOG, FIRST, 5), 1000, FIRST,
        [(126, 357, ("DecodeError: event at offset 126: event_size 5 is less than the 19-byte "
                    "header"))],
    ),
    "the rest is one record, at most the limit": (
        _event_size(BINLOG, FIRST, 5), 122, FIRST,
        [(126, 122, ("DecodeError: event at offset 126: event_size 5 is less than the 19-byte "
                    "header"))],
    ),
    "event past the end": (
        BINLOG[:-7], 1000, FIRST,
        [(p, n, None) for p, n in _SAMPLE_EVENTS[:-1]]
        + [(452, 24, ("DecodeError: event at offset 452: event_size 31 runs past the end of the "
                     "file (24 bytes remain)"))],
    ),
    "event header truncated": (
        BINLOG[: FIRST + 31 + 10], 1000, FIRST,
        [(126, 31, None),
         (157, 10, ("DecodeError: event at offset 157: truncated event header: needs 19 bytes, "
                   "10 remain"))],
    ),
    "event over the limit: its header, then the events after it": (
        BINLOG[:FIRST] + bytes(_BIG) + BINLOG[FIRST:], 122, FIRST,
        [(126, 19, ("LimitError: event at offset 126: event of 200 bytes exceeds the limit "
                   "max_message_bytes=122 (only its header is kept)"))]
        + [(p + 200, n, None) for p, n in _SAMPLE_EVENTS],
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", CASES)
def test_binlog_records_positions_and_errors(tmp_path, name):
    data, limit, prefix_length, want = CASES[name]
    path = tmp_path / "binlog.000001"
    path.write_bytes(data)
    prefix, records = framed_records(str(path), "binlog_file", FRAMING, limit)
    assert prefix == data[:prefix_length]
    got = []
    for position, record, err in records:
        assert record == data[position : position + len(record)]
        got.append((position, len(record), err and f"{type(err).__name__}: {err}"))
    assert got == want


def _decode(decoded, events):
    decoded.decode_records(events)
    out = []
    for position, event, _ in events:
        try:
            out.append(len(decoded.rows(position, event)))
        except Exception as err:  # noqa: BLE001 - the error is what is checked
            out.append(str(err))
    return out


def test_decoded_events_name_the_event_and_the_missing_format_description():
    base = codec("mysql_serialization", "binlog_file")
    bad_crc = bytearray(BINLOG[157:243])
    bad_crc[-1] ^= 1
    events = [
        (126, BINLOG[126:157], None),
        (157, bytes(bad_crc), None),
        (243, BINLOG[243:289], None),
    ]
    decoded = _DecodedRecords(base, FRAMING, BINLOG[:FIRST])
    assert _decode(decoded, events) == [
        1,
        "event.crc32 at offset 239: checksum mismatch: stored 0x0bb04946, computed 0x0ab04946",
        1,
    ]
    bad_prefix = bytearray(BINLOG[:FIRST])
    bad_prefix[-1] ^= 1
    decoded = _DecodedRecords(base, FRAMING, bytes(bad_prefix))
    crc = "checksum mismatch: stored 0xb8a1b20c, computed 0xb9a1b20c"
    assert str(decoded.prefix_error) == f"format_description.crc32 at offset 122: {crc}"
    assert _decode(decoded, events[:1]) == [
        (
            "event at offset 126: no format description to decode it with "
            f"(format_description.crc32 at offset 122: {crc})"
        )
    ]


def test_a_binlog_is_detected_by_the_magic_of_the_format_s_framed_file(tmp_path):
    path = tmp_path / "c"
    path.write_bytes(BINLOG)
    assert detect_kind(str(path), magics=(FRAMING["magic"],)) == "binlog"
    assert detect_kind(str(path)) == "raw"  # a format without a framed file


# -- a second format: no leading record, a big-endian size that counts the body only ---------

TLV_LOG = """\
format: tlv_log
doc: A magic, then items, each a kind, the length of its value and the value.
endian: be
default_record: log
records:
  item:
    doc: One item.
    fields:
      - {name: kind, type: u8, doc: Its kind.}
      - {name: length, type: u16, doc: Bytes of the value.}
      - {name: value, type: bytes, size: length, doc: The value.}
  log:
    doc: A log file.
    framed: {size: length, counts: body, name: item}
    spark: {row: items}
    fields:
      - {name: magic, type: u16, const: 0x4c47, doc: The bytes LG.}
      - {name: items, type: item, repeat: eos, doc: The items.}
"""


def test_a_second_spec_s_framed_file(tmp_path):
    spec = tmp_path / "tlv_log.yaml"
    spec.write_text(TLV_LOG)
    mod = import_spec(spec)
    framing = mod.FRAMED_FILES["log"]
    assert framing == {
        "magic": b"LG",
        "leading": (),
        "field": "items",
        "each": "item",
        "header": 3,
        "size": "length",
        "size_at": 1,
        "size_format": ">H",
        "counts_header": False,
    }
    data = b"LG" + b"\x01\x00\x02ab" + b"\x02\x00\x00" + b"\x03\x00\x09abc"
    path = tmp_path / "a.log"
    path.write_bytes(data)
    prefix, records = framed_records(str(path), "log", framing, 100)
    records = list(records)
    assert prefix == b"LG"
    assert [(p, r, e and str(e)) for p, r, e in records] == [
        (2, b"\x01\x00\x02ab", None),
        (7, b"\x02\x00\x00", None),
        (10, b"\x03\x00\x09abc", ("item at offset 10: length 9 runs past the end of the file "
                                 "(6 bytes remain)")),
    ]  # fmt: skip
    base = types.SimpleNamespace(module=mod, record="log", limits=())
    assert _decode(_DecodedRecords(base, framing, prefix), records[:2]) == [1, 1]
    path.write_bytes(b"XY")
    _, records = framed_records(str(path), "log", framing, 100)
    assert [str(e) for _, _, e in records] == ["item at offset 0: not a log: starts with '5859'"]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("repeat: eos", "repeat: {count: 2}", "a framed file ends with a repeat: eos of records"),
        ("{size: length,", "{size: value,", "'value' is no unsigned fixed-width integer field"),
        ("      - {name: length,", ("      - {name: note, type: str, size: u8, doc: A note.}\n"
         "      - {name: length,"), "'length' is no unsigned fixed-width integer field of item"),
        ("      - {name: items,", ("      - {name: first, type: u8, doc: A byte.}\n"
         "      - {name: items,"), "a framed file's 'first' is a record with item's length"),
        ("type: u16, const: 0x4c47", "type: b16, const: 0x4c47", "magic is a const: fixed-width"),
    ],
)  # fmt: skip
def test_a_file_record_the_table_cannot_describe_is_refused_where_it_asks(
    tmp_path, old, new, message
):
    assert TLV_LOG.count(old) == 1
    text = TLV_LOG.replace(old, new)
    spec = tmp_path / "tlv_log.yaml"
    spec.write_text(text)
    with pytest.raises(SpecError) as info:
        import_spec(spec)
    assert info.value.file == "tlv_log.yaml" and info.value.line is not None
    assert message in str(info.value)
    spec.write_text(re.sub(r"    framed: .*\n", "", text))
    import_spec(spec)  # without framed: nothing asks for the table
