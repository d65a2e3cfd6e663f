"""Tag-keyed messages: the Protocol Buffers wire format (``layout: protobuf``).

A message is a run of records in any order; each starts with a varint key that packs a
field number and a wire type (``key = number << 3 | wire_type``)::

    record := key  (VARINT varint | I64 8 bytes LE | LEN varint n + n bytes | I32 4 bytes LE)

A table of :class:`PbField` says what a known number holds. Everything else is kept, so
``encode(decode(x)) == x``:

* an unknown number, or a known one with another wire type, is kept as its record's
  bytes (key included) and written back where it was;
* a repeated scalar reads packed (one LEN record) and unpacked (one record per element)
  alike, and the form read is kept;
* a singular field read twice keeps the last value (in a oneof: the last member), and
  the earlier records are kept as bytes, in place; a map key read twice likewise;
* the wire order is kept in the model's ``wire_layout``, only when it differs from the
  canonical order ``encode`` writes for a model made from values (fields in number
  order, implicit-presence fields only when not their default, repeated scalars in the
  schema's packing, map entries as key then value: what upb writes), so a model read
  from canonical bytes equals one made from values.

``wire_layout`` is None or a tuple of entries: a field number (one record of that
field: its value, or the next element of a repeated field or map), ``(number, count)``
(one packed record of the next ``count`` elements), ``bytes`` (a record kept as it
was), or one of the first two with the record's bytes after it, ``(number, bytes)`` and
``(number, count, bytes)``: a record of a known field in a form upb reads and encode
does not write, written back as those bytes while the model still holds what they say
(else canonically). Encoding walks it, then writes what it does not cover (a field set,
or elements added, after parsing) canonically after it. A ``bytes`` entry that reads as a
known field is only what parse keeps: an earlier record a later one replaces
(``protobuf_records.check_replaced``); any other is refused.

    >>> point = ProtobufMessage(PbField(1, "x", "sint32"), PbField(2, "ys", "int32", repeated="packed"))
    >>> point.decode(bytes.fromhex("080312030102ff"))
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: ys[2] at offset 6: truncated varint: input ends 1 byte(s) into it
    >>> m = point.decode(bytes.fromhex("1a00080312020102"))
    >>> m["x"], m["ys"], m["wire_layout"]
    (-2, [1, 2], (b'\\x1a\\x00', 1, (2, 2)))
    >>> point.encode(m).hex(), point.encode({"x": -2, "ys": [1, 2]}).hex()
    ('1a00080312020102', '080312020102')

Groups (wire types 3 and 4, deprecated proto2) are unknown records: a group is kept whole,
start key to end key, as bytes (a start key without its end, or an end key without its
start, is a DecodeError; nested groups count against ``max_depth``). Forms upb reads and
never writes, each kept as its record's bytes (``(number, bytes)`` above): varints longer
than they need (in a key, a length, a value, a packed element), varints beyond a 32-bit
type's range (the value truncated as upb does), bool varints other than 0/1, map entries
that are not key then value. A singular message read twice keeps the last one (protobuf
merges the two; the earlier record is kept as bytes, so the bytes still round-trip).

Shared shape: the model + ``wire_layout`` (known entries by id, unknown ones as bytes)
is the one Thrift's ``WireLayout`` uses; MySQL's ``SerializableMessage`` keeps its
unknown fields as one run because its wire has no types. A record kept as read is a kept
form of ``runtime.core.kept`` (its reads-as rule, equality, JSON form) kept per record, so
a changed field is written canonically and the others as read.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping

from construct import Construct, SizeofError

from runtime.core import kept as rt_kept
from runtime.core.codec import bytes_from_json
from runtime.core.errors import DecodeError, EncodeError, SpecError
from runtime.core.leb128 import read_uvarint, write_uvarint
from runtime.core.limits import DEFAULT, Limits, current
from runtime.core.model import Model
from runtime.core.spans import current as current_spans
from runtime.core.stream import remaining
from runtime.core.tier import compiled
from runtime.formats.protobuf_fields import (  # noqa: F401 - SCALARS: imported from here too
    SCALARS,
    PbField,
    from_varint,
    is_default,
    to_varint,
)
from runtime.formats.protobuf_records import (
    EGROUP,
    I32,
    I64,
    LEN,
    SGROUP,
    VARINT,
    check_record,
    check_replaced,
    group_end,
    name_entry,
    name_record,
    record_field,
)

LAYOUT_KEY = "wire_layout"
# What writing a bad value raises: an EncodeError, given the path of the value on the way out
_WRITE_ERRORS = (EncodeError, TypeError, ValueError, OverflowError, struct.error)


def _map_entry_fields(f: PbField) -> tuple[PbField, PbField]:
    value_kind = "message" if isinstance(f.map_value, ProtobufMessage) else f.map_value
    message = f.map_value if value_kind == "message" else None
    return PbField(1, "key", f.map_key), PbField(2, "value", value_kind, message=message)


class ProtobufMessage(Construct):
    """A protobuf message of the fields given (see the module docstring).

    ``decode(data)``/``encode(model)`` work on bytes; ``read``/``write`` are what a
    generated module's fast path calls; as a construct it parses the rest of its stream
    (a message has no end of its own: give it a ``size:`` inside another record).
    ``model``: a generated model class (a ``dict`` when None).
    """

    def __init__(self, *fields: PbField, model=None):
        super().__init__()
        self.fields = tuple(fields)
        self.model = model
        by_number: dict[int, PbField] = {}
        for f in self.fields:
            if f.number in by_number or f.name == LAYOUT_KEY:
                raise SpecError(f"field {f.name}: its number or name is taken")
            by_number[f.number] = f
        self.by_number = by_number
        self.canonical_order = sorted(self.fields, key=lambda f: f.number)
        self.entries = {f.number: _map_entry_fields(f) for f in self.fields if f.kind == "map"}
        self.entry_messages = {n: ProtobufMessage(*kv) for n, kv in self.entries.items()}
        self._list_names = [f.name for f in self.fields if f.repeated is not None]
        self._map_names = [f.name for f in self.fields if f.kind == "map"]
        self._scalar_defaults = {
            f.name: None if f.explicit else f.default
            for f in self.fields
            if f.repeated is None and f.kind != "map"
        }
        self.compiled = _compiled_loop(self)
        """The compiled tier's loop over this message's tables, or None. When there is
        one, ``read`` and ``write`` are its own (instance attributes, so a generated
        module's ``FAST_READERS`` calls C with no Python frame between): it gives
        :meth:`read_exact`'s model and :meth:`write_exact`'s bytes, or hands them the
        input. Its models are lazy: the message is checked whole, and built from the
        input ``bytes`` on the first access of any of its fields (the model classes' slots
        are read through its descriptors from then on)."""
        if self.compiled is not None:
            self.read, self.write = self.compiled.read, self.compiled.write

    # -- reading ---------------------------------------------------------------------------

    def decode(self, data, limits=None):
        """The model of all of ``data``."""
        model, _ = self.read(data, 0, len(data), limits or Limits(), 1)
        return model

    def initial(self) -> dict:
        """The values of a message with no records."""
        values = dict(self._scalar_defaults)
        for name in self._list_names:
            values[name] = []
        for name in self._map_names:
            values[name] = {}
        return values

    def holds_unknown(self, wire_layout) -> bool:
        """Whether a model of this message keeps, in its ``wire_layout``, records its spec does
        not know: a record kept as it came (a ``bytes`` entry: an unknown number, a known one
        with another wire type, a group, an earlier record read twice), or a map entry kept as
        read (``(number, bytes)``) that holds one (upb keeps it as an unknown field of the
        message). A kept form of a known record (a varint longer than it needs) is not one.
        The generated module's ``UNKNOWN_BYTES`` (``runtime.core.unknown_bytes``).

            >>> notes = ProtobufMessage(PbField(1, "notes", "map", map_key="string", map_value="string"))
            >>> notes.holds_unknown((b"\\xa0\\x06\\x01",)), notes.holds_unknown(None)
            (True, False)
            >>> notes.holds_unknown(notes.decode(bytes.fromhex("0a061201620a016b"))["wire_layout"])
            False
            >>> notes.holds_unknown(notes.decode(bytes.fromhex("0a050a01611801"))["wire_layout"])
            True
        """
        for entry in wire_layout or ():
            if isinstance(entry, (bytes, bytearray)):
                return True
            kept_entry = self.entry_messages.get(entry[0]) if isinstance(entry, tuple) else None
            if kept_entry is not None:
                record = entry[-1]
                _, pos = read_uvarint(record, 0)  # the key, then the entry's length
                size, pos = read_uvarint(record, pos)
                if kept_entry.holds_unknown(
                    kept_entry.decode(record[pos : pos + size])[LAYOUT_KEY]
                ):
                    return True
        return False

    def read_exact(self, buf, pos: int, end: int, limits, depth: int, spans=None):
        """Read the records in ``buf[pos:end]``; returns ``(model, end)``. The reader the
        compiled tier is held to (nested messages are read by it too)."""
        if depth > limits.max_depth:
            limits.check("max_depth", depth, offset=pos)
        values = self.initial()
        layout: list = []
        max_count = limits.max_count
        # Whether the records so far are in the order and form encode writes without a
        # layout (number order, each singular field once, the schema's packing).
        canonical, previous = True, 0
        last: dict = {}  # a singular field, oneof or map key -> (entry index, start, end, name)
        by_number = self.by_number
        while pos < end:
            start = pos
            key = buf[pos]
            odd = False  # a form encode does not write: the record is kept as its bytes
            if key < 0x80:
                pos += 1
            else:
                key, pos = read_uvarint(buf, pos, bits=32, end=end)
                odd = buf[pos - 1] == 0  # longer than it needs
            number, wt = key >> 3, key & 7
            if number == 0:
                raise DecodeError("field number 0", offset=start)
            try:
                if wt == VARINT:
                    at = pos
                    if pos < end and buf[pos] < 0x80:
                        v, pos = buf[pos], pos + 1
                    else:
                        v, pos = read_uvarint(buf, pos, end=end)
                        odd = odd or buf[pos - 1] == 0
                elif wt == LEN:
                    if pos < end and buf[pos] < 0x80:
                        n, at = buf[pos], pos + 1
                    else:
                        n, at = read_uvarint(buf, pos, end=end)
                        odd = odd or buf[at - 1] == 0
                    pos = at + n
                    if pos > end:
                        raise DecodeError(
                            f"length {n} runs past the end ({end - at} byte(s) left)", offset=start
                        )
                elif wt == I64 or wt == I32:
                    at, pos = pos, pos + (8 if wt == I64 else 4)
                    if pos > end:
                        raise DecodeError("truncated fixed-width value", offset=start)
                elif wt == SGROUP:  # a group: kept whole as an unknown record
                    pos = group_end(buf, pos, end, number, limits, depth + 1)
                elif wt == EGROUP:
                    raise DecodeError(f"end of group {number} without its start", offset=start)
                else:
                    raise DecodeError(
                        f"field {number}: wire type {wt} does not exist", offset=start
                    )
            except DecodeError as err:
                name_record(err, self, number, wt, values)
                raise
            f = by_number.get(number)
            if number < previous:
                canonical = False
            previous = number
            if f is None or (f.wire_type != wt and not (wt == LEN and f.packable)):
                canonical = False
                layout.append(bytes(buf[start:pos]))
                if spans is not None:
                    spans.mark(start, pos, f"unknown field {number}", bytes(buf[start:pos]))
                continue
            if spans is not None:
                spans.open(f.name, start)
            try:
                if f.repeated is not None:
                    items = values[f.name]
                    if wt == LEN and f.wire_type != LEN:
                        count = len(items)
                        canonical = canonical and f.repeated == "packed" and not count
                        odd = self._read_packed(f, buf, at, pos, items, limits) or odd
                        canonical = canonical and len(items) > count  # not an empty record
                        if len(items) > max_count:  # a record's elements: at most its bytes
                            limits.check("max_count", len(items), offset=start)
                        entry = (number, len(items) - count)
                        layout.append((*entry, bytes(buf[start:pos])) if odd else entry)
                    else:
                        canonical = canonical and f.repeated != "packed"
                        got = v if wt == VARINT else None
                        try:
                            value = self._value(f, wt, got, buf, at, pos, limits, depth, spans)
                        except DecodeError as err:  # in the element: its index
                            err.add_path(index=len(items))
                            raise
                        if wt == VARINT and v > 1 and f.narrow:
                            odd = odd or to_varint(f.kind, value) != v
                        items.append(value)
                        if len(items) > max_count:
                            limits.check("max_count", len(items), offset=start)
                        layout.append((number, bytes(buf[start:pos])) if odd else number)
                elif f.kind == "map":
                    held = values[f.name]
                    try:
                        k, value, as_written = self._map_entry(f, buf, at, pos, limits, depth)
                    except DecodeError as err:
                        raise name_entry(err, self, f, buf, at, pos, limits, held) from None
                    odd = odd or not as_written
                    slot = (number, k)
                    if k in held:
                        canonical = False
                        del held[k]  # moves to the end: the dict keeps the wire order
                        self._forget(layout, last.pop(slot), buf)
                    held[k] = value
                    if len(held) > max_count:
                        limits.check("max_count", len(held), offset=start)
                    last[slot] = (len(layout), start, pos, f.name)
                    layout.append((number, bytes(buf[start:pos])) if odd else number)
                else:
                    value = self._value(
                        f, wt, v if wt == VARINT else None, buf, at, pos, limits, depth, spans
                    )
                    if wt == VARINT and v > 1 and f.narrow:
                        odd = odd or to_varint(f.kind, value) != v
                    slot = f.oneof or number
                    earlier = last.get(slot)
                    if earlier is not None:
                        canonical = False
                        self._forget(layout, earlier, buf)
                        if earlier[3] != f.name:  # another member of the oneof
                            values[earlier[3]] = None
                    values[f.name] = value
                    if not f.explicit and is_default(f.kind, value):
                        canonical = False  # written though a new message would leave it out
                    last[slot] = (len(layout), start, pos, f.name)
                    layout.append((number, bytes(buf[start:pos])) if odd else number)
            except DecodeError as err:
                err.add_path(f.name)
                raise
            if odd:
                canonical = False
            if spans is not None:
                spans.close(pos, values[f.name])
        values[LAYOUT_KEY] = None if canonical else tuple(layout)
        return (values if self.model is None else self.model(**values)), pos

    read = read_exact  # the compiled loop's when it is built (see ``compiled``)

    @staticmethod
    def _forget(layout: list, earlier: tuple, buf) -> None:
        """An earlier record of a field read again: kept as bytes where it was."""
        index, start, stop, _ = earlier
        layout[index] = bytes(buf[start:stop])

    def _value(self, f: PbField, wt: int, v, buf, at: int, stop: int, limits, depth, spans):
        """The value of one record of ``f`` (its payload is ``buf[at:stop]``)."""
        if wt == VARINT:
            return v if f.kind == "uint64" else from_varint(f.kind, v)
        if f.fixed is not None:
            return f.fixed.unpack_from(buf, at)[0]
        if stop - at > limits.max_string:
            limits.check("max_string", stop - at, offset=at)
        if f.kind == "string":
            try:
                return str(buf[at:stop], "utf-8")
            except UnicodeDecodeError as err:
                raise DecodeError(f"string is not UTF-8: {err.reason}", offset=at) from None
        if f.kind == "bytes":
            return bytes(buf[at:stop])
        return f.message.read_exact(buf, at, stop, limits, depth + 1, spans)[0]

    @staticmethod
    def _read_packed(f: PbField, buf, pos: int, stop: int, items: list, limits) -> bool:
        """Append the elements of one packed record; whether any is in a form encode
        does not write (a varint longer than it needs, or past its type's bits)."""
        if f.fixed is not None:
            width = f.fixed.size
            if (stop - pos) % width:
                raise DecodeError(
                    f"packed {f.kind} of {stop - pos} bytes is not a multiple of {width}",
                    offset=pos,
                )
            items.extend(v for (v,) in f.fixed.iter_unpack(bytes(buf[pos:stop])))
            return False
        kind, odd = f.kind, False
        while pos < stop:
            b = buf[pos]
            if b < 0x80:
                v, pos = b, pos + 1
            else:
                try:
                    v, pos = read_uvarint(buf, pos, end=stop)
                except DecodeError as err:  # in the element: its index
                    err.add_path(index=len(items))
                    raise
                odd = odd or buf[pos - 1] == 0
            value = v if kind == "uint64" else from_varint(kind, v)
            if v > 1 and f.narrow:
                odd = odd or to_varint(kind, value) != v
            items.append(value)
        return odd

    def _map_entry(self, f: PbField, buf, pos: int, stop: int, limits, depth):
        """The (key, value) of one map entry message (absent parts are their defaults),
        and whether it is what encode writes: its key record then its value record, both
        always (the entry's own reader marks a default written, and anything else, in its
        layout; with none, a part holding its default was not on the wire)."""
        key_field, value_field = self.entries[f.number]
        got, _ = self.entry_messages[f.number].read_exact(buf, pos, stop, limits, depth + 1)
        key, value, layout = got["key"], got["value"], got[LAYOUT_KEY]
        if layout is None:
            as_written = not is_default(key_field.kind, key) and (
                value is not None
                if value_field.explicit
                else not is_default(value_field.kind, value)
            )
        else:
            as_written = layout == (1, 2)
        if value is None and value_field.kind == "message":
            value = value_field.message.read_exact(b"", 0, 0, limits, depth + 2)[0]
        return key, value, as_written

    # -- the canonical order ---------------------------------------------------------------

    def _canonical(self, values) -> list:
        """The layout entries ``encode`` writes for these values without a layout."""
        out = []
        for f in self.canonical_order:
            value = values[f.name]
            if f.kind == "map":
                out += [f.number] * len(value)
            elif f.repeated == "packed":
                if value:
                    out.append((f.number, len(value)))
            elif f.repeated is not None:
                out += [f.number] * len(value)
            elif self._canonical_single(f, value):
                out.append(f.number)
        return out

    @staticmethod
    def _canonical_single(f: PbField, value) -> bool:
        """Whether a singular field's value is written without a layout."""
        return value is not None if f.explicit else not is_default(f.kind, value)

    # -- writing ---------------------------------------------------------------------------

    def encode(self, model) -> bytes:
        out = bytearray()
        self.write(model, out)
        return bytes(out)

    def write_exact(self, model, out: bytearray) -> None:
        """Append the bytes of ``model`` (a generated model or a mapping) to ``out``. The
        writer the compiled tier is held to."""
        get = model.get if isinstance(model, Mapping) or hasattr(model, "get") else None
        if get is None:
            raise EncodeError.expected("a model or a mapping", model)
        if (
            isinstance(model, Model)
            and self.model is not None
            and not isinstance(model, self.model)
        ):
            # another message's model: its fields would be written under this one's numbers
            raise EncodeError.expected(self.model.__name__, model)
        values = self._values(get)
        self._check_oneofs(values)
        layout = get(LAYOUT_KEY)
        try:
            if layout is None:
                entries = self._canonical(values)
            else:
                entries = self._entries_with_rest(layout, values)
            self._write_entries(entries, values, out)
        except (TypeError, AttributeError) as err:  # len() or .items() of no list or map
            raise self._no_container(values, err) from None

    def _no_container(self, values, err: Exception) -> EncodeError:
        """``err`` of a repeated field or map whose value Python could not count or walk."""
        for f in self.fields:
            value = values[f.name]
            try:
                if f.kind == "map":
                    len(value), value.items()
                elif f.repeated:
                    len(value), value[0:0]
            except (TypeError, AttributeError):
                refused = EncodeError.expected("a mapping" if f.kind == "map" else "a list", value)
                refused.add_path(f.name)
                return refused
        return EncodeError.of(err)

    def _write_entries(self, entries, values, out: bytearray) -> None:
        """The records of layout ``entries`` (:meth:`_entries_with_rest`'s) of ``values``."""
        cursors = {f.name: 0 for f in self.fields if f.repeated or f.kind == "map"}
        items = {f.name: list(values[f.name].items()) for f in self.fields if f.kind == "map"}
        by_number = self.by_number
        for entry in entries:
            if entry.__class__ is bytes:
                out += entry
                continue
            if entry.__class__ is int:
                self._write_entry(by_number[entry], None, values, cursors, items, out)
            elif len(entry) == 2:
                self._write_entry(by_number[entry[0]], entry[1], values, cursors, items, out)
            else:
                number, count, kept = entry
                f = by_number[number]
                written = bytearray()
                self._write_entry(f, count, values, cursors, items, written)
                out += kept if self._reads_as(kept, f, count, written) else written

    def _values(self, get) -> dict:
        """Each field's value (``get(name)``; absent implicit-presence ones their defaults)."""
        values = {}
        for f in self.fields:
            value = get(f.name)
            if value is None and not (f.explicit and f.repeated is None):  # None: no elements
                value = {} if f.kind == "map" else [] if f.repeated else f.default
            values[f.name] = value
        for name in self._list_names:  # a str, a dict, a generator or a set is no list
            if type(value := values[name]) is not list and not isinstance(value, (list, tuple)):
                raise EncodeError.expected("a list", value, path=name)
        return values

    def _write_entry(self, f: PbField, count, values, cursors, items, out: bytearray) -> None:
        """The record of one layout entry of ``f``: its value, its next element or map
        entry (``cursors``: the next of each), or a packed record of ``count`` elements."""
        try:
            if f.kind == "map":
                i = cursors[f.name]
                cursors[f.name] = i + 1
                self._write_map_entry(f, *items[f.name][i], out)
            elif f.repeated is not None:
                i = cursors[f.name]
                if count is None:
                    self._write_one(f, values[f.name][i], out)
                    cursors[f.name] = i + 1
                else:
                    payload, elements = bytearray(), values[f.name][i : i + count]
                    try:
                        for value in elements:
                            self._write_payload(f, value, payload)
                    except _WRITE_ERRORS as err:  # its index found now: the loop keeps none
                        raise EncodeError.of(err).add_element(values[f.name], value, i) from None
                    cursors[f.name] = i + count
                    out += f.len_key
                    out += write_uvarint(len(payload))
                    out += payload
            else:
                self._write_one(f, values[f.name], out)
        except _WRITE_ERRORS as err:
            err = EncodeError.of(err)
            if count is None and f.repeated is not None and f.kind != "map":
                err.add_path(index=cursors[f.name])  # not moved on: the element's
            err.add_path(f.name)
            raise err from None

    def _reads_as(self, kept: bytes, f: PbField, count, written: bytearray) -> bool:
        """Whether ``kept``, a record of ``f`` as it was read (in a form encode does not
        write), still holds what ``written``, the record of the model's value (element, map
        entry, ``count`` packed elements) now, holds, and nothing else:
        ``runtime.core.kept.reads_as`` on one record, read as a message of its own."""

        def rewrite(data: bytes, limits: Limits) -> bytearray:
            got, _ = self.read_exact(data, 0, len(data), limits, 1)
            again = bytearray()
            read = got.get(LAYOUT_KEY)
            one = read[0] if read is not None and len(read) == 1 else None
            value = got.get(f.name)
            if (
                one.__class__ is tuple
                and one[-1].__class__ is bytes
                and one[:-1] == ((f.number,) if count is None else (f.number, count))
                and value is not None
            ):  # one record, the entry's, kept again (as a kept record reads): nothing else
                items = {f.name: list(value.items())} if f.kind == "map" else {}
                self._write_entry(f, count, {f.name: value}, {f.name: 0}, items, again)
                return again
            values = self._values(got.get)
            # the entry, then whatever else the bytes hold: then they hold the entry alone
            entry = f.number if count is None else (f.number, count)
            unknown = [e for e in read or () if e.__class__ is bytes]
            self._write_entries(self._entries_with_rest((entry, *unknown), values), values, again)
            return again

        return rt_kept.reads_as(written, kept, rewrite)

    write = write_exact  # the compiled loop's when it is built (see ``compiled``)

    def _check_oneofs(self, values) -> None:
        seen: dict[str, str] = {}
        for f in self.fields:
            if f.oneof is not None and values[f.name] is not None:
                if f.oneof in seen:
                    raise EncodeError(
                        f"oneof {f.oneof}: both {seen[f.oneof]} and {f.name} are set", path=f.name
                    )
                seen[f.oneof] = f.name

    def _entries_with_rest(self, layout, values) -> list:
        """A parsed model's layout, without records of values that are gone, then the
        canonical records of what it does not cover."""
        if not isinstance(layout, (tuple, list)):
            raise EncodeError.expected("None or a list of entries", layout, path=LAYOUT_KEY)
        used: dict[int, int] = {}
        entries = []
        known = []  # (entry, layout index) of bytes entries parse reads as a known field
        for i, entry in enumerate(layout):
            if isinstance(entry, (bytes, bytearray)):
                entry = bytes(entry)
                check_record(entry, DEFAULT, f"{LAYOUT_KEY}[{i}]")
                if record_field(self, entry) is not None:
                    known.append((len(entries), i))
                entries.append(entry)
                continue
            kept = _kept_record(entry)
            if kept is not None:  # a record in a form encode does not write, and its entry
                entry, kept = kept
            number, count = (entry, 1) if type(entry) is int else _packed_entry(entry)
            f = self.by_number.get(number)
            if f is None or (count != 1 or type(entry) is not int) and not f.packable:
                raise EncodeError(f"entry {entry!r} names no field of its kind", path=LAYOUT_KEY)
            value = values[f.name]
            have = len(value) if f.repeated or f.kind == "map" else (value is not None)
            take = min(count, have - used.get(number, 0))
            if f.repeated is None and f.kind != "map" and used.get(number):
                take = 0  # a singular field is written once
            if take <= 0 and not (count == 0 and type(entry) is not int):
                continue  # (an empty packed record read is written back empty)
            used[number] = used.get(number, 0) + take
            entry = number if type(entry) is int else (number, take)
            if kept is not None and take == count:
                entry = (number, take if type(entry) is tuple else None, kept)
            entries.append(entry)
        for f in self.canonical_order:
            done = used.get(f.number, 0)
            if f.kind == "map" or f.repeated is not None:
                left = len(values[f.name]) - done
                if left > 0:
                    entries += [(f.number, left)] if f.repeated == "packed" else [f.number] * left
            elif not done and self._canonical_single(f, values[f.name]):
                entries.append(f.number)
        if known:
            check_replaced(self, entries, values, known)
        return entries

    def _write_one(self, f: PbField, value, out: bytearray) -> None:
        """One record of ``f``: its key and its value."""
        if f.wire_type == LEN:
            payload = bytearray()
            self._write_payload(f, value, payload)
            out += f.key
            out += write_uvarint(len(payload))
            out += payload
            return
        out += f.key
        self._write_payload(f, value, out)

    def _write_payload(self, f: PbField, value, out: bytearray) -> None:
        kind = f.kind
        if kind == "message":
            if value is None:
                raise EncodeError("a message element cannot be None")
            f.message.write_exact(value, out)
        elif kind == "string":
            if not isinstance(value, str):
                raise EncodeError.expected("str", value)
            try:
                out += value.encode("utf-8")
            except UnicodeEncodeError as err:
                raise EncodeError(f"string is not UTF-8: {err.reason}") from None
        elif kind == "bytes":
            if not isinstance(value, (bytes, bytearray)):
                raise EncodeError.expected("bytes", value)
            out += value
        elif kind == "bool":
            if not isinstance(value, (bool, int)) or value not in (0, 1):
                raise EncodeError.expected("True or False", value)
            out.append(1 if value else 0)
        elif f.range is None:  # float, double
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise EncodeError.expected("a number", value)
            out += f.fixed.pack(value)
        else:
            if not isinstance(value, int) or isinstance(value, bool) and kind != "enum":
                raise EncodeError.expected("an integer", value)
            lo, hi = f.range
            if not lo <= value <= hi:
                raise EncodeError(f"{kind} value {value} is not in {lo}..{hi}")
            if f.fixed is not None:
                out += f.fixed.pack(value)
            else:
                out += write_uvarint(to_varint(kind, int(value)))

    def _write_map_entry(self, f: PbField, key, value, out: bytearray) -> None:
        key_field, value_field = self.entries[f.number]
        payload = bytearray()
        try:
            try:
                self._write_one(key_field, key, payload)
            except _WRITE_ERRORS as err:
                raise EncodeError.of(err, "key: ") from None
            self._write_one(value_field, value, payload)
        except _WRITE_ERRORS as err:
            raise EncodeError.of(err).add_key(key) from None
        out += f.key
        out += write_uvarint(len(payload))
        out += payload

    # -- construct -------------------------------------------------------------------------

    def _parse(self, stream, context, path):
        start = stream.tell()
        data = stream.read(remaining(stream))
        spans = current_spans(context)
        try:
            if spans is not None:
                with spans.shifted(start):
                    model, _ = self.read_exact(data, 0, len(data), current(context), 1, spans)
            else:
                model, _ = self.read_exact(data, 0, len(data), current(context), 1)
        except DecodeError as err:
            err.shift(start)
            raise
        return model

    def _build(self, obj, stream, context, path):
        out = bytearray()  # the construct path is the oracle: Python's writer
        self.write_exact(obj, out)
        stream.write(bytes(out))
        return obj

    def _sizeof(self, context, path):
        raise SizeofError("a message's size depends on its values", path=path)


def _compiled_loop(message: ProtobufMessage):
    """The compiled tier's reader and writer of ``message`` (runtime/_compiled/protobuf.pyx
    over its tables), or None: not built, pure Python forced, or a message without a
    ``slots=True`` model class (a dict model, say)."""
    module = compiled("runtime._compiled.protobuf")
    if module is None or message.model is None:
        return None
    try:
        return module.load(message)
    except (TypeError, ValueError):
        return None


def table_readers(messages: dict, limits) -> dict:
    """A generated module's ``TABLE_READERS`` for its protobuf ``messages`` (record ->
    ``ProtobufMessage``): ``parse(data)`` run from C by ``runtime._compiled.dispatch`` with
    the module's default ``limits``, for each message whose compiled loop is built."""
    readers = {}
    for name, message in messages.items():
        if message.compiled is not None:
            message.compiled.use_defaults(limits)
            readers[name] = message.compiled.read_whole
    return readers


def _kept_record(entry) -> tuple | None:
    """``(its entry, its bytes)`` of a layout entry that keeps a record's bytes as read
    (``(number, bytes)``, or ``(number, count, bytes)`` for a packed record), else None."""
    if isinstance(entry, (tuple, list)) and len(entry) in (2, 3):
        kept = entry[-1]
        if isinstance(kept, (bytes, bytearray)):
            return (entry[0] if len(entry) == 2 else tuple(entry[:2])), bytes(kept)
    return None


def _packed_entry(entry) -> tuple[int, int]:
    if (
        isinstance(entry, (tuple, list))
        and len(entry) == 2
        and all(type(x) is int for x in entry)
        and entry[1] >= 0
    ):
        return entry[0], entry[1]
    raise EncodeError(f"entry {entry!r} is not a number, [number, count] or bytes", path=LAYOUT_KEY)


def layout_from_json(value):
    """A ``wire_layout`` from its JSON form (numbers, ``[number, count]``, ``{"$hex"}``,
    ``[number, {"$hex"}]``, ``[number, count, {"$hex"}]``)."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise EncodeError("must be null or a list of entries", path=LAYOUT_KEY)
    out = []
    for entry in value:
        if isinstance(entry, dict):
            out.append(bytes_from_json(entry, LAYOUT_KEY))
        elif isinstance(entry, list) and len(entry) in (2, 3) and isinstance(entry[-1], dict):
            kept = bytes_from_json(entry[-1], LAYOUT_KEY)  # a record kept as read
            if len(entry) == 3:
                out.append((*_packed_entry(entry[:2]), kept))
            elif type(entry[0]) is int:
                out.append((entry[0], kept))
            else:
                raise EncodeError(f"entry {entry!r} is not [number, bytes]", path=LAYOUT_KEY)
        elif isinstance(entry, list):
            out.append(_packed_entry(entry))
        elif type(entry) is int:
            out.append(entry)
        else:  # refused here, where the JSON form's path is known
            raise EncodeError(
                f"entry {entry!r} is not a number, [number, count] or bytes", path=LAYOUT_KEY
            )
    return tuple(out)
