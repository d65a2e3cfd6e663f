"""Columnar chunks: n elements back to back, n from elsewhere (a spec's ``count:``), and the
regions of counted chunks that use all the bytes a ``size:`` gives them.

One :class:`Chunk` is every chunk type a spec names (generator/spec/types.py
``CHUNK_TYPES``), its element said by its arguments: a varint (``zigzag``: signed), each
the difference to the one before (``delta``, modulo 2**64 or with int64 wrap), or a
``payload``: n varint lengths first (ZigZag with ``zigzag``: -1 is a NULL), then the n
byte strings concatenated (text with an ``encoding``). It takes ``count`` as construct's
:class:`~construct.Array` does (an int, ``this.n`` or a callable):

    >>> from construct import Struct, this
    >>> s = Struct("n" / Chunk(1), "ids" / Chunk(lambda ctx: ctx.n[0], zigzag=True, delta=True))
    >>> s.parse(bytes.fromhex("03 04 02 03")).ids
    ListContainer([2, 3, 1])

:class:`CountedChunks` is a region of chunks each after its uvarint count. Each also has a
bytes-level protocol: ``read``/``unpack(buf, pos, end, ...) -> (value, new_pos)`` raising
:class:`DecodeError` with offsets into ``buf``, and ``pack(value, ..., out: bytearray)``
raising :class:`EncodeError`; and ``record`` reports its elements to a
:class:`runtime.core.spans.SpanRecorder` (``wirespec inspect``). A varint longer than it
needs is read and noted (:func:`runtime.core.kept.note`: the message keeps its bytes).
"""

from __future__ import annotations

import functools
import operator
from itertools import accumulate as _accumulate

from construct import Construct, ListContainer, SizeofError, evaluate
from construct.expr import ExprMixin

from runtime.core import kept
from runtime.core import limits as _limits
from runtime.core.errors import DecodeError, EncodeError, a_or_an
from runtime.core.leb128 import MAX_BYTES, read_uvarint, skip_varints, write_uvarint, write_zigzag
from runtime.core.sequences import ran_short
from runtime.core.spans import current as current_spans
from runtime.core.stream import ran_out, read_ahead

U64 = (1 << 64) - 1
_I64 = 1 << 63
_ZIGZAG = [(b >> 1) ^ -(b & 1) for b in range(128)]
"""ZigZag decoding of the one-byte varints."""
_unzigzag = _ZIGZAG.__getitem__
_IDENTITY = list(range(128))
"""The value of each one-byte uvarint (a table like _ZIGZAG, for one loop over both)."""
_MANY = 4
"""From this many elements on, a chunk's quick pack (no loop in Python) pays for its checks."""
_UVARINTS_OF_BYTES = [write_uvarint(v) for v in range(0x100)]


def _at(err, name=None, index=None):
    err.add_path(name, index=index)
    return err


def _listed(values) -> list | tuple:
    """The elements of ``values``: a list or tuple, None no elements (as every list in a
    build); anything else is refused, though a str or a dict has a length and elements and
    would be written as one (``"ab"`` as the terms ``a`` and ``b``, ``{}`` as none).

    >>> _listed(None), _listed((1, 2))
    ([], (1, 2))
    >>> _listed("ab")
    Traceback (most recent call last):
    runtime.core.errors.EncodeError: <model>: expected a list, got str 'ab'
    """
    if type(values) is list or isinstance(values, (list, tuple)):
        return values
    if values is None:
        return []
    raise EncodeError.expected("a list", values)


class Chunk(Construct):
    """``count`` elements back to back.

    >>> Chunk(3).parse(bytes.fromhex("0f fe01 0a")), Chunk(1).build([300]).hex()
    (ListContainer([15, 254, 10]), 'ac02')
    >>> Chunk(3, zigzag=True).parse(bytes.fromhex("01 02 03"))
    ListContainer([-1, 1, -2])
    >>> Chunk(2, delta=True).build([5, 4]).hex()  # a decreasing uint64 wraps
    '05ffffffffffffffffff01'
    >>> Chunk(3, zigzag=True, delta=True).parse(bytes.fromhex("04 02 0f"))
    ListContainer([2, 3, -5])
    >>> Chunk(2, payload=True, encoding="utf-8").parse(bytes.fromhex("01 02 61 6263"))
    ListContainer(['a', 'bc'])
    >>> Chunk(3, payload=True, zigzag=True).parse(bytes.fromhex("04 01 00 6869"))
    ListContainer([b'hi', None, b''])

    ``enum`` (varint chunks) makes every element a member of that IntEnum class: any other
    value is a DecodeError at the element. ``check_on_build=False`` writes the elements
    given when the count is computed on build from what is built (a size table written
    after the chunk). A payload's length below -1 (or -1 without ``zigzag``) is a
    DecodeError, and so is invalid text. ``count_said``: where the count comes from, as the
    spec says it, for a build's refusal of a list of another length (a computed count's
    ``value:``: the list it counts is the one to fix).

    >>> Chunk(0, count_said="count = len(names)").build([1, 2])
    Traceback (most recent call last):
    runtime.core.errors.EncodeError: <model>: expected 0 elements (count = len(names)), found 2
    """

    def __init__(
        self,
        count,
        *,
        zigzag: bool = False,
        delta: bool = False,
        payload: bool = False,
        encoding: str | None = None,
        enum=None,
        check_on_build: bool = True,
        count_said: str = "",
    ):
        super().__init__()
        self.count, self.count_said = count, count_said
        self.zigzag, self.delta, self.payload, self.encoding = zigzag, delta, payload, encoding
        self.enum = enum
        self.check_on_build = check_on_build

    def _count(self, context, offset: int) -> int:
        n = evaluate(self.count, context)
        if type(n) is not int or n < 0:
            raise DecodeError(f"invalid element count {n!r}", offset=offset)
        _limits.current(context).check("max_count", n, offset=offset)
        return n

    # -- reading -------------------------------------------------------------------------
    def _parse(self, stream, context, path):
        start = stream.tell()
        values = self._read(stream, self._count(context, start), _limits.current(context))
        spans = current_spans(context)
        if spans is not None:
            end = stream.tell()
            stream.seek(start)
            raw = stream.read(end - start)
            with spans.shifted(start):
                self.record(spans, raw, None, 0, values)
        return values

    def read(self, buf, pos: int, end: int, n, limits: _limits.Limits = _limits.DEFAULT):
        """What ``_parse`` does, on bytes (the generated fast path calls it): ``n``
        elements from ``buf[pos:end]`` -> ``(list, next_pos)``, the same errors."""
        if self.payload:
            return self._read_payloads(buf, pos, end, n, limits)
        if (
            type(n) is int
            and 0 <= n <= limits.max_count
            and n <= end - pos
            and buf[pos : pos + n].isascii()
        ):  # n one-byte varints, the usual chunk: the bytes are the values
            stop = pos + n
            values = list(map(_unzigzag, buf[pos:stop])) if self.zigzag else list(buf[pos:stop])
            if self.delta:  # deltas of one byte: no sum of them reaches 2**63
                values = list(_accumulate(values))
        else:
            values, stop = _unpack_varints(buf, pos, end, n, limits, self.zigzag, self.delta)
        if self.enum is not None:
            by_value = self._by_value
            try:
                values = list(map(by_value.__getitem__, values))
            except KeyError:
                i = next(i for i, v in enumerate(values) if v not in by_value)
                message = f"{values[i]} is not {a_or_an(self.enum.__name__)}"
                raise _at(DecodeError(message, offset=skip_varints(buf, pos, i)), index=i) from None
        return values, stop

    @functools.cached_property
    def _by_value(self) -> dict:
        return {m.value: m for m in self.enum}

    def unpack(self, buf, pos, end, n, limits=_limits.DEFAULT):
        """:meth:`read` element by element, each error exact (no enum members)."""
        if not self.payload:
            return _unpack_varints(buf, pos, end, n, limits, self.zigzag, self.delta)
        start = pos
        lengths, pos = _unpack_varints(buf, pos, end, n, limits, self.zigzag)
        _check_lengths(lengths, buf, start, limits)
        out = []
        encoding = self.encoding
        for i, ln in enumerate(lengths):
            if ln < 0:
                out.append(None)
                continue
            if ln > end - pos:
                message = f"truncated element: needs {ln} bytes, {end - pos} remain"
                raise _at(DecodeError(message, offset=pos), index=i)
            data = bytes(buf[pos : pos + ln])
            if encoding:
                try:
                    data = data.decode(encoding)
                except UnicodeDecodeError as err:
                    message = f"invalid {encoding}: {err.reason}"
                    raise _at(DecodeError(message, offset=pos + err.start), index=i) from None
            out.append(data)
            pos += ln
        return out, pos

    def _read_payloads(self, buf, pos, end, n, limits):
        """The usual payload chunk (one-byte lengths, payloads that fit, valid text) in one
        loop; at anything else the exact :meth:`unpack` reads it again."""
        if type(n) is int and 0 <= n <= limits.max_count and n <= end - pos and type(buf) is bytes:
            p = pos + n
            raw = buf[pos:p]
            if raw.isascii():
                lengths = _ZIGZAG if self.zigzag else _IDENTITY
                encoding, most = self.encoding, limits.max_string
                out = []
                append = out.append
                try:
                    for b in raw:
                        ln = lengths[b]
                        if ln < 0:
                            if ln != -1:
                                break
                            append(None)
                            continue
                        q = p + ln
                        if ln > most or q > end:
                            break
                        append(buf[p:q])
                        p = q
                    else:
                        if not encoding:
                            return out, p
                        if None not in out and encoding in ("utf-8", "utf8"):
                            return list(map(bytes.decode, out)), p
                        return [v if v is None else v.decode(encoding) for v in out], p
                except UnicodeDecodeError:
                    pass
        return self.unpack(buf, pos, end, n, limits)

    def _read(self, stream, n: int, limits: _limits.Limits):
        """:meth:`read` on a construct stream (one bounded read; the unused tail is given
        back). A payload chunk reads the rest of the stream (a sized region), so a payload
        that does not fit is reported at its own element."""
        start = stream.tell()
        if self.payload:
            data = stream.read(-1)
        else:  # fewer bytes at the end of the input is no cut (on_cut: keep) if they do
            data = read_ahead(stream, n * MAX_BYTES)
        try:
            values, used = self.read(data, 0, len(data), n, limits)
        except DecodeError as err:
            if (
                not self.payload
                and len(data) < n * MAX_BYTES
                and self._ran_out(err, data, n, limits)
            ):
                ran_out(stream)  # at the input's end, read to it
            err.shift(start)
            raise
        stream.seek(start + used)
        return ListContainer(values)

    def _ran_out(self, failure: DecodeError, data: bytes, n: int, limits) -> bool:
        """Whether the read of ``data`` that failed with ``failure`` needed bytes past its
        end (the input ends inside the chunk), as the fast readers tell it
        (``runtime.core.sequences.ran_short``: the read again with padding after them)."""

        def read_again(padded, pos, end):
            self.read(padded, pos, end, n, limits)

        return ran_short(failure, read_again, data, 0, len(data))

    # -- writing -------------------------------------------------------------------------
    def _build(self, obj, stream, context, path):
        obj = _listed(obj)
        n = evaluate(self.count, context) if self.check_on_build else len(obj)
        return self._build_n(obj, stream, n)

    def pack(self, values, n, out) -> None:
        """Append the ``n`` elements ``values`` to ``out``."""
        values = _listed(values)
        if len(values) != n:
            said = f" ({self.count_said})" if self.count_said else ""
            raise EncodeError(f"expected {n} elements{said}, found {len(values)}")
        if self.enum is not None:
            self._check_members(values)
        if self.payload:
            self._pack_payloads(values, out)
            return
        zigzag, delta = self.zigzag, self.delta
        if len(values) >= _MANY and set(map(type, values)) == {int}:
            deltas = map(operator.sub, values, [0, *values]) if delta else values
            if zigzag:  # all one byte: |element| < 64, so no int64 wrap
                raw = [d + d if d >= 0 else -d - d - 1 for d in deltas]
                if max(raw) < 0x80:
                    out += bytes(raw)
                    return
            else:
                raw = list(deltas) if delta else values
                if min(raw) >= 0:
                    top = max(raw)
                    if top < 0x80:
                        out += bytes(raw)  # one-byte varints are their values
                        return
                    if not delta and top < 0x100:  # type codes and flag bytes: a table
                        out += b"".join(map(_UVARINTS_OF_BYTES.__getitem__, raw))
                        return
                    if not delta and top <= U64:  # all in range: no element to name
                        out += b"".join(map(write_uvarint, raw))
                        return
        if not delta:
            write = write_zigzag if zigzag else write_uvarint
            for i, v in enumerate(values):
                try:
                    out += write(v)
                except EncodeError as err:
                    raise _at(err, index=i)
            return
        prev = 0
        for i, v in enumerate(values):
            if type(v) is not int or not (-_I64 <= v < _I64 if zigzag else 0 <= v <= U64):
                raise _at(
                    EncodeError(f"{v!r} is not {'an int64' if zigzag else 'a uint64'}"), index=i
                )
            d = v - prev
            prev = v
            if not zigzag:
                out += write_uvarint(d & U64)
                continue
            if not -_I64 <= d < _I64:
                d = ((d + _I64) & U64) - _I64  # Go's int64 wrap
            out += write_uvarint((d << 1) ^ (d >> 63))

    def _check_members(self, values) -> None:
        """A strict enum's chunk writes its members and their codes, nothing else: an
        unlisted code would be written, and refused when read back.

        >>> import enum
        >>> Kind = enum.IntEnum("Kind", {"ROW": 1, "DDL": 2})
        >>> Chunk(2, enum=Kind).build([Kind.DDL, 1]).hex()
        '0201'
        >>> Chunk(2, enum=Kind).build([1, 7])
        Traceback (most recent call last):
        runtime.core.errors.EncodeError: [1]: 7 is not a Kind
        """
        by_value = self._by_value
        for i, v in enumerate(values):
            if not isinstance(v, int) or type(v) is bool or v not in by_value:
                raise _at(EncodeError(f"{v!r} is not {a_or_an(self.enum.__name__)}"), index=i)

    def _pack_payloads(self, values, out) -> None:
        if self._pack_quick(values, out):
            return
        payloads = []
        for i, v in enumerate(values):
            try:
                payloads.append(self._payload(v))
            except EncodeError as err:
                raise _at(err, index=i)
        for p in payloads:
            out += (
                b"\x01" if p is None else (write_zigzag if self.zigzag else write_uvarint)(len(p))
            )
        for p in payloads:
            if p:
                out += p

    def _payload(self, value):
        """The bytes of one element: bytes as they are, text in the chunk's ``encoding``.
        Text is what its reader decodes back, so a text chunk takes bytes that are its
        encoding and a str that encodes strictly (no lone surrogate), nothing a reader
        would refuse.

        >>> Chunk(1, payload=True, encoding="utf-8").build([b"\\xff"])
        Traceback (most recent call last):
        runtime.core.errors.EncodeError: [0]: invalid utf-8: invalid start byte at byte 0
        """
        if value is None and self.zigzag:
            return None
        encoding = self.encoding
        if isinstance(value, (bytes, bytearray, memoryview)):
            data = bytes(value)
            if encoding:
                try:
                    data.decode(encoding)
                except UnicodeDecodeError as err:
                    message = f"invalid {encoding}: {err.reason} at byte {err.start}"
                    raise EncodeError(message) from None
            return data
        if encoding and isinstance(value, str):
            try:
                return value.encode(encoding)
            except UnicodeEncodeError as err:
                message = f"{value!r} is not text {encoding.upper()} can write ({err.reason})"
                raise EncodeError(message) from None
        kinds = "str or bytes" if encoding else "bytes"
        raise EncodeError.expected(kinds, value)

    def _pack_quick(self, values, out) -> bool:
        """:meth:`pack` of the usual payload chunk (bytes, text with an encoding, NULLs where
        they are allowed) without a loop in Python over the elements; False leaves anything
        else (text that is not its encoding too) to the exact loop, which says what is wrong."""
        encoding, nullable = self.encoding, self.zigzag
        kinds = set(map(type, values))
        plain = {bytes, type(None)} if nullable else {bytes}
        if not encoding and kinds <= plain:
            payloads = values
        elif encoding and kinds <= plain | {str}:
            try:
                payloads = [v.encode(encoding) if type(v) is str else v for v in values]
                if bytes in kinds:  # bytes are text too: what a reader decodes back
                    for v in values:
                        if type(v) is bytes:
                            v.decode(encoding)
            except UnicodeError:
                return False
        else:
            return False
        if nullable:  # ZigZag lengths, -1 for NULL
            lengths = [1 if p is None else len(p) << 1 for p in payloads]
        else:
            lengths = list(map(len, payloads))
        if lengths and max(lengths) >= 0x80:
            out += b"".join(map(write_uvarint, lengths))
        else:  # one-byte varints are their values
            out += bytes(lengths)
        out += b"".join(filter(None, payloads))
        return True

    def _sizeof(self, context, path):
        raise SizeofError("a chunk's size depends on its values", path=path)

    # -- ``wirespec inspect`` ------------------------------------------------------------
    def record(self, spans, buf, key, pos, values, labels=None, keys=("lengths", "payloads")):
        """Report the elements of this chunk at ``buf[pos:]`` (read and checked already)
        under a node ``key`` (None: the caller's node); a payload chunk's lengths and
        payloads each under their node of ``keys``. Returns where the chunk ends."""
        if not self.payload:
            return _record_varints(spans, buf, key, pos, values, self.zigzag, self.delta, labels)
        lengths = [-1 if v is None else len(self._payload(v)) for v in values]
        if key is not None:
            spans.open(key, pos)
        pos = _record_varints(spans, buf, keys[0], pos, lengths, self.zigzag, labels=labels)
        pos = _record_payloads(spans, keys[1], pos, lengths, values, labels)
        if key is not None:
            spans.close(pos, ListContainer(values))
        return pos

    # -- construct's compiler: a per-instance helper (the count is emitted inline, so only
    # plain ints and ``this`` expressions compile; a lambda falls back to construct's
    # linked instance)
    def _emitparse(self, code):
        return f"{self._emit_instance(code)}._parse_n(io, {self._emit_count()}, this)"

    def _emitbuild(self, code):
        return f"{self._emit_instance(code)}._build_n(obj, io, {self._emit_count()})"

    def _emit_count(self) -> str:
        if isinstance(self.count, (int, ExprMixin)):
            return repr(self.count)
        raise NotImplementedError

    def _emit_instance(self, code) -> str:
        name = f"_chunk_{id(self)}"
        code.append(f"from {__name__} import Chunk")
        code.append(f"{name} = Chunk({', '.join(['0', *self._options()])})")
        return name

    def _parse_n(self, stream, n, context):
        if type(n) is not int or n < 0:
            raise DecodeError(f"invalid element count {n!r}", offset=stream.tell())
        limits = _limits.current(context)
        limits.check("max_count", n, offset=stream.tell())
        return self._read(stream, n, limits)

    def _build_n(self, obj, stream, n):
        out = bytearray()
        self.pack(obj, n, out)
        stream.write(out)
        return obj

    def _options(self) -> list[str]:
        flags = [f"{f}=True" for f in ("zigzag", "delta", "payload") if getattr(self, f)]
        flags += [f"encoding={self.encoding!r}"] if self.encoding else []
        return flags + ([f"count_said={self.count_said!r}"] if self.count_said else [])

    def __repr__(self):
        return f"Chunk({', '.join([repr(self.count), *self._options()])})"


def _unpack_varints(buf, pos, end, n, limits, signed=False, delta=False):
    """The one decoding loop of the varint chunks, with the one-byte case inlined (hot)."""
    if type(n) is not int or n < 0:
        raise DecodeError(f"invalid element count {n!r}", offset=pos)
    if n > limits.max_count:
        limits.check("max_count", n, offset=pos)
    if n > end - pos:  # every element takes a byte: allocation bounded by the input
        raise DecodeError(f"truncated chunk: {n} elements, {end - pos} bytes remain", offset=pos)
    out = []
    append = out.append
    acc = i = 0
    try:
        for i in range(n):
            v = buf[pos] if pos < end else 0x80  # 0x80: let read_uvarint report truncation
            if v < 0x80:
                pos += 1
            elif pos + 1 < end and 0 < buf[pos + 1] < 0x80:  # type codes >= 128, flags, sizes
                v = (v & 0x7F) | (buf[pos + 1] << 7)
                pos += 2
            else:
                v, pos = read_uvarint(buf, pos, end=end)
                if not buf[pos - 1]:  # longer than it needs: the message keeps it
                    kept.note()
            if signed:
                v = (v >> 1) ^ -(v & 1)
                if delta:
                    acc = v = ((acc + v + _I64) & U64) - _I64
            elif delta:
                acc = v = (acc + v) & U64
            append(v)
    except DecodeError as err:
        raise _at(err, index=i)
    return out, pos


def _check_lengths(lengths, buf, start: int, limits: _limits.Limits) -> None:
    """Payload lengths are -1 (NULL, ZigZag lengths only) or 0 .. ``max_string``."""
    if not lengths or (min(lengths) >= -1 and max(lengths) <= limits.max_string):
        return
    for i, ln in enumerate(lengths):
        if ln < -1 or ln > limits.max_string:
            offset = skip_varints(buf, start, i)
            try:
                if ln < -1:
                    raise DecodeError(f"negative length {ln}", offset=offset)
                limits.check("max_string", ln, offset=offset)
            except DecodeError as err:
                raise _at(err, index=i)


class CountedChunks(Construct):
    """A region of chunks, each a uvarint count and then the chunk; it owns the rest of its
    stream (a spec gives it a ``size:``). ``repeated``: chunks to the end of the region (a
    list of lists); else one chunk whose count is not 0, filling the region, or no bytes at
    all (an empty list), ``name`` naming it and ``noun`` its elements in errors and
    ``wirespec inspect``.

    >>> tables = CountedChunks(Chunk(0, zigzag=True, delta=True), repeated=True)
    >>> tables.parse(bytes.fromhex("02 1a 5e 01 b003 02 d801 00"))
    ListContainer([[13, 60], [216], [108, 108]])
    >>> tables.build([[13, 5], [16]]).hex()
    '021a0f0120'
    >>> terms = CountedChunks(Chunk(0, payload=True, encoding="utf-8"), name="terms", noun="term")
    >>> terms.parse(bytes.fromhex("02 01 01 61 62")), terms.parse(b""), terms.build([]).hex()
    (ListContainer(['a', 'b']), ListContainer([]), '')

    Raises :class:`DecodeError` for a present but empty single chunk (writers omit it) and
    for bytes after its last element.
    """

    def __init__(self, chunk: Chunk, *, repeated=False, name="chunk", noun="element"):
        super().__init__()
        self.chunk, self.repeated, self.name, self.noun = chunk, repeated, name, noun

    def _parse(self, stream, context, path):
        start = stream.tell()
        data = stream.read()
        try:
            value = self.unpack(data, 0, len(data), _limits.current(context))
        except DecodeError as err:
            err.shift(start)
            raise
        spans = current_spans(context)
        if spans is not None:
            with spans.shifted(start):
                self.record(spans, data, None, 0, len(data), value)
        return value

    def unpack(self, buf, pos, end, limits=_limits.DEFAULT):
        """The value of ``buf[pos:end]``, the whole region."""
        if not self.repeated:
            if pos == end:
                return ListContainer()
            n, p = read_uvarint(buf, pos, end=end)
            if not buf[p - 1] and p - pos > 1:  # longer than it needs: the message keeps it
                kept.note()
            if n == 0:
                raise DecodeError(f"an empty {self.name} must be omitted", offset=pos)
            items, p = self.chunk.read(buf, p, end, n, limits)
            if p != end:
                raise DecodeError(f"{end - p} bytes after the last {self.noun}", offset=p)
            return ListContainer(items)
        tables = self._quick(buf, pos, end, limits)
        if tables is not None:
            return ListContainer(tables)
        tables = []
        while pos < end:
            try:
                n = buf[pos]
                if n < 0x80:
                    pos += 1
                else:
                    n, pos = read_uvarint(buf, pos, end=end)
                    if not buf[pos - 1]:  # longer than it needs: the message keeps it
                        kept.note()
                table, pos = self.chunk.read(buf, pos, end, n, limits)
            except DecodeError as err:
                raise _at(err, index=len(tables))
            tables.append(table)
        return ListContainer(tables)

    def _quick(self, buf, pos, end, limits):
        """The usual repeated chunks (one-byte counts, elements of one or two bytes) in one
        loop; None for anything else, which the exact reader reads again."""
        chunk = self.chunk
        if chunk.payload or chunk.enum is not None:
            return None
        zigzag, delta = chunk.zigzag, chunk.delta
        tables = []
        most = min(limits.max_count, 0x7F)
        while pos < end:
            n = buf[pos]
            pos += 1
            if n > most or n > end - pos:
                return None
            table = []
            append = table.append
            acc = 0
            for _ in range(n):
                v = buf[pos] if pos < end else 0xFF
                if v < 0x80:
                    pos += 1
                elif pos + 1 < end and 0 < buf[pos + 1] < 0x80:
                    v = (v & 0x7F) | (buf[pos + 1] << 7)
                    pos += 2
                else:  # longer, or not in its shortest form (the exact reader notes it)
                    return None
                if zigzag:
                    v = (v >> 1) ^ -(v & 1)
                # |element| < 2**14, n < 128: no sum wraps
                acc = acc + v if delta else v
                append(acc)
            tables.append(table)
        return tables

    def pack(self, value, out) -> None:
        """Append the region of ``value`` to ``out``."""
        value = _listed(value)
        if not self.repeated:
            if value:
                out += write_uvarint(len(value))
                self.chunk.pack(value, len(value), out)
            return
        for i, table in enumerate(value):
            try:
                out += write_uvarint(len(table))
                self.chunk.pack(table, len(table), out)
            except EncodeError as err:
                raise _at(err, index=i)

    def _build(self, obj, stream, context, path):
        out = bytearray()
        self.pack(obj, out)
        stream.write(out)
        return obj

    def _sizeof(self, context, path):
        raise SizeofError("a region of counted chunks has a variable size", path=path)

    def record(self, spans, buf, key, pos, end, value) -> None:
        """Report the counts and elements of ``buf[pos:end]`` (read and checked already)
        under a node ``key`` (None: the caller's node)."""
        if key is not None:
            spans.open(key, pos)
        for t, table in enumerate(value if self.repeated else [value] if value else []):
            if self.repeated:
                spans.open(t, pos)
            pos = _record_count(spans, buf, pos)
            pos = self.chunk.record(spans, buf, None, pos, table, keys=("lengths", f"{self.noun}s"))
            if self.repeated:
                spans.close(pos, ListContainer(table))
        if key is not None:
            spans.close(end, value)


def _record_count(spans, buf, pos) -> int:
    n, p = read_uvarint(buf, pos)
    spans.mark(pos, p, "count", n)
    return p


# -- field spans for ``wirespec inspect`` (only called with a recorder; the region they
# walk has been decoded and checked already, so these re-reads cannot fail) -------------
def _record_varints(spans, buf, key, pos, values, signed=False, delta=False, labels=None):
    """A node ``key`` over a varint chunk, one child per element: its value, and for a
    delta chunk the role ``base`` or ``delta +d ->`` (what the bytes say; the value is the
    running one). ``labels[j]`` (a column or term name) prefixes the role."""
    if key is not None:
        spans.open(key, pos)
    for j, v in enumerate(values):
        raw, nxt = read_uvarint(buf, pos)
        role = "value"
        if delta:
            d = (raw >> 1) ^ -(raw & 1) if signed else raw
            role = "base" if j == 0 else f"delta {d:+d} ->"
        label = labels[j] if labels is not None else None
        if label is not None:
            role = f"{label}: {'' if role == 'value' else role}".rstrip()
        spans.open(j, pos)
        if role != "value":
            spans.mark(pos, nxt, role, v)
        spans.close(nxt, v)
        pos = nxt
    if key is not None:
        spans.close(pos, ListContainer(values))
    return pos


def _record_payloads(spans, key, pos, lengths, values, labels=None):
    """A node ``key`` over the payloads of a payload chunk (NULLs have no bytes)."""
    spans.open(key, pos)
    for j, (ln, v) in enumerate(zip(lengths, values, strict=True)):
        if ln < 0:
            continue
        spans.open(j, pos)
        label = labels[j] if labels is not None else None
        if label is not None:
            spans.mark(pos, pos + ln, f"{label}:", v)
        spans.close(pos + ln, v)
        pos += ln
    spans.close(pos, ListContainer(values))
    return pos
