"""Robustness properties of every format, on models its exported ``strategies`` draws:

* parse(build(m)) == m (compared in the JSON form, computed fields left out, so NaN
  payloads count as equal bit patterns);
* build(parse(b)) == b for bytes from the builders and from the shipped reference
  samples;
* the fast path equals the construct path on those bytes.

Bounded example counts keep the normal run short; ``wirespec fuzz`` covers hostile bytes.
"""

from __future__ import annotations

import importlib
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.cli import fuzz
from generator.cli.fuzz import join_pair

ROOT = Path(__file__).resolve().parent.parent
FORMATS = list(fuzz.FORMATS)
EXAMPLES = 25
HEADER = ("serializable_field_size", "last_non_ignorable_field_id")


def module(fmt):
    return importlib.import_module(f"generated.{fmt}")


def records(fmt):
    mod = module(fmt)
    names = list(mod.RECORDS)
    table = getattr(mod, "_STRATEGY_RECORDS", {})
    return [
        n
        for n in names
        if not table.get(n, {}).get("needs_parent") and not table.get(n, {}).get("no_strategy")
    ]


CASES = [(fmt, rec) for fmt in FORMATS for rec in records(fmt)]


def _kept(key: str, form: dict) -> bool:
    """A model field the loader adds to keep how a field was written (``<field>_wire``,
    ``_blocks``, ``_terminator``; runtime.core.sequences.Kept): read, never drawn."""
    field, _, suffix = key.rpartition("_")
    return suffix in ("wire", "blocks", "terminator") and field in form


def _strip(value):
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in HEADER and not _kept(k, value)}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def semantic(mod, model, record):
    """The JSON form without computed fields (from_dict drops them) nor the serializable
    header (computed on build); a Thrift envelope without its body, which it reads as raw
    fields whatever struct was written (its bytes must still come back)."""
    form = mod.to_dict(model)
    if hasattr(mod, "_STRATEGY_RECORDS") and record in mod._STRATEGY_RECORDS:
        form = mod.to_dict(mod.from_dict(form, record))
    if record == "message" and hasattr(mod, "STRUCT_FIELDS"):
        form = {k: v for k, v in form.items() if k != "body"}
    return _strip(form)


def write(mod, model, record):
    if getattr(mod, "KAFKA_RECORD", None) == record:
        return mod.build_pair(model)
    return mod.build(model, record) if record in mod.RECORDS else mod.build(model)


def read(mod, data, record):
    if getattr(mod, "KAFKA_RECORD", None) == record:
        return mod.parse_pair(*data)
    return mod.parse(data, record)


def test_every_format_is_covered():
    """The fuzzer's formats, which these tests share, are every generated module."""
    generated = {p.stem for p in (ROOT / "generated").glob("*.py")} - {"__init__"}
    assert set(FORMATS) == generated


def test_every_format_exports_strategies():
    for fmt in FORMATS:
        assert callable(module(fmt).strategies), fmt


@pytest.mark.parametrize("fmt, record", CASES)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_parse_build_round_trip(fmt, record, data):
    mod = module(fmt)
    model = data.draw(mod.strategies(record))
    wire = write(mod, model, record)
    again = read(mod, wire, record)
    assert semantic(mod, again, record) == semantic(mod, model, record)
    assert write(mod, again, record) == wire  # build(parse(b)) == b
    if record in (getattr(mod, "FAST_READERS", None) or {}):
        assert mod.to_dict(mod.parse_construct(wire, record)) == mod.to_dict(again)


def test_open_protocol_draws_only_floats_go_can_write():
    """Go's encoding/json cannot write an infinite float (Open Protocol refuses to build one),
    so its strategies draw finite floats only; Craft's binary float64 may be infinite."""
    from hypothesis import find
    from hypothesis.errors import NoSuchExample

    from runtime.formats.ticdc_strategies import ticdc_values

    def infinite(value):
        return value is not None and math.isinf(value)

    assert math.isinf(find(ticdc_values("f64", 0), infinite))  # Craft's wire type
    with pytest.raises(NoSuchExample):
        find(ticdc_values("float64", 0), infinite)  # Open Protocol's rendering


def reference(fmt):
    return sorted((ROOT / "samples" / fmt).glob("*.bin"))


@pytest.mark.parametrize(
    "fmt, path",
    [(f, p) for f in FORMATS for p in reference(f)],
    ids=lambda x: getattr(x, "name", x),
)
def test_reference_samples_rebuild_byte_for_byte(fmt, path):
    mod = module(fmt)
    data = path.read_bytes()
    assert mod.build(mod.parse(data)) == data
    if hasattr(mod, "parse_construct"):
        assert mod.to_dict(mod.parse_construct(data)) == mod.to_dict(mod.parse(data))


def test_open_protocol_pairs_join_for_the_fuzzer():
    mod = module("ticdc_open_protocol")
    from generator.cli.fuzz import split_pair

    key, value = mod.build_pair(mod.Message(events=[]))
    assert split_pair(join_pair(key, value)) == (key, value)


def test_slow_or_big_draws_on_a_loaded_machine_are_no_failure():
    """tests/conftest.py's profile: every property test here inherits it."""
    assert {HealthCheck.too_slow, HealthCheck.data_too_large} <= set(
        settings.default.suppress_health_check
    )
    assert settings.default.deadline is None
