"""runtime.formats.ticdc_rows.arrow_columns: the Spark decoder's column-wise build equals to_row."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from spark_cases import _cdc_event

from generated.models.ticdc_types import Column, DdlEvent, ResolvedEvent, RowChangedEvent
from runtime.formats.ticdc_rows import arrow_columns, spark_schema, to_row

pa = pytest.importorskip("pyarrow")


def _fields():
    from pyspark.sql.pandas.types import to_arrow_schema

    return list(to_arrow_schema(spark_schema(), timezone="UTC"))


def _same(a, b):
    """Equal, with NaN equal to itself (a float cell may hold NaN)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def check(events, fields=None):
    fields = fields or _fields()
    got = arrow_columns(events, fields)
    rows = [to_row(e) for e in events]
    names = [f.name for f in _fields()]
    for field, array in zip(fields, got):
        array.validate(full=True)
        want = pa.array([r[names.index(field.name)] for r in rows], field.type)
        assert array.type == want.type, field.name
        assert _same(array.to_pylist(), want.to_pylist()), field.name


class _Int(int):
    pass


def test_every_value_kind_and_event_kind():
    check(
        [
            RowChangedEvent(
                5,
                "s",
                "t",
                partition=3,
                new=[
                    Column("u", 8, 0x80, 2**64 - 1),
                    Column("big", 8, 0, 2**63),  # beyond int64 without the flag: uint
                    Column("i", 3, 0, -(2**63)),
                    Column("f", 5, 0, float("nan")),
                    Column("z", 5, 0, -0.0),
                    Column("b", 15, 1, b""),
                    Column("s", 12, 0, ""),
                    Column("n", 3, 0, None),
                    Column("sub", 3, 0, _Int(3)),
                    Column("usub", 3, 0x80, _Int(3)),
                ],
                old=[],
            ),
            DdlEvent(7, "s", "t", 3, "CREATE TABLE t (a INT)"),
            ResolvedEvent(2**64 - 1),
            RowChangedEvent(
                6,
                None,
                None,
                old=[Column("a", 8, 0, 1)],
                row_id=4,
                handle_key_only=True,
                claim_check_location="s3://x",
            ),
        ]
    )


def test_a_projection_builds_only_the_named_fields():
    fields = [f for f in _fields() if f.name in ("_op", "_commit_ts", "table", "new")]
    check([RowChangedEvent(1, "s", "t", new=[Column("a", 3, 0, 1)]), ResolvedEvent(2)], fields)


def test_no_events_and_unsupported_values():
    check([])
    with pytest.raises(TypeError, match="unsupported value True"):
        arrow_columns([RowChangedEvent(1, new=[Column("x", 1, 0, True)])], _fields())


@settings(max_examples=60, deadline=None)
@given(st.lists(_cdc_event(), max_size=12))
def test_random_events(events):
    check(events)


@pytest.mark.parametrize("mode", ["PERMISSIVE", "FAILFAST"])
def test_an_event_the_table_cannot_hold_is_one_corrupt_record(mode):
    """A DDL type past the table's int32, or column flags past its int64, decode (the model's
    ranges are wider) but no Spark row holds them: that message is a corrupt record naming
    the column, the others' rows are written, and the batch never fails with pyarrow's error."""
    from pyspark.sql.types import BinaryType, StructField, StructType
    from spark_cases import craft_encode

    from runtime.spark.decode import BatchDecoder, RecordDecodeError, codec, output_schema

    good = RowChangedEvent(5, "s", "t", new=[Column("a", 3, 0, 1)])
    messages = [
        craft_encode([good])[0],
        craft_encode([DdlEvent(6, "s", "t", ddl_type=2**40, query="q")])[0],
        craft_encode([RowChangedEvent(7, "s", "t", new=[Column("a", 3, 2**63, 1)])])[0],
        craft_encode([good, good])[0],
    ]
    c = codec("ticdc_craft", None, None, None)
    spark_in = StructType([StructField("value", BinaryType())])
    out_schema, _ = output_schema(spark_in, c, mode, ["value"])
    batch = pa.RecordBatch.from_arrays([pa.array(messages, pa.binary())], names=["value"])
    decoder = BatchDecoder(c, out_schema, mode=mode)
    if mode == "FAILFAST":
        with pytest.raises(
            RecordDecodeError, match="field ddl_type: the Spark column does not hold"
        ):
            decoder.decode(batch)
        return
    out = decoder.decode(batch).to_pydict()
    assert out["_commit_ts"] == [5, None, None, 5, 5]
    assert out["_error"][0] is None
    assert out["_error"][1].startswith("ddl_type at offset ?: the Spark column does not hold a")
    assert out["_error"][2].startswith("new at offset ?: the Spark column does not hold a value")
    assert out["_corrupt_record"][1:3] == messages[1:3]
    assert decoder.stats == {"records": 4, "rows": 3, "corrupt": 2}
