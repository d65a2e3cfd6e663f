"""``wirespec ingest all samples`` end to end: wall and CPU seconds (not a test).

    .venv/bin/python -m benchmarks.ingest_samples [--repo PATH] [--runs 1]

Runs ``python -m generator ingest all samples --output TMP`` in the checkout ``--repo``
(default: this one; point it at another checkout to compare before/after) and prints the
wall seconds and the CPU seconds of the whole process tree (driver, JVM, Python workers;
:mod:`benchmarks.proctree`). CPU seconds are what to compare on a shared machine: other
processes' load stretches the wall time, not the CPU this run takes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.proctree import Watch

ROOT = Path(__file__).resolve().parent.parent


def run_once(repo: Path) -> tuple[float, float, dict]:
    with tempfile.TemporaryDirectory(prefix="wirespec-ingest-bench-") as tmp:
        env = dict(os.environ, PYTHONPATH=str(repo))
        env.setdefault("PYSPARK_PYTHON", sys.executable)
        env.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        cmd = [sys.executable, "-m", "generator", "ingest", "all", "samples", "--output", tmp]
        began = time.perf_counter()
        proc = subprocess.Popen(
            cmd, cwd=repo, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        watch = Watch(proc.pid)
        proc.wait()
        watch.stop()
        if proc.returncode:
            sys.exit(f"ingest failed with {proc.returncode}")
        return time.perf_counter() - began, watch.cpu_seconds, watch.peak_kib


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, default=ROOT)
    ap.add_argument("--runs", type=int, default=1)
    args = ap.parse_args(argv)
    for _ in range(args.runs):
        wall, cpu, peak = run_once(args.repo.resolve())
        print(
            f"| {args.repo} | {wall:,.1f} | {cpu:,.1f} | {peak['jvm'] / 1024:,.0f} | "
            f"{peak['python'] / 1024:,.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
