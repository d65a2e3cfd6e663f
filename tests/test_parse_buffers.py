"""``parse`` and ``iter_rows`` of any buffer of a message's bytes give what the pure-Python
tier gives for those bytes: the same model, ``to_dict`` and rows, or the same error (type,
text, offset, path), with and without limits.

Each shipped sample, two truncations and a few seeded byte mutations of it are parsed as
``bytes``, a bytearray, a memoryview of either, a memoryview slice of either (offsets are
the view's), a memoryview of another format and a strided memoryview, without limits, with
limits that change nothing and with limits that some samples break. The compiled tier reads
the C-contiguous buffers from C (runtime/_compiled/buffers.pxd, through the buffer protocol:
one copy where the caller may change the buffer, since a lazy or pending model keeps its
input) and leaves a strided view to the module's Python ``parse``, which hands its bytes to
the compiled readers as it does a call with limits. The pure-Python tier's outcomes come from
a child process with ``WIRESPEC_PURE_PYTHON=1``; the suite runs this file in both tiers.
"""

from __future__ import annotations

import ctypes
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
    "memoryview of chars": lambda d: memoryview(d).cast("c"),
    "memoryview of a memoryview slice": lambda d: memoryview(memoryview(b"\xff" + d)[1:]),
}
"""Buffers the compiled tier reads from C (through the buffer protocol: a C-contiguous
view's bytes, whatever its format, as ``bytes(view)`` gives them)."""

LEFT_TO_PYTHON = {
    "strided memoryview": lambda d: memoryview(bytes(b for x in d for b in (x, 0)))[::2],
}
"""Buffers the module's Python ``parse`` reads (as ``bytes(buffer)``)."""

BUFFERS = {**READ_FROM_C, **LEFT_TO_PYTHON}

LIMITS = {
    "no limits": {},
    "limits": {"max_depth": 64},
    "tight limits": {"max_count": 4, "max_string": 48},
}
"""The limits each input is parsed with: a call with limits is the module's Python
``parse``, which tries the compiled readers with them."""


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


def outcome(mod, buffer, record: str, limits: dict) -> list:
    """What ``parse`` gives: its model's ``to_dict`` and rows (as text), or its error."""
    try:
        model = mod.parse(buffer, record, **limits)
    except DecodeError as err:
        got = ["error", type(err).__name__, str(err), err.offset, err.path]
    else:
        if not memoryview(buffer).readonly:
            buffer[:] = bytes(len(buffer))  # a model never shares a buffer its caller may change
        got = ["model", repr(mod.to_dict(model))]
        if hasattr(mod, "to_rows"):
            got.append(repr(list(mod.to_rows(model, record))))
    return got


def rows_outcome(mod, buffer, record: str, limits: dict) -> list:
    """What ``iter_rows`` gives: its rows (as text) or its error."""
    try:
        return ["rows", repr(list(mod.iter_rows(buffer, record, **limits)))]
    except DecodeError as err:
        return ["error", type(err).__name__, str(err), err.offset, err.path]


def outcomes() -> dict[str, list]:
    """Every input's outcomes as ``bytes``, in this process's tier (the child's entry)."""
    got = {}
    for fmt in FORMATS:
        mod = importlib.import_module(f"generated.{fmt}")
        for key, record, data in inputs(fmt):
            for name, limits in LIMITS.items():
                got[f"{key} {name}"] = outcome(mod, data, record, limits)
                if hasattr(mod, "iter_rows"):
                    got[f"{key} {name} rows"] = rows_outcome(mod, data, record, limits)
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


@pytest.mark.parametrize("limits", LIMITS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_buffer_parses_as_the_pure_python_tier_parses_its_bytes(fmt, limits, pure_python):
    mod = importlib.import_module(f"generated.{fmt}")
    given = LIMITS[limits]
    for key, record, data in inputs(fmt):
        expected = json.loads(json.dumps(pure_python[f"{key} {limits}"]))
        rows = pure_python.get(f"{key} {limits} rows")
        for name, make in BUFFERS.items():
            assert outcome(mod, make(data), record, given) == expected, (key, name)
            if rows is not None:
                assert rows_outcome(mod, make(data), record, given) == rows, (key, name)
        if key.endswith("/0") and expected[0] == "model":
            model = mod.parse(data, record, **given)
            for name, make in BUFFERS.items():
                assert mod.parse(make(data), record, **given) == model, (key, name)


def compiled_modules() -> dict:
    """The generated modules whose ``parse`` is compiled (dispatch.pyx's ``EntriesFirst``)."""
    modules = {fmt: importlib.import_module(f"generated.{fmt}") for fmt in FORMATS}
    compiled = {f: m for f, m in modules.items() if type(m.parse).__name__ == "EntriesFirst"}
    if not compiled:
        pytest.skip("no generated module is compiled")
    return compiled


def test_the_compiled_readers_take_every_contiguous_buffer():
    """A generated module's ``parse`` (dispatch.pyx's ``EntriesFirst``, rebuilt here over a
    Python ``parse`` that counts its calls) reads a C-contiguous buffer from C wherever it
    reads the same ``bytes``, and hands a strided one to the Python ``parse``."""
    taken, calls = 0, []
    for fmt, mod in compiled_modules().items():

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
                # a strided view of one byte (pgoutput's Stream Stop) is contiguous
                strided = name in LEFT_TO_PYTHON and not memoryview(make(data)).c_contiguous
                assert bool(calls) == strided, (key, name)
                del calls[:]
    assert taken >= len(FORMATS) // 2


@pytest.mark.parametrize("limits", ["limits", "no limits"])
def test_the_python_parse_hands_every_buffer_to_the_compiled_readers(limits, monkeypatch):
    """A call with limits, and a buffer ``EntriesFirst`` leaves to it, reach the module's
    Python ``parse``, which gives its compiled reader the buffer's bytes (as ``bytes``, so
    the model it keeps is never the caller's buffer)."""
    taken, given = 0, []
    for fmt, mod in compiled_modules().items():
        for record, read in list(mod.COMPILED_READERS.items()):

            def counted(data, lim, read=read):
                given.append(data)
                return read(data, lim)

            monkeypatch.setitem(mod.COMPILED_READERS, record, counted)
        for key, record, data in inputs(fmt):
            if not key.endswith("/0") or record not in mod.COMPILED_READERS:
                continue
            del given[:]
            expected = mod.parse(data, record, **LIMITS[limits])
            if limits == "no limits" and given:
                continue  # declined from C: the same bytes again
            taken += 1
            for name, make in BUFFERS.items():
                contiguous = name in READ_FROM_C or memoryview(make(data)).c_contiguous
                if limits == "no limits" and contiguous:
                    continue  # read from C (the test above; a strided view of one byte too)
                del given[:]
                assert mod.parse(make(data), record, **LIMITS[limits]) == expected, (key, name)
                assert [type(x) for x in given] == [bytes] and given[0] == data, (key, name)
        monkeypatch.undo()
    assert taken


def test_a_view_of_memory_no_object_owns_parses_as_its_bytes():
    """A memoryview made in C over bare memory (``PyMemoryView_FromMemory``: no exporting
    object behind it) is read as its bytes, in either tier."""
    from_memory = ctypes.pythonapi.PyMemoryView_FromMemory
    from_memory.restype = ctypes.py_object
    from_memory.argtypes = [ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_int]
    for fmt in FORMATS:
        mod = importlib.import_module(f"generated.{fmt}")
        for key, record, data in inputs(fmt):
            if not key.endswith("/0"):
                continue
            memory = ctypes.create_string_buffer(data, len(data))
            view = from_memory(ctypes.addressof(memory), len(data), 0x100)  # PyBUF_READ
            expected = outcome(mod, data, record, {})
            assert outcome(mod, view, record, {}) == expected, key


def test_protobuf_reads_only_the_part_of_a_buffer_it_is_given():
    """protobuf's compiled ``try_read`` (a message inside a longer buffer) reads ``bytes``
    and a memoryview of them in place, and copies only the part read of a bytearray or a
    view of one: the same model, kept when the buffer changes, and None for a range outside
    the buffer."""
    pw = importlib.import_module("generated.protobuf_wire")
    if pw.order.compiled is None:
        pytest.skip("protobuf's compiled loop is not built")
    try_read = pw.order.compiled.try_read
    for path in sorted((SAMPLES / "protobuf_wire").glob("*.bin")):
        data = path.read_bytes()
        whole = b"\xff" * 7 + data + b"\xfe" * 5
        expected = pw.to_dict(pw.parse(data, "order"))
        for name, make in READ_FROM_C.items():
            buffer = make(whole)
            model, end = try_read(buffer, 7, 7 + len(data), pw._LIMITS, 1)
            assert end == 7 + len(data), (path.name, name)
            if not memoryview(buffer).readonly:
                buffer[:] = bytes(len(buffer))
            assert pw.to_dict(model) == expected, (path.name, name)
            for pos, stop in ((7, len(whole) + 1), (-1, 7), (8, 7)):
                assert try_read(make(whole), pos, stop, pw._LIMITS, 1) is None, (name, pos, stop)
        assert try_read(LEFT_TO_PYTHON["strided memoryview"](whole), 7, 8, pw._LIMITS, 1) is None
