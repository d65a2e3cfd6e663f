"""Reading from construct's streams with wirespec errors instead of construct's.

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

from runtime.core.errors import DecodeError


def remaining(stream) -> int:
    """Bytes left in a seekable stream."""
    here = stream.tell()
    end = stream.seek(0, io.SEEK_END)
    stream.seek(here)
    return end - here


def read_exact(stream, n: int, what: str) -> bytes:
    """Read exactly ``n`` bytes or raise :class:`DecodeError` at the current offset."""
    here = stream.tell()
    if n < 0:
        raise DecodeError(f"negative length {n} for {what}", offset=here)
    left = remaining(stream)
    if n > left:
        raise DecodeError(f"truncated {what}: needs {n} bytes, {left} remain", offset=here)
    return stream.read(n)


def read_byte(stream, what: str) -> int:
    """Read one byte as an int, or raise :class:`DecodeError` at the end of input."""
    b = stream.read(1)
    if not b:
        raise DecodeError(f"truncated {what}: needs 1 byte, 0 remain", offset=stream.tell())
    return b[0]


def peek_byte(stream) -> int | None:
    """The next byte without consuming it, or None at the end of input."""
    b = stream.read(1)
    if not b:
        return None
    stream.seek(-1, io.SEEK_CUR)
    return b[0]
