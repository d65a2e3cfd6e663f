"""Instructions of the pure-Python tier's pending elements (issue #17), by cachegrind.

    python -m benchmarks.pending_instructions [--mib 2] [--n 3] [--small-n 2000] [--only a,b]

Each case runs in a child process under cachegrind (``benchmarks.instructions.instructions_of``,
``WIRESPEC_PURE_PYTHON=1``, ``PYTHONHASHSEED=0``) ``n`` times and none, the heap frozen after
its setup (the imports, the input read, for ``row-*`` the input parsed); the table gives
(n less none) / n. The big inputs are the memory check's kind (``python -m benchmarks
--mem-mib``), ``--mib`` in size: PlainBuffer wide rows in one message, a binlog of tagged
GTID events. ``row-after-big`` builds a ``Row`` (its constructor, then its four fields read)
after a big input was parsed in the process, ``row-fresh`` the same where none was.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
import tempfile
from pathlib import Path

from benchmarks.instructions import instructions_of


def _every(elements) -> None:
    """A field of every element read (each built)."""
    for element in elements:
        element.__eq__(element)


def _row(pb) -> None:
    """A ``Row`` built and its fields read."""
    row = pb.Row(primary_key=[], attributes=None, delete_marker=False, checksum=0)
    row.primary_key, row.attributes, row.delete_marker, row.checksum  # noqa: B018


CASES = {
    # case: (module, input, what the setup parses first or None, the measured step)
    "plainbuffer-parse": ("plainbuffer", "pb-big", None, lambda m, d: m.parse(d)),
    "plainbuffer-every": ("plainbuffer", "pb-big", None, lambda m, d: _every(m.parse(d).rows)),
    "mysql-parse": ("mysql_serialization", "my-big", None, lambda m, d: m.parse(d, "binlog_file")),
    "mysql-every": (
        "mysql_serialization",
        "my-big",
        None,
        lambda m, d: _every(m.parse(d, "binlog_file").events),
    ),
    "plainbuffer-small": ("plainbuffer", "pb-small", None, lambda m, d: m.parse(d)),
    "mysql-seed": ("mysql_serialization", "my-seed", None, lambda m, d: m.parse(d)),
    "row-after-big": ("plainbuffer", "pb-big", "pb-big", lambda m, d: _row(m)),
    "row-fresh": ("plainbuffer", "pb-small", "pb-small", lambda m, d: _row(m)),
}
BIG = {"plainbuffer-parse", "plainbuffer-every", "mysql-parse", "mysql-every"}
"""The cases that run ``--n`` times (the others ``--small-n``)."""


def write_inputs(folder: Path, mib: int) -> None:
    """The cases' inputs, one file each."""
    from benchmarks.__main__ import mysql_binlog, plainbuffer_message
    from benchmarks.mysql_serialization import SEED_EVENT
    from benchmarks.plainbuffer import pb_small

    target = mib * 1024 * 1024 - 4096
    (folder / "pb-big").write_bytes(plainbuffer_message(target))
    (folder / "my-big").write_bytes(mysql_binlog((target - 200) // len(SEED_EVENT)))
    (folder / "pb-small").write_bytes(pb_small(0))
    (folder / "my-seed").write_bytes(SEED_EVENT)


def child(case: str, n: int, folder: str) -> None:
    """Run ``case`` ``n`` times after its setup (measured by the parent)."""
    fmt, name, first, step = CASES[case]
    module = importlib.import_module(f"generated.{fmt}")
    data = (Path(folder) / name).read_bytes()
    if first is not None:
        module.parse((Path(folder) / first).read_bytes())
    gc.collect()
    gc.freeze()
    for _ in range(n):
        step(module, data)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=2)
    ap.add_argument("--n", type=int, default=3, help="runs of a big input's case")
    ap.add_argument("--small-n", type=int, default=2000, help="runs of the other cases")
    ap.add_argument("--only", default=",".join(CASES), help="these cases, comma-separated")
    ap.add_argument("--child", nargs=3, metavar=("CASE", "N", "FOLDER"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child[0], int(args.child[1]), args.child[2])
        return 0
    env = {"WIRESPEC_PURE_PYTHON": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        write_inputs(Path(tmp), args.mib)
        print("| case (pure Python) | instructions a run |")
        print("|---|---:|")
        for case in args.only.split(","):
            n = args.n if case in BIG else args.small_n
            runs = [
                instructions_of(["-m", "benchmarks.pending_instructions", "--child", case, str(k), tmp], env)
                for k in (n, 0)
            ]  # fmt: skip
            print(f"| {case} | {(runs[0] - runs[1]) / n:,.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
