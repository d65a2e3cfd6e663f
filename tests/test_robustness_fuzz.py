"""The mutation fuzzer (generator/cli/fuzz.py): a short run per format in CI, the replay of
every crash it ever found, and proof that its checks can fail."""

from __future__ import annotations

import random
import time
import tracemalloc
from pathlib import Path

import pytest

from generator.cli import exactness, fuzz, fuzz_mutators
from generator.cli.common import CliError
from generator.cli.main import main

CRASHES = sorted([*fuzz.CRASH_DIR.rglob("*.bin"), *fuzz.CRASH_DIR.rglob("*.json")])
OPEN = sorted((fuzz.CRASH_DIR.parent / "open").rglob("*.bin"))
"""Found, saved, not fixed yet (owner told): replayed as strict xfail."""
KNOWN_OPEN: dict[str, set[str]] = {}
"""Failure kinds a format may still show in the short run (none today). Fixed and
replayed from crashes/: three MySQL bodies longer than their fields (the last, by more than
its header can make up, now kept as its wire_form), an Open Protocol message mixing tiflow
and legacy columns, Open Protocol columns out of bytewise order."""
SECONDS = 4.0  # per format: eleven formats, about 45 s in all


@pytest.mark.parametrize("fmt", fuzz.FORMATS)
def test_a_short_fuzz_run_finds_nothing(fmt, tmp_path):
    report = fuzz.run(fmt, seconds=SECONDS, seed=1, save_dir=tmp_path)
    assert report.inputs > 50, report.summary()
    new = set(report.failures) - KNOWN_OPEN.get(fmt, set())
    assert not new, report.summary()


@pytest.mark.xfail(strict=True, reason="open fuzz finding, see KNOWN_OPEN")
@pytest.mark.parametrize("path", OPEN, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_open_findings_still_fail(path):
    target = fuzz.target(path.parent.name, path.name.split("--", 1)[0])
    assert fuzz.check(target, path.read_bytes(), bounds=False) is None


def test_crashes_were_found_and_saved():
    assert {p.parent.name for p in CRASHES} >= {
        "mysql_serialization",
        "thrift_compact",
        "ticdc_craft",
        "ticdc_open_protocol",
    }


@pytest.mark.parametrize("path", CRASHES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_regression_every_saved_crash_is_fixed(path):
    assert path.with_suffix(".txt").read_text().strip()  # says what went wrong
    assert fuzz.replay(path) is None


INSIDE_PARENT = {
    ("mysql_serialization", "binlog_event"),
    ("ticdc_craft", "header"),
    ("ticdc_craft", "body"),
    ("avro_container", "block_records"),
    ("avro_container", "data_block"),
    ("kafka_record_batch", "kafka_record"),
}
"""Records that read their enclosing record's fields (``_parent``) however they start, so
none parses on its own: no seeds, fuzzed inside that record."""


def test_every_seed_of_every_record_parses():
    for fmt in fuzz.FORMATS:
        for record in fuzz.records(fmt):
            seeds = fuzz.seeds(fmt, record)
            t = fuzz.target(fmt, record)
            assert [s for s in seeds if not fuzz._parses(t, s)] == [], (fmt, record)
            assert bool(seeds) != ((fmt, record) in INSIDE_PARENT), (fmt, record)


def test_a_record_fuzzed_inside_its_parent_is_refused_alone():
    with pytest.raises(CliError, match="enclosing record"):
        fuzz.run("ticdc_craft", "header", seconds=0.1, save_dir=None)


def test_mutators_change_bytes_and_stay_bounded():
    rng = random.Random(0)
    corpus = [bytes(range(40)), b"\x01\x02"]
    outs = {fuzz_mutators.mutate(rng, corpus[0], corpus) for _ in range(300)}
    assert len(outs) > 200
    assert all(len(o) <= fuzz_mutators.MAX_INPUT for o in outs)
    for mutator in fuzz_mutators.MUTATORS:
        assert isinstance(mutator(rng, b"", corpus), bytes)


def _target(parse):
    return fuzz.Target("x", "y", parse)


def test_check_flags_crashes_slowness_and_memory(monkeypatch):
    assert fuzz.check(_target(lambda d: d), b"ok") is None
    crash = fuzz.check(_target(lambda d: d[99]), b"ok")
    assert crash.kind == "crash" and "IndexError" in crash.detail
    # tracemalloc only runs inside fuzz.run; start it for this check
    tracemalloc.start()
    try:
        memory = fuzz.check(_target(lambda d: bytearray(fuzz.memory_bound(len(d)) + 1)), b"ok")
    finally:
        tracemalloc.stop()
    assert memory.kind == "memory"
    monkeypatch.setattr(fuzz, "TIME_BASE", -1.0)
    assert fuzz.check(_target(lambda d: d), b"ok").kind == "slow"


class _Clock:
    """CPU seconds that pass only when a parse says so: the slow verdict without timing."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _costly(monkeypatch, costs):
    """A target whose parses take ``costs`` CPU seconds in turn on an injected clock; the
    list it returns says whether tracemalloc ran during each."""
    clock, traced = _Clock(), []
    monkeypatch.setattr(fuzz, "CLOCK", clock)
    costs = iter(costs)

    def parse(data):
        traced.append(tracemalloc.is_tracing())
        clock.now += next(costs)
        return data

    return _target(parse), traced


def test_the_hang_bound_counts_cpu_time_not_the_machine_load():
    assert fuzz.CLOCK is time.process_time


def test_a_parse_within_its_bound_is_timed_once(monkeypatch):
    t, traced = _costly(monkeypatch, [fuzz.time_bound(2)])
    assert fuzz.check(t, b"ok") is None and len(traced) == 1


def test_a_parse_slow_only_under_tracemalloc_is_no_hang(monkeypatch):
    bound = fuzz.time_bound(2)
    t, traced = _costly(monkeypatch, [3 * bound, bound / 2])
    tracemalloc.start()
    try:
        assert fuzz.check(t, b"ok") is None
        assert tracemalloc.is_tracing()  # on again for the next input's peak
    finally:
        tracemalloc.stop()
    assert traced == [True, False]


def test_a_parse_slow_every_time_is_flagged_with_its_fastest_time(monkeypatch):
    bound = fuzz.time_bound(2)
    t, traced = _costly(monkeypatch, [bound + 5, bound + 4, bound + 3])
    failure = fuzz.check(t, b"ok")
    assert failure.kind == "slow" and failure.detail.startswith(f"{bound + 3:.3f} CPU s")
    assert len(traced) == 1 + fuzz.SLOW_RETRIES


def test_the_replay_holds_no_time_bound(monkeypatch):
    t, traced = _costly(monkeypatch, [1e9])
    assert fuzz.check(t, b"ok", bounds=False) is None and len(traced) == 1


def test_check_flags_models_that_do_not_rebuild():
    t = fuzz.Target("x", "y", lambda d: {"v": d}, rebuild=lambda m: {"v": b"other"})
    assert fuzz.check(t, b"ok").kind == "rebuild"


def test_check_flags_models_not_written_back_byte_for_byte():
    t = fuzz.Target("x", "y", lambda d: d, build=lambda m: m[:1] + b"K")
    failure = fuzz.check(t, b"ok")
    assert failure.kind == "bytes" and "6f6b" in failure.detail and "6f4b" in failure.detail
    assert fuzz.check(fuzz.Target("x", "y", lambda d: d, build=bytes), b"ok") is None


def test_check_takes_the_known_different_records_as_known(monkeypatch):
    """One table (generator/cli/exactness.py), read by the fuzzer and tests/test_exactness.py
    (empty today: a made-up entry stands for one)."""
    t = fuzz.Target("x", "y", lambda d: d, build=lambda m: b"")
    assert fuzz.check(t, b"ok").kind == "bytes"
    monkeypatch.setitem(exactness.KNOWN_DIFFERENT, ("x", "y"), "a made-up record")
    assert fuzz.check(t, b"ok") is None


def test_found_failures_are_minimized_and_saved(tmp_path):
    t = _target(lambda d: 1 // 0 if b"\xff" in d else d)
    failure = fuzz.check(t, b"abc\xffdef")
    small = fuzz.minimize(t, failure)
    assert small.data == b"\xff"
    path = fuzz.save(small, tmp_path)
    assert path.name.startswith("y--") and path.read_bytes() == b"\xff"


def test_cli_fuzz_verb(capsys):
    assert main(["fuzz", "plainbuffer", "--seconds", "0.5", "--no-save"]) == 0
    out = capsys.readouterr().out
    assert "plainbuffer" in out and "0 distinct failures" in out
    assert main(["fuzz", "plainbuffer", "--record", "nope", "--seconds", "0.1"]) == 2


def test_cli_fuzz_shows_progress_with_counts(capsys, monkeypatch):
    """Not a terminal (pytest's capture): a progress line per LOG_EVERY seconds."""
    monkeypatch.setattr(fuzz, "LOG_EVERY", 0.1)
    assert main(["fuzz", "plainbuffer", "--seconds", "0.6", "--no-save"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines and all(
        line.startswith("  plainbuffer: ") and line.endswith(" inputs, 0 failures")
        for line in lines
    ), lines


def test_bounds_grow_with_the_input():
    assert fuzz.memory_bound(0) == 1 << 20 and fuzz.memory_bound(1000) > fuzz.memory_bound(10)
    assert fuzz.time_bound(1 << 16) > fuzz.time_bound(0) > 0
    assert Path(fuzz.CRASH_DIR).is_relative_to(fuzz.ROOT)
