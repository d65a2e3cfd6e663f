"""TiCDC Open Protocol's JSON members: the checks, errors and renderings the generated
readers and writers of the spec's ``json:`` documents call per member, and the JSON value
types a column value's kind is made of (``generator.spec.model.JSON_VALUE_TYPES``: each
a reader ``<type>_in``/``int_in``/``b64`` and a writer ``<type>_text``/``check_int``/
``bytes_text``, which the generated ``read_column_value``/``write_column_value`` call);
:mod:`runtime.formats.gojson` does the JSON itself.

What a document holds (key order, omission, types, the event field each key carries) is
the spec's, rendered as code into the generated module (``read_event_key``,
``write_row_value``, ...; generator/emit/json_documents.py); nothing here walks a document.

    >>> int_in(7, _BOUNDS["u8"], "t"), _canonical_b64("AAE=")
    (7, b'\\x00\\x01')
    >>> _value_from("int", "s64", "9007199254740993", "v")
    9007199254740993
"""

from __future__ import annotations

import base64
import binascii
import struct

from runtime.core.codec import int_from_json
from runtime.core.errors import DecodeError, EncodeError, a_or_an
from runtime.formats import gojson
from runtime.formats.gojson import JsonDocument

INT64 = (-(1 << 63), (1 << 63) - 1)
UINT64 = (0, (1 << 64) - 1)
WIDE = (INT64[0], UINT64[1])
"""A ``wide`` value's range: a column read without flags (no UNSIGNED to go by)."""
_BOUNDS = {"u8": (0, 255), "u64": UINT64, "s64": INT64}
JSON_SAFE_INT = 2**53


# ---------------------------------------------------------------------------- JSON reading


def fail(message: str, path: str) -> DecodeError:
    return DecodeError(message, offset=0, path=path)


def _object(doc, path: str) -> dict:
    if type(doc) is not dict:
        raise fail(f"expected a JSON object, got {_json_kind(doc)}", path)
    return doc


_JSON_KINDS = {dict: "object", list: "array", str: "string", bool: "boolean", float: "number"}


def _json_kind(v) -> str:
    return "null" if v is None else _JSON_KINDS.get(type(v), "integer")


def int_in(v, bounds: tuple[int, int], path: str) -> int:
    if type(v) is not int:
        raise fail(f"expected an integer, got {_json_kind(v)}", path)
    if not bounds[0] <= v <= bounds[1]:
        raise fail(f"{v} is outside [{bounds[0]}, {bounds[1]}]", path)
    return v


def bad_member(v, type_: str, name: str, enum=None, within: str = "") -> DecodeError:
    """The error for the value ``v`` of the member ``name`` (of the object at ``within``,
    a path ending in a dot) that a reader refused: ``type_`` its spec type, ``enum`` a
    closed enum ``v`` is no code of. The path is built only here.

        >>> bad_member(None, "u64", "ts").message, bad_member(256, "u8", "t", None, "u.c.").path
        ("missing key 'ts'", 'u.c.t')
    """
    path = within + name
    if v is None:
        return fail(f"missing key {name!r}", path)
    if type_ == "string":
        return fail(f"expected a string, got {_json_kind(v)}", path)
    if type_ == "bool":
        return fail(f"expected a boolean, got {_json_kind(v)}", path)
    try:
        int_in(v, _BOUNDS[type_], path)
    except DecodeError as err:
        return err
    return fail(f"{v} is not {a_or_an(enum.__name__)}", path)


def _field_plan(doc: JsonDocument) -> tuple:
    """The compiled tier's key rules of ``doc`` (runtime/_compiled/open_protocol.pyx):
    per key (name, field, type, required, lowest, highest, accepted values or None)."""
    return tuple(
        (k.name, k.field, k.type, k.omit == "never", *_BOUNDS.get(k.type, (0, 0)),
         k.enum._value2member_map_ if k.enum is not None and not k.open else None)
        for k in doc.keys
    )  # fmt: skip


def float64_in(v, path: str) -> float:
    if type(v) not in (int, float):
        raise fail(f"expected a number, got {_json_kind(v)}", path)
    try:
        x = float(v)
    except OverflowError:
        x = float("inf")
    if x in (float("inf"), float("-inf")):
        raise fail(f"{v} is out of float64 range", path)
    return x


def float32_in(v, path: str) -> float:
    try:
        return gojson.to_float32(float64_in(v, path))
    except OverflowError:
        raise fail(f"{v} is out of float32 range", path) from None


def str_in(v, path: str) -> str:
    if type(v) is not str:
        raise fail(f"expected a string, got {_json_kind(v)}", path)
    return v


def utf8_in(v, path: str) -> bytes:
    """A ``utf8`` value: a JSON string, as the UTF-8 bytes it is. An escaped \ufffd
    (:data:`gojson.REPLACED`) becomes the byte 0xFF, which :func:`utf8_text` writes back as
    that escape; :func:`gojson.loads` leaves no other surrogate.

    >>> utf8_in("h\u00e9", "v")
    b'h\\xc3\\xa9'
    """
    return str_in(v, path).encode("utf-8", "surrogateescape")


def quoted_in(v, path: str) -> bytes:
    """A ``quoted`` value: a JSON string of Go ``strconv.Quote`` text, as the bytes quoted.

    >>> quoted_in("\\\\xff\\\\x00a", "v")
    b'\\xff\\x00a'
    """
    text = str_in(v, path)
    try:
        return gojson.go_unquote(gojson.unmark_replaced(text))
    except DecodeError as err:
        raise fail(f"bad strconv.Quote text: {err.message}", path) from None


def b64(v, path: str) -> bytes:
    text = str_in(v, path)
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise fail("invalid base64", path) from None
    if base64.b64encode(data).decode() != text:  # Go's StdEncoding is strict about padding
        raise fail("non-canonical base64", path)
    return data


def _canonical_b64(v) -> bytes:
    """:func:`_b64` in C (strict decoding, then the canonical-form check); what it
    refuses raises DecodeError without a path, for the checked reading to name."""
    if type(v) is str:
        try:
            data = binascii.a2b_base64(v, strict_mode=True)
        except ValueError:  # binascii.Error, and non-ASCII text
            pass
        else:
            if binascii.b2a_base64(data, newline=False) == v.encode():
                return data
    raise DecodeError("not canonical base64")


def scalar_in(v, path: str):
    if v is not None and type(v) not in (int, float, str):
        raise fail(f"expected a JSON scalar, got {_json_kind(v)}", path)
    return v


def _load(data: bytes, start: int, end: int, stream: str, mark_replaced: bool = False) -> dict:
    """Parse and type-check one JSON document; errors carry its absolute offset."""
    try:
        return _object(gojson.loads(data[start:end], mark_replaced=mark_replaced), "")
    except DecodeError as err:
        err.shift(start)
        err.add_path(stream)
        raise


# ---------------------------------------------------------------------------- JSON writing


def check_int(v, bounds: tuple[int, int], path: str) -> int:
    if type(v) is not int or not bounds[0] <= v <= bounds[1]:
        raise EncodeError(
            f"expected an integer in [{bounds[0]}, {bounds[1]}], got {v!r}", path=path
        )
    return v


def _check_str(v, path: str) -> str:
    if type(v) is not str:
        raise EncodeError.expected("str", v, path=path)
    return v


def required(field: str) -> EncodeError:
    """The error for a member a model leaves None that the document always has."""
    return EncodeError(f"{field} is required", path=field)


def string_text(v, go122: bool, path: str) -> str:
    """A ``string`` member as JSON text (Go's escapes; ``go122``: the short \\b, \\f)."""
    return gojson.quote_str(_check_str(v, path), go122=go122)


def bytes_text(v, path: str) -> str:
    """A ``bytes`` member (a Go ``[]byte``) as JSON text: standard base64 with padding.

    >>> bytes_text(b"\\x00\\x01", "key")
    '"AAE="'
    """
    return '"' + base64.b64encode(_render_bytes(v, path)).decode() + '"'


def bool_text(v, path: str) -> str:
    if type(v) is not bool:
        raise EncodeError.expected("bool", v, path=path)
    return "true" if v else "false"


def float64_text(v, path: str, fmt=gojson.format_float64) -> str:
    """An ``f64`` value as Go's shortest float64 digits (``fmt``: float32's, for ``f32``).

    >>> float64_text(1e21, "v"), float32_text(0.1, "v")
    ('1e+21', '0.1')
    """
    if type(v) not in (int, float):
        raise EncodeError.expected("float", v, path=path)
    try:
        return fmt(float(v))
    except ValueError:  # NaN and the infinities: Go's encoding/json fails on them too
        raise EncodeError(f"Go's encoding/json cannot write {v!r}", path=path) from None
    except OverflowError:  # beyond float64 (an int), or float32 (f32)
        bits = 32 if fmt is gojson.format_float32 else 64
        raise EncodeError(f"{v!r} is out of range for float{bits}", path=path) from None


def float32_text(v, path: str) -> str:
    """An ``f32`` value as Go's shortest float32 digits."""
    return float64_text(v, path, gojson.format_float32)


def utf8_text(v, go122: bool, path: str) -> str:
    """A ``utf8`` value (bytes) as the JSON string of its text (:func:`utf8_in` inverts it).

    >>> utf8_text(b"a\\xff", True, "v")
    '"a\\\\ufffd"'
    """
    return gojson.quote_utf8(_render_bytes(v, path), go122=go122)


def quoted_text(v, go122: bool, path: str) -> str:
    """A ``quoted`` value (bytes) as the JSON string of its ``strconv.Quote`` text.

    >>> quoted_text(b"\\xff", True, "v")
    '"\\\\\\\\xff"'
    """
    return gojson.quote_str(gojson.go_quote(_render_bytes(v, path)), go122=go122)


def scalar_text(v, go122: bool, path: str) -> str:
    """A ``scalar`` value: a str, an int of int64 or uint64 range, a float.

    >>> scalar_text("a", True, "v"), scalar_text(-1, True, "v"), scalar_text(0.5, True, "v")
    ('"a"', '-1', '0.5')
    """
    if type(v) is str:
        return gojson.quote_str(v, go122=go122)
    if type(v) is int:
        return str(check_int(v, WIDE, path))
    if type(v) is float:
        return float64_text(v, path)
    raise EncodeError.expected("int, float, str or None", v, path=path)


def _render_bytes(v, path: str) -> bytes:
    if type(v) is not bytes:
        raise EncodeError.expected("bytes", v, path=path)
    return v


def _int_json(v):
    return str(v) if isinstance(v, int) and abs(v) > JSON_SAFE_INT else v


def _dict(v, path: str) -> dict:
    if not isinstance(v, dict):
        raise EncodeError.expected("an object", v, path=path)
    return v


def _value_from(kind: str, type_: str, v, path: str):
    """A column value of ``kind`` (its JSON value type ``type_``) from its JSON form (see
    :meth:`OpenProtocol.to_dict`)."""
    if v is None:
        return None
    if isinstance(v, dict):
        if set(v) == {"$hex"}:
            try:
                return bytes.fromhex(v["$hex"])
            except (TypeError, ValueError):
                raise EncodeError(f"bad hex {v['$hex']!r}", path=path) from None
        if set(v) == {"$str"} and isinstance(v["$str"], str):
            return v["$str"]
        if set(v) == {"$f64"}:
            try:
                return struct.unpack(">d", bytes.fromhex(v["$f64"]))[0]
            except (TypeError, ValueError, struct.error):
                raise EncodeError(f"bad $f64 {v['$f64']!r}", path=path) from None
        raise EncodeError(f"unknown value form {v!r}", path=path)
    if isinstance(v, bool):
        raise EncodeError(f"a boolean is no column value: {v!r}", path=path)
    if isinstance(v, float):
        return v
    if isinstance(v, int):
        return float(v) if type_ in ("f32", "f64") else v
    if isinstance(v, str):
        if type_ == "str":
            return v
        if type_ in ("utf8", "quoted", "base64"):  # a text column's (ticdc_types' json:)
            return v.encode("utf-8")
        if type_ in ("s64", "u64", "wide", "scalar"):
            return int_from_json(v, path)
    raise EncodeError(f"{v!r} is no {kind} value", path=path)
