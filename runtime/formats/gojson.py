"""JSON text exactly as Go writes it, and JSON reading with exact integers.

Go's ``encoding/json`` and ``strconv`` differ from Python's ``json`` and ``repr`` in small
ways that change bytes on the wire. Only those Go-specific renderings live here; parsing is
the stdlib ``json`` module with a few guards.

Strings (HTML-safe, as ``json.Marshal`` writes them):

    >>> quote_str('a<b & "c"\\u2028')
    '"a\\\\u003cb \\\\u0026 \\\\"c\\\\"\\\\u2028"'
    >>> quote_utf8(b"ok\\xff")          # invalid UTF-8 becomes the six characters \\ufffd
    '"ok\\\\ufffd"'

Floats (``encoding/json``'s floatEncoder):

    >>> format_float64(1.0), format_float64(1e21), format_float64(1e-7), format_float64(-0.0)
    ('1', '1e+21', '1e-7', '-0')
    >>> format_float32(0.1), format_float32(153.123)
    ('0.1', '153.123')

``strconv.Quote`` without the surrounding quotes, and its inverse:

    >>> go_quote(bytes.fromhex("89504e470d0a1a0a"))
    '\\\\x89PNG\\\\r\\\\n\\\\x1a\\\\n'
    >>> go_unquote('\\\\x89PNG\\\\r\\\\n\\\\x1a\\\\n').hex()
    '89504e470d0a1a0a'

Reading:

    >>> loads(b'{"ts":415508878783938562,"v":1.5}')
    {'ts': 415508878783938562, 'v': 1.5}
"""

from __future__ import annotations

import json
import math
import re
import struct
from collections.abc import Mapping

from runtime.core.errors import DecodeError

# ---------------------------------------------------------------------------- strings

_NEEDS_ESCAPE = re.compile('[\x00-\x1f"\\\\<>&\u2028\u2029\ud800-\udfff]')


def _escape_table(short_bf: bool) -> dict[str, str]:
    """The replacement for every character ``_NEEDS_ESCAPE`` matches, except surrogates."""
    table = {chr(c): f"\\u{c:04x}" for c in range(0x20)}
    table.update({"\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\"})
    # HTML-safe mode (json.Marshal's default) also hides <, > and &, and the two
    # characters that end a line in JavaScript.
    table.update({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})
    table.update({"\u2028": "\\u2028", "\u2029": "\\u2029"})
    if short_bf:
        table.update({"\b": "\\b", "\f": "\\f"})
    return table


_ESCAPES = {True: _escape_table(True), False: _escape_table(False)}


def quote_str(s: str, *, go122: bool = True) -> str:
    """``s`` as a Go ``encoding/json`` string literal, quotes included.

    ``go122`` selects Go >= 1.22, which writes U+0008 and U+000C as ``\\b`` and ``\\f``
    (older Go wrote ``\\u0008`` and ``\\u000c``). Surrogate code points (which no Go
    string can hold as text) are written as ``\\ufffd``, as Go does for invalid UTF-8.

        >>> quote_str("\\b<"), quote_str("\\b<", go122=False)
        ('"\\\\b\\\\u003c"', '"\\\\u0008\\\\u003c"')
    """
    if _NEEDS_ESCAPE.search(s) is None:
        return '"' + s + '"'
    table = _ESCAPES[go122]
    return '"' + _NEEDS_ESCAPE.sub(lambda m: table.get(m.group(), "\\ufffd"), s) + '"'


def quote_utf8(data: bytes, *, go122: bool = True) -> str:
    """Bytes holding text, as ``encoding/json`` writes a Go string of them.

    Every byte that is not part of a valid UTF-8 sequence becomes one ``\\ufffd`` (Go's
    ``utf8.DecodeRune`` consumes one byte per error; Python's "surrogateescape" also maps
    each such byte to one surrogate, so the counts agree).

        >>> quote_utf8(b"\\xe4\\xbdx")
        '"\\\\ufffd\\\\ufffdx"'
    """
    try:
        text = data.decode()
    except UnicodeDecodeError:
        text = data.decode("utf-8", "surrogateescape")
    return quote_str(text, go122=go122)


def utf8_text(data: bytes) -> str:
    """What a Go JSON writer makes of text bytes: invalid bytes become U+FFFD, one each.

    >>> utf8_text(b"a\\xffb")
    'a\\ufffdb'
    """
    try:
        return data.decode()
    except UnicodeDecodeError:
        return data.decode("utf-8", "surrogateescape").translate(_SURROGATES_TO_FFFD)


_SURROGATES_TO_FFFD = {c: "\ufffd" for c in range(0xDC80, 0xDD00)}

# ---------------------------------------------------------------------------- strconv.Quote

_SHORT_QUOTE_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    '"': '\\"',
    "\\": "\\\\",
}


def _quote_char(c: str) -> str:
    """One rune as ``strconv.Quote`` writes it (``c`` may be a surrogate-escaped byte)."""
    o = ord(c)
    if 0xDC80 <= o <= 0xDCFF:  # an invalid UTF-8 byte, from "surrogateescape"
        return f"\\x{o - 0xDC00:02x}"
    short = _SHORT_QUOTE_ESCAPES.get(c)
    if short is not None:
        return short
    # Go's unicode.IsPrint is Python's str.isprintable: categories L, M, N, P, S and ' '.
    if c.isprintable():
        return c
    if o < 0x20 or o == 0x7F:
        return f"\\x{o:02x}"
    return f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"


def go_quote(data: bytes) -> str:
    """``strconv.Quote(string(data))`` without its surrounding double quotes.

    TiCDC writes BINARY/VARBINARY values this way (then JSON-escapes the result).

        >>> go_quote(b'a"\\\\\\x00\\xff\\xc3\\xa9\\xc2\\xa0')
        'a\\\\"\\\\\\\\\\\\x00\\\\xffé\\\\u00a0'
    """
    try:
        text = data.decode()
    except UnicodeDecodeError:
        text = data.decode("utf-8", "surrogateescape")
    if text.isprintable() and '"' not in text and "\\" not in text:
        return text
    return "".join(map(_quote_char, text))


_UNQUOTE = re.compile(
    r'\\(?:x([0-9a-fA-F]{2})|([0-7]{3})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|([abfnrtv\\"]))'
    r'|[\\"\n]'
)
_UNQUOTE_SHORT = {
    "a": b"\a",
    "b": b"\b",
    "f": b"\f",
    "n": b"\n",
    "r": b"\r",
    "t": b"\t",
    "v": b"\v",
    "\\": b"\\",
    '"': b'"',
}


def _utf8(text: str) -> bytes:
    try:
        return text.encode()
    except UnicodeEncodeError:
        raise DecodeError("quoted text holds a lone surrogate") from None


def _unquote_escape(m: re.Match) -> bytes:
    hex2, octal, u4, u8, short = m.groups()
    if hex2 is not None:
        return bytes([int(hex2, 16)])
    if octal is not None:
        if int(octal, 8) > 0xFF:
            raise DecodeError(f"octal escape \\{octal} is above \\377")
        return bytes([int(octal, 8)])
    if short is not None:
        return _UNQUOTE_SHORT[short]
    if u4 is None and u8 is None:
        raise DecodeError(f"{m.group()!r} must be escaped in a Go quoted string")
    rune = int(u4 or u8, 16)
    if rune > 0x10FFFF or 0xD800 <= rune <= 0xDFFF:
        raise DecodeError(f"escape {m.group()} is not a valid Unicode scalar value")
    return chr(rune).encode()


def go_unquote(text: str) -> bytes:
    """The inverse of :func:`go_quote`: ``strconv.Unquote('"' + text + '"')`` as bytes.

    ``\\xNN`` and octal ``\\NNN`` give raw bytes; ``\\u``/``\\U`` give UTF-8. Anything Go
    rejects raises :class:`DecodeError`.

        >>> go_unquote("\\\\u00e9\\\\xff\\\\101")
        b'\\xc3\\xa9\\xffA'
        >>> go_unquote("bad\\\\q")
        Traceback (most recent call last):
        ...
        runtime.core.errors.DecodeError: <message>: '\\\\' must be escaped in a Go quoted string
    """
    if "\\" not in text and '"' not in text and "\n" not in text:
        return _utf8(text)
    out = bytearray()
    pos = 0
    for m in _UNQUOTE.finditer(text):
        out += _utf8(text[pos : m.start()])
        out += _unquote_escape(m)
        pos = m.end()
    out += _utf8(text[pos:])
    return bytes(out)


# ---------------------------------------------------------------------------- floats


def _shortest_digits(r: str) -> tuple[str, int]:
    """Digits and decimal point of a shortest-form float text (``repr`` or ``%e``).

    The value is ``0.DIGITS x 10**point``; digits carry no leading or trailing zeros and
    are empty for zero.

        >>> _shortest_digits("1.25e-07"), _shortest_digits("120.0"), _shortest_digits("0.0")
        (('125', -6), ('12', 3), ('', 0))
    """
    mantissa, _, exp = r.partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = whole + frac
    point = len(whole) + (int(exp) if exp else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    return digits, (point if digits else 0)


def _go_layout(negative: bool, digits: str, point: int, exponent_form: bool) -> str:
    """Go's ``strconv`` %e / %f layout with shortest precision, plus json's ``e-0X`` fix."""
    sign = "-" if negative else ""
    if exponent_form:
        head = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        exp = point - 1
        # strconv writes at least two exponent digits; encoding/json then shortens
        # "e-07" to "e-7" (but leaves "e+21" alone).
        tail = f"e-{-exp}" if exp < 0 else f"e+{exp:02d}"
        return sign + head + tail
    if point <= 0:
        return sign + ("0." + "0" * -point + digits if digits else "0")
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return sign + digits[:point] + "." + digits[point:]


def _check_finite(x: float) -> None:
    if not math.isfinite(x):
        raise ValueError(f"Go's encoding/json cannot write {x!r}")


def format_float64(x: float) -> str:
    """A float64 as Go's ``encoding/json`` writes it.

    Shortest round-trip digits (Python's ``repr`` digits); plain decimal unless
    ``|x| < 1e-6`` or ``|x| >= 1e21``. NaN and infinities raise ``ValueError`` (Go fails
    with UnsupportedValueError).

        >>> format_float64(1e20), format_float64(1.5e-6), format_float64(9.9e-7)
        ('100000000000000000000', '0.0000015', '9.9e-7')
    """
    _check_finite(x)
    a = abs(x)
    digits, point = _shortest_digits(repr(a))
    exponent_form = a != 0 and (a < 1e-6 or a >= 1e21)
    return _go_layout(math.copysign(1.0, x) < 0, digits, point, exponent_form)


_F32 = struct.Struct("<f")
_F32_1E_6 = _F32.unpack(_F32.pack(1e-6))[0]
_F32_1E21 = _F32.unpack(_F32.pack(1e21))[0]


def to_float32(x: float) -> float:
    """Round to the nearest float32 (as Go's ``float32(x)``); out of range raises OverflowError.

    >>> to_float32(0.1)
    0.10000000149011612
    """
    return _F32.unpack(_F32.pack(x))[0]


def _float32_candidates(v: float, precision: int):
    """The nearest ``precision``-digit decimal to ``v``, then its neighbour on v's far side."""
    text = f"{v:.{precision - 1}e}"
    yield text
    mantissa, _, exp = text.partition("e")
    unit = int(mantissa.replace(".", ""))
    step = 1 if float(text) < v else -1
    yield f"{unit + step}e{int(exp) - (precision - 1)}"


def _reads_back_as(text: str, v: float) -> bool:
    try:
        return to_float32(float(text)) == v
    except OverflowError:  # a candidate just above the largest float32
        return False


def _shortest32(v: float) -> str:
    """Shortest decimal that reads back (via float64, as Go readers do) as the float32 ``v``.

    Of the shortest candidates, the one nearest ``v`` wins, as in Go's Ryu. The far
    neighbour matters only at powers of two, where the float32 rounding interval is
    lopsided and the nearest decimal may fall outside it.
    """
    for precision in range(1, 9):
        for text in _float32_candidates(v, precision):
            if _reads_back_as(text, v):
                return text
    return f"{v:.8e}"  # 9 significant digits always identify a float32


def format_float32(x: float) -> str:
    """``x`` rounded to float32, written as ``encoding/json`` writes a Go float32.

    The digits are the shortest that identify the float32 (not the float64):

        >>> format_float32(153.123), format_float32(1e-7), format_float32(16777216.0)
        ('153.123', '1e-7', '16777216')
    """
    _check_finite(x)
    v = to_float32(x)
    a = abs(v)
    digits, point = _shortest_digits(_shortest32(a)) if a else ("", 0)
    exponent_form = a != 0 and (a < _F32_1E_6 or a >= _F32_1E21)
    return _go_layout(math.copysign(1.0, v) < 0, digits, point, exponent_form)


# ---------------------------------------------------------------------------- reading


def _reject_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _int_or_negative_zero(text: str):
    # Go writes float -0.0 as "-0"; Python's json would read it as the int 0.
    return -0.0 if text == "-0" else int(text)


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
_DECODER_NEG_ZERO = json.JSONDecoder(
    parse_constant=_reject_constant, parse_int=_int_or_negative_zero
)
# A -0 number token ends where a value ends. Strings holding "-0" before another
# character (dates, "value-0-1") do not match, so they keep the C integer parser, which a
# parse_int hook (one Python call per integer) would turn off; a match inside a string
# only costs that speed. A -0 followed by anything else makes the text invalid JSON, and
# both decoders stop there with the same error.
_NEGATIVE_ZERO = re.compile(rb"-0(?:[,}\]\s]|\Z)")


REPLACED = "\udcff"
"""What :func:`loads` (``mark_replaced=True``) reads an escaped ``\\ufffd`` as: Go writes
that escape for one byte of invalid UTF-8 (the byte itself is lost), a literal U+FFFD as
its three UTF-8 bytes. U+DCFF is Python's "surrogateescape" form of the byte 0xFF, so
``text.encode("utf-8", "surrogateescape")`` gives bytes that :func:`quote_utf8` writes back
as the escape."""

_ESCAPE = re.compile(rb"\\(?:ufffd|u000[8c]|[bf]|.)", re.DOTALL)
"""One backslash escape of JSON text, whole (so ``\\\\b`` is ``\\\\`` then ``b``)."""


def _mark_escaped_replacements(data: bytes) -> bytes:
    # Same length, so error offsets stay those of the original text.
    return _ESCAPE.sub(lambda m: b"\\udcff" if m.group() == b"\\ufffd" else m.group(), data)


_MAY_HOLD_CONTROL_ESCAPE = re.compile(rb"\\(?:u000[8c]|[bf])")
"""One pass that finds every control escape :func:`control_escapes` yields, and a few
more (an escaped backslash before b or f)."""


def may_hold_control_escape(data: bytes) -> bool:
    """Whether :func:`control_escapes` may find any (one pass; False means none)."""
    return _MAY_HOLD_CONTROL_ESCAPE.search(data) is not None


def control_escapes(data: bytes):
    """``(offset, short)`` for every escape of U+0008 or U+000C in JSON text: ``short``
    for Go >= 1.22's ``\\b``/``\\f``, False for older Go's ``\\u0008``/``\\u000c``.

        >>> list(control_escapes(rb'"\\b\\\\b\\u000c"'))
        [(1, True), (6, False)]
    """
    if not may_hold_control_escape(data):
        return
    for m in _ESCAPE.finditer(data):
        escape = m.group()
        if escape in (b"\\b", b"\\f"):
            yield m.start(), True
        elif escape in (b"\\u0008", b"\\u000c"):
            yield m.start(), False


def loads(data: bytes, *, mark_replaced: bool = False):
    """Parse one JSON document with exact integers, the way Go's decoder accepts it.

    ``mark_replaced`` reads an escaped ``\\ufffd`` as :data:`REPLACED` instead of U+FFFD,
    so that a caller can tell it from a literal U+FFFD.

    Integers stay Python ints (never a float on the way), ``-0`` reads as the float -0.0,
    ``NaN``/``Infinity`` are rejected, and invalid UTF-8 inside the text reads as U+FFFD
    (as Go's decoder does). Every failure is a :class:`DecodeError` whose offset is the
    byte where parsing stopped:

        >>> loads(b'[1, 2,]')
        Traceback (most recent call last):
        ...
        runtime.core.errors.DecodeError: <message> at offset 6: malformed JSON: Expecting value
        >>> loads(b"-0")
        -0.0
    """
    if mark_replaced and b"\\ufffd" in data:
        data = _mark_escaped_replacements(data)
    try:
        text = data.decode()
        escaped = None
    except UnicodeDecodeError:
        escaped = data.decode("utf-8", "surrogateescape")
        text = escaped.translate(_SURROGATES_TO_FFFD)
    decoder = _DECODER_NEG_ZERO if _NEGATIVE_ZERO.search(data) else _DECODER
    # decode() is scan_once(text, 0) plus whitespace around the document: call the C
    # scanner directly, and let decode() handle whitespace and say what is wrong.
    try:
        doc, end = decoder.scan_once(text, 0)
    except (ValueError, StopIteration, RecursionError):
        end = -1
    if end != len(text):
        try:
            doc = decoder.decode(text)
        except json.JSONDecodeError as err:
            where = (escaped or text)[: err.pos].encode("utf-8", "surrogateescape")
            raise DecodeError(f"malformed JSON: {err.msg}", offset=len(where)) from None
        except (ValueError, RecursionError) as err:
            # ints longer than Python's digit limit, NaN/Infinity, nesting deeper than
            # the stack
            raise DecodeError(f"malformed JSON: {err}", offset=0) from None
    # A lone surrogate escape (\\ud800) reads as U+FFFD in Go; only look when one may exist.
    # (A \\udcff escape, which Go never writes, then reads as REPLACED too.)
    if b"\\ud" in data or b"\\uD" in data:
        return _replace_lone_surrogates(
            doc, _SURROGATE_NOT_REPLACED if mark_replaced else _LONE_SURROGATE
        )
    return doc


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_NOT_REPLACED = re.compile("[\ud800-\udcfe\udd00-\udfff]")


def _replace_lone_surrogates(doc, pattern: re.Pattern):
    """``doc`` with every lone surrogate ``pattern`` matches in its strings (keys too)
    replaced by U+FFFD."""
    if type(doc) is str:
        return pattern.sub("\ufffd", doc)
    if type(doc) is list:
        return [_replace_lone_surrogates(v, pattern) for v in doc]
    if type(doc) is dict:
        return {
            _replace_lone_surrogates(k, pattern): _replace_lone_surrogates(v, pattern)
            for k, v in doc.items()
        }
    return doc


def unmark_replaced(text: str) -> str:
    """``text`` with :data:`REPLACED` back to U+FFFD (for values that hold text, not bytes).

    >>> unmark_replaced("a" + REPLACED) == "a\ufffd"
    True
    """
    return text.replace(REPLACED, "\ufffd") if REPLACED in text else text


# ---------------------------------------------------------------------------- documents


class JsonKey:
    """One key of a JSON document as a spec's ``json:`` section declares it.

    ``type``: ``u8``/``u64``/``s64`` (integers), ``bool``, ``string``, ``bytes`` (a Go
    ``[]byte``: standard base64 with padding), ``map`` (name -> the document ``of``),
    ``any`` (a column value, rendered per the ``rendering`` table of the type code, whose
    ``kinds`` say each kind's JSON value types). ``omit``: ``never`` (always written, required when read), ``empty``
    (Go ``omitempty``: left out when zero/empty/false), ``absent`` (a Go pointer: left out
    only when None). ``field`` is the model attribute it carries; ``bit`` makes a bool
    that mirrors one flag of ``field``; ``layouts`` lists the layouts that write it;
    ``when`` the row ops whose value has it; ``events`` the names of the event types (of
    the event-type key's enum) that carry it; ``enum`` documents the codes and, unless
    ``open``, is the set of values accepted.

        >>> JsonKey("scm", "string", field="schema", omit="empty").prefix
        '"scm":'
    """

    __slots__ = ("bit", "doc", "enum", "events", "field", "kinds", "layouts", "name", "of",
                 "omit", "open", "prefix", "rendering", "type", "when")  # fmt: skip

    TYPES = ("u8", "u64", "s64", "bool", "string", "bytes", "map", "any")
    OMIT = ("never", "empty", "absent")

    def __init__(self, name, type, *, field=None, omit="never", enum=None, open=False, bit=0,
                 layouts=(), when=(), of=None, rendering=None, kinds=None, events=(),
                 doc=""):  # fmt: skip
        if type not in self.TYPES or omit not in self.OMIT:
            raise ValueError(f"bad JSON key {name!r}: type {type!r}, omit {omit!r}")
        self.name, self.type, self.field, self.omit = name, type, field or name, omit
        self.enum, self.open, self.bit, self.layouts = enum, open, int(bit), tuple(layouts)
        self.when, self.of, self.rendering, self.doc = tuple(when), of, rendering, doc
        self.kinds, self.events = kinds, tuple(events)
        self.prefix = quote_str(name) + ":"

    def __repr__(self) -> str:
        return f"JsonKey({self.name!r}, {self.type!r}, field={self.field!r}, omit={self.omit!r})"


class JsonDocument:
    """A JSON object with a fixed key order (the order a writer uses; readers take any)."""

    __slots__ = ("by_name", "doc", "keys", "name")

    def __init__(self, name: str, keys, doc: str = ""):
        self.name, self.keys, self.doc = name, tuple(keys), doc
        self.by_name = {k.name: k for k in self.keys}

    def key(self, role: str) -> JsonKey | None:
        """The first key of type ``role`` (``any``, ``map``), or with ``bit`` set
        (``bit``) or with ``layouts`` set (``layouts``)."""
        for k in self.keys:
            if k.type == role or (role == "bit" and k.bit) or (role == "layouts" and k.layouts):
                return k
        return None

    def undeclared(self, obj: dict, documents: Mapping[str, JsonDocument]) -> bool:
        """Whether the decoded object ``obj`` of this document has a member it does not
        declare (Go's ``encoding/json`` reads past one), or a ``map`` key's object of
        ``documents`` does (a row value's columns).

            >>> column = JsonDocument("column", [JsonKey("t", "u8"), JsonKey("v", "any")])
            >>> row = JsonDocument("row", [JsonKey("u", "map", of="column")])
            >>> docs = {"column": column}
            >>> row.undeclared({"u": {"id": {"t": 3, "v": 1}}}, docs)
            False
            >>> row.undeclared({"u": {"id": {"t": 3, "v": 1, "x": 0}}}, docs)
            True
        """
        for name, value in obj.items():
            key = self.by_name.get(name)
            if key is None:
                return True
            if key.type == "map" and type(value) is dict:
                of = documents[key.of]
                if any(type(v) is dict and of.undeclared(v, documents) for v in value.values()):
                    return True
        return False

    def __repr__(self) -> str:
        return f"JsonDocument({self.name!r}, {[k.name for k in self.keys]})"
