"""TiCDC change frames: typed columns, exact edge values, and MERGE giving the final state."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest
from pyspark.sql import types as T
from spark_cases import craft_encode

from generated.models.ticdc_types import Column, ResolvedEvent, RowChangedEvent
from runtime.spark import apply_changes, change_frames, decode, key_columns

pytestmark = pytest.mark.spark

U64 = 2**64 - 1
KEY = 0x02 | 0x08  # handle key + primary key


def row(i, u, d, name, blob, day, when):
    return [
        Column("id", 8, KEY, i),
        Column("u", 8, 0x80, u),
        Column("d", 246, 0, d),
        Column("name", 15, 0, None if name is None else name.encode()),
        Column("blob", 252, 0x01, blob),
        Column("day", 10, 0, day),
        Column("at", 12, 0, when),
        Column("loose", 246, 0, "1.5" if i % 2 else "2.25"),  # mixed scale: stays a string
    ]


BASE = {
    1: (1, 0, "0.00", "one", b"\x00", "2021-01-02", "2021-01-02 03:04:05"),
    2: (2, 5, "-1.25", "two", b"", "2021-01-03", "2021-01-03 00:00:00"),
    3: (3, 7, "7.00", None, None, "2021-01-04", "2021-01-04 00:00:00.250000"),
}
BIG = "99999999999999999999999999999999999.99"
UPDATED = (1, U64, BIG, "uno", b"\xff", "2021-01-02", "2021-01-02 03:04:05")
EVENTS = [
    RowChangedEvent(100, "shop", "items", new=row(*BASE[1])),
    RowChangedEvent(100, "shop", "items", new=row(*BASE[2])),
    RowChangedEvent(100, "shop", "items", new=row(*BASE[3])),
    RowChangedEvent(110, "shop", "items", new=row(*UPDATED), old=row(*BASE[1])),
    RowChangedEvent(120, "shop", "items", old=row(*BASE[2])),  # delete
    RowChangedEvent(
        130, "shop", "items", new=row(30, *BASE[3][1:]), old=row(*BASE[3])
    ),  # update of the key 3 -> 30
    RowChangedEvent(140, "shop", "other", new=[Column("k", 3, KEY, 1)]),
    ResolvedEvent(135),
]


def final_state():
    state = {}
    for ev in EVENTS:
        if not isinstance(ev, RowChangedEvent) or ev.table != "items":
            continue
        if ev.old is not None:
            state.pop(ev.old[0].value, None)
        if ev.new is not None:
            state[ev.new[0].value] = {c.name: c.value for c in ev.new}
    return state


@pytest.fixture(scope="module")
def frames(spark):
    messages = craft_encode(EVENTS, max_batch_size=3)
    df = spark.createDataFrame(
        [(m, "cdc", 0, i) for i, m in enumerate(messages)],
        "value binary, topic string, partition int, offset long",
    )
    events = decode(df, "ticdc_craft", index_col="_event_index").cache()
    return change_frames(events)


def test_one_frame_per_table_with_typed_columns(frames):
    assert sorted(frames) == ["shop.items", "shop.other"]
    types = {f.name: f.dataType for f in frames["shop.items"].schema.fields}
    assert types["id"] == T.LongType()
    assert types["u"] == T.DecimalType(20, 0)
    assert types["d"] == T.DecimalType(38, 2)
    assert types["loose"] == T.StringType()
    assert types["name"] == T.StringType() and types["blob"] == T.BinaryType()
    assert types["day"] == T.DateType() and types["at"] == T.TimestampNTZType()
    assert {"_op", "_commit_ts", "_seq", "_before", "_resolved_ts"} <= set(types)
    assert key_columns(frames["shop.items"]) == ["id"]


@pytest.fixture(scope="module")
def items(frames):
    """The rows of the ``shop.items`` frame, collected once for the tests that read them."""
    return frames["shop.items"].collect()


def test_edge_values_are_exact(items):
    upd = [r for r in items if r._op == "update"]
    assert len(upd) == 1 and upd[0].id == 1
    assert upd[0].u == Decimal(U64)
    assert upd[0].d == Decimal(BIG)
    assert upd[0]._before.u == Decimal(0) and upd[0]._before.name == "one"
    assert upd[0].blob == bytearray(b"\xff")
    (first,) = [r for r in items if r._op == "insert" and r.id == 3]
    assert first.at == datetime.datetime(2021, 1, 4, 0, 0, 0, 250000)
    assert first.day == datetime.date(2021, 1, 4) and first.name is None
    (second,) = [r for r in items if r._op == "insert" and r.id == 2]
    assert second.d == Decimal("-1.25")
    assert {r._resolved_ts for r in items} == {Decimal(135)}


def test_key_update_splits_into_delete_and_insert(items):
    at_130 = sorted((r for r in items if r._commit_ts == 130), key=lambda r: r._seq)
    assert [(r._op, r.id) for r in at_130] == [("delete", 3), ("insert", 30)]


def test_merge_over_a_parquet_base_table_gives_the_final_state(spark, frames, tmp_path):
    items = frames["shop.items"]
    data = [c for c in items.columns if not c.startswith("_")]
    base = items.where("_commit_ts = 100").select(*data)
    base.write.parquet(str(tmp_path / "base"))
    later = items.where("_commit_ts > 100")
    later.write.parquet(str(tmp_path / "changes"))
    spark.read.parquet(str(tmp_path / "base")).createOrReplaceTempView("target")
    spark.read.parquet(str(tmp_path / "changes")).createOrReplaceTempView("changes")
    # The README recipe, plain Spark SQL on Parquet (no Delta needed).
    merged = spark.sql("""
        WITH latest AS (
          SELECT * FROM (
            SELECT *, row_number() OVER (PARTITION BY id ORDER BY _commit_ts DESC, _seq DESC) AS rn
            FROM changes) WHERE rn = 1)
        SELECT t.* FROM target t LEFT ANTI JOIN latest s ON t.id = s.id
        UNION ALL
        SELECT {cols} FROM latest WHERE _op != 'delete'
        """.format(cols=", ".join(data)))
    result = merged.collect()
    want = final_state()
    got = {r.id: r for r in result}
    assert sorted(got) == sorted(want) == [1, 30]
    assert got[1].u == Decimal(U64) and got[1].name == "uno"
    assert got[30].d == Decimal("7.00") and got[30].name is None
    # and the DataFrame helper agrees with the SQL
    helper = apply_changes(spark.read.parquet(str(tmp_path / "base")), later, ["id"])
    assert sorted(map(tuple, helper.collect())) == sorted(map(tuple, result))
