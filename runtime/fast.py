"""Helpers of the generated fast path: the errors it raises, built exactly as the
construct path builds them, so both paths fail the same way.

    >>> str(tag_error(b"\\x07", 0, 1, 0x03))
    '<message> at offset 0: expected tag 0x03, got 0x07'
"""

from __future__ import annotations

from .errors import DecodeError


def tag_error(buf: bytes, pos: int, end: int, tag: int) -> DecodeError:
    """The error for a missing or wrong tag byte at ``pos`` (see ``runtime.record.Tag``)."""
    if pos >= end:
        return DecodeError(f"truncated tag 0x{tag:02x}: needs 1 byte, 0 remain", offset=pos)
    return DecodeError(f"expected tag 0x{tag:02x}, got 0x{buf[pos]:02x}", offset=pos)
