"""Fields of a known byte size: a length read before the bytes (:class:`SizePrefixed`), or
a size the record says elsewhere (:class:`Sized`, e.g. an event body whose size the header
gives). The field inside must use every byte; its errors and spans get absolute offsets.

    >>> from construct import Int8ul
    >>> Sized(2, Int8ul).parse(b"\\x07\\x08")
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: <message> at offset 0: size 2 leaves 1 byte(s) unparsed
"""

from __future__ import annotations

import io

from construct import ConstructError, Subconstruct

from runtime.core.construct_errors import construct_message
from runtime.core.errors import DecodeError, EncodeError
from runtime.core.limits import current as current_limits
from runtime.core.spans import current as current_spans
from runtime.core.stream import read_exact, remaining


class SizePrefixed(Subconstruct):
    """A length (read by ``length_field``) followed by exactly that many bytes, which
    ``subcon`` must consume entirely.

    >>> from construct import Int32sl, Int8ul
    >>> SizePrefixed(Int32sl, Int8ul).build(7)
    b'\\x01\\x00\\x00\\x00\\x07'
    """

    def __init__(self, length_field, subcon):
        super().__init__(subcon)
        self.length_field = length_field

    def _parse(self, stream, context, path):
        start = stream.tell()
        length = self.length_field._parsereport(stream, context, path)
        if length < 0:
            raise DecodeError(f"negative length {length}", offset=start)
        current_limits(context).check("max_message_bytes", length, offset=start)
        base = stream.tell()
        data = read_exact(stream, length, "size-prefixed field")
        spans = current_spans(context)
        if spans is not None:
            spans.mark(start, base, "length", length)
        return _parse_within(self.subcon, data, base, context, path, f"length {length}", start)

    def _build(self, obj, stream, context, path):
        built, data = _build_apart(self.subcon, obj, context, path)
        self.length_field._build(len(data), stream, context, path)
        stream.write(data)
        return built


class Sized(Subconstruct):
    """Exactly ``size`` bytes (an int or a function of the context) that ``subcon`` must
    consume entirely, e.g. an event body whose size the header gives.

    >>> from construct import Int8ul
    >>> Sized(lambda this: 1, Int8ul).parse(b"\\x07")
    7
    """

    def __init__(self, size, subcon, *, check_on_build: bool = True):
        super().__init__(subcon)
        self.size = size
        self.check_on_build = check_on_build
        """False when the size is computed on build from what is built (a size table
        written after this field)."""

    def _size(self, context, offset: int) -> int:
        size = self.size(context) if callable(self.size) else self.size
        if type(size) is not int or size < 0:
            raise DecodeError(f"invalid size {size!r}", offset=offset)
        return size

    def _parse(self, stream, context, path):
        start = stream.tell()
        size = self._size(context, start)
        data = read_exact(stream, size, "sized field")
        return _parse_within(self.subcon, data, start, context, path, f"size {size}", start)

    def _parse_backwards(self, data: bytes, end: int, base: int, context, path):
        """As a trailer field: the ``size`` bytes that end just before ``data[end]``."""
        size = self._size(context, base + end)
        if size > end:
            raise DecodeError(
                f"size {size} points outside the record: only {end} byte(s) before the end "
                "of this field",
                offset=base + end,
            )
        begin = end - size
        value = _parse_within(
            self.subcon, data[begin:end], base + begin, context, path, f"size {size}", base + begin
        )
        return value, begin

    def _build(self, obj, stream, context, path):
        built, data = _build_apart(self.subcon, obj, context, path)
        if self.check_on_build:
            size = self.size(context) if callable(self.size) else self.size
            if len(data) != size:
                raise EncodeError(f"built {len(data)} bytes where the size says {size}")
        stream.write(data)
        return built


def _parse_within(subcon, data: bytes, base: int, context, path, bound: str, bound_offset: int):
    """Parse ``subcon`` from ``data`` (which starts at offset ``base`` of the enclosing
    stream) and require it to use every byte; errors and spans get absolute offsets."""
    inner = io.BytesIO(data)
    spans = current_spans(context)
    try:
        if spans is None:
            value = subcon._parsereport(inner, context, path)
        else:
            with spans.shifted(base):
                value = subcon._parsereport(inner, context, path)
    except ConstructError as err:
        raise DecodeError(construct_message(err), offset=base + inner.tell()) from None
    except DecodeError as err:
        err.shift(base)
        raise
    left = remaining(inner)
    if left:
        raise DecodeError(f"{bound} leaves {left} byte(s) unparsed", offset=bound_offset)
    return value


def remember_measured(context, subcon, obj, built, data: bytes) -> None:
    """Keep what building ``obj`` with ``subcon`` gave when a size before it measured it
    (:func:`runtime.core.record.sizeof`), for :func:`_build_apart` to write as it is: built
    again there, a document in a document in ... would be built twice per level (2**depth).
    The bytes are the same: the field is built in the same context from the same value.

    >>> from construct import Container, Int8ul
    >>> context, value = Container(), [7]
    >>> remember_measured(context, Int8ul, value, "built", b"\\x07")
    >>> _build_apart(Int8ul, value, context, "")
    ('built', b'\\x07')
    """
    context.setdefault("_measured", {})[id(subcon)] = (obj, built, data)


def _build_apart(subcon, obj, context, path) -> tuple:
    """Build ``subcon`` into its own buffer (its length is written before it), or take the
    bytes measuring it built (:func:`remember_measured`)."""
    measured = context.get("_measured")
    if measured:
        value, built, data = measured.pop(id(subcon), (None, None, None))
        if data is not None and value is obj:
            return built, data
    inner = io.BytesIO()
    built = subcon._build(obj, inner, context, path)
    return built, inner.getvalue()
