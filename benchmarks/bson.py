#!/usr/bin/env python3
"""Decode throughput of the generated BSON codec beside pymongo's ``bson`` module, its C
extension and its pure-Python decoder.

Workloads: ``samples`` (the four files of samples/bson/: an oplog update, a change stream
insert, every type, five orders back to back; each file read as its documents) and
``order`` (one ~330 byte order document, as a change stream's fullDocument holds it).
Decoders: ``wirespec parse`` (the compiled tier where it is built), ``wirespec parse (pure
Python)`` (``WIRESPEC_PURE_PYTHON=1``), ``bson.decode_all (C)`` and ``bson.decode_all
(pure Python)`` (the module imported with its ``_cbson`` extension hidden). Each decoder
runs in its own process, the runs interleaved (run 1 of every decoder, then run 2, ...)
so a loaded machine slows them alike; the median of ``--runs`` is reported as files/s
with the ratio to pymongo's C extension. Workload ``encode`` builds the order back: wirespec
from the model it read, pymongo (``bson.encode``) from the dict it read. wirespec gives its models (every element's type,
key and value, sizes kept), pymongo plain Python values.

    .venv/bin/python -m benchmarks.bson [--n 2000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples" / "bson"
DECODERS = {
    "wirespec parse": ("wirespec", {}),
    "wirespec parse (pure Python)": ("wirespec", {"WIRESPEC_PURE_PYTHON": "1"}),
    "bson.decode_all (C)": ("pymongo", {}),
    "bson.decode_all (pure Python)": ("pymongo_pure", {}),
}
BASELINE = "bson.decode_all (C)"
ENCODERS = {
    "wirespec build": ("wirespec", {}),
    "wirespec build (pure Python)": ("wirespec", {"WIRESPEC_PURE_PYTHON": "1"}),
    "bson.encode (C)": ("pymongo", {}),
    "bson.encode (pure Python)": ("pymongo_pure", {}),
}
"""The order document built back: wirespec from its model, pymongo from its dict."""


def order_document() -> bytes:
    import datetime

    import bson
    from bson import Decimal128, ObjectId

    wall = datetime.datetime(2026, 11, 25, 12, 0, 0, 123000, tzinfo=datetime.timezone.utc)
    return bson.encode(
        {"_id": ObjectId("6924a2c0f1e2d3c4b5a69788"), "customer": "c-90210", "status": "new",
         "amount": Decimal128("42.50"), "created_at": wall, "gift": False, "note": None,
         "items": [{"sku": "MUG-01", "qty": 2, "price": 12.99}, {"sku": "TEA-GREEN", "qty": 1}],
         "tags": ["express", "fragile"], "shipping": {"city": "Berlin", "zip": "10117"}}
    )  # fmt: skip


def payloads(workload: str) -> list[bytes]:
    if workload == "order":
        return [order_document()]
    return [path.read_bytes() for path in sorted(SAMPLES.glob("*.bin"))]


def decoder_function(kind: str, encode: bool = False):
    """The decode (or encode) function of one decoder, imported in this (child) process."""
    if kind == "wirespec":
        import generated.bson as codec

        return codec.build if encode else codec.parse
    if kind == "pymongo_pure":
        sys.modules["bson._cbson"] = None  # an import of it fails: bson falls back to Python
    import bson

    if kind == "pymongo" and not bson.has_c():
        raise SystemExit("pymongo's C extension is not built")
    if kind == "pymongo_pure" and bson.has_c():
        raise SystemExit("pymongo's C extension could not be hidden")
    return bson.encode if encode else bson.decode_all


def run(workload: str, kind: str, passes: int) -> float:
    """Decode the workload ``passes`` times (in a child process); the CPU seconds it took.
    Workload ``encode``: build the order document back from what each decoder read."""
    encode = workload == "encode"
    decode, files = decoder_function(kind, encode), payloads("order" if encode else workload)
    if encode:
        read = decoder_function(kind)
        files = [read(data) if kind == "wirespec" else read(data)[0] for data in files]
    for data in files:  # warm-up: the first call binds the tiers
        decode(data)
    start = time.process_time()
    for _ in range(passes):
        for data in files:
            decode(data)
    return time.process_time() - start


def seconds(workload: str, decoder: str, passes: int) -> float:
    kind, env = {**DECODERS, **ENCODERS}[decoder]
    code = f"import benchmarks.bson as b; print(b.run({workload!r}, {kind!r}, {passes}))"
    env = dict(os.environ, PYTHONPATH=str(ROOT), **env)
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    return float(out.stdout)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="passes over the workload per run")
    parser.add_argument("--runs", type=int, default=5, help="runs per decoder (the median)")
    args = parser.parse_args(argv)
    for workload in ("samples", "order", "encode"):
        files = len(payloads("order" if workload == "encode" else workload))
        coders = ENCODERS if workload == "encode" else DECODERS
        times: dict[str, list[float]] = {name: [] for name in coders}
        for _ in range(args.runs):
            for name in coders:
                times[name].append(seconds(workload, name, args.n))
        rates = {name: args.n * files / statistics.median(t) for name, t in times.items()}
        baseline = rates["bson.encode (C)" if workload == "encode" else BASELINE]
        print(f"\n{workload} ({files} file(s), median of {args.runs} runs of {args.n} passes)")
        print(f"  {'decoder':32} {'files/s':>12} {'vs C':>8}")
        for name, rate in rates.items():
            print(f"  {name:32} {rate:12,.0f} {rate / baseline:8.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
