#!/usr/bin/env python3
"""Write realistic sample messages of every format with wirespec's own builders.

    python samples/make_samples.py [--format NAME ...] [--output DIR]

Each format has one ``make_<format>(out_dir)`` function that builds its messages as models
with ``generated.<format>.build`` and writes ``<out_dir>/<format>/<name>.bin``; the
``MAKERS`` registry maps format names to those functions. To add a format, write its
function and register it. Every message is parsed back and must rebuild byte for byte
before it is written, so a sample is never something the codec cannot read.
Output is deterministic: fixed values, no clocks, no randomness.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from pathlib import Path

from construct import Container

SAMPLES = Path(__file__).resolve().parent


def _write(out_dir: Path, fmt: str, messages: dict[str, object]) -> list[Path]:
    """Build, check and write ``messages`` (name -> model) of format ``fmt``."""
    codec = importlib.import_module(f"generated.{fmt}")
    target = out_dir / fmt
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, model in messages.items():
        data = codec.build(model)
        if codec.build(codec.parse(data)) != data:
            raise SystemExit(f"{fmt}/{name}: does not rebuild byte for byte")
        path = target / f"{name}.bin"
        path.write_bytes(data)
        written.append(path)
    return written


# -- plainbuffer -------------------------------------------------------------------------------


def make_plainbuffer(out_dir: Path) -> list[Path]:
    """Tablestore PlainBuffer rows as the SDK would send them for an ``orders`` table with
    primary key (``user_id`` STRING, ``order_id`` INTEGER)."""
    from generated.plainbuffer import CellOp, ValueType

    ts = 1_732_240_800_000  # 2024-11-22T02:00:00Z, in milliseconds

    def value(vtype, v=None):
        return Container(type=vtype, value=v)

    def cell(name, val=None, op=None, timestamp=None):
        return Container(name=name, value=val, op=op, timestamp=timestamp)

    def pk(user, order):
        return [
            cell("user_id", value(ValueType.STRING, user)),
            cell(
                "order_id",
                order if isinstance(order, Container) else value(ValueType.INTEGER, order),
            ),
        ]

    def row(primary_key, attributes=None, deleted=False):
        return Container(primary_key=primary_key, attributes=attributes, delete_marker=deleted)

    def message(*rows):
        return Container(rows=list(rows))

    order_attributes = [
        cell("status", value(ValueType.STRING, "PAID"), timestamp=ts),
        cell("amount", value(ValueType.DOUBLE, 129.95), timestamp=ts),
        cell("items", value(ValueType.INTEGER, 3), timestamp=ts),
        cell("gift", value(ValueType.BOOLEAN, False), timestamp=ts),
        cell("note", value(ValueType.STRING, "leave at the door / 放在门口"), timestamp=ts),
        cell("receipt_sha1", value(ValueType.BLOB, bytes.fromhex("9f2c" * 10)), timestamp=ts),
    ]
    messages = {
        # PutRow: a new order, every attribute versioned at the same timestamp
        "put_row": message(row(pk("u-000042", 1001), order_attributes)),
        # UpdateRow: a put, a delete of one version, a delete of all versions, an increment
        "update_row_ops": message(
            row(
                pk("u-000042", 1001),
                [
                    cell("status", value(ValueType.STRING, "SHIPPED"), timestamp=ts + 86_400_000),
                    cell("amount", op=CellOp.DELETE_ONE_VERSION, timestamp=ts),
                    cell("note", op=CellOp.DELETE_ALL_VERSION),
                    cell("views", value(ValueType.INTEGER, 1), op=CellOp.INCREMENT),
                ],
            )
        ),
        # DeleteRow: primary key and the delete marker only
        "delete_row": message(row(pk("u-000042", 1001), deleted=True)),
        # BatchWriteRow-style message: header once, three rows back to back
        "multi_row": message(
            row(pk("u-000042", 1002), order_attributes[:3]),
            row(
                pk("u-000043", 7),
                [cell("status", value(ValueType.STRING, "CANCELLED"), timestamp=ts + 5)],
            ),
            row(pk("u-000044", 12), deleted=True),
        ),
        # GetRange bounds: every order of one user, from INF_MIN to INF_MAX
        "range_start_inf_min": message(row(pk("u-000042", value(ValueType.INF_MIN)))),
        "range_end_inf_max": message(row(pk("u-000042", value(ValueType.INF_MAX)))),
        # PutRow into a table whose second key column is auto-increment
        "put_row_auto_increment": message(
            row(
                pk("u-000042", value(ValueType.AUTO_INCREMENT)),
                [cell("status", value(ValueType.STRING, "NEW"))],
            )
        ),
    }
    return _write(out_dir, "plainbuffer", messages)


# -- registry ----------------------------------------------------------------------------------

MAKERS: dict[str, Callable[[Path], list[Path]]] = {
    "plainbuffer": make_plainbuffer,
}


# -- ticdc_craft -------------------------------------------------------------------------------


def make_ticdc_craft(out_dir: Path) -> list[Path]:
    """TiCDC Craft messages of a ``shop.orders`` table, as TiCDC writes them: a batch of row
    changes (insert, update with old values, delete of the handle key), a DDL, a resolved ts."""
    from generated.ticdc_craft import ColumnFlag as F
    from generated.ticdc_craft import ColumnType as T
    from generated.ticdc_craft import DdlType, Message
    from runtime.ticdc import Column, DdlEvent, ResolvedEvent, RowChangedEvent

    ts = 454_000_000_000_000_000  # a TSO: physical ms << 18
    pk = int(F.HANDLE_KEY | F.PRIMARY_KEY | F.BINARY)

    def order(oid, status, amount, note=None):
        return [
            Column("id", int(T.LONGLONG), pk | int(F.UNSIGNED), oid),
            Column("status", int(T.VARCHAR), 0, status.encode()),
            Column("amount", int(T.NEWDECIMAL), int(F.BINARY), amount),
            Column("items", int(T.LONG), int(F.BINARY), 3),
            Column("created", int(T.DATETIME), int(F.BINARY), "2024-11-22 02:00:00"),
            Column("weight_kg", int(T.DOUBLE), int(F.BINARY), 1.25),
            Column("note", int(T.BLOB), int(F.NULLABLE), note),
        ]

    rows = [
        RowChangedEvent(ts + 1, "shop", "orders", new=order(1001, "NEW", "129.95")),
        RowChangedEvent(ts + 2, "shop", "orders", new=order(1002, "NEW", "15.00", "放在门口".encode())),
        RowChangedEvent(ts + 3, "shop", "orders", new=order(1001, "PAID", "129.95"),
                        old=order(1001, "NEW", "129.95")),
        RowChangedEvent(ts + 4, "shop", "orders",
                        old=[Column("id", int(T.LONGLONG), pk | int(F.UNSIGNED), 1002)]),
    ]  # fmt: skip
    ddl = DdlEvent(ts + 5, "shop", "orders", int(DdlType.ADD_COLUMN),
                   "ALTER TABLE `shop`.`orders` ADD COLUMN `coupon` VARCHAR(32) NULL")  # fmt: skip
    return _write(
        out_dir,
        "ticdc_craft",
        {
            "row_batch": Message(events=rows),
            "ddl_add_column": Message(events=[ddl]),
            "resolved": Message(events=[ResolvedEvent(ts + 6)]),
        },
    )


MAKERS["ticdc_craft"] = make_ticdc_craft


# -- ticdc_open_protocol -----------------------------------------------------------------------


def make_ticdc_open_protocol(out_dir: Path) -> list[Path]:
    """TiCDC Open Protocol messages for a ``shop.orders`` table: each is a Kafka key and
    value, written as ``<name>.key`` + ``<name>.value`` (the pair the Spark data source and
    ``samples/decode_all.py`` read). A tiflow row batch, an update with old values, a delete,
    the seed doc's 2020-layout row, a DDL and a resolved event."""
    from generated.ticdc_open_protocol import Message, build_pair, parse_pair
    from runtime.ticdc import Column, DdlEvent, ResolvedEvent, RowChangedEvent

    ts = 424316552636792833

    def order(i, status=b"PAID"):
        return [
            Column("amount", 246, 0x41, f"{i}29.9500"),
            Column("created", 12, 0x41, "2024-11-22 02:00:00.000000"),
            Column("id", 8, 0x0B, 1000 + i),
            Column("note", 15, 0x40, "leave at the door / 放在门口".encode() if i % 2 else None),
            Column("receipt", 252, 0x41, bytes.fromhex("9f2c" * 10)),
            Column("status", 15, 0x40, status),
            Column("total_u", 8, 0xC1, 2**64 - 1 - i),
        ]

    rows = [RowChangedEvent(ts + i, "shop", "orders", new=order(i), row_id=1000 + i) for i in range(3)]
    messages = {
        "row_batch": Message(rows),
        "update": Message([RowChangedEvent(ts + 3, "shop", "orders", new=order(1, b"SHIPPED"),
                                           old=order(1), row_id=1001)]),
        "delete": Message([RowChangedEvent(ts + 4, "shop", "orders", old=order(2)[2:3], row_id=1002)]),
        "seed_legacy_row": Message([RowChangedEvent(415508878783938562, "test", "t1", new=[
            Column("id", 3, 0x02, 1), Column("val", 15, 0, b"aa")])], "legacy"),
        "ddl_add_column": Message([DdlEvent(ts + 5, "shop", "orders", 5,
                                            "ALTER TABLE `shop`.`orders` ADD COLUMN `coupon` VARCHAR(32) NULL")]),
        "resolved": Message([ResolvedEvent(ts + 6)]),
    }  # fmt: skip
    target = out_dir / "ticdc_open_protocol"
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, model in messages.items():
        key, value = build_pair(model)
        if build_pair(parse_pair(key, value)) != (key, value):
            raise SystemExit(f"ticdc_open_protocol/{name}: does not rebuild byte for byte")
        for suffix, data in ((".key", key), (".value", value)):
            path = target / f"{name}{suffix}"
            path.write_bytes(data)
            written.append(path)
    return written


MAKERS["ticdc_open_protocol"] = make_ticdc_open_protocol


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--format", action="append", choices=sorted(MAKERS), help="only these formats"
    )
    parser.add_argument("--output", type=Path, default=SAMPLES, help="samples folder")
    args = parser.parse_args(argv)
    for fmt in args.format or sorted(MAKERS):
        for path in MAKERS[fmt](args.output):
            print(f"{path} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
