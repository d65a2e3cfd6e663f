"""TiCDC events as Spark rows: the one table shape both TiCDC codecs land in.

The events are the classes of ``generated.models.ticdc_types`` (declared in
specs/ticdc_types.yaml's ``models:``); this module reads them by attribute only (an event's
``op`` says its kind), so it needs none of them:

    >>> from types import SimpleNamespace as Ev
    >>> to_row(Ev(op="resolved", commit_ts=7))
    ('resolved', Decimal('7'), None, None, None, None, False, None, None, None, None, None)
    >>> cell = Ev(name="id", type=8, flags=FLAG_UNSIGNED, value=2**64 - 1)
    >>> _value_row(cell)
    (None, Decimal('18446744073709551615'), None, None, None)
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal

FLAG_BINARY = 0x01
FLAG_HANDLE_KEY = 0x02
FLAG_UNSIGNED = 0x80
"""The column flags the rows and the change tables read (specs/ticdc_types.yaml ``column_flag``)."""


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


def _value_kind(column) -> int | None:
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


def _value_row(column):
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


def to_row(event) -> tuple:
    """One event as a tuple in the order of :func:`spark_schema`."""
    ts = Decimal(event.commit_ts)
    op = event.op
    if op == "ddl":
        return ("ddl", ts, None, event.schema, event.table, None, False, None, None, None,
                event.ddl_type, event.query)  # fmt: skip
    if op == "resolved":
        return ("resolved", ts, None, None, None, None, False, None, None, None, None, None)
    return (
        op, ts, event.partition, event.schema, event.table, event.row_id,
        event.handle_key_only, event.claim_check_location,
        _image_row(event.new), _image_row(event.old), None, None,
    )  # fmt: skip


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


def arrow_columns(events, fields) -> list:
    """The Arrow arrays of ``[to_row(e) for e in events]`` for the schema ``fields`` named
    (``pyarrow.Field`` s of :func:`spark_schema` as pyspark converts it), built column by
    column: equal to ``pa.array(column, field.type)`` of those rows, without the per-event
    tuples (the Spark decoder's hot path; :func:`to_row` stays the definition)."""
    import operator

    import pyarrow as pa

    kind = type(events[0]) if events else None
    uniform = all(type(e) is kind for e in events)
    attrs = set()
    if uniform and dataclasses.is_dataclass(kind):  # every event has these attributes
        attrs = {f.name for f in dataclasses.fields(kind)} | {"op"}
    out = []
    for field in fields:
        attr, missing = _EVENT_ATTRS[field.name]
        if attr in attrs:  # the usual batch: row changes only (or events of one kind)
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
