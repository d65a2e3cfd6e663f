"""The compiled tier's writers: the build fast path (:mod:`generator.emit.fastbuild`) in Cython.

For every record whose fields it covers, the compiled module gets ::

    cdef object _cwrite_<record>(model, Out* out[, parent])

the fast writer ``_write_<record>`` of the same spec, rendered by the same emitter, with
its bytes put into an ``out.pxd`` buffer by the C writers of
``runtime/_compiled/chunk_writers.pxd`` (varints, fixed bytes, text, the chunks and regions
of ``generator.spec.types``) instead of ``struct``, ``runtime.core.leb128`` and the
runtime's ``pack``. What a writer computes between them (a ``value:`` expression such as
computed size tables, a condition, the ``rt_fast.Parent`` it returns) is the fast
writer's Python, compiled. ``write_<record>(model, out)`` appends the bytes to the
bytearray ``out``, as the fast writer does, for the records a caller writes on their own;
``bind_writers`` hands them to the generated module (``COMPILED_WRITERS``), which uses
them where it used the fast writers.

A C writer takes only values it is sure to write as the Python one does and raises on the
rest, so a compiled writer writes the fast writer's bytes or raises, and the caller builds
with construct (``runtime.core.codec.build_fast``): every ``EncodeError`` stays
construct's. A record using what the renderer does not cover (:class:`Unsupported`: tags,
checksums, bit fields, choices, ``process:``, terminators, ...) has no compiled writer.
"""

from __future__ import annotations

import hashlib
import re

from generator.emit.fastbuild import BuildEmitter, Unsupported
from generator.emit.pysource import LineWriter, struct_format
from generator.spec.model import Field, Record, TypeRef, camel
from generator.spec.types import CHUNK_TYPES, PRIMITIVES, REGION_TYPES

_PUT_PRIMS = {
    "uvarint": "put_uvarint(out, member_u64_of({var}))",
    "varint": "put_zigzag(out, member_i64_of({var}))",
    "reversed_uvarint": "put_reversed_uvarint(out, member_u64_of({var}))",
}
"""The varint primitives, as C calls (``runtime.core.leb128`` takes an enum's member too)."""

_MEMBER = re.compile(r"(?<![.\w])([A-Z][A-Za-z0-9]*)\.([A-Z][A-Z0-9_]*)\b(?![(\w])")
"""``Enum.MEMBER`` in a rendered line (an upper-case attribute of a class)."""

_ENUM_CLASS = re.compile(r"(?<![.\w])([A-Z][A-Za-z0-9]*)\b(?=[.\[(])")
"""A class a rendered line names (an enum's: ``EventType.DDL``, ``GroupType[...]``)."""


class CompiledWriters(BuildEmitter):
    """The compiled writers of one spec (see the module docstring)."""

    def __init__(self, spec, lowering=None):
        self.enum_classes: set[str] = set()
        """The enums whose members the writers make (``member_of``)."""
        self.members_named: dict[str, str] = {}
        """``Enum.MEMBER`` a writer names -> the module global bound to that member."""
        super().__init__(spec, lowering)

    def message_function(self, record: Record) -> str:
        raise Unsupported("an id-keyed message (runtime.formats.protobuf writes it)")

    def record_function(self, record: Record, written: dict) -> str:
        if record.tag is not None:
            raise Unsupported("a tagged record")
        source = super().record_function(record, written)
        head, body = source.split("\n", 1)
        params = "object model, Out* out" + (", object parent" if ", parent)" in head else "")
        body = body.replace("len(out)", "out.size").replace("rt_fast.Parent(", "_Parent(")
        body = _MEMBER.sub(self.member_global, body)
        return f"cdef object _cwrite_{record.name}({params}):\n{body}"

    def member_global(self, match: re.Match) -> str:
        """``Enum.MEMBER`` of one of the spec's enums as a module global bound to the member
        (an enum class's attribute lookup costs hundreds of instructions), else as it is."""
        cls, member = match.group(1), match.group(2)
        enum = next((e for e in self.spec.enums.values() if e.class_name == cls), None)
        if enum is None or member not in {v.name for v in enum.values}:
            return match.group(0)
        self.members_named[match.group(0)] = name = f"_{cls}_{member}"
        return name

    def field_bytes(self, w: LineWriter, field: Field, scope, written: dict) -> None:
        if field.tag is not None or field.type.kind == "presence" or self.compressed_rest(field):
            raise Unsupported("a tagged, presence or compressed field")
        if field.checksum is not None or field.process is not None:
            raise Unsupported("a checksum or a process: field")
        super().field_bytes(w, field, scope, written)

    def measure_ahead(self, target: Field) -> str:
        raise Unsupported(f"sizeof({target.name}) before it is written")

    def repeat(self, w: LineWriter, field: Field, var: str, size, scope, written) -> None:
        if field.repeat in ("blocks", "until"):
            raise Unsupported(f"repeat: {field.repeat}")
        super().repeat(w, field, var, size, scope, written)

    def value(self, w: LineWriter, ref: TypeRef, var: str, field: Field, scope, written) -> None:
        if ref.args or ref.kind not in ("prim", "str", "bytes", "record", "chunk", "region"):
            raise Unsupported(f"a {ref.kind} type")
        if ref.kind in ("prim", "str", "bytes", "record"):
            super().value(w, ref, var, field, scope, written)
            return
        if field.const is not None:
            raise Unsupported("a const chunk or region")
        start = self.sized_start(w, ref)
        if ref.kind == "chunk":
            chunk = CHUNK_TYPES[ref.name]
            count = self.expression(ref.count, scope) if ref.checked_on_build else f"len({var})"
            w.line(f"{self.put_chunk(ref.name)}(out, {var}, {count}{self.text_arg(chunk)})")
        else:
            region = REGION_TYPES[ref.name]
            put = self.put_chunk(region.chunk)
            text = self.text_arg(CHUNK_TYPES[region.chunk])
            if region.repeated:  # counted chunks to its end
                w.line(f"if not isinstance({var}, list):")
                w.line('    raise TypeError("a list of chunks")')
                w.line(f"for element in {var}:")
                w.line("    put_uvarint(out, len(element))")
                w.line(f"    {put}(out, element, len(element){text})")
            else:  # one chunk whose count is not 0, or no bytes at all
                w.line(f"if {var}:")
                w.line(f"    put_uvarint(out, len({var}))")
                w.line(f"    {put}(out, {var}, len({var}){text})")
        self.sized_end(w, ref, start, scope)

    @staticmethod
    def put_chunk(name: str) -> str:
        chunk = CHUNK_TYPES[name]
        if chunk.encoding not in (None, "utf-8"):
            raise Unsupported(f"a {chunk.encoding} chunk")
        return f"put_{name}"

    @staticmethod
    def text_arg(chunk) -> str:
        """Whether a payload chunk takes text (its encoding is UTF-8)."""
        if chunk.element == "int":
            return ""
        return ", True" if chunk.encoding else ", False"

    def prim(self, w: LineWriter, ref: TypeRef, var: str) -> None:
        if ref.enum:
            self.enum_classes.add(camel(ref.enum))
            cls = camel(ref.enum)
            w.line(f"{var} = member_of({cls}, _{cls}_members, {var})")
        if ref.name in _PUT_PRIMS:
            w.line(_PUT_PRIMS[ref.name].format(var=var))
            return
        prim = PRIMITIVES[ref.name]
        if prim.kind != "int" or prim.size not in (1, 2, 4, 8):
            raise Unsupported(f"{ref.name} values")
        big = struct_format(ref.name, self.spec.endian)[0] == ">"
        w.line(f"put_fixed_int(out, {var}, {prim.size}, {big}, {prim.signed})")

    def text(self, w: LineWriter, ref: TypeRef, var: str, scope) -> None:
        if ref.nullable or ref.terminator is not None or not ref.size_is_prefix:
            raise Unsupported("text that is not length-prefixed")
        if ref.size != "uvarint" or (ref.kind == "str" and ref.encoding not in ("utf8", "utf-8")):
            raise Unsupported(f"a {ref.size} length or {ref.encoding} text")
        text = "True" if ref.kind == "str" else "False"
        limit = -1 if ref.max_length is None else ref.max_length
        w.line(f"put_text(out, {var}, {text}, {limit})")

    def record(self, w: LineWriter, ref: TypeRef, var: str, scope, written) -> None:
        if ref.name not in written or ref.size_is_prefix:
            raise Unsupported(f"record {ref.name} without a compiled writer, or length-prefixed")
        start = self.sized_start(w, ref)
        parent = ", ctx" if self.needs_parent(ref.name) else ""
        w.line(f"{var} = _cwrite_{ref.name}({var}, out{parent})")
        self.sized_end(w, ref, start, scope)

    # -- the module's section -------------------------------------------------------

    @property
    def entries(self) -> list[str]:
        """The records a caller writes on their own (not read as another's ``_parent``)."""
        return [name for name in self.supported if not self.needs_parent(name)]

    def classes(self) -> list[str]:
        """The generated module's classes the writers name (its enums)."""
        text = "\n".join(self.supported.values())
        names = {m.group(1) for m in _ENUM_CLASS.finditer(text)} | self.enum_classes
        return sorted(
            n for n in names - {"TypeError", "ValueError"} if re.search(rf"\b{n}\b", text)
        )

    def section(self) -> str:
        """The writers, their entries and ``bind_writers``, for the end of the .pyx."""
        classes = self.classes()
        head = [
            "# -- the compiled writers: the build fast path in C (generator/emit/compiled_writers.py)",
            "",
            "from libc.stdlib cimport free",
            "from cpython.bytes cimport PyBytes_FromStringAndSize",
            "from runtime._compiled.out cimport Out, put_uvarint",
            "from runtime._compiled.chunk_writers cimport (",
            "    member_i64_of, member_of, member_u64_of, put_delta_uvarint_chunk, put_delta_varint_chunk,",
            "    put_fixed_int, put_nullable_bytes_chunk, put_reversed_uvarint, put_string_chunk,",
            "    put_text, put_uvarint_chunk, put_varint_chunk, put_zigzag,",
            ")",
            "import runtime.core.fast as rt_fast",
            "",
            "cdef object _Parent = rt_fast.Parent  # looked up once, not at each record written",
            f'WRITERS = "{self.digest()}"',
            '"""The digest of the writers rendered here: a build of other writers is not used."""',
        ]
        if classes:
            head.append("# Set by bind_writers: the generated module's classes the writers name.")
            head += [f"cdef object {name}" for name in classes]
            head += [f"cdef dict _{name}_members" for name in sorted(self.enum_classes)]
            head += [f"cdef object {name}" for name in sorted(set(self.members_named.values()))]
        parts = ["\n".join(head), *self.supported.values()]
        for name in self.entries:
            parts.append(
                "\n".join(
                    [
                        f"def write_{name}(model, bytearray out):",
                        f'    """The fast writer\'s bytes of a ``{name}`` appended to ``out``, or',
                        '    an exception (construct then builds it)."""',
                        "    cdef Out o = Out(NULL, 0, 0)",
                        "    try:",
                        f"        built = _cwrite_{name}(model, &o)",
                        "        out += PyBytes_FromStringAndSize(<const char*>o.data, o.size)",
                        "    finally:",
                        "        free(o.data)",
                        "    return built",
                    ]
                )
            )
        bind = [
            "def bind_writers(namespace):",
            '    """The writers by record, given the generated module\'s namespace; none when',
            '    the module was generated with other writers (a stale build)."""',
        ]
        bound = [
            *classes,
            *(f"_{name}_members" for name in sorted(self.enum_classes)),
            *sorted(set(self.members_named.values())),
        ]
        if bound:
            bind.append(f"    global {', '.join(bound)}")
        bind += ['    if namespace.get("COMPILED_WRITERS_PLAN") != WRITERS:', "        return {}"]
        bind += [f'    {name} = namespace["{name}"]' for name in classes]
        bind += [
            f"    _{name}_members = {name}._value2member_map_" for name in sorted(self.enum_classes)
        ]
        bind += [
            f'    {name} = namespace["{named.split(".")[0]}"].{named.split(".")[1]}'
            for named, name in sorted(self.members_named.items())
        ]
        bind.append("    return {")
        bind += [f'        "{name}": write_{name},' for name in self.entries]
        bind.append("    }")
        parts.append("\n".join(bind))
        return "\n\n\n".join(parts)

    def digest(self) -> str:
        """What the writers were rendered from: the generated module names the same."""
        return hashlib.sha256("\n".join(self.supported.values()).encode()).hexdigest()
