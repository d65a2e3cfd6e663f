"""The generated fast path equals the construct path: the same models on valid input, the
same error (class, offset, field path) on every corrupt input.

Runs over every generated module that has a fast path, on its shipped samples, with every
truncation and with random byte mutations.
"""

from __future__ import annotations

import functools
import importlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runtime.errors import DecodeError

ROOT = Path(__file__).resolve().parent.parent


def fast_formats() -> list[str]:
    names = []
    for path in sorted((ROOT / "generated").glob("*.py")):
        if path.stem == "__init__":
            continue
        module = importlib.import_module(f"generated.{path.stem}")
        if getattr(module, "FAST_READERS", None):
            names.append(path.stem)
    return names


def samples(fmt: str) -> list[bytes]:
    return [p.read_bytes() for p in sorted((ROOT / "samples" / fmt).glob("*.bin"))]


CASES = [(fmt, i) for fmt in fast_formats() for i in range(len(samples(fmt)))]


def outcome(parse, data: bytes):
    try:
        return "ok", parse(data)
    except DecodeError as err:
        return type(err).__name__, err.offset, err.path


def both(fmt: str, data: bytes):
    module = importlib.import_module(f"generated.{fmt}")
    return outcome(module.parse, data), outcome(module.parse_construct, data)


def test_some_format_has_a_fast_path():
    assert "plainbuffer" in fast_formats()
    assert CASES, "no samples to compare on: run samples/make_samples.py"


@pytest.mark.parametrize("fmt, index", CASES)
def test_same_model_on_samples(fmt, index):
    data = samples(fmt)[index]
    fast, oracle = both(fmt, data)
    assert fast[0] == "ok" and fast == oracle


@pytest.mark.parametrize("fmt, index", CASES)
def test_same_error_at_every_truncation(fmt, index):
    data = samples(fmt)[index]
    for cut in range(len(data)):
        fast, oracle = both(fmt, data[:cut])
        assert fast == oracle, f"cut at {cut}"


@pytest.mark.parametrize("fmt, index", CASES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    mutations=st.lists(
        st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=4
    )
)
def test_same_outcome_on_mutations(fmt, index, mutations):
    data = bytearray(samples(fmt)[index])
    for where, byte in mutations:
        data[where % len(data)] = byte
    fast, oracle = both(fmt, bytes(data))
    assert fast == oracle


def test_limits_fail_the_same_way():
    from generated import plainbuffer

    data = samples("plainbuffer")[0]
    for limits in (
        {"max_count": 1},
        {"max_string": 2},
        {"max_depth": 2},
        {"max_message_bytes": 10},
    ):
        fast = outcome(functools.partial(plainbuffer.parse, **limits), data)
        oracle = outcome(functools.partial(plainbuffer.parse_construct, **limits), data)
        assert fast[0] == "LimitError" and fast == oracle, limits
