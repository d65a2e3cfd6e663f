#!/usr/bin/env python3
"""What the cyclic GC walks in decoded models: the compiled tier's untracked models
(generator/emit/untracked.py) beside the Python tiers' models, on the suite's workloads.

Per workload (``python -m benchmarks``'s payloads, plus a Kafka log segment of
``benchmarks/kafka_record_batch.py``), one process:

* objects per message in the decoded model (models, lists, dicts) and how many of them the
  GC tracks, for the compiled tier and for the Python tiers (which track every one);
* a full collection (``gc.collect()``) while ``--held`` decoded messages are kept (the rest
  of the process frozen by ``gc.freeze``), the median of ``--runs``, for both tiers' models:
  what a consumer that keeps models pays per collection.

Then the cost a ``__setattr__`` hook (the alternative to untracking: re-track a model when a
field is assigned) would put on the pure-Python tier, which builds models through
``__init__``: a 10-field slots dataclass made and assigned with and without a hook that
does nothing but pass the value on (a lower bound: a real hook would also test the value).

Instruction counts with the GC on (load-independent) for Kafka against aiokafka's C reader
are ``benchmarks/kafka_record_batch.py --instructions N``.

    python benchmarks/untracked_models.py [--held 2000] [--runs 5] [--only msgpack,...]
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import statistics
import sys
import time
import timeit
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
warnings.filterwarnings("ignore")

from benchmarks.__main__ import WORKLOADS

COMPILED = ("wirespec compiled", "wirespec parse (compiled tier)")
PYTHON = ("wirespec fast path", "wirespec quick tier")


def kafka_workload():
    """A Kafka log segment of 1,000 records, per record (compiled ``parse`` vs the quick tier)."""
    from benchmarks import kafka_record_batch as k

    data = k.segment(0)
    return [(k.BATCHES * k.RECORDS, data, k.kafka.parse, k.python_tier(quick=True))]


def suite_workloads(only):
    """(label, messages per payload, payloads, compiled decoder, Python decoder)."""
    out = []
    for key, make in WORKLOADS.items():
        if only and key not in only:
            continue
        for w in make():
            decoders = {label: fn for label, fn, _ in w.decoders}
            fast = next((decoders[d] for d in COMPILED if d in decoders), None)
            slow = next((decoders[d] for d in PYTHON if d in decoders), None)
            if fast is not None and slow is not None:
                out.append((f"{w.fmt} {w.name}", w.payloads, fast, slow))
    if not only or "kafka" in only:
        ((n, data, fast, slow),) = kafka_workload()
        out.append((f"Kafka segment ({n} records)", [data], fast, slow))
    return out


def reachable(value, out: list) -> None:
    """Every model, list and dict reachable from ``value`` (appended to ``out``)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out.append(value)
        for cls in type(value).__mro__:
            for name in cls.__dict__.get("__slots__", ()):
                if name != "__weakref__" and hasattr(value, name):
                    reachable(getattr(value, name), out)
    elif isinstance(value, (list, tuple)):
        if isinstance(value, list):
            out.append(value)
        for item in value:
            reachable(item, out)
    elif isinstance(value, dict):
        out.append(value)
        for item in value.values():
            reachable(item, out)


def census(decode, payloads) -> tuple[float, float]:
    """(objects, tracked objects) per payload's model."""
    objects = []
    for data in payloads:
        reachable(decode(data), objects)
    tracked = sum(gc.is_tracked(o) for o in objects)
    return len(objects) / len(payloads), tracked / len(payloads)


def collection_ms(decode, payloads, held: int, runs: int) -> float:
    """Median ms of ``gc.collect()`` with ``held`` decoded payloads kept, everything else
    the process holds frozen (``gc.freeze``: not walked), so only the models count."""
    gc.collect()
    gc.freeze()
    try:
        kept = [decode(payloads[i % len(payloads)]) for i in range(held)]
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            gc.collect()
            times.append(time.perf_counter() - start)
        del kept
    finally:
        gc.unfreeze()
    return statistics.median(times) * 1e3


def setattr_hook_cost(runs: int) -> tuple[float, float, float, float]:
    """(ns to make a model, with a hook; ns to assign a field, with a hook), medians."""
    names = [f"f{i}" for i in range(10)]

    plain = dataclasses.make_dataclass("Plain", names, slots=True)

    def passing(self, name, value):
        object.__setattr__(self, name, value)

    hooked = dataclasses.make_dataclass(
        "Hooked", names, slots=True, namespace={"__setattr__": passing}
    )
    out = []
    for cls in (plain, hooked):
        model = cls(*range(10))
        make = timeit.repeat(lambda cls=cls: cls(*range(10)), number=20000, repeat=runs)
        put = timeit.repeat(lambda m=model: setattr(m, "f3", 7), number=100000, repeat=runs)
        out += [statistics.median(make) / 20000 * 1e9, statistics.median(put) / 100000 * 1e9]
    return out[0], out[2], out[1], out[3]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--held", type=int, default=2000, help="payloads kept for gc.collect()")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="", help="comma list of msgpack, plainbuffer, ... kafka")
    args = ap.parse_args(argv)
    only = {s for s in args.only.split(",") if s}
    print(
        "| workload | objects/msg | GC-tracked: compiled | Python tiers "
        f"| gc.collect() with {args.held} held: compiled | Python tiers |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for label, payloads, fast, slow in suite_workloads(only):
        objects, tracked = census(fast, payloads)
        _, tracked_python = census(slow, payloads)
        held = args.held if len(payloads) > 1 or "segment" not in label else 20
        ms_fast = collection_ms(fast, payloads, held, args.runs)
        ms_slow = collection_ms(slow, payloads, held, args.runs)
        print(
            f"| {label} | {objects:.1f} | {tracked:.1f} | {tracked_python:.1f} "
            f"| {ms_fast:.2f} ms | {ms_slow:.2f} ms |"
        )
    make, make_hooked, put, put_hooked = setattr_hook_cost(args.runs)
    print("\na __setattr__ hook on a 10-field slots dataclass (pass-through only):\n")
    print("| | without | with | cost |\n|---|---:|---:|---:|")
    print(
        f"| make (``__init__``) | {make:.0f} ns | {make_hooked:.0f} ns | {make_hooked / make:.2f}x |"
    )
    print(f"| assign one field | {put:.0f} ns | {put_hooked:.0f} ns | {put_hooked / put:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
