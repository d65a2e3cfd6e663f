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

from runtime.core.codec import OpenEnum, TimeBeside, bytes_from_json, to_jsonable
from runtime.core.errors import EncodeError
from runtime.formats.ticdc_rows import FLAG_BINARY

COMMIT_TS = TimeBeside("tidb_tso")
"""``commit_ts`` is a TiDB TSO: ``commit_ts_time`` beside it on the way out, checked back."""


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

    def __init__(self, column_types=None, column_flags=None, ddl_types=None):
        self.types = OpenEnum(column_types) if column_types is not None else None
        self.flags = OpenEnum(column_flags) if column_flags is not None else None
        self.ddl_types = OpenEnum(ddl_types) if ddl_types is not None else None

    # -- out ----------------------------------------------------------------------------

    def type_json(self, code: int):
        return self.types.to_json(code) if self.types else to_jsonable(code)

    def flags_json(self, flags: int):
        return self.flags.to_json(flags) if self.flags else to_jsonable(flags)

    def ddl_type_json(self, code: int):
        return self.ddl_types.to_json(code) if self.ddl_types else to_jsonable(code)

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

    @staticmethod
    def put_commit_ts(out: dict, ts: int) -> None:
        COMMIT_TS.put(out, "commit_ts", ts)

    # -- back ---------------------------------------------------------------------------

    def type_from_json(self, value, path: str = "") -> int:
        return _coded(self.types, value, path)

    def flags_from_json(self, value, path: str = "") -> int:
        return _coded(self.flags, value, path)

    def ddl_type_from_json(self, value, path: str = "") -> int:
        return _coded(self.ddl_types, value, path)

    @staticmethod
    def commit_ts_checked(d: dict, ts: int) -> int:
        """``ts`` read from ``d["commit_ts"]``, once ``d``'s ``commit_ts_time`` agrees."""
        return COMMIT_TS.checked(d, "commit_ts", ts)


def _coded(view: OpenEnum | None, value, path: str) -> int:
    if view is not None:
        return view.from_json(value, path)
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise EncodeError(f"expected an integer, got {value!r}", path=path)
    try:
        return int(value)
    except ValueError:
        raise EncodeError(f"expected an integer, got {value!r}", path=path) from None


EXTRA_KEYS = frozenset({"commit_ts_time"})
"""Keys the JSON form shows beside the event's fields (read back only to be checked)."""
