"""Exact, checked by bytes: for every input that decodes, ``build(parse(x)) == x``.

Every record of every format (generator/cli/target.py ``known_formats``): the inputs the
fuzzer saved for it (tests/fuzz/crashes), and the first :data:`SEEDS` of its fuzz seeds (``generator.cli.fuzz.seeds``: shipped samples and
messages its builder writes), each with one to three bytes overwritten at random
(:data:`MUTANTS` times, a fixed random seed), parsed, built and compared byte for byte. The
fuzzer's older check compares JSON forms, which lets through a writer that writes a value
in another form than it was read in (a signalling NaN quieted, an int32's high bits lost).

The records still open are listed once, in ``generator.cli.exactness.KNOWN_DIFFERENT``
(``wirespec fuzz`` takes them as known too); a listed record that no longer differs fails
here, so the table cannot go stale."""

from __future__ import annotations

import random

import pytest

from generator.cli import fuzz
from generator.cli.exactness import ANY_RECORD, KNOWN_DIFFERENT, is_known
from generator.cli.target import known_formats
from runtime.core.errors import DecodeError

SEEDS = 6
"""Fuzz seeds of a record mutated (the first ones) ..."""
MUTANTS = 60
"""... and mutants of each: about 30 s for every format in one tier."""
DEEP = (20, 300)
"""Seeds and mutants a listed record is probed with before it counts as fixed: some differ
only rarely (two Craft messages in 6,000)."""


def mutants(seed: bytes, rng: random.Random, count: int):
    """``count`` copies of ``seed``, each with one to three bytes overwritten."""
    for _ in range(count):
        data = bytearray(seed)
        for _ in range(rng.randint(1, 3)):
            if data:
                data[rng.randrange(len(data))] = rng.randrange(256)
        yield bytes(data)


def round_trip(mod, record: str):
    """``data -> (the bytes its model is written back as, or None when it does not
    decode; the bytes they must be)``. Open Protocol's Kafka pair is key and value joined
    (``fuzz.split_pair``)."""
    if getattr(mod, "KAFKA_RECORD", None) == record:

        def pair(data: bytes):
            key, value = fuzz.split_pair(data)
            try:
                model = mod.parse_pair(key, value)
            except DecodeError:
                return None, data
            return fuzz.join_pair(*mod.build_pair(model)), fuzz.join_pair(key, value)

        return pair

    def whole(data: bytes):
        try:
            model = mod.parse(data, record)
        except DecodeError:
            return None, data
        return mod.build(model, record), data

    return whole


def inputs(fmt: str, record: str, seeds: int, count: int):
    """The inputs the fuzzer saved for ``record`` (tests/fuzz/crashes), then ``count``
    mutants of each of its first ``seeds`` fuzz seeds."""
    for path in sorted((fuzz.CRASH_DIR / fmt).glob(f"{record}--*.bin")):
        yield path.read_bytes()
    rng = random.Random(1)
    for seed in fuzz.seeds(fmt, record)[:seeds]:
        yield from mutants(seed, rng, count)


def differences(fmt: str, record: str, seeds: int = SEEDS, count: int = MUTANTS) -> list[str]:
    """The inputs of ``record`` that decode and are not written back as they came."""
    check = round_trip(fuzz.module(fmt), record)
    found = []
    for data in inputs(fmt, record, seeds, count):
        try:
            rebuilt, expected = check(data)
        except Exception as err:  # noqa: BLE001 - a model that does not build: a finding
            found.append(f"{data.hex()} decodes, does not build: {type(err).__name__}: {err}")
            continue
        if rebuilt is not None and rebuilt != expected:
            found.append(f"{expected.hex()} decodes, builds as {rebuilt.hex()}")
    return found


@pytest.mark.parametrize("fmt", known_formats())
def test_every_record_is_written_back_byte_for_byte(fmt):
    differing = {}
    for record in fuzz.records(fmt):
        found = differences(fmt, record)
        if found:
            differing[record] = found
    new = {record: found[:2] for record, found in differing.items() if not is_known(fmt, record)}
    assert not new, f"build(parse(x)) != x: {new}"
    for listed, reason in KNOWN_DIFFERENT.items():
        if listed[0] != fmt:
            continue
        if listed[1] == ANY_RECORD:
            assert differing, f"{fmt}: no record differs any more ({reason}): remove it"
        elif listed[1] not in differing:
            still = differences(fmt, listed[1], *DEEP)
            assert still, f"{listed} no longer differs ({reason}): remove it"


def test_the_known_table_names_formats_and_records_that_exist():
    for fmt, record in KNOWN_DIFFERENT:
        assert fmt in known_formats()
        assert record == ANY_RECORD or record in fuzz.records(fmt), (fmt, record)


def test_a_record_that_drops_bits_is_found(monkeypatch):
    """The probe's own check: a writer that quiets a signalling NaN (what msgpack's did)."""
    mod = fuzz.module("msgpack")
    build = mod.build
    monkeypatch.setattr(mod, "build", lambda model, record: build(model, record)[:-1] + b"\0")
    assert differences("msgpack", "float32")
