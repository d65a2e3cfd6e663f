"""``wirespec docs``: ``docs/formats/<format>.md`` from every spec, like ``generate``.

The document is rendered from the spec model (:mod:`generator.spec.model`) with
``templates/format_doc.md.j2``: the format's description, a layout diagram and a field
table per record, switch case tables, checksums, and every enum or type-code table with
its flags. ``wirespec docs --check`` fails when a document is missing, stale or edited.

    >>> box_lines([("03", "1"), ("name", "len")], width=40)
    ['+----+------+', '| 03 | name |', '+----+------+', '  1    len']
"""

from __future__ import annotations

import os
from dataclasses import MISSING, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from generator import ROOT
from generator.spec import pytext
from generator.spec.types import PRIMITIVES, ordered

if TYPE_CHECKING:
    from generator.spec.model import Spec

DOCS_DIR = ROOT / "docs" / "formats"
DIAGRAM_WIDTH = 96


def spec_expr(text) -> str:
    """An expression as the spec wrote it (the model holds it translated to ``this.x``)."""
    return str(text).replace("this.", "")


def _hex(v: int) -> str:
    return f"0x{v:02x}"


def _size_text(ref) -> str:
    size = ref.size
    if getattr(ref, "terminator", None) is not None:
        return f"up to a `{_hex(ref.terminator)}` byte (read and written, not in the value)"
    if size is None:
        return ""
    if ref.size_is_prefix:
        return f"{size} length, then that many bytes"
    if size == "eos":
        return "to the end of the enclosing bytes"
    if isinstance(size, int):
        return f"{size} bytes"
    return f"`{spec_expr(size)}` bytes"


def type_text(ref, spec: Spec, chosen: frozenset = frozenset()) -> str:
    """How a field's type reads in the field table (Markdown); ``chosen``: the ids of the
    types read in a byte order the data chooses (:func:`chosen_by_data`)."""
    kind = ref.kind
    if kind == "prim":
        prim = PRIMITIVES.get(ref.name)
        out = f"`{ref.name}`"
        if ref.enum:
            out += f" enum [`{ref.enum}`](#enum-{ref.enum.replace('_', '-')})"
        if id(ref) in chosen and ordered(ref.name):
            out += " (in the byte order the data chooses)"
        elif prim is not None and prim.size and prim.kind == "int" and prim.size > 1:
            endian = (
                "big"
                if ref.name.endswith("be") or (spec.endian == "be" and not ref.name.endswith("le"))
                else "little"
            )
            out += f" ({endian}-endian)"
        return out
    if kind in ("str", "bytes"):
        what = "bytes"
        if kind == "str":
            utf8 = ref.encoding.replace("-", "").lower() == "utf8"
            what = "UTF-8 text" if utf8 else f"{ref.encoding} text"
        size = _size_text(ref)
        return f"{what}, {size}" if size else what
    if kind == "record":
        out = f"record [`{ref.name}`](#record-{ref.name.replace('_', '-')})"
        if ref.size is not None:
            out += f", inside {_size_text(ref)}"
        return out
    if kind == "switch":
        inside = f", inside {_size_text(ref)}" if ref.size is not None else ""
        return f"switch on `{ref.switch_on}` (see below){inside}"
    if kind == "choice":
        cases = ", ".join(
            f"[`{c}`](#record-{c.replace('_', '-')}) (`{m.hex()}`"
            + (f" mask `{k.hex()}`)" if k != b"\xff" * len(k) else ")")
            for c, (m, k) in zip(ref.cases, ref.detects)
        )
        return f"one of, by its leading bytes (the first that matches): {cases}"
    if kind == "bits":
        sign = "signed (two's complement)" if ref.bits_signed else "unsigned"
        order = "least" if ref.bit_order == "little" else "most"
        out = f"{ref.bits}-bit {sign} integer (its run read {order} significant bit first)"
        if ref.enum:
            out += f", enum [`{ref.enum}`](#enum-{ref.enum.replace('_', '-')})"
        return out
    if kind == "presence":
        return "presence (the tag alone means true)"
    if kind == "empty":
        return "nothing"
    if kind == "map":
        key, value = type_text(ref.key, spec), type_text(ref.value, spec)
        return f"map (varint pair count) of {key} to {value}"
    if kind == "chunk":
        out = f"`{ref.name}` of `{spec_expr(ref.count)}` elements"
        if ref.enum:
            out += f", enum [`{ref.enum}`](#enum-{ref.enum.replace('_', '-')})"
        return out
    if kind == "region":
        return f"`{ref.name}`, inside {_size_text(ref)}"
    return f"`{ref.name or kind}`"


def _box_for_type(ref, name: str) -> list[tuple[str, str]]:
    """(label, byte count) boxes of one value on the wire."""
    if ref.kind in ("str", "bytes", "record") and ref.size_is_prefix:
        prim = PRIMITIVES.get(ref.size)
        return [
            (f"len {ref.size}", str(prim.size) if prim and prim.size else "var"),
            (f"{name} ...", "len"),
        ]
    if ref.kind == "prim":
        prim = PRIMITIVES.get(ref.name)
        return [(f"{name} {ref.name}", str(prim.size) if prim and prim.size else "var")]
    if ref.kind in ("str", "bytes") and ref.terminator is not None:
        return [(f"{name} ...", "var"), (f"{ref.terminator:02x}", "1")]
    if ref.kind in ("str", "bytes"):
        size = ref.size
        return [
            (
                f"{name} ...",
                str(size) if isinstance(size, int) else ("rest" if size == "eos" else "expr"),
            )
        ]
    if ref.kind in ("record", "chunk", "region"):
        return [(f"{name}: {ref.name}", "var")]
    if ref.kind == "switch":
        return [(f"{name}: by {ref.switch_on}", "var")]
    if ref.kind == "bits":
        return [(f"{name} {ref.name}", f"{ref.bits} bits")]
    if ref.kind == "empty":
        return []
    return [(name, "var")]


def boxes(record) -> list[tuple[str, str]]:
    """The layout of a record as (label, byte count) boxes; optional parts end in ``?``,
    repeated ones in ``*``."""
    out: list[tuple[str, str]] = []
    if getattr(record, "tag", None) is not None:
        out.append((f"{record.tag:02x}", "1"))
    for f in record.fields:
        if getattr(f, "derived", ""):
            continue  # not on the wire
        if getattr(record, "layout", "sequence") == "serializable":
            out.append((f"id {f.id}: {f.name}", "var"))
            continue
        parts: list[tuple[str, str]] = []
        if f.type.kind == "presence":
            parts.append((f"{f.tag:02x} {f.name}", "1"))
        else:
            if f.tag is not None:
                parts.append((f"{f.tag:02x}", "1"))
            inner = _box_for_type(f.type, f.name)
            if f.const is not None and inner:
                label, size = inner[-1]
                inner[-1] = (f"{label} = {_hex(f.const)}", size)
            if f.repeat is not None and f.type.kind == "record" and f.tag is not None:
                inner = [(f"{f.type.name}*", "var")]
            elif f.repeat is not None:
                inner = [(f"{label}*", size if size != "len" else "var") for label, size in inner]
            parts += inner
        if f.optional or getattr(f, "condition", "") or f.type.kind == "presence":
            parts = [(label + "?", size) for label, size in parts]
        out += parts
    return out


def box_lines(items: list[tuple[str, str]], width: int = DIAGRAM_WIDTH) -> list[str]:
    """An ASCII box diagram: boxes with labels, byte counts under them, wrapped at ``width``."""
    lines: list[str] = []
    row: list[tuple[str, str]] = []
    used = 1

    def flush():
        if not row:
            return
        cells = [max(len(label), len(size)) + 2 for label, size in row]
        rule = "+" + "+".join("-" * w for w in cells) + "+"
        lines.append(rule)
        lines.append(
            "|" + "|".join(f" {label:<{w - 2}} " for (label, _), w in zip(row, cells)) + "|"
        )
        lines.append(rule)
        lines.append(
            (" " + " ".join(f" {size:<{w - 2}} " for (_, size), w in zip(row, cells))).rstrip()
        )

    for label, size in items:
        w = max(len(label), len(size)) + 3
        if row and used + w > width:
            flush()
            row, used = [], 1
        row.append((label, size))
        used += w
    flush()
    return lines


def _checksum_items(checksum) -> list[str]:
    out = []
    for item in checksum.items:
        if item.kind == "raw":
            out.append(f"the raw bytes of `{item.field}` (after its tag and any length prefix)")
        elif item.kind == "each":
            out.append(f"`{item.member}` of every element of `{item.field}`, as `{item.encoder}`")
        elif item.kind == "span":
            out.append(
                f"the raw bytes from the start of `{item.field}` to the end of `{item.last}` "
                "(read after the checksum: verified once they are read, written once built)"
            )
        else:
            out.append(f"the value `{spec_expr(item.expression)}`, as `{item.encoder}`")
    return out


def _field_notes(f) -> list[str]:
    notes = []
    if getattr(f, "trailer", False):
        notes.append("in the trailer: read from the end, before the fields in front")
    if getattr(f, "value_text", ""):
        notes.append(f"computed on build: `{f.value_text}`")
    if getattr(f, "derived_text", ""):
        notes.append(f"derived on parse, not on the wire: `{f.derived_text}`")
    if getattr(f.type, "nullable", False):
        notes.append("length -1 is null")
    if getattr(f, "valid_text", ""):
        otherwise = f' (else "{f.valid_message}")' if getattr(f, "valid_message", "") else ""
        when = " (checked on build: reading keeps it)" if getattr(f, "build_valid", "") else ""
        notes.append(f"must satisfy `{f.valid_text}`{otherwise}{when}")
    if f.tag is not None:
        notes.append(f"tag `{_hex(f.tag)}`")
    if f.optional:
        notes.append("optional (present when its tag follows)")
    if getattr(f, "if_bytes_left", False):
        notes.append("only if bytes remain (`bytes_left()`)")
    elif getattr(f, "condition", ""):
        notes.append(f"only if `{spec_expr(f.condition)}`")
    if f.const is not None:
        notes.append(f"constant `{_hex(f.const)}`")
    if f.repeat == "eos":
        notes.append("repeated until the end")
    elif f.repeat == "tagged":
        notes.append("repeated while the element's tag follows")
    elif f.repeat == "blocks":
        notes.append("in blocks: a ZigZag count (negative: then a byte size), ..., a 0 count")
    elif f.repeat == "until":
        until = f.repeat_until
        kept = "the last element" if until["include"] else "not in the list"
        notes.append(f"repeated until `{until['text']}` (the terminator: {kept})")
    elif f.repeat == "msb_count":
        notes.append("a vector: varint count, then the elements")
    elif isinstance(f.repeat, dict):
        notes.append(f"repeated `{spec_expr(f.repeat['count'])}` times")
    if f.min_count:
        notes.append(f"at least {f.min_count}")
    if f.checksum is not None:
        notes.append(f"{f.checksum.algorithm} checksum")
    if getattr(f, "id", None) is not None:
        notes.append(f"field id {f.id}")
    if getattr(f, "has_default", False):
        notes.append(f"default `{f.default!r}`")
    if getattr(f, "default_from", ""):
        notes.append(f"default: the value of `{f.default_from}`")
    if getattr(f, "open_enum", ""):
        anchor = f.open_enum.replace("_", "-")
        notes.append(f"open enum [`{f.open_enum}`](#enum-{anchor}): any value, named in JSON")
    if getattr(f, "logical", "") == "uuid":
        notes.append("JSON: UUID text")
    elif getattr(f, "logical", "") == "pg_lsn":
        notes.append(f"JSON and Spark: `{f.name}_text` (the LSN as `X/Y`) beside it")
    elif getattr(f, "logical", "") == "fourcc":
        notes.append("JSON: an unnamed code's four letters")
    elif getattr(f, "logical", ""):
        notes.append(f"JSON: `{f.name}_time` ({f.logical}, UTC) beside it")
    if getattr(f, "display", "") == "hex":
        notes.append("JSON: hex text (`0x...`)")
    ref = getattr(f, "ref", None)
    if ref is not None:
        null = "" if ref.null is None else f", `{ref.null}` = none"
        empty = ", the empty name refused (written as none)" if ref.empty_refused else ""
        notes.append(f"ids into `{ref.record}.{ref.dictionary}`{null}{empty}")
    decode_by = getattr(f, "decode_by", None)
    if decode_by is not None:
        unsigned = f", unsigned where `{decode_by.flags}` has bit {decode_by.unsigned:#x}"
        notes.append(
            f"each element a value of its `{decode_by.code}` code's"
            f" `{decode_by.enum}.{decode_by.attribute}` kind"
            + (unsigned if decode_by.flags else "")
        )
    if getattr(f, "interned", ()):
        order = ", ".join(f"`{path}`" for path in f.interned)
        notes.append(f"a writer interns names in this order: {order}")
    if getattr(f.type, "pad", b""):
        notes.append("NUL-padded: trailing NULs are not in the value")
    process = getattr(f, "process", None)
    if process is not None and process.cases is None:
        notes.append(f"compressed: `{process.codec}`")
    elif process is not None:
        cases = ", ".join(f"{value!r} {codec}" for value, codec in process.cases.items())
        notes.append(f"compressed by `{process.codec_text}`: {cases}")
    if getattr(f, "kept_of", ""):
        notes.append(f"model only: kept from reading `{f.kept_of}`, for an exact rebuild")
    return notes


def json_details(key) -> str:
    """The extra facts of one JSON key (enum, flag bit, layouts, ...)."""
    out = []
    if key.enum:
        out.append(f"enum `{key.enum}`" + (" (other codes kept as numbers)" if key.open else ""))
    if key.bit:
        out.append(f"flag bit `{key.bit}`")
    if key.layouts:
        out.append("layouts: " + ", ".join(key.layouts))
    if key.when:
        out.append("for: " + ", ".join(key.when))
    if key.events:
        out.append("events: " + ", ".join(key.events))
    if key.rendering:
        out.append(f"rendered per `{key.rendering}`")
    return "; ".join(out)


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _env():
    from jinja2 import Environment, FileSystemLoader

    env = Environment(
        loader=FileSystemLoader(str(Path(__file__).parent / "templates")),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["cell"] = _cell
    env.filters["hexv"] = _hex
    env.filters["anchor"] = lambda name: str(name).lower().replace("_", "-")
    env.filters["pyrepr"] = pytext.literal
    env.tests["model_required"] = lambda default: default is MISSING
    return env


@dataclass(frozen=True)
class DocPlace:
    """Where a document sits, for the lines that point out of it: ``link``, the spec's path
    from the document's folder; ``spec_arg``, the ``--spec`` a command of a spec of your own
    needs (None for the shipped formats, which the CLI and ``generated`` know by name).

    >>> DocPlace.shipped("specs/png.yaml")
    DocPlace(link='../../specs/png.yaml', spec_arg=None)
    """

    link: str
    spec_arg: str | None = None

    @property
    def folder(self) -> str | None:
        """The spec's folder as ``--specs`` names it (``myspecs``), for the commands shown."""
        return self.spec_arg.rsplit("/", 1)[0] if self.spec_arg else None

    @staticmethod
    def shipped(display: str) -> DocPlace:
        return DocPlace(f"../../{display}")

    @staticmethod
    def own(spec_path: Path, specs_dir: Path, out_dir: Path) -> DocPlace:
        """A spec of your own: linked from ``out_dir`` as it lies, and named in commands as
        ``--specs`` gave its folder (``myspecs/wav.yaml``: never an absolute path).

        >>> DocPlace.own(Path("my/specs/wav.yaml"), Path("my/specs"), Path("my/docs"))
        DocPlace(link='../specs/wav.yaml', spec_arg='specs/wav.yaml')
        """
        link = os.path.relpath(spec_path.resolve(), out_dir.resolve())
        return DocPlace(Path(link).as_posix(), f"{specs_dir.resolve().name}/{spec_path.name}")


def render_doc(spec: Spec, place: DocPlace | None = None) -> str:
    env = _env()
    order = [name for name in _doc_order(spec)]
    chosen = frozenset(  # the types of the records whose byte order the data chooses
        id(ref)
        for record in spec.records.values()
        if record.byte_order == "data"
        for field in record.fields
        for ref in (field.type, *field.type.cases.values())
    )
    return env.get_template("format_doc.md.j2").render(
        thrift=False,
        spec=spec,
        place=place or DocPlace.shipped(spec.source.display),
        records=[spec.records[name] for name in order],
        type_text=lambda ref: type_text(ref, spec, chosen),
        diagram=lambda record: "\n".join(box_lines(boxes(record))),
        notes=_field_notes,
        checksum_items=_checksum_items,
        json_details=json_details,
        enum_of=lambda name: spec.enums[name],
        endian={"le": "little-endian", "be": "big-endian"}.get(spec.endian, spec.endian),
    )


def _doc_order(spec: Spec) -> list[str]:
    """The default record first, then the rest in the order the spec reads them."""
    seen: list[str] = []

    def visit(name: str) -> None:
        if name in seen or name not in spec.records:
            return
        seen.append(name)
        for f in spec.records[name].fields:
            for ref in [f.type] + list(f.type.cases.values()):
                if ref.kind == "record":
                    visit(ref.name)

    visit(spec.default_record)
    for name in spec.records:
        visit(name)
    return seen


@dataclass
class DocOutcome:
    path: Path
    status: str
    """fresh | written | stale | missing | orphan | skipped"""
    reason: str = ""


def render_spec_doc(
    path: Path, root: Path = ROOT, place: DocPlace | None = None
) -> tuple[str, str]:
    try:
        display = str(path.resolve().relative_to(root))
    except ValueError:
        display = path.name
    from generator.spec.loader import (
        load,  # the generate extra (jsonschema, pyyaml): loaded when used
    )
    from generator.spec.validate import build_model

    loaded = load(path, display)
    if "protocol" in loaded.data:  # id-keyed protocols (Thrift) have their own model
        from generator.spec.thrift import build_thrift_model

        spec = build_thrift_model(loaded)
        return spec.format, render_thrift_doc(spec, place)
    spec = build_model(loaded)
    return spec.format, render_doc(spec, place)


def thrift_boxes(struct) -> list[tuple[str, str]]:
    """A Thrift struct on the wire: a field header and the value per field, then STOP."""
    out = []
    for f in struct.by_id:
        mark = "" if f.required else "?"
        out.append((f"hdr {f.id}:{f.type.ct_name}{mark}", "1-4"))
        if f.type.kind != "bool":
            out.append((f"{f.name}: {f.type.describe()}{mark}", "var"))
    out.append(("00 STOP", "1"))
    return out


def render_thrift_doc(spec, place: DocPlace | None = None) -> str:
    env = _env()
    wire_enums = {k: v for k, v in spec.wire.items() if isinstance(v, dict) and "values" in v}
    wire_rules = {k: v for k, v in spec.wire.items() if k not in wire_enums and isinstance(v, dict)}
    return env.get_template("format_doc.md.j2").render(
        thrift=True,
        spec=spec,
        place=place or DocPlace.shipped(spec.source.display),
        wire_enums=wire_enums,
        wire_rules=wire_rules,
        diagram=lambda struct: "\n".join(box_lines(thrift_boxes(struct))),
    )


def docs(specs_dir: Path, out_dir: Path, *, check: bool) -> list[DocOutcome]:
    """Render every spec's document; write (or, with ``check``, only compare) them."""
    from generator.emit.generate import named_as_given, spec_files

    outcomes = []
    expected = {}
    own = specs_dir.resolve() != (ROOT / "specs").resolve()
    for spec_path in spec_files(specs_dir):
        place = DocPlace.own(spec_path, specs_dir, out_dir) if own else None
        with named_as_given(spec_path):
            name, text = render_spec_doc(spec_path, place=place)
        expected[out_dir / f"{name}.md"] = text
    for path, text in expected.items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            outcomes.append(DocOutcome(path, "fresh"))
        elif check:
            outcomes.append(DocOutcome(path, "missing" if current is None else "stale"))
        else:
            out_dir.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            outcomes.append(DocOutcome(path, "written"))
    if out_dir.exists():
        for path in sorted(out_dir.glob("*.md")):
            if path not in expected:
                outcomes.append(DocOutcome(path, "orphan"))
    return outcomes
