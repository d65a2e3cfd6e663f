"""The TiCDC event model shared by the Craft and Open Protocol codecs.

Both codecs decode into, and encode from, these plain objects, so both formats land in
one Spark table shape and can be transcoded into each other:

    >>> ev = RowChangedEvent(commit_ts=424316552636792833, schema="a", table="b",
    ...                      new=[Column("id", 3, 0x0B, 7)])
    >>> ev.op
    'insert'

The classes are ``slots=True`` dataclasses (a decoded message makes one object per column,
and the compiled Craft reader writes their slots directly): ``==``, ``dataclasses.replace``
and ``asdict``, ``copy`` and ``pickle`` work as for any dataclass; an instance has no
``__dict__`` (``vars()`` does not apply, and no other attribute can be set).

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
from decimal import Decimal

ColumnValue = int | float | bytes | str | None

FLAG_BINARY = 0x01
FLAG_HANDLE_KEY = 0x02
FLAG_UNSIGNED = 0x80


@dataclasses.dataclass(slots=True)
class Column:
    """One column of a row image."""

    name: str
    type: int
    """MySQL type code (3 INT, 15 VARCHAR, ...)."""
    flags: int = 0
    """Column flag bitset (0x01 binary, 0x02 handle key, ... 0x80 unsigned)."""
    value: ColumnValue = None


@dataclasses.dataclass(slots=True)
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


@dataclasses.dataclass(slots=True)
class DdlEvent:
    """A schema change; ``ddl_type`` is TiDB's ``model.ActionType`` (3 = CREATE TABLE)."""

    commit_ts: int
    schema: str | None = None
    table: str | None = None
    ddl_type: int = 0
    query: str = ""

    op = "ddl"


@dataclasses.dataclass(slots=True)
class ResolvedEvent:
    """A watermark: every change with a smaller commit ts has been sent."""

    commit_ts: int

    op = "resolved"


Event = RowChangedEvent | DdlEvent | ResolvedEvent


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


_INT64_MAX = 2**63 - 1
VALUE_KINDS = ("int", "uint", "float", "bytes", "text")
"""The fields of a cell's ``value`` struct, in schema order; a value fills exactly one."""


def _value_kind(column: Column) -> int | None:
    """The index in :data:`VALUE_KINDS` of the field that holds ``column.value`` (None: NULL).

    An int is ``uint`` when the column is unsigned or the value does not fit int64."""
    v = column.value
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float, bytes, str)):
        raise TypeError(f"column {column.name!r}: unsupported value {v!r}")
    if isinstance(v, int):
        return 1 if column.flags & FLAG_UNSIGNED or v > _INT64_MAX else 0
    if isinstance(v, float):
        return 2
    return 3 if isinstance(v, bytes) else 4


def _value_row(column: Column):
    kind = _value_kind(column)
    if kind is None:
        return None
    row = [None] * 5
    row[kind] = Decimal(column.value) if kind == 1 else column.value
    return tuple(row)


def _image_row(columns):
    if columns is None:
        return None
    return [(c.name, c.type, c.flags, _value_row(c)) for c in columns]


def to_row(event: Event) -> tuple:
    """One event as a tuple in the order of :func:`spark_schema`."""
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


_EVENT_ATTRS = {
    "_op": ("op", None),
    "_commit_ts": ("commit_ts", None),
    "partition": ("partition", None),
    "schema": ("schema", None),
    "table": ("table", None),
    "row_id": ("row_id", None),
    "handle_key_only": ("handle_key_only", False),
    "claim_check_location": ("claim_check_location", None),
    "new": ("new", None),
    "old": ("old", None),
    "ddl_type": ("ddl_type", None),
    "ddl_query": ("query", None),
}
"""Schema field -> (event attribute, value when the event kind has no such attribute): what
:func:`to_row` puts in each field, e.g. a DDL event has no ``row_id`` (None) and no
``handle_key_only`` (False), a row change no ``query``."""


_ROW_ATTRS = frozenset(f.name for f in dataclasses.fields(RowChangedEvent)) | {"op"}


def arrow_columns(events, fields) -> list:
    """The Arrow arrays of ``[to_row(e) for e in events]`` for the schema ``fields`` named
    (``pyarrow.Field`` s of :func:`spark_schema` as pyspark converts it), built column by
    column: equal to ``pa.array(column, field.type)`` of those rows, without the per-event
    tuples (the Spark decoder's hot path; :func:`to_row` stays the definition)."""
    import operator

    import pyarrow as pa

    uniform = all(type(e) is RowChangedEvent for e in events)
    out = []
    for field in fields:
        attr, missing = _EVENT_ATTRS[field.name]
        if uniform and attr in _ROW_ATTRS:  # the usual batch: row changes only
            values = list(map(operator.attrgetter(attr), events))
        else:
            values = [getattr(e, attr, missing) for e in events]
        if field.name in ("new", "old"):
            out.append(_image_array(values, field.type))
        else:
            out.append(pa.array(values, field.type))
    return out


def _image_array(images, list_type):
    """The ``new``/``old`` column: a list array of cell structs from flat child arrays."""
    import itertools
    from operator import attrgetter

    import pyarrow as pa

    absent = [image is None for image in images]
    present = [image for image in images if image is not None]
    offsets = [0, *itertools.accumulate(0 if image is None else len(image) for image in images)]
    cells = list(itertools.chain.from_iterable(present))
    n = len(cells)
    kinds = [[None] * n for _ in VALUE_KINDS]
    ints, uints, _, blobs, texts = kinds
    null = [False] * n
    for i, c, v in zip(range(n), cells, map(attrgetter("value"), cells)):
        t = type(v)
        if t is bytes:
            blobs[i] = v
        elif t is int:
            if c.flags & FLAG_UNSIGNED or v > _INT64_MAX:
                uints[i] = v
            else:
                ints[i] = v
        elif t is str:
            texts[i] = v
        elif v is None:
            null[i] = True
        else:  # floats and subclasses: as to_row files them
            kinds[_value_kind(c)][i] = v
    cell_type = list_type.value_type
    value_type = cell_type.field("value").type
    value = pa.StructArray.from_arrays(
        [pa.array(k, f.type) for k, f in zip(kinds, value_type)],
        fields=list(value_type),
        mask=pa.array(null, pa.bool_()),
    )
    cell = pa.StructArray.from_arrays(
        [
            pa.array(list(map(attrgetter("name"), cells)), cell_type.field("name").type),
            pa.array(list(map(attrgetter("type"), cells)), cell_type.field("type").type),
            pa.array(list(map(attrgetter("flags"), cells)), cell_type.field("flags").type),
            value,
        ],
        fields=list(cell_type),
    )
    return pa.ListArray.from_arrays(
        pa.array(offsets, pa.int32()), cell, type=list_type, mask=pa.array(absent, pa.bool_())
    )
