"""Which records leave the fast paths, and why: no silent slow paths (issue #18).

``parse`` reads a record with its exact fast reader (``FAST_READERS``) and ``build`` writes it
with its fast writer (``FAST_WRITERS``); a record that has none goes through its construct
objects, 10x to 700x slower. Ahead of the exact reader, the quick tier (``QUICK_READERS``)
and the compiled tier (``COMPILED_READERS``) take what they can. Each
emitter decides what it covers and keeps why it refused the rest (``refused``); this module
only collects those decisions, one reason per record and tier, for the generated module's
header and its ``FALLBACKS`` constant, and for ``wirespec generate -v``.

    >>> from pathlib import Path
    >>> from generator.spec.loader import load
    >>> from generator.spec.validate import build_model
    >>> spec = build_model(load(Path("specs/plainbuffer.yaml")))
    >>> collect(spec)["parse"]
    {}
"""

from __future__ import annotations

from generator.emit.compiled import CompiledEmitter
from generator.emit.fastbuild import BuildEmitter
from generator.emit.fastpath import FastPathEmitter
from generator.emit.lowering import Lowering
from generator.spec.model import Spec
from generator.spec.types import RUNTIME_TYPES

TIERS = {
    "parse": "parse() reads it with construct, not a fast reader",
    "build": "build() writes it with construct, not a fast writer",
    "quick": "no quick-tier reader: parse() goes straight to the exact reader",
    "compiled": "no compiled reader: parse() stays in Python",
}
"""What a record listed under each tier of ``FALLBACKS`` misses."""
IN_MEMORY = (
    "rendered in memory (--spec): pure Python by design; its compiled reader comes with"
    " `wirespec generate --specs DIR --out PKG --compiled`"
)
"""Why a record of a module rendered in memory has no compiled reader, where the same spec
generated and built would have one."""


def alone(verb: str) -> str:
    """Why a record that reads ``_parent`` has no ``verb`` (``parse``/``build``) of its own."""
    return (
        "reads `_parent`: by design (it means nothing without the record around it): fast"
        f" inside it; {verb}() of it alone goes to construct, which has no parent either and"
        " says so"
    )


def collect(
    spec: Spec,
    fast: FastPathEmitter | None = None,
    build: BuildEmitter | None = None,
    lowering: Lowering | None = None,
    compiled: CompiledEmitter | None = None,
) -> dict[str, dict[str, str]]:
    """Tier -> {record -> why that tier does not cover it}, records in the spec's order
    (the emitters are made when not given)."""
    fast = fast or FastPathEmitter(spec)
    lowering = lowering or Lowering(spec)
    build = build or BuildEmitter(spec, lowering)
    compiled = compiled or CompiledEmitter(spec, lowering)
    out: dict[str, dict[str, str]] = {tier: {} for tier in TIERS}
    for name in spec.record_order():
        if spec.records[name].layout == "protobuf":
            # runtime/formats/protobuf.py's table-driven reader and writer are its fast path, and
            # runtime/_compiled/protobuf.pyx runs the same tables compiled
            out["quick"][name] = (
                "layout protobuf: by design: its fast path is already a table-driven loop"
                " (runtime/formats/protobuf.py), which the compiled tier runs compiled"
            )
            continue
        runtime = _runtime_primitive(spec, name)
        if name in fast.needs_parent:
            out["parse"][name] = alone("parse")
        elif name not in fast.supported and not (runtime and RUNTIME_TYPES[runtime].fast):
            out["parse"][name] = fast.refused[name]
        if name in build.supported:
            if build.needs_parent(name):
                out["build"][name] = alone("build")
        elif runtime and build.record_writers(spec.records[name].fields[0].type):
            out["build"][name] = f"runtime primitive {runtime}: construct around its own writer"
        else:
            out["build"][name] = build.refused[name]
        # a runtime primitive reads itself: the tiers its runtime module has are its own
        own = runtime and f"runtime primitive {runtime}: its runtime module's reader and tiers"
        if name not in lowering.entries:
            out["quick"][name] = own or _unplanned(lowering, name)
        if name not in compiled.entries:
            out["compiled"][name] = own or compiled.refused.get(name) or _unplanned(lowering, name)
        elif compiled.in_memory:
            out["compiled"][name] = IN_MEMORY
    return out


def _runtime_primitive(spec: Spec, name: str) -> str | None:
    """The runtime primitive a record is made of (its one field), if it is one."""
    fields = spec.records[name].fields
    if len(fields) == 1 and fields[0].type.kind == "runtime":
        return fields[0].type.name
    return None


def _unplanned(lowering: Lowering, name: str) -> str:
    if name in lowering.refused:
        return f"no plan: {lowering.refused[name]}"
    readers = lowering.readers_of(name)
    planned = [other for other in readers if other not in lowering.refused]
    if planned:
        uses = (
            "its one use"
            if sum(lowering.raw_uses[name]) == 1
            else "at each use, in its order there"
        )
        return (
            f"read inline where {', '.join(planned)} reads it, {uses} (by design: no"
            " call); parse() of it alone stays in Python"
        )
    if readers:  # its plan is read by nothing that has one
        which = "which reads it, has" if len(readers) == 1 else "which read it, have"
        return f"planned, but {', '.join(readers)}, {which} no plan"
    return "planned, but no record reads it and it is not the default record"


def header_lines(fallbacks: dict[str, dict[str, str]]) -> list[tuple[str, str]]:
    """The generated module's header comment, as (indent, text) lines: the records each
    tier leaves out (the text goes through ``pytext.comment``, the indent is spaces)."""
    lines = [("", "Fast paths (FALLBACKS; `wirespec generate -v` lists them):")]
    for tier, records in fallbacks.items():
        if not records:
            lines.append(("  ", f"{tier}: every record"))
            continue
        lines.append(("  ", f"{tier}: {TIERS[tier]}:"))
        lines += [("    ", f"{name}: {why}") for name, why in records.items()]
    return lines


def report(fmt: str, fallbacks: dict[str, dict[str, str]]) -> list[str]:
    """``generate -v``'s lines for one format: one per record a tier leaves out."""
    return [
        f"{fmt}: {tier}: {name}: {why}"
        for tier, records in fallbacks.items()
        for name, why in records.items()
    ]
