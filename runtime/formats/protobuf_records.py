"""The records of a protobuf message, beside ``runtime.formats.protobuf``'s reader (which
reads a record inline, for speed): a group passed over whole (:func:`group_end`), and the
path of an error in a record (:func:`name_record`), and a layout's bytes entries checked
before they are written (:func:`check_record`, :func:`check_replaced`). The compiled readers share theirs in
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
from runtime.core.limits import DEFAULT

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


def record_field(message, record: bytes):
    """The field of ``message`` that ``parse`` reads ``record`` (one whole record) as, or
    None: an unknown number, or a known one in another wire type, is kept as its bytes.

    >>> from runtime.formats.protobuf import PbField, ProtobufMessage
    >>> point = ProtobufMessage(PbField(1, "x", "sint32"), PbField(2, "ys", "int32", repeated="packed"))
    >>> record_field(point, bytes.fromhex("0801")).name, record_field(point, bytes.fromhex("0a00"))
    ('x', None)
    """
    key, _ = read_uvarint(record, 0, bits=32)
    f = message.by_number.get(key >> 3)
    wt = key & 7
    if f is not None and (wt == f.wire_type or wt == LEN and f.packable):
        return f
    return None


def check_replaced(message, entries: list, values: dict, known: list) -> None:
    """Refuse a layout's bytes entry that ``parse`` reads as a known field (``known``: its
    index in ``entries`` and in the layout) unless it is what parse keeps as bytes there:
    an earlier record of a singular field (a oneof's member) or of a map key, that a later
    record of the field (the oneof, the key) replaces, and that parse reads. Written, any
    other (an element of a repeated field, a value nothing replaces, a string no UTF-8)
    would be read back as a value the model does not hold, or refused.

    >>> from runtime.formats.protobuf import PbField, ProtobufMessage
    >>> point = ProtobufMessage(PbField(1, "x", "sint32"), PbField(2, "ys", "int32", repeated="unpacked"))
    >>> point.encode({"x": 2, "ys": [], "wire_layout": (b"\\x08\\x01", 1)}).hex()  # x read twice
    '08010804'
    >>> point.encode({"x": None, "ys": [], "wire_layout": (b"\\x08\\x01",)})
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: wire_layout[0]: bytes 0801 are a record of x, which parse would read as its value: only a record that a later one of the same field (map key) replaces is kept
    >>> point.encode({"x": None, "ys": [7], "wire_layout": (b"\\x10\\x05", 2)})
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: wire_layout[0]: bytes 1005 are a record of ys, which parse would read as an element the model does not hold
    """
    for at, index in known:
        record = entries[at]
        f = record_field(message, record)
        read = _read_alone(message, record, f, index)
        if f.kind != "map" and f.repeated is not None:
            _refuse(record, f, index, "an element the model does not hold")
        if f.kind == "map":
            (key,) = read[f.name]
            if key not in _map_keys_after(message, f, entries, at, values):
                _refuse(record, f, index, f"its entry of key {key!r}: {_ONLY_REPLACED}")
        elif not any(_slot(message, e) == (f.oneof or f.number) for e in entries[at + 1 :]):
            _refuse(record, f, index, f"its value: {_ONLY_REPLACED}")


_ONLY_REPLACED = "only a record that a later one of the same field (map key) replaces is kept"


def _refuse(record: bytes, f, index: int, reading: str) -> None:
    shown = record[:32].hex() + ("..." if len(record) > 32 else "")
    raise EncodeError(
        f"bytes {shown} are a record of {f.name}, which parse would read as {reading}",
        path=f"wire_layout[{index}]",
    )


def _read_alone(message, record: bytes, f, index: int) -> dict:
    """``record`` read alone as ``message`` reads it: refused as parse would refuse it."""
    try:
        got, _ = message.read_exact(record, 0, len(record), DEFAULT, 1)
    except DecodeError as err:
        shown = record[:32].hex() + ("..." if len(record) > 32 else "")
        raise EncodeError(
            f"bytes {shown} are a record of {f.name}, which parse refuses: {err}",
            path=f"wire_layout[{index}]",
        ) from None
    return got


def _slot(message, entry):
    """The field number (a oneof's name) a written layout entry holds a record of."""
    if entry.__class__ is bytes:
        f = record_field(message, entry)
        return None if f is None else f.oneof or f.number
    f = message.by_number[entry if entry.__class__ is int else entry[0]]
    return f.oneof or f.number


def _map_keys_after(message, f, entries: list, at: int, values: dict) -> list:
    """The keys of map ``f`` whose records the written ``entries`` after ``at`` hold: the
    model's next ones (each map entry takes the next of its dict), and kept bytes' own."""
    before = sum(1 for e in entries[:at] if e.__class__ is not bytes and _number(e) == f.number)
    keys, after = [], 0
    for entry in entries[at + 1 :]:
        if entry.__class__ is bytes:
            if record_field(message, entry) is f:
                keys += list(message.read_exact(entry, 0, len(entry), DEFAULT, 1)[0][f.name])
        elif _number(entry) == f.number:
            after += 1
    return keys + list(values[f.name])[before : before + after]


def _number(entry) -> int:
    return entry if entry.__class__ is int else entry[0]
