"""A fuzz campaign across both tiers: every entry point of every format, each input run in
the compiled tier and in pure Python (``WIRESPEC_PURE_PYTHON=1``), outcomes compared.

    nice -n 10 .venv/bin/python scripts/fuzz_tiers.py --out OUT_DIR [--seed N] [--only FMT,...]

Three steps, each its own process: ``make`` writes the inputs (mutants of every record's
fuzz seeds, generator/cli/fuzz.py, plus every truncation of each seed and mutated models for
``build``), ``run`` feeds them to one tier and writes one outcome per input (a model's JSON
form's digest, or the error's type, text, offset and path), ``compare`` holds the tiers'
outcomes equal. ``run`` also reports, per input, what ``wirespec fuzz`` does not look at: a
foreign exception from ``parse`` of ``bytes``, ``bytearray`` or a ``memoryview`` slice, with
limits, ``iter_rows``, ``to_rows``, ``to_dict``, ``from_dict`` or ``build`` (of a model or of a
mutated one), ``iter_rows`` not giving ``to_rows(parse(x))``, ``build(parse(x)) != x``, a
parse over :data:`SLOW` CPU seconds (an alarm ends a hang) and a jump of the peak RSS.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import pickle
import random
import re
import resource
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

USER_SPECS = {"wav": ROOT / "tests" / "data" / "user_specs" / "wav.yaml"}
"""Formats of a user's spec (rendered in memory, pure Python in both runs) fuzzed too."""
SLOW = 1.0
"""CPU seconds an input may take through all of its entry points."""
ALARM = 20
"""Wall seconds after which an input is a hang."""
RSS_JUMP = 64 << 20
"""A peak RSS growth, in bytes, that one input may not cause."""
TIGHT = {"max_count": 3, "max_depth": 3, "max_string": 8}
"""Limits an input is parsed with too (and max_message_bytes of half its size)."""
TRUNCATIONS = 64
"""Prefixes of each seed fed as inputs (all of them for a shorter seed)."""
BUILD_MUTANTS = 1200
"""Mutated models per format (shared by its records whose seeds parse, 30 at least)."""
MIN_MUTANTS = 60
"""Mutants per record at least (``--per-format`` shared by the records, else)."""


# -- the modules --------------------------------------------------------------------------


def formats() -> list[str]:
    from generator.cli import fuzz

    return list(fuzz.FORMATS) + list(USER_SPECS)


def load(fmt: str):
    if fmt in USER_SPECS:
        from generator.emit.user_spec import import_spec

        return import_spec(USER_SPECS[fmt])
    import importlib

    return importlib.import_module(f"generated.{fmt}")


# -- make ---------------------------------------------------------------------------------


def make(per_format: int, seed: int, only=None) -> list[tuple]:
    """``(format, record, kind, payload)``: kind ``parse`` (bytes) or ``build`` (a recipe)."""
    from generator.cli import fuzz
    from generator.cli.fuzz_mutators import mutate

    rng = random.Random(seed)
    out = []
    for fmt in formats():
        if only and fmt not in only:
            continue
        mod = load(fmt)
        with fuzz.spec_module(mod) if fmt in USER_SPECS else _nothing():
            names = fuzz.records(fmt)
            per_record = max(MIN_MUTANTS, per_format // len(names))
            builds = max(30, BUILD_MUTANTS // len(names))
            for record in names:
                seeds = fuzz.seeds(fmt, record, seed)
                if not seeds:
                    continue
                for data in seeds:
                    out.append((fmt, record, "parse", data))
                    cuts = range(len(data))
                    if len(data) > TRUNCATIONS:
                        cuts = sorted(rng.sample(cuts, TRUNCATIONS))
                    out.extend((fmt, record, "parse", data[:n]) for n in cuts)
                for _ in range(per_record):
                    out.append((fmt, record, "parse", mutate(rng, rng.choice(seeds), seeds)))
                for i in range(builds):
                    out.append((fmt, record, "build", (rng.choice(seeds), rng.random(), i)))
    return out


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


# -- run ----------------------------------------------------------------------------------


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


def digest(value) -> str:
    text = json.dumps(value, sort_keys=True, default=repr)
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


ADDRESS = re.compile(r"0x[0-9a-f]{6,}")


def outcome(fn):
    """('ok', value) or ('error', type, text, offset, path); a foreign exception raises."""
    from runtime.core.errors import WirespecError

    try:
        return ("ok", fn())
    except WirespecError as err:
        return (
            "error",
            type(err).__name__,
            ADDRESS.sub("0x...", str(err)),
            getattr(err, "offset", None),
            getattr(err, "path", None),
        )


@dataclasses.dataclass
class Runner:
    fmt: str
    record: str
    mod: object
    findings: list

    def find(self, kind: str, data, detail: str) -> None:
        self.findings.append((self.fmt, self.record, kind, data, detail))

    @property
    def pair(self) -> bool:
        return getattr(self.mod, "KAFKA_RECORD", None) == self.record

    def parse(self, data, **limits):
        if self.pair:
            from generator.cli.fuzz_seeds import split_pair

            key, value = split_pair(bytes(data))
            return self.mod.parse_pair(key, value, **limits)
        return self.mod.parse(data, self.record, **limits)

    def build(self, model) -> bytes:
        if self.pair:
            from generator.cli.fuzz_seeds import join_pair

            return join_pair(*self.mod.build_pair(model))
        return self.mod.build(model, self.record)

    def as_read(self, data: bytes) -> bytes:
        if self.pair:
            from generator.cli.fuzz_seeds import join_pair, split_pair

            return join_pair(*split_pair(data))
        return data

    def rows(self, model):
        return [list(r) for r in self.mod.to_rows(model, self.record)]

    def guarded(self, what: str, data, fn):
        """``outcome(fn)``, a foreign exception a finding (and None)."""
        try:
            return outcome(fn)
        except Hang:
            raise
        except Exception:  # noqa: BLE001 - exactly what the campaign looks for
            self.find("foreign", data, f"{what}: {traceback.format_exc(limit=-3)}")
            return None

    def parse_input(self, data: bytes) -> dict:
        from generator.cli.exactness import is_known

        got = {}
        first = self.guarded("parse(bytes)", data, lambda: self.parse(data))
        if first is None:
            return {"parse": "foreign"}
        model = first[1] if first[0] == "ok" else None
        got["parse"] = first
        if model is not None:
            got["parse"] = (
                "ok",
                self.guarded("to_dict", data, lambda: digest(self.mod.to_dict(model))),
            )
        for name, buf in (
            ("bytearray", bytearray(data)),
            ("memoryview", memoryview(b"<<" + data + b">>")[2:-2]),
        ):
            other = self.guarded(f"parse({name})", data, lambda b=buf: self.parse(b))
            if other is not None and other[0] == "ok":
                other = (
                    "ok",
                    self.guarded("to_dict", data, lambda m=other[1]: digest(self.mod.to_dict(m))),
                )
            if other is not None and other != got["parse"]:
                self.find(
                    "buffer", data, f"parse({name}) {other!r} != parse(bytes) {got['parse']!r}"
                )
        limits = dict(TIGHT, max_message_bytes=max(1, len(data) // 2))
        tight = self.guarded("parse(limits)", data, lambda: self.parse(data, **limits))
        if tight is not None and tight[0] == "ok":
            tight = ("ok", digest(self.mod.to_dict(tight[1])))
        got["tight"] = tight
        if not self.pair and hasattr(self.mod, "iter_rows"):
            rows = self.guarded(
                "iter_rows", data, lambda: [list(r) for r in self.mod.iter_rows(data, self.record)]
            )
            got["iter_rows"] = (
                None
                if rows is None
                else (rows[0], digest(rows[1]) if rows[0] == "ok" else rows[1:])
            )
        if model is None:
            return got
        whole = self.guarded("to_rows", data, lambda: self.rows(model))
        got["to_rows"] = (
            None
            if whole is None
            else (whole[0], digest(whole[1]) if whole[0] == "ok" else whole[1:])
        )
        if (
            "iter_rows" in got
            and got["iter_rows"] != got["to_rows"]
            and self.record not in getattr(self.mod, "FRAMED_FILES", {})
        ):
            self.find(
                "rows",
                data,
                f"iter_rows {got.get('iter_rows')!r} != to_rows(parse) {got['to_rows']!r}",
            )
        built = self.guarded("build", data, lambda: self.build(model))
        if built is not None:
            if built[0] != "ok":
                self.find("build", data, f"build(parse(x)) refused: {built!r}")
            elif built[1] != self.as_read(data) and not is_known(self.fmt, self.record):
                self.find(
                    "exact", data, f"build(parse(x)) != x ({len(built[1])} vs {len(data)} bytes)"
                )
        again = self.guarded(
            "from_dict",
            data,
            lambda: self.build(
                self.mod.from_dict(json.loads(json.dumps(self.mod.to_dict(model))), self.record)
            ),
        )
        if (
            again is not None
            and again[0] == "ok"
            and again[1] != self.as_read(data)
            and not is_known(self.fmt, self.record)
        ):
            self.find("json", data, "build(from_dict(to_dict(parse(x)))) != x")
        elif again is not None and again[0] != "ok":
            self.find("json", data, f"from_dict(to_dict(parse(x))) refused: {again!r}")
        if hasattr(self.mod, "parse_raw"):
            raw = self.guarded(
                "parse_raw", data, lambda: digest(self.mod.to_dict(self.mod.parse_raw(data)))
            )
            got["raw"] = raw
        return got

    def build_input(self, recipe, others) -> dict:
        """A seed's model with one attribute set to a hostile value."""
        data, pick, n = recipe
        model = self.parse(data)
        slots = attributes(model)
        if not slots:
            return {}
        holder, name, where = slots[int(pick * len(slots))]
        rng = random.Random(n)
        value = hostile(
            rng, holder[name] if isinstance(holder, list) else getattr(holder, name), others
        )
        label = f"{where} = {short(value)}"
        try:
            if isinstance(holder, list):
                holder[name] = value
            else:
                object.__setattr__(holder, name, value)
        except Exception:  # noqa: BLE001 - a frozen or slotted model: set it as a user would
            return {"build": "unset"}
        got = self.guarded(f"build({label})", (data, label), lambda: self.build(model))
        if got is not None and got[0] == "ok":
            back = self.guarded(f"parse(build({label}))", (data, label), lambda: self.parse(got[1]))
            got = ("ok", hashlib.sha1(got[1]).hexdigest()[:16], back and back[0])
            if back is not None and back[0] != "ok" and back[1] != "LimitError":
                self.find(
                    "build-unreadable", (data, label), f"build took it, parse refuses: {back!r}"
                )
        elif got is not None:
            got = ("error", got[1], got[2])
        return {"build": got, "label": label}


def attributes(value, at="", out=None, holder=None, name=None):
    from runtime.core.model import Model

    out = [] if out is None else out
    if len(out) > 200:
        return out
    if isinstance(value, Model) and dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            where = f"{at}.{f.name}" if at else f.name
            out.append((value, f.name, where))
            attributes(getattr(value, f.name), where, out)
    elif isinstance(value, list) and value:
        for i in range(min(2, len(value))):
            out.append((value, i, f"{at}[{i}]"))
            attributes(value[i], f"{at}[{i}]", out)
    return out


def hostile(rng, current, others):
    if isinstance(current, bool):
        return rng.choice([2, None, "true", -1])
    if isinstance(current, int):
        return rng.choice(
            [
                -1,
                -(2**63) - 1,
                2**64,
                2**63,
                2**32,
                2**31,
                10**40,
                current + 2**70,
                True,
                1.0,
                None,
                "1",
            ]
        )
    if isinstance(current, float):
        return rng.choice([float("nan"), float("inf"), 10**400, 2**64, None, "1.0"])
    if isinstance(current, str):
        return rng.choice(["\udcff", "\x00", "é" * 5000, b"bytes", None, 7, "x" * (1 << 20)])
    if isinstance(current, (bytes, bytearray)):
        return rng.choice(
            ["text", None, 7, bytearray(b"ab"), memoryview(b"ab"), b"\xff" * (1 << 20)]
        )
    if isinstance(current, list):
        element = current[0] if current else None
        return rng.choice(
            [
                [None],
                [element] * (1 << 16),
                [element] * 300,
                tuple(current),
                {},
                None,
                rng.choice(others) if others else None,
                [others[0]] if others else [1],
            ]
        )
    if current is None:
        return rng.choice([0, "", b"", [], rng.choice(others) if others else 1])
    return rng.choice(
        [
            None,
            0,
            "x",
            [],
            rng.choice(others) if others else 1,
            dict(vars(current)) if hasattr(current, "__dict__") else {},
        ]
    )


def short(value) -> str:
    text = repr(value)
    return text if len(text) < 60 else f"{text[:40]}... ({type(value).__name__})"


def run(inputs_path: Path, out_path: Path) -> None:
    from generator.cli import fuzz

    inputs = pickle.loads(inputs_path.read_bytes())
    signal.signal(signal.SIGALRM, _alarm)
    results, findings = [], []
    mods, others = {}, {}
    started = time.process_time()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss << 10
    for i, (fmt, record, kind, payload) in enumerate(inputs):
        if fmt not in mods:
            mods[fmt] = load(fmt)
        mod = mods[fmt]
        r = Runner(fmt, record, mod, findings)
        t0 = time.process_time()
        signal.alarm(ALARM)
        try:
            if kind == "parse":
                got = r.parse_input(payload)
            else:
                if fmt not in others:
                    with fuzz.spec_module(mod) if fmt in USER_SPECS else _nothing():
                        others[fmt] = _models(r, fmt)
                got = r.build_input(payload, others[fmt])
        except Hang:
            got = {"hang": True}
            r.find("hang", payload, f"over {ALARM} s")
        except Exception:  # noqa: BLE001 - a failure of the campaign itself
            got = {"campaign": traceback.format_exc(limit=-2)}
        finally:
            signal.alarm(0)
        spent = time.process_time() - t0
        if spent > (SLOW if kind == "parse" else 10 * SLOW):  # a build of a 2**16 list
            r.find(
                "slow",
                payload,
                f"{spent:.2f} CPU s ({kind}, {len(payload[0] if kind == 'build' else payload)} bytes)",
            )
        now = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss << 10
        if now - peak > RSS_JUMP:
            r.find("rss", payload, f"peak RSS +{(now - peak) >> 20} MiB ({kind})")
        peak = now
        results.append(got)
    out_path.write_bytes(
        pickle.dumps(
            {"results": results, "findings": findings, "cpu": time.process_time() - started}
        )
    )


def _models(r: Runner, fmt: str) -> list:
    """One model of each record of ``fmt`` whose seeds parse (models from another record)."""
    from generator.cli import fuzz

    out = []
    for record in fuzz.records(fmt):
        other = Runner(fmt, record, r.mod, [])
        for data in fuzz.seeds(fmt, record)[:1]:
            try:
                out.append(other.parse(data))
            except Exception:  # noqa: BLE001, S112
                continue
    return out


# -- compare ------------------------------------------------------------------------------


def compare(inputs, compiled, pure) -> list:
    diffs = []
    for (fmt, record, kind, payload), a, b in zip(inputs, compiled["results"], pure["results"]):
        if ADDRESS.sub("0x...", repr(a)) != ADDRESS.sub("0x...", repr(b)):
            diffs.append((fmt, record, kind, payload, a, b))
    return diffs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-format", type=int, default=2400)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--step", choices=("all", "make", "run", "compare"), default="all")
    ap.add_argument("--only", help="comma-separated formats")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    inputs_path = args.out / "inputs.pickle"
    if args.step in ("all", "make"):
        inputs = make(args.per_format, args.seed, args.only and set(args.only.split(",")))
        inputs_path.write_bytes(pickle.dumps(inputs))
        print(f"{len(inputs)} inputs", file=sys.stderr)
    if args.step == "run":
        run(
            inputs_path,
            args.out / f"{os.environ.get('WIRESPEC_PURE_PYTHON') and 'pure' or 'compiled'}.pickle",
        )
        return 0
    if args.step == "all":
        for tier, env in (("compiled", {}), ("pure", {"WIRESPEC_PURE_PYTHON": "1"})):
            t0 = time.time()
            subprocess.run(
                [sys.executable, __file__, "--out", str(args.out), "--step", "run"],
                env={**os.environ, **env},
                check=True,
            )
            print(f"{tier}: {time.time() - t0:.0f} s", file=sys.stderr)
    if args.step in ("all", "compare"):
        inputs = pickle.loads(inputs_path.read_bytes())
        compiled = pickle.loads((args.out / "compiled.pickle").read_bytes())
        pure = pickle.loads((args.out / "pure.pickle").read_bytes())
        return 1 if report(inputs, compiled, pure) else 0
    return 0


def report(inputs, compiled, pure) -> bool:
    """Print the counts, the findings of each tier and the inputs the tiers differ on;
    whether there was any."""
    from collections import Counter

    counts = Counter((fmt, kind) for fmt, _, kind, _ in inputs)
    for (fmt, kind), n in sorted(counts.items()):
        print(f"  {fmt:22} {kind:6} {n}")
    print(f"cpu: compiled {compiled['cpu']:.0f} s, pure {pure['cpu']:.0f} s")
    for tier, res in (("compiled", compiled), ("pure", pure)):
        seen = Counter()
        for fmt, record, kind, data, detail in res["findings"]:
            sig = (fmt, record, kind, detail.strip().splitlines()[-1][:160])
            seen[sig] += 1
            if seen[sig] == 1:
                print(
                    f"[{tier}] {fmt}/{record} {kind}: {detail.strip()[-600:]}\n    input {short(data)}"
                )
        print(f"[{tier}] {sum(seen.values())} findings, {len(seen)} distinct")
    diffs = compare(inputs, compiled, pure)
    sigs = Counter()
    for fmt, record, kind, payload, a, b in diffs:
        sig = (fmt, record, kind)
        sigs[sig] += 1
        if sigs[sig] <= 3:
            print(
                f"[tiers] {fmt}/{record} {kind}: {short(payload)}\n    compiled {a!r}\n    pure     {b!r}"
            )
    print(f"[tiers] {len(diffs)} inputs differ: {dict(sigs)}")
    return bool(diffs) or any(res["findings"] for res in (compiled, pure))


if __name__ == "__main__":
    sys.exit(main())
