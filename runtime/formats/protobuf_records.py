"""The records of a protobuf message, beside ``runtime.formats.protobuf``'s reader (which
reads a record inline, for speed): a group passed over whole (:func:`group_end`), and the
path of an error in a record (:func:`name_record`). The compiled readers share theirs in
runtime/_compiled/protobuf_records.pxd; they decline where these raise, so an error reads
the same in both tiers.

An error names the field and the element it was reading, and the offset of its record:

    >>> from runtime.formats.protobuf import PbField, ProtobufMessage
    >>> tags = ProtobufMessage(PbField(1, "id", "string"), PbField(2, "tags", "string", repeated="unpacked"))
    >>> tags.decode(bytes.fromhex("0a0178" "120161" "120562"))
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: tags[1] at offset 6: length 5 runs past the end (1 byte(s) left)
"""

from __future__ import annotations

from runtime.core.errors import DecodeError, EncodeError
from runtime.core.leb128 import read_uvarint

VARINT, I64, LEN, SGROUP, EGROUP, I32 = 0, 1, 2, 3, 4, 5


def name_record(err: DecodeError, message, number: int, wt: int, values: dict) -> None:
    """Prepend to ``err``, raised reading the record of field ``number`` (wire type ``wt``)
    of ``message`` before its value was read into ``values``, the field's name, and an
    element's index (the next of a repeated field's). An unknown record, or a known
    number with another wire type, adds nothing: its offset and number say which."""
    f = message.by_number.get(number)
    if f is None or (f.wire_type != wt and not (wt == LEN and f.packable)):
        return
    element = f.repeated is not None and not (wt == LEN and f.wire_type != LEN)
    err.add_path(f.name, index=len(values[f.name]) if element else None)


def check_record(data: bytes, limits, path: str) -> None:
    """Refuse a layout's bytes entry (a record kept as read) that is not one record, all of
    its bytes: written as it is, it would make bytes ``parse`` refuses, or reads as
    other records.

    >>> from runtime.core.limits import Limits
    >>> check_record(bytes.fromhex("0a0178"), Limits(), "wire_layout")  # field 1, "x"
    >>> check_record(bytes.fromhex("00"), Limits(), "wire_layout")
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: wire_layout: bytes 00 are not one record: field number 0
    >>> check_record(bytes.fromhex("08010802"), Limits(), "wire_layout")
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: wire_layout: bytes 08010802 are not one record: 2 byte(s) after it
    """
    end = len(data)
    try:
        number, wt, pos = record_end(data, 0, end, limits, 0)
        if wt == EGROUP:
            raise DecodeError(f"field {number}: an end-group key is no record", offset=0)
        if pos < end:
            raise DecodeError(f"{end - pos} byte(s) after it", offset=pos)
    except DecodeError as err:
        shown = data[:32].hex() + ("..." if len(data) > 32 else "")
        raise EncodeError(f"bytes {shown} are not one record: {err.message}", path=path) from None


def record_end(buf, start: int, end: int, limits, depth: int) -> tuple[int, int, int]:
    """The field number and wire type of the record at ``start``, and where it ends (a
    group's after its end key; an end-group key's after the key)."""
    key, pos = read_uvarint(buf, start, bits=32, end=end)
    number, wt = key >> 3, key & 7
    if number == 0:
        raise DecodeError("field number 0", offset=start)
    if wt == VARINT:
        _, pos = read_uvarint(buf, pos, end=end)
    elif wt == LEN:
        n, pos = read_uvarint(buf, pos, end=end)
        if n > end - pos:
            raise DecodeError(
                f"length {n} runs past the end ({end - pos} byte(s) left)", offset=start
            )
        pos += n
    elif wt == I64 or wt == I32:
        pos += 8 if wt == I64 else 4
        if pos > end:
            raise DecodeError("truncated fixed-width value", offset=start)
    elif wt == SGROUP:
        pos = group_end(buf, pos, end, number, limits, depth + 1)
    elif wt != EGROUP:
        raise DecodeError(f"field {number}: wire type {wt} does not exist", offset=start)
    return number, wt, pos


def group_end(buf, pos: int, end: int, number: int, limits, depth: int) -> int:
    """Where the group of field ``number`` that starts at ``pos`` (after its start key)
    ends: after the end key of the same number, past its records and nested groups."""
    if depth > limits.max_depth:
        limits.check("max_depth", depth, offset=pos)
    while True:
        if pos >= end:
            raise DecodeError(f"group {number} has no end", offset=pos)
        start = pos
        inner, wt, pos = record_end(buf, pos, end, limits, depth)
        if wt == EGROUP:
            if inner != number:
                raise DecodeError(f"group {number} ends as group {inner}", offset=start)
            return pos


def name_entry(err: DecodeError, message, f, buf, pos: int, stop: int, limits, held: dict):
    """``err``, raised reading the entry ``buf[pos:stop]`` of map ``f`` of ``message``,
    naming the entry: by its key when that reads on its own (the value's records passed
    over), else by its index among the keys read before it (``held``).

    >>> from runtime.formats.protobuf import PbField, ProtobufMessage
    >>> notes = ProtobufMessage(PbField(1, "notes", "map", map_key="string", map_value="string"))
    >>> notes.decode(bytes.fromhex("0a06" "0a0161" "120178" "0a06" "0a0162" "1201ff"))
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: notes['b'].value at offset 15: string is not UTF-8: invalid start byte
    >>> notes.decode(bytes.fromhex("0a06" "0a0161" "120178" "0a04" "0a0162" "12"))
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: notes[1].value at offset 14: truncated varint: input ends 0 byte(s) into it
    """
    try:
        key_only = type(message)(message.entries[f.number][0])
        key = key_only.read_exact(buf, pos, stop, limits, 1)[0]["key"]
    except DecodeError:
        err.add_path(index=len(held))
        return err
    return err.add_key(key)
