"""The compiled tier's Arrow output (``write_arrow`` in ``generated/_compiled/<format>.pyx``,
rendered by generator/emit/compiled_arrow.py): straight from the bytes it writes exactly the Arrow
that ``pa.array`` makes from ``to_rows(parse(x))``, and it takes exactly the inputs the
compiled model reader takes (declining the rest, with its columns as they were before), but
for a value its column does not take, which it declines too (it raises on no input).
Held on every vector, sample, truncation, mutations and generated models; and
:class:`BatchDecoder` gives the same batches, corrupt records and counts with it as the
Python way."""

from __future__ import annotations

import importlib
import re
import struct
import types
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyspark.sql.pandas.types import to_arrow_schema

from benchmarks.python_way import empty_kafka_batch, parent_readers
from generated.models.ticdc_types import Column, RowChangedEvent
from runtime.core import tier
from runtime.core.checksum import crc32c
from runtime.core.errors import WirespecError
from runtime.core.limits import DEFAULT
from runtime.spark.decode import (
    RECORD_ERRORS,
    BatchDecoder,
    RecordDecodeError,
    _arrow_records,
    _arrow_source,
    codec,
    load_module,
    output_schema,
)
from tests.test_craft_codec import events_strategy
from tests.test_fastpath import inputs
from tests.test_quicktier import mutated_sample

arrow = tier.compiled("runtime._compiled.arrow")
SAMPLES = Path(__file__).resolve().parent.parent / "samples"
FORMATS = [
    f
    for f in (
        "plainbuffer",
        "avro_container",
        "kafka_record_batch",
        "msgpack",
        "png",
        "mysql_serialization",
        "ticdc_open_protocol",
        "ticdc_craft",
        "protobuf_wire",
        "pgoutput",
        "bson",
    )
    if _arrow_records(f)
]
pytestmark = pytest.mark.skipif(
    arrow is None or "plainbuffer" not in FORMATS, reason="the compiled tier is not built"
)
RECORDS = [(fmt, record) for fmt in FORMATS for record in sorted(_arrow_records(fmt))]
DOES_NOT_FIT = (OverflowError, pa.ArrowInvalid)
"""What ``pa.array`` raises for a value its column does not take (an int past int64, one
past a narrower column or a decimal's precision)."""


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
    """The Python way: the row tuples of ``to_rows``, then ``pa.array`` per column."""
    mod, fields = load_module(fmt), arrow_fields(fmt, record)
    rows = [row for model in models for row in mod.to_rows(model, record)]
    columns = list(zip(*rows)) if rows else [[]] * len(fields)
    return [pa.array(c, f.type) for c, f in zip(columns, fields)]


def decoders(
    fmt,
    mode,
    record=None,
    passthrough=("topic", "offset"),
    index_col="_i",
    limits=None,
    columns=None,
):
    """A BatchDecoder reading bytes into Arrow (then the Python way for what it hands
    back), and one the Python way only."""
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
    read_in, python = BatchDecoder(c, out_schema, **args), BatchDecoder(c, out_schema, **args)
    python.reader = None
    return read_in, python


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
    folder = sorted((SAMPLES / "plainbuffer").glob("*"))
    samples = [p.read_bytes() for p in folder if p.suffix != ".py"]
    return samples + [b"", samples[0][:-3], b"\x75\x00\x00\x00", samples[1]]


def compiled(fmt):
    """The module whose ``write_arrow`` writes ``fmt`` (protobuf's: the table-driven one)."""
    if fmt == "protobuf_wire":
        return types.SimpleNamespace(write_arrow=_arrow_source(fmt)[0])
    return importlib.import_module(f"generated._compiled.{fmt}")


def read(fmt, record, values, out=None):
    """``(columns, counts)`` of ``write_arrow`` over ``values``, going on after each value
    it declines (as BatchDecoder does)."""
    out = out or arrow.builder_for(pa.struct(arrow_fields(fmt, record)))
    counts, i, column = [], 0, pa.array(values, pa.binary())
    while i < len(values):
        i = compiled(fmt).write_arrow(record, column, i, len(values), out, counts, DEFAULT) + 1
    written = out.finish()
    return [written.field(k) for k in range(written.type.num_fields)], counts


def reference(fmt, record, data: bytes):
    """``(model, exact)``: the compiled model reader's model where the record has one (None
    where it declines: ``write_arrow`` declines exactly there), else ``parse``'s (None where
    it raises; a record read only inline by its parent has no reader of its own; protobuf's
    reader declines forms whose rows it would take back, see PROTOBUF_FORMS)."""
    mod = load_module(fmt)
    reader = getattr(mod, "COMPILED_READERS", {}).get(record)
    if reader is not None:
        return reader(data, DEFAULT), True
    try:
        return mod.parse(data, record), False
    except RECORD_ERRORS:
        return None, False


def check(fmt, record, data: bytes):
    """``write_arrow`` takes ``data`` when the model reader does, with the Arrow of its
    rows, or declines it where a value does not fit its column (the Python way's rows do
    not fit either); declines it (writing nothing) when the model reader declines. A record
    with no model reader: what it takes ``parse`` takes, with the Arrow of its rows."""
    mod = load_module(fmt)
    model, exact = reference(fmt, record, data)
    out = arrow.builder_for(pa.struct(arrow_fields(fmt, record)))
    counts: list = []
    stopped = compiled(fmt).write_arrow(record, pa.array([data]), 0, 1, out, counts, DEFAULT)
    if model is None or stopped == 0:
        assert (stopped, counts, out.size) == (0, [], 0), (fmt, record, data.hex())
        if model is not None and exact:  # the model reader takes it: a value does not fit
            with pytest.raises(DOES_NOT_FIT):
                python_arrays(fmt, record, [model])
        return False
    assert stopped == 1, (fmt, record, data.hex())
    written = out.finish()
    want = python_arrays(fmt, record, [model])
    assert counts == [len(list(mod.to_rows(model, record)))]
    for k, w in enumerate(want):
        got = written.field(k)
        got.validate(full=True)
        assert same(got, w), (fmt, record, got.to_pylist(), w.to_pylist())
    return True


@pytest.mark.parametrize("fmt,record", RECORDS)
def test_vectors_samples_and_their_truncations(fmt, record):
    mod = load_module(fmt)
    taken = 0
    for rec, data in inputs(fmt):
        if (rec or mod.DEFAULT_RECORD) != record:
            continue
        taken += check(fmt, record, data)
        for n in range(len(data)):
            check(fmt, record, data[:n])
    if (fmt, record) in (("plainbuffer", "message"), ("protobuf_wire", "order")):
        assert taken >= 3


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutations(fmt, data):
    mod = load_module(fmt)
    mutated, record = mutated_sample(mod, fmt, data)
    if record in _arrow_records(fmt):
        check(fmt, record, mutated)


@pytest.mark.parametrize("record", ["message", "row", "cell"])
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_generated_plainbuffer_models(record, data):
    mod = load_module("plainbuffer")
    assert check("plainbuffer", record, mod.build(data.draw(mod.strategies(record)), record))


MSGPACK = [record for fmt, record in RECORDS if fmt == "msgpack"]


@pytest.mark.parametrize("record", MSGPACK)
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_generated_msgpack_values_and_their_truncations(record, data):
    """MessagePack's records of one value (its samples are streams, which no writer takes)."""
    mod = load_module("msgpack")
    built = mod.build(data.draw(mod.strategies(record)), record)
    assert check("msgpack", record, built)
    for n in range(len(built)):
        check("msgpack", record, built[:n])


@pytest.mark.parametrize("record", MSGPACK)
@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_msgpack_batches_read_into_arrow_as_the_python_way(record, data):
    mod = load_module("msgpack")
    values = [mod.build(v, record) for v in data.draw(st.lists(mod.strategies(record)))]
    values += [v[:-1] for v in values[:1]] + [b"\xc1", None]
    limits = {"max_string": 3} if data.draw(st.booleans()) else None
    read_in, python = decoders("msgpack", "PERMISSIVE", record, limits=limits)
    assert read_in.reader is not None
    got, want = read_in.decode(input_batch(values)), python.decode(input_batch(values))
    assert got.schema == want.schema
    assert all(same(g, w) for g, w in zip(got.columns, want.columns)), got.to_pylist()
    assert read_in.stats == python.stats


def test_a_declined_message_leaves_the_columns_as_they_were():
    """Messages declined part way (a bad row checksum after good cells, text that is not
    UTF-8) between good ones: the columns are the good ones' rows, nothing of the others."""
    mod = load_module("plainbuffer")
    good = [d for rec, d in inputs("plainbuffer") if rec in (None, "message")]
    good = [d for d in good if mod.COMPILED_READERS["message"](d, DEFAULT) is not None]
    bad_crc = good[-1][:-1] + bytes([good[-1][-1] ^ 1])
    bad_text = mod.build(
        mod.Message(
            rows=[
                mod.Row(
                    primary_key=[
                        mod.Cell(name="k", value=mod.CellValue(mod.ValueType.STRING, "\u00e9"))
                    ],
                    attributes=[],
                    delete_marker=False,
                )
            ]
        )
    ).replace("\u00e9".encode(), b"\xff\xfe")
    values = [good[0], bad_crc, good[1], bad_text, good[-1]]
    got, counts = read("plainbuffer", "message", values)
    models = [mod.parse(v) for v in (good[0], good[1], good[-1])]
    assert counts == [len(m.rows) for m in models]
    for g, w in zip(got, python_arrays("plainbuffer", "message", models)):
        g.validate(full=True)
        assert same(g, w)


@pytest.mark.parametrize("mode", ["PERMISSIVE", "FAILFAST"])
def test_batch_decoder_gives_the_python_batches_reading_bytes_into_arrow(mode):
    read_in, python = reading_decoders(mode)
    assert read_in.reader is not None and python.reader is None
    values = pb_messages() + [None]
    for batch in (values, [v for v in values if ok(v)], [], [values[0]] * 5):
        if mode == "FAILFAST" and not all(ok(v) for v in batch):
            with pytest.raises(RecordDecodeError) as failed:
                read_in.decode(input_batch(batch))
            with pytest.raises(RecordDecodeError) as too:
                python.decode(input_batch(batch))
            assert str(failed.value) == str(too.value)
            continue
        got, want = read_in.decode(input_batch(batch)), python.decode(input_batch(batch))
        assert got.schema == want.schema
        assert got.equals(want), (got.to_pylist(), want.to_pylist())
    assert read_in.stats == python.stats


def test_errors_found_before_and_rows_the_columns_refuse():
    read_in, python = reading_decoders("PERMISSIVE")
    good, bad = pb_messages()[1], pb_messages()[-3]
    values = [good, bad, good, good]
    for errors in (None, {0: WirespecError("cut")}, {2: ValueError("x")}):
        got = read_in.decode(input_batch(values), dict(errors or {}))
        want = python.decode(input_batch(values), dict(errors or {}))
        assert got.equals(want)
    assert read_in.stats == python.stats


def reading_decoders(mode):
    """A BatchDecoder reading bytes into Arrow (then the Python way for what it hands
    back), and one the Python way only."""
    read_in, python = decoders("plainbuffer", mode)
    return read_in, python


def ok(value):
    try:
        load_module("plainbuffer").parse(value)
    except (WirespecError, ValueError, UnicodeError, TypeError):
        return False
    return True


def test_batch_decoder_reads_the_column_as_arrow_holds_it():
    """The messages are read from the input column's buffers: a sliced batch (its offset),
    a large_binary column, a table of two chunks (an error found before in the second),
    nulls: the same batches and counts as the Python way."""
    read_in, python = reading_decoders("PERMISSIVE")
    whole = input_batch((pb_messages() + [None]) * 2)
    large = pa.RecordBatch.from_arrays(
        [whole.column(0).cast(pa.large_binary()), *whole.columns[1:]], names=whole.schema.names
    )
    chunked = pa.Table.from_batches([whole.slice(0, 5), whole.slice(5)])
    for batch in (whole.slice(3, 9), large, chunked):
        for errors in (None, {6: WirespecError("cut")}):
            got = read_in.decode(batch, dict(errors or {}))
            want = python.decode(batch, dict(errors or {}))
            assert got.equals(want), (got.to_pylist(), want.to_pylist())
    assert read_in.stats == python.stats


def test_offsets_outside_the_data_are_declined_not_read():
    """A column whose offsets point outside its data buffer (Arrow from elsewhere, not
    validated): those messages are handed back, nothing read past the buffer; a range past
    the column's end raises."""
    good = pb_messages()[1]
    offsets = [0, len(good), len(good) + 64, 2, 1]
    column = pa.Array.from_buffers(
        pa.binary(), 4, [None, pa.array(offsets, pa.int32()).buffers()[1], pa.py_buffer(good)]
    )
    out = arrow.builder_for(pa.struct(arrow_fields("plainbuffer", "message")))
    counts: list = []
    write = compiled("plainbuffer").write_arrow
    assert write("message", column, 0, 4, out, counts, DEFAULT) == 1
    assert write("message", column, 1, 4, out, counts, DEFAULT) == 1  # ends past the data
    assert write("message", column, 3, 4, out, counts, DEFAULT) == 3  # starts after its end
    assert len(counts) == 1 and out.size == counts[0]
    with pytest.raises(IndexError):
        write("message", column, 2, 5, out, counts, DEFAULT)


@pytest.mark.parametrize("fmt,record", RECORDS)
@pytest.mark.parametrize(
    "limits,ends",
    [({"max_count": 2}, False), ({"max_string": 8}, False), ({}, True), ({"max_count": 3}, True)],
)
def test_limits_and_kept_columns_read_into_arrow_as_the_python_way(fmt, record, limits, ends):
    """With limits (they make some messages corrupt) and with only some columns kept (the
    record's first and last: every column is read, the kept ones picked), the batches are
    the Python way's."""
    names = codec(fmt, record).full_schema().names
    columns = [names[0], names[-1]] if ends and names else None
    read_in, python = decoders(fmt, "PERMISSIVE", record, limits=limits, columns=columns)
    assert read_in.reader is not None and python.reader is None
    mod = load_module(fmt)
    values = [d for rec, d in inputs(fmt) if (rec or mod.DEFAULT_RECORD) == record]
    values += [d[: len(d) // 2] for d in values] + [b"", None]
    got, want = read_in.decode(input_batch(values)), python.decode(input_batch(values))
    assert got.schema == want.schema
    assert got.equals(want), (got.to_pylist(), want.to_pylist())
    assert read_in.stats == python.stats
    if (fmt, record) == ("plainbuffer", "message") and limits:  # the limits bite, not all
        assert read_in.stats["rows"] > 0 and read_in.stats["corrupt"] > 2


# -- values their columns do not take: declined, not raised ----------------------------


def kafka_batch(base_offset=None, base_timestamp=None) -> bytes:
    """The Kafka sample batch at another base offset or base timestamp (its CRC-32C, of
    the bytes from attributes on, made again)."""
    data = bytearray((SAMPLES / "kafka_record_batch" / "orders_batch.bin").read_bytes())
    if base_offset is not None:
        data[0:8] = base_offset.to_bytes(8, "big", signed=True)
    if base_timestamp is not None:
        data[27:35] = base_timestamp.to_bytes(8, "big", signed=True)
        data[17:21] = crc32c(bytes(data[21:])).to_bytes(4, "big")
    return bytes(data)


def test_a_sum_past_int64_is_declined_where_the_python_way_fails_too():
    """A Kafka batch at base offset 2**63 - 1: its records' offsets after the first are past
    int64, the type of their column. The model reader takes it, ``write_arrow`` declines
    it, writing no row, and the Python way's rows do not fit either (Spark's BatchDecoder
    makes it a corrupt row)."""
    data = kafka_batch(base_offset=2**63 - 1)
    assert load_module("kafka_record_batch").COMPILED_READERS["record_batch"](data, DEFAULT)
    assert check("kafka_record_batch", "record_batch", data) is False
    kept = kafka_batch(base_offset=2**63 - 5, base_timestamp=2**63 - 13)  # the last fits
    assert check("kafka_record_batch", "record_batch", kept) is True


def test_a_time_past_int64_is_a_null_in_its_row():
    """At base timestamp 2**63 - 1 the records' timestamps after the first are past int64:
    a time (``logical: unix_millis``: a number and a ``_ts`` column) is null there, in
    both ways, and every record is still a row."""
    data = kafka_batch(base_timestamp=2**63 - 1)
    assert check("kafka_record_batch", "record_batch", data) is True
    mod = load_module("kafka_record_batch")
    [row] = mod.to_rows(mod.parse(data, "record_batch"), "record_batch")
    records = mod.spark_schema("record_batch")["records"].dataType.elementType.names
    timestamps = [r[records.index("timestamp")] for r in row[-1]]
    assert timestamps[0] == 2**63 - 1 and set(timestamps[1:]) == {None}


def write_into(fmt, record, column, arrow_type, values):
    """``(stopped, counts, rows)`` of ``write_arrow`` over ``values`` into the record's
    columns with ``column`` of ``arrow_type`` instead (a narrower one than Spark's)."""
    fields = [
        pa.field(f.name, arrow_type, f.nullable) if f.name == column else f
        for f in arrow_fields(fmt, record)
    ]
    out, counts = arrow.builder_for(pa.struct(fields)), []
    stopped = compiled(fmt).write_arrow(
        record, pa.array(values, pa.binary()), 0, len(values), out, counts, DEFAULT
    )
    return stopped, counts, out.finish().to_pylist()


@pytest.mark.parametrize(
    "fmt,record,column,arrow_type,fits,too_big",
    [
        # an int of C into a narrower int column
        ("png", "image_header", "width", pa.int16(), 32767, 32768),
        ("msgpack", "int32", "value", pa.int8(), -128, -129),
        # a uint64 into a decimal of less precision than 20 digits
        ("msgpack", "uint64", "value", pa.decimal128(5, 0), 99999, 100000),
        ("msgpack", "uint64", "value", pa.decimal128(20, 0), 2**64 - 1, None),
    ],
)
def test_a_value_past_its_columns_type_is_declined(fmt, record, column, arrow_type, fits, too_big):
    """The builders refuse a value their column's type does not hold (its range, its
    decimal precision): the message is declined with nothing of it written, the ones before
    it kept."""
    message = {
        "image_header": lambda v: struct.pack(">IIBBBBB", v, 1, 8, 2, 0, 0, 0),
        "int32": lambda v: b"\xd2" + struct.pack(">i", v),
        "uint64": lambda v: b"\xcf" + struct.pack(">Q", v),
    }[record]
    values = [message(fits)] + ([message(too_big), message(fits)] if too_big is not None else [])
    stopped, counts, rows = write_into(fmt, record, column, arrow_type, values)
    assert (stopped, counts, [r[column] for r in rows]) == (1, [1], [fits])


# -- protobuf: the table-driven reader (runtime/_compiled/protobuf_arrow.pyx) ---------------

PROTOBUF = [record for fmt, record in RECORDS if fmt == "protobuf_wire"]


@pytest.mark.parametrize("record", PROTOBUF)
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_generated_protobuf_messages_and_their_truncations(record, data):
    """Every message ``build`` writes is taken, with the Arrow of its rows (maps, lists,
    structs, oneofs, NaN payloads, extremes); its truncations are declined or agree."""
    mod = load_module("protobuf_wire")
    built = mod.build(data.draw(mod.strategies(record)), record)
    assert check("protobuf_wire", record, built)
    for n in sorted(data.draw(st.sets(st.integers(0, max(len(built) - 1, 0)), max_size=8))):
        check("protobuf_wire", record, built[:n])


def pb_key(number: int, wire_type: int) -> bytes:
    from runtime.core.leb128 import write_uvarint

    return write_uvarint(number << 3 | wire_type)


def pb_len(number: int, payload: bytes) -> bytes:
    from runtime.core.leb128 import write_uvarint

    return pb_key(number, 2) + write_uvarint(len(payload)) + payload


ENTRY = pb_len(1, b"k") + pb_len(2, b"v")
PROTOBUF_FORMS = {
    # taken: the rows are those of the model
    "unknown field, group, known number of another wire type": (
        b"".join(
            [pb_key(99, 0), b"\x05", pb_key(98, 3), pb_key(1, 0), b"\x01", pb_key(98, 4)]
            + [pb_key(1, 0), b"\x07", pb_len(1, b"A1")]
        ),
        True,
    ),
    "packed and unpacked records of one field, out of order": (
        b"".join(
            [pb_key(20, 0), b"\x01", pb_len(20, b"\x02\x03"), pb_len(9, b""), pb_key(20, 0)]
            + [b"\x7f"]
        ),
        True,
    ),
    "varints longer than they need, an int32 past 32 bits, a bool of 2": (
        b"".join(
            [pb_key(2, 0), b"\x81\x00", pb_key(20, 0), b"\xff" * 9 + b"\x01"]
            + [pb_key(17, 0), b"\x02", pb_key(4, 0), b"\x80\x80\x80\x80\x10"]
        ),
        True,
    ),
    "a oneof member and a map of messages": (
        pb_len(13, b"V") + pb_len(19, pb_len(1, b"EUR") + pb_len(2, pb_key(2, 0) + b"\x05")),
        True,
    ),
    "a singular field read twice, the last kept": (
        pb_len(1, b"a") + pb_len(6, pb_len(1, b"x")) + pb_len(1, b"b") + pb_len(6, b""),
        True,
    ),
    "two members of a oneof": (pb_len(12, pb_len(1, b"VISA")) + pb_key(14, 0) + b"\x01", True),
    # declined: the Python way reads it (a map key read again moves to the end) or raises
    "an earlier value that is not UTF-8": (pb_len(1, b"\xff") + pb_len(1, b"b"), False),
    "a map key read twice": (pb_len(8, ENTRY) + pb_len(8, ENTRY), False),
    "a map entry value then key": (pb_len(8, pb_len(2, b"v") + pb_len(1, b"k")), False),
    "an end of group without its start": (pb_key(5, 4), False),
    "text that is not UTF-8": (pb_len(1, b"\xff"), False),
}


@pytest.mark.parametrize("name", sorted(PROTOBUF_FORMS))
def test_protobuf_forms_are_read_or_declined(name):
    data, taken = PROTOBUF_FORMS[name]
    assert check("protobuf_wire", "order", data) is taken


def parsed(data: bytes) -> bool:
    try:
        load_module("protobuf_wire").parse(data)
    except RECORD_ERRORS:
        return False
    return True


@pytest.mark.parametrize("mode", ["PERMISSIVE", "FAILFAST"])
def test_protobuf_batches_read_into_arrow_as_the_python_way(mode):
    """Samples, declined forms (decoded the Python way, their rows in the same columns:
    decimals included) and bad bytes: the Python way's batches, errors and counts."""
    read_in, python = decoders("protobuf_wire", mode)
    assert read_in.reader is not None and python.reader is None
    samples = [d for _, d in inputs("protobuf_wire")]
    declined = [data for data, taken in PROTOBUF_FORMS.values() if not taken]
    good = samples + [d for d in declined if parsed(d)] + [b""]
    assert len(good) >= len(samples) + 3  # declined forms that decode: the Python way's rows
    for batch in (good, good + [samples[0][:-1], None] + declined):
        if mode == "FAILFAST" and batch is not good:
            with pytest.raises(RecordDecodeError) as failed:
                read_in.decode(input_batch(batch))
            with pytest.raises(RecordDecodeError) as too:
                python.decode(input_batch(batch))
            assert str(failed.value) == str(too.value)
            continue
        got, want = read_in.decode(input_batch(batch)), python.decode(input_batch(batch))
        assert got.schema == want.schema
        assert got.equals(want), (got.to_pylist(), want.to_pylist())
    assert read_in.stats == python.stats


# -- Craft: chunks of numbers and payloads, and size tables (lists of lists) read inline ----


def check_craft(message: bytes) -> None:
    """``message`` as a ``frame`` and each of its column groups as a ``column_group``: taken,
    with the Arrow of their rows; the message cut short, declined or agreed on."""
    craft = load_module("ticdc_craft")
    assert check("ticdc_craft", "frame", message), message.hex()
    check("ticdc_craft", "frame", message[:-1])
    for body in craft.parse(message, "frame").bodies:
        for group in body.column_groups or ():
            assert check("ticdc_craft", "column_group", craft.build(group, "column_group"))


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(events=events_strategy, batch=st.sampled_from([1, 3, 16]))
def test_craft_frames_and_column_groups_read_into_arrow_as_the_python_way(events, batch):
    """Drawn events (rows of every column type with nulls, unsigned and empty values, DDL,
    resolved) as tiflow batches them."""
    for message in load_module("ticdc_craft").encode_events(events, max_batch_size=batch):
        check_craft(message)


def test_craft_chunks_longer_than_a_map_runs_own_room():
    """70 events and a group of 70 columns: the event types' run (kept for the spec's
    rules) is held in memory of its own, past the 64 a ``MapRun`` holds in place."""
    craft = load_module("ticdc_craft")
    columns = [Column(f"c{i}", 3, 0x80 * (i % 2), i) for i in range(70)]
    events = [RowChangedEvent(i, "s", "t", new=columns, old=columns[:i]) for i in range(70)]
    (message,) = craft.encode_events(events, max_batch_size=70)
    check_craft(message)


COMPILED_SOURCES = sorted(
    (Path(__file__).resolve().parent.parent / "generated" / "_compiled").glob("*.pyx")
)


@pytest.mark.parametrize("path", COMPILED_SOURCES, ids=lambda p: p.stem)
def test_no_arrow_writer_sets_a_module_global(path):
    """What a writer leaves for its caller (PNG's chunk type, which the list's ``until:``
    reads) is the caller's own: a module global would be another reader's, when two read
    at once (threads, or a reader within a reader)."""
    writers = re.finditer(
        r"^cdef int (_arrow_\w+|_columns_\w+)\(.*?(?=^\S)",
        path.read_text(),
        re.MULTILINE | re.DOTALL,
    )
    assert [m[1] for m in writers if re.search(r"^\s+global ", m[0], re.MULTILINE)] == []


def png_files() -> list[bytes]:
    """PNG's samples, each also with IEND after its first chunk (the rest then left over,
    which the reader declines) and cut before its IEND (declined: no IEND)."""
    samples = [p.read_bytes() for p in sorted((SAMPLES / "png").glob("*.bin"))]
    first = [s[: 8 + 12 + int.from_bytes(s[8:12], "big")] for s in samples]
    iend = bytes.fromhex("0000000049454e44ae426082")
    return (
        samples
        + [f + iend for f in first]
        + [f + iend + s[len(f) :] for f, s in zip(first, samples)]
        + [s[:-12] for s in samples]
    )


def test_png_files_written_to_arrow_in_threads_stop_at_their_own_iend():
    """Eight threads writing PNG files at once each stop each file at its own IEND (the
    chunk type read from the chunk's bytes, not left where another thread writes)."""
    files = png_files()
    for data in files:
        check("png", "png_file", data)
    orders = [files[k:] + files[:k] for k in range(8)]
    want = [read("png", "png_file", values) for values in orders]
    with ThreadPoolExecutor(8) as pool:
        for _ in range(10):
            got = list(pool.map(lambda values: read("png", "png_file", values), orders))
            assert got == want


@pytest.mark.parametrize("fmt,record", parent_readers())
def test_records_that_read_their_parent_go_the_python_way(fmt, record):
    """No Arrow reader; their batches are the Python way's (row tuples), which is all the
    models-to-Arrow ``RowWriter`` they went through wrote (it is gone)."""
    assert record not in _arrow_records(fmt)
    read_in, python = decoders(fmt, "PERMISSIVE", record)
    assert read_in.reader is None
    folder = sorted((SAMPLES / fmt).glob("*"))
    values = [p.read_bytes()[:200] for p in folder if p.suffix != ".py"] + [b"", None]
    values += [empty_kafka_batch()] if record == "batch" else []
    got = read_in.decode(input_batch(values))
    assert got.equals(python.decode(input_batch(values)))
    good = [e is None for e in got.column("_error").to_pylist()]
    assert good == [record == "batch" and v == values[-1] for v in values]


@pytest.mark.spark
def test_decode_in_spark_reads_bytes_into_arrow_in_the_worker(spark):
    """End to end: decode() of PlainBuffer messages in Spark's Python workers gives the rows
    of the pure-Python parse, and the worker has the compiled reader into Arrow."""
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

    def reader_in_worker(batches):
        for _ in batches:
            pass
        fields = list(to_arrow_schema(c.schema(), timezone="UTC"))
        yield pa.RecordBatch.from_pydict({"on": [c.arrow_reader(fields) is not None]})

    assert spark.range(1).mapInArrow(reader_in_worker, "on boolean").collect()[0].on
