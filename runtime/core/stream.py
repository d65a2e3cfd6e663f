"""Reading from construct's streams with wirespec errors instead of construct's, and the
construct shape both varint families (:mod:`runtime.core.leb128`, :mod:`runtime.core.msbvarint`)
share.

    >>> import io
    >>> read_exact(io.BytesIO(b"ab"), 3, "string payload")
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: <message> at offset 0: truncated string payload: needs 3 bytes, 2 remain

Primitives call these instead of ``stream.read`` so truncation is a :class:`DecodeError`
with the offset where the field started, and no length read from the input can make us
allocate more than the bytes that are actually there.
"""

from __future__ import annotations

import io
import operator

from construct import Construct, SizeofError

from runtime.core.errors import DecodeError, EncodeError


def remaining(stream) -> int:
    """Bytes left in a seekable stream."""
    here = stream.tell()
    end = stream.seek(0, io.SEEK_END)
    stream.seek(here)
    return end - here


def read_exact(stream, n: int, what: str) -> bytes:
    """Read exactly ``n`` bytes or raise :class:`DecodeError` at the current offset (where
    the stream is left)."""
    here = stream.tell()
    if n < 0:
        raise DecodeError(f"negative length {n} for {what}", offset=here)
    left = remaining(stream)
    if n > left:
        # A read that comes back short (sized by the bytes there, not by the untrusted n),
        # so a caller watching the stream's reads sees the input end (RepeatEos's cut).
        stream.read(left + 1)
        stream.seek(here)
        raise DecodeError(f"truncated {what}: needs {n} bytes, {left} remain", offset=here)
    return stream.read(n)


def read_byte(stream, what: str) -> int:
    """Read one byte as an int, or raise :class:`DecodeError` at the end of input."""
    b = stream.read(1)
    if not b:
        raise DecodeError(f"truncated {what}: needs 1 byte, 0 remain", offset=stream.tell())
    return b[0]


def read_ahead(stream, n: int) -> bytes:
    """Up to ``n`` bytes for a reader that gives back what it does not use (a varint's one
    bounded read): fewer at the end of the input is not running out of it (the value may
    end before), so a stream that watches for that (``runtime.core.sequences.ShortReads``,
    ``on_cut: keep``) is not told; a reader that did run out says so (:func:`ran_out`).

    >>> read_ahead(io.BytesIO(b"ab"), 9)
    b'ab'
    """
    ahead = getattr(stream, "read_ahead", None)
    return stream.read(n) if ahead is None else ahead(n)


def ran_out(stream) -> None:
    """A reader that read ahead (:func:`read_ahead`) needed bytes past the end: one more
    read there, which comes back short (where the stream is left)."""
    stream.read(1)


def peek_byte(stream) -> int | None:
    """The next byte without consuming it, or None at the end of input."""
    b = stream.read(1)
    if not b:
        return None
    stream.seek(-1, io.SEEK_CUR)
    return b[0]


def as_int(value) -> int:
    """``value`` as the int a writer encodes: numpy integers pass (``operator.index``); a
    bool is an int but never a meaningful number here, so it is refused like a non-integer.

    >>> as_int(True)
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: <model>: expected an integer, got bool True
    """
    if isinstance(value, bool):
        raise EncodeError.expected("an integer", value)
    try:
        return operator.index(value)
    except TypeError:
        raise EncodeError.expected("an integer", value) from None


class StreamVarInt(Construct):
    """A varint construct of ``bits`` whose reading and writing are two module functions,
    ``_read(stream, *read_args())`` and ``_write(obj, stream, bits)``. Compiled construct
    parsers import the same functions, so there is no linked (interpreted) fallback and
    both paths share one implementation."""

    _read: staticmethod
    _write: staticmethod
    bits: int

    def read_args(self) -> tuple:
        """What ``_read`` takes after the stream."""
        return (self.bits,)

    def _parse(self, stream, context, path):
        return self._read(stream, *self.read_args())

    def _build(self, obj, stream, context, path):
        return self._write(obj, stream, self.bits)

    def _sizeof(self, context, path):
        raise SizeofError("a varint's size depends on its value", path=path)

    def _emitparse(self, code):
        code.append(f"from {self._read.__module__} import {self._read.__name__}")
        return f"{self._read.__name__}(io, {', '.join(map(str, self.read_args()))})"

    def _emitbuild(self, code):
        code.append(f"from {self._write.__module__} import {self._write.__name__}")
        return f"{self._write.__name__}(obj, io, {self.bits})"
