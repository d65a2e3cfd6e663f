"""Instructions per ``build`` of each format's first shipped sample, in both tiers.

Runs ``valgrind --tool=cachegrind --cache-sim=no`` on this script twice per format and tier:
parse the sample, build it 20 times to warm up, ``gc.freeze()``, then build it ``--n`` times or
none, and prints the difference divided by ``--n``. The tier is the one the module loads:
compiled where its extension is built, and pure Python under ``WIRESPEC_PURE_PYTHON=1``.
Needs valgrind.

    python -m benchmarks.build_instructions [--n 200] [--formats avro_container png]

MySQL's GTID event against construct's writer: ``python -m benchmarks.mysql_build_instructions``.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from pathlib import Path

from benchmarks.instructions import instructions_of

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
FORMATS = tuple(
    sorted(p.name for p in SAMPLES.iterdir() if p.is_dir() and not p.name.startswith("_"))
)
TIERS = {"compiled": {}, "pure Python": {"WIRESPEC_PURE_PYTHON": "1"}}
WARM_UP = 20


def first_sample(fmt: str):
    """(a fresh model of ``fmt``'s first sample, the function that builds it).

    >>> model, build = first_sample("msgpack")
    >>> isinstance(build(model), bytes)
    True
    """
    mod = importlib.import_module(f"generated.{fmt}")
    if fmt == "ticdc_open_protocol":
        key = min((SAMPLES / fmt).glob("*.key"))
        return (
            mod.parse_pair(key.read_bytes(), key.with_suffix(".value").read_bytes()),
            mod.build_pair,
        )
    data = min((SAMPLES / fmt).glob("*.bin")).read_bytes()
    return mod.parse(data), mod.build


def _build(fmt: str, n: int) -> None:
    """The measured process."""
    model, build = first_sample(fmt)
    for _ in range(WARM_UP):
        build(model)
    gc.freeze()
    for _ in range(n):
        build(model)


def _per(fmt: str, env: dict, n: int) -> float:
    runs = [
        instructions_of(["-m", "benchmarks.build_instructions", "--run", fmt, str(k)], env)
        for k in (n, 0)
    ]
    return (runs[0] - runs[1]) / n


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200, help="builds in the measured run")
    ap.add_argument("--formats", nargs="*", default=FORMATS, choices=FORMATS)
    ap.add_argument("--run", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.run:
        _build(args.run[0], int(args.run[1]))
        return 0
    print(
        "| format | sample bytes | " + " | ".join(f"{t} instructions/build" for t in TIERS) + " |"
    )
    print("|---|---:|" + "---:|" * len(TIERS))
    for fmt in args.formats:
        sample = min((SAMPLES / fmt).glob("*.key" if fmt == "ticdc_open_protocol" else "*.bin"))
        size = sample.stat().st_size
        cells = " | ".join(f"{_per(fmt, env, args.n):,.0f}" for env in TIERS.values())
        print(f"| {fmt} | {size:,} | {cells} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
