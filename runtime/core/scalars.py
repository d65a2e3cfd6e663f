"""The leaf constructs of a spec's fields: bytes after a length, of a given size or up to
a terminator byte (text in an encoding), an 8-bit bool, an enum over an integer, an empty value.

    >>> from construct import Int8ul
    >>> LengthPrefixedBytes(Int8ul, "utf8").parse(b"\\x02hi"), Bool8().parse(b"\\x01")
    ('hi', True)
"""

from __future__ import annotations

import enum

from construct import (
    Const,
    ConstError,
    Construct,
    GreedyBytes,
    StringEncoded,
    Subconstruct,
)

from runtime.core.errors import DecodeError, EncodeError, a_or_an
from runtime.core.flags import flag_member
from runtime.core.limits import current as current_limits
from runtime.core.spans import current as current_spans
from runtime.core.stream import ran_out, read_ahead, read_byte, read_exact


class LengthPrefixedBytes(Construct):
    """Bytes after a length; ``encoding`` makes it a string (strict UTF-8 by default) and
    ``max_length`` bounds the byte length (MySQL's bounded strings).

    >>> from construct import Int32sl
    >>> LengthPrefixedBytes(Int32sl, "utf8").parse(b"\\x02\\x00\\x00\\x00hi")
    'hi'
    >>> LengthPrefixedBytes(Int32sl).parse(b"\\xff\\xff\\xff\\xff")
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: <message> at offset 0: negative length -1

    With ``nullable=True`` the length -1 is None (Kafka's null key, value and header value):

    >>> LengthPrefixedBytes(Int32sl, nullable=True).parse(b"\\xff\\xff\\xff\\xff") is None
    True

    A value too long for its length's type says so (``Int8ul`` from runtime.core.fixed):

    >>> from runtime.core.fixed import Int8ul
    >>> LengthPrefixedBytes(Int8ul, "utf8").build("a" * 300)
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: <model>: text of 300 bytes is too long for its length prefix (300 is out of range for uint8)
    """

    def __init__(
        self,
        length_field,
        encoding: str | None = None,
        max_length: int | None = None,
        nullable: bool = False,
    ):
        super().__init__()
        self.length_field = length_field
        self.encoding = encoding
        self.max_length = max_length
        self.nullable = nullable
        self.flagbuildnone = nullable

    def _parse(self, stream, context, path):
        start = stream.tell()
        length = self.length_field._parsereport(stream, context, path)
        null = length == -1 and self.nullable
        if not null:
            if length < 0:
                raise DecodeError(f"negative length {length}", offset=start)
            if self.max_length is not None and length > self.max_length:
                raise DecodeError(
                    f"string of {length} bytes exceeds its bound of {self.max_length}",
                    offset=start,
                )
            current_limits(context).check("max_string", length, offset=start)
        spans = current_spans(context)
        if spans is not None:
            spans.mark(start, stream.tell(), "length", length)
        if null:
            return None
        data = read_exact(stream, length, "string" if self.encoding else "bytes")
        return data if self.encoding is None else decoded(data, self.encoding, start)

    def _build(self, obj, stream, context, path):
        if obj is None and self.nullable:
            self.length_field._build(-1, stream, context, path)
            return None
        data = value_bytes(obj, self.encoding)
        if self.max_length is not None and len(data) > self.max_length:
            raise EncodeError(f"string of {len(data)} bytes exceeds its bound of {self.max_length}")
        try:
            self.length_field._build(len(data), stream, context, path)
        except EncodeError as err:  # the length alone would not say it is the value's
            what = "text" if self.encoding else "bytes"
            raise EncodeError(
                f"{what} of {len(data)} bytes is too long for its length prefix ({err.message})"
            ) from None
        stream.write(data)
        return obj


class Magic(Const):
    """A constant of a wide integer type (a magic number: PNG's signature, Avro's
    ``Obj\\x01``) whose mismatch reads in hex, as the bytes on the wire; construct's own
    ``Const`` says it in decimal, which no one recognises a signature by.

        >>> from construct import Int32ub
        >>> Magic(0x4F626A01, Int32ub, "magic").parse(b"Obj\\x02")
        Traceback (most recent call last):
        ...
        construct.core.ConstError: Error in path (parsing)
        expected magic 4f626a01, got 4f626a02
    """

    def __init__(self, value, subcon, label: str):
        super().__init__(value, subcon)
        self.label = label

    def _parse(self, stream, context, path):
        obj = self.subcon._parsereport(stream, context, path)
        if obj != self.value:
            want, got = (self.subcon.build(v).hex() for v in (self.value, obj))
            raise ConstError(f"expected {self.label} {want}, got {got}", path=path)
        return obj


class Bool8(Construct):
    """One byte, 0 = False and 1 = True; any other byte is an error (so rebuilds are
    byte-exact).

    >>> Bool8().parse(b"\\x01"), Bool8().build(False)
    (True, b'\\x00')
    """

    def _parse(self, stream, context, path):
        start = stream.tell()
        b = read_byte(stream, "boolean")
        if b > 1:
            raise DecodeError(f"boolean byte must be 0 or 1, got 0x{b:02x}", offset=start)
        return b == 1

    def _build(self, obj, stream, context, path):
        if not isinstance(obj, bool):
            raise EncodeError.expected("bool", obj)
        stream.write(b"\x01" if obj else b"\x00")
        return obj

    def _sizeof(self, context, path):
        return 1


def refuse_bool(enum_class, value) -> None:
    """An enum field's refusal of a bool, which Python takes as the int 0 or 1 (a member's
    value) but a parse never gives: the fast and compiled writers leave it to construct,
    so every tier says it in these words.

    >>> import enum
    >>> class Op(enum.IntEnum):
    ...     DELETE = 1
    >>> refuse_bool(Op, True)
    Traceback (most recent call last):
    runtime.core.errors.EncodeError: <model>: expected a member of Op, got bool True
    """
    if value.__class__ is bool:
        raise EncodeError.expected(f"a member of {enum_class.__name__}", value)


class EnumField(Subconstruct):
    """An integer that must be one of an ``enum.IntEnum``'s members.

    >>> import enum
    >>> from construct import Int8ul
    >>> class Op(enum.IntEnum):
    ...     DELETE = 1
    >>> EnumField(Int8ul, Op).parse(b"\\x01")
    <Op.DELETE: 1>
    >>> EnumField(Int8ul, Op).build("DELETE")
    b'\\x01'
    """

    def __init__(self, subcon, enum_class):
        super().__init__(subcon)
        self.enum_class = enum_class
        # A flags enum takes any set of its flags (0 too) but no bit none of them names,
        # which IntFlag itself would keep.
        self.flags = issubclass(enum_class, enum.IntFlag)

    def member(self, value):
        """``value``'s member, or None."""
        if self.flags:
            return flag_member(self.enum_class, value)
        try:
            return self.enum_class(value)
        except ValueError:
            return None

    def _parse(self, stream, context, path):
        start = stream.tell()
        raw = self.subcon._parsereport(stream, context, path)
        member = self.member(raw)
        if member is None:
            raise DecodeError(
                f"{raw} (0x{raw:02x}) is not a known {self.enum_class.__name__}", offset=start
            )
        return member

    def _build(self, obj, stream, context, path):
        refuse_bool(self.enum_class, obj)
        try:
            member = self.enum_class[obj] if isinstance(obj, str) else self.member(obj)
        except KeyError:
            member = None
        if member is None:
            raise EncodeError(f"{obj!r} is not {a_or_an(self.enum_class.__name__)}")
        self.subcon._build(int(member), stream, context, path)
        return member


class Empty(Construct):
    """No bytes at all; parses to None (a type code whose value has no payload)."""

    def __init__(self):
        super().__init__()
        self.flagbuildnone = True

    def _parse(self, stream, context, path):
        return None

    def _build(self, obj, stream, context, path):
        return None

    def _sizeof(self, context, path):
        return 0


class RestBytes(type(GreedyBytes)):
    """The bytes to the end of the stream (``size: eos``), as construct's ``GreedyBytes``;
    building refuses a value that is no bytes in our words, at the field (construct would
    say Python's: ``object of type 'NoneType' has no len()``).

    >>> RestBytes().build(bytearray(b"ab")), RestBytes().parse(b"ab")
    (b'ab', b'ab')
    >>> RestBytes().build(None)
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: <model>: expected bytes, got None
    """

    def _build(self, obj, stream, context, path):
        return super()._build(value_bytes(obj, None), stream, context, path)

    def _emitbuild(self, code):
        raise NotImplementedError  # construct's compiler links this instance (its check)


class RestText(StringEncoded):
    """The text to the end of the stream (``type: str, size: eos``), as construct's
    ``GreedyString``; building refuses what is no str, or no text its ``encoding`` writes,
    in our words (construct's: ``string encoding failed, expected unicode string``).

    >>> RestText("latin-1").build("é"), RestText("latin-1").parse(b"\\xe9")
    (b'\\xe9', 'é')
    >>> RestText("latin-1").build(None)
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: <model>: expected str, got None
    """

    def __init__(self, encoding: str):
        super().__init__(GreedyBytes, encoding)

    def _encode(self, obj, context, path):
        if not isinstance(obj, str):
            raise EncodeError.expected("str", obj)
        try:
            return obj.encode(self.encoding)
        except UnicodeEncodeError as err:
            message = f"{obj!r} is not text {self.encoding.upper()} can write ({err.reason})"
            raise EncodeError(message) from None


class SizedBytes(Construct):
    """Bytes whose length is fixed or comes from earlier fields (``size`` is an int or a
    function of the context); ``encoding`` makes it a string.

    >>> SizedBytes(lambda this: 2).parse(b"hi")
    b'hi'

    ``pad`` (a fixed-size string's padding byte, ``pad: nul``): the value is the text
    without its trailing pad bytes, and building pads it back to the size. Only trailing
    pad bytes go, so ``b"9.2\\0x\\0\\0"`` is ``"9.2\\0x"`` and rebuilds the same bytes.

    >>> SizedBytes(6, "ascii", pad=b"\\0").parse(b"9.2\\0\\0\\0")
    '9.2'
    >>> SizedBytes(6, "ascii", pad=b"\\0").build("9.2")
    b'9.2\\x00\\x00\\x00'
    """

    def __init__(self, size, encoding: str | None = None, pad: bytes = b""):
        super().__init__()
        self.size = size
        self.encoding = encoding
        self.pad = pad

    def _length(self, context) -> int:
        return self.size(context) if callable(self.size) else self.size

    def _parse(self, stream, context, path):
        start = stream.tell()
        length = self._length(context)
        current_limits(context).check("max_string", length, offset=start)
        data = read_exact(stream, length, "string" if self.encoding else "bytes")
        if self.pad:
            data = data.rstrip(self.pad)
        if self.encoding is None:
            return data
        return decoded(data, self.encoding, start)

    def _build(self, obj, stream, context, path):
        data = value_bytes(obj, self.encoding)
        if self.pad:
            data = pad_to(data, self._length(context), self.pad)
        if len(data) != self._length(context):
            raise EncodeError(f"expected {self._length(context)} bytes, got {len(data)}")
        stream.write(data)
        return obj


def decoded(data: bytes, encoding: str, start: int) -> str:
    """``data`` as text, or the DecodeError of bad text at ``start``.

    >>> decoded(b"caf\\xc3\\xa9", "utf-8", 0)
    'café'
    """
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as err:
        raise DecodeError(f"invalid {encoding}: {err.reason}", offset=start) from None


_TERMINATOR_STEP = 256
"""Bytes :class:`TerminatedBytes` reads at a time while it looks for its terminator."""


class TerminatedBytes(Construct):
    """Bytes up to a terminator byte (``terminator: 0``, Kaitai's ``strz``) within what is
    left of the enclosing region; ``encoding`` makes it a string. The terminator is read
    and written but is no part of the value, so a value that holds it cannot be built.

    >>> TerminatedBytes(0, "latin-1").parse(b"Title\\0rest")
    'Title'
    >>> TerminatedBytes(0, "latin-1").build("Author")
    b'Author\\x00'
    >>> TerminatedBytes(0).parse(b"no end")
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: <message> at offset 6: no terminator byte 0x00 after the bytes
    """

    def __init__(self, terminator: int, encoding: str | None = None):
        super().__init__()
        self.terminator = terminator
        self.encoding = encoding
        self.what = "string" if encoding else "bytes"

    def _parse(self, stream, context, path):
        start = stream.tell()
        rest = bytearray()
        length = -1
        while length < 0:  # read on in steps, not the whole rest for each value
            step = read_ahead(stream, _TERMINATOR_STEP)
            if not step:
                ran_out(stream)
                raise DecodeError(
                    f"no terminator byte {self.terminator:#04x} after the {self.what}",
                    offset=start + len(rest),
                )
            found = step.find(self.terminator)
            length = len(rest) + found if found >= 0 else -1
            rest += step
        current_limits(context).check("max_string", length, offset=start)
        stream.seek(start + length + 1)
        spans = current_spans(context)
        if spans is not None:
            spans.mark(start + length, start + length + 1, "terminator", self.terminator)
        data = bytes(rest[:length])
        if self.encoding is None:
            return data
        return decoded(data, self.encoding, start)

    def _build(self, obj, stream, context, path):
        stream.write(terminated(obj, self.terminator, self.encoding))
        return obj


def terminated(value, terminator: int, encoding: str | None = None) -> bytes:
    """The bytes of a ``terminator:`` str or bytes ``value``, its terminator after them; a
    value that holds the terminator byte (it would end early) is refused.

    >>> terminated("Title", 0, "latin-1"), terminated(b"a", 10)
    (b'Title\\x00', b'a\\n')
    >>> terminated("a\\0b", 0, "latin-1")
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: <model>: the value holds its terminator byte 0x00 at byte 1
    """
    data = value_bytes(value, encoding)
    at = data.find(terminator)
    if at >= 0:
        raise EncodeError(f"the value holds its terminator byte {terminator:#04x} at byte {at}")
    return data + bytes((terminator,))


def value_bytes(value, encoding: str | None) -> bytes:
    """The bytes of a bytes ``value``, or of a str ``value`` in ``encoding`` (a text field);
    anything else is an EncodeError.

    >>> value_bytes("é", "utf8"), value_bytes(bytearray(b"a"), None)
    (b'\\xc3\\xa9', b'a')
    """
    if encoding is None:
        if not isinstance(value, (bytes, bytearray)):
            raise EncodeError.expected("bytes", value)
        return bytes(value)
    if not isinstance(value, str):
        raise EncodeError.expected("str", value)
    return value.encode(encoding)


def pad_to(data: bytes, size: int, pad: bytes) -> bytes:
    """``data`` padded with ``pad`` to ``size`` bytes (``pad:`` strings). A value given
    with (some of) its padding, as older JSON forms spell it, writes the same bytes.

    >>> pad_to(b"ab", 4, b"\\0"), pad_to(b"ab\\0\\0", 4, b"\\0")
    (b'ab\\x00\\x00', b'ab\\x00\\x00')
    """
    if len(data) > size:
        raise EncodeError(f"expected at most {size} bytes, got {len(data)}")
    return data + pad * (size - len(data))
