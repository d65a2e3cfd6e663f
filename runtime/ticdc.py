"""The TiCDC event model shared by the Craft and Open Protocol codecs.

Both codecs decode into, and encode from, these plain objects, so both formats land in
one Spark table shape and can be transcoded into each other:

    >>> ev = RowChangedEvent(commit_ts=424316552636792833, schema="a", table="b",
    ...                      new=[Column("id", 3, 0x0B, 7)])
    >>> ev.op
    'insert'

Values are exact. The Python type of ``Column.value`` follows the MySQL type code and the
column flags, the same for both codecs:

* ``None`` is SQL NULL (distinct from ``b""``/``""``);
* ``int`` for TINYINT..BIGINT, MEDIUMINT, YEAR, BIT, ENUM (index), SET (bitmask);
  unsigned columns (flag 0x80) hold 0 .. 2**64-1;
* ``float`` for FLOAT and DOUBLE (bit-exact float64);
* ``bytes`` for the string and blob kinds (VARCHAR, VAR_STRING, STRING, the BLOB codes);
  text is its UTF-8 bytes, so invalid UTF-8 survives;
* ``str`` for the kinds TiCDC renders as text: DECIMAL, DATE, TIME, DATETIME, TIMESTAMP,
  NEWDATE, JSON, VECTOR.
"""

from __future__ import annotations

import dataclasses
from typing import Optional, Union

ColumnValue = Union[None, int, float, bytes, str]

FLAG_BINARY = 0x01
FLAG_HANDLE_KEY = 0x02
FLAG_UNSIGNED = 0x80


@dataclasses.dataclass
class Column:
    """One column of a row image."""

    name: str
    type: int
    """MySQL type code (3 INT, 15 VARCHAR, ...)."""
    flags: int = 0
    """Column flag bitset (0x01 binary, 0x02 handle key, ... 0x80 unsigned)."""
    value: ColumnValue = None


@dataclasses.dataclass
class RowChangedEvent:
    """An insert (``new`` only), update (``new`` and ``old``) or delete (``old`` only)."""

    commit_ts: int
    schema: Optional[str] = None
    table: Optional[str] = None
    partition: Optional[int] = None
    """Physical partition (table) id of a partitioned table, else None."""
    new: Optional[list[Column]] = None
    """After image: insert and update."""
    old: Optional[list[Column]] = None
    """Before image: update (when old values are on) and delete."""
    row_id: Optional[int] = None
    """Open Protocol ``rid``; Craft has no such field."""
    handle_key_only: bool = False
    """Open Protocol ``ohk``: only the handle-key columns were sent (large message)."""
    claim_check_location: Optional[str] = None
    """Open Protocol ``ccl``: where the full message was stored (large message)."""

    @property
    def op(self) -> str:
        if self.old is not None and self.new is None:
            return "delete"
        if self.old is not None:
            return "update"
        return "insert"


@dataclasses.dataclass
class DdlEvent:
    """A schema change; ``ddl_type`` is TiDB's ``model.ActionType`` (3 = CREATE TABLE)."""

    commit_ts: int
    schema: Optional[str] = None
    table: Optional[str] = None
    ddl_type: int = 0
    query: str = ""

    op = "ddl"


@dataclasses.dataclass
class ResolvedEvent:
    """A watermark: every change with a smaller commit ts has been sent."""

    commit_ts: int

    op = "resolved"


Event = Union[RowChangedEvent, DdlEvent, ResolvedEvent]
