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

ColumnValue = int | float | bytes | str | None

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
    schema: str | None = None
    table: str | None = None
    partition: int | None = None
    """Physical partition (table) id of a partitioned table, else None."""
    new: list[Column] | None = None
    """After image: insert and update."""
    old: list[Column] | None = None
    """Before image: update (when old values are on) and delete."""
    row_id: int | None = None
    """Open Protocol ``rid``; Craft has no such field."""
    handle_key_only: bool = False
    """Open Protocol ``ohk``: only the handle-key columns were sent (large message)."""
    claim_check_location: str | None = None
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
    schema: str | None = None
    table: str | None = None
    ddl_type: int = 0
    query: str = ""

    op = "ddl"


@dataclasses.dataclass
class ResolvedEvent:
    """A watermark: every change with a smaller commit ts has been sent."""

    commit_ts: int

    op = "resolved"


Event = RowChangedEvent | DdlEvent | ResolvedEvent


OPS = ("insert", "update", "delete", "ddl", "resolved")


def spark_schema():
    """The one Spark table shape of TiCDC events, whichever codec decoded them.

    A column image is an array of ``(name, type, flags, value)`` where ``value`` keeps
    every kind exact in its own field: ``int`` (signed), ``uint`` (Decimal(20,0), the
    Unsigned flag), ``float`` (double), ``bytes`` (binary: text and blob kinds) and
    ``text`` (DECIMAL, dates and times, JSON rendered by TiCDC). SQL NULL is a null value.
    """
    from pyspark.sql.types import (
        ArrayType,
        BinaryType,
        BooleanType,
        DecimalType,
        DoubleType,
        IntegerType,
        LongType,
        StringType,
        StructField,
        StructType,
    )  # fmt: skip

    value = StructType(
        [
            StructField("int", LongType(), True),
            StructField("uint", DecimalType(20, 0), True),
            StructField("float", DoubleType(), True),
            StructField("bytes", BinaryType(), True),
            StructField("text", StringType(), True),
        ]
    )
    column = StructType(
        [
            StructField("name", StringType(), False),
            StructField("type", IntegerType(), False),
            StructField("flags", LongType(), False),
            StructField("value", value, True),
        ]
    )
    return StructType(
        [
            StructField("_op", StringType(), False),
            StructField("_commit_ts", DecimalType(20, 0), False),
            StructField("partition", LongType(), True),
            StructField("schema", StringType(), True),
            StructField("table", StringType(), True),
            StructField("row_id", LongType(), True),
            StructField("handle_key_only", BooleanType(), False),
            StructField("claim_check_location", StringType(), True),
            StructField("new", ArrayType(column, False), True),
            StructField("old", ArrayType(column, False), True),
            StructField("ddl_type", IntegerType(), True),
            StructField("ddl_query", StringType(), True),
        ]
    )


def _value_row(column: Column):
    from decimal import Decimal

    v = column.value
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float, bytes, str)):
        raise TypeError(f"column {column.name!r}: unsupported value {v!r}")
    if isinstance(v, int):
        if column.flags & FLAG_UNSIGNED or v > 2**63 - 1:
            return (None, Decimal(v), None, None, None)
        return (v, None, None, None, None)
    if isinstance(v, float):
        return (None, None, v, None, None)
    if isinstance(v, bytes):
        return (None, None, None, v, None)
    return (None, None, None, None, v)


def _image_row(columns):
    if columns is None:
        return None
    return [(c.name, c.type, c.flags, _value_row(c)) for c in columns]


def to_row(event: Event) -> tuple:
    """One event as a tuple in the order of :func:`spark_schema`."""
    from decimal import Decimal

    ts = Decimal(event.commit_ts)
    if isinstance(event, RowChangedEvent):
        return (
            event.op, ts, event.partition, event.schema, event.table, event.row_id,
            event.handle_key_only, event.claim_check_location,
            _image_row(event.new), _image_row(event.old), None, None,
        )  # fmt: skip
    if isinstance(event, DdlEvent):
        return ("ddl", ts, None, event.schema, event.table, None, False, None, None, None,
                event.ddl_type, event.query)  # fmt: skip
    return ("resolved", ts, None, None, None, None, False, None, None, None, None, None)
