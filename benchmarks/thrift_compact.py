#!/usr/bin/env python3
"""Decode throughput of the generated Thrift Compact codec against the Python peers.

Shapes as in docs/reference/research/peer_bench.py: ``Small`` (7 fields, ~95 B) and ``Wide``
(~1.8 KB: 24 scalars, lists, a map and nested structs). Each payload is written by Apache's
pure-Python TCompactProtocol; every decoder reads the same N messages in one process, the
runs are interleaved (run 1 of every decoder, then run 2, ...) so a loaded machine slows
them alike, and the median of R runs is reported as messages/s, with the ratios to
wirespec as a Markdown table. wirespec runs in both tiers: the compiled loop
(runtime/_compiled/thrift_compact.pyx, when built) and the Python fast path (the same
module with the loop off). Apache's classes are built from the spec model (``thrift_spec``
tuples, as Apache's generated code has), so :func:`apache_classes` also serves the Parquet
footer workload of the suite (``python -m benchmarks --only thrift``).

    .venv/bin/python benchmarks/thrift_compact.py [--n 20000] [--runs 5]

Before/after a template change: ``--save-module old.py`` writes the benchmark module the
current template renders; after the change, ``--before old.py`` adds it as a row.
"""

from __future__ import annotations

import argparse
import io
import platform
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
warnings.filterwarnings("ignore")

import thriftpy2
from thrift.protocol.TBase import TBase
from thrift.protocol.TCompactProtocol import (
    TCompactProtocol,
    TCompactProtocolAccelerated,
)
from thrift.Thrift import TType
from thrift.transport.TTransport import TMemoryBuffer
from thriftpy2.protocol import TCompactProtocolFactory
from thriftpy2.utils import deserialize

from generator.emit.thrift_module import render_thrift
from generator.spec.loader import load
from generator.spec.thrift import build_thrift_model

IDL = """
struct Small {
  1: i32 id; 2: i64 ts; 3: string name; 4: bool active; 5: double score;
  6: list<i32> tags; 7: binary token;
}
struct Wide {
  1: i32 a1; 2: i64 a2; 3: string a3; 4: double a4; 5: bool a5; 6: binary a6; 7: i16 a7; 8: byte a8;
  9: i32 b1; 10: i64 b2; 11: string b3; 12: double b4; 13: bool b5; 14: binary b6; 15: i16 b7; 16: byte b8;
  17: i32 c1; 18: i64 c2; 19: string c3; 20: double c4; 21: bool c5; 22: binary c6; 23: i16 c7; 24: byte c8;
  25: list<i64> longs; 26: list<string> names; 27: map<string, i32> counts; 28: list<Small> items;
}
"""
KINDS = [("1", "i32"), ("2", "i64"), ("3", "string"), ("4", "double"), ("5", "bool"),
         ("6", "binary"), ("7", "i16"), ("8", "byte")]  # fmt: skip
SCALARS = [("a", 0), ("b", 8), ("c", 16)]


def spec_yaml() -> str:
    small = [("id", "i32"), ("ts", "i64"), ("name", "string"), ("active", "bool"),
             ("score", "double"), ("tags", "list<i32>"), ("token", "binary")]  # fmt: skip
    wide = [(p + s, t) for p, _ in SCALARS for s, t in KINDS]
    wide += [("longs", "list<i64>"), ("names", "list<string>"),
             ("counts", "map<string, i32>"), ("items", "list<Small>")]  # fmt: skip

    def fields(fs):
        return "\n".join(
            f'      - {{id: {i}, name: {n}, type: "{t}"}}' for i, (n, t) in enumerate(fs, 1)
        )

    return (
        "format: thrift_bench\nprotocol: thrift_compact\ndoc: benchmark shapes\nstructs:\n"
        f"  Small:\n    fields:\n{fields(small)}\n  Wide:\n    fields:\n{fields(wide)}\n"
    )


_APACHE_TTYPE = {
    "bool": TType.BOOL,
    "i8": TType.BYTE,
    "i16": TType.I16,
    "i32": TType.I32,
    "i64": TType.I64,
    "double": TType.DOUBLE,
    "string": TType.STRING,
    "binary": TType.STRING,
    "uuid": TType.UUID,
    "enum": TType.I32,
    "list": TType.LIST,
    "set": TType.SET,
    "map": TType.MAP,
    "struct": TType.STRUCT,
}


def apache_classes(spec) -> dict:
    """Struct name -> a TBase class with the ``thrift_spec`` Apache's compiler would
    generate for it, for every struct of a wirespec Thrift spec model."""
    classes = {}
    for s in spec.structs.values():
        names = tuple(f.name for f in s.fields)

        def __init__(self, _names=names, **kw):
            for n in _names:
                setattr(self, n, kw.get(n))

        classes[s.name] = type(s.name, (TBase,), {"__slots__": names, "__init__": __init__})

    def args(t):
        if t.kind in ("string", "binary"):
            return "UTF8" if t.kind == "string" else "BINARY"
        if t.kind in ("list", "set"):
            return (_APACHE_TTYPE[t.elem.kind], args(t.elem), False)
        if t.kind == "map":
            key, value = t.key, t.value
            return (
                _APACHE_TTYPE[key.kind],
                args(key),
                _APACHE_TTYPE[value.kind],
                args(value),
                False,
            )
        if t.kind == "struct":
            return [classes[t.name], None]  # filled below, as Apache's fix_spec does
        return None

    lazy = []
    for s in spec.structs.values():
        by_id = {
            f.id: (f.id, _APACHE_TTYPE[f.type.kind], f.name, args(f.type), None) for f in s.fields
        }
        classes[s.name].thrift_spec = tuple(by_id.get(i) for i in range(max(by_id, default=0) + 1))
        lazy += [e[3] for e in by_id.values()]
    while lazy:
        a = lazy.pop()
        if isinstance(a, list):
            a[1] = a[0].thrift_spec
        elif isinstance(a, tuple):
            lazy += a
    return classes


def wirespec_tiers(module_text: str, tmp: Path, name: str):
    """A rendered Thrift module loaded twice: with the compiled tier (when it is built) and
    with it off (the Python fast path)."""
    compiled_path, python_path = tmp / f"{name}.py", tmp / f"{name}_python.py"
    compiled_path.write_text(module_text)
    python_path.write_text(module_text)
    python = load_module(python_path)
    python._LOOP = None
    return load_module(compiled_path), python


def small_values(i):
    return {"id": i, "ts": 1700000000000 + i, "name": f"user-{i:05d}@example",
            "active": bool(i & 1), "score": i / 3.0, "tags": [i, -i, 7, 100000, 3],
            "token": bytes([i & 0xFF]) * 44}  # fmt: skip


def wide_values(i, small_cls):
    d = {}
    for p, base in SCALARS:
        d[p + "1"] = i * 31 + base
        d[p + "2"] = -(i * 10**9) - base
        d[p + "3"] = f"{p}-{i}-" * 20
        d[p + "4"] = i * 0.125 + base
        d[p + "5"] = bool((i + base) & 1)
        d[p + "6"] = bytes(range(90))
        d[p + "7"] = -(i % 30000)
        d[p + "8"] = (i % 200) - 100
    d["longs"] = [i * 2**33 + k for k in range(60)]
    d["names"] = [f"name-{i}-{k}" for k in range(25)]
    d["counts"] = {f"k{k:02d}": k * i for k in range(20)}
    d["items"] = [small_cls(**small_values(i + k)) for k in range(4)]
    return d


def encode(obj):
    buf = TMemoryBuffer()
    obj.write(TCompactProtocol(buf))
    return buf.getvalue()


def bench_all(cases, runs):
    """``cases``: key -> (fn, msgs). Interleaved runs; key -> messages/s (median)."""
    times = {k: [] for k in cases}
    for fn, msgs in cases.values():
        fn(msgs[0])
    for _ in range(runs):
        for k, (fn, msgs) in cases.items():
            t0 = time.perf_counter()
            for m in msgs:
                fn(m)
            times[k].append(time.perf_counter() - t0)
    return {k: len(cases[k][1]) / statistics.median(t) for k, t in times.items()}


def load_module(path: Path):
    """A benchmark module saved with ``--save-module``."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"ws_bench_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--before", type=Path, help="a module saved with --save-module: add a row")
    ap.add_argument("--save-module", type=Path, help="write the rendered module and exit")
    a = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "thrift_bench.yaml"
        path.write_text(spec_yaml())
        spec = build_thrift_model(load(path, path.name))
        text = render_thrift(spec)
        if a.save_module:
            a.save_module.write_text(text)
            return
        ws, ws_python = wirespec_tiers(text, Path(tmp), "thrift_bench")
    classes = apache_classes(spec)
    small_a, wide_a = classes["Small"], classes["Wide"]
    tp2 = thriftpy2.load_fp(io.StringIO(IDL), module_name="bench_thrift")
    small = [encode(small_a(**small_values(i))) for i in range(64)]
    wide = [encode(wide_a(**wide_values(i, small_a))) for i in range(64)]

    def apache(cls, accelerated):
        def f(b):
            o = cls()
            buf = TMemoryBuffer(b)
            o.read(
                TCompactProtocolAccelerated(buf, fallback=False)
                if accelerated
                else TCompactProtocol(buf)
            )
            return o

        return f

    fac = TCompactProtocolFactory()
    compiled_label = "wirespec compiled" if ws._LOOP is not None else "wirespec (not compiled)"
    decoders = [
        (compiled_label, lambda b: ws.parse(b, "Small"), lambda b: ws.parse(b, "Wide")),
        ("wirespec fast path (Python)", lambda b: ws_python.parse(b, "Small"),
         lambda b: ws_python.parse(b, "Wide")),
        ("Apache thrift, pure Python", apache(small_a, False), apache(wide_a, False)),
        ("Apache thrift, accelerated (C)", apache(small_a, True), apache(wide_a, True)),
        ("thriftpy2 (pure Python)", lambda b: deserialize(tp2.Small(), b, fac),
         lambda b: deserialize(tp2.Wide(), b, fac)),
    ]  # fmt: skip
    if a.before:
        old = load_module(a.before)
        decoders.insert(1, ("wirespec (before)", lambda b: old.parse(b, "Small"),
                            lambda b: old.parse(b, "Wide")))  # fmt: skip
    # sanity: wirespec agrees with Apache on what it decodes
    for b in small[:3] + wide[:3]:
        ref = apache(small_a if b in small else wide_a, False)(b)
        got = ws.parse(b, "Small" if b in small else "Wide")
        assert got.name == ref.name if b in small else got.a3 == ref.a3
        assert ws.build(got) == b
    small_msgs = [small[i % len(small)] for i in range(a.n)]
    wide_msgs = [wide[i % len(wide)] for i in range(a.n // 4)]
    cases = {}
    for name, fs, fw in decoders:
        cases[name, "small"] = (fs, small_msgs)
        cases[name, "wide"] = (fw, wide_msgs)
    rate = bench_all(cases, a.runs)
    # encoders: the models of the same payloads back to bytes
    models = {
        mod: ([mod.parse(m, "Small") for m in small], [mod.parse(m, "Wide") for m in wide])
        for mod in (ws, ws_python)
    }  # each module builds its own classes
    peers_small = [apache(small_a, True)(m) for m in small]
    peers_wide = [apache(wide_a, True)(m) for m in wide]

    def apache_write(obj):
        buf = TMemoryBuffer()
        obj.write(TCompactProtocolAccelerated(buf, fallback=False))
        return buf.getvalue()

    n_small, n_wide = a.n, a.n // 4
    encoders = [
        (compiled_label, ws.build, *models[ws]),
        ("wirespec fast path (Python)", ws_python.build, *models[ws_python]),
        ("Apache thrift, accelerated (C)", apache_write, peers_small, peers_wide),
    ]
    build_cases = {}
    for name, fn, s_objs, w_objs in encoders:
        build_cases[name, "small"] = (fn, [s_objs[i % 64] for i in range(n_small)])
        build_cases[name, "wide"] = (fn, [w_objs[i % 64] for i in range(n_wide)])
    build_rate = bench_all(build_cases, a.runs)
    base_s, base_w = rate[compiled_label, "small"], rate[compiled_label, "wide"]
    print(f"python {platform.python_version()} on {platform.machine()}; median of {a.runs} "
          f"interleaved runs; small ~{sum(map(len, small_msgs)) / a.n:.0f} B x {a.n}, "
          f"wide ~{sum(map(len, wide_msgs)) / len(wide_msgs):.0f} B x {a.n // 4}\n")  # fmt: skip
    print("| decoder | small msgs/s | wirespec / it | wide msgs/s | wirespec / it |")
    print("|---|---:|---:|---:|---:|")
    for name, _, _ in decoders:
        s, w = rate[name, "small"], rate[name, "wide"]
        print(f"| {name} | {s:,.0f} | {base_s / s:.2f}x | {w:,.0f} | {base_w / w:.2f}x |")
    base_s, base_w = build_rate[compiled_label, "small"], build_rate[compiled_label, "wide"]
    print("\n| encoder | small msgs/s | wirespec / it | wide msgs/s | wirespec / it |")
    print("|---|---:|---:|---:|---:|")
    for name, _, _, _ in encoders:
        s, w = build_rate[name, "small"], build_rate[name, "wide"]
        print(f"| {name} | {s:,.0f} | {base_s / s:.2f}x | {w:,.0f} | {base_w / w:.2f}x |")


if __name__ == "__main__":
    main()
