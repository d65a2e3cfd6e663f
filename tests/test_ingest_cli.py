"""``wirespec ingest`` invoked badly: a short message and a non-zero exit, before Spark starts
(no JVM in these tests), never a Python traceback or a Java stack."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


def run_ingest(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    began = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "generator", "ingest", *map(str, args)],
        check=False,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return proc, time.perf_counter() - began


def _foreign_output(tmp_path):
    out = tmp_path / "foreign"
    out.mkdir()
    (out / "theirs.txt").write_text("not ingest's")
    return out


CASES = {
    # name: (arguments, a word the message must hold); "OUT" is the --output
    "unknown format": (["nosuch", SAMPLES / "plainbuffer"], "unknown format"),
    "missing input": (["plainbuffer", "missing"], "no such file"),
    "empty directory": (["plainbuffer", "empty"], "no input files"),
    "all over an empty directory": (["all", "empty"], "no <format>/ directories"),
    "bad --mode": (["plainbuffer", SAMPLES / "plainbuffer", "--mode", "LOOSE"], "--mode"),
    "unknown --limit": (
        ["plainbuffer", SAMPLES / "plainbuffer", "--limit", "max_cont=5"],
        "unknown limit",
    ),
    "bad --limit value": (
        ["plainbuffer", SAMPLES / "plainbuffer", "--limit", "max_count=lots"],
        "whole number",
    ),
    "--limit without =": (
        ["plainbuffer", SAMPLES / "plainbuffer", "--limit", "max_count"],
        "NAME=VALUE",
    ),
    "foreign --output": (["plainbuffer", SAMPLES / "plainbuffer"], "--overwrite"),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_invocations_fail_in_one_short_message(case, tmp_path):
    args, word = CASES[case]
    (tmp_path / "empty").mkdir()
    out = _foreign_output(tmp_path) if case == "foreign --output" else tmp_path / "out"
    proc, seconds = run_ingest(*args, "--output", out, cwd=tmp_path)
    assert proc.returncode != 0
    err = proc.stderr.strip().splitlines()
    assert 1 <= len(err) <= 8, proc.stderr
    assert word in proc.stderr
    assert "Traceback" not in proc.stderr and "at org.apache" not in proc.stderr
    assert seconds < 5 or case != "unknown format"
    assert "Traceback" not in proc.stdout
    if case == "foreign --output":
        assert sorted(p.name for p in out.iterdir()) == ["theirs.txt"]
    else:
        assert not out.exists()  # nothing written: the arguments were checked first


def test_the_summary_in_a_log_cuts_no_format_name():
    """Not a terminal (run.sh's output in a file or CI): rich's 80 columns would cut
    ``ticdc_craft`` and ``ticdc_open_protocol`` to the same ``ticdc…``."""
    import io

    from rich.console import Console

    from generator.cli.ingest import print_summary

    names = ["mysql_serialization.binlog_file", "ticdc_craft", "ticdc_open_protocol"]
    row = {"files": 1, "records": 2, "events": 3, "corrupt": 0, "events_per_s": 6, "tables": []}
    row |= {"decode_seconds": 0.5, "seconds": 9.0}
    console = Console(file=io.StringIO(), width=80)
    print_summary([{**row, "format": name} for name in names], console)
    text = console.file.getvalue()
    assert all(f"│ {name} " in text for name in names) and "…" not in text, text
