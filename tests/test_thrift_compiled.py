"""The compiled Thrift loop (runtime/_compiled/thrift_compact.pyx) held equal to the Python
readers: on every input it either declines or gives the model the Python reader gives
(equal, same repr, same JSON form with its ``$wire`` layout, same bytes on build), and
``parse`` gives the same model or the same DecodeError with the tier on or off. Its writer
likewise declines or writes the Python writer's bytes, on every model read and on models
holding values of other types.

Inputs: the shapes spec's hypothesis models as wirespec, Apache thrift (pure Python and C)
and thriftpy2 write them, read with the newer and an older schema (unknown fields); the
Thrift samples (messages); Parquet footers from the samples and from pyarrow; every
truncation and seeded byte mutations of each; structs of the real IDL corpus."""

from __future__ import annotations

import dataclasses
import io
import random
import struct
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from thrift_support import (
    DATA,
    SHAPES,
    apache_classes,
    codec,
    struct_strategy,
    thrift_model,
    thriftpy2_module,
    tp2_to_peer,
)

from generator.emit.user_spec import import_spec
from generator.spec.thrift import TType
from runtime.core import tier
from runtime.core.errors import DecodeError, EncodeError
from runtime.formats import thrift_compact as rt

LOOP = tier.compiled("runtime._compiled.thrift_compact")
pytestmark = pytest.mark.skipif(LOOP is None, reason="the compiled Thrift loop is not built")

REPO = Path(__file__).resolve().parent.parent
SPEC = thrift_model()
MOD = codec()
APACHE = apache_classes(SPEC)
TP2 = thriftpy2_module(SPEC, "compiled_shapes_thrift")
NAMES = ["AllTypes", "Gaps", "Lists", "Maps", "Node", "Holder", "Choice"]
SETTINGS = settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
MUTATIONS = 60


def _older_module():
    """The shapes spec without some fields (read as unknown) and with a union member less."""
    data = yaml.safe_load(SHAPES.read_text())
    data["format"] = "thrift_shapes_compiled_older"
    for name, ids in {"AllTypes": {9, 13}, "Gaps": {5}, "Lists": {2}, "Choice": {3}}.items():
        body = data["structs"][name]
        body["fields"] = [f for f in body["fields"] if f["id"] not in ids]
    path = DATA / "_compiled_older.yaml"
    text = yaml.safe_dump(data, sort_keys=False)
    return import_spec(path, text)


OLDER = _older_module()


def python_parse(mod, data, record, **kw):
    """``mod.parse`` with the compiled tier off: the model, or the DecodeError as text."""
    loop, mod._LOOP = mod._LOOP, None
    try:
        return mod.parse(data, record, **kw)
    except DecodeError as err:
        return f"{type(err).__name__}: {err}"
    finally:
        mod._LOOP = loop


def held_equal(mod, data: bytes, record: str, **kw):
    """The compiled loop declines or gives the Python reader's model; ``parse`` agrees with
    the tier on and off (model or error). Returns the compiled model (or None)."""
    assert mod._LOOP is not None
    limits = {k: v for k, v in kw.items() if k not in ("strings", "body")}
    cx = rt.Options.make({**mod.DEFAULT_LIMITS, **limits}, kw.get("strings", "strict"), None)
    compiled = mod._LOOP.parse(record, data, cx) if record != "message" else None
    python = python_parse(mod, data, record, **kw)
    if compiled is not None:
        assert not isinstance(python, str), python
        assert repr(compiled) == repr(python)  # NaN != NaN: models compare by repr
        assert repr(mod.to_dict(compiled)) == repr(mod.to_dict(python))
        assert compiled.wire_layout == python.wire_layout
        assert mod.build(compiled) == mod.build(python)
        built_alike(mod, compiled)
    try:
        whole = mod.parse(data, record, **kw)
    except DecodeError as err:
        whole = f"{type(err).__name__}: {err}"
    assert repr(whole) == repr(python)
    return compiled


def built_alike(mod, model):
    """The compiled writer declines or writes the Python writer's bytes; ``build`` writes
    the same bytes or raises the same EncodeError with the tier on or off. Returns the
    compiled writer's bytes (or None)."""
    name = type(model).__name__
    compiled = mod._LOOP.build(name, model)
    try:
        python = rt.build_with(mod._WRITERS[name], model)
    except EncodeError as err:
        python = f"EncodeError: {err}"
    if compiled is not None:
        assert compiled == python
    try:
        whole = mod.build(model)
    except EncodeError as err:
        whole = f"EncodeError: {err}"
    assert whole == python
    return compiled


def truncations_and_mutations(mod, data: bytes, record: str, seed: int, stride=1, **kw) -> None:
    for cut in range(0, len(data), stride):
        held_equal(mod, data[:cut], record, **kw)
    rng = random.Random(seed)
    for _ in range(MUTATIONS):
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(mutated))
            mutated[at] = rng.choice((rng.randrange(256), mutated[at] ^ 1 << rng.randrange(8)))
        held_equal(mod, bytes(mutated), record, **kw)


@pytest.mark.parametrize("name", NAMES)
def test_models_from_every_writer_read_alike(name):
    t = TType("struct", name=name)

    @SETTINGS
    @given(struct_strategy(SPEC, MOD, name, uuid_ok=True))
    def check(model):
        data = MOD.build(model)
        got = held_equal(MOD, data, name)
        assert got is not None, "the loop declined a model wirespec wrote"
        assert MOD.build(got) == data
        assert built_alike(MOD, model) == data, "the compiled writer declined a model"
        held_equal(OLDER, data, name)  # unknown fields and members, kept by either tier
        peer = APACHE.to_peer(model, t)
        for accelerated in (False, True):
            written = APACHE.write(peer, accelerated)
            held_equal(MOD, written, name)
            held_equal(OLDER, written, name)
        for strings in ("replace", "bytes"):
            held_equal(MOD, data, name, strings=strings)

    check()


@pytest.mark.parametrize("name", ["AllTypes", "Lists", "Maps", "Holder"])
def test_thriftpy2_bytes_read_alike(name):
    from thriftpy2.protocol import TCompactProtocolFactory
    from thriftpy2.utils import serialize

    t = TType("struct", name=name)

    @SETTINGS
    @given(struct_strategy(SPEC, MOD, name, uuid_ok=False))
    def check(model):
        data = serialize(tp2_to_peer(TP2, SPEC, model, t), TCompactProtocolFactory())
        assert held_equal(MOD, data, name) is not None or python_parse(MOD, data, name) is None

    check()


@pytest.mark.parametrize("name", NAMES)
def test_truncations_and_mutations(name):
    @settings(SETTINGS, max_examples=3)
    @given(struct_strategy(SPEC, MOD, name))
    def check(model):
        data = MOD.build(model)
        truncations_and_mutations(MOD, data, name, seed=len(data))
        truncations_and_mutations(OLDER, data, name, seed=len(data) + 1)

    check()


@SETTINGS
@given(struct_strategy(SPEC, MOD, "Holder"))
def test_limits_decline_where_python_raises(model):
    data = MOD.build(model)
    for limits in ({"max_depth": 1}, {"max_depth": 2}, {"max_count": 0}, {"max_string": 0}):
        held_equal(MOD, data, "Holder", **limits)


ODD_VALUES = [None, True, 1.5, 2**40, -(2**63) - 1, "x", b"x", (1, 2), {"a": 1}, [1], [None]]


@pytest.mark.parametrize("name", ["AllTypes", "Lists", "Maps", "Holder", "Choice"])
def test_models_with_odd_values_are_built_alike(name):
    """Each field set to values of other types or out of range: the compiled writer
    declines (or writes what Python writes) and build() gives the Python writer's bytes
    or its EncodeError."""

    @settings(SETTINGS, max_examples=4)
    @given(struct_strategy(SPEC, MOD, name))
    def check(model):
        for f in SPEC.structs[name].fields:
            for value in ODD_VALUES:
                built_alike(MOD, dataclasses.replace(model, **{f.attr: value}))

    check()


def raw_built_alike(mod, raw) -> bool:
    """The compiled schemaless writer declines or writes the Python writer's bytes of the
    RawStruct ``raw``; whether it wrote them."""
    compiled = mod._LOOP.build_raw(raw, mod._RAW_CLASSES)
    out = bytearray()
    try:
        mod._w_raw_struct(raw, out)
    except EncodeError:
        assert compiled is None
        return False
    assert compiled is None or compiled == bytes(out)
    return compiled is not None


def _raw_values(raw):
    """(the object holding it, its attribute) of each value of a RawStruct, depth first."""
    for f in raw.fields:
        yield f, "value"
        items = getattr(f.value, "items", None)
        if isinstance(f.value, MOD.RawStruct):
            yield from _raw_values(f.value)
        elif isinstance(items, list) and items and isinstance(items[0], MOD.RawStruct):
            yield from _raw_values(items[0])


@pytest.mark.parametrize("name", ["AllTypes", "Lists", "Maps", "Holder"])
def test_schemaless_structs_are_built_alike(name):
    """A struct read without a schema (a message's body without ``body=``, written again for
    its Spark row) is written by the compiled tier as the Python writer writes it; with a
    value of another type, a field id or type out of range, or kept bytes, it declines."""

    @settings(SETTINGS, max_examples=6)
    @given(struct_strategy(SPEC, MOD, name))
    def check(model):
        data = MOD.build(model)
        assert raw_built_alike(MOD, MOD.parse_raw(data))
        for n in range(len(list(_raw_values(MOD.parse_raw(data))))):
            for value in ODD_VALUES:
                raw = MOD.parse_raw(data)
                owner, attr = list(_raw_values(raw))[n]
                setattr(owner, attr, value)
                raw_built_alike(MOD, raw)
        for change in ({"id": 40000}, {"id": True}, {"type": 14}, {"type": "I32"}):
            raw = MOD.parse_raw(data)
            if raw.fields:
                raw.fields[0] = dataclasses.replace(raw.fields[0], **change)
                assert not raw_built_alike(MOD, raw)
        raw = MOD.parse_raw(data)
        raw.wire_form = data
        assert not raw_built_alike(MOD, raw)

    check()


def test_a_schemaless_body_row_is_its_bytes_in_both_tiers(monkeypatch):
    from generated import thrift_compact

    for path in sorted((REPO / "samples" / "thrift_compact").glob("*.bin")):
        data = path.read_bytes()
        model = thrift_compact.parse(data)
        assert isinstance(model.body, thrift_compact.RawStruct)
        (row,) = thrift_compact.to_rows(model)
        assert data.endswith(row[3])
        with monkeypatch.context() as python:
            python.setattr(thrift_compact, "_LOOP", None)
            assert list(thrift_compact.to_rows(model)) == [row]


def test_strings_modes():
    bad_utf8 = bytes([0x28, 2, 0xC3, 0x28, 0])  # Inner.s (string, id 2) = b"\xc3\x28"
    for strings in ("strict", "replace", "bytes"):
        held_equal(MOD, bad_utf8, "Inner", strings=strings)


def test_the_expansion_budget_is_charged_alike():
    # a list of a million empty structs in 2 MB: over the budget in both tiers
    n = 1_000_000
    size = bytes([n & 0x7F | 0x80, n >> 7 & 0x7F | 0x80, n >> 14])
    data = bytes([0x29, 0xFC]) + size + b"\x00" * n + b"\x00"  # Lists.inners
    assert isinstance(python_parse(MOD, data, "Lists"), str)
    held_equal(MOD, data, "Lists")


@pytest.mark.parametrize(
    "path", sorted((REPO / "samples" / "thrift_compact").glob("*.bin")), ids=lambda p: p.stem
)
def test_thrift_samples(path, monkeypatch):
    from generated import thrift_compact

    data = path.read_bytes()
    body = {"call": "get_user_args", "reply": "get_user_result"}.get(path.stem.split("_")[2])
    held_equal(thrift_compact, data, "message", body=body)
    truncations_and_mutations(thrift_compact, data, "message", seed=len(data), body=body)
    read, real = [], thrift_compact._LOOP

    class Recording:
        def parse(self, *args):
            return real.parse(*args)

        def read_at(self, *args):
            read.append(real.read_at(*args))
            return read[-1]

    monkeypatch.setattr(thrift_compact, "_LOOP", Recording())
    got = thrift_compact.parse(data, "message", body=body).body
    assert len(read) == 1 and (read[0] is None) == (body is None)
    assert read[0] is None or read[0][0] is got


def _pyarrow_footers():
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table(
        {
            "id": pa.array(range(300), pa.int64()),
            "name": pa.array([None if i % 7 == 0 else f"n{i % 13}" for i in range(300)]),
            "tags": pa.array([[f"t{i % 3}"] * (i % 4) for i in range(300)]),
            "point": pa.array(
                [{"x": i, "y": -i} for i in range(300)],
                pa.struct([("x", pa.int32()), ("y", pa.float64())]),
            ),
        }
    ).replace_schema_metadata({"origin": "wirespec"})
    out = []
    for kw in ({"compression": "snappy"}, {"compression": "zstd", "write_page_index": True,
                                           "row_group_size": 100}):  # fmt: skip
        buf = io.BytesIO()
        pq.write_table(table, buf, **kw)
        data = buf.getvalue()
        (length,) = struct.unpack("<I", data[-8:-4])
        out.append(data[-8 - length : -8])
    return out


def test_parquet_footers():
    from generated import parquet

    samples = [p.read_bytes() for p in sorted((REPO / "samples" / "parquet").glob("*.bin"))]
    for i, footer in enumerate(samples + _pyarrow_footers()):
        got = held_equal(parquet, footer, "FileMetaData")
        assert got is not None and parquet.build(got) == footer
        # every truncation of the samples; of the larger pyarrow footers, every 7th
        stride = 1 if i < len(samples) else 7
        truncations_and_mutations(parquet, footer, "FileMetaData", seed=i, stride=stride)


def test_the_parquet_metadata_input_uses_it(monkeypatch):
    from generated import parquet
    from generator.cli import parquet_metadata

    calls = []
    real = parquet._LOOP

    class Counting:
        def parse(self, *args):
            calls.append(args[0])
            return real.parse(*args)

    monkeypatch.setattr(parquet, "_LOOP", Counting())
    data = b"PAR1" + _pyarrow_footers()[0]
    data += struct.pack("<I", len(data) - 4) + b"PAR1"
    rows = parquet_metadata.metadata_rows("t.parquet", data)
    assert calls == ["FileMetaData"] and rows["files"][0]["num_rows"] == 300


def test_tables_name_every_field():
    for name, (cls, kind, charge, known, fields) in MOD.FIELD_TABLES.items():
        s = SPEC.structs[name]
        assert cls is getattr(MOD, name) and kind == s.kind
        assert [(f[0], f[1], f[2]) for f in fields] == [
            (f.id, f.attr, f.required) for f in s.fields
        ]
        assert known == {f.id: f.type.ct for f in s.fields}


@pytest.mark.parametrize(
    "rel, record",
    [
        ("jaeger/jaeger.thrift", "Batch"),
        ("apache_thrift/DebugProtoTest.thrift", "OneOfEach"),
        ("apache_thrift/ThriftTest.thrift", "Xtruct3"),
    ],
)
def test_idl_corpus_tables_and_loop(tmp_path, rel, record):
    from generator.importers.thrift_idl import import_thrift
    from generator.spec.loader import load
    from generator.spec.thrift import build_thrift_model

    path = tmp_path / (Path(rel).stem + ".yaml")
    path.write_text(import_thrift(DATA / "idl" / rel))
    spec = build_thrift_model(load(path, path.name))
    mod = import_spec(path)
    assert set(mod.FIELD_TABLES) == set(spec.structs) and mod._LOOP is not None

    @settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
    @given(struct_strategy(spec, mod, record))
    def check(model):
        data = mod.build(model)
        assert held_equal(mod, data, record) is not None
        assert built_alike(mod, model) == data

    check()
