"""from_wirespec in ``select`` and in SQL gives decode()'s rows; empty records are counted."""

from __future__ import annotations

import struct

import pytest
from pyspark.sql import functions as F
from spark_cases import CASES, normal
from test_spark_decode import _corrupt, kafka_df

from runtime.core.errors import OptionError
from runtime.spark import decode, from_wirespec, register
from runtime.spark.decode import codec

pytestmark = pytest.mark.spark

EMPTY_OP = (struct.pack(">Q", 1), b"")
"""An Open Protocol key/value pair of zero events: the version header, then nothing."""


def decoded_rows(df, fmt, extra=()):
    """(id, index, decoded fields..., *extra) sorted: the comparable form of every form."""
    names = codec(fmt).schema().names
    rows = df.select("id", "_event_index", *names, *extra).collect()
    return sorted((normal(tuple(r)) for r in rows), key=repr)


def select_rows(df, fmt, options, key=None):
    """``from_wirespec`` in ``select``, exploded (outer: null and empty keep a row)."""
    col = from_wirespec("value", fmt, options, key=key)
    if codec(fmt).one_row:
        out = df.select("id", F.when(col.isNotNull(), 0).alias("_event_index"), col.alias("d"))
    else:
        out = df.select("id", F.posexplode_outer(col).alias("_event_index", "d"))
    return out.select("id", "_event_index", "d.*")


@pytest.mark.parametrize(
    "fmt", ["plainbuffer", "thrift_compact", "ticdc_craft", "ticdc_open_protocol"]
)
def test_from_wirespec_in_select_and_sql_gives_decodes_rows_in_both_modes(spark, fmt):
    register(spark)
    messages = _corrupt(CASES[fmt][0](), seed=3)
    keyed = codec(fmt).needs_key
    if keyed:
        messages.append(EMPTY_OP)
    df = kafka_df(spark, messages)
    key = "key" if keyed else None
    permissive = {"mode": "PERMISSIVE"}

    # PERMISSIVE: select gives null for a bad record, SQL the corrupt row decode() gives
    want = decoded_rows(decode(df, fmt, mode="PERMISSIVE"), fmt, ("_corrupt_record", "_error"))
    assert any(r[-1] is not None for r in want) and any(r[-1] is None for r in want)
    width = len(codec(fmt).schema().names)
    assert decoded_rows(select_rows(df, fmt, permissive, key), fmt) == sorted(
        (r[:-2] for r in want), key=repr
    )
    df.createOrReplaceTempView("kafka")
    key_arg = ", k.key" if keyed else ""
    args = f"k.value, '{fmt}', map('mode', 'PERMISSIVE'){key_arg}"
    sql = spark.sql(f"SELECT k.id, d.* FROM kafka k, LATERAL from_wirespec({args}) d")
    assert decoded_rows(sql, fmt, ("_corrupt_record", "_error")) == want
    assert len(sql.columns) == 2 + width + 2

    # FAILFAST (the default): the same rows for good records; a bad one fails the query
    good = [m for i, m in enumerate(messages) if all(r[0] != i or r[-1] is None for r in want)]
    good_df = kafka_df(spark, good)
    want = decoded_rows(decode(good_df, fmt), fmt)
    assert decoded_rows(select_rows(good_df, fmt, None, key), fmt) == want
    good_df.createOrReplaceTempView("kafka_good")
    args = f"k.value, '{fmt}', map(){key_arg}" if keyed else f"k.value, '{fmt}'"
    sql = spark.sql(f"SELECT k.id, d.* FROM kafka_good k, LATERAL from_wirespec({args}) d")
    assert decoded_rows(sql, fmt) == want
    with pytest.raises(Exception, match="cannot decode"):
        df.select(from_wirespec("value", fmt, key=key)).collect()


def test_from_wirespec_struct_for_one_row_formats_array_otherwise(spark):
    assert codec("thrift_compact").one_row and not codec("plainbuffer").one_row
    df = kafka_df(spark, CASES["thrift_compact"][0]()[:1])
    assert from_wirespec("value", "thrift_compact") is not None
    types = df.select(from_wirespec("value", "thrift_compact").alias("m")).schema["m"]
    assert types.dataType.typeName() == "struct"
    types = df.select(from_wirespec("value", "plainbuffer").alias("m")).schema["m"]
    assert types.dataType.typeName() == "array"
    with pytest.raises(OptionError, match="mode must be one of"):
        from_wirespec("value", "plainbuffer", {"mode": "LENIENT"})
    with pytest.raises(OptionError, match="max_count must be at least 1"):
        from_wirespec("value", "plainbuffer", {"max_count": "0"})
    with pytest.raises(OptionError, match="unknown option"):
        from_wirespec("value", "plainbuffer", {"maxCount": "5"})
    with pytest.raises(OptionError, match="needs the message key"):
        from_wirespec("value", "ticdc_open_protocol")


@pytest.mark.parametrize("mode", ["FAILFAST", "PERMISSIVE"])
def test_an_empty_record_is_one_row_that_says_so(spark, mode):
    vectors = CASES["ticdc_open_protocol"][0]()
    assert codec("ticdc_open_protocol").rows(*EMPTY_OP) == []
    messages = [vectors[0], EMPTY_OP, vectors[1]]
    out = decode(kafka_df(spark, messages), "ticdc_open_protocol", mode=mode)
    rows = out.select("id", "_event_index", "_op", "offset").collect()
    assert {r.id for r in rows} == {0, 1, 2}  # input records = distinct records of the output
    empty = [r for r in rows if r.id == 1]
    assert [(r._event_index, r._op, r.offset) for r in empty] == [(None, None, 1001)]
    assert all(r._event_index is not None for r in rows if r.id != 1)
    if mode == "PERMISSIVE":
        assert out.where("id = 1").select("_corrupt_record", "_error").first() == (None, None)


def test_decode_takes_every_limit_and_refuses_bad_options(spark):
    df = kafka_df(spark, CASES["plainbuffer"][0]())
    out = decode(df, "plainbuffer", mode="PERMISSIVE", max_count=1)  # 2 primary-key cells each
    errors = [r._error for r in out.select("_error").collect()]
    assert len(errors) == 2 and all("exceeds the limit max_count=1" in e for e in errors)
    assert decode(df, "plainbuffer", max_string=1 << 20, max_depth=8).count() == 3
    for bad, match in [
        ({"max_count": "many"}, "max_count must be a whole number"),
        ({"max_depth": 0}, "max_depth must be at least 1"),
        ({"maxcount": 5}, "unknown option"),
        ({"mode": "LENIENT"}, "mode must be one of"),
    ]:
        with pytest.raises(OptionError, match=match):
            decode(df, "plainbuffer", **bad)
