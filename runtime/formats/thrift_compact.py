"""Small shared helpers for the generated Thrift Compact codecs.

The protocol itself (type ids, header forms, the envelope) lives in
``specs/thrift_compact.yaml`` and the generated code; this module only holds what every
generated module would otherwise repeat: multi-byte varints (via :mod:`runtime.core.leb128`),
error conversion with field paths, parse options, and a construct wrapper (the JSON
form's helpers are :mod:`runtime.formats.thrift_json`).

    >>> read_i32(b"\\xfe\\xff\\xff\\xff\\x0f", 0, 5)
    (2147483647, 5)
    >>> read_size(b"\\xff\\xff\\xff\\xff\\x0f", 0, 5)
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: <message> at offset 0: size 4294967295 is negative as an int32
    >>> zigzag(-1).hex(), uvarint(300).hex()
    ('01', 'ac02')
"""

from __future__ import annotations

import dataclasses
import struct
import uuid as _uuid

from construct import Construct, SizeofError

from runtime.core import kept as rt_kept
from runtime.core.errors import DecodeError, EncodeError, LimitError, WirespecError
from runtime.core.leb128 import read_uvarint, write_uvarint, write_zigzag
from runtime.core.limits import Limits

EXPANSION = 24
"""Decoded objects may be charged at most this many bytes per input byte (plus
:data:`EXPANSION_SLACK`): struct instances, containers and kept unknown fields are charged
their size before they are made. Scalar values are not charged: each object is at most
about 17 bytes per byte it decodes from, so a message stays within 32x its size."""
EXPANSION_SLACK = 64 << 10
"""Charge every message may make beyond EXPANSION x its size (a one-byte message still
decodes to a struct of many fields)."""
STRUCT_BYTES = 32
"""A struct instance's fixed size (garbage-collector header and object header), plus 8
per slot."""
LIST_BYTES, MAP_BYTES, MAP_ENTRY_BYTES = 56, 64, 64
"""An empty list's and an empty dict's size; a dict's share per entry (table and index)."""
RAW_STRUCT_BYTES, RAW_FIELD_BYTES, RAW_CONTAINER_BYTES, RAW_PAIR_BYTES = 96, 64, 112, 72
"""Schemaless values (``parse_raw``, a message body without ``body=``): a RawStruct and
its list, a RawField and its place, a RawList/RawMap and its list, a map's (key, value)."""
UNKNOWN_FIELD_BYTES = 128
"""An :class:`UnknownField` with its id, its bytes object and its place in the layout."""

I8 = tuple(range(128)) + tuple(range(-128, 0))
"""Unsigned byte -> signed i8."""
ZZ7 = tuple((u >> 1) ^ -(u & 1) for u in range(128))
"""A one-byte zigzag varint -> its value (a lookup is cheaper than the arithmetic)."""
UTF8_MODES = ("strict", "replace", "bytes")


@dataclasses.dataclass(frozen=True)
class Options:
    """Limits plus decode options of one ``parse`` call.

    ``utf8``: ``strict`` (invalid UTF-8 in a string is a DecodeError), ``replace``
    (U+FFFD, as Apache's C reader) or ``bytes`` (the raw bytes, as thriftpy2).
    """

    max_message_bytes: int
    max_depth: int
    max_count: int
    max_string: int
    utf8: str = "strict"
    body: str | None = None

    @classmethod
    def make(cls, limits: dict, utf8: str = "strict", body: str | None = None) -> Options:
        if not limits:  # the usual call: one shared (frozen) object per utf8/body
            got = _NO_LIMITS.get((utf8, body))
            if got is not None:
                return got
        if utf8 not in UTF8_MODES:
            raise WirespecError(f"strings must be one of {UTF8_MODES}, not {utf8!r}")
        lim = Limits.from_kwargs(limits)
        made = cls(lim.max_message_bytes, lim.max_depth, lim.max_count, lim.max_string, utf8, body)
        if not limits and len(_NO_LIMITS) < 256:
            _NO_LIMITS[utf8, body] = made
        return made


_NO_LIMITS: dict = {}


@dataclasses.dataclass(frozen=True, slots=True)
class UnknownField:
    """A field a struct's reader kept as bytes: an id the schema does not have, a known
    id with another wire type, or an earlier value of a field that the wire repeats."""

    id: int
    type: int
    """The compact type of its header (for a bool field, 1 or 2 is the value)."""
    data: bytes
    """The value's bytes, as on the wire (empty for a bool field)."""


@dataclasses.dataclass(frozen=True, slots=True)
class WireLayout:
    """How a parsed struct lay on the wire, kept only where ``build`` would lay it out
    otherwise, so that the struct rebuilds byte for byte. ``build`` of a struct without
    one writes the fields in declaration order, each header as a delta when one fits,
    and containers' element types as the schema's (bool: 1)."""

    order: tuple
    """Its fields in wire order: a field id (the model's value is written there) or an
    :class:`UnknownField` (written back as it was)."""
    long_headers: tuple = ()
    """Indexes into ``order`` of headers written in the long form though a delta fit."""
    header_types: bytes = b""
    """The type nibble of each list/set header (plus 0x10 when its size is in the long
    form though it fits the header) and the key/value byte of each non-empty map, in wire
    order, of this struct's own containers (not those of nested structs): a bool
    container says 1 or 2, an empty one may say anything."""
    wire_form: bytes | None = None
    """The struct's bytes as read (header of its first field to its stop byte), kept when
    its own bytes hold a form Apache's readers take and every writer writes otherwise: a
    varint longer than it needs (a value, length, size or long-form field id), a stop byte
    whose high nibble is not 0, a bool element other than 1 or 2, a map key twice. ``build``
    writes them back while the model still reads as them (:func:`kept_or_built`), and writes
    the model by the rest of the layout otherwise (the canonical form for ``order=()``).
    The contract of ``runtime.core.kept`` (equality, JSON form, the reads-as rule), kept per
    struct, in the layout beside the order: a nested struct decides its own."""

    @property
    def unknown(self) -> tuple:
        """The fields kept as bytes, in wire order."""
        return tuple(e for e in self.order if e.__class__ is UnknownField)


def holds_unknown(wire_layout: WireLayout | None) -> bool:
    """Whether a struct's ``wire_layout`` holds an :class:`UnknownField`: its generated
    module's ``UNKNOWN_BYTES`` (``runtime.core.unknown_bytes``).

    >>> holds_unknown(WireLayout((1, UnknownField(7, 5, b"\\x02")))), holds_unknown(WireLayout((2, 1)))
    (True, False)
    >>> holds_unknown(None)
    False
    """
    return wire_layout is not None and bool(wire_layout.unknown)


def keep_bytes(layout: WireLayout | None, buf: bytes, start: int, end: int, left) -> WireLayout:
    """``layout`` (None: the order build writes) holding the struct at ``buf[start:end]``
    as its :attr:`WireLayout.wire_form`, charged to the expansion budget ``left``.

    >>> keep_bytes(None, bytes.fromhex("1502e0"), 0, 3, [1000])
    WireLayout(order=(), long_headers=(), header_types=b'', wire_form=b'\\x15\\x02\\xe0')
    """
    left[0] -= KEPT_BYTES + end - start
    if left[0] < 0:
        raise over_budget(start)
    if layout is None:
        return WireLayout((), wire_form=buf[start:end])
    return dataclasses.replace(layout, wire_form=buf[start:end])


KEPT_BYTES = 48
"""A kept :attr:`WireLayout.wire_form`'s size besides its bytes (its bytes object and, at
most, its layout)."""


def kept_or_built(model, reader, write, wired=None) -> bytes:
    """The bytes of a struct that keeps its bytes as read (its ``wire_form``: its
    :class:`WireLayout`'s, or a RawStruct's own): those while they still read as the model
    (:func:`runtime.core.kept.reads_as`: read again by the struct's Python ``reader``, they
    and the model are written alike, each without its kept bytes), else the model's, by
    the rest of its layout. A struct's writer ``write(m, out)`` and its layout's
    ``wired(m, out, layout, keep)``; a RawStruct's (``wired`` None) ``write(m, out, keep)``:
    with ``keep`` False they write the model as if it kept no bytes (no copy without them)."""
    built = _unkept_bytes(model, write, wired)

    def rewrite(data: bytes, limits) -> bytes:
        n = len(data)
        cx = Options(
            limits.max_message_bytes, limits.max_depth, limits.max_count, limits.max_string, "bytes"
        )  # strings as the bytes they are: not UTF-8 ones still compare
        again, used = reader(data, 0, n, 1, cx, budget(n))
        if used != n:
            raise DecodeError(f"{n - used} trailing byte(s) after the struct", offset=used)
        return _unkept_bytes(again, write, wired)

    # a struct's own field may be named wire_form: its kept bytes are its layout's
    kept = model.wire_form if wired is None else model.wire_layout.wire_form
    return kept if rt_kept.reads_as(built, kept, rewrite) else built


def _unkept_bytes(model, write, wired) -> bytes:
    """What ``write`` (or ``wired``, by the model's layout) writes of ``model`` without
    its kept bytes."""
    out = bytearray()
    if wired is None:  # a RawStruct
        write(model, out, False)
    elif model.wire_layout is None:
        write(model, out)
    else:
        wired(model, out, model.wire_layout, False)
    return bytes(out)


def budget(size: int) -> list:
    """A message's expansion budget: a one-element list the readers charge (parse_with
    makes it inline)."""
    return [EXPANSION * size + EXPANSION_SLACK]


UNCHARGED = [float("inf")]
"""The budget of what is not charged (values skipped, traced raw values): never spent."""


def over_budget(pos: int) -> LimitError:
    return LimitError(
        f"decoded objects would exceed {EXPANSION}x the input's size "
        f"(+{EXPANSION_SLACK} bytes): too many structs or containers for these bytes",
        offset=pos,
    )


# -- reading ---------------------------------------------------------------------------


def _varint(buf, pos, end, bits, max_bytes, what):
    try:
        return read_uvarint(buf, pos, bits=bits, max_bytes=max_bytes, end=end)
    except DecodeError as err:
        err.message = f"{what}: {err.message}"
        raise


# The readers below take the well-formed case in one flat loop and hand anything else
# (truncated, too long, too wide) to _varint, which raises the exact error.


def read_i16(buf, pos: int, end: int):
    p, u, shift = pos, 0, 0
    stop = pos + 3 if pos + 3 < end else end  # noqa: FURB136 - min() is a call
    while p < stop:
        b = buf[p]
        p += 1
        u |= (b & 0x7F) << shift
        if b < 0x80:
            if u >> 16:
                break
            return (u >> 1) ^ -(u & 1), p
        shift += 7
    u, pos = _varint(buf, pos, end, 16, 3, "i16")
    return (u >> 1) ^ -(u & 1), pos


def read_i32(buf, pos: int, end: int):
    p, u, shift = pos, 0, 0
    stop = pos + 5 if pos + 5 < end else end  # noqa: FURB136 - min() is a call
    while p < stop:
        b = buf[p]
        p += 1
        u |= (b & 0x7F) << shift
        if b < 0x80:
            if u >> 32:
                break
            return (u >> 1) ^ -(u & 1), p
        shift += 7
    u, pos = _varint(buf, pos, end, 32, 5, "i32")
    return (u >> 1) ^ -(u & 1), pos


def read_i64(buf, pos: int, end: int):
    if pos + 10 <= end:  # unrolled: no loop counter, no shift variable
        b = buf[pos]
        if b < 0x80:
            return ZZ7[b], pos + 1
        u = b & 0x7F
        b = buf[pos + 1]
        if b < 0x80:
            u |= b << 7
            return (u >> 1) ^ -(u & 1), pos + 2
        u |= (b & 0x7F) << 7
        b = buf[pos + 2]
        if b < 0x80:
            u |= b << 14
            return (u >> 1) ^ -(u & 1), pos + 3
        u |= (b & 0x7F) << 14
        b = buf[pos + 3]
        if b < 0x80:
            u |= b << 21
            return (u >> 1) ^ -(u & 1), pos + 4
        u |= (b & 0x7F) << 21
        # Past 28 bits the groups go to `h`, so every step stays a one-digit int operation
        # and only the final combine works on a big int.
        b = buf[pos + 4]
        h = b & 0x7F
        n = 5
        if b >= 0x80:
            b = buf[pos + 5]
            h |= (b & 0x7F) << 7
            n = 6
            if b >= 0x80:
                b = buf[pos + 6]
                h |= (b & 0x7F) << 14
                n = 7
                if b >= 0x80:
                    b = buf[pos + 7]
                    h |= (b & 0x7F) << 21
                    n = 8
                    if b >= 0x80:
                        b = buf[pos + 8]
                        h |= (b & 0x7F) << 28
                        n = 9
                        if b >= 0x80:
                            b = buf[pos + 9]
                            if b > 1:  # too long or too wide: _varint raises the error
                                _varint(buf, pos, end, 64, 10, "i64")
                            h |= b << 35
                            n = 10
        v = h << 27 | u >> 1
        return (~v if u & 1 else v), pos + n
    p, u, shift = pos, 0, 0
    stop = pos + 10 if pos + 10 < end else end  # noqa: FURB136 - min() is a call
    while p < stop:
        b = buf[p]
        p += 1
        u |= (b & 0x7F) << shift
        if b < 0x80:
            if u >> 64:
                break
            return (u >> 1) ^ -(u & 1), p
        shift += 7
    u, pos = _varint(buf, pos, end, 64, 10, "i64")
    return (u >> 1) ^ -(u & 1), pos


def read_size(buf, pos: int, end: int):
    """A length or element count: a varint that must fit a non-negative int32."""
    p, u, shift = pos, 0, 0
    stop = pos + 5 if pos + 5 < end else end  # noqa: FURB136 - min() is a call
    while p < stop:
        b = buf[p]
        p += 1
        u |= (b & 0x7F) << shift
        if b < 0x80:
            if u > 0x7FFFFFFF:
                break
            return u, p
        shift += 7
    u, new = _varint(buf, pos, end, 32, 5, "size")
    if u > 0x7FFFFFFF:
        raise DecodeError(f"size {u} is negative as an int32", offset=pos)
    return u, new


# -- runs of zigzag varints --------------------------------------------------------------
# A list of i16/i32/i64 whose elements all take the same number of bytes (ids, timestamps,
# counters of one magnitude) decodes with a few whole-run operations instead of a Python
# step per byte: the varints' bytes are spread into 2/4/8-byte lanes (bytes.replace
# pads after each last byte), the 7-bit groups of every lane are packed together at once on one big int (a
# shift/mask ladder), zigzag-decoded likewise, and `struct` unpacks the lanes.

RUN_MIN = 8
"""Shorter lists (and shorter runs) are read element by element: that is as fast."""
_RUN_CHUNK = 512  # elements per step: bounds the size of the big ints and of the masks
_RUN_MAX_SIZE = {16: 3, 32: 5, 64: 8}  # 9- and 10-byte i64 take the element loop
_HIGH_BIT = bytes(b & 0x80 for b in range(256))
_LEADING = bytes(b if b & 0x80 else 0 for b in range(256))


class _Run:
    """What decoding a run of ``size``-byte varints needs: the expected continuation bits
    and, for its lane width, the masks of the packing ladder and of the zigzag step."""

    def __init__(self, size: int):
        self.lane = lane = 1 << (size - 1).bit_length()  # bytes: 2, 4 or 8
        self.pad = bytes(lane - size + 1) if lane > size else b""

        def tile(value: int, width: int) -> int:  # value repeated every `width` bytes
            return int.from_bytes(
                value.to_bytes(width, "little") * (lane * _RUN_CHUNK // width), "little"
            )

        # Step s joins each pair of (7 << s)-bit groups held in (8 << s)-bit slots: the
        # high one moves down (1 << s) bits, next to the low one; the masks drop the
        # continuation bits. The last step also shifts both right one more bit: the
        # zigzag's u >> 1.
        self.ladder = []
        shift = 1
        while shift < lane:
            group = 7 * shift
            last = int(2 * shift == lane)
            keep = tile((1 << group) - 1 - last, 2 * shift)  # bit 0 is the sign, not shifted over
            move = tile(((1 << group) - 1) << (8 * shift), 2 * shift)
            self.ladder.append((keep, last, move, shift + last))
            shift *= 2
        self.one = tile(1, lane)
        self.ones = (1 << (8 * lane)) - 1
        self.over = {bits: tile(self.ones >> bits << bits, lane) for bits in (15, 31)}
        self.fmt = "<%d" + {2: "h", 4: "i", 8: "q"}[lane]


_RUNS: dict = {}  # size -> _Run, built on first use
_RUN_HIGH = [b""] + [(b"\x80" * (size - 1) + b"\x00") * _RUN_CHUNK for size in range(1, 9)]


def read_zigzag_run(buf, pos: int, end: int, n: int, bits: int, out: list) -> int:
    """Append to ``out`` the leading elements of a list of ``n`` zigzag varints of ``bits``
    bits at ``pos`` that come in runs of equal size, each in its shortest form; return the
    position after them.

    The caller's element loop reads whatever is left (mixed sizes, 9-10 byte forms, bad
    bytes), so values and errors are exactly the loop's.

    >>> out = []
    >>> read_zigzag_run(b"\\x83\\x01" * 8 + b"\\x00", 0, 17, 9, 32, out), out  # 8 of 2 bytes, 1 left
    (16, [-66, -66, -66, -66, -66, -66, -66, -66])
    """
    top = _RUN_MAX_SIZE[bits]
    while n - len(out) >= RUN_MIN:
        p = pos
        while p < end and buf[p] >= 0x80:
            p += 1
        size = p + 1 - pos
        if p >= end or size > top:
            break
        k = min(n - len(out), _RUN_CHUNK, (end - pos) // size)
        region = buf[pos : pos + k * size]
        got, want = region.translate(_HIGH_BIT), _RUN_HIGH[size][: k * size]
        if got != want:  # the run ends at the first varint of another size
            diff = int.from_bytes(got, "little") ^ int.from_bytes(want, "little")
            k = ((diff & -diff).bit_length() - 1) // (8 * size)
            if k < RUN_MIN:
                break
            region = region[: k * size]
        if size > 1:  # a longer form than the value needs (last byte 0): the loop reads it
            longer = region[size - 1 :: size].find(0)
            if longer >= 0:
                k = longer
                if k < RUN_MIN:
                    break
                region = region[: k * size]
        else:
            out += map(ZZ7.__getitem__, region)
            pos += k
            continue
        run = _RUNS.get(size) or _RUNS.setdefault(size, _Run(size))
        if run.pad:  # into lanes: zero the last bytes, pad after them, put them back
            lanes = bytearray(region.translate(_LEADING).replace(b"\x00", run.pad))
            lanes[size - 1 :: run.lane] = region[size - 1 :: size]
            region = lanes
        x = int.from_bytes(region, "little")
        odd = x & run.one  # each lane's zigzag sign: bit 0 of its first byte
        for keep, low, move, high in run.ladder:
            x = (x & keep) >> low | (x & move) >> high
        if 7 * size > bits and x & run.over[bits - 1]:
            break  # a value too wide: the element loop reports it
        x ^= odd * run.ones
        out += struct.unpack(run.fmt % k, x.to_bytes(run.lane * k, "little"))
        pos += k * size
    return pos


def read_field_id(buf, pos: int, end: int):
    """The zigzag i16 field id of a long-form field header."""
    try:
        return read_i16(buf, pos, end)
    except DecodeError as err:
        err.message = f"long-form field id: {err.message}"
        err.struct_level = True
        raise


def read_seqid(buf, pos: int, end: int):
    """The envelope's seqid: an unsigned 32-bit varint holding an int32 (two's complement)."""
    u, pos = _varint(buf, pos, end, 32, 5, "seqid")
    return (u - (1 << 32) if u > 0x7FFFFFFF else u), pos


def check_count(
    n: int, remain: int, min_bytes: int, cx: Options, pos: int, budget=UNCHARGED, cost: int = 0
) -> None:
    """Raise unless ``n`` elements of at least ``min_bytes`` each fit in ``remain`` bytes
    and the ``max_count`` limit; then charge ``cost`` (the container and its elements) to
    the expansion ``budget``."""
    if n > cx.max_count:
        raise LimitError(f"{n} elements exceed the limit max_count={cx.max_count}", offset=pos)
    if n * min_bytes > remain:
        raise DecodeError(
            f"{n} elements need at least {n * min_bytes} bytes, {remain} remain", offset=pos
        )
    budget[0] -= cost
    if budget[0] < 0:
        raise over_budget(pos)


def check_bytes(n: int, left: int, cx: Options, pos: int) -> None:
    if n > cx.max_string:
        raise LimitError(f"{n} bytes exceed the limit max_string={cx.max_string}", offset=pos)
    raise DecodeError(f"byte length {n} but only {left} bytes remain", offset=pos)


def bad_utf8(raw: bytes, cx: Options, pos: int, err: UnicodeDecodeError):
    """A string that is not UTF-8: an error, U+FFFD replacement, or the bytes."""
    if cx.utf8 == "replace":
        return raw.decode("utf-8", "replace")
    if cx.utf8 == "bytes":
        return raw
    raise DecodeError(f"invalid UTF-8 ({err.reason}) at byte {err.start}", offset=pos)


def wrong_type(got: int, expected: str, names: dict, pos: int) -> DecodeError:
    name = names.get(got, f"unknown type {got}")
    return DecodeError(f"element type {name} ({got}), schema says {expected}", offset=pos)


def type_pair(h: int, names: dict) -> str:
    """A map's key/value type byte as text (``BINARY/I32``), for ``wirespec inspect``."""
    return f"{names.get(h >> 4, h >> 4)}/{names.get(h & 15, h & 15)}"


def too_deep(cx: Options, pos: int) -> DecodeError:
    return LimitError(f"nesting deeper than the limit max_depth={cx.max_depth}", offset=pos)


def no_stop(pos: int) -> DecodeError:
    err = DecodeError("input ends before the struct's stop byte", offset=pos)
    err.struct_level = True
    return err


def _as_decode_error(err: Exception, pos: int) -> DecodeError:
    if isinstance(err, DecodeError):
        return err
    if isinstance(err, (IndexError, struct.error)):
        return DecodeError("input ends inside this value", offset=pos)
    if isinstance(err, RecursionError):
        return DecodeError("nesting too deep for this Python stack", offset=pos)
    if isinstance(err, MemoryError):
        return LimitError("value too large for memory", offset=pos)
    if isinstance(err, (KeyError, ValueError, TypeError)):
        return DecodeError(f"malformed value: {err!r}", offset=pos)
    raise err


def in_field(err: Exception, name: str, pos: int) -> DecodeError:
    """Prefix a failure inside field ``name`` with the name (converting truncation)."""
    err = _as_decode_error(err, pos)
    if getattr(err, "struct_level", False):
        err.struct_level = False
    else:
        err.add_path(name)
    return err


def at_index(err: Exception, index: int, pos: int) -> DecodeError:
    """Prefix a failure inside element ``index`` of a container."""
    err = _as_decode_error(err, pos)
    err.add_path(index=index)
    return err


# -- writing ---------------------------------------------------------------------------


def uvarint(n: int) -> bytes:
    return write_uvarint(n, bits=32)


def zigzag(v: int, bits: int = 64) -> bytes:
    return write_zigzag(v, bits=bits)


def zz16(v) -> bytes:
    return write_zigzag(v, bits=16)


def zz32(v) -> bytes:
    return write_zigzag(v, bits=32)


def zz64(v) -> bytes:
    return write_zigzag(v, bits=64)


def i8_byte(v) -> int:
    if not -128 <= v <= 127:
        raise EncodeError(f"i8 {v} is out of range")
    return v & 0xFF


def text_bytes(v) -> bytes:
    """The UTF-8 of a string value; bytes pass through (strings decoded as bytes)."""
    if isinstance(v, str):
        try:
            return v.encode()
        except UnicodeEncodeError as err:
            raise EncodeError(f"string is not encodable as UTF-8: {err.reason}") from None
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    raise EncodeError.expected("str", v)


def binary_bytes(v) -> bytes:
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    raise EncodeError.expected("bytes", v)


def uuid_bytes(v) -> bytes:
    if isinstance(v, _uuid.UUID):
        return v.bytes
    if isinstance(v, str):
        return _uuid.UUID(v).bytes
    if isinstance(v, (bytes, bytearray)) and len(v) == 16:
        return bytes(v)
    raise EncodeError(f"expected a uuid.UUID, got {v!r}")


_FOREIGN = (TypeError, AttributeError, ValueError, OverflowError, struct.error)
"""What Python raises on a value of the wrong type (``-64 <= "x"``, ``len(7)``, ``_pack_d("x")``,
``uuid.UUID("zz")``): said as what the writer expected there."""


def _as_encode_error(err: Exception, value=None, expected: str | None = None) -> EncodeError:
    if isinstance(err, EncodeError):
        return err
    if isinstance(err, RecursionError):
        return EncodeError("model nests too deep (a cycle?)")
    if expected is not None and isinstance(err, _FOREIGN):
        return EncodeError.expected(expected, value)
    return EncodeError(f"cannot write {type(err).__name__}: {err}")


def enc_field(
    err: Exception, name: str, index: int | None = None, value=None, expected: str | None = None
) -> EncodeError:
    """An :class:`EncodeError` for a failure while writing field ``name``: one Python raised
    on its ``value`` says what was ``expected`` there.

    >>> str(enc_field(TypeError("'<=' not supported"), "num_rows", value="x", expected="an integer"))
    "num_rows: expected an integer, got str 'x'"
    """
    err = _as_encode_error(err, value, expected)
    err.add_path(name, index=index)
    return err


# A writer's loops keep no counter: the place of the element or entry that failed is added
# on the way out (the read side's at_index), so a model that writes pays nothing for it.


def enc_element(err: Exception, items, item, expected: str | None = None) -> EncodeError:
    """:func:`enc_field` of a failure while writing ``item``, an element of the list (or
    set) ``items``: its index.

    >>> tags = ["a", 5]
    >>> str(enc_element(enc_element(EncodeError("expected str, got int"), tags, tags[1]), [tags], tags))
    '[0][1]: expected str, got int'
    """
    return _as_encode_error(err, item, expected).add_element(items, item)


def enc_key(err: Exception, key=None, expected: str | None = None) -> EncodeError:
    """:func:`enc_field` of a failure while writing a map's key (:func:`enc_entry` then
    says which)."""
    err = _as_encode_error(err, key, expected)
    err.message = f"key: {err.message}"
    return err


def enc_entry(err: Exception, key, value=None, expected: str | None = None) -> EncodeError:
    """:func:`enc_field` of a failure while writing the entry of ``key`` of a map.

    >>> str(enc_entry(enc_key(EncodeError("expected str, got int")), 5))
    '[5]: key: expected str, got int'
    >>> str(enc_entry(TypeError("'<=' not supported"), "a", "x", "an integer"))
    "['a']: expected an integer, got str 'x'"
    """
    return _as_encode_error(err, value, expected).add_key(key)


def raw_fields(fields):
    """A RawStruct's ``fields`` as its writer walks them, as every list in a build: None is
    none, a tuple is a list, what else (a generator, which its first reader would use up)
    is refused at ``fields``.

    >>> raw_fields(None), raw_fields((1,))
    ((), (1,))
    >>> try:
    ...     raw_fields({1})
    ... except EncodeError as err:
    ...     print(err)
    fields: expected a list, got set {1}
    """
    if fields is None:
        return ()
    if isinstance(fields, (list, tuple)):
        return fields
    raise EncodeError.expected("a list", fields, path="fields")


def enc_raw_field(err: Exception, fields: list, index: int, types: dict, expects: dict):
    """:func:`enc_field` of a failure while writing ``fields[index]`` of a RawStruct: in its
    value, named by its field id and compact type too (the read side's ``#7``).

    >>> class F: id, type, value = 7, 5, "x"
    >>> str(enc_raw_field(TypeError(), [F()], 0, {}, {5: "an integer"}))
    "fields[0] (field 7, 5).value: expected an integer, got str 'x'"
    """
    f, at = fields[index], f"fields[{index}]"
    if not all(hasattr(f, a) for a in ("id", "type", "value")):
        return enc_field(err, at, value=f, expected="a RawField")
    if not isinstance(f.type, int):
        return enc_field(err, f"{at}.type", value=f.type, expected="a compact type")
    ct = int(f.type)
    if type(f.id) is not int or not -(1 << 15) <= f.id < 1 << 15:
        return enc_field(err, f"{at}.id", value=f.id, expected="an integer")
    err = enc_field(err, "value", value=f.value, expected=expects.get(ct))
    err.add_path(f"{at} (field {f.id}, {getattr(types.get(ct), 'name', ct)})")
    return err


def compact_type(v, path: str = "") -> int:
    """A raw value's compact type (an int or a CompactType member, as its reader gives it),
    refused at ``path`` when it is anything else (``int()`` would take 1.5 as 1).

    >>> compact_type(5), compact_type(True)
    (5, 1)
    >>> compact_type(1.5, "element_type")
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: element_type: expected a compact type, got float 1.5
    """
    if v.__class__ is int:
        return v
    if not isinstance(v, int):
        raise EncodeError.expected("a compact type", v, path=path)
    return int(v)


def enc_raw_item(err: Exception, items: list, item, expected: str | None, pair: bool = False):
    """:func:`enc_element` of a failure while writing ``item`` of a RawList's (or, ``pair``,
    a RawMap's) ``items``: its index in them.

    >>> str(enc_raw_item(TypeError(), [("a", 1), ("b", "x")], ("b", "x"), "an integer", True))
    "items[1]: expected an integer, got str 'x'"
    """
    value = item[1] if pair and isinstance(item, tuple | list) and len(item) == 2 else item
    if pair and value is item:
        expected = "a (key, value) pair"
    err = _as_encode_error(err, value, expected).add_element(items, item)
    err.add_path("items")
    return err


# -- construct glue --------------------------------------------------------------------


class StructCodec(Construct):
    """A generated Thrift struct reader/writer as a construct, to compose with others.

    It parses from the current stream position to the struct's stop byte and leaves the
    stream right after it.
    """

    def __init__(self, name: str, read, write, doc: str = ""):
        super().__init__()
        self.name_ = name
        self._read, self._write = read, write
        self.__doc__ = doc

    def _parse(self, stream, context, path):
        start = stream.tell()
        data = stream.read()
        params = getattr(context, "_params", None) or {}
        cx = params.get("thrift_options") if hasattr(params, "get") else None
        cx = cx or Options.make({})
        try:
            model, used = self._read(data, 0, len(data), 1, cx, budget(len(data)))
        except DecodeError as err:
            err.shift(start)
            raise
        except RecursionError:
            raise DecodeError("nesting too deep for this Python stack", offset=start) from None
        stream.seek(start + used)
        return model

    def _build(self, obj, stream, context, path):
        out = bytearray()
        self._write(obj, out)
        stream.write(bytes(out))
        return obj

    def _sizeof(self, context, path):
        raise SizeofError("a Thrift struct has no fixed size", path=path)

    def __repr__(self):
        return f"<StructCodec {self.name_}>"


def parse_with(reader, data, cx: Options):
    """Run a generated reader over all of ``data``; trailing bytes are an error."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"parse() takes bytes, not {type(data).__name__}")
    buf = bytes(data)
    if len(buf) > cx.max_message_bytes:
        raise LimitError(
            f"{len(buf)} bytes exceed the limit max_message_bytes={cx.max_message_bytes}",
            offset=0,
        )
    try:
        model, pos = reader(buf, 0, len(buf), 1, cx, [EXPANSION * len(buf) + EXPANSION_SLACK])
    except RecursionError:
        raise DecodeError("nesting too deep for this Python stack", offset=0) from None
    if pos != len(buf):
        raise DecodeError(f"{len(buf) - pos} trailing byte(s) after the struct", offset=pos)
    return model


def build_with(writer, model) -> bytes:
    out = bytearray()
    try:
        writer(model, out)
    except EncodeError:
        raise
    except RecursionError:
        raise EncodeError("model nests too deep (a cycle?)") from None
    except (AttributeError, TypeError) as err:
        raise EncodeError(f"not a model of this record: {err}") from None
    return bytes(out)
