"""What a generated Thrift Compact writer puts, and what it says when it cannot: values as
their compact bytes (varints, an i8, UTF-8 text, binary, a uuid) and a write's errors in
our words (:class:`EncodeError` with the field, element, key or raw field it failed in).

Generated modules call them as ``rt.<name>`` of :mod:`runtime.formats.thrift_compact`.

    >>> zigzag(-1).hex(), uvarint(300).hex()
    ('01', 'ac02')
"""

from __future__ import annotations

import struct
import uuid as _uuid

from runtime.core.errors import EncodeError
from runtime.core.leb128 import write_uvarint, write_zigzag


def uvarint(n: int) -> bytes:
    return write_uvarint(n, bits=32)


def zigzag(v: int, bits: int = 64) -> bytes:
    return write_zigzag(v, bits=bits)


def zz16(v) -> bytes:
    return write_zigzag(v, bits=16)


def zz32(v) -> bytes:
    return write_zigzag(v, bits=32)


def zz64(v) -> bytes:
    return write_zigzag(v, bits=64)


def i8_byte(v) -> int:
    if not -128 <= v <= 127:
        raise EncodeError(f"i8 {v} is out of range")
    return v & 0xFF


def text_bytes(v) -> bytes:
    """The UTF-8 of a string value; bytes pass through (strings decoded as bytes)."""
    if isinstance(v, str):
        try:
            return v.encode()
        except UnicodeEncodeError as err:
            raise EncodeError(f"string is not encodable as UTF-8: {err.reason}") from None
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    raise EncodeError.expected("str", v)


def binary_bytes(v) -> bytes:
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    raise EncodeError.expected("bytes", v)


def uuid_bytes(v) -> bytes:
    if isinstance(v, _uuid.UUID):
        return v.bytes
    if isinstance(v, str):
        return _uuid.UUID(v).bytes
    if isinstance(v, (bytes, bytearray)) and len(v) == 16:
        return bytes(v)
    raise EncodeError(f"expected a uuid.UUID, got {v!r}")


_FOREIGN = (TypeError, AttributeError, ValueError, OverflowError, struct.error)
"""What Python raises on a value of the wrong type (``-64 <= "x"``, ``len(7)``, ``_pack_d("x")``,
``uuid.UUID("zz")``): said as what the writer expected there."""


def _as_encode_error(err: Exception, value=None, expected: str | None = None) -> EncodeError:
    if isinstance(err, EncodeError):
        return err
    if isinstance(err, RecursionError):
        return EncodeError("model nests too deep (a cycle?)")
    if expected is not None and isinstance(err, _FOREIGN):
        return EncodeError.expected(expected, value)
    return EncodeError(f"cannot write {type(err).__name__}: {err}")


def enc_field(
    err: Exception, name: str, index: int | None = None, value=None, expected: str | None = None
) -> EncodeError:
    """An :class:`EncodeError` for a failure while writing field ``name``: one Python raised
    on its ``value`` says what was ``expected`` there.

    >>> str(enc_field(TypeError("'<=' not supported"), "num_rows", value="x", expected="an integer"))
    "num_rows: expected an integer, got str 'x'"
    """
    err = _as_encode_error(err, value, expected)
    err.add_path(name, index=index)
    return err


# A writer's loops keep no counter: the place of the element or entry that failed is added
# on the way out (the read side's at_index), so a model that writes pays nothing for it.


def enc_element(err: Exception, items, item, expected: str | None = None) -> EncodeError:
    """:func:`enc_field` of a failure while writing ``item``, an element of the list (or
    set) ``items``: its index.

    >>> tags = ["a", 5]
    >>> str(enc_element(enc_element(EncodeError("expected str, got int"), tags, tags[1]), [tags], tags))
    '[0][1]: expected str, got int'
    """
    return _as_encode_error(err, item, expected).add_element(items, item)


def enc_key(err: Exception, key=None, expected: str | None = None) -> EncodeError:
    """:func:`enc_field` of a failure while writing a map's key (:func:`enc_entry` then
    says which)."""
    err = _as_encode_error(err, key, expected)
    err.message = f"key: {err.message}"
    return err


def enc_entry(err: Exception, key, value=None, expected: str | None = None) -> EncodeError:
    """:func:`enc_field` of a failure while writing the entry of ``key`` of a map.

    >>> str(enc_entry(enc_key(EncodeError("expected str, got int")), 5))
    '[5]: key: expected str, got int'
    >>> str(enc_entry(TypeError("'<=' not supported"), "a", "x", "an integer"))
    "['a']: expected an integer, got str 'x'"
    """
    return _as_encode_error(err, value, expected).add_key(key)


def raw_fields(fields):
    """A RawStruct's ``fields`` as its writer walks them, as every list in a build: None is
    none, a tuple is a list, what else (a generator, which its first reader would use up)
    is refused at ``fields``.

    >>> raw_fields(None), raw_fields((1,))
    ((), (1,))
    >>> try:
    ...     raw_fields({1})
    ... except EncodeError as err:
    ...     print(err)
    fields: expected a list, got set {1}
    """
    if fields is None:
        return ()
    if isinstance(fields, (list, tuple)):
        return fields
    raise EncodeError.expected("a list", fields, path="fields")


def enc_raw_field(err: Exception, fields: list, index: int, types: dict, expects: dict):
    """:func:`enc_field` of a failure while writing ``fields[index]`` of a RawStruct: in its
    value, named by its field id and compact type too (the read side's ``#7``).

    >>> class F: id, type, value = 7, 5, "x"
    >>> str(enc_raw_field(TypeError(), [F()], 0, {}, {5: "an integer"}))
    "fields[0] (field 7, 5).value: expected an integer, got str 'x'"
    """
    f, at = fields[index], f"fields[{index}]"
    if not all(hasattr(f, a) for a in ("id", "type", "value")):
        return enc_field(err, at, value=f, expected="a RawField")
    if not isinstance(f.type, int):
        return enc_field(err, f"{at}.type", value=f.type, expected="a compact type")
    ct = int(f.type)
    if type(f.id) is not int or not -(1 << 15) <= f.id < 1 << 15:
        return enc_field(err, f"{at}.id", value=f.id, expected="an integer")
    err = enc_field(err, "value", value=f.value, expected=expects.get(ct))
    err.add_path(f"{at} (field {f.id}, {getattr(types.get(ct), 'name', ct)})")
    return err


def compact_type(v, path: str = "") -> int:
    """A raw value's compact type (an int or a CompactType member, as its reader gives it),
    refused at ``path`` when it is anything else (``int()`` would take 1.5 as 1).

    >>> compact_type(5), compact_type(True)
    (5, 1)
    >>> compact_type(1.5, "element_type")
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: element_type: expected a compact type, got float 1.5
    """
    if v.__class__ is int:
        return v
    if not isinstance(v, int):
        raise EncodeError.expected("a compact type", v, path=path)
    return int(v)


def enc_raw_item(err: Exception, items: list, item, expected: str | None, pair: bool = False):
    """:func:`enc_element` of a failure while writing ``item`` of a RawList's (or, ``pair``,
    a RawMap's) ``items``: its index in them.

    >>> str(enc_raw_item(TypeError(), [("a", 1), ("b", "x")], ("b", "x"), "an integer", True))
    "items[1]: expected an integer, got str 'x'"
    """
    value = item[1] if pair and isinstance(item, tuple | list) and len(item) == 2 else item
    if pair and value is item:
        expected = "a (key, value) pair"
    err = _as_encode_error(err, value, expected).add_element(items, item)
    err.add_path("items")
    return err
