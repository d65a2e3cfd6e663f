"""The entry points every generated module delegates to: parse, build and the JSON form.

    >>> from construct import Int8ul
    >>> from runtime.core.record import Record
    >>> parse(Record("x" / Int8ul), b"\\x05\\x06")
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: <message> at offset 1: 1 trailing byte(s) after the message

The JSON form (``to_jsonable``/``from_jsonable``) is stable and lossless: bytes are
``{"$hex": "..."}``, integers beyond 2**53 are decimal strings, and floats that JSON
cannot hold exactly (NaN with its payload, infinities) are ``{"$f64": "<16 hex digits>"}``.
Fields the spec gives a readable form (``open: true`` enums, ``logical:`` uuids and times)
read through a *view* (:class:`OpenEnum`, :class:`UuidText`, :class:`TimeBeside`) that
renders the value and takes back both that rendering and the plain one.
"""

from __future__ import annotations

import datetime
import enum
import io
import json
import math
import struct
import uuid

from construct import ConstructError, Container

from runtime.core.construct_errors import construct_message
from runtime.core.errors import DecodeError, EncodeError, a_or_an, did_you_mean
from runtime.core.fast import QUICK_FAILURES
from runtime.core.flags import flag_names, flags_from_names
from runtime.core.json_paths import kind, located
from runtime.core.limits import DEFAULT as DEFAULT_LIMITS
from runtime.core.limits import Limits, stack_for
from runtime.core.spans import SpanRecorder, Trace, run
from runtime.core.stream import remaining

JSON_SAFE_INT = 2**53


def parse(construct, data, limits: dict | None = None, spans=None, defaults: Limits | None = None):
    """Parse all of ``data`` with ``construct``; trailing bytes are an error.

    ``limits`` override ``defaults`` (a generated module's ``DEFAULT_LIMITS``; else the
    runtime's) for this call.

    ``spans`` is an optional :class:`runtime.core.spans.SpanRecorder` that the constructs
    report the byte span of every field into (``wirespec inspect``)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"parse() takes bytes, not {type(data).__name__}")
    limits_obj = Limits.from_kwargs(limits or {}, defaults)
    limits_obj.check("max_message_bytes", len(data), offset=0)
    stream = io.BytesIO(data)
    try:
        with stack_for(limits_obj.max_depth):
            model = construct.parse_stream(stream, limits=limits_obj, spans=spans)
    except ConstructError as err:
        raise DecodeError(construct_message(err), offset=stream.tell()) from None
    except RecursionError:
        raise DecodeError("nesting too deep for this Python stack", offset=stream.tell()) from None
    left = remaining(stream)
    if left:
        raise DecodeError(f"{left} trailing byte(s) after the message", offset=stream.tell())
    return model


def trace(construct, data, limits: dict | None = None) -> Trace:
    """Parse ``data`` with ``construct`` (as :func:`parse` does) and record the byte span of
    every field (``wirespec inspect``): a :class:`runtime.core.spans.Trace`."""
    recorder = SpanRecorder()
    return run(lambda: parse(construct, data, limits, spans=recorder), data, recorder)


def readable_bytes(data) -> bytes:
    """``data`` (not ``bytes``) as the ``bytes`` the fast path reads: a copy of a
    bytearray's, a memoryview's (a view's offsets) or a ``bytes`` subclass's bytes; a
    TypeError for anything else.

    >>> readable_bytes(memoryview(b"xabc")[1:])
    b'abc'
    >>> readable_bytes("abc")
    Traceback (most recent call last):
    TypeError: parse() takes bytes, not str
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"parse() takes bytes, not {type(data).__name__}")
    return bytes(data)


def parse_fast(
    reader, data, limits: dict | None = None, defaults: Limits | None = None, quick=None
):
    """Parse all of ``data`` with a generated fast-path ``reader`` (same errors and
    limits as :func:`parse`).

    ``quick``: the record's quick tier, ``(reader, the nesting depth it reads)``, tried
    first (within ``max_depth`` only: it makes no depth check); whatever it does not take
    completely goes to ``reader``, which gives the model or the exact error."""
    if type(data) is not bytes:  # readable_bytes inline: a call is 1.6 % of a small message
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"parse() takes bytes, not {type(data).__name__}")
        data = bytes(data)
    limits_obj = Limits.from_kwargs(limits, defaults) if limits else defaults or DEFAULT_LIMITS
    n = len(data)
    if n > limits_obj.max_message_bytes:
        limits_obj.check("max_message_bytes", n, offset=0)
    if quick is not None and quick[1] <= limits_obj.max_depth:
        try:
            model, pos = quick[0](data, 0, n, limits_obj)
        except QUICK_FAILURES:
            pass
        else:
            if pos == n:
                return model
    try:
        model, pos = reader(data, 0, n, limits_obj, 1)
    except RecursionError:
        raise DecodeError("nesting too deep for this Python stack", offset=None) from None
    if pos != n:
        raise DecodeError(f"{n - pos} trailing byte(s) after the message", offset=pos)
    return model


def build(construct, model, defaults: Limits | None = None) -> bytes:
    """Build ``model``; any problem with it is an :class:`EncodeError` with the path.
    ``defaults``: the generated module's limits (a model as deep as their ``max_depth``
    lets a parse read is built)."""
    try:
        with stack_for((defaults or DEFAULT_LIMITS).max_depth):
            return construct.build(model)
    except ConstructError as err:
        raise EncodeError(construct_message(err)) from None
    except RecursionError:
        raise EncodeError("nesting too deep for this Python stack") from None


def to_jsonable(value, views: dict | None = None):
    """A model (construct Containers, lists, enums, bytes, ...) as plain JSON values.

    ``views``: model class -> {field name -> view}, the generated module's ``JSON_VIEWS``;
    a view's ``put(out, name, value)`` writes the field's readable form into ``out``."""
    if isinstance(value, dict):
        # A Container's "_" keys are construct's bookkeeping; any other dict is a map
        # (MsbMap): every key kept, integer keys as their decimal text.
        internal = isinstance(value, Container)
        return {
            k if isinstance(k, str) else str(k): to_jsonable(v, views)
            for k, v in value.items()
            if not (internal and k.startswith("_"))
        }
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v, views) for v in value]
    if isinstance(value, enum.Flag):  # a strict flags enum's: its flags' names, [] for none
        return flag_names(value)
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value) if abs(value) > JSON_SAFE_INT else value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return {"$f64": struct.pack(">d", value).hex()}
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"$hex": bytes(value).hex()}
    if isinstance(value, uuid.UUID):
        return str(value)
    if hasattr(value, "__dataclass_fields__"):
        fields = views.get(value.__class__) if views else None
        out: dict = {}
        for name in value.__dataclass_fields__:
            view = fields.get(name) if fields else None
            if view is None:
                out[name] = to_jsonable(getattr(value, name), views)
            elif isinstance(view, CaseName):
                out[name] = view.to_json(getattr(value, name), views)
            else:
                view.put(out, name, getattr(value, name))
        return out
    raise TypeError(f"cannot represent {type(value).__name__} in JSON")


# -- views: fields the spec gives a readable form --------------------------------------


class OpenEnum:
    """An integer field shown by its enum member's name (``enum:`` with ``open: true``):
    any value is accepted and kept as a number in the model, so a value the enum does not
    list stays a number in the JSON form and round-trips. A flags enum shows a list of
    member names, plus the number of any bits no member names.

    >>> class Kind(enum.IntEnum):
    ...     A = 1
    >>> class Bits(enum.IntFlag):
    ...     X = 1
    ...     Y = 4
    >>> OpenEnum(Kind).to_json(1), OpenEnum(Kind).to_json(7), OpenEnum(Bits).to_json(0x15)
    ('A', 7, ['X', 'Y', 16])
    >>> OpenEnum(Kind).from_json("A"), OpenEnum(Bits).from_json(["Y", 16]), OpenEnum(Bits).from_json(5)
    (1, 20, 5)
    """

    def __init__(self, enum_class):
        self.enum_class = enum_class
        self.flags = issubclass(enum_class, enum.Flag)
        self.names = {int(m): m.name for m in enum_class}
        self.values = {m.name: int(m) for m in enum_class}

    def to_json(self, value):
        if value is None or isinstance(value, bool) or not isinstance(value, int):
            return to_jsonable(value)
        if not self.flags:
            return self.names.get(int(value), to_jsonable(int(value)))
        out, rest = [], int(value)
        for bit, name in self.names.items():
            if bit and value & bit == bit:
                out.append(name)
                rest &= ~bit
        return out + [to_jsonable(rest)] if rest else out

    def put(self, out: dict, name: str, value) -> None:
        out[name] = (
            [self.to_json(v) for v in value] if isinstance(value, list) else self.to_json(value)
        )

    def from_json(self, value, path: str = "") -> int:
        """The number of a member name, a number, or (flags) a list of both."""
        if self.flags and isinstance(value, list):
            bits = 0
            for item in value:
                bits |= self.from_json(item, path)
            return bits
        if isinstance(value, str) and value in self.values:
            return self.values[value]
        try:
            return int_from_json(value, path)
        except EncodeError:
            kind = "flag" if self.flags else "member"
            raise EncodeError(
                f"{value!r} is not {a_or_an(self.enum_class.__name__)} {kind} or a number",
                path=path,
            ) from None


class HexNumber:
    """An integer shown in the JSON form as hex text (``display: hex``: a magic number reads
    as its spec and its document write it), zero-filled to its type's ``size`` bytes; the
    model keeps the number, and the way back takes the text or a number.

    >>> view = HexNumber(4)
    >>> view.to_json(0xA1B2C3D4), view.to_json(5), HexNumber(2).to_json(-2)
    ('0xa1b2c3d4', '0x00000005', '-0x0002')
    >>> view.from_json("0xA1B2C3D4") == 0xA1B2C3D4, view.from_json(7), view.from_json("-0x2")
    (True, 7, -2)
    """

    def __init__(self, size: int):
        self.digits = 2 * size

    def to_json(self, value):
        if value is None or isinstance(value, bool) or not isinstance(value, int):
            return to_jsonable(value)
        sign = "-" if value < 0 else ""
        return f"{sign}0x{abs(int(value)):0{self.digits}x}"

    def put(self, out: dict, name: str, value) -> None:
        out[name] = (
            [self.to_json(v) for v in value] if isinstance(value, list) else self.to_json(value)
        )

    def from_json(self, value, path: str = ""):
        """The number of hex text (``0x`` first, ``-`` before it when negative), of a
        number, or of each element of a list."""
        if isinstance(value, list):
            return [self.from_json(v, path) for v in value]
        if isinstance(value, str) and value.lstrip("-")[:2].lower() == "0x":
            try:
                return int(value, 16)
            except ValueError:
                raise EncodeError(f"{value!r} is not hex text (0x...)", path=path) from None
        return int_from_json(value, path)


class FourCC(OpenEnum):
    """A four-character code (``logical: fourcc`` on a ``u32be``: a PNG chunk type, a RIFF
    chunk id) kept as its number: a code its open enum lists by the member's name, another
    by its four letters where they are printable ASCII and no member's name (``"prVt"``, a
    private PNG chunk), else the number; every one round-trips. ``text`` is its Spark value.

    >>> class Chunk(enum.IntEnum):
    ...     IHDR = 0x49484452
    >>> view = FourCC(Chunk)
    >>> view.to_json(0x49484452), view.to_json(0x70725674), view.to_json(1), view.text(1)
    ('IHDR', 'prVt', 1, '1')
    >>> view.from_json("IHDR") == 0x49484452, view.from_json("prVt") == 0x70725674
    (True, True)
    >>> FourCC().to_json(0x52494646), FourCC().from_json("RIFF") == 0x52494646
    ('RIFF', True)
    """

    def __init__(self, enum_class=None):
        if enum_class is not None:
            super().__init__(enum_class)
        else:
            self.enum_class, self.flags, self.names, self.values = None, False, {}, {}

    def to_json(self, value):
        if value is None or isinstance(value, bool) or not isinstance(value, int):
            return to_jsonable(value)
        name = self.names.get(int(value))
        if name is None and 0 <= value < 1 << 32:
            letters = int(value).to_bytes(4, "big")
            text = letters.decode("ascii") if all(0x20 <= b < 0x7F for b in letters) else None
            name = None if text in self.values else text  # a member's name reads as the member
        return to_jsonable(int(value)) if name is None else name

    def text(self, value) -> str | None:
        """The Spark value: the JSON form's, as text."""
        return None if value is None else str(self.to_json(value))

    def from_json(self, value, path: str = "") -> int:
        """The number of a member name, of four printable ASCII letters, or a number."""
        letters = isinstance(value, str) and len(value) == 4 and value.isascii()
        if letters and value.isprintable() and value not in self.values:
            return int.from_bytes(value.encode("ascii"), "big")
        if self.enum_class is None:
            try:
                return int_from_json(value, path)
            except EncodeError:
                raise EncodeError(f"{value!r} is not four letters or a number", path=path) from None
        return super().from_json(value, path)


class CaseName:
    """A choice field (``choice: [a, b]``): its value is one of several records, shown as
    ``{"<record>": {...}}`` so the JSON form says which.

    >>> import dataclasses
    >>> @dataclasses.dataclass
    ... class Nil:
    ...     code: int = 0xC0
    >>> CaseName({Nil: "nil"}).to_json(Nil())
    {'nil': {'code': 192}}
    >>> CaseName({Nil: "nil"}).from_json({"nil": {}}, {"nil": lambda d: Nil()})
    Nil(code=192)
    """

    def __init__(self, names: dict):
        self.names = names

    def to_json(self, value, views=None):
        if value is None or value.__class__ not in self.names:
            return to_jsonable(value, views)
        return {self.names[value.__class__]: to_jsonable(value, views)}

    def from_json(self, value, readers: dict, path: str = ""):
        """The model of ``{"<record>": {...}}``; ``readers``: record -> its ``from_dict``."""
        if not isinstance(value, dict) or len(value) != 1 or next(iter(value)) not in readers:
            raise EncodeError(
                f"expected one of {sorted(readers)} as the only key, got {value!r}"[:200],
                path=path,
            )
        ((case, body),) = value.items()
        return readers[case](body)


class UuidText:
    """A UUID's 16 bytes (``logical: uuid``: a list of 16 byte values, or 16 bytes) shown
    as its canonical text; a list of 16 integers or ``{"$hex"}`` is taken back too.

    >>> UuidText().to_json(list(range(16)))
    '00010203-0405-0607-0809-0a0b0c0d0e0f'
    >>> UuidText().from_json('00010203-0405-0607-0809-0a0b0c0d0e0f')[:4]
    [0, 1, 2, 3]
    """

    def __init__(self, as_bytes: bool = False):
        self.as_bytes = as_bytes

    def to_json(self, value):
        if value is None:
            return None
        byte_values = not isinstance(value, list) or all(
            isinstance(v, int) and 0 <= v < 256 for v in value
        )
        if not byte_values or len(value) != 16:
            return to_jsonable(value)  # not a UUID's bytes: shown as they are
        return str(uuid.UUID(bytes=bytes(value)))

    def put(self, out: dict, name: str, value) -> None:
        out[name] = self.to_json(value)

    def from_json(self, value, path: str = ""):
        if isinstance(value, str):
            try:
                raw = uuid.UUID(value).bytes
            except ValueError:
                raise EncodeError(f"{value!r} is not a UUID", path=path) from None
        elif isinstance(value, list):
            raw = [int_from_json(v, path) for v in value]
            return bytes(raw) if self.as_bytes else raw
        else:
            raw = bytes_from_json(value, path)
        return raw if self.as_bytes else list(raw)


_EPOCH = datetime.datetime(1970, 1, 1)  # naive: the texts say UTC with their "Z"
_TIMESPEC = {0: "seconds", 3: "milliseconds", 6: "microseconds"}


def _iso(micros: int, digits: int) -> str | None:
    """UTC text of ``micros`` since the epoch with ``digits`` (0, 3, 6) fraction digits;
    None when the time is outside what ``datetime`` holds (years 1..9999)."""
    try:
        moment = _EPOCH + datetime.timedelta(microseconds=micros)
    except OverflowError:
        return None
    return moment.isoformat(timespec=_TIMESPEC[digits]) + "Z"


def tso_time(ts: int) -> str | None:
    """The physical time of a TiDB TSO (``physical ms << 18 | logical``), UTC.

    >>> tso_time(454000000000000001)
    '2024-11-17T19:42:38.593Z'
    """
    return _iso((ts >> 18) * 1000, 3)


def nanos_time(nanos: int) -> str | None:
    """UTC text of ``nanos`` since the epoch with nine fraction digits (``datetime`` holds
    microseconds, so the last three digits are put on after it).

    >>> nanos_time(1764342000123456789), nanos_time(-1)
    ('2025-11-28T15:00:00.123456789Z', '1969-12-31T23:59:59.999999999Z')
    """
    micros, rest = divmod(nanos, 1000)
    text = _iso(micros, 6)
    return None if text is None else f"{text[:-1]}{rest:03d}Z"


POSTGRES_EPOCH_MICROS = 946_684_800_000_000
"""PostgreSQL's epoch, 2000-01-01T00:00:00Z, in microseconds after the Unix epoch."""


def postgres_time(micros: int) -> str | None:
    """A PostgreSQL ``TimestampTz`` (microseconds since 2000-01-01 UTC, as pgoutput's
    commit timestamps), UTC.

    >>> postgres_time(785_592_000_000_000)
    '2024-11-22T12:00:00.000000Z'
    """
    return _iso(micros + POSTGRES_EPOCH_MICROS, 6)


LOGICAL_TIMES = {
    "unix_seconds": lambda v: _iso(v * 1_000_000, 0),
    "unix_millis": lambda v: _iso(v * 1000, 3),
    "unix_micros": lambda v: _iso(v, 6),
    "unix_nanos": nanos_time,
    "tidb_tso": tso_time,
    "postgres_micros": postgres_time,
}
"""``logical:`` time kind -> the UTC text of an integer (None when out of range)."""


class TimeBeside:
    """An integer time (``logical: unix_seconds | unix_millis | unix_micros | unix_nanos |
    tidb_tso | postgres_micros``):
    the number stays as it is, and ``<name>_time`` beside it gives the UTC time. On the
    way back the number is what counts; a ``<name>_time`` that disagrees with it is an
    error (so an edited time is not silently ignored).

    >>> out = {}
    >>> TimeBeside("unix_seconds").put(out, "timestamp", 1739823289)
    >>> out
    {'timestamp': 1739823289, 'timestamp_time': '2025-02-17T20:14:49Z'}
    """

    SUFFIX = "_time"
    SHOWS = "the time"

    def __init__(self, logical: str):
        self.logical = logical
        self.text = LOGICAL_TIMES[logical]

    def time_of(self, value):
        if isinstance(value, list):
            return [self.time_of(v) for v in value]
        if value is None or isinstance(value, bool) or not isinstance(value, int):
            return None
        return self.text(value)

    def put(self, out: dict, name: str, value) -> None:
        out[name] = to_jsonable(value)
        if value is not None:  # an absent value has no time to show
            out[name + self.SUFFIX] = self.time_of(value)

    def checked(self, d: dict, name: str, value):
        """``value`` (field ``name`` of ``d`` as read back), after refusing a
        ``<name>_time`` in ``d`` that is not its time (an absent value has none to check)."""
        shown = d.get(name + self.SUFFIX)
        if shown is not None and value is not None and shown != self.time_of(value):
            raise EncodeError(
                f"{shown!r} is not {self.SHOWS} of {name} ({self.time_of(value)!r}): "
                f"edit {name}, the {name}{self.SUFFIX} beside it only shows it",
                path=name + self.SUFFIX,
            )
        return value


def lsn_text(lsn) -> str | None:
    """A PostgreSQL LSN (a WAL position, ``pg_lsn``) as PostgreSQL writes it: its high and
    low 32 bits in upper-case hex, ``X/Y``; None for what is no 64-bit unsigned number.

    >>> lsn_text(0x16B3748), lsn_text(0x1_0000_0028), lsn_text(None)
    ('0/16B3748', '1/28', None)
    """
    if not isinstance(lsn, int) or isinstance(lsn, bool) or not 0 <= lsn < 1 << 64:
        return None
    return f"{lsn >> 32:X}/{lsn & 0xFFFFFFFF:X}"


class LsnBeside(TimeBeside):
    """A PostgreSQL LSN (``logical: pg_lsn`` on a ``u64``): the number stays as it is, and
    ``<name>_text`` beside it gives it as PostgreSQL writes it (``X/Y``, as ``pg_lsn``
    prints). On the way back the number counts, and a ``<name>_text`` that disagrees with
    it is an error, as a time's.

    >>> out = {}
    >>> LsnBeside().put(out, "commit_lsn", 23803720)
    >>> out
    {'commit_lsn': 23803720, 'commit_lsn_text': '0/16B3748'}
    """

    SUFFIX = "_text"
    SHOWS = "the LSN text"

    def __init__(self):  # no time kind to look up: its own text
        self.logical = "pg_lsn"
        self.text = lsn_text


def json_text(model, views: dict | None = None) -> str:
    """A model's JSON form as compact text: a Spark column where a recursive record
    recurses (Spark types cannot)."""
    return json.dumps(to_jsonable(model, views), separators=(",", ":"), ensure_ascii=False)


def json_shape(value) -> str:
    """The kind of a switch case's JSON value, which tells the case where its selector is
    an enclosing record's field (not in the JSON form being read; generator/spec/enclosing.py).

    >>> json_shape({"$hex": "00"}), json_shape({"a": 1}), json_shape(3), json_shape(None)
    ('bytes', 'record', 'int', 'empty')
    """
    if value is None:
        return "empty"
    if isinstance(value, dict):
        return "bytes" if "$hex" in value else "float" if "$f64" in value else "record"
    if isinstance(value, bool):
        return "bool"
    return {int: "int", float: "float", str: "str"}.get(type(value), "")


def bytes_from_json(value, path: str = "") -> bytes:
    if isinstance(value, dict) and set(value) == {"$hex"}:
        try:
            return bytes.fromhex(value["$hex"])
        except ValueError:
            raise EncodeError(f"bad hex {value['$hex']!r}", path=path) from None
    raise EncodeError(f'expected {{"$hex": ...}}, got {value!r}', path=path)


def text_or_hex(value: bytes, binary) -> str | dict:
    """A string or blob value's JSON form (a ``models:`` field's ``json: {text_unless:}``):
    its text when ``binary`` is false and the bytes are UTF-8 (so the text encodes back to
    exactly them), else ``{"$hex"}``; :func:`text_or_hex_from_json` reads both back.

    >>> text_or_hex(b"abc", 0), text_or_hex(b"abc", 1), text_or_hex(b"\\xff", 0)
    ('abc', {'$hex': '616263'}, {'$hex': 'ff'})
    """
    if not binary:
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            pass
    return {"$hex": value.hex()}


def text_or_hex_from_json(value, path: str = "") -> bytes:
    """The bytes of a :func:`text_or_hex` form: a string's UTF-8, or ``{"$hex"}``'s bytes.

    >>> text_or_hex_from_json("abc"), text_or_hex_from_json({"$hex": "ff"})
    (b'abc', b'\\xff')
    """
    if isinstance(value, str):
        return value.encode("utf-8")
    return bytes_from_json(value, path)


def int_from_json(value, path: str = "") -> int:
    if isinstance(value, bool):
        raise EncodeError(f"expected an integer, got {value!r}", path=path)
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value, 10)
        except ValueError:
            pass
    raise EncodeError(f"expected an integer, got {value!r}", path=path)


def key_from_json(d: dict, key: str):
    """``d[key]``, the value of a key a JSON form must have (the generated JSON forms of
    events: :mod:`generator.emit.event_json`).

    >>> key_from_json({"query": "DROP TABLE t"}, "query")
    'DROP TABLE t'
    >>> key_from_json({}, "query")
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: query: missing key 'query'
    """
    try:
        return d[key]
    except KeyError:
        raise EncodeError(f"missing key {key!r}", path=key) from None


def str_from_json(value, path: str = "", nullable: bool = False):
    """``value`` when it is a string (or, ``nullable``, None), else the EncodeError."""
    if isinstance(value, str) or (nullable and value is None):
        return value
    what = "a string or null" if nullable else "a string"
    raise EncodeError(f"expected {what}, got {value!r}", path=path)


def list_from_json(value, absent_is_empty: bool = True) -> list | tuple:
    """The items of a JSON list (None, an absent list, has none unless not
    ``absent_is_empty``); anything else is refused, since a string or an object would
    iterate as characters or keys, a list of something the user never wrote.

    >>> list_from_json(["a", "b"]), list_from_json(None)
    (['a', 'b'], ())
    >>> list_from_json("ab")
    Traceback (most recent call last):
    runtime.core.errors.EncodeError: <model>: expected a list, got str
    """
    if value.__class__ is list:
        return value
    if value is None and absent_is_empty:
        return ()
    if isinstance(value, (list, tuple)):
        return value
    raise EncodeError(f"expected a list, got {kind(value)}")


def bool_from_json(value, path: str = "") -> bool:
    """``value`` when it is true or false (not a number: JSON says which it means)."""
    if value is True or value is False:
        return value
    raise EncodeError(f"expected true or false, got {value!r}", path=path)


def float_from_json(value, path: str = "") -> float:
    if isinstance(value, dict) and set(value) == {"$f64"}:
        try:
            return struct.unpack(">d", bytes.fromhex(value["$f64"]))[0]
        except (ValueError, struct.error):
            raise EncodeError(f"bad $f64 {value['$f64']!r}", path=path) from None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise EncodeError(f"expected a number, got {value!r}", path=path)


def enum_from_json(enum_class, value, path: str = ""):
    """An enum member from its name (the JSON form) or its number (not a bool: ``true``
    would silently be member 1)."""
    try:
        if isinstance(value, str):
            return enum_class[value]
        if value.__class__ is bool:
            raise ValueError
        if issubclass(enum_class, enum.Flag):  # a list of its flags' names, or a number
            member = flags_from_names(enum_class, value if isinstance(value, list) else [value])
            if member is None:
                raise ValueError
            return member
        return enum_class(value)
    except (KeyError, ValueError, TypeError):
        message = (
            f"{value!r} is not {a_or_an(enum_class.__name__)}{_members_hint(enum_class, value)}"
        )
        raise EncodeError(message, path=path) from None


def _members_hint(enum_class, value) -> str:
    """What a refused enum value could have been: the nearest member names, else (a short
    enum) all of them; a reader of ``'KELVIN' is not a Unit`` needs the names to write.

    >>> import enum
    >>> Unit = enum.IntEnum("Unit", {"CELSIUS": 1, "PASCAL": 2, "PERCENT": 3})
    >>> _members_hint(Unit, "PASCALS"), _members_hint(Unit, "KELVIN")
    (" (did you mean 'PASCAL'?)", ' (one of CELSIUS, PASCAL, PERCENT)')
    """
    names = [member.name for member in enum_class if member.name]
    near = did_you_mean(value, names)
    if near or not names or len(names) > 12:
        return near
    return f" (one of {', '.join(names)})"


def switch_row(selector, value, cases: tuple) -> tuple:
    """A switch as a Spark struct: one column per case with a payload, only the selected
    one filled.

    >>> switch_row(2, "x", (1, 2, 3)), switch_row(9, "x", (1, 2))
    ((None, 'x', None), (None, None))
    """
    row = [None] * len(cases)
    if selector in cases:  # compared in C: no generator resumed per case
        row[cases.index(selector)] = value
    return tuple(row)


def refuse_unknown_keys(d: dict, known: frozenset, record: str) -> None:
    """Raise an :class:`EncodeError` naming the first key of ``d`` a ``record``'s JSON form
    does not have (a misspelt key would otherwise be dropped without a word), with the
    nearest known key when one is close.

    >>> refuse_unknown_keys({"rowz": []}, frozenset({"rows"}), "message")
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: rowz: unknown key 'rowz' in message (did you mean 'rows'?)
    """
    if not isinstance(d, dict):
        raise EncodeError(f"expected an object, got {kind(d)}")
    for key in d:
        if key not in known:
            hint = did_you_mean(str(key), known)
            raise EncodeError(f"unknown key {key!r} in {record}{hint}", path=str(key))


def from_jsonable_checked(converter, d):
    """Run a generated ``*_from_dict`` converter; a missing or mistyped key is an
    :class:`EncodeError` naming its key path (found by :func:`runtime.core.json_paths.located`
    once the converter has failed, so a good form costs nothing), and so is a form nested
    deeper than the stack (a converter's recursion, or the repr of such a value in a message).

    >>> def row_from_dict(d):
    ...     return [int_from_json(v) for v in d["cells"]]
    >>> from_jsonable_checked(lambda d: [row_from_dict(r) for r in d["rows"]], {"rows": [{"cells": [1, "x"]}]})
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: rows[0].cells[1]: expected an integer, got 'x'
    """
    try:
        return converter(d)
    except RecursionError:
        raise EncodeError("JSON form nested too deep for this Python stack") from None
    except (EncodeError, KeyError, TypeError, AttributeError, ValueError) as err:
        raise located(converter, d, err) from None


def iter_fast(rows, data, limits: dict | None = None, defaults: Limits | None = None):
    """Run a generated ``_rows_<record>`` generator over all of ``data``: its elements one
    at a time, with the errors of :func:`parse_fast`. The elements are not kept, so the
    input as a whole is not held to ``max_message_bytes`` (nor its element count to
    ``max_count``): the generator holds each element to them."""
    buf = data if type(data) is bytes else readable_bytes(data)
    limits_obj = Limits.from_kwargs(limits, defaults) if limits else defaults or DEFAULT_LIMITS
    try:
        yield from rows(buf, 0, len(buf), limits_obj, 1)
    except RecursionError:
        raise DecodeError("nesting too deep for this Python stack", offset=None) from None


def build_fast(writer, construct, model, defaults: Limits | None = None) -> bytes:
    """Build ``model`` with a generated fast writer (``writer(model, out)`` appends its
    bytes to ``out``); a model it cannot write, it raises on, and ``construct`` builds it,
    so the :class:`EncodeError` is construct's."""
    out = bytearray()
    try:
        writer(model, out)
    except Exception:  # noqa: BLE001 - construct builds it again and says what is wrong
        return build(construct, model, defaults)
    return bytes(out)
