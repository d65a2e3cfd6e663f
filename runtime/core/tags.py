"""Tag bytes: a fixed byte that must be there (:class:`Tag`), a field it announces
(:class:`Tagged`, optional when the format may leave it out), and a byte that says yes by
being there (:class:`Presence`).

    >>> from construct import Int8ul
    >>> Tagged(0x06, Int8ul).parse(b"\\x06\\x07")
    7

A :class:`~runtime.core.record.Record` marks a :class:`Tag` field's byte as a tag in the
spans ``wirespec inspect`` shows.
"""

from __future__ import annotations

from construct import Construct, Subconstruct

from runtime.core.errors import DecodeError
from runtime.core.spans import current as current_spans
from runtime.core.stream import peek_byte, read_byte


class Tag(Construct):
    """A fixed tag byte that must be present: ``Tag(0x03)`` parses and builds ``b"\\x03"``.

    >>> Tag(0x03).parse(b"\\x04")
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: <message> at offset 0: expected tag 0x03, got 0x04
    """

    def __init__(self, tag: int):
        super().__init__()
        self.tag = tag
        self.flagbuildnone = True

    def _parse(self, stream, context, path):
        start = stream.tell()
        got = read_byte(stream, f"tag 0x{self.tag:02x}")
        if got != self.tag:
            raise DecodeError(f"expected tag 0x{self.tag:02x}, got 0x{got:02x}", offset=start)

    def _build(self, obj, stream, context, path):
        stream.write(bytes((self.tag,)))

    def _sizeof(self, context, path):
        return 1


class Tagged(Subconstruct):
    """A field preceded by a tag byte. With ``optional=True`` the field is present only
    when the next byte is the tag, and ``None`` means absent.

    >>> from construct import Int8ul
    >>> Tagged(0x06, Int8ul, optional=True).parse(b"\\x07")
    >>> Tagged(0x06, Int8ul, optional=True).build(1)
    b'\\x06\\x01'
    """

    def __init__(self, tag: int, subcon, *, optional: bool = False, absent=None):
        super().__init__(subcon)
        self.tag = tag
        self.optional = optional
        self.absent = absent
        """What an absent optional field parses to: None, or e.g. ``list`` for a repeated
        field whose tag is written only when it has elements."""
        self.flagbuildnone = optional or subcon.flagbuildnone

    def _parse(self, stream, context, path):
        if self.optional and peek_byte(stream) != self.tag:
            return None if self.absent is None else self.absent()
        Tag(self.tag)._parse(stream, context, path)
        spans = current_spans(context)
        if spans is not None:
            spans.mark(stream.tell() - 1, stream.tell(), "tag", self.tag)
        return self.subcon._parsereport(stream, context, path)

    def _build(self, obj, stream, context, path):
        if self.optional and (
            obj is None or self.absent is not None and (obj == self.absent() or obj == ())
        ):
            return obj
        stream.write(bytes((self.tag,)))
        return self.subcon._build(obj, stream, context, path)


class Presence(Construct):
    """A tag byte with no content that says yes by being there: parses to True/False.

    >>> Presence(0x08).parse(b"\\x08"), Presence(0x08).parse(b"\\x09")
    (True, False)
    """

    def __init__(self, tag: int):
        super().__init__()
        self.tag = tag
        self.flagbuildnone = True

    def _parse(self, stream, context, path):
        if peek_byte(stream) == self.tag:
            stream.read(1)
            return True
        return False

    def _build(self, obj, stream, context, path):
        if obj:
            stream.write(bytes((self.tag,)))
        return bool(obj)
