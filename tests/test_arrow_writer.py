"""The compiled Arrow writer (runtime/_compiled/arrow.pyx) against today's rows: for every
format with ``SPARK_COLUMNS``, the Arrow it writes from models ``.equals`` the Arrow that
``pa.array`` makes from ``to_rows``, or both ways fail; and :class:`BatchDecoder` gives
the same batches, corrupt records and counts with it as without it."""

from __future__ import annotations

import dataclasses
import json
import struct
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyspark.sql.pandas.types import to_arrow_schema

from runtime.core import tier
from runtime.core.errors import WirespecError
from runtime.spark.decode import (
    RECORD_ERRORS,
    BatchDecoder,
    RecordDecodeError,
    codec,
    load_module,
    output_schema,
)

arrow = tier.compiled("runtime._compiled.arrow")
pytestmark = pytest.mark.skipif(arrow is None, reason="runtime._compiled.arrow is not built")

ROOT = Path(__file__).resolve().parent.parent
FORMATS = ("plainbuffer", "mysql_serialization", "ticdc_craft", "ticdc_open_protocol")


def written_records():
    """(format, record) of every record whose rows the writer writes."""
    out = []
    for fmt in FORMATS:
        mod = load_module(fmt)
        for record in mod.RECORDS:
            row_record = mod._SPARK_ROWS.get(record, (None, record))[1]
            if row_record in mod.SPARK_COLUMNS and record not in getattr(
                mod, "_MESSAGE_RECORDS", ()
            ):
                out.append((fmt, record))
    return out


RECORDS = written_records()


def drawn(fmt, record) -> bool:
    """Whether the format's ``strategies`` draws ``record`` on its own."""
    table = getattr(load_module(fmt), "_STRATEGY_RECORDS", {}).get(record, {})
    return not table.get("needs_parent") and not table.get("no_strategy")


def same(got, want) -> bool:
    """``.equals``, where a NaN equals a NaN of the same bits (Arrow's equals says never)."""
    return got.equals(want) or (
        got.type == want.type and bits(got.to_pylist()) == bits(want.to_pylist())
    )


def bits(value):
    if isinstance(value, float):
        return struct.pack("<d", value)
    if isinstance(value, list):
        return [bits(v) for v in value]
    if isinstance(value, dict):
        return {k: bits(v) for k, v in value.items()}
    return value


def arrow_fields(fmt, record):
    return list(to_arrow_schema(load_module(fmt).spark_schema(record), timezone="UTC"))


def python_arrays(fmt, record, models):
    """Today's way: the row tuples of ``to_rows``, then ``pa.array`` per column."""
    mod, fields = load_module(fmt), arrow_fields(fmt, record)
    rows = [row for model in models for row in mod.to_rows(model, record)]
    columns = list(zip(*rows)) if rows else [[]] * len(fields)
    return [pa.array(c, f.type) for c, f in zip(columns, fields)]


def written_arrays(fmt, record, models, writer=None):
    mod = load_module(fmt)
    row_field, row_record = mod._SPARK_ROWS.get(record, (None, record))
    writer = writer or arrow.RowWriter(mod.SPARK_COLUMNS, row_record, arrow_fields(fmt, record))
    for model in models:
        writer.append(model) if row_field is None else writer.extend(model[row_field])
    return writer.finish()


def check_same(fmt, record, models):
    """Equal Arrow, or both ways raise."""
    try:
        want = python_arrays(fmt, record, models)
    except Exception:  # noqa: BLE001 - whatever today's way raises, the writer must not pass
        with pytest.raises(Exception):  # noqa: B017
            written_arrays(fmt, record, models)
        return
    got = written_arrays(fmt, record, models)
    for name, g, w in zip([f.name for f in arrow_fields(fmt, record)], got, want):
        assert same(g, w), (fmt, record, name, g.to_pylist(), w.to_pylist())
        g.validate(full=True)


def parsed(fmt, record, data: bytes):
    try:
        return load_module(fmt).parse(data, record)
    except RECORD_ERRORS:
        return None


def sample_inputs(fmt):
    folder = ROOT / "samples" / fmt
    return [p.read_bytes() for p in sorted(folder.glob("*")) if p.suffix != ".py"]


def vector_inputs(fmt):
    path = ROOT / "tests" / "data" / "vectors" / f"{fmt}.json"
    if not path.exists():
        return []
    data = json.loads(path.read_text())
    vectors = data["vectors"] if isinstance(data, dict) else data
    out = []
    for v in vectors:
        hexes = v["hex"].values() if isinstance(v["hex"], dict) else [v["hex"]]
        out += [bytes.fromhex(h) for h in hexes if h is not None]
    return out


@pytest.mark.parametrize("fmt,record", RECORDS)
def test_samples_and_vectors_write_the_arrow_of_to_rows(fmt, record):
    models = [parsed(fmt, record, d) for d in sample_inputs(fmt) + vector_inputs(fmt)]
    models = [m for m in models if m is not None]
    for model in models:
        check_same(fmt, record, [model])
    good = []  # and all of them in one batch, the ones today's way takes
    for model in models:
        try:
            python_arrays(fmt, record, [model])
            good.append(model)
        except Exception:  # noqa: BLE001, S112 - checked one by one above
            continue
    check_same(fmt, record, good)


def test_every_format_with_spark_columns_is_covered():
    assert {f for f, _ in RECORDS} == set(FORMATS)
    assert ("plainbuffer", "message") in RECORDS
    assert ("mysql_serialization", "binlog_file") in RECORDS


@pytest.mark.parametrize("fmt,record", [(f, r) for f, r in RECORDS if drawn(f, r)])
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_generated_models_write_the_arrow_of_to_rows(fmt, record, data):
    models = data.draw(st.lists(load_module(fmt).strategies(record), max_size=3))
    check_same(fmt, record, models)


def pb_cell(name, kind, value, op=None, timestamp=None):
    mod = load_module("plainbuffer")
    return mod.Cell(
        name=name, value=mod.CellValue(type=kind, value=value), op=op, timestamp=timestamp
    )


def test_plainbuffer_nulls_empty_lists_and_every_value_type():
    mod = load_module("plainbuffer")
    T = mod.ValueType
    cells = [
        pb_cell("i", T.INTEGER, -(2**63)),
        pb_cell("d", T.DOUBLE, 1.5, op=mod.CellOp.DELETE_ONE_VERSION, timestamp=7),
        pb_cell("b", T.BOOLEAN, True),
        pb_cell("s", T.STRING, "naïve ✓"),
        pb_cell("x", T.BLOB, b"\x00\xff"),
        pb_cell("inf", T.INF_MAX, None),
        dataclasses.replace(pb_cell("no value", T.INTEGER, 0), value=None),
    ]
    rows = [
        mod.Row(primary_key=cells[:1], attributes=cells, delete_marker=False),
        mod.Row(primary_key=[], attributes=[], delete_marker=True),
        mod.Row(primary_key=cells[5:], attributes=[], delete_marker=False),
    ]
    check_same("plainbuffer", "message", [mod.Message(rows=rows), mod.Message(rows=[])])
    check_same("plainbuffer", "row", rows)


def test_an_enum_field_holding_an_unknown_code_fails_both_ways():
    mod = load_module("plainbuffer")
    bad = pb_cell("a", mod.ValueType.INTEGER, 1, op=5)  # a plain int has no enum name
    with pytest.raises(AttributeError):
        python_arrays("plainbuffer", "cell", [bad])
    check_same("plainbuffer", "cell", [bad])
    unknown = pb_cell("a", 99, b"?")  # a selector no case has: every case column null
    check_same("plainbuffer", "cell", [unknown])


def gtid_event(**changes):
    mod = load_module("mysql_serialization")
    model = mod.parse(
        (ROOT / "samples/mysql_serialization/gtid_tagged_local.bin").read_bytes(),
        "gtid_tagged_event",
    )
    return dataclasses.replace(model, body=dataclasses.replace(model.body, **changes))


@pytest.mark.parametrize(
    "micros", [0, 1, -1, 2**63 - 1, 2**63, 2**64 - 1, 253402300799999999, 253402300800000000]
)
def test_logical_times_out_of_range_are_nulls_as_today(micros):
    model = gtid_event(immediate_commit_timestamp=micros, original_commit_timestamp=micros)
    check_same("mysql_serialization", "gtid_tagged_event", [model])


def test_a_uuid_of_the_wrong_length_fails_both_ways():
    model = gtid_event(uuid=list(range(15)))
    with pytest.raises(ValueError):
        python_arrays("mysql_serialization", "gtid_tagged_event", [model])
    check_same("mysql_serialization", "gtid_tagged_event", [model])


def test_integers_out_of_their_column_fail_both_ways():
    mod = load_module("plainbuffer")
    check_same("plainbuffer", "cell", [pb_cell("a", mod.ValueType.INTEGER, 2**63)])
    check_same("plainbuffer", "cell", [pb_cell("a", mod.ValueType.INTEGER, 1, timestamp=2**64)])


def test_a_writer_is_empty_again_after_finish_and_reset():
    mod = load_module("plainbuffer")
    fields = arrow_fields("plainbuffer", "cell")
    writer = arrow.RowWriter(mod.SPARK_COLUMNS, "cell", fields)
    cells = [pb_cell("a", mod.ValueType.STRING, "x"), pb_cell("b", mod.ValueType.BLOB, b"y")]
    first = written_arrays("plainbuffer", "cell", cells, writer)
    writer.append(cells[0])
    with pytest.raises(OverflowError):
        writer.append(pb_cell("a", mod.ValueType.INTEGER, 2**64))
    writer.reset()
    again = written_arrays("plainbuffer", "cell", cells, writer)
    assert all(a.equals(b) for a, b in zip(first, again))


def test_a_value_its_column_does_not_take_raises_from_the_python_facing_appends():
    """What a compiled reader declines (the builders' REFUSED), ``Builder.append`` (Spark's
    rows made the Python way) raises as OverflowError, nothing of the value written: text
    with no UTF-8 form (a lone surrogate, as a JSON escape can make), an int past its
    column."""
    for arrow_type, good, bad in (
        (pa.string(), "a", "\ud800"),
        (pa.int8(), -128, 128),
        (pa.int64(), 1, -(2**63) - 1),
    ):
        builder = arrow.builder_for(arrow_type)
        builder.append(good)
        with pytest.raises(OverflowError):
            builder.append(bad)
        assert builder.finish().to_pylist() == [good]


def test_a_table_that_disagrees_with_the_arrow_schema_is_refused():
    mod = load_module("plainbuffer")
    fields = arrow_fields("plainbuffer", "cell")
    with pytest.raises(TypeError):
        arrow.RowWriter(mod.SPARK_COLUMNS, "cell", [pa.field("name", pa.int64())])
    with pytest.raises(TypeError):
        arrow.RowWriter(mod.SPARK_COLUMNS, "row", fields)


# -- BatchDecoder: the same batches with the writer as without it ----------------------


def decoders(
    fmt,
    mode,
    record=None,
    passthrough=("topic", "offset"),
    index_col="_i",
    limits=None,
    columns=None,
):
    c = codec(fmt, record, limits, columns)
    from pyspark.sql.types import BinaryType, LongType, StringType, StructField, StructType

    spark_in = StructType(
        [
            StructField("value", BinaryType()),
            StructField("topic", StringType()),
            StructField("offset", LongType()),
        ]
    )
    out_schema, renames = output_schema(spark_in, c, mode, ["value"], index_col)
    args = {"mode": mode, "passthrough": list(renames), "index_col": index_col}
    written, python = BatchDecoder(c, out_schema, **args), BatchDecoder(c, out_schema, **args)
    written.reader = None  # the writer from models (tests/test_arrow_reader.py: from bytes)
    python.arrow = python.reader = None
    return written, python


def input_batch(values):
    return pa.RecordBatch.from_arrays(
        [
            pa.array(values, pa.binary()),
            pa.array([f"t{i % 2}" for i in range(len(values))], pa.string()),
            pa.array(range(len(values)), pa.int64()),
        ],
        names=["value", "topic", "offset"],
    )


def pb_messages():
    samples = sample_inputs("plainbuffer")
    return samples + [b"", samples[0][:-3], b"\x75\x00\x00\x00", samples[1]]


@pytest.mark.parametrize("mode", ["PERMISSIVE", "FAILFAST"])
@pytest.mark.parametrize("fmt", ["plainbuffer", "mysql_serialization"])
def test_batch_decoder_gives_the_same_batches_with_the_writer(fmt, mode):
    written, python = decoders(fmt, mode)
    assert written.arrow is not None
    values = pb_messages() if fmt == "plainbuffer" else sample_inputs(fmt) + [b"\x00" * 9]
    batches = [values, [v for v in values if parsed_ok(fmt, v)], []]
    for batch in batches:
        if mode == "FAILFAST" and not all(parsed_ok(fmt, v) for v in batch):
            with pytest.raises(RecordDecodeError) as failed:
                written.decode(input_batch(batch))
            with pytest.raises(RecordDecodeError) as too:
                python.decode(input_batch(batch))
            assert str(failed.value) == str(too.value)
            continue
        got, want = written.decode(input_batch(batch)), python.decode(input_batch(batch))
        assert got.schema == want.schema
        assert got.equals(want), (got.to_pylist(), want.to_pylist())
    assert written.stats == python.stats


def test_the_writers_loop_hands_back_nulls_bad_records_and_errors_found_before():
    """The writer's own loop stops at a null value, at a record whose parse raises and at
    the rows of ``errors`` (a frame cut short, found before decoding), and goes on after
    each: the batch is the Python way's, row for row."""
    written, python = decoders("plainbuffer", "PERMISSIVE")
    good, bad = sample_inputs("plainbuffer")[1], sample_inputs("plainbuffer")[0][:-3]
    values = [None, good, bad, good, None, good, good, bad]
    for errors in (None, {0: WirespecError("cut")}, {3: WirespecError("cut"), 7: ValueError()}):
        got = written.decode(input_batch(values), dict(errors or {}))
        want = python.decode(input_batch(values), dict(errors or {}))
        assert got.equals(want), (got.to_pylist(), want.to_pylist())
    assert written.stats == python.stats


def test_a_refused_model_after_a_bad_record_keeps_the_rows_before(monkeypatch):
    mod = load_module("mysql_serialization")
    good = gtid_event()
    models = {b"g": good, b"b": gtid_event(uuid=list(range(15)))}

    def parse(data, record, **limits):
        if data == b"x":
            raise WirespecError("no such event")
        return models[data]

    monkeypatch.setattr(mod, "parse", parse)
    written, python = decoders("mysql_serialization", "PERMISSIVE", "gtid_tagged_event")
    batch = input_batch([b"g", b"x", b"g", b"b", b"g", b"x"])
    got, want = written.decode(batch), python.decode(batch)
    assert got.equals(want)
    assert got.column("_corrupt_record").to_pylist() == [None, b"x", None, b"b", None, b"x"]
    assert written.stats == python.stats == {"records": 6, "rows": 3, "corrupt": 3}


def parsed_ok(fmt, value):
    try:
        codec(fmt).model(None, value)
    except (WirespecError, ValueError, UnicodeError):
        return False
    return True


def test_a_model_the_writer_refuses_sends_the_batch_the_python_way(monkeypatch):
    """A model the writer raises on (a uuid of 15 bytes) midway: the records before it are
    made again as rows, and the bad one is a corrupt record as today, with its error."""
    mod = load_module("mysql_serialization")
    good = gtid_event()
    bad = gtid_event(uuid=list(range(15)))
    models = {b"g": good, b"b": bad}
    monkeypatch.setattr(mod, "parse", lambda data, record, **limits: models[data])
    written, python = decoders("mysql_serialization", "PERMISSIVE", "gtid_tagged_event")
    batch = input_batch([b"g", b"g", b"b", b"g"])
    got, want = written.decode(batch), python.decode(batch)
    assert got.equals(want)
    assert got.column("_corrupt_record").to_pylist() == [None, None, b"b", None]
    assert "16-char" in got.column("_error")[2].as_py()
    assert written.stats == python.stats == {"records": 4, "rows": 3, "corrupt": 1}
    again = written.decode(input_batch([b"g"]))  # the next batch uses the writer again
    assert again.equals(python.decode(input_batch([b"g"])))


@pytest.mark.parametrize("mode", ["PERMISSIVE", "FAILFAST"])
def test_empty_records_are_one_null_row_with_the_writer_too(monkeypatch, mode):
    mod = load_module("plainbuffer")
    full = mod.parse(sample_inputs("plainbuffer")[1])
    models = {b"e": mod.Message(rows=[]), b"f": full}
    monkeypatch.setattr(mod, "parse", lambda data, record, **limits: models[data])
    written, python = decoders("plainbuffer", mode)
    for values in ([b"e"], [b"f", b"e", b"f", b"e"], [b"e", b"e"]):
        got, want = written.decode(input_batch(values)), python.decode(input_batch(values))
        assert got.equals(want)
    assert got.column("_i").to_pylist() == [None, None]
    assert written.stats == python.stats


def test_formats_without_tables_keep_the_python_way():
    craft_events = codec("ticdc_craft")  # TiCDC events: their own columnar path
    assert craft_events.arrow_writer([]) is None
    key_and_value = codec("ticdc_open_protocol")
    assert key_and_value.arrow_writer([]) is None


@pytest.mark.spark
def test_decode_in_spark_writes_through_the_compiled_writer(spark):
    """End to end: decode() of PlainBuffer messages in Spark's Python workers, with the
    writer there, gives the rows of the pure-Python parse."""
    from spark_cases import normal

    from runtime.spark import decode

    values = pb_messages()
    df = spark.createDataFrame([(i, v) for i, v in enumerate(values)], "id long, value binary")
    out = decode(df, "plainbuffer", mode="PERMISSIVE", index_col="_i")
    c = codec("plainbuffer")
    names = c.schema().names
    rows = out.select("id", "_i", "_corrupt_record", *names).collect()
    got = sorted((r[0], r[1], r[2] is not None, normal(tuple(r[3:]))) for r in rows)
    want = []
    for i, v in enumerate(values):
        try:
            decoded = c.rows(None, v)
        except (WirespecError, ValueError):
            want.append((i, None, True, normal((None,) * len(names))))
            continue
        want += [(i, j, False, normal(r)) for j, r in enumerate(decoded)]
        want += [] if decoded else [(i, None, False, normal((None,) * len(names)))]
    assert got == sorted(want)

    def writer_in_worker(batches):
        for _ in batches:
            pass
        fields = list(to_arrow_schema(c.schema(), timezone="UTC"))
        on = c.arrow_writer(fields) is not None and c.arrow_reader(fields) is not None
        yield pa.RecordBatch.from_pydict({"on": [on]})

    # the worker has the writer, and the compiled reader straight into Arrow (which decode()
    # above used: tests/test_arrow_reader.py holds it equal to the Python way)
    assert spark.range(1).mapInArrow(writer_in_worker, "on boolean").collect()[0].on
