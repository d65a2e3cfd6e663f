#!/usr/bin/env python3
"""Decode throughput of wirespec's PlainBuffer codec against the tablestore SDK's decoders.

Workloads are the PlainBuffer shapes of ``docs/reference/research/peer_bench.py`` (rows encoded by the SDK's
own ``PlainBufferBuilder.serialize_for_put_row``, 64 distinct rows cycled):

* small: 2 PK cells (string, int) + 3 attributes (string with timestamp, double, bool), ~140 B;
* wide:  2 PK cells + 40 timestamped attributes (int / string / double / 10-byte blob), ~1.8 KB.

Decoders: ``generated.plainbuffer.parse`` (the compiled tier when it is built); the Python
tiers on their own (the quick tier, then the exact reader); the SDK's pure-Python decoder
(``PlainBufferCodedInputStream.read_row``, the baseline of the ratio column); and, as a labelled
extra, the SDK's bundled native C parser (``tablestore.native.parse_single_row``, which returns
plain tuples and skips nothing but does no object building).

One process. For each decoder and workload, N rows are decoded one at a time; one pass is timed
R times after a warm-up decode (runs interleaved across decoders) and the median pass is
reported (MB = 10^6 input bytes). The per-pass times are in the ``--json`` output.

    python benchmarks/plainbuffer.py [--n 20000] [--runs 5] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import statistics
import struct
import sys
import time
import warnings

# the SDK logs that its optional C++ request encoder is missing; irrelevant here
logging.getLogger("tablestore").setLevel(logging.ERROR)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from tablestore.native import NATIVE_AVAILABLE, parse_single_row
    from tablestore.plainbuffer.plain_buffer_builder import PlainBufferBuilder
    from tablestore.plainbuffer.plain_buffer_coded_stream import PlainBufferCodedInputStream
    from tablestore.plainbuffer.plain_buffer_stream import PlainBufferInputStream

import runtime.core.codec as rt_codec
from generated import plainbuffer

COMPILED = "message" in plainbuffer.COMPILED_READERS
"""Whether ``plainbuffer.parse`` runs the compiled tier (built, and not forced off)."""
BASELINE = "tablestore SDK, pure-Python decoder"


# -- workloads (docs/reference/research/peer_bench.py: pb_small, pb_wide) ----------------------------------------


def pb_small(i: int) -> bytes:
    return bytes(
        PlainBufferBuilder.serialize_for_put_row(
            [("uid", f"u{i:06d}"), ("seq", i)],
            [("name", f"n{i}", 1700000000000 + i), ("score", i / 7.0), ("ok", bool(i & 1))],
        )
    )


def pb_wide(i: int) -> bytes:
    cols = []
    for k in range(40):
        m = k % 4
        if m == 0:
            v = i * 1000 + k
        elif m == 1:
            v = f"v{k}-" * 3
        elif m == 2:
            v = k / 3.0 + i
        else:
            v = bytearray([k]) * 10
        cols.append((f"column_{k:02d}", v, 1700000000000 + k))
    return bytes(
        PlainBufferBuilder.serialize_for_put_row([("uid", f"user-{i:08d}"), ("seq", i)], cols)
    )


# -- decoders ------------------------------------------------------------------------------------


def wirespec_parse(data: bytes):
    return plainbuffer.parse(data)


def python_tiers(data: bytes):
    """``parse`` without the compiled tier: the Python quick tier, then the exact reader."""
    return rt_codec.parse_fast(
        plainbuffer.FAST_READERS["message"], data, quick=plainbuffer.QUICK_READERS["message"]
    )


def sdk_python(data: bytes):
    return PlainBufferCodedInputStream(PlainBufferInputStream(data)).read_row()


DECODERS = [
    ("wirespec plainbuffer.parse" + " (compiled tier)" * COMPILED, wirespec_parse),
    ("wirespec Python tiers", python_tiers),
    (BASELINE, sdk_python),
]
if NATIVE_AVAILABLE:
    DECODERS.append(("(extra) tablestore SDK, native C parser", parse_single_row))


def _plain(v):
    if isinstance(v, float):
        return struct.pack("<d", v)
    if isinstance(v, bytearray):
        return bytes(v)
    return v


def check_agreement(payloads) -> None:
    """Every decoder must see the same row before any of them is timed."""
    for data in payloads:
        m = plainbuffer.parse(data)
        (r,) = m.rows
        ours = (
            [(c.name, _plain(c.value.value)) for c in r.primary_key],
            [(c.name, _plain(c.value.value), c.timestamp) for c in r.attributes],
        )
        pk, attrs = sdk_python(data)
        theirs = (
            [(n, _plain(v)) for n, v in pk],
            [(a[0], _plain(a[1]), a[2]) for a in attrs],
        )
        if ours != theirs:
            raise SystemExit(f"decoders disagree on {data.hex()}")
        if plainbuffer.build(m) != data:
            raise SystemExit(f"wirespec does not rebuild {data.hex()}")


# -- harness -------------------------------------------------------------------------------------


def bench(cases, n: int, runs: int) -> list[dict]:
    """Time one pass of ``n`` rows per case, ``runs`` times, and report the median pass.

    The runs are interleaved (run 1 of every case, then run 2, ...), so load from other
    processes on the machine falls on every decoder alike instead of on whichever ran last.
    """
    prepared = []
    for decoder, workload, fn, payloads in cases:
        msgs = [payloads[i % len(payloads)] for i in range(n)]
        fn(msgs[0])  # warm-up
        prepared.append((decoder, workload, fn, msgs, []))
    for _ in range(runs):
        for _, _, fn, msgs, times in prepared:
            t0 = time.perf_counter()
            for m in msgs:
                fn(m)
            times.append(time.perf_counter() - t0)
    results = []
    for decoder, workload, _, msgs, times in prepared:
        total_bytes = sum(len(m) for m in msgs)
        med = statistics.median(times)
        results.append(
            {
                "decoder": decoder,
                "workload": workload,
                "rows_per_s": n / med,
                "mb_per_s": total_bytes / med / 1e6,
                "bytes_per_row": total_bytes / n,
                "median_s": med,
                "times_s": times,
                "n": n,
                "runs": runs,
            }
        )
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000, help="rows per timed pass")
    ap.add_argument("--runs", type=int, default=5, help="timed passes; the median is reported")
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args(argv)

    workloads = {
        "small": [pb_small(i) for i in range(64)],
        "wide": [pb_wide(i) for i in range(64)],
    }
    for payloads in workloads.values():
        check_agreement(payloads)

    print(
        f"python {platform.python_version()} on {platform.machine()}; "
        f"n={args.n} rows, runs={args.runs} (median); native C parser "
        f"{'loaded' if NATIVE_AVAILABLE else 'not available'}",
        file=sys.stderr,
    )
    cases = [
        (name, workload, fn, payloads)
        for workload, payloads in workloads.items()
        for name, fn in DECODERS
    ]
    results = bench(cases, args.n, args.runs)

    baseline = {r["workload"]: r["rows_per_s"] for r in results if r["decoder"] == BASELINE}
    print("| decoder | workload | bytes/row | rows/s | MB/s | ratio to SDK Python |")
    print("|---|---|---:|---:|---:|---:|")
    for r in results:
        r["ratio_to_sdk_python"] = r["rows_per_s"] / baseline[r["workload"]]
        print(
            f"| {r['decoder']} | {r['workload']} | {r['bytes_per_row']:,.0f} | "
            f"{r['rows_per_s']:,.0f} | {r['mb_per_s']:.2f} | {r['ratio_to_sdk_python']:.3f}x |"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
