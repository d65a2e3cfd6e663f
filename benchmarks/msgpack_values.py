#!/usr/bin/env python3
"""Decode throughput of the generated MessagePack codec beside the ``msgpack`` library's
pure-Python unpacker (``msgpack.fallback``) and its C extension.

Shapes: ``log record`` (a map of 8 scalars, ~120 B, as a structured logger writes it) and
``nested document`` (~1 KB: arrays of maps of arrays, every scalar form, timestamps). Every
decoder reads the same payloads in one process; the runs are interleaved (run 1 of every
decoder, then run 2, ...) so a loaded machine slows them alike, and the median of R runs is
reported as messages/s with the ratio to msgpack's C extension. wirespec's tiers are
measured one by one: ``parse`` (the compiled tier when it is built, else the quick tier),
the quick tier's reader alone, the exact fast reader alone, and the construct oracle.
wirespec gives its models (every value keeps its form: a ``Value`` and its form's record
per value), the library plain Python values.

``--instructions`` counts instead, with ``valgrind --tool=cachegrind``, the instructions
per message of each decoder (a run decoding ``--n`` messages less one decoding none: the
same imports and payloads), which the machine's load does not change.

    .venv/bin/python benchmarks/msgpack_values.py [--n 2000] [--runs 5] [--instructions]

Also in the suite: ``python -m benchmarks --only msgpack``.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import msgpack
import msgpack.fallback

from benchmarks.instructions import instructions_of
from generated import msgpack as codec
from runtime.core.limits import DEFAULT


def log_record(i: int) -> bytes:
    return msgpack.packb(
        {"ts": msgpack.Timestamp(1_764_072_000 + i, 1000 * i), "level": "info",
         "msg": f"order {i} paid", "order_id": 100_000 + i, "amount": 42.5 + i,
         "user": None, "retry": False, "tags": ["shop", "eu"]}
    )  # fmt: skip


def nested_document(i: int) -> bytes:
    item = {"sku": f"A-{i}", "qty": i % 7, "price": 9.99, "big": 2**40 + i, "neg": -300 - i,
            "blob": bytes(range(i % 50)), "when": msgpack.Timestamp(i, 0)}  # fmt: skip
    return msgpack.packb(
        {"id": i, "items": [item] * 5, "meta": {"path": [[1, [2, [3]]], {"k": "v" * 40}]}}
    )


def parse(data: bytes):
    return codec.parse(data, "value")


def quick_tier(data: bytes):
    return codec.QUICK_READERS["value"][0](data, 0, len(data), DEFAULT)[0]


def fast_path(data: bytes):
    return codec.FAST_READERS["value"](data, 0, len(data), DEFAULT, 1)[0]


def construct_path(data: bytes):
    return codec.parse_construct(data, "value")


def fallback(data: bytes):
    return msgpack.fallback.unpackb(data)


def c_extension(data: bytes):
    return msgpack.unpackb(data)


PARSE = "wirespec parse (compiled tier)" if codec.COMPILED_READERS else "wirespec parse"
DECODERS = [
    (PARSE, parse, False),
    ("wirespec quick tier", quick_tier, False),
    ("wirespec exact fast path", fast_path, False),
    ("wirespec construct path", construct_path, False),
    ("msgpack.fallback (pure Python)", fallback, True),
    ("msgpack C extension", c_extension, True),
]
SHAPES = [("log record", log_record), ("nested document", nested_document)]


def measure(decode, payloads) -> float:
    start = time.perf_counter()
    for data in payloads:
        decode(data)
    return len(payloads) / (time.perf_counter() - start)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="messages per run")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--instructions", action="store_true", help="count with cachegrind")
    ap.add_argument("--run", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.run:
        shape, label, n = args.run
        _decode(shape, label, int(n))
        return 0
    if args.instructions:
        return _count(args.n)
    print(f"Python {platform.python_version()}, msgpack {msgpack.version}, {platform.machine()}")
    for shape, make in SHAPES:
        payloads = [make(i) for i in range(args.n)]
        rates: dict[str, list[float]] = {label: [] for label, _, _ in DECODERS}
        for _ in range(args.runs):
            for label, decode, _ in DECODERS:
                n = args.n if "construct" not in label else max(1, args.n // 20)
                rates[label].append(measure(decode, payloads[:n]))
        size = sum(map(len, payloads)) / len(payloads)
        print(f"\n{shape} ({size:.0f} B)\n\n| decoder | msg/s | vs msgpack C |\n|---|---:|---:|")
        base = statistics.median(rates[DECODERS[-1][0]])
        for label, _, _ in DECODERS:
            rate = statistics.median(rates[label])
            print(f"| {label} | {rate:,.0f} | {rate / base:.2f}x |")
    return 0


def _decode(shape: str, label: str, n: int) -> None:
    """The measured process: the payloads made, every decoder warmed, ``n`` decoded."""
    make = dict(SHAPES)[shape]
    decode = {name: fn for name, fn, _ in DECODERS}[label]
    payloads = [make(i) for i in range(64)]
    for data in payloads:
        decode(data)
    for i in range(n):
        decode(payloads[i % 64])


def _instructions(shape: str, label: str, n: int) -> int:
    return instructions_of([__file__, "--run", shape, label, str(n)])


def _count(n: int) -> int:
    print("| shape | decoder | instructions/message | vs msgpack C |\n|---|---|---:|---:|")
    for shape, _ in SHAPES:
        per = {}
        for label, _, _ in DECODERS:
            if "construct" in label or "exact" in label:  # the exact reader: as the quick tier
                continue
            per[label] = (_instructions(shape, label, n) - _instructions(shape, label, 0)) / n
        base = per[DECODERS[-1][0]]
        for label, count in per.items():
            print(f"| {shape} | {label} | {count:,.0f} | {count / base:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
