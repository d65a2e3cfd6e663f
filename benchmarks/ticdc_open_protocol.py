#!/usr/bin/env python3
"""Open Protocol decode/encode cost per event, and the ratio to Craft on the same events.

Workloads (built as ``generated.models.ticdc_types`` events, encoded by each codec):

* seed:  the seed doc's row event (``test.t1``: ``id`` INT PK, ``val`` VARCHAR), tiflow
  layout, one event per Kafka message;
* batch: a 16-row insert batch (tiflow's default ``max-batch-size``) of a 20-column table
  (ints, unsigned BIGINT, DOUBLE, FLOAT, DECIMAL, DATETIME, VARCHAR, VARBINARY, BLOB,
  JSON, ENUM, NULLs), one Kafka message.

Codecs: ``generated.ticdc_open_protocol`` (``decode_message(key, value)`` /
``encode_events``) and ``generated.ticdc_craft`` (or ``runtime.formats.craft`` before it
existed) on the very same events. Open Protocol decoding runs twice: the Python reader
alone (``open_protocol``, today's fast path) and, when built, the compiled tier
(``open_protocol_compiled``, runtime/_compiled/open_protocol.pyx), with its speed-up. One process; each operation is repeated N times per
pass, R passes, the median pass is reported as ns/event. bytes/event counts the Kafka key
plus value for Open Protocol and the value for Craft (it has no key).

The seed's published Go numbers (pingcap/tiflow ``BenchmarkJSONEncoding`` and Craft's,
ns/op on their machine, not comparable in absolute terms) are shown beside them, labelled.

    python benchmarks/ticdc_open_protocol.py [--n 2000] [--runs 5] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import generated.ticdc_open_protocol as op
from generated.models.ticdc_types import Column, RowChangedEvent
from generator.cli.transcode import craft_codec
from runtime.formats.open_protocol import OpenProtocol

PUBLISHED = {  # seed doc: Go, ns/op, per encoded/decoded message of its benchmark rows
    ("open_protocol", "decode"): 75_822,
    ("open_protocol", "encode"): 28_388,
    ("craft", "decode"): 7_944,
    ("craft", "encode"): 4_809,
}
UNLIMITED = {"max_batch_size": 1 << 30, "max_message_bytes": 1 << 62}
PURE = OpenProtocol(
    op.JSON_DOCUMENTS, op.JSON_CODE, op.EVENT_CLASSES, key="event_key", models=op._KAFKA.models
)
PURE._compiled = None  # the Python reader alone, also when the compiled tier is built
COMPILED = op._KAFKA._read_pair is not None


def seed_events():
    return [RowChangedEvent(415508878783938562, "test", "t1", new=[
        Column("id", 3, 0x0B, 1), Column("val", 15, 0x40, b"aa")])]  # fmt: skip


def batch_events():
    rows = []
    for i in range(16):
        cols = [
            Column("id", 8, 0x0B, 1000 + i),
            Column("tenant", 3, 0x21, i % 4),
            Column("qty", 2, 0x41, i * 3),
            Column("big_u", 8, 0xC1, 2**64 - 1 - i),
            Column("price", 5, 0x41, 19.99 + i),
            Column("ratio", 4, 0x41, 0.5),
            Column("amount", 246, 0x41, f"{i}12345.6700"),
            Column("created", 12, 0x41, "2024-11-22 02:00:00.123456"),
            Column("day", 10, 0x41, "2024-11-22"),
            Column("name", 15, 0x40, f"customer-{i} / 客户".encode()),
            Column("email", 15, 0x50, f"user{i}@example.com".encode()),
            Column("token", 253, 0x41, bytes(range(i, i + 16))),
            Column("note", 252, 0x41, b"free text " * 4),
            Column("attrs", 245, 0x40, '{"tier": "gold", "tags": [1, 2]}'),
            Column("status", 247, 0x41, 2),
            Column("flags", 248, 0x41, 5),
            Column("year", 13, 0x41, 2024),
            Column("deleted", 1, 0x41, 0),
            Column("comment", 15, 0x40, None),
            Column("score", 5, 0x41, None),
        ]
        cols.sort(key=lambda c: c.name.encode())  # as tiflow writes them (a Go map)
        rows.append(RowChangedEvent(424316552636792833 + i, "shop", "orders", new=cols))
    return rows


def timed(fn, n: int, runs: int) -> list[float]:
    fn()  # warm-up
    out = []
    for _ in range(runs):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        out.append((time.perf_counter_ns() - t0) / n)
    return out


def measure(events, n: int, runs: int) -> dict:
    craft = craft_codec()
    [(key, value)] = list(op.encode_events(events, **UNLIMITED))
    [craft_msg] = list(craft.encode_events(events, **UNLIMITED))
    assert op.decode_message(key, value) == events
    assert list(craft.decode_message(craft_msg)) == events
    per = len(events)
    ops = {
        ("open_protocol", "decode"): lambda: PURE.decode_message(key, value),
        ("open_protocol", "encode"): lambda: list(op.encode_events(events, **UNLIMITED)),
        ("craft", "decode"): lambda: list(craft.decode_message(craft_msg)),
        ("craft", "encode"): lambda: list(craft.encode_events(events, **UNLIMITED)),
    }
    if COMPILED:
        assert PURE.decode_message(key, value) == op.decode_message(key, value)
        ops["open_protocol_compiled", "decode"] = lambda: op.decode_message(key, value)
    result = {"events": per, "bytes": {"open_protocol": (len(key) + len(value)) / per,
                                       "craft": len(craft_msg) / per}}  # fmt: skip
    for name, fn in ops.items():
        passes = timed(fn, n, runs)
        result["/".join(name)] = {"ns_per_event": statistics.median(passes) / per, "passes": passes}
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="operations per pass")
    parser.add_argument("--runs", type=int, default=5, help="passes (median reported)")
    parser.add_argument("--json", help="write all numbers here")
    args = parser.parse_args(argv)
    craft_name = craft_codec().__name__
    print(f"Python {platform.python_version()} on {platform.machine()}; Craft codec: {craft_name}")
    results = {}
    for workload, events in (("seed", seed_events()), ("batch16x20", batch_events())):
        n = args.n if workload == "seed" else max(1, args.n // 16)
        results[workload] = r = measure(events, n, args.runs)
        print(f"\n{workload}: {r['events']} event(s) per message")
        print(
            f"{'':14} {'ns/event':>10} {'bytes/event':>12} {'OP/Craft':>9} {'published Go ns/op':>19}"
        )
        for what in ("decode", "encode"):
            for fmt in ("open_protocol", "craft"):
                ns = r[f"{fmt}/{what}"]["ns_per_event"]
                ratio = ns / r[f"craft/{what}"]["ns_per_event"]
                pub = PUBLISHED[(fmt, what)]
                print(f"{fmt[:5]:>5} {what:8} {ns:10,.0f} {r['bytes'][fmt]:12,.1f} "
                      f"{ratio:9.2f} {pub:>13,} (pub.)")  # fmt: skip
        if COMPILED:
            ns = r["open_protocol_compiled/decode"]["ns_per_event"]
            fast = r["open_protocol/decode"]["ns_per_event"]
            print(f"open_protocol compiled decode {ns:,.0f} ns/event, {1e9 / ns:,.0f} events/s: "
                  f"{fast / ns:.2f}x the Python reader ({1e9 / fast:,.0f} events/s)")  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
