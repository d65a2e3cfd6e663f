"""``parse`` of any buffer of a message's bytes gives what the pure-Python tier gives for
those bytes: the same model and ``to_dict``, or the same error (type, text, offset).

Each shipped sample, two truncations and a few seeded byte mutations of it are parsed as
``bytes``, a bytearray, a memoryview of either, a memoryview slice of either (offsets are
the view's), a strided memoryview and a memoryview of another format. The compiled tier
reads the C-contiguous buffers of unsigned bytes from C (runtime/_compiled/buffers.pxd:
one copy where the caller may change the buffer, since a lazy or pending model keeps its
input) and leaves any other to the module's Python ``parse``. The pure-Python tier's
outcomes come from a child process with ``WIRESPEC_PURE_PYTHON=1``; the suite runs this
file in both tiers.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from runtime.core.errors import DecodeError

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
FORMATS = sorted(p.name for p in SAMPLES.iterdir() if p.is_dir() and not p.name.startswith("_"))
MUTATIONS = 3
PAIR_RECORDS = {".key": "key_frames", ".value": "value_frames"}
"""ticdc_open_protocol's samples are a Kafka key and value, each parsed as its own record."""

READ_FROM_C = {
    "bytes": bytes,
    "bytearray": bytearray,
    "memoryview": memoryview,
    "memoryview of a bytearray": lambda d: memoryview(bytearray(d)),
    "memoryview slice": lambda d: memoryview(b"\xff" + d + b"\xff")[1:-1],
    "memoryview slice of a bytearray": lambda d: memoryview(bytearray(b"\xff" + d + b"\xff"))[1:-1],
}
"""Buffers the compiled tier reads from C."""

LEFT_TO_PYTHON = {
    "strided memoryview": lambda d: memoryview(bytes(b for x in d for b in (x, 0)))[::2],
    "memoryview of chars": lambda d: memoryview(d).cast("c"),
}
"""Buffers the module's Python ``parse`` reads (as ``bytes(buffer)``)."""

BUFFERS = {**READ_FROM_C, **LEFT_TO_PYTHON}


def inputs(fmt: str) -> list[tuple[str, str, bytes]]:
    """(key, record, bytes) of each sample of ``fmt``, its truncations and mutations."""
    mod = importlib.import_module(f"generated.{fmt}")
    out = []
    for path in sorted((SAMPLES / fmt).iterdir()):
        record = PAIR_RECORDS.get(path.suffix) if fmt == "ticdc_open_protocol" else None
        if record is None and path.suffix != ".bin":
            continue
        data = path.read_bytes()
        rng = random.Random(f"{fmt}/{path.name}")
        variants = [data, data[: len(data) // 2], data[:-1]]
        for _ in range(MUTATIONS):
            mutated = bytearray(data)
            mutated[rng.randrange(len(data))] = rng.randrange(256)
            variants.append(bytes(mutated))
        for i, each in enumerate(variants):
            out.append((f"{fmt}/{path.name}/{i}", record or mod.DEFAULT_RECORD, each))
    return out


def outcome(mod, buffer, record: str) -> list:
    """What ``parse`` gives: its model's ``to_dict`` (as text) or its error."""
    try:
        model = mod.parse(buffer, record)
    except DecodeError as err:
        return ["error", type(err).__name__, str(err), err.offset]
    if not memoryview(buffer).readonly:
        buffer[:] = bytes(len(buffer))  # a model never shares a buffer its caller may change
    return ["model", repr(mod.to_dict(model))]


def outcomes() -> dict[str, list]:
    """Every input's outcome as ``bytes``, in this process's tier (the child's entry)."""
    got = {}
    for fmt in FORMATS:
        mod = importlib.import_module(f"generated.{fmt}")
        for key, record, data in inputs(fmt):
            got[key] = outcome(mod, data, record)
    return got


@pytest.fixture(scope="module")
def pure_python() -> dict[str, list]:
    env = dict(os.environ, WIRESPEC_PURE_PYTHON="1")
    child = "import sys, json; sys.path.insert(0, 'tests'); import test_parse_buffers as t; "
    child += "print(json.dumps(t.outcomes()))"
    run = subprocess.run(
        [sys.executable, "-c", child],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_buffer_parses_as_the_pure_python_tier_parses_its_bytes(fmt, pure_python):
    mod = importlib.import_module(f"generated.{fmt}")
    for key, record, data in inputs(fmt):
        expected = json.loads(json.dumps(pure_python[key]))
        for name, make in BUFFERS.items():
            assert outcome(mod, make(data), record) == expected, (key, name)
        if key.endswith("/0") and expected[0] == "model":
            model = mod.parse(data, record)
            for name, make in BUFFERS.items():
                assert mod.parse(make(data), record) == model, (key, name)


def test_the_compiled_readers_take_every_contiguous_buffer_of_bytes():
    """A generated module's ``parse`` (dispatch.pyx's ``EntriesFirst``, rebuilt here over a
    Python ``parse`` that counts its calls) reads a buffer of bytes from C wherever it reads
    the same ``bytes``, and hands any other buffer to the Python ``parse``."""
    modules = {fmt: importlib.import_module(f"generated.{fmt}") for fmt in FORMATS}
    compiled = [fmt for fmt, mod in modules.items() if type(mod.parse).__name__ == "EntriesFirst"]
    if not compiled:
        pytest.skip("no generated module is compiled")
    taken, calls = 0, []
    for fmt in compiled:
        mod = modules[fmt]

        def counted(*args, python_parse=mod.parse.__wrapped__, **limits):
            calls.append(args)
            return python_parse(*args, **limits)

        native = importlib.import_module(f"generated._compiled.{fmt}")
        parse = native.parse_first(counted, mod.DEFAULT_RECORD, mod._LIMITS)
        for key, record, data in inputs(fmt):
            if not key.endswith("/0"):
                continue
            del calls[:]
            expected = parse(data, record)
            if calls:
                continue  # declined as bytes: declined as any buffer
            taken += 1
            for name, make in BUFFERS.items():
                assert parse(make(data), record) == expected, (key, name)
                assert bool(calls) == (name in LEFT_TO_PYTHON), (key, name)
                del calls[:]
    assert taken >= len(compiled)
