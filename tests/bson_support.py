"""BSON values as pymongo's ``bson`` module holds them, and as ``generated.bson`` models:
the two conversions tests/test_bson.py holds our codec to the library with.

``to_python`` reads a document model as ``bson.decode(data, codec_options=OPTIONS)``
returns it (datetimes as ``DatetimeMS``, so every int64 reads back); ``from_python`` writes
a Python document the way ``bson.encode`` does.
"""

from __future__ import annotations

from bson import (
    Binary,
    Code,
    DatetimeMS,
    Decimal128,
    Int64,
    MaxKey,
    MinKey,
    ObjectId,
    Regex,
    Timestamp,
)
from bson.codec_options import CodecOptions, DatetimeConversion
from bson.dbref import DBRef

from generated import bson as codec

OPTIONS = CodecOptions(datetime_conversion=DatetimeConversion.DATETIME_MS)
T = codec.ElementType


def to_python(document: codec.Document) -> dict:
    """The document's elements as ``bson.decode`` returns them (a later duplicate key wins)."""
    return {element.key: _value(element.type, element.value) for element in _elements(document)}


def _elements(document: codec.Document) -> list:
    return document.elements.elements


def _value(kind: T, value):
    if kind in (T.STRING, T.SYMBOL):
        return value.text
    if kind == T.DOCUMENT:
        return to_python(value)
    if kind == T.ARRAY:
        return [_value(element.type, element.value) for element in _elements(value)]
    if kind == T.BINARY:
        payload = value.payload
        if payload.subtype == codec.BinarySubtype.BINARY_OLD:
            return Binary(payload.data.data, 2)
        return payload.data if payload.subtype == 0 else Binary(payload.data, payload.subtype)
    if kind == T.OBJECT_ID:
        return ObjectId(value)
    if kind == T.UTC_DATETIME:
        return DatetimeMS(value.millis)
    if kind == T.REGEX:
        return Regex(value.pattern, value.options)
    if kind == T.DB_POINTER:
        return DBRef(value.namespace.text, ObjectId(value.id))
    if kind == T.JAVASCRIPT:
        return Code(value.text)
    if kind == T.JAVASCRIPT_WITH_SCOPE:
        return Code(value.body.code.text, to_python(value.body.scope))
    if kind == T.TIMESTAMP:
        return Timestamp(value.seconds, value.increment)
    if kind == T.INT64:
        return Int64(value)
    if kind == T.DECIMAL128:
        return Decimal128.from_bid(value)
    if kind == T.MIN_KEY:
        return MinKey()
    if kind == T.MAX_KEY:
        return MaxKey()
    return value  # double, int32, bool, null, undefined (None)


def from_python(document: dict) -> codec.Document:
    """The model ``bson.encode(document)`` writes (sizes left for build to compute)."""
    return _document([_element(key, value) for key, value in document.items()])


def _document(elements: list) -> codec.Document:
    return codec.Document(size=0, elements=codec.ElementList(elements=elements), terminator=0)


def _string(text: str) -> codec.String:
    return codec.String(length=0, text=text, terminator=0)


def _element(key: str, value) -> codec.Element:
    kind, model = _typed(value)
    return codec.Element(type=kind, key=key, value=model)


def _binary(subtype: int, data) -> codec.Binary:
    return codec.Binary(length=0, payload=codec.BinaryPayload(subtype=subtype, data=data))


def _typed(value) -> tuple:
    # bool before int (a bool is an int), Int64 before int, Code before str.
    if value is None:
        return T.NULL, None
    if isinstance(value, bool):
        return T.BOOLEAN, value
    if isinstance(value, Int64):
        return T.INT64, int(value)
    if isinstance(value, int):
        return (T.INT32, value) if -(2**31) <= value < 2**31 else (T.INT64, value)
    if isinstance(value, float):
        return T.DOUBLE, value
    if isinstance(value, Code):
        if value.scope is None:
            return T.JAVASCRIPT, _string(str(value))
        body = codec.CodeAndScope(code=_string(str(value)), scope=from_python(value.scope))
        return T.JAVASCRIPT_WITH_SCOPE, codec.CodeWithScope(size=0, body=body)
    if isinstance(value, str):
        return T.STRING, _string(value)
    if isinstance(value, dict):
        return T.DOCUMENT, from_python(value)
    if isinstance(value, list):
        return T.ARRAY, _document([_element(str(i), v) for i, v in enumerate(value)])
    if isinstance(value, Binary):
        data = bytes(value)
        if value.subtype == 2:
            data = codec.OldBinary(length=0, data=data)
        return T.BINARY, _binary(value.subtype, data)
    if isinstance(value, bytes):
        return T.BINARY, _binary(0, value)
    if isinstance(value, ObjectId):
        return T.OBJECT_ID, value.binary
    if isinstance(value, DatetimeMS):
        return T.UTC_DATETIME, codec.UtcDatetime(millis=int(value))
    if isinstance(value, Regex):
        options = "".join(sorted(letter for letter in _flag_letters(value.flags)))
        return T.REGEX, codec.Regex(pattern=value.pattern, options=options)
    if isinstance(value, Timestamp):
        return T.TIMESTAMP, codec.Timestamp(increment=value.inc, seconds=value.time)
    if isinstance(value, Decimal128):
        return T.DECIMAL128, value.bid
    if isinstance(value, MinKey):
        return T.MIN_KEY, None
    if isinstance(value, MaxKey):
        return T.MAX_KEY, None
    raise TypeError(f"no BSON type for {type(value).__name__}")


_FLAGS = {"i": 2, "l": 4, "m": 8, "s": 16, "u": 32, "x": 64}  # Python's re flags


def _flag_letters(flags: int) -> list:
    return [letter for letter, bit in _FLAGS.items() if flags & bit]
