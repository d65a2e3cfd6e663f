"""One spec -> its generated module and its compiled tier, as text.

Every target's emitter is built from the same model and handed to
``templates/module.py.j2``: the module emitter (construct objects, model classes, JSON,
Spark; :mod:`generator.emit.module_emitter`), the fast readers and writers, the quick and
compiled tiers, the strategies and the fallbacks. The text is formatted by black and headed
with its content hash, so a hand edit is found. The output is deterministic: same spec,
same bytes.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import black
import jinja2

from generator import __version__
from generator.emit import fallbacks
from generator.emit.compiled import CompiledEmitter
from generator.emit.compiled_arrow import ArrowEmitter
from generator.emit.compiled_tables import CompiledTablesEmitter
from generator.emit.compiled_unmapping import CompiledWayBacks
from generator.emit.compiled_writers import CompiledWriters
from generator.emit.fastbuild import BuildEmitter
from generator.emit.fastpath import FastPathEmitter
from generator.emit.json_documents import JsonDocumentEmitter
from generator.emit.lowering import Lowering
from generator.emit.module_emitter import ModuleEmitter
from generator.emit.quicktier import QuickTierEmitter
from generator.emit.strategies import StrategyEmitter
from generator.spec import pytext
from generator.spec.model import Spec, camel

TEMPLATES = Path(__file__).with_name("templates")
HEADER_HASH_PREFIX = "# content sha256: "


def template_environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    # spec text reaches a module only through these three (generator/spec/pytext.py)
    env.filters["pyrepr"] = pytext.literal
    env.filters["doc"] = pytext.docstring
    env.filters["comment"] = pytext.comment
    env.filters["camel"] = camel
    env.filters["pytuple"] = lambda items: pytext.literal(tuple(items))
    return env


def render(spec: Spec) -> str:
    """The generated module for ``spec``, formatted and headed, as text."""
    return render_with_compiled(spec)[0]


def render_with_compiled(
    spec: Spec, *, beside: bool = False, in_memory: bool = False
) -> tuple[str, str | None]:
    """The generated module for ``spec`` and its compiled tier (a .pyx, None when no
    record has one), both headed, as text. ``beside``: the module is written outside
    ``generated/`` and finds its compiled tier in the ``_compiled`` folder beside it;
    ``in_memory``: the module is imported from memory and has no compiled tier (no .pyx)."""
    emitter = ModuleEmitter(spec)
    lowering = Lowering(spec)
    compiled = CompiledEmitter(spec, lowering, beside=beside, in_memory=in_memory)
    fast, build = FastPathEmitter(spec), BuildEmitter(spec, lowering)
    writers = CompiledWriters(spec, lowering) if compiled.entries else None
    way_backs = CompiledWayBacks(spec, writers) if writers is not None else None
    tables = CompiledTablesEmitter(spec, emitter.runtime_instance)
    body = (
        template_environment()
        .get_template("module.py.j2")
        .render(
            spec=spec,
            e=emitter,
            documents=JsonDocumentEmitter(spec),
            fast=fast,
            build=build,
            compiled_writers=writers,
            compiled_way_backs=way_backs,
            quick=QuickTierEmitter(spec, lowering),
            compiled=compiled,
            tables=tables,
            fallbacks=fallbacks.collect(spec, fast, build, lowering, compiled),
            fallback_lines=fallbacks.header_lines,
            strategies=StrategyEmitter(spec, emitter),
            records=[spec.records[name] for name in spec.record_order()],
            version=__version__,
        )
    )
    body = black.format_str(body, mode=black.Mode(line_length=100))
    if in_memory:
        return with_header(body), None
    rows = {r.name: r.spark_row for r in spec.records.values() if r.spark_row}
    paths = [r.name for r in spec.records.values() if r.spark_path]
    arrow = ArrowEmitter(spec, lowering, emitter.spark_tables(), rows, paths)
    pyx = compiled.module_text(__version__, arrow, writers, way_backs)
    return with_header(body), pyx and with_header(pyx)


def with_header(body: str) -> str:
    """Put the content hash in the header, so hand edits are detectable."""
    digest = hashlib.sha256(body.encode()).hexdigest()
    first, rest = body.split("\n", 1)
    return f"{first}\n{HEADER_HASH_PREFIX}{digest}\n{rest}"


def content_is_untouched(text: str) -> bool:
    first, _, rest = text.partition("\n")
    recorded, _, body = rest.partition("\n")
    if not recorded.startswith(HEADER_HASH_PREFIX):
        return False
    digest = hashlib.sha256(f"{first}\n{body}".encode()).hexdigest()
    return recorded[len(HEADER_HASH_PREFIX) :] == digest
