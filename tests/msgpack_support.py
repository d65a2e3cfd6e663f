"""MessagePack values as the ``msgpack`` library holds them, and as ``generated.msgpack``
models: the two conversions the gallery tests hold our codec to the library with.

``to_python`` reads a model as ``msgpack.unpackb(data, strict_map_key=False)`` returns it;
``from_python`` writes a Python value in the form ``msgpack.packb`` picks (the smallest).
"""

from __future__ import annotations

import math

import msgpack

from generated import msgpack as codec

_INTS = (
    (0, 0x7F, "positive_fixint"),
    (-32, -1, "negative_fixint"),
    (0x80, 0xFF, "uint8"),
    (-0x80, -33, "int8"),
    (0x100, 0xFFFF, "uint16"),
    (-0x8000, -0x81, "int16"),
    (0x10000, 0xFFFFFFFF, "uint32"),
    (-(2**31), -0x8001, "int32"),
    (2**32, 2**64 - 1, "uint64"),
    (-(2**63), -(2**31) - 1, "int64"),
)
_SIZED = {  # Python type -> (short form and its limit, then the prefixed forms)
    str: (("fixstr", 31), ("str8", 0xFF), ("str16", 0xFFFF), ("str32", 2**32 - 1)),
    bytes: (("bin8", 0xFF), ("bin16", 0xFFFF), ("bin32", 2**32 - 1)),
    list: (("fixarray", 15), ("array16", 0xFFFF), ("array32", 2**32 - 1)),
    dict: (("fixmap", 15), ("map16", 0xFFFF), ("map32", 2**32 - 1)),
}
_FIXEXT = {1: "fixext1", 2: "fixext2", 4: "fixext4", 8: "fixext8", 16: "fixext16"}


class Unhashable(Exception):
    """A map key the library cannot hold in a dict (an array or a map), or a NaN."""


def _form(name: str, **fields):
    return codec.Value(form=getattr(codec, codec_class(name))(**fields))


def codec_class(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def _sized(kind, n: int) -> str:
    return next(name for name, limit in _SIZED[kind] if n <= limit)


def from_python(value) -> codec.Value:
    """The model of ``value`` in the form ``msgpack.packb(value)`` writes."""
    if value is None:
        return _form("nil")
    if value is True or value is False:
        return _form("bool_true" if value else "bool_false")
    if isinstance(value, int):
        name = next(name for lo, hi, name in _INTS if lo <= value <= hi)
        return _form(name, value=value)
    if isinstance(value, float):
        return _form("float64", value=value)
    if isinstance(value, str):
        return _form(_sized(str, len(value.encode())), data=value)
    if isinstance(value, bytes):
        return _form(_sized(bytes, len(value)), data=value)
    if isinstance(value, msgpack.Timestamp):
        if value.seconds >> 34 == 0:
            if value.nanoseconds == 0 and value.seconds <= 0xFFFFFFFF:
                return _form("timestamp32", seconds=value.seconds)
            return _form("timestamp64", nanoseconds=value.nanoseconds, seconds=value.seconds)
        return _form("timestamp96", nanoseconds=value.nanoseconds, seconds=value.seconds)
    if isinstance(value, msgpack.ExtType):
        n = len(value.data)
        name = _FIXEXT.get(n) or ("ext8" if n <= 0xFF else "ext16" if n <= 0xFFFF else "ext32")
        return _form(name, type=value.code, data=value.data)
    if isinstance(value, (list, tuple)):
        return _form(_sized(list, len(value)), elements=[from_python(v) for v in value])
    if isinstance(value, dict):
        pairs = [codec.Pair(key=from_python(k), value=from_python(v)) for k, v in value.items()]
        return _form(_sized(dict, len(pairs)), pairs=pairs)
    raise TypeError(type(value).__name__)


def to_python(model: codec.Value):
    """``model`` as ``msgpack.unpackb`` returns its bytes (raises :class:`Unhashable` for a
    map key the library cannot hold, ValueError for an ext -1 that is not a timestamp)."""
    form = model.form
    name = type(form).__name__
    if name == "Nil":
        return None
    if name in ("BoolTrue", "BoolFalse"):
        return name == "BoolTrue"
    if name.startswith("Timestamp"):
        return msgpack.Timestamp(form.seconds, getattr(form, "nanoseconds", 0))
    if hasattr(form, "elements"):
        return [to_python(v) for v in form.elements]
    if hasattr(form, "pairs"):
        out = {}
        for pair in form.pairs:
            key = to_python(pair.key)
            if isinstance(key, (list, dict)) or (isinstance(key, float) and math.isnan(key)):
                raise Unhashable  # a NaN key: no two dicts holding one compare equal
            out[key] = to_python(pair.value)
        return out
    if hasattr(form, "type"):  # an extension; type -1 is a timestamp to the library
        if form.type == -1:
            return msgpack.Timestamp.from_bytes(form.data)
        return msgpack.ExtType(form.type, form.data)
    if hasattr(form, "data"):
        return form.data
    return form.value


def same(a, b) -> bool:
    """Equality where NaN equals NaN (a float's bits are compared)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b
