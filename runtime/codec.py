"""The entry points every generated module delegates to: parse, build and the JSON form.

    >>> from construct import Int8ul
    >>> from runtime.record import Record
    >>> parse(Record("x" / Int8ul), b"\\x05\\x06")
    Traceback (most recent call last):
    ...
    runtime.errors.DecodeError: <message> at offset 1: 1 trailing byte(s) after the message

The JSON form (``to_jsonable``/``from_jsonable``) is stable and lossless: bytes are
``{"$hex": "..."}``, integers beyond 2**53 are decimal strings, and floats that JSON
cannot hold exactly (NaN with its payload, infinities) are ``{"$f64": "<16 hex digits>"}``.
"""

from __future__ import annotations

import enum
import io
import math
import struct

from construct import ConstructError, Container

from .errors import DecodeError, EncodeError
from .fast import QUICK_FAILURES
from .limits import DEFAULT as DEFAULT_LIMITS
from .limits import Limits
from .record import _message
from .stream import remaining

JSON_SAFE_INT = 2**53


def parse(construct, data, limits: dict | None = None, spans=None, defaults: Limits | None = None):
    """Parse all of ``data`` with ``construct``; trailing bytes are an error.

    ``limits`` override ``defaults`` (a generated module's ``DEFAULT_LIMITS``; else the
    runtime's) for this call.

    ``spans`` is an optional :class:`runtime.spans.SpanRecorder` that the constructs
    report the byte span of every field into (``wirespec inspect``)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"parse() takes bytes, not {type(data).__name__}")
    limits_obj = Limits.from_kwargs(limits or {}, defaults)
    limits_obj.check("max_message_bytes", len(data), offset=0)
    stream = io.BytesIO(data)
    try:
        if spans is None:
            model = construct.parse_stream(stream, limits=limits_obj)
        else:
            model = construct.parse_stream(stream, limits=limits_obj, spans=spans)
    except ConstructError as err:
        raise DecodeError(_message(err), offset=stream.tell()) from None
    except RecursionError:
        raise DecodeError("nesting too deep for this Python stack", offset=stream.tell()) from None
    left = remaining(stream)
    if left:
        raise DecodeError(f"{left} trailing byte(s) after the message", offset=stream.tell())
    return model


def parse_fast(
    reader, data, limits: dict | None = None, defaults: Limits | None = None, quick=None
):
    """Parse all of ``data`` with a generated fast-path ``reader`` (same errors and
    limits as :func:`parse`).

    ``quick``: the record's quick tier, ``(reader, the nesting depth it reads)``, tried
    first (within ``max_depth`` only: it makes no depth check); whatever it does not take
    completely goes to ``reader``, which gives the model or the exact error."""
    if type(data) is not bytes:
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


def build(construct, model) -> bytes:
    """Build ``model``; any problem with it is an :class:`EncodeError` with the path."""
    try:
        return construct.build(model)
    except ConstructError as err:
        raise EncodeError(_message(err)) from None


def to_jsonable(value):
    """A model (construct Containers, lists, enums, bytes, ...) as plain JSON values."""
    if isinstance(value, dict):
        # A Container's "_" keys are construct's bookkeeping; any other dict is a map
        # (MsbMap): every key kept, integer keys as their decimal text.
        internal = isinstance(value, Container)
        return {
            k if isinstance(k, str) else str(k): to_jsonable(v)
            for k, v in value.items()
            if not (internal and k.startswith("_"))
        }
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
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
    if hasattr(value, "__dataclass_fields__"):
        return {name: to_jsonable(getattr(value, name)) for name in value.__dataclass_fields__}
    raise TypeError(f"cannot represent {type(value).__name__} in JSON")


def bytes_from_json(value, path: str = "") -> bytes:
    if isinstance(value, dict) and set(value) == {"$hex"}:
        try:
            return bytes.fromhex(value["$hex"])
        except ValueError:
            raise EncodeError(f"bad hex {value['$hex']!r}", path=path) from None
    raise EncodeError(f'expected {{"$hex": ...}}, got {value!r}', path=path)


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
    """An enum member from its name (the JSON form) or its number."""
    try:
        return enum_class[value] if isinstance(value, str) else enum_class(value)
    except (KeyError, ValueError):
        raise EncodeError(f"{value!r} is not a {enum_class.__name__}", path=path) from None


def switch_row(selector, value, cases: tuple) -> tuple:
    """A switch as a Spark struct: one column per case with a payload, only the selected
    one filled."""
    return tuple(value if selector == case else None for case in cases)


def from_jsonable_checked(converter, d):
    """Run a generated ``*_from_dict`` converter; a missing or mistyped key is an
    :class:`EncodeError` instead of a KeyError."""
    try:
        return converter(d)
    except KeyError as err:
        raise EncodeError(f"missing key {err}") from None
    except (TypeError, AttributeError) as err:
        raise EncodeError(f"malformed JSON form: {err}") from None


def iter_fast(rows, data, limits: dict | None = None, defaults: Limits | None = None):
    """Run a generated ``_rows_<record>`` generator over all of ``data``: its elements one
    at a time, with the errors of :func:`parse_fast`. The elements are not kept, so the
    input as a whole is not held to ``max_message_bytes`` (nor its element count to
    ``max_count``): the generator holds each element to them."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"parse() takes bytes, not {type(data).__name__}")
    if limits:
        limits_obj = (
            Limits.from_kwargs(limits, defaults) if defaults else Limits.from_kwargs(limits)
        )
    else:
        limits_obj = defaults or DEFAULT_LIMITS
    buf = data if type(data) is bytes else bytes(data)
    try:
        yield from rows(buf, 0, len(buf), limits_obj, 1)
    except RecursionError:
        raise DecodeError("nesting too deep for this Python stack", offset=None) from None


def build_fast(writer, construct, model) -> bytes:
    """Build ``model`` with a generated fast writer (``writer(model, out)`` appends its
    bytes to ``out``); a model it cannot write, it raises on, and ``construct`` builds it,
    so the :class:`EncodeError` is construct's."""
    out = bytearray()
    try:
        writer(model, out)
    except Exception:  # noqa: BLE001 - construct builds it again and says what is wrong
        return build(construct, model)
    return bytes(out)
