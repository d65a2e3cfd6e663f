"""runtime.spark.decode on a real local SparkSession: every format, both modes."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from spark_cases import CASES, normal, output_fields

from runtime.core.errors import WirespecError
from runtime.spark import decode
from runtime.spark.decode import codec, load_module

pytestmark = pytest.mark.spark

KAFKA = "id long, key binary, value binary, topic string, partition int, offset long"


def kafka_df(spark, messages, topic="t"):
    """The messages as a Kafka-shaped DataFrame: a local relation, which the session's
    ``local[2]`` scans as two partitions (no shuffle needed to get more than one)."""
    rows = [(i, k, v, topic, i % 3, 1000 + i) for i, (k, v) in enumerate(messages)]
    return spark.createDataFrame(rows, KAFKA)


def expected_rows(fmt, messages):
    """(id, index, row) of the pure-Python parse, or (id, None, error) for bad bytes."""
    c = codec(fmt)
    out = []
    for i, (k, v) in enumerate(messages):
        try:
            rows = c.rows(k, v)
        except WirespecError as err:
            out.append((i, None, err))
            continue
        out.extend((i, j, normal(r)) for j, r in enumerate(rows))
    return out


def check_same_as_python(spark, fmt, messages):
    """One Spark job: ``decode`` (FAILFAST) equals the pure-Python parse, row for row,
    with the generated schema and the Kafka metadata passed through."""
    out = decode(kafka_df(spark, messages), fmt, index_col="_i")
    decoded = [f for f in out.schema.fields if f.name in codec(fmt).schema().names]
    assert decoded == output_fields(codec(fmt).schema())  # the generated types, nullable
    assert {"topic", "partition", "offset"} <= set(out.columns)  # metadata passes through
    want = [e for e in expected_rows(fmt, messages)]
    assert all(e[1] is not None for e in want), "vectors must be valid"
    assert want, "nothing to compare"
    names = codec(fmt).schema().names
    rows = out.select("id", "_i", "offset", *names).collect()
    assert sorted((r[0], r[1], normal(tuple(r[3:]))) for r in rows) == sorted(want)
    assert all(r.offset == 1000 + r.id for r in rows)
    return rows


PROPERTY_EXAMPLES = 8
"""Hypothesis examples per format; all of them are decoded in one Spark job."""


def property_messages(fmt):
    """Messages of ``PROPERTY_EXAMPLES`` examples of the format's strategy (drawn without
    Spark, so the examples cost no Spark job each)."""
    drawn = []

    @settings(
        max_examples=PROPERTY_EXAMPLES,
        phases=[Phase.generate],  # no shrinking: the examples are checked together
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(messages=CASES[fmt][1])
    def draw(messages):
        drawn.extend(messages)

    draw()
    return drawn


@pytest.mark.parametrize("fmt", list(CASES))
def test_vectors_and_property_messages_decode_like_the_python_parse(spark, fmt):
    vectors = CASES[fmt][0]()
    assert vectors
    messages = vectors + property_messages(fmt)
    assert len(messages) >= len(vectors) + PROPERTY_EXAMPLES
    check_same_as_python(spark, fmt, messages)


def _corrupt(messages, seed):
    """The messages with truncated, bit-flipped and garbage records mixed in."""
    rnd = random.Random(seed)
    out = []
    for k, v in messages:
        out.append((k, v))
        if len(v) > 4:
            out.append((k, v[: rnd.randrange(1, len(v))]))  # truncated
            flipped = bytearray(v)
            flipped[-1] ^= 0xFF  # PlainBuffer: the row checksum; others: the last field
            out.append((k, bytes(flipped)))
        out.append((k, bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 40)))))
    return out


@pytest.mark.parametrize("fmt", list(CASES))
def test_permissive_keeps_every_bad_record_with_its_bytes_and_error(spark, fmt):
    corpus = _corrupt(CASES[fmt][0](), seed=7)
    want = expected_rows(fmt, corpus)
    bad = {i for i, j, _ in want if j is None}
    assert len(bad) >= len(corpus) // 3  # the corpus really is mixed
    out = decode(kafka_df(spark, corpus), fmt, mode="PERMISSIVE", index_col="_i")
    names = codec(fmt).schema().names
    rows = out.select("id", "_i", "_corrupt_record", "_error", *names).collect()  # one job
    got_bad = {r.id: r for r in rows if r._corrupt_record is not None}
    good = [r for r in rows if r._corrupt_record is None]
    good_ids = {r.id for r in good}
    # input records = decoded + corrupt (a message may decode to zero rows, e.g. no rows)
    zero_row = {i for i, (k, v) in enumerate(corpus) if i not in bad} - good_ids
    assert len(good_ids) + len(zero_row) + len(got_bad) == len(corpus)
    assert not good_ids & set(got_bad)
    assert set(got_bad) == bad
    for i, _, err in (e for e in want if e[1] is None):
        r = got_bad[i]
        assert r._corrupt_record == corpus[i][1]
        assert r._error and str(err.offset if hasattr(err, "offset") else "") in r._error
        assert r._i is None and all(r[n] is None for n in names)  # decoded fields are null
    assert sorted((r.id, r._i, normal(tuple(r[4:]))) for r in good) == sorted(
        e for e in want if e[1] is not None
    )
    assert all(r._error is None for r in good)


def test_failfast_names_the_kafka_record_and_the_byte_offset(spark):
    vectors = CASES["plainbuffer"][0]()
    messages = vectors + [(None, vectors[0][1][:-3])]
    df = kafka_df(spark, messages, topic="orders")
    bad = len(messages) - 1
    with pytest.raises(Exception) as info:
        decode(df, "plainbuffer").collect()
    text = str(info.value)
    assert f"topic=orders partition={bad % 3} offset={1000 + bad}" in text
    assert "byte offset 186" in text and "rows[0].attributes[3].checksum" in text


def test_clashing_input_columns_are_renamed_not_lost(spark):
    from spark_cases import craft_encode

    from generated.models.ticdc_types import ResolvedEvent

    msgs = [(None, m) for m in craft_encode([ResolvedEvent(5)])]
    out = decode(kafka_df(spark, msgs), "ticdc_craft")
    assert "_input_partition" in out.columns and "partition" in out.columns
    assert out.select("_input_partition", "partition").first() == (0, None)


def test_open_protocol_consumes_the_key_and_rejects_a_missing_key_column(spark):
    assert hasattr(load_module("ticdc_open_protocol"), "parse_kafka")
    df = kafka_df(spark, CASES["ticdc_open_protocol"][0]()[:1])
    assert "key" not in decode(df, "ticdc_open_protocol").columns
    with pytest.raises(ValueError, match="key"):
        decode(df.drop("key"), "ticdc_open_protocol")


def test_unknown_format_and_mode_are_clear(spark):
    df = kafka_df(spark, [(None, b"")])
    with pytest.raises(ValueError, match="unknown format 'nope'; known: .*plainbuffer"):
        decode(df, "nope")
    with pytest.raises(ValueError, match="mode"):
        decode(df, "plainbuffer", mode="DROPMALFORMED")


def test_thrift_body_option_types_the_message_body(spark):
    """``body=STRUCT`` shapes the schema as well as the parse: the body is a struct column."""
    from spark_cases import SAMPLES

    calls = [(None, p.read_bytes()) for p in sorted((SAMPLES / "thrift_compact").glob("*call*"))]
    assert len(calls) >= 2
    c = codec("thrift_compact", None, {"body": "get_user_args"})
    out = decode(kafka_df(spark, calls), "thrift_compact", body="get_user_args")
    assert [f for f in out.schema.fields if f.name in c.schema().names] == output_fields(c.schema())
    rows = out.select("id", *c.schema().names).collect()
    want = [(i, normal(r)) for i, (k, v) in enumerate(calls) for r in c.rows(k, v)]
    assert sorted((r[0], normal(tuple(r[1:]))) for r in rows) == want
    assert {r.body.key.id for r in rows} == {42, None}  # by id and by name


@pytest.mark.parametrize(
    "fmt, columns",
    [("ticdc_craft", ["table", "_op", "_commit_ts"]), ("plainbuffer", ["delete_marker"])],
)
def test_columns_keeps_only_the_named_fields_in_schema_order(spark, fmt, columns):
    messages = CASES[fmt][0]()
    out = decode(kafka_df(spark, messages), fmt, columns=columns, index_col="_i")
    names = [n for n in codec(fmt).schema().names if n in columns]
    # the input's partition column is not renamed: no decoded field clashes with it now
    assert out.columns == ["id", "key", "topic", "partition", "offset", "_i", *names]
    keep = [codec(fmt).schema().names.index(n) for n in names]
    want = sorted(
        (i, j, normal(tuple(r[k] for k in keep))) for i, j, r in expected_rows(fmt, messages)
    )
    rows = out.select("id", "_i", *names).collect()
    assert sorted((r[0], r[1], normal(tuple(r[2:]))) for r in rows) == want
    with pytest.raises(ValueError, match="has no field"):
        decode(kafka_df(spark, messages), fmt, columns=["nope"])
