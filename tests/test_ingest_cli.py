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
    # ROOT first; what PYTHONPATH held stays after it (scripts/coverage.sh measures the run)
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
    )
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


def test_a_tiny_input_gets_no_rate_and_counts_read_as_words():
    """4 events in 7.6 s of a Spark job's start used to show "events/s 0" (and the progress
    "1 events/s", "1 records", "0/0 files" while Spark started)."""
    import io
    import re

    from rich.console import Console

    from generator.cli.ingest import Progress, print_summary

    progress = Progress(stream=io.StringIO(), every=0)
    progress.update(force=True, step="starting Spark")
    progress.start(1)
    progress.decoded(7.6)
    progress.update(force=True, step="png: done", files=1, records=1, events=4)
    lines = [re.sub(r" +\d+\.\ds ", " ", line) for line in progress.stream.getvalue().splitlines()]
    assert lines[0] == "wirespec ingest: starting Spark"
    assert lines[-1] == "wirespec ingest: png: done: 1/1 file, 1 record, 4 events"
    progress.start(2)
    progress.decoded(2.0)
    progress.update(force=True, files=2, records=3, events=5000)
    assert progress.stream.getvalue().endswith(
        ": 2/2 files, 3 records, 5,000 events, 2,500 events/s\n"
    )

    row = {"format": "png", "files": 1, "records": 1, "events": 4, "corrupt": 0, "tables": []}
    row |= {"decode_seconds": 7.6, "seconds": 10.2, "events_per_s": 0.5}
    big = {**row, "format": "msgpack", "records": 12_000, "events": 1_500_000}
    console = Console(file=io.StringIO(), width=120)
    print_summary([row, big], console)
    cells = {
        line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:-1]]
        for line in console.file.getvalue().splitlines()
        if line.startswith("│")
    }
    assert cells["png"] == ["1", "1", "4", "0", "0", "7.6", "-", "10.2"]
    assert cells["msgpack"] == ["1", "12,000", "1,500,000", "0", "0", "7.6", "197,368", "10.2"]


def test_a_file_that_reads_as_one_message_and_as_frames_asks_for_input_kind(tmp_path):
    """MessagePack documents framed by u32 lengths also decode whole as one stream of
    values: ingest names the file and asks for --input-kind, before Spark starts."""
    docs = [(SAMPLES / "msgpack" / n).read_bytes() for n in ("document.bin", "long_forms.bin")]
    path = tmp_path / "docs.bin"
    path.write_bytes(b"".join(len(d).to_bytes(4, "big") + d for d in docs))
    proc, _ = run_ingest("msgpack", path, "--output", tmp_path / "out", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    expected = (
        f"wirespec ingest: {path}: ambiguous input kind: it decodes whole as one message and "
        "splits exactly into 2 length-delimited frame(s) that each decode; give --input-kind "
        "raw or delimited"
    )
    assert proc.stderr.strip().splitlines() == [expected]
    assert not (tmp_path / "out").exists()
