#!/usr/bin/env python3
"""Chunk reading of the generated PNG codec (specs/png.yaml: chunks until IEND) beside
pypng's chunk reader (``png.Reader(bytes=...).chunks()``, pure Python).

Shapes, written by pypng: ``icon`` (16x16 RGBA with gAMA and pHYs, 5 chunks),
``photo with text`` (samples/png/photo_with_text.bin: 9 chunks, tEXt, zTXt and iTXt
decompressed by us), ``many IDAT`` (64x64 greyscale, IDAT split every 64 bytes: 62 chunks).
Both check every CRC-32. pypng gives each chunk's type and bytes; wirespec its model (IHDR,
PLTE, text, tIME, pHYs and gAMA read into fields, zTXt and compressed iTXt decompressed).
wirespec's tiers one by one: ``parse`` (the compiled tier when it is built), the quick
tier's reader alone, the exact fast reader, and the construct oracle.

By default it counts, with ``valgrind --tool=cachegrind``, the instructions per file of
each reader (a run reading ``--n`` files less one reading none: the same imports and
payloads), which the machine's load does not change; ``--time`` times them instead
(interleaved runs, medians).

    .venv/bin/python benchmarks/png.py [--n 500] [--time [--runs 5]]
"""

from __future__ import annotations

import argparse
import io
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# run as a script, this folder comes first on the path, and this file is not pypng's png
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]

import png

from benchmarks.instructions import instructions_of
from generated import png as codec
from runtime.core.limits import DEFAULT


def _written(width, height, rows, **options) -> bytes:
    out = io.BytesIO()
    png.Writer(width, height, **options).write(out, rows)
    return out.getvalue()


def icon() -> bytes:
    rows = [
        [(x * 16 + y * 3 + c * 40) % 256 for x in range(16) for c in range(4)] for y in range(16)
    ]
    return _written(16, 16, rows, greyscale=False, alpha=True, gamma=0.45455,
                    x_pixels_per_unit=2835, y_pixels_per_unit=2835, unit_is_meter=True)  # fmt: skip


def photo_with_text() -> bytes:
    return (ROOT / "samples" / "png" / "photo_with_text.bin").read_bytes()


def many_idat() -> bytes:
    """The image stream split into 64-byte IDAT chunks (as a streaming encoder writes
    them), by pypng's chunk writer."""
    rows = [[(x * y + x) % 256 for x in range(64)] for y in range(64)]
    chunks = list(png.Reader(bytes=_written(64, 64, rows, greyscale=True)).chunks())
    stream = b"".join(data for kind, data in chunks if kind == b"IDAT")
    idat = [(b"IDAT", stream[i : i + 64]) for i in range(0, len(stream), 64)]
    out = io.BytesIO()
    png.write_chunks(out, [chunks[0], *idat, chunks[-1]])
    return out.getvalue()


SHAPES = [("icon", icon), ("photo with text", photo_with_text), ("many IDAT", many_idat)]


def parse(data: bytes):
    return codec.parse(data)


def quick_tier(data: bytes):
    return codec.QUICK_READERS["png_file"][0](data, 0, len(data), DEFAULT)[0]


def fast_path(data: bytes):
    return codec.FAST_READERS["png_file"](data, 0, len(data), DEFAULT, 1)[0]


def construct_path(data: bytes):
    return codec.parse_construct(data)


def pypng_chunks(data: bytes):
    return list(png.Reader(bytes=data).chunks())


PARSE = "wirespec parse (compiled tier)" if codec.COMPILED_READERS else "wirespec parse"
DECODERS = [
    (PARSE, parse),
    ("wirespec quick tier", quick_tier),
    ("wirespec exact fast path", fast_path),
    ("wirespec construct path", construct_path),
    ("pypng Reader.chunks()", pypng_chunks),
]


def _read(shape: str, label: str, n: int) -> None:
    """The measured process: the payload made, the reader warmed, ``n`` files read."""
    data = dict(SHAPES)[shape]()
    read = dict(DECODERS)[label]
    read(data)
    for _ in range(n):
        read(data)


def _count(n: int, only: str | None = None) -> int:
    print("| shape | reader | instructions/file | vs pypng |\n|---|---|---:|---:|")
    for shape, make in SHAPES if only is None else [(only, dict(SHAPES)[only])]:
        per = {}
        for label, _ in DECODERS:
            m = max(1, n // 20) if "construct" in label else n
            run = [__file__, "--run", shape, label]
            per[label] = (instructions_of([*run, str(m)]) - instructions_of([*run, "0"])) / m
        base = per[DECODERS[-1][0]]
        for label, count in per.items():
            print(f"| {shape} ({len(make())} B) | {label} | {count:,.0f} | {count / base:.2f}x |")
    return 0


def _time(n: int, runs: int) -> int:
    print(f"Python {platform.python_version()}, pypng {png.__version__}, {platform.machine()}")
    for shape, make in SHAPES:
        data = make()
        rates: dict[str, list[float]] = {label: [] for label, _ in DECODERS}
        for _ in range(runs):
            for label, read in DECODERS:
                m = max(1, n // 20) if "construct" in label else n
                start = time.perf_counter()
                for _ in range(m):
                    read(data)
                rates[label].append(m / (time.perf_counter() - start))
        print(f"\n{shape} ({len(data)} B)\n\n| reader | files/s | vs pypng |\n|---|---:|---:|")
        base = statistics.median(rates[DECODERS[-1][0]])
        for label, _ in DECODERS:
            rate = statistics.median(rates[label])
            print(f"| {label} | {rate:,.0f} | {rate / base:.2f}x |")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=500, help="files read per measured run")
    ap.add_argument("--time", action="store_true", help="time instead of counting")
    ap.add_argument("--runs", type=int, default=5, help="with --time: runs per reader")
    ap.add_argument("--shape", choices=[name for name, _ in SHAPES], help="only this shape")
    ap.add_argument("--run", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.run:
        shape, label, n = args.run
        _read(shape, label, int(n))
        return 0
    return _time(args.n, args.runs) if args.time else _count(args.n, args.shape)


if __name__ == "__main__":
    raise SystemExit(main())
