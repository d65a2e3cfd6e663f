"""Typed Thrift in Spark from the user's own IDL: ``decode(..., spec=, struct=)``, the data
source's ``spec``/``struct`` options and ``wirespec ingest --spec --struct``, with nothing
generated into the repo."""

from __future__ import annotations

import struct

import pyarrow.parquet as pq
import pytest

from generator.cli.main import main
from runtime.core.errors import OptionError
from runtime.spark.decode import codec

IDL = """\
struct Item { 1: string sku; 2: i32 qty }
struct Order { 1: i64 id; 2: list<Item> items; 3: optional Item first; 4: list<string> tags }
"""


@pytest.fixture
def idl(tmp_path):
    path = tmp_path / "shop.thrift"
    path.write_text(IDL)
    return path


def orders(idl):
    """Messages built with the module the IDL renders to, and their ``to_rows``."""
    mod = codec("thrift_compact", spec=str(idl), struct="Order").module
    models = [
        mod.Order(id=1, items=[mod.Item("a", 1), mod.Item("b", 2)], first=mod.Item("a", 1)),
        mod.Order(id=2, items=[], tags=["x", "y"]),
        mod.Order(id=-3, items=[mod.Item("", -1)], tags=[]),
    ]
    data = [mod.build(m) for m in models]
    rows = [r for m in models for r in mod.to_rows(m, "Order")]
    return data, rows


def test_a_thrift_idl_is_rendered_in_memory_and_the_codec_pickles(idl):
    import pickle

    c = codec("thrift_compact", spec=str(idl), struct="Order")
    assert c.record == "Order"
    assert c.schema().simpleString() == (
        "struct<id:bigint,items:array<struct<sku:string,qty:int>>,"
        "first:struct<sku:string,qty:int>,tags:array<string>>"
    )
    again = pickle.loads(pickle.dumps(c))  # what a worker gets: the spec's text, no module
    data, rows = orders(idl)
    assert [r for d in data for r in again.rows(None, d)] == rows
    message = codec("thrift_compact", "message", spec=str(idl), struct="Order")
    assert message.schema()["body"].dataType == c.schema()
    from runtime.spark.functions import column_codec  # from_wirespec's options, the same words

    options = (("mode", "PERMISSIVE"), ("spec", str(idl)), ("struct", "Order"))
    assert column_codec("thrift_compact", options) == (c, "PERMISSIVE")


@pytest.mark.parametrize(
    "spec, struct_, record, expected",
    [
        ("shop.thrift", "Nope", None, "thrift_compact has no struct 'Nope'; structs: Item, Order"),
        ("gone.thrift", "Order", None, "no spec file "),
        ("shop.thrift", "Order", "Item", "record Item and struct Order disagree"),
    ],
)
def test_a_bad_struct_or_spec_is_one_line(idl, spec, struct_, record, expected):
    with pytest.raises(OptionError) as err:
        codec("thrift_compact", record, spec=str(idl.parent / spec), struct=struct_)
    assert expected in str(err.value) and "\n" not in str(err.value)


def test_ingest_checks_spec_and_struct_before_spark(idl, tmp_path, capsys):
    args = ["ingest", "thrift_compact", str(tmp_path), "--output", str(tmp_path / "out")]
    assert main([*args, "--spec", str(idl), "--struct", "Nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no struct 'Nope'" in err
    assert main([*args, "--spec", str(tmp_path / "gone.thrift"), "--struct", "Order"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no spec file" in err


@pytest.mark.spark
def test_decode_and_the_data_source_with_a_thrift_idl(spark, idl, tmp_path):
    from runtime.spark import decode

    data, rows = orders(idl)
    names = ["id", "items", "first", "tags"]
    df = spark.createDataFrame([(i, d) for i, d in enumerate(data)], "n int, value binary")
    out = decode(df, "thrift_compact", spec=str(idl), struct="Order")
    got = [tuple(r[1:]) for r in sorted(out.select("n", *names).collect())]
    assert [normal(r) for r in got] == rows

    src = tmp_path / "in"
    src.mkdir()
    (src / "orders.ldr").write_bytes(b"".join(struct.pack(">I", len(d)) + d for d in data))
    read = (
        spark.read.format("wirespec")
        .option("format", "thrift_compact")
        .option("spec", str(idl))
        .option("struct", "Order")
        .load(str(src))
    )
    got = [tuple(r[1:]) for r in sorted(read.select("_position", *names).collect())]
    assert [normal(r) for r in got] == rows
    with pytest.raises(OptionError, match="has no struct 'Nope'"):
        decode(df, "thrift_compact", spec=str(idl), struct="Nope")
    for option, value, message in [
        ("struct", "Nope", "has no struct 'Nope'"),
        ("spec", str(tmp_path / "gone.thrift"), "no spec file"),
    ]:  # the data source refuses them at analysis, naming them
        reader = spark.read.format("wirespec").option("format", "thrift_compact")
        reader = reader.option("spec", str(idl)).option("struct", "Order").option(option, value)
        with pytest.raises(Exception, match=message):
            reader.load(str(src)).collect()


@pytest.mark.spark
def test_ingest_with_spec_and_struct(spark, idl, tmp_path):
    from generator.cli.ingest import ingest, schema_options

    data, rows = orders(idl)
    src = tmp_path / "in"
    src.mkdir()
    for i, d in enumerate(data):
        (src / f"{i}.bin").write_bytes(d)
    options = schema_options("thrift_compact", spec=str(idl), struct="Order")
    out = tmp_path / "out"
    summary = ingest("thrift_compact", [src], out, spark=spark, schema_options=options)
    assert (summary["records"], summary["events"], summary["corrupt"]) == (3, 3, 0)
    table = pq.read_table(out / "thrift_compact").sort_by("_source_file")
    got = [(r["id"], r["items"], r["first"], r["tags"]) for r in table.to_pylist()]
    assert [normal(r) for r in got] == rows


def normal(row):
    """A row as tuples all the way down (Spark's Rows and Arrow's dicts become tuples)."""
    if isinstance(row, dict):
        return tuple(normal(v) for v in row.values())
    if isinstance(row, (tuple, list)) and not isinstance(row, str):
        items = [normal(v) for v in (row.asDict().values() if hasattr(row, "asDict") else row)]
        return items if isinstance(row, list) else tuple(items)
    return row
