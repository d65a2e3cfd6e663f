#!/usr/bin/env python3
"""Decode and encode speed of wirespec's TiCDC Craft codec (``generated.ticdc_craft``).

Workloads, one process:

* seed row: the 301-byte update of the seed document (one event, 8 columns, new + old);
* batch16: 16 insert rows of one 20-column table (ints, unsigned ints, doubles, text,
  VARCHAR, DECIMAL, DATETIME, a NULL) in one message, as tiflow batches them.

Decoding and encoding run twice when the compiled tier is built (the reader and the way back
rendered from the spec's ``map:`` and ``batch:``, generated/_compiled/ticdc_craft.pyx):
the Python path (``decode``/``encode``: the generated fast path and runtime/formats/craft.py) and
``parse``/``encode_events`` as users call them, which then try the compiled reader and
writer first (``decode compiled``/``encode compiled``).

Reported per event: ns (the best of many short timed passes, so a busy machine inflates it
less) and MB/s of message bytes (10^6 bytes).
Beside them: the seed document's published Go figures for the seed row (``BenchmarkCraft*``,
labelled *published*; another machine, another language), and, when
``generated/ticdc_open_protocol.py`` exists, the ratio to the Open Protocol codec on the
same events in this run. Two calibration lines say how fast this machine runs Python today: the
best short pass of a 100-iteration loop, and the median of a sustained 10^6-iteration loop
against the ~30-40 ns per iteration of an idle machine (the slowdown to divide by).

    python benchmarks/ticdc_craft.py [--n 2000] [--runs 5]
"""

from __future__ import annotations

import argparse
import importlib
import json
import time
from pathlib import Path

from generated import ticdc_craft as craft
from generated.models.ticdc_types import Column, RowChangedEvent
from runtime.formats.craft import CraftMessage

PUBLISHED = {"craft decode": 7944, "craft encode": 4809, "json decode": 75822, "json encode": 28388}
VECTORS = Path(__file__).resolve().parents[1] / "tests/data/vectors/ticdc_craft.json"


def seed_row() -> bytes:
    for v in json.loads(VECTORS.read_text()):
        if v["name"] == "seed_row_changed_update":
            return bytes.fromhex(v["hex"])
    raise SystemExit("seed row vector not found")


def batch16() -> list:
    events = []
    for i in range(16):
        cols = [Column("id", 8, 0x0B, 1000 + i), Column("uid", 8, 0x80, 2**63 + i)]
        cols += [Column(f"n{j}", 3, 0, i * 1000 + j) for j in range(4)]
        cols += [Column(f"d{j}", 5, 0, i / 7 + j) for j in range(3)]
        cols += [Column(f"s{j}", 15, 0, f"value-{i}-{j}".encode()) for j in range(5)]
        cols += [Column("price", 246, 0, f"{i}.50"), Column("at", 12, 0, "2024-11-22 02:00:00")]
        cols += [Column("note", 252, 0, b"x" * 40), Column("year", 13, 0x80, 2024)]
        cols += [Column("flag", 1, 0, i & 1), Column("gone", 3, 0x40, None)]
        events.append(RowChangedEvent(424316552636792833 + i, "shop", "orders", new=cols))
    return events


def python_codec() -> CraftMessage:
    """The module's codec without the compiled tier (compiled=False): the generated frame
    reader and writer and runtime/formats/craft.py's mapping."""
    codec = CraftMessage(
        craft.frame, craft.VALUE_DECODERS["column_group.values"], craft.DICTIONARIES["frame.term_dictionary"], craft.MAPPINGS["message"],
        craft.UNMAPPINGS["message"], compiled=False,
    )  # fmt: skip
    codec.use_fast_readers(craft._read_frame)
    codec.use_fast_writers(craft._write_frame)
    return codec


def python_parse():
    """``craft.parse`` of a message without the compiled tier."""
    codec = python_codec()
    return lambda data: craft.Message(events=codec.decode(data))


def compiled_parse():
    """``craft.parse`` when the compiled tier is built (it is tried first), else None."""
    return craft.parse if "message" in craft.COMPILED_READERS else None


def cpu_per_call(fn, n: int, runs: int) -> float:
    """Seconds per call: the best of ``runs`` x 20 short passes (a short pass is likely to
    run undisturbed on a busy machine, so the best one is the codec's own cost)."""
    fn()
    per_pass = max(1, n // 20)
    best = float("inf")
    for _ in range(runs * 20):
        start = time.perf_counter()
        for _ in range(per_pass):
            fn()
        best = min(best, (time.perf_counter() - start) / per_pass)
    return best


def calibration(n: int, runs: int) -> float:
    def loop():
        p = 0
        for _ in range(100):
            p += 1
        return p

    return cpu_per_call(loop, n * 10, runs)


def sustained_loop() -> float:
    """ns per iteration of one long loop, the median of 5: a loaded machine shows here (the
    best short pass above often gets a whole core even when the machine is busy)."""
    times = []
    for _ in range(5):
        start = time.perf_counter()
        p = 0
        for _ in range(1_000_000):
            p += 1  # noqa: SIM113 - the timed loop body
        times.append((time.perf_counter() - start) * 1e3)
    return sorted(times)[2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    n, runs = args.n, args.runs

    row = seed_row()
    row_events = list(craft.decode_message(row))
    rows16 = batch16()
    (msg16,) = craft.encode_events(rows16)
    assert list(craft.decode_message(msg16)) == rows16

    try:
        op = importlib.import_module("generated.ticdc_open_protocol")
    except ModuleNotFoundError:
        op = None

    python, compiled, codec = python_parse(), compiled_parse(), python_codec()
    cases = []  # (workload, operation, events, bytes, craft fn, open protocol fn)
    for name, events, data in (("seed row", row_events, row), ("batch16", rows16, msg16)):
        dec = lambda d=data: python(d)
        enc = lambda e=events: list(codec.encode_events(e))
        op_dec = op_enc = None
        if op is not None:
            pairs = list(op.encode_events(events))
            op_dec = lambda p=pairs: [op.decode_message(k, v) for k, v in p]
            op_enc = lambda e=events: list(op.encode_events(e))
        cases.append((name, "decode", len(events), len(data), dec, op_dec))
        if compiled is not None:
            assert compiled(data).events == events
            dec_c = lambda d=data: compiled(d)
            cases.append((name, "decode compiled", len(events), len(data), dec_c, op_dec))
        cases.append((name, "encode", len(events), len(data), enc, op_enc))
        if compiled is not None:
            assert list(craft.encode_events(events)) == [data]
            enc_c = lambda e=events: list(craft.encode_events(e))
            cases.append((name, "encode compiled", len(events), len(data), enc_c, op_enc))

    calib = calibration(n, runs)
    print(f"calibration: a 100-iteration Python loop takes {calib * 1e9:,.0f} ns here (best pass)")
    sustained = sustained_loop()
    print(
        f"sustained: a 10^6-iteration loop takes {sustained:.0f} ns per iteration (median of 5;"
        f" an idle machine: ~30-40), so this machine runs about {sustained / 35:.1f}x slow\n"
    )
    header = f"{'workload':10} {'op':15} {'ns/event':>10} {'MB/s':>7}  {'Go craft (published)':>21}"
    header += f"  {'x Go':>5}" + (
        f"  {'Open Protocol ns/event':>22}  {'OP / craft':>10}" if op else ""
    )
    print(header)
    for name, what, events, size, fn, op_fn in cases:
        per_call = cpu_per_call(fn, max(1, n // events), runs)
        ns = per_call / events * 1e9
        mbs = size / per_call / 1e6
        line = f"{name:10} {what:15} {ns:10,.0f} {mbs:7.1f}"
        if name == "seed row":
            go = PUBLISHED[f"craft {what.split()[0]}"]
            line += f"  {go:>15,} ns/op  {ns / go:5.1f}"
        else:
            line += f"  {'-':>21}  {'':>5}"
        if op_fn is not None:
            op_ns = cpu_per_call(op_fn, max(1, n // events), runs) / events * 1e9
            line += f"  {op_ns:22,.0f}  {op_ns / ns:10.1f}"
        print(line)
    print(
        f"\npublished Go figures (seed document, BenchmarkCraft*/BenchmarkJson*): craft decode "
        f"{PUBLISHED['craft decode']:,} ns/op, encode {PUBLISHED['craft encode']:,}; JSON decode "
        f"{PUBLISHED['json decode']:,}, encode {PUBLISHED['json encode']:,}."
    )


if __name__ == "__main__":
    main()
