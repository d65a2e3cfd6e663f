#!/usr/bin/env python3
"""Decode and encode throughput of the generated protobuf_wire codec against the protobuf
package: upb (its C decoder) in this process, and protobuf's pure-Python implementation
in a child process (the implementation is chosen once per process, by
``PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python`` before the first import, so both cannot
be loaded side by side).

Payloads are the samples (samples/protobuf_wire/): ``order_card`` (321 B, every kind of
field) and ``order_voucher`` (45 B). Both peers use the descriptor made from the same
schema (samples/protobuf_peer.py). Runs are interleaved, the median of R runs is reported
as messages/s with the ratio to wirespec, as a Markdown table.

wirespec's ``parse``/``build`` run the compiled loop (runtime/_compiled/protobuf.pyx) when
it is built, and the ``(pure Python)`` rows run ``runtime/formats/protobuf.py``'s reader and
writer. upb's ``FromString`` is lazy: it makes one Python object and makes the others
when a field is read, while ``parse`` makes the whole model. So upb is also measured as
``FromString + every field``: the message parsed, then every field read into the shape of
our model (lists, dicts, nested values; a lean getattr walk, no json_format). ``parse`` makes
its models lazily too (a checked span, built on the first access), so ``parse + every
field`` is the same walk over our model.

``--instructions`` counts instructions per message instead of timing them (``valgrind
--tool=cachegrind``: ``--n`` calls of each case minus none, after 100 warm-up calls, the
same imports; a measure the machine's load does not change).

    .venv/bin/python benchmarks/protobuf_wire.py [--n 20000] [--runs 5] [--instructions]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.instructions import instructions_of

PAYLOADS = ("order_card", "order_voucher")


def _payloads() -> dict[str, bytes]:
    folder = ROOT / "samples" / "protobuf_wire"
    return {name: (folder / f"{name}.bin").read_bytes() for name in PAYLOADS}


def _rate(fn, data, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        fn(data)
    return n / (time.perf_counter() - start)


def _reading_every_field(codec, upb: bool = True):
    """A function reading every field of a message of ``codec`` into plain values: a upb
    message (``HasField`` says whether a message or explicit field is set), or with
    ``upb=False`` our model (None says it)."""
    from runtime.formats.protobuf import ProtobufMessage

    steps = []
    for f in codec.fields:
        if f.kind == "map" and isinstance(f.map_value, ProtobufMessage):
            sub = _reading_every_field(f.map_value, upb)
            steps.append((f.name, lambda v, sub=sub: {k: sub(v[k]) for k in v}))
        elif f.kind == "map":
            steps.append((f.name, dict))
        elif f.repeated and f.kind == "message":
            sub = _reading_every_field(f.message, upb)
            steps.append((f.name, lambda v, sub=sub: [sub(x) for x in v]))
        elif f.repeated:
            steps.append((f.name, list))
        elif f.kind == "message" or f.explicit:
            sub = _reading_every_field(f.message, upb) if f.kind == "message" else None
            steps.append((f.name, ("has", sub)))
        else:
            steps.append((f.name, None))

    def read(msg):
        out = {}
        for name, how in steps:
            value = getattr(msg, name)
            if how is None:
                out[name] = value
            elif how.__class__ is tuple:
                present = msg.HasField(name) if upb else value is not None
                out[name] = (value if how[1] is None else how[1](value)) if present else None
            else:
                out[name] = how(value)
        return out

    return read


def _decoders(peer, pw) -> dict:
    from runtime.core import codec

    order = peer.classes["order"]
    every_field = _reading_every_field(pw.order)
    our_every_field = _reading_every_field(pw.order, upb=False)
    return {
        "wirespec parse": pw.parse,
        "wirespec parse + every field": lambda d: our_every_field(pw.parse(d)),
        "wirespec parse (pure Python)": lambda d: codec.parse_fast(
            pw.order.read_exact, d, None, pw._LIMITS
        ),
        "protobuf FromString": order.FromString,
        "protobuf FromString + every field": lambda d: every_field(order.FromString(d)),
    }


def measure(n: int, runs: int, implementation_only: bool = False) -> dict:
    """{(payload, decoder): median messages/s}."""
    from generated import protobuf_wire as pw
    from samples.protobuf_peer import Peer

    peer = Peer(pw)
    decoders = _decoders(peer, pw)
    if implementation_only:
        decoders = {"protobuf FromString": decoders["protobuf FromString"]}
    else:
        if pw.order.compiled is None:
            del decoders["wirespec parse (pure Python)"]  # parse is pure Python already
        models = {name: pw.parse(data) for name, data in _payloads().items()}
        messages = {name: peer.classes["order"].FromString(d) for name, d in _payloads().items()}
    results: dict = {}
    for name, data in _payloads().items():
        cases = dict(decoders)
        if not implementation_only:
            cases["wirespec build"] = lambda _, m=models[name]: pw.build(m)
            if pw.order.compiled is not None:
                cases["wirespec build (pure Python)"] = lambda _, m=models[name]: _build_exact(
                    pw, m
                )
            cases["protobuf SerializeToString"] = lambda _, m=messages[name]: m.SerializeToString()
        samples: dict = {label: [] for label in cases}
        for _ in range(runs):
            for label, fn in cases.items():
                samples[label].append(_rate(fn, data, n))
        for label, rates in samples.items():
            results[f"{name}|{label}"] = statistics.median(rates)
    return results


def _build_exact(pw, model) -> bytes:
    out = bytearray()
    pw.order.write_exact(model, out)
    return bytes(out)


def pure_python(n: int, runs: int) -> dict:
    env = {**os.environ, "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION": "python"}
    out = subprocess.run(
        [sys.executable, __file__, "--n", str(n), "--runs", str(runs), "--peer-only"],
        env=env, capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    return {
        key.replace("protobuf FromString", "protobuf pure-Python FromString"): value
        for key, value in json.loads(out.stdout).items()
    }


INSTRUCTION_CASES = (
    "wirespec parse",
    "wirespec parse + every field",
    "protobuf FromString",
    "protobuf FromString + every field",
)


def _run_calls(payload: str, case: str, n: int) -> None:
    """The process cachegrind counts: every import and payload, 100 warm-up calls of
    ``case``, then ``n`` more (``case`` "none": no call at all)."""
    from generated import protobuf_wire as pw
    from samples.protobuf_peer import Peer

    decoders = _decoders(Peer(pw), pw)
    data = _payloads()[payload]
    if case == "none":
        return
    fn = decoders[case]
    for _ in range(100):
        fn(data)
    for _ in range(n):
        fn(data)


def _instructions(payload: str, case: str, n: int) -> int:
    return instructions_of([__file__, "--run", payload, case, str(n)], cwd=ROOT)


def instructions(n: int) -> None:
    """Print instructions per message of each case and upb's over ours, as Markdown."""
    print("| payload | case | instructions/message | upb / wirespec |")
    print("|---|---|---:|---:|")
    for payload in PAYLOADS:
        per = {}
        for case in INSTRUCTION_CASES:
            warm = _instructions(payload, case, 0)
            per[case] = (_instructions(payload, case, n) - warm) / n
        for case in INSTRUCTION_CASES:
            ours = per[case.replace("protobuf FromString", "wirespec parse")]
            print(f"| {payload} | {case} | {per[case]:,.0f} | {per[case] / ours:.2f} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--peer-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--instructions", action="store_true", help="count, do not time")
    parser.add_argument("--run", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run:
        payload, case, n = args.run
        _run_calls(payload, case, int(n))
        return 0
    if args.instructions:
        instructions(args.n)
        return 0
    if args.peer_only:
        from google.protobuf.internal import api_implementation

        assert api_implementation.Type() == "python"
        print(json.dumps(measure(args.n, args.runs, implementation_only=True)))
        return 0
    from google.protobuf.internal import api_implementation

    results = measure(args.n, args.runs)
    results.update(pure_python(max(args.n // 10, 100), args.runs))
    from generated import protobuf_wire as pw

    tier = "compiled" if pw.order.compiled is not None else "pure Python"
    print(
        f"protobuf {api_implementation.Type()} in process; wirespec {tier}; "
        f"median of {args.runs} runs\n"
    )
    print("| payload | codec | messages/s | x wirespec |")
    print("|---|---|---:|---:|")
    for payload in PAYLOADS:
        ours = results[f"{payload}|wirespec parse"]
        ours_build = results[f"{payload}|wirespec build"]
        for key, rate in results.items():
            name, label = key.split("|")
            if name == payload:
                base = ours_build if "build" in label or "Serialize" in label else ours
                print(f"| {name} | {label} | {rate:,.0f} | {rate / base:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
