"""Mutation fuzzing of the generated parsers: ``wirespec fuzz FORMAT [--seconds N]``.

The fuzzer starts from valid messages (``samples/<format>/*.bin`` plus messages the
module's own builder writes from its hypothesis strategies), mutates them (bit flips,
interesting bytes, truncation, splices of two messages, length fields set to huge or
negative values, repeated, duplicated and deleted sections, inserted bytes, bit flips in
the header, nesting depth bombs) and feeds every mutant to
the parser. An input passes when:

* the parser returns a model or raises :class:`runtime.core.errors.DecodeError` (nothing else:
  no ``IndexError``, ``RecursionError``, ``MemoryError``, ...);
* it finishes within :func:`time_bound` of its size (CPU time, see :data:`CLOCK`);
* the peak memory the parse allocated (``tracemalloc``) stays below :func:`memory_bound`
  of its size;
* a model it returns rebuilds: ``parse(build(model))`` has the same JSON form (the
  fields the builder computes left out), and the fast path (where there is one) returns
  what the construct path returns;
* a model it returns is written back as the input, byte for byte: ``build(parse(x)) == x``
  (the finding shows both in hex), except for the records still open in
  :data:`generator.cli.exactness.KNOWN_DIFFERENT`;
* where the compiled tier is built, its reader takes exactly what the Python quick tier
  takes, with the same model (:func:`tier_readers`).

Every failing input is saved under ``tests/fuzz/crashes/<format>/<record>--<hash>.bin``
(with a ``.txt`` saying what went wrong); ``tests/test_robustness_fuzz.py`` replays them
all, so a crash found once stays fixed. ``--spec SPEC`` fuzzes your own spec's module,
rendered in memory, and saves under ``fuzz-crashes/`` beside the spec instead.

A second phase (``--phase forms``; both phases by default) edits seeds' models in their JSON
form and holds ``build`` to never writing bytes its own ``parse`` refuses
(:mod:`generator.cli.fuzz_forms`); its failing forms are saved as ``<record>--<hash>.json``.

Open Protocol's Kafka message is a key and a value; its fuzz input is
``u32be(len(key)) + key + value`` (:func:`split_pair`).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import importlib
import json
import random
import re
import sys
import time
import traceback
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import runtime.core.fast as rt_fast
from generator import ROOT
from generator.cli.common import CliError, counted, examples
from generator.cli.exactness import is_known
from generator.cli.fuzz_forms import as_form, check_form, donors_of, edit, encoded
from generator.cli.fuzz_mutators import mutate
from generator.cli.fuzz_seeds import builder_seeds, cut_seeds, join_pair, split_pair
from generator.cli.target import format_help, load_codec, spec_codec
from runtime.core.errors import DecodeError, EncodeError, did_you_mean
from runtime.core.limits import Limits

CRASH_DIR = ROOT / "tests" / "fuzz" / "crashes"

FORMATS = (
    "plainbuffer",
    "mysql_serialization",
    "thrift_compact",
    "ticdc_craft",
    "ticdc_open_protocol",
    "avro_container",
    "msgpack",
    "png",
    "kafka_record_batch",
    "parquet",
    "protobuf_wire",
    "pgoutput",
    "bson",
)

TIME_BASE = 0.5
"""CPU seconds any input may take, however small (tracemalloc is on while it runs) ..."""
TIME_PER_BYTE = 20e-6
"""... plus this much per input byte (a 64 KiB input: 1.8 s)."""
SLOW_RETRIES = 2
"""A parse over its time bound is timed this many times again, untraced; the fastest counts."""
CLOCK = time.process_time
"""What a parse is timed by. The bound is near the time dense inputs take with tracemalloc
on, so wall-clock time, which also counts the time other jobs hold the CPU, could fail CI
on a busy machine on timing alone. This process's CPU time does not grow with the load, and
still counts all of the parse's work (a native library's threads included), so a
quadratic or runaway parse stays over its bound."""
FORM_SHARE = 0.25
"""The share of inputs that are edited JSON forms when both phases run."""
PHASES = ("both", "bytes", "forms")
MEMORY_BASE = 1 << 20
"""Bytes of peak allocation any input may cause, however small ..."""
MEMORY_PER_BYTE = 256
"""... plus this many per input byte (a slotted model object per wire byte fits)."""
PROGRESS_EVERY = 0.25
"""Seconds between two calls of :func:`run`'s ``progress``."""
LOG_EVERY = 5.0
"""Seconds between two progress lines of the CLI when stderr is not a terminal."""


def time_bound(size: int) -> float:
    """CPU seconds a parse of ``size`` bytes may take."""
    return TIME_BASE + TIME_PER_BYTE * size


def _timed(parse, data: bytes) -> float:
    """CPU seconds one ``parse(data)`` takes untraced, whatever it gives (tracemalloc, on
    again afterwards, slows an allocating parse several times over: a parse slow only
    under it is no hang)."""
    frames = tracemalloc.get_traceback_limit() if tracemalloc.is_tracing() else 0
    tracemalloc.stop()
    try:
        start = CLOCK()
        with contextlib.suppress(Exception):  # only the time matters here
            parse(data)
        return CLOCK() - start
    finally:
        if frames:
            tracemalloc.start(frames)


def too_slow(elapsed: float, size: int, again: Callable[[], float]) -> float | None:
    """The CPU seconds a parse of ``size`` bytes is held to take when it took ``elapsed``
    (traced), or None when that is within :func:`time_bound`. Over it, the parse is timed
    :data:`SLOW_RETRIES` times again by ``again`` (:func:`_timed`), and the fastest counts:
    a collection of the whole heap, a cache another job emptied or tracemalloc's own cost
    does not come back, a slow parse does.

    >>> too_slow(0.1, 0, lambda: 9.0) is None  # within the bound: not timed again
    True
    >>> too_slow(9.0, 0, lambda: 0.1) is None  # slow once only
    True
    >>> too_slow(9.0, 0, lambda: 8.0)
    8.0
    """
    bound = time_bound(size)
    for _ in range(SLOW_RETRIES):
        if elapsed <= bound:
            return None
        elapsed = min(elapsed, again())
    return None if elapsed <= bound else elapsed


def memory_bound(size: int) -> int:
    """Peak bytes a parse of ``size`` bytes may allocate."""
    return MEMORY_BASE + MEMORY_PER_BYTE * size


# -- targets ------------------------------------------------------------------------------


def _columns_as_written(message: dict) -> dict:
    """An Open Protocol message's JSON form with each row's columns in the order the
    builder writes them: tiflow marshals a Go map, so column order carries nothing and is
    canonicalised (specs/README.md, "Round trips and their canonical forms")."""

    def by_name(column: dict) -> bytes:
        return column["name"].encode("utf-8", "surrogatepass")

    events = [
        {k: sorted(v, key=by_name) if k in ("new", "old") and v else v for k, v in ev.items()}
        for ev in message["events"]
    ]
    return {**message, "events": events}


@dataclasses.dataclass
class Target:
    """One record of one format: how to parse a fuzz input and check its model."""

    format: str
    record: str
    parse: Callable[[bytes], object]
    rebuild: Callable[[object], object] | None = None
    """model -> the model of its rebuilt bytes (compared by JSON form)."""
    oracle: Callable[[bytes], object] | None = None
    """The construct path, when ``parse`` is a fast path."""
    to_dict: Callable[[object], object] = lambda m: m
    seeds: list[bytes] = dataclasses.field(default_factory=list)
    semantic: Callable[[object], object] | None = None
    """The JSON form a rebuild must keep: without the fields the builder computes (a
    size table of non-minimal varints is rewritten minimal); ``to_dict`` when None."""
    tiers: Callable[[bytes], tuple] | None = None
    """data -> (the compiled reader's model or None, the quick tier's), when built."""
    build: Callable[[object], bytes] | None = None
    """model -> its bytes, which must be the input's (:attr:`as_read`) byte for byte."""
    as_read: Callable[[bytes], bytes] = lambda data: data
    """data -> the bytes a model of it is written back as (the Kafka pair: joined again)."""
    from_dict: Callable[[object], object] | None = None
    """JSON form -> model (the forms phase)."""
    parse_bytes_strings: Callable[[bytes], object] | None = None
    """A Thrift parse reading strings that are no UTF-8 as bytes (``strings="bytes"``),
    which build writes back as they are: the forms phase's bytes pass if it takes them."""


_SPEC_MODULES: dict = {}
"""Format -> the module of ``fuzz --spec`` (a spec rendered in memory), fuzzed instead of
``generated.<format>`` while :func:`spec_module` holds it."""


def module(fmt: str):
    return _SPEC_MODULES.get(fmt) or importlib.import_module(f"generated.{fmt}")


@contextlib.contextmanager
def spec_module(mod):
    """Fuzz ``mod`` (a spec's module rendered in memory, ``--spec``) as its format inside."""
    _SPEC_MODULES[mod.FORMAT] = mod
    try:
        yield mod
    finally:
        del _SPEC_MODULES[mod.FORMAT]


def records(fmt: str) -> list[str]:
    """The records a format's fuzzing covers (all of them)."""
    mod = module(fmt)
    return list(mod.RECORDS)


def target(fmt: str, record: str | None = None, limits: dict | None = None) -> Target:
    """The fuzz target of ``record`` (default: the format's default record)."""
    mod = module(fmt)
    record = record or mod.DEFAULT_RECORD
    if record not in mod.RECORDS:
        raise KeyError(f"{fmt} has no record {record!r}; records: {', '.join(mod.RECORDS)}")
    limits = dict(limits or {})
    to_dict = mod.to_dict
    if getattr(mod, "KAFKA_RECORD", None) == record:

        def parse_pair(data):
            return mod.parse_pair(*split_pair(data), **limits)

        def rebuild_pair(model):
            return mod.parse_pair(*mod.build_pair(model), **limits)

        def semantic(model):
            return _columns_as_written(to_dict(model))

        return Target(
            fmt,
            record,
            parse_pair,
            rebuild_pair,
            None,
            to_dict,
            semantic=semantic,
            build=lambda model: join_pair(*mod.build_pair(model)),
            as_read=lambda data: join_pair(*split_pair(data)),
            from_dict=lambda form: mod.from_dict(form, record),
        )

    def parse(data):
        return mod.parse(data, record, **limits)

    def rebuild(model):
        return mod.parse(mod.build(model, record), record, **limits)

    oracle = None
    if record in (getattr(mod, "FAST_READERS", None) or {}) and hasattr(mod, "parse_construct"):

        def oracle(data):
            return mod.parse_construct(data, record, **limits)

    def semantic(model):
        return to_dict(mod.from_dict(to_dict(model), record))

    def parse_bytes_strings(data):
        return mod.parse(data, record, strings="bytes", **limits)

    return Target(
        fmt,
        record,
        parse,
        rebuild,
        oracle,
        to_dict,
        semantic=semantic,
        tiers=tier_readers(mod, record, limits),
        build=lambda model: mod.build(model, record),
        from_dict=lambda form: mod.from_dict(form, record),
        parse_bytes_strings=parse_bytes_strings if _reads_strings_as_bytes(mod) else None,
    )


def _reads_strings_as_bytes(mod) -> bool:
    """Whether ``mod.parse`` takes ``strings="bytes"`` (a Thrift module's option; another
    module refuses it as an unknown limit before reading a byte)."""
    try:
        mod.parse(b"", mod.DEFAULT_RECORD, strings="bytes")
    except DecodeError:
        return True
    except Exception:  # noqa: BLE001 - the unknown option
        return False
    return True


def tier_readers(mod, record: str, limits: dict):
    """data -> (the compiled reader's model or None, the Python quick tier's model or
    None), for a record the compiled tier reads; None when it is not built."""
    compiled = (getattr(mod, "COMPILED_READERS", None) or {}).get(record)
    if compiled is None:
        return None
    limits_obj = Limits.from_kwargs(limits, mod._LIMITS) if limits else mod._LIMITS
    if record not in mod.QUICK_READERS:  # a map: record: it declines, or gives construct's model
        return _mapped_readers(mod, compiled, record, limits, limits_obj)
    quick, depth = mod.QUICK_READERS[record]

    def both(data: bytes):
        mine = compiled(data, limits_obj)
        theirs = None
        if depth <= limits_obj.max_depth and len(data) <= limits_obj.max_message_bytes:
            try:
                model, pos = quick(data, 0, len(data), limits_obj)
            except rt_fast.QUICK_FAILURES:
                pass
            else:
                theirs = model if pos == len(data) else None
        return mine, theirs

    return both


def _mapped_readers(mod, compiled, record: str, limits: dict, limits_obj):
    """:func:`tier_readers` of a record with ``map:`` (no quick tier of its own): the
    compiled model, and where it took the input the construct path's model (None where that
    raises), so a decline is always allowed and a model must be construct's."""

    def both(data: bytes):
        mine = compiled(data, limits_obj)
        if mine is None:
            return None, None
        try:
            return mine, mod.parse_construct(data, record, **limits)
        except DecodeError:
            return mine, None

    return both


def sample_seeds(fmt: str, record: str) -> list[bytes]:
    """Shipped samples that parse as ``record``."""
    out = []
    t = target(fmt, record)
    for path in sorted((ROOT / "samples" / fmt).glob("*.bin")):
        data = path.read_bytes()
        try:
            t.parse(data)
        except DecodeError:
            continue
        out.append(data)
    return out


def seeds(fmt: str, record: str, seed: int = 0) -> list[bytes]:
    """The fuzzer's first inputs of ``record``: the shipped samples that parse as it and
    messages built from drawn models; else its instances in the other records' (cut out,
    :func:`cut_seeds`) that parse on their own. None for a record that reads its enclosing
    record's fields (Craft's ``header``): :func:`run` fuzzes it inside that record."""
    mod = module(fmt)
    found = sample_seeds(fmt, record) + builder_seeds(mod, record, seed=seed)
    if found:
        return found
    models = []
    for other in records(fmt):
        t = target(fmt, other)
        own = [] if other == record else sample_seeds(fmt, other) + builder_seeds(mod, other)
        models.extend(t.parse(data) for data in own if _parses(t, data))
    t = target(fmt, record)
    return [data for data in cut_seeds(mod, record, models) if _parses(t, data)]


# -- checking one input -------------------------------------------------------------------


@dataclasses.dataclass
class Failure:
    format: str
    record: str
    kind: str
    """crash | slow | memory | rebuild | bytes | fastpath | compiled | encode"""
    detail: str
    data: bytes
    suffix: str = ".bin"
    """How its input is saved: ``.bin`` bytes to parse, ``.json`` a JSON form to build."""

    @property
    def signature(self) -> str:
        """What makes two failures the same bug: kind and the last frame / message."""
        first = self.detail.strip().splitlines()[-1] if self.detail.strip() else ""
        return f"{self.kind}: {re.sub(r'[0-9]+', 'N', first)[:120]}"


def _same(a, b, to_dict) -> bool:
    try:
        return to_dict(a) == to_dict(b)
    except Exception:  # noqa: BLE001 - a model to_dict cannot render is itself a finding
        return False


def check(
    t: Target, data: bytes, *, bounds: bool = True, memory: bool | None = None
) -> Failure | None:
    """Parse one input; a :class:`Failure` if it breaks a rule (see the module doc).
    ``bounds``: time and memory are held to their bounds; ``memory``: memory alone (the
    replay: a peak ``tracemalloc`` counts does not depend on the machine's load)."""

    def fail(kind, detail):
        return Failure(t.format, t.record, kind, detail, data)

    tracing = (bounds if memory is None else memory) and tracemalloc.is_tracing()
    if tracing:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
    start = CLOCK()
    model = error = None
    try:
        model = t.parse(data)
        ok = True
    except DecodeError as err:
        ok, error = False, err
    except Exception:  # noqa: BLE001 - exactly what the fuzzer looks for
        return fail("crash", traceback.format_exc(limit=-4))
    elapsed = CLOCK() - start
    if tracing:
        peak = tracemalloc.get_traced_memory()[1] - base
        if peak > memory_bound(len(data)):
            return fail("memory", f"peak {peak} bytes > bound {memory_bound(len(data))}")
    if bounds:
        slow = too_slow(elapsed, len(data), lambda: _timed(t.parse, data))
        if slow is not None:
            return fail("slow", f"{slow:.3f} CPU s > bound {time_bound(len(data)):.3f} s")
    if t.oracle is not None:
        try:
            oracle = ("ok", t.to_dict(t.oracle(data)))
        except DecodeError as err:
            oracle = (type(err).__name__, err.offset, err.path)
        except Exception:  # noqa: BLE001
            return fail("crash", "construct path: " + traceback.format_exc(limit=-4))
        if ok:
            mine = ("ok", t.to_dict(model))
        else:
            mine = (type(error).__name__, error.offset, error.path)
        if mine != oracle:
            return fail("fastpath", f"fast path {mine!r} != construct path {oracle!r}")
    if t.tiers is not None:
        try:
            mine, quick = t.tiers(data)
        except Exception:  # noqa: BLE001 - the compiled tier declines, it never raises
            return fail("crash", "compiled tier: " + traceback.format_exc(limit=-4))
        same = mine is None and quick is None
        if mine is not None and quick is not None:
            same = _same(mine, quick, t.to_dict)
        if not same:
            shown = ["declined" if m is None else "took it" for m in (mine, quick)]
            return fail("compiled", f"compiled tier {shown[0]}, quick tier {shown[1]}")
    if ok and t.rebuild is not None:
        try:
            again = t.rebuild(model)
        except (DecodeError, EncodeError) as err:
            return fail("rebuild", f"{type(err).__name__}: {err}")
        except Exception:  # noqa: BLE001
            return fail("rebuild", traceback.format_exc(limit=-4))
        if not _same(model, again, t.semantic or t.to_dict):
            return fail("rebuild", "parse(build(model)) != model")
    if ok and t.build is not None and not is_known(t.format, t.record):
        try:
            written = t.build(model)
        except Exception:  # noqa: BLE001 - it built for the rebuild check above
            return fail("rebuild", traceback.format_exc(limit=-4))
        expected = t.as_read(data)
        if written != expected:
            return fail("bytes", byte_difference(expected, written))
    return None


def check_json(t: Target, form) -> Failure | None:
    """Build an edited JSON form and parse what it writes (:func:`fuzz_forms.check_form`)."""

    def fail(kind, detail):
        return Failure(t.format, t.record, kind, detail, encoded(form), ".json")

    return check_form(t, form, fail, byte_difference)


def seed_forms(t: Target) -> list:
    """The JSON forms of ``t``'s seeds' models, the forms phase's first inputs."""
    forms = []
    for data in t.seeds:
        with contextlib.suppress(Exception):  # a seed parses; a form it cannot give: none
            forms.append(as_form(t.to_dict(t.parse(data))))
    return forms


HEX_SHOWN = 512
"""Bytes of each side a byte-difference finding shows in hex (from its first difference)."""


def byte_difference(expected: bytes, written: bytes) -> str:
    """A finding's detail: both byte strings in hex, from a little before where they part.

    >>> print(byte_difference(bytes.fromhex("ca7f8f0004"), bytes.fromhex("ca7fcf0004")))
    input     ca7f8f0004
    rebuilt   ca7fcf0004
    build(parse(x)) != x: they differ from byte 2 on (5 and 5 bytes)
    """
    at = next((i for i, (a, b) in enumerate(zip(expected, written)) if a != b), None)
    if at is None:
        at = min(len(expected), len(written))
    start = max(0, at - 16)

    def shown(data: bytes) -> str:
        text = data[start : start + HEX_SHOWN].hex()
        return ("..." if start else "") + text + ("..." if len(data) > start + HEX_SHOWN else "")

    return (
        f"input     {shown(expected)}\nrebuilt   {shown(written)}\n"
        f"build(parse(x)) != x: they differ from byte {at} on "
        f"({len(expected)} and {len(written)} bytes)"
    )


# -- the loop -----------------------------------------------------------------------------


@dataclasses.dataclass
class Report:
    format: str
    records: list[str]
    inputs: int = 0
    seconds: float = 0.0
    failures: dict = dataclasses.field(default_factory=dict)
    """signature -> first (minimized) Failure."""
    saved: list[Path] = dataclasses.field(default_factory=list)

    def summary(self) -> str:
        lines = [
            (
                f"{self.format} ({', '.join(self.records)}): {counted(self.inputs, 'input')} "
                f"in {self.seconds:.1f} s, {counted(len(self.failures), 'distinct failure')}"
            )
        ]
        for sig, f in self.failures.items():
            lines.append(f"  [{f.record}] {sig} ({len(f.data)} bytes)")
        for path in self.saved:
            lines.append(f"  saved {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
        return "\n".join(lines)


def minimize(t: Target, failure: Failure, budget: float = 2.0) -> Failure:
    """Shrink a failing input (cuts and deletions) while it fails the same way."""
    best = failure
    stop = time.perf_counter() + budget
    step = max(1, len(best.data) // 2)
    while step >= 1 and time.perf_counter() < stop:
        shrunk = False
        i = 0
        while i < len(best.data) and time.perf_counter() < stop:
            candidate = best.data[:i] + best.data[i + step :]
            again = check(t, candidate, bounds=failure.kind in ("slow", "memory"))
            if again is not None and again.signature == failure.signature:
                best = again
                shrunk = True
            else:
                i += step
        if not shrunk:
            step //= 2
    return best


def save(failure: Failure, directory: Path = CRASH_DIR) -> Path:
    folder = directory / failure.format
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(failure.data).hexdigest()[:12]
    path = folder / f"{failure.record}--{digest}{failure.suffix}"
    path.write_bytes(failure.data)
    path.with_suffix(".txt").write_text(f"{failure.kind}\n{failure.detail}\n")
    return path


def run(
    fmt: str,
    record: str | None = None,
    *,
    seconds: float = 10.0,
    seed: int = 0,
    save_dir: Path | None = CRASH_DIR,
    max_inputs: int | None = None,
    log: Callable[[str], None] | None = None,
    progress: Callable[[Report, float], None] | None = None,
    phase: str = "both",
) -> Report:
    """Fuzz ``record`` (or every record of ``fmt``) for ``seconds`` in all; ``progress``
    gets the report so far and the seconds spent, every :data:`PROGRESS_EVERY` seconds.
    ``phase``: mutated bytes, edited JSON forms, or both (:data:`FORM_SHARE` of inputs)."""
    targets = []
    for name in [record] if record else records(fmt):
        t = target(fmt, name)
        t.seeds = seeds(fmt, name, seed)
        if t.seeds:  # (none: a record that reads its enclosing record's, fuzzed inside it)
            targets.append(t)
    if not targets:
        raise CliError(f"{fmt}: {record} reads its enclosing record's fields: fuzz that record")
    report = Report(fmt, [t.record for t in targets])
    rng = random.Random(seed)
    corpora = {t.record: list(t.seeds) for t in targets}
    forms = {t.record: seed_forms(t) if phase != "bytes" else [] for t in targets}
    donors = donors_of([form for found in forms.values() for form in found])
    share = {"both": FORM_SHARE, "bytes": 0.0, "forms": 1.0}[phase]
    started = time.perf_counter()
    deadline = started + seconds
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    old_limit = sys.getrecursionlimit()
    try:
        for t in targets:  # the seeds themselves must pass
            for data in t.seeds:
                _record(report, t, check(t, data), save_dir, log)
                report.inputs += 1
        next_progress = started
        while (now := time.perf_counter()) < deadline:
            if max_inputs is not None and report.inputs >= max_inputs:
                break
            if progress is not None and now >= next_progress:
                progress(report, now - started)
                next_progress = now + PROGRESS_EVERY
            t = targets[report.inputs % len(targets)]
            if forms[t.record] and rng.random() < share:
                failure = check_json(t, edit(rng, rng.choice(forms[t.record]), donors))
                report.inputs += 1
                _record(report, t, failure, save_dir, log)
                continue
            corpus = corpora[t.record]
            data = mutate(rng, rng.choice(corpus), corpus)
            failure = check(t, data)
            report.inputs += 1
            if failure is None:
                if len(corpus) < 256 and rng.random() < 0.05 and _parses(t, data):
                    corpus.append(data)  # valid mutants seed further mutation
                continue
            _record(report, t, failure, save_dir, log)
    finally:
        if not was_tracing:
            tracemalloc.stop()
        sys.setrecursionlimit(old_limit)
    report.seconds = time.perf_counter() - started
    if progress is not None:
        progress(report, report.seconds)
    return report


def _parses(t: Target, data: bytes) -> bool:
    try:
        t.parse(data)
        return True
    except Exception:  # noqa: BLE001
        return False


def _record(report: Report, t: Target, failure, save_dir, log) -> None:
    if failure is None or failure.signature in report.failures:
        return
    if failure.suffix == ".bin":
        failure = minimize(t, failure)
    report.failures[failure.signature] = failure
    if log:
        log(f"{t.format}[{t.record}] {failure.signature}")
    if save_dir is not None:
        report.saved.append(save(failure, save_dir))


def replay(path: Path) -> Failure | None:
    """Check a saved crash input again (``<record>--<hash>.bin`` under its format), its
    peak memory included, not its time; a saved JSON form (``.json``) is built again."""
    fmt = path.parent.name
    record = path.name.split("--", 1)[0]
    if path.suffix == ".json":
        return check_json(target(fmt, record), json.loads(path.read_text()))
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        return check(target(fmt, record), path.read_bytes(), bounds=False, memory=True)
    finally:
        if not was_tracing:
            tracemalloc.stop()


# -- the CLI verb -------------------------------------------------------------------------


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text}")
    return value


def add_parser(verbs) -> None:
    cmd = verbs.add_parser(
        "fuzz",
        help="mutation-fuzz a format's parser (only DecodeError, bounded time/memory)",
        description="Feed mutants of valid messages to a format's parser for --seconds and "
        "report every input that breaks a rule (module docstring of generator/cli/fuzz.py); "
        "exit 1 when one does.",
        **examples(
            "wirespec fuzz plainbuffer --seconds 30",
            "wirespec fuzz all --seconds 5   # every format, one after the other",
            "wirespec fuzz sensorlog --spec myspecs/sensorlog.yaml",
        ),
    )
    cmd.add_argument(
        "format",
        metavar="FORMAT",
        help=format_help(f"; or all: {', '.join(FORMATS)}, one after the other"),
    )
    cmd.add_argument("--record", help="one record (default: every record of the format)")
    cmd.add_argument(
        "--seconds", type=_positive, default=10.0, help="run time per format (default: 10)"
    )
    cmd.add_argument("--seed", type=int, default=0, help="random seed (runs are repeatable)")
    cmd.add_argument(
        "--phase",
        choices=PHASES,
        default="both",
        help="bytes: mutated messages to parse; forms: edited JSON forms to build, their "
        "bytes parsed again (build must not write what parse refuses); both (default)",
    )
    cmd.add_argument(
        "--save-dir",
        help="where failing inputs go (default tests/fuzz/crashes, replayed by the tests; "
        "with --spec: fuzz-crashes/ beside the spec)",
    )
    cmd.add_argument(
        "--spec",
        help="your spec YAML, rendered in memory and fuzzed instead of FORMAT's generated "
        "module (FORMAT is the spec's format:; seeds are messages built from its strategies)",
    )
    cmd.add_argument("--no-save", action="store_true", help="do not save failing inputs")
    cmd.set_defaults(run=run_command)


@contextlib.contextmanager
def _progress_display(fmt: str, seconds: float):
    """``(progress, log)`` callbacks for :func:`run`: a rich progress bar on a terminal,
    else a line on stderr every :data:`LOG_EVERY` seconds."""

    def counts(report: Report) -> str:
        return f"{counted(report.inputs, 'input')}, {counted(len(report.failures), 'failure')}"

    if not sys.stderr.isatty():
        last = [0.0]

        def line(report: Report, elapsed: float) -> None:
            if elapsed - last[0] >= LOG_EVERY:
                last[0] = elapsed
                print(f"  {fmt}: {elapsed:.0f}/{seconds:g} s, {counts(report)}", file=sys.stderr)

        yield line, lambda text: print(f"  found {text}", file=sys.stderr, flush=True)
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task(fmt, total=seconds)

        def update(report: Report, elapsed: float) -> None:
            bar.update(task, completed=elapsed, description=f"{fmt}: {counts(report)}")

        yield update, lambda text: bar.console.print(f"  found {text}")


def run_command(args) -> int:
    """Exit 0 when nothing failed, 1 when something did (saved for the regression test)."""
    formats = list(FORMATS) if args.format == "all" else [args.format]
    if args.spec and args.format == "all":
        raise CliError("--spec fuzzes the format of one spec: give its format:, not all", 2)
    save_dir = Path(args.save_dir) if args.save_dir else CRASH_DIR
    if args.spec and not args.save_dir:  # not tests/fuzz/crashes: the tests replay those
        save_dir = Path(args.spec).parent / "fuzz-crashes"
    failed = False
    for fmt in formats:
        codec = spec_codec(args.spec, fmt) if args.spec else load_codec(fmt)
        if args.record and args.record not in codec.RECORDS:
            hint = did_you_mean(args.record, codec.RECORDS)
            raise CliError(
                f"{fmt} has no record {args.record!r}{hint}; records: {', '.join(codec.RECORDS)}",
                2,
            )
        if args.spec:  # a Thrift spec's module is its format:, not the thrift_compact FORMAT
            fmt = codec.FORMAT
        with (
            spec_module(codec) if args.spec else contextlib.nullcontext(),
            _progress_display(fmt, args.seconds) as (progress, log),
        ):
            report = run(
                fmt,
                args.record,
                seconds=args.seconds,
                seed=args.seed,
                save_dir=None if args.no_save else save_dir,
                log=log,
                progress=progress,
                phase=args.phase,
            )
        print(report.summary(), flush=True)
        failed |= bool(report.failures)
    return 1 if failed else 0
