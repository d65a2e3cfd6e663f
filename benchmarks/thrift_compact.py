#!/usr/bin/env python3
"""Decode throughput of the generated Thrift Compact codec against the Python peers.

Shapes as in docs/reference/research/peer_bench.py: ``Small`` (7 fields, ~95 B) and ``Wide``
(~1.8 KB: 24 scalars, lists, a map and nested structs). Each payload is written by Apache's
pure-Python TCompactProtocol; every decoder reads the same N messages in one process, the
runs are interleaved (run 1 of every decoder, then run 2, ...) so a loaded machine slows
them alike, and the median of R runs is reported as messages/s, with the ratios to
wirespec as a Markdown table.

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

from generator.thrift import import_spec

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


def apache_classes():
    tt = {"i32": TType.I32, "i64": TType.I64, "string": TType.STRING, "double": TType.DOUBLE,
          "bool": TType.BOOL, "binary": TType.STRING, "i16": TType.I16, "byte": TType.BYTE}  # fmt: skip

    def mk(name, spec):
        names = tuple(f[2] for f in spec if f)

        def __init__(self, **kw):
            for n in names:
                setattr(self, n, kw.get(n))

        cls = type(name, (TBase,), {"__slots__": names, "__init__": __init__})
        cls.thrift_spec = tuple(spec)
        return cls

    small = mk("Small", [None, (1, TType.I32, "id", None, None), (2, TType.I64, "ts", None, None),
                         (3, TType.STRING, "name", "UTF8", None), (4, TType.BOOL, "active", None, None),
                         (5, TType.DOUBLE, "score", None, None),
                         (6, TType.LIST, "tags", (TType.I32, None, False), None),
                         (7, TType.STRING, "token", "BINARY", None)])  # fmt: skip
    wide = [None]
    for p, base in SCALARS:
        for i, (s, t) in enumerate(KINDS):
            arg = "UTF8" if t == "string" else "BINARY" if t == "binary" else None
            wide.append((base + i + 1, tt[t], p + s, arg, None))
    wide += [(25, TType.LIST, "longs", (TType.I64, None, False), None),
             (26, TType.LIST, "names", (TType.STRING, "UTF8", False), None),
             (27, TType.MAP, "counts", (TType.STRING, "UTF8", TType.I32, None, False), None),
             (28, TType.LIST, "items", (TType.STRUCT, [small, small.thrift_spec], False), None)]  # fmt: skip
    return small, mk("Wide", wide)


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
        if a.save_module:
            from generator.loader import load
            from generator.thrift import build_thrift_model, render_thrift

            a.save_module.write_text(render_thrift(build_thrift_model(load(path, path.name))))
            return
        ws = import_spec(path)
    small_a, wide_a = apache_classes()
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
    decoders = [
        ("wirespec (generated)", lambda b: ws.parse(b, "Small"), lambda b: ws.parse(b, "Wide")),
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
    base_s, base_w = rate["wirespec (generated)", "small"], rate["wirespec (generated)", "wide"]
    print(f"python {platform.python_version()} on {platform.machine()}; median of {a.runs} "
          f"interleaved runs; small ~{sum(map(len, small_msgs)) / a.n:.0f} B x {a.n}, "
          f"wide ~{sum(map(len, wide_msgs)) / len(wide_msgs):.0f} B x {a.n // 4}\n")  # fmt: skip
    print("| decoder | small msgs/s | wirespec / it | wide msgs/s | wirespec / it |")
    print("|---|---:|---:|---:|---:|")
    for name, _, _ in decoders:
        s, w = rate[name, "small"], rate[name, "wide"]
        print(f"| {name} | {s:,.0f} | {base_s / s:.2f}x | {w:,.0f} | {base_w / w:.2f}x |")


if __name__ == "__main__":
    main()
