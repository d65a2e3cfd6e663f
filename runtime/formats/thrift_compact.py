"""Small shared helpers for the generated Thrift Compact codecs.

The protocol itself (type ids, header forms, the envelope) lives in
``specs/thrift_compact.yaml`` and the generated code; this module only holds what every
generated module would otherwise repeat: parse options and limits, the expansion budget,
unknown fields kept, a read's checks and its errors with field paths, and a construct
wrapper. Its parts: the varints read (:mod:`runtime.formats.thrift_varints`), the values
written and a write's errors (:mod:`runtime.formats.thrift_writes`), both called from here
as ``rt.<name>``; the JSON form's helpers are :mod:`runtime.formats.thrift_json`.

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

from construct import Construct, SizeofError

from runtime.core import kept as rt_kept
from runtime.core.errors import DecodeError, EncodeError, LimitError, WirespecError
from runtime.core.limits import Limits

# Generated modules call every helper as ``rt.<name>`` of this module (one import,
# templates/thrift_module.py.j2); the varints read and the values written are modules of
# their own.
from runtime.formats.thrift_varints import (  # noqa: F401
    RUN_MIN,
    ZZ7,
    read_field_id,
    read_i16,
    read_i32,
    read_i64,
    read_seqid,
    read_size,
    read_zigzag_run,
)
from runtime.formats.thrift_writes import (  # noqa: F401
    binary_bytes,
    compact_type,
    enc_element,
    enc_entry,
    enc_field,
    enc_key,
    enc_raw_field,
    enc_raw_item,
    i8_byte,
    raw_fields,
    text_bytes,
    uuid_bytes,
    uvarint,
    zigzag,
    zz16,
    zz32,
    zz64,
)

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


# -- a read's checks and errors -------------------------------------------------------


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
