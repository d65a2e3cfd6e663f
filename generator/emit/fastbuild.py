"""The build fast path: straight-line Python writers emitted from the same format model.

For every record whose fields it knows the emitter writes one function ::

    def _write_column_group(model, out):
        ...
        return rt_fast.Parent(...)  # what later expressions read of it

that appends to the bytearray ``out`` exactly the bytes construct's build of the record
writes, and returns what construct's build returns as far as spec expressions can see it
(the built values the ``value:`` expressions of enclosing records read, and ``sizeof_x``
for each field ``x`` some ``sizeof(...)`` measures). It is written for models that build:
on anything else it may raise anything, and the generated ``build()`` (and a runtime
primitive given the writer) then builds with construct, so an ``EncodeError`` is always
construct's. It must never write bytes where construct raises: every check construct
makes on build (a ``const``, a checked size or count, an enum member, a string's type
and bound) is made here too. Tests hold the bytes of both paths equal.
"""

from __future__ import annotations

import dataclasses
import re

from generator.emit.dead_lists import without_dead_lists
from generator.emit.fastbuild_messages import MessageUnsupported, MessageWriters
from generator.emit.fastbuild_orders import OrderedWriters
from generator.emit.fastbuild_reads import AttributeReads
from generator.emit.fastbuild_repeats import RepeatWriters, Unsupported
from generator.emit.fastbuild_sizes import ReservedSizes
from generator.emit.fastbuild_switches import measure_switch, pass_grandparent_reads
from generator.emit.lowering import Lowering
from generator.emit.pysource import (
    LineWriter,
    codec_cases,
    struct_format,
    struct_name,
    valid_on_build,
    valid_rule,
)
from generator.spec import pytext
from generator.spec.byte_order import ordered_float
from generator.spec.model import Field, Record, Spec, TypeRef, bit_field_range, camel
from generator.spec.types import CHUNK_TYPES, PRIMITIVES, REGION_TYPES

_SIZEOF = re.compile(r"rt\.sizeof\((\w+), '(\w+)'\)")
_PARENT = re.compile(r"\bthis\._parent\.(\w+)")
_THIS = re.compile(r"\bthis\.(\w+)")
_BUILT_ATTRIBUTE = re.compile(r"(?<!\bthis)(?<!\b_parent)(?<!\brt)\.([a-z_][a-z0-9_]*)")
"""``x.name`` where ``x`` is a built record (not the record's own or its parent's context)."""
_LEB128_WRITERS = {
    "uvarint": "rt_leb128.write_uvarint",
    "varint": "rt_leb128.write_zigzag",
    "reversed_uvarint": "rt_leb128.write_reversed_uvarint",
}


KINDS = ("prim", "bits", "record", "str", "bytes", "chunk", "region", "switch", "choice", "empty")
"""Type kinds the writers write (``presence`` is a field's, a runtime primitive has none)."""


class _Scope:
    """What an expression of one record sees while its writer runs: the fields built so
    far (``f_<name>``, their sizes ``s_<name>``), the others still the model's, the
    index of the repeat being written."""

    def __init__(self, record: Record):
        self.record = record
        self.built: set[str] = set()
        self.index: str | None = None
        self.item: str | None = None
        """The element a ``repeat: {until:}`` expression reads as ``_item``."""


class BuildEmitter(AttributeReads, MessageWriters, OrderedWriters, RepeatWriters, ReservedSizes):
    """Emits the build fast path of one spec (see the module docstring); ``lowering``: the
    spec's plans, which the writers of ``layout: serializable`` messages are rendered from
    (made when not given)."""

    def __init__(self, spec: Spec, lowering: Lowering | None = None):
        self.spec = spec
        self.lowering = lowering or Lowering(spec)
        self.constants: dict[str, str] = {}
        self.choices: dict[str, list[str]] = {}
        """Choice tables the writers read: name -> the case records."""
        expressions = [e for r in spec.records.values() for f in r.fields for e in _built(f)]
        self.measured = {name for e in expressions for _, name in _SIZEOF.findall(e)}
        """Fields some ``sizeof`` measures: their writers keep their sizes."""
        self.measured_built = {
            name for e in expressions for owner, name in _SIZEOF.findall(e) if owner != "this"
        }
        """Fields some ``sizeof`` measures of a built record: its writer returns their sizes."""
        self.read = {name for e in expressions for name in _BUILT_ATTRIBUTE.findall(e)}
        self.read |= {
            item.member
            for r in spec.records.values()
            for f in r.fields
            if f.checksum is not None
            for item in f.checksum.items
            if item.kind == "each"
        }
        self.read |= {  # a valid: checked on build may read a record built before it
            name
            for r in spec.records.values()
            for f in r.fields
            if valid_rule(f) and valid_on_build(r, f)
            for name in _BUILT_ATTRIBUTE.findall(valid_rule(f))
        }
        """What expressions, checksums and valid: read of a built record: its writer returns it."""
        self.parent_reads = {
            r.name: {
                n
                for f in r.fields
                for e in [*_built(f), valid_rule(f) if valid_on_build(r, f) else None]
                for n in _PARENT.findall(e or "")
            }
            for r in spec.records.values()
        }
        """Per record: what its build-time expressions read of ``_parent``."""
        pass_grandparent_reads(spec, self.parent_reads, _built)
        self.supported = self._supported_records()

    # -- which records can have a fast writer ----------------------------------------

    def _supported_records(self) -> dict[str, str]:
        """Record name -> its writer function's source; ``refused``: why the others have
        none (``build`` writes them with construct). Every record is taken to have a writer
        until one it uses has none (a recursive record's writer calls itself)."""
        self.refused: dict[str, str] = {}
        names = set()
        for name in self.spec.record_order():
            layout = self.spec.records[name].layout
            if layout in ("sequence", "serializable"):
                names.add(name)
            else:
                self.refused[name] = (
                    f"layout {layout}: written by its table-driven writer "
                    "(runtime/formats/protobuf.py), not a rendered one"
                )
        while True:
            self.constants, self.choices = {}, {}
            out: dict[str, str] = {}
            for name in self.spec.record_order():
                if name not in names:
                    continue
                saved = (dict(self.constants), dict(self.choices))
                self.writing = ""
                record = self.spec.records[name]
                try:
                    if record.serializable:  # fastbuild_messages, from the reader's plan
                        out[name] = self.message_function(record)
                    else:
                        out[name] = self.record_function(record, names)
                except (Unsupported, MessageUnsupported) as why:
                    self.refused[name] = f"{self.writing}: {why}" if self.writing else str(why)
                    self.constants, self.choices = saved
            if set(out) == names:
                return out
            names = set(out)

    @staticmethod
    def built_expressions(field: Field) -> list[str]:
        return _built(field)

    def needs_parent(self, name: str) -> bool:
        return bool(self.parent_reads[name])

    # -- emission ---------------------------------------------------------------------

    def module_code(self) -> str:
        """The writers, the constants they use and the ``FAST_WRITERS`` table (records that
        read ``_parent`` are written only inside their parent, as construct builds them)."""
        constants = [f"{name} = {value}" for name, value in sorted(self.constants.items())]
        table = (
            ["FAST_WRITERS = {"]
            + [
                f"    {name!r}: _write_{name},"
                for name in self.supported
                if not self.needs_parent(name)
            ]
            + ["}"]
        )
        parts = ["\n".join(constants)] if constants else []
        choices = [
            f"{name} = {{{', '.join(f'{camel(c)}: _write_{c}' for c in cases)}}}"
            for name, cases in sorted(self.choices.items())
        ]
        return "\n\n\n".join(parts + list(self.supported.values()) + ["\n".join(choices + table)])

    def record_writers(self, ref: TypeRef) -> str:
        """``arg=_write_<record>, ...`` for a runtime primitive's record arguments that have
        a fast writer (its ``use_fast_writers`` takes them)."""
        return ", ".join(
            f"{arg}=FAST_WRITERS[{value!r}]"
            for arg, value in ref.args.items()
            if value in self.supported and not self.needs_parent(value)
        )

    def record_function(self, record: Record, written: dict) -> str:
        if record.byte_order == "data":  # one writer per order (fastbuild_orders.py)
            if any(f.type.kind == "choice" for f in record.fields) or ordered_float(record):
                raise Unsupported("a choice or a float in a record whose order the data chooses")
            return self.ordered_writers(record, written)
        w = LineWriter()
        w.line(
            f'"""Fast build of ``{record.name}``: the bytes of the construct path, which '
            'builds instead when this raises."""'
        )
        scope = _Scope(record)
        self.writers = written
        context = self.context_fields(record, written)
        if context:
            args = ", ".join(
                "_parent=parent" if n == "_parent" else f'{n}=model["{n}"]'
                for n in sorted(context - {"_index"})
            )
            w.line(f"ctx = rt_fast.Parent({args})  # what the `_parent` expressions below see")
        if record.tag is not None:
            w.line(f"out.append(0x{record.tag:02x})")
        read_on_build = {n for f in record.fields for e in _built(f) for n in _THIS.findall(e)}
        reserved = self.reserved_sizes(record, context)  # fastbuild_sizes: reserve, patch
        for field in record.fields:
            self.writing = field.name  # the field a refusal names
            if field.kept_of:
                # construct's Kept writes nothing: the field it belongs to reads the model's
                if record.field(field.kept_of).on_cut:  # RepeatEos: the cut bytes, last
                    self.cut_tail(w, field.name)
                elif field.name in read_on_build | context | self.read:
                    w.line(f'f_{field.name} = model.get("{field.name}")')
                scope.built.add(field.name)
                continue
            if field.derived:
                # not on the wire: construct computes it on build only for what reads it
                if field.name in read_on_build | context:
                    raise Unsupported("a build-time expression reads a derived value")
                continue
            w.line(pytext.source_comment(self.spec.source.display, field.line, field.name))
            size = reserved.get(field.name)
            if size is not None and size.field is field:
                self.reserve(w, field)
                continue
            self.implied_size = size
            self.field(w, field, scope, written)
            self.implied_size = None
            if size is not None:
                self.fill_reserved(w, size, scope)
            for name, placeholder in self.patch_after(record, field):
                self.patch(w, record.field(name), placeholder)
            scope.built.add(field.name)
            if field.name in context:
                w.line(f"ctx.{field.name} = f_{field.name}")
        kept = [f.name for f in record.fields if f.name in self.read]
        kept += [
            f"sizeof_{f.name}=s_{f.name}" for f in record.fields if f.name in self.measured_built
        ]
        if kept:
            w.line(
                f"return rt_fast.Parent({', '.join(k if '=' in k else f'{k}=f_{k}' for k in kept)})"
            )
        else:
            w.line("return rt_fast.EMPTY_PARENT  # nothing reads this record's fields")
        params = "model, out, parent" if self.needs_parent(record.name) else "model, out"
        body = self.model_reads(camel(record.name), without_dead_lists("\n".join(w.lines)))
        return f"def _write_{record.name}({params}):\n{body}"

    @staticmethod
    def cut_tail(w: LineWriter, name: str) -> None:
        """``on_cut: keep``'s ``<list>_cut`` after the elements, as RepeatEos builds it (not
        bytes: construct says what is wrong)."""
        w.line(f'f_{name} = model.get("{name}")')
        w.line(f"if f_{name} is not None:")
        w.line(f"    if not isinstance(f_{name}, (bytes, bytearray)):")
        w.line('        raise TypeError("bytes")')
        w.line(f"    out += f_{name}")

    def context_fields(self, record: Record, written: dict) -> set[str]:
        """What the children of ``record`` read of it as their ``_parent``."""
        out: set[str] = set()
        for field in record.fields:
            for ref in [field.type, *field.type.cases.values()]:
                if ref.kind == "record" and ref.name in written:
                    reads = self.parent_reads[ref.name]
                    if "_index" in reads and field.repeat is None:
                        raise Unsupported("`_parent._index` outside a repeat")
                    out |= reads
        own = {f.name for f in record.fields} | {"_index"}
        own |= {"_parent"} if self.needs_parent(record.name) else set()
        if any(n not in own for n in out):
            raise Unsupported("`_parent` of a field that is not there")
        return out

    def expression(self, text, scope: _Scope, *, computed: bool = False) -> str:
        """A build-time expression over what ``scope`` has written so far; ``computed``: a
        ``value:``, which reads a list not written yet and given None as ``[]`` (as
        ``runtime.core.record.Computed`` does)."""
        lists = {f.name for f in scope.record.fields if f.repeat is not None} if computed else ()
        if isinstance(text, int):
            return str(text)

        def sizeof(match: re.Match) -> str:
            owner, name = match.groups()
            if owner != "this":
                return f"{owner}.sizeof_{name}"
            if name not in scope.built:  # a length before its text: measured as construct does
                return self.measure_ahead(scope.record.field(name))
            return f"s_{name}"

        def this(match: re.Match) -> str:
            name = match.group(1)
            if name == "_index":
                if scope.index is None:
                    raise Unsupported("`_index` outside a repeat")
                return scope.index
            if name == "_item" and scope.item is not None:
                return scope.item
            if name.startswith("_"):
                raise Unsupported(f"this.{name}")
            if name in scope.built:
                return f"f_{name}"
            return f'(model["{name}"] or [])' if name in lists else f'model["{name}"]'

        text = _SIZEOF.sub(sizeof, str(text))
        if "this._parent._parent._parent" in text or "rt." in text:
            raise Unsupported(f"`{text}` reads above the grandparent or calls the runtime")
        text = _PARENT.sub(r"parent.\1", text)
        return _THIS.sub(this, text)

    def measure_ahead(self, target: Field) -> str:
        """``sizeof(target)`` before ``target`` is written: a text's or bytes' length, a
        record's bytes written on their own (``rt_fast.measured``; a list: each
        element's), as ``rt.sizeof`` measures them."""
        ref, name = target.type, target.name
        plus = " + 1" if ref.terminator is not None else ""
        if target.repeat is None and ref.kind == "bytes":
            return f'len(model["{name}"]){plus}'
        if target.repeat is None and ref.kind == "str":
            return f'len(model["{name}"].encode({ref.encoding!r})){plus}'
        if ref.on_enclosing and not target.repeat:
            return measure_switch(self, target, Unsupported)  # its case told by its value
        measurable = (
            ref.kind == "record"
            and ref.name in self.writers
            and not self.needs_parent(ref.name)
            and not ref.size_is_prefix
            and target.process is None
            and (target.repeat is None or isinstance(target.repeat, dict) or target.repeat == "eos")
        )
        if not measurable:
            raise Unsupported(f"sizeof({name}) before it is written")
        if target.repeat is None:
            return f'rt_fast.measured(_write_{ref.name}, model["{name}"])'
        return f'[rt_fast.measured(_write_{ref.name}, e) for e in model["{name}"] or ()]'

    def field(self, w: LineWriter, field: Field, scope: _Scope, written: dict) -> None:
        if self.compressed_rest(field):
            process = field.process
            if process.cases:
                codec = self.expression(process.codec, scope)
                cases = codec_cases(self.constants, "_WRITE_CODECS_", process.cases.items())
            else:
                codec, cases = repr(process.codec), "None"
            w.line(f"f_{field.name}_codec = rt_process.codec_for({codec}, {cases})")
            w.line(f"f_{field.name}_plain_at = len(out)")
        self.field_bytes(w, field, scope, written)

    @staticmethod
    def compressed_rest(field: Field) -> bool:
        """A ``process: {size: eos}`` field (Kafka's records): written plain, then the
        bytes from its start to the end replaced by the codec's (``runtime.core.process``)."""
        process = field.process
        return process is not None and process.rest and not field.condition and field.tag is None

    def field_bytes(self, w: LineWriter, field: Field, scope: _Scope, written: dict) -> None:
        var = f"f_{field.name}"
        ref = field.type
        optional = field.tag is not None and field.optional
        if field.value:
            w.line(f"{var} = {self.expression(field.value, scope, computed=True)}")
        elif field.checksum is not None and field.condition:
            w.line(f'{var} = model.get("{field.name}")  # what construct\'s If keeps when absent')
        elif field.checksum is None:
            # construct reads a field it may build from nothing with .get, any other with []
            nothing = field.const is not None or ref.kind == "presence" or optional
            w.line(
                f'{var} = model.get("{field.name}")'
                if nothing
                else f'{var} = model["{field.name}"]'
            )
        size = f"s_{field.name}" if field.name in self.measured else None
        spanned = (size and field.repeat is None) or field.name in scope.record.checksummed
        if spanned:
            w.line(f"{var}_start = len(out)")
        if size and field.repeat is not None and (field.condition or optional):
            w.line(f"{size} = 0  # absent: no list of sizes")
        present = []
        if field.if_bytes_left:  # written when the model has it, and then every one before
            earlier = [f.name for f in scope.record.fields if f.if_bytes_left]
            earlier = earlier[: earlier.index(field.name)]
            if earlier:
                w.line(f"if {var} is not None and f_{earlier[-1]} is None:")
                w.line('    raise ValueError("bytes_left() after an absent one")')
            present.append(f"{var} is not None")
        elif field.condition:
            present.append(self.expression(field.condition, scope))
        if optional:
            empty = f" or not {var} and isinstance({var}, (list, tuple))"
            absent = f"{var} is None" + (empty if field.repeat is not None else "")
            present.append(f"not ({absent})")
        if present:  # else construct's If builds its Pass, an absent Tagged nothing
            w.line(f"if {' and '.join(present)}:")
            w.depth += 1
        if ref.kind == "presence":
            w.line(f"if {var}:")
            w.line(f"    out.append(0x{field.tag:02x})")
            w.line(f"{var} = bool({var})")
        else:
            if field.tag is not None:
                w.line(f"out.append(0x{field.tag:02x})")
            if field.checksum is not None:
                self.checksum(w, field, var, scope)
            elif field.process is not None and not self.compressed_rest(field):
                if field.process.rest:
                    raise Unsupported("process: {size: eos} with a condition or a tag")
                self.processed(w, field, var, scope, written)
            elif field.repeat is None:
                self.value(w, ref, var, field, scope, written)
            else:
                self.repeat(w, field, var, size, scope, written)
        if valid_rule(field) and valid_on_build(scope.record, field):  # as rt.Valid: declined
            scope.built.add(field.name)
            w.line(f"if not ({self.expression(valid_rule(field), scope)}):")
            w.line('    raise ValueError("valid")')
        if present:
            w.depth -= 1
        if self.compressed_rest(field):  # the plain bytes written become the codec's
            at, wire = f"{var}_plain_at", f'model.get("{field.name}_wire")'
            w.line(f'if {var}_codec != "none" or {wire} is not None:')
            w.line(
                f"    out[{at}:] = rt_process.compressed({var}_codec, bytes(out[{at}:]), "
                f"{wire}, {field.process.level})"
            )
        if spanned:
            w.line(f"{var}_end = len(out)")
        if size and field.repeat is None:
            w.line(f"{size} = {var}_end - {var}_start")

    @staticmethod
    def patch_after(record: Record, field: Field) -> list[tuple[str, str]]:
        """The checksums over a ``span`` that ends with ``field``: (checksum, its start)."""
        return [
            (f.name, f"f_{f.name}_at")
            for f in record.fields
            if f.checksum is not None
            for item in f.checksum.items
            if item.kind == "span" and item.last == field.name
        ]

    def patch(self, w: LineWriter, field: Field, at: str) -> None:
        """A span checksum, once its last field is written: the sum over its placeholder."""
        item = field.checksum.items[0]
        function = self.checksum_function(field.checksum.algorithm)
        var = f"f_{field.name}"
        w.line(f"{var} = {function}(out[f_{item.field}_start : f_{item.last}_end])")
        w.line(
            f"out[{at} : {at} + {PRIMITIVES[field.type.name].size}] = {self.packer(field.type.name)}({var})"
        )

    def checksum_function(self, algorithm: str) -> str:
        return self.constant(f"_CHECKSUM_{algorithm.upper()}", f"rt_fast.CHECKSUMS[{algorithm!r}]")

    def checksum(self, w: LineWriter, field: Field, var: str, scope: _Scope) -> None:
        """``rt_checksum.Checksum``: the items' bytes as construct gives them, then the sum
        (a ``span`` of later fields: zeros now, :meth:`patch` once they are written)."""
        if field.repeat is not None or field.type.kind != "prim":
            raise Unsupported("a repeated checksum or one that is no number")
        if any(item.kind == "span" for item in field.checksum.items):
            if len(field.checksum.items) != 1 or PRIMITIVES[field.type.name].size is None:
                raise Unsupported("a span checksum with other items, or of a varint")
            w.line(f"{var} = None")
            w.line(f"{var}_at = len(out)")
            w.line(f"out += bytes({PRIMITIVES[field.type.name].size})")
            return
        parts = []
        for item in field.checksum.items:
            if item.kind == "raw":
                target = scope.record.field(item.field)
                skip = 1 if target.tag is not None else 0
                if target.type.size_is_prefix:
                    width = PRIMITIVES[target.type.size].size
                    if width is None:
                        raise Unsupported("a raw checksum item after a varint length")
                    skip += width
                t = f"f_{item.field}"
                parts.append(f'b"" if {t} is None else out[{t}_start + {skip} : {t}_end]')
            elif item.kind == "each":
                enc = self.encoder(item.encoder)
                parts.append(f'b"".join([{enc}(e.{item.member}) for e in f_{item.field} or ()])')
            else:
                parts.append(
                    f"{self.encoder(item.encoder)}({self.expression(item.expression, scope)})"
                )
        function = self.checksum_function(field.checksum.algorithm)
        w.line(f'{var} = {function}(b"".join([')
        for part in parts:
            w.line(f"    {part},")
        w.line("]))")
        self.prim(w, field.type, var)

    def encoder(self, prim: str) -> str:
        """The function whose bytes are construct's ``build`` of one ``prim`` value."""
        if prim in _LEB128_WRITERS:
            return _LEB128_WRITERS[prim]
        if PRIMITIVES[prim].size is None or PRIMITIVES[prim].kind == "bool":
            raise Unsupported(f"checksum items as {prim}")
        return self.packer(prim)

    def processed(self, w: LineWriter, field: Field, var: str, scope: _Scope, written) -> None:
        """``runtime.core.process.Processed`` in its size: the value written, its bytes taken
        back off ``out`` and replaced by the model's ``<name>_wire`` when that still decodes
        to them, else by them compressed (``rt_process.compressed``); then its length."""
        ref, process = field.type, field.process
        if field.const is not None:
            raise Unsupported("a processed const")
        if ref.kind == "record":
            body = dataclasses.replace(ref, size=None, size_is_prefix=False)
        else:  # construct's GreedyString / GreedyBytes inside the codec
            body = dataclasses.replace(
                ref, size="eos", size_is_prefix=False, max_length=None, nullable=False, pad=b""
            )
        at, plain, wire = w.fresh("at"), w.fresh("plain"), w.fresh("wire")
        w.line(f"{at} = len(out)")
        self.value(w, body, var, field, scope, written)
        w.line(f"{plain} = bytes(out[{at}:])")
        w.line(f"del out[{at}:]")
        if process.cases is None:
            codec = repr(process.codec)
        else:
            cases = codec_cases(self.constants, "_WRITE_CODECS_", process.cases.items())
            codec = f"rt_process.codec_for({self.expression(process.codec, scope)}, {cases})"
        w.line(
            f'{wire} = rt_process.compressed({codec}, {plain}, model.get("{field.name}_wire"), '
            f"{process.level!r})"
        )
        if ref.size_is_prefix:
            self.prim(w, TypeRef("prim", ref.size), f"len({wire})")
        elif ref.checked_on_build:
            w.line(f"if len({wire}) != {self.expression(ref.size, scope)}:")
            w.line('    raise ValueError("size")')
        w.line(f"out += {wire}")

    def value(self, w: LineWriter, ref: TypeRef, var: str, field: Field, scope, written) -> None:
        """Write ``var`` (one element) as ``ref``; ``var`` becomes what construct's build of
        it returns."""
        if ref.args or ref.kind not in KINDS:
            what = f"runtime primitive {ref.name}" if ref.kind == "runtime" else f"a {ref.kind}"
            raise Unsupported(f"{what} type")
        if field.const is not None:
            if ref.kind not in ("prim", "bits") or ref.enum:
                raise Unsupported("a const that is not a plain integer")
            w.line(f"if {var} not in (None, {field.const:#x}):")
            w.line('    raise ValueError("const")')
            w.line(f"{var} = {field.const:#x}")
        if ref.kind == "prim":
            self.prim(w, ref, var)
        elif ref.kind == "bits":
            self.bits(w, ref, var, field)
        elif ref.kind == "choice":
            if any(self.needs_parent(case) for case in ref.cases):
                raise Unsupported("a choice of records reading `_parent`")
            missing = [case for case in ref.cases if case not in written]
            if missing:
                raise Unsupported(missing[0])
            table = f"_WRITE_{field.name}_In_{scope.record.name}"
            self.choices[table] = list(ref.cases)
            w.line(f"{var} = {table}[type({var})]({var}, out)")
        elif ref.kind in ("str", "bytes"):
            self.text(w, ref, var, scope)
        elif ref.kind == "record":
            self.record(w, ref, var, scope, written)
        elif ref.kind == "empty":
            w.line(f"{var} = None")
        elif ref.kind == "switch":
            self.switch(w, ref, var, field, scope, written)
        else:
            start = self.sized_start(w, ref)
            if ref.kind == "chunk":
                # a strict enum's chunk refuses an unlisted code, as construct's does
                options = [f"enum={camel(ref.enum)}"] if ref.enum else []
                name = f"_PACK_{ref.name.upper()}" + (f"_Of_{ref.enum}" if ref.enum else "")
                pack = self.constant(name, f"{CHUNK_TYPES[ref.name].construct('0', *options)}.pack")
                count = self.expression(ref.count, scope) if ref.checked_on_build else f"len({var})"
                w.line(f"{pack}({var}, {count}, out)")
            else:
                pack = self.constant(
                    f"_PACK_{ref.name.upper()}", f"{REGION_TYPES[ref.name].construct}.pack"
                )
                w.line(f"{pack}({var}, out)")
            self.sized_end(w, ref, start, scope)

    def switch(self, w: LineWriter, ref: TypeRef, var: str, field: Field, scope, written) -> None:
        """construct's ``Switch`` on a number field (an enum's member, or a plain integer
        such as an open enum's): the case whose member equals it, else the default, else
        nothing (construct's Pass). The key is what the field's writer accepted, an integer
        or a member, so ``==`` finds the case construct's dict lookup finds."""
        key = None if "." in ref.switch_on else scope.record.field(ref.switch_on)
        if key is not None and (key.type.kind not in ("prim", "bits") or key.repeat is not None):
            raise Unsupported("a switch on a field that is no single number")
        if key is not None and key.name not in scope.built:
            raise Unsupported("a switch on a field written after it")
        if field.const is not None or ref.size_is_prefix:
            raise Unsupported("a const or length-prefixed switch")
        start = self.sized_start(w, ref)
        test = self.case_test(w, ref, key, scope)
        keyword = "if"
        for case, sub in ref.cases.items():
            if case != "default":
                w.line(f"{keyword} {test(case)}:")
                keyword = "elif"
                w.depth += 1
                self.value(w, sub, var, field, scope, written)
                w.depth -= 1
        if "default" in ref.cases:
            w.line("else:")
            w.depth += 1
            self.value(w, ref.cases["default"], var, field, scope, written)
            w.depth -= 1
        self.sized_end(w, ref, start, scope)

    def case_test(self, w: LineWriter, ref: TypeRef, key: Field | None, scope):
        """The test of a switch's case, a function of the case's name: the key equal to
        the case's member (``key``: the record's field switched on, None for an enclosing
        record's). The member's number where it has one: an int compare, where the
        member (``Enum.CASE``, an enum class's attribute) cost 20 times that."""
        enum, on = camel(ref.enum), self.expression(f"this.{ref.switch_on}", scope)
        values = {member.name: member.value for member in self.spec.enums[ref.enum].values}
        return lambda case: (
            f"{on} == {values[case]}" if type(values.get(case)) is int else f"{on} == {enum}.{case}"
        )

    @staticmethod
    def refuse_bool(w: LineWriter, var: str) -> None:
        """An enum's value that is a bool (the int 0 or 1 to Python, and so a member): left
        to construct, which refuses it (``runtime.core.scalars.refuse_bool``)."""
        w.line(f"if {var}.__class__ is bool:")
        w.line('    raise TypeError("bool")')

    def bits(self, w: LineWriter, ref: TypeRef, var: str, field: Field) -> None:
        """``runtime.core.bits.BitField``: OR the value into the run; its last field writes it."""
        group, shift, first, last = field.bit_group
        low, high = bit_field_range(ref)
        if ref.enum:  # the member (every one fits: the loader checks), a flags set may not
            enum = camel(ref.enum)
            self.refuse_bool(w, var)
            w.line(f"{var} = {enum}[{var}] if isinstance({var}, str) else {enum}({var})")
            w.line(f"if not {low} <= {var} <= {high:#x}:")
        else:
            w.line(f"if {var}.__class__ is not int or not {low} <= {var} <= {high:#x}:")
        w.line('    raise ValueError("bit field")')
        raw = f"({var} & {(1 << ref.bits) - 1:#x})" if ref.bits_signed else var
        shifted = raw if shift == 0 else f"({raw} << {shift})"
        w.line(f"bit_run = {shifted}" if first else f"bit_run |= {shifted}")
        if last:
            if group == 1:
                w.line("out.append(bit_run)")
            else:
                w.line(f"out += bit_run.to_bytes({group}, {ref.bit_order!r})")

    def prim(self, w: LineWriter, ref: TypeRef, var: str) -> None:
        if ref.enum:  # a flags enum's refuses a bit no flag names (Enum.member_of)
            enum, of = camel(ref.enum), self.spec.enums[ref.enum].member_of
            self.refuse_bool(w, var)
            indent = ""
            if of == enum:  # its member by value from the map Enum(value) looks in first
                name = "_MEMBERS_Of_" + re.sub(r"\W", "_", ref.enum)
                members = self.constant(name, f"{enum}._value2member_map_")
                of = f"{members}.get({var}) or {enum}"
                w.line(f"if {var}.__class__ is not {enum}:  # a member: Enum(member) is it")
                indent = "    "
            w.line(f"{indent}{var} = {enum}[{var}] if isinstance({var}, str) else {of}({var})")
        if ref.name in _LEB128_WRITERS:
            w.line(f"out += {_LEB128_WRITERS[ref.name]}({var})")
            return
        prim = PRIMITIVES[ref.name]
        if prim.size is None:
            raise Unsupported(f"{ref.name} values")
        if prim.kind == "bool":
            w.line(f"if not isinstance({var}, bool):")
            w.line('    raise TypeError("bool")')
            w.line(f"out.append({var})")
            return
        if var.isidentifier():  # a bool, which struct packs but parse never gives back
            w.line(f"if {var}.__class__ is bool:")
            w.line('    raise TypeError("bool")')
        if ref.name == "f32":  # a NaN's payload as read: struct would quiet it
            order = struct_format(ref.name, self.spec.endian)[0]
            w.line(
                f"out += {self.packer(ref.name)}({var}) if {var} == {var} "
                f"else rt_float32.pack({var}, {order!r})"
            )
            return
        w.line(f"out += {self.packer(ref.name)}({var})")

    def packer(self, prim: str) -> str:
        """``struct.Struct(...).pack`` of a fixed-width primitive: what construct's
        ``FormatField`` calls, so it accepts and refuses the same values."""
        name = "_PACK" + struct_name(prim, self.spec.endian)
        return self.constant(name, f"struct.Struct({struct_format(prim, self.spec.endian)!r}).pack")

    @property
    def uses_leb128(self) -> bool:
        return any("rt_leb128." in code for code in self.supported.values())

    def text(self, w: LineWriter, ref: TypeRef, var: str, scope: _Scope) -> None:
        """``rt.LengthPrefixedBytes`` and ``rt.SizedBytes``, as they build."""
        data = w.fresh("data")
        if ref.nullable:  # None is the length -1, as rt.LengthPrefixedBytes builds it
            w.line(f"if {var} is None:")
            w.depth += 1
            self.prim(w, TypeRef("prim", ref.size), "-1")
            w.depth -= 1
            w.line("else:")
            w.depth += 1
            self.text(w, dataclasses.replace(ref, nullable=False), var, scope)
            w.depth -= 1
            return
        if ref.terminator is not None:  # rt.TerminatedBytes: never the byte, then it
            kind = "str" if ref.kind == "str" else "(bytes, bytearray)"
            encode = f"{var}.encode({ref.encoding!r})" if ref.kind == "str" else f"bytes({var})"
            w.line(f"if not isinstance({var}, {kind}):")
            w.line('    raise TypeError("text")')
            w.line(f"{data} = {encode}")
            # the byte as an int: a memchr, where `b"\x00" in data` first fails to read
            # its operand as an int (a TypeError made and dropped: most of a BSON key's cost)
            w.line(f"if {ref.terminator} in {data}:")
            w.line('    raise ValueError("terminator")')
            w.line(f"out += {data}")
            w.line(f"out.append({ref.terminator})")
            return
        if ref.size_is_prefix:
            kind = "str" if ref.kind == "str" else "(bytes, bytearray)"
            w.line(f"if not isinstance({var}, {kind}):")
            w.line('    raise TypeError("text")')
            if ref.kind == "str":
                w.line(f"{data} = {var}.encode({ref.encoding!r})")
            else:
                w.line(f"{data} = bytes({var})")
            if ref.max_length is not None:
                w.line(f"if len({data}) > {ref.max_length}:")
                w.line('    raise ValueError("max_length")')
            self.prim(w, TypeRef("prim", ref.size), f"len({data})")
        elif ref.size is not None and ref.size != "eos":
            encode = f".encode({ref.encoding!r})" if ref.kind == "str" else ""
            w.line(f"{data} = {var}{encode}" if encode else f"{data} = bytes({var})")
            if ref.pad:  # pad: back to the fixed size, as rt.SizedBytes builds it
                w.line(f"{data} = rt.pad_to({data}, {ref.size}, {ref.pad!r})")
            if not self.size_implied(ref.size):
                w.line(f"if len({data}) != {self.expression(ref.size, scope)}:")
                w.line('    raise ValueError("size")')
        elif ref.kind == "str":  # size: eos, construct's GreedyString
            w.line(f"if not isinstance({var}, str):")
            w.line('    raise TypeError("text")')
            w.line(f"{data} = {var}.encode({ref.encoding!r})")
        else:  # size: eos, construct's GreedyBytes (which keeps bytes, as built)
            w.line(f"{var} = {data} = bytes({var}) if type({var}) is bytearray else {var}")
            w.line(f"if not isinstance({data}, bytes):")
            w.line('    raise TypeError("bytes")')
        w.line(f"out += {data}")

    def record(self, w: LineWriter, ref: TypeRef, var: str, scope: _Scope, written) -> None:
        if ref.name not in written:
            if self.message_by_construct(ref):
                # the id-keyed message alone through its construct object (its own writer):
                # the rest of the record stays fast; it returns the model it wrote
                start = self.sized_start(w, ref)
                w.line(f"out += {ref.name}.build({var})")
                self.sized_end(w, ref, start, scope)
                return
            raise Unsupported(f"record {ref.name} has no fast writer")
        args = f"{var}, {{out}}" + (", ctx" if self.needs_parent(ref.name) else "")
        if ref.size_is_prefix:
            sub = w.fresh("sub")
            w.line(f"{sub} = bytearray()")
            w.line(f"{var} = _write_{ref.name}({args.format(out=sub)})")
            self.prim(w, TypeRef("prim", ref.size), f"len({sub})")
            w.line(f"out += {sub}")
            return
        start = self.sized_start(w, ref)
        w.line(f"{var} = _write_{ref.name}({args.format(out='out')})")
        self.sized_end(w, ref, start, scope)

    def message_by_construct(self, ref: TypeRef) -> bool:
        """Whether a record field holds an id-keyed message (no writer here) that its
        construct object can build on its own: not length-prefixed, not reading
        ``_parent``."""
        target = self.spec.records[ref.name]
        return target.serializable and not ref.size_is_prefix and not self.needs_parent(ref.name)

    def sized_start(self, w: LineWriter, ref: TypeRef) -> str | None:
        """``rt.Sized`` around ``ref`` whose size is checked once it is written."""
        if ref.size is None or not ref.checked_on_build or self.size_implied(ref.size):
            return None
        if ref.size_is_prefix:
            raise Unsupported("a length-prefixed chunk or region")
        start = w.fresh("at")
        w.line(f"{start} = len(out)")
        return start

    def sized_end(self, w: LineWriter, ref: TypeRef, start: str | None, scope: _Scope) -> None:
        if start is not None:
            w.line(f"if len(out) - {start} != {self.expression(ref.size, scope)}:")
            w.line('    raise ValueError("size")')

    def constant(self, name: str, value: str) -> str:
        self.constants[name] = value
        return name


def _built(field: Field) -> list[str]:
    """The expressions construct evaluates when it builds ``field``."""
    out = [field.value, field.condition]
    if isinstance(field.repeat, dict) and field.repeat_checked_on_build:
        out.append(field.repeat["count"])
    if field.repeat == "until":
        out.append(field.repeat_until["until"])
    if field.process is not None and field.process.cases is not None:
        out.append(field.process.codec)
    ref = field.type
    if ref.on_enclosing:
        out.append(f"this.{ref.switch_on}")  # the enclosing record's field that selects
    if ref.checked_on_build or ref.kind in ("str", "bytes"):
        if isinstance(ref.size, str) and not ref.size_is_prefix:
            out.append(ref.size)
        if isinstance(ref.count, str):
            out.append(ref.count)
    if field.checksum is not None:
        out += [item.expression for item in field.checksum.items if item.kind == "value"]
    return [e for e in out if isinstance(e, str) and e]
