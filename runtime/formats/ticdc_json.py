"""How TiCDC events read in the JSON form, for both codecs (Craft and Open Protocol).

The model keeps what the wire says (type codes and flag bits as numbers, string and blob
values as bytes); the JSON form shows it the way a person reads the data, and takes back
both that and the plain spellings, so ``encode(decode(x)) == x``:

* a column ``type`` is its member name in the spec's ``column_type`` enum (a code the
  spec does not list stays a number), ``flags`` the list of its ``column_flag`` names;
* a bytes value of a column without the BINARY flag (VARCHAR, CHAR, TEXT) is a string
  when it is valid UTF-8, else ``{"$hex": ...}`` as are binary columns;
* ``commit_ts`` keeps the TSO number and ``commit_ts_time`` beside it gives its physical
  time (UTC); a ``commit_ts_time`` that disagrees with ``commit_ts`` is refused on encode;
* a DDL's ``ddl_type`` is its ``ddl_type`` member name.

The event's fields are the generated JSON forms' (the spec's ``logical:`` and open
``enum:``: :mod:`generator.emit.event_json`); the columns of its row images are here.

    >>> import enum
    >>> class T(enum.IntEnum):
    ...     VARCHAR = 15
    >>> class F(enum.IntFlag):
    ...     BINARY = 1
    ...     NULLABLE = 64
    >>> from generated.models.ticdc_types import Column
    >>> names = EventNames(T, F)
    >>> names.column_json(Column("s", 15, 64, b"NEW"))
    {'name': 's', 'type': 'VARCHAR', 'flags': ['NULLABLE'], 'value': 'NEW'}
    >>> names.column_json(Column("b", 15, 65, b"NEW"))["value"]
    {'$hex': '4e4557'}
    >>> names.type_from_json("VARCHAR"), names.flags_from_json(["NULLABLE", "BINARY"])
    (15, 65)
"""

from __future__ import annotations

from runtime.core.codec import (
    OpenEnum,
    bytes_from_json,
    float_from_json,
    int_from_json,
    key_from_json,
    refuse_unknown_keys,
    str_from_json,
    to_jsonable,
)
from runtime.core.errors import EncodeError
from runtime.formats.ticdc_rows import FLAG_BINARY

COLUMN_KEYS = frozenset(["name", "type", "flags", "value"])
"""The keys of a column's JSON form (:meth:`EventNames.column_json`'s, Open Protocol's too):
``from_dict`` refuses any other."""


def text_or_hex(value: bytes, flags: int):
    """A string or blob value: text when the column is not BINARY and the bytes are
    UTF-8 (so the text encodes back to exactly them), else ``{"$hex"}``."""
    if not flags & FLAG_BINARY:
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            pass
    return {"$hex": value.hex()}


def bytes_value_from_json(value, path: str = "") -> bytes:
    """A string or blob value from its JSON form: text (its UTF-8) or ``{"$hex"}``."""
    if isinstance(value, str):
        return value.encode("utf-8")
    return bytes_from_json(value, path)


class EventNames:
    """The spec's enums the JSON form names codes by (None: that code stays a number)."""

    def __init__(self, column_types=None, column_flags=None):
        self.types = OpenEnum(column_types) if column_types is not None else None
        self.flags = OpenEnum(column_flags) if column_flags is not None else None

    # -- out ----------------------------------------------------------------------------

    def type_json(self, code: int):
        return self.types.to_json(code) if self.types else to_jsonable(code)

    def flags_json(self, flags: int):
        return self.flags.to_json(flags) if self.flags else to_jsonable(flags)

    def value_json(self, column):
        """A column's value: bytes as :func:`text_or_hex`, anything else as it is."""
        if isinstance(column.value, (bytes, bytearray)):
            return text_or_hex(bytes(column.value), column.flags)
        return to_jsonable(column.value)

    def column_json(self, column) -> dict:
        return {
            "name": column.name,
            "type": self.type_json(column.type),
            "flags": self.flags_json(column.flags),
            "value": self.value_json(column),
        }

    def image_json(self, columns):
        return None if columns is None else [self.column_json(c) for c in columns]

    # -- back ---------------------------------------------------------------------------

    def type_from_json(self, value, path: str = "") -> int:
        return _coded(self.types, value, path)

    def flags_from_json(self, value, path: str = "") -> int:
        return _coded(self.flags, value, path)

    def image_from_json(self, items, wire_type, column, path: str = "") -> list | None:
        """A row image (the columns of one group) from its JSON form: each value read as
        its kind (``wire_type(code, flags)``: the spec's ``decode_by:`` kinds, None for a
        code it does not list) says, each column made by ``column(name, type, flags, value)``.

            >>> from generated.models.ticdc_types import Column
            >>> kinds = {3: "varint", 15: "bytes"}
            >>> EventNames().image_from_json([{"name": "id", "type": 3, "value": "7"},
            ...     {"name": "s", "type": 15, "value": "x"}], lambda t, f: kinds.get(t), Column)
            [Column(name='id', type=3, flags=0, value=7), Column(name='s', type=15, flags=0, value=b'x')]
        """
        if items is None:
            return None
        if not isinstance(items, list):
            raise EncodeError(f"expected a list of columns, got {items!r}", path=path)
        out = []
        for j, c in enumerate(items):
            key = ""  # the key whose value an error is about ("": the column itself)
            try:
                if not isinstance(c, dict):
                    raise EncodeError(f"expected an object, got {type(c).__name__}")
                try:  # to_dict's form: its four keys
                    code = c["type"]
                    flags = c["flags"]
                    name = c["name"]
                    value = c["value"]
                except KeyError:  # one left out (flags 0, value null), or another in its place
                    refuse_unknown_keys(c, COLUMN_KEYS, "column")
                    code, flags = key_from_json(c, "type"), c.get("flags", 0)
                    name, value = key_from_json(c, "name"), c.get("value")
                if len(c) != 4:  # a fifth key (or fewer, each known: checked once more)
                    refuse_unknown_keys(c, COLUMN_KEYS, "column")
                key = "type"
                code = self.type_from_json(code)
                key = "flags"
                flags = self.flags_from_json(flags)
                kind = wire_type(code, flags)
                if kind is None:
                    key = "type"
                    raise EncodeError(f"unknown column type code {code}")
                key = "name"
                name = str_from_json(name)
                key = "value"
                value = _value_from_json(value, kind)
            except EncodeError as err:
                if err.path != key:  # key_from_json names it already
                    err.add_path(key)
                err.add_path(path, index=j)
                raise
            out.append(column(name, code, flags, value))
        return out


def _coded(view: OpenEnum | None, value, path: str) -> int:
    if view is not None:
        return view.from_json(value, path)
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise EncodeError(f"expected an integer, got {value!r}", path=path)
    try:
        return int(value)
    except ValueError:
        raise EncodeError(f"expected an integer, got {value!r}", path=path) from None


def _value_from_json(value, kind: str):
    """A column value of wire type ``kind`` from its JSON form."""
    if value is None:
        return None
    if kind == "bytes":  # text for a text column, else {"$hex"}
        return bytes_value_from_json(value)
    if kind == "str":
        return str_from_json(value)
    if kind == "f64":
        return float_from_json(value)
    if kind in ("varint", "uvarint"):
        return int_from_json(value)
    raise EncodeError(f"this type code is always NULL, got {value!r}")
