"""The compiled tier's writers (generator/emit/compiled_writers.py) against the Python fast
writers they are rendered from: every fast writer of the shipped formats has a compiled one
(BSON's records measured before they are written aside), and a compiled writer writes the fast writer's bytes or
raises, on every shipped sample, on generated models and on samples with one attribute
set to a wrong value; ``build`` then says what construct says. In the pure-Python tier only
the renderer's coverage is checked (no compiled module is loaded)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from generator.emit.compiled_writers import CompiledWriters
from generator.emit.fastbuild import BuildEmitter
from generator.spec.loader import load
from generator.spec.validate import build_model
from runtime.core.errors import EncodeError
from tests.test_build_errors_sweep import WRONG, _attributes
from tests.test_fastbuild import modules, sample_cases, strategy_cases

ROOT = Path(__file__).resolve().parent.parent
WITHOUT: dict[str, dict[str, str]] = {}
"""Format -> records with a fast writer and no compiled one, and why."""
MAX_ATTRIBUTES = 40
"""Attributes set to a wrong value per sample and record."""


def _formats():
    """The formats whose writers are rendered (protobuf's are table-driven)."""
    return [m.FORMAT for m in modules() if hasattr(m, "COMPILED_WRITERS")]


def _compiled(fmt):
    module = importlib.import_module(f"generated.{fmt}")
    if not hasattr(module, "COMPILED_WRITERS"):
        pytest.skip("table-driven writers, not rendered ones")
    if module._COMPILED is None:
        pytest.skip("the pure-Python tier: no compiled writers")
    return module


def _outcome(writer, model):
    """The writer's bytes, or None when it raises (then construct builds)."""
    out = bytearray()
    try:
        writer(model, out)
    except Exception:  # noqa: BLE001 - any failure: build() falls back to construct
        return None
    return bytes(out)


def _built(build, model, record):
    try:
        return build(model, record)
    except EncodeError as err:
        return str(err), err.path


def _same_or_raises(module, model, record):
    """The compiled writer's bytes are the fast writer's, or it raised."""
    fast = _outcome(getattr(module, f"_write_{record}"), model)
    compiled = _outcome(module.COMPILED_WRITERS[record], model)
    assert compiled is None or compiled == fast
    return fast, compiled


@pytest.mark.parametrize("spec", ["specs/*.yaml", "tests/data/user_specs/wav.yaml"])
def test_every_fast_writer_has_a_compiled_one(spec):
    for path in sorted(ROOT.glob(spec)):
        loaded = load(path, path.name)
        if "protocol" in loaded.data:
            continue
        model = build_model(loaded)
        if model.is_library:
            continue
        fast, compiled = BuildEmitter(model), CompiledWriters(model)
        missing = set(fast.supported) - set(compiled.supported)
        assert missing == set(WITHOUT.get(model.format, ())), (model.format, compiled.refused)


@pytest.mark.parametrize("fmt", _formats())
def test_build_uses_the_compiled_writers(fmt):
    module = _compiled(fmt)
    entries = {name for name in module.FAST_WRITERS if name not in WITHOUT.get(fmt, ())}
    assert set(module.COMPILED_WRITERS) == entries
    assert all(module.FAST_WRITERS[n] is w for n, w in module.COMPILED_WRITERS.items())


@pytest.mark.parametrize(("fmt", "name", "record"), sample_cases())
def test_the_fast_writers_bytes_on_samples(fmt, name, record):
    module = _compiled(fmt)
    if record not in module.COMPILED_WRITERS:
        pytest.skip("no compiled writer")
    model = module.parse_construct((ROOT / "samples" / fmt / name).read_bytes(), record)
    fast, compiled = _same_or_raises(module, model, record)
    assert compiled == fast == module.build_construct(model, record)


@pytest.mark.parametrize(("fmt", "record"), strategy_cases())
def test_the_fast_writers_bytes_on_generated_models(fmt, record):
    module = _compiled(fmt)
    if record not in module.COMPILED_WRITERS:
        pytest.skip("no compiled writer")

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(module.strategies(record))
    def check(model):
        fast, compiled = _same_or_raises(module, model, record)
        assert compiled == fast  # a model the fast writer writes, the compiled one writes

    check()


@pytest.mark.parametrize(("fmt", "name", "record"), sample_cases())
def test_a_wrong_value_raises_or_is_written_as_the_fast_writer_does(fmt, name, record):
    """Each attribute of the sample set in turn to each of the sweep's wrong values: the
    compiled writer raises or writes the fast writer's bytes, and ``build`` gives what
    construct gives (its bytes, or its EncodeError at its path)."""
    module = _compiled(fmt)
    if record not in module.COMPILED_WRITERS:
        pytest.skip("no compiled writer")
    data = (ROOT / "samples" / fmt / name).read_bytes()
    count = min(len(_attributes(module.parse_construct(data, record))), MAX_ATTRIBUTES)
    for n in range(count):
        for wrong in WRONG:
            model = module.parse_construct(data, record)
            owner, attribute, where = _attributes(model)[n]
            setattr(owner, attribute, wrong)
            _same_or_raises(module, model, record)
            expected = _built(module.build_construct, model, record)
            assert _built(module.build, model, record) == expected, (where, wrong)


def test_a_record_nothing_reads_returns_the_shared_empty_parent():
    """A writer whose record's fields no later expression reads makes no Parent of its own."""
    import runtime.core.fast as rt_fast

    msgpack = importlib.import_module("generated.msgpack")
    out = bytearray()
    parent = msgpack._write_positive_fixint({"value": 5}, out)
    assert out == b"\x05"
    assert parent is rt_fast.EMPTY_PARENT and parent == rt_fast.Parent()


UNSIGNED_EDGES = (0, 127, 128, 2**14 - 1, 2**14, 2**56 - 1, 2**56, 2**64 - 1, 2**64, -1)
SIGNED_EDGES = (0, -1, 63, -64, 64, -65, 2**62, -(2**63), 2**63 - 1, 2**63, True)


@pytest.mark.parametrize(
    ("attribute", "values"),
    [
        ("gtid_flags", (*UNSIGNED_EDGES, 255, 256)),
        ("gno", SIGNED_EDGES),
        ("transaction_length", UNSIGNED_EDGES),
        ("immediate_server_version", (2**32 - 1, 2**32)),
        ("original_commit_timestamp", UNSIGNED_EDGES),
        ("tag", ("", "é" * 16, "x" * 33, "\ud800", b"x")),
        ("uuid", ([255] * 16, [0] * 15, [256] * 16, [True] * 16, bytes(16), (1,) * 16)),
    ],
)
def test_a_mysql_message_at_its_varints_edges(attribute, values):
    """The compiled writer of MySQL's id-keyed body (generator/emit/compiled_messages.py)
    writes the Python fast writer's msb-count varints of every length, or raises."""
    module = _compiled("mysql_serialization")
    data = min((ROOT / "samples" / "mysql_serialization").glob("*.bin")).read_bytes()
    for value in values:
        model = module.parse_construct(data).body
        setattr(model, attribute, value)
        fast, compiled = _same_or_raises(module, model, "gtid_tagged_body")
        assert compiled is not None or fast is None, value  # what it writes, C writes
        assert _built(module.build, model, "gtid_tagged_body") == _built(
            module.build_construct, model, "gtid_tagged_body"
        )
