"""The compiled tier's writers: the build fast path (:mod:`generator.emit.fastbuild`) in Cython.

For every record whose fields it covers, the compiled module gets ::

    cdef object _cwrite_<record>(model, Out* out[, parent])

the fast writer ``_write_<record>`` of the same spec, rendered by the same emitter, with
its bytes put into an ``out.pxd`` buffer by the C writers of
``runtime/_compiled/chunk_writers.pxd`` (varints, fixed bytes, text, the chunks and regions
of ``generator.spec.types``) instead of ``struct``, ``runtime.core.leb128`` and the
runtime's ``pack``. What a writer computes between them (a ``value:`` expression such as
computed size tables, a condition, the ``rt_fast.Parent`` it returns) is the fast
writer's Python, compiled; so is what the C writers do not cover (tags, checksums, bit
fields, switches, choices, ``process:``, text that is not UTF-8 or not after a varint or
fixed-width length), with what it does to the bytearray ``out`` (``out += x``, ``out[a:b]``, ``del out[a:]``)
done on the C buffer (:func:`translated`). A record's fields are read as its model's slots
(at offsets ``bind_writers`` finds: no attribute look-up) when the model is of its own
class (``Model.__getitem__`` in Python was most of a build); an
id-keyed message (``layout: serializable``) by :mod:`generator.emit.compiled_messages`, or,
where that declines it (text other than UTF-8), by its Python fast writer.
``write_record_<record>(model, out)`` appends the bytes to the
bytearray ``out``, as the fast writer does, for the records a caller writes on their own;
``bind_writers`` hands them to the generated module (``COMPILED_WRITERS``), which uses
them where it used the fast writers.

A C writer takes only values it is sure to write as the Python one does and raises on the
rest, so a compiled writer writes the fast writer's bytes or raises, and the caller builds
with construct (``runtime.core.codec.build_fast``): every ``EncodeError`` stays
construct's. A size written before the record it measures is reserved and patched, as
the fast writer does it (``fastbuild_sizes``). A record without a Python fast writer, a
record measured by ``sizeof`` before it is written in any other way
(:meth:`CompiledWriters.measure_ahead`), or one using a runtime primitive
(:class:`Unsupported`) has no compiled writer.
"""

from __future__ import annotations

import hashlib
import re

from generator.emit.compiled_messages import CompiledMessages, exact_type_tests
from generator.emit.compiled_sizes import mark_sizes, size_marks, sizes_put_as_c
from generator.emit.fastbuild import BuildEmitter, Unsupported
from generator.emit.pysource import LineWriter, struct_format
from generator.spec.byte_order import DATA_ORDER
from generator.spec.model import Field, Record, TypeRef, camel
from generator.spec.types import CHUNK_TYPES, PRIMITIVES, REGION_TYPES

_MSB_WRITERS = (
    "from runtime._compiled.msb_writers cimport (",
    "    put_msb_svar, put_msb_text, put_msb_uint8s, put_msb_uvar,",
    ")",
)
"""What a module with a mysql::serialization message writer cimports (the others need not
be rebuilt when it changes)."""

_PUT_PRIMS = {
    "uvarint": "put_uvarint(out, member_u64_of({var}))",
    "varint": "put_zigzag(out, member_i64_of({var}))",
    "reversed_uvarint": "put_reversed_uvarint(out, member_u64_of({var}))",
}
"""The varint primitives, as C calls (``runtime.core.leb128`` takes an enum's member too)."""

_TEXT_LENGTHS = {"uvarint": "LENGTH_UVARINT", "varint": "LENGTH_ZIGZAG"}
"""The varint lengths ``put_text`` writes before a text (chunk_writers.pxd)."""

_MEMBER = re.compile(r"(?<![.\w])([A-Z][A-Za-z0-9]*)\.([A-Z][A-Z0-9_]*)\b(?![(\w])")
"""``Enum.MEMBER`` in a rendered line (an upper-case attribute of a class)."""

_ENUM_CLASS = re.compile(r"(?<![.\w])([A-Z][A-Za-z0-9]*)\b(?=[.\[(])")
"""A class a rendered line names (an enum's: ``EventType.DDL``, ``GroupType[...]``)."""

_OUT_STATEMENTS = (
    (re.compile(r"del out\[([^\]:]+):\]$"), "out_truncate(out, {0})"),
    (re.compile(r"out\[([^\]:]+):\1\] = (.+)$"), "out_insert(out, {0}, {1})"),
    (re.compile(r"out\[([^\]:]+):\] = (.+)$"), "out_replace_tail(out, {0}, {1})"),
    (re.compile(r"out\[([^\]:]+) : [^\]]+\] = (.+)$"), "out_patch(out, {0}, {1})"),
    (re.compile(r"out \+= (.+)$"), "out_extend(out, {0})"),
    (re.compile(r"out\.append\((.+)\)$"), "out_append(out, {0})"),
)
"""What the fast writers do to their bytearray ``out``, as calls on the C buffer (out.pxd):
a statement, with its operands (read as :data:`_OUT_READS` read)."""

_OUT_READS = (
    (re.compile(r"bytes\(out\[([^\]:]+):\]\)"), r"out_slice(out, \1, out.size)"),
    (re.compile(r"\bout\[([^\]:]+?) ?: ?([^\]]+)\]"), r"out_slice(out, \1, \2)"),
    (re.compile(r"\bout\[([^\]:]+):\]"), r"out_slice(out, \1, out.size)"),
    (re.compile(r"\blen\(out\)"), "out.size"),
)
"""What the fast writers read of ``out`` (its bytes from a mark on, its length)."""

_OUT_LEFT = re.compile(r"\bout(\[|\.append| \+=)")
"""What must not be left once translated."""

_CONST_TEST = re.compile(r"^( *)if (\w+) not in \(None, (0x[0-9a-f]+)\):$", re.MULTILINE)
"""A fast writer's test of a ``const`` field's value (None or the constant)."""


def const_tests(body: str) -> str:
    """Each ``const`` field's test as Cython does it quickly: ``is None`` a pointer compare,
    ``== 0x0`` a C compare of an ``int``, and the rest of what ``not in (None, c)`` asks
    (``== None``) only of a value it then refuses (a tuple's ``in`` made each a rich
    compare of two objects: every BSON string's and document's terminator).

    >>> const_tests("    if f_t not in (None, 0x0):")
    '    if not (f_t is None or f_t == 0x0 or f_t == None):'
    """
    return _CONST_TEST.sub(r"\1if not (\2 is None or \2 == \3 or \2 == None):", body)


_MODEL_READ = re.compile(r"\bmodel(\[|\.get\()(\"\w+\")[\])]")
"""``model["name"]`` and ``model.get("name")`` in a rendered line."""


def _model_read(cls: str, match: re.Match) -> str:
    """A field read of the record's own model class ``cls`` as its slot read (no attribute
    look-up: :func:`slot_global`), of anything else as it is."""
    name = match.group(2)
    slot = f"{slot_global(cls, name.strip(chr(34)))}, {name}"
    if match.group(1) == "[":
        return f"(slot_value(model, {slot}) if attributes else model[{name}])"
    return f"(slot_value_or_none(model, {slot}) if attributes else model.get({name}))"


def slot_global(cls: str, name: str) -> str:
    """The module global holding the offset of ``cls``'s slot ``name`` (set by
    ``bind_writers``; -1 where the class has no such slot, and it is looked up).

    >>> slot_global("Element", "key")
    '_wslot_Element_key'
    """
    return f"_wslot_{cls}_{name}"


_SLOT_READS = (
    "from runtime._compiled.slots cimport slot_offset_if_any, slot_value, slot_value_or_none",
)
"""What the writers read their own record's fields with (the model's slots)."""

_RECURSION_GUARD = (
    'cdef extern from "Python.h":',
    "    int Py_EnterRecursiveCall(const char* where) except -1",
    "    void Py_LeaveRecursiveCall()",
)
"""What a recursive record's writer counts its depth with (Python's recursion limit)."""

IMPORTS = {
    "struct.": "import struct",
    "rt_leb128.": "import runtime.core.leb128 as rt_leb128",
    "rt_float32.": "import runtime.core.float32 as rt_float32",
    "rt_process.": "import runtime.core.process as rt_process",
    "rt_sequences.": "import runtime.core.sequences as rt_sequences",
    "rt.": "import runtime.core.record as rt",
    "rt_serializable.": "import runtime.formats.serializable as rt_serializable",
}
"""The runtime modules the writers' Python (as the fast writers have it) may name."""


def translated(line: str) -> str:
    """A fast writer's line with what it does to ``out`` done on the C buffer.

    >>> translated("    out += _PACK(f_x)")
    '    out_extend(out, _PACK(f_x))'
    >>> translated("    out[f_c_at : f_c_at + 4] = _PACK(crc(out[f_a_start : f_b_end]))")
    '    out_patch(out, f_c_at, _PACK(crc(out_slice(out, f_a_start, f_b_end))))'
    >>> translated("    if f_kind.__class__ is bool:")
    '    if type(f_kind) is bool:'
    """
    indent = line[: len(line) - len(line.lstrip())]
    body = exact_type_tests(line.lstrip())

    def reads(text: str) -> str:
        for pattern, repl in _OUT_READS:
            text = pattern.sub(repl, text)
        return text

    for pattern, call in _OUT_STATEMENTS:
        match = pattern.match(body)
        if match:
            body = call.format(*(reads(g) for g in match.groups() if g is not None))
            break
    else:
        body = reads(body)
    if _OUT_LEFT.search(body):
        raise Unsupported(f"`{body}` on the bytearray")
    return indent + body


class CompiledWriters(CompiledMessages, BuildEmitter):
    """The compiled writers of one spec (see the module docstring)."""

    def __init__(self, spec, lowering=None):
        self.enum_classes: set[str] = set()
        """The enums whose members the writers make (``member_of``)."""
        self.members_named: dict[str, str] = {}
        """``Enum.MEMBER`` a writer names -> the module global bound to that member."""
        self.record_classes: set[str] = set()
        """The model classes a choice's writer tells apart (``type(value) is Cls``)."""
        self.slots_read: set[tuple[str, str]] = set()
        """(model class, field) the writers read as a slot of their own record's class."""
        self.python_writers: set[str] = set()
        """The records written by their Python fast writer (an id-keyed message the compiled
        one declines)."""
        self.fast = set(BuildEmitter(spec, lowering).supported)
        """The records with a Python fast writer."""
        self.c_locals: list[str] | None = None
        """The C variables of the record writer being rendered (``cdef`` at its top)."""
        super().__init__(spec, lowering)

    def record_function(self, record: Record, written: dict) -> str:
        if record.byte_order == "data":
            raise Unsupported(DATA_ORDER)
        self.c_locals = []
        try:
            source = super().record_function(record, written)
        finally:
            c_locals, self.c_locals = self.c_locals, None
        head, body = source.split("\n", 1)
        if c_locals:  # after the docstring, Cython's place for them
            doc, rest = body.split("\n", 1)
            body = "\n".join([doc, *(f"    {line}" for line in c_locals), rest])
        params = "object model, Out* out" + (", object parent" if ", parent)" in head else "")
        body = const_tests("\n".join(translated(line) for line in body.split("\n")))
        marks = size_marks(body)
        marks += mark_sizes(body, marks)
        if marks:  # C integers: no Python int made per mark, none read back for out.size
            doc, rest = body.split("\n", 1)
            body = f"{doc}\n    cdef Py_ssize_t {', '.join(sorted(marks))}\n{rest}"
            body = sizes_put_as_c(body, marks)
        body = body.replace("rt_fast.Parent(", "_WParent(")
        body = body.replace("rt_fast.EMPTY_PARENT", "_WEmptyParent")
        if _MODEL_READ.search(body):
            # the record's own model class: its fields read as attributes, which is what
            # Model.__getitem__ and .get do in Python (a dict or another class: as it is)
            cls = camel(record.name)
            self.record_classes.add(cls)
            self.slots_read.update((cls, m.group(2).strip('"')) for m in _MODEL_READ.finditer(body))
            doc, rest = body.split("\n", 1)
            body = f"{doc}\n    cdef bint attributes = type(model) is {cls}\n" + _MODEL_READ.sub(
                lambda match: _model_read(cls, match), rest
            )
        body = _MEMBER.sub(self.member_global, body)
        # a spec expression's `x[0]` is Python's, not the module's unchecked C indexing
        checked = "@cython.boundscheck(True)\n@cython.wraparound(True)\n"
        if record.name not in self.lowering.recursive:
            return f"{checked}cdef object _cwrite_{record.name}({params}):\n{body}"
        # a record in records of its kind: C calls as deep as the model, so each counts
        # against Python's recursion limit (a RecursionError, construct then builds and
        # says so, where the C stack would overflow)
        args = "model, out" + (", parent" if "object parent" in params else "")
        guard = "\n".join(
            [
                f"cdef object _cwrite_{record.name}({params}):",
                f'    """``_cbody_{record.name}`` within Python\'s recursion limit."""',
                f'    Py_EnterRecursiveCall(" writing {record.name}")',
                "    try:",
                f"        return _cbody_{record.name}({args})",
                "    finally:",
                "        Py_LeaveRecursiveCall()",
            ]
        )
        return f"{guard}\n\n\n{checked}cdef object _cbody_{record.name}({params}):\n{body}"

    def model_reads(self, cls: str, body: str) -> str:
        return body  # read as slots, in record_function

    def constant(self, name: str, value: str) -> str:
        return super().constant(f"_w{name}", value)  # not to meet the readers' names

    def member_global(self, match: re.Match) -> str:
        """``Enum.MEMBER`` of one of the spec's enums as a module global bound to the member
        (an enum class's attribute lookup costs hundreds of instructions), else as it is."""
        cls, member = match.group(1), match.group(2)
        enum = next((e for e in self.spec.enums.values() if e.class_name == cls), None)
        if enum is None or member not in {v.name for v in enum.values}:
            return match.group(0)
        self.members_named[match.group(0)] = name = f"_{cls}_{member}"
        return name

    def case_test(self, w: LineWriter, ref: TypeRef, key: Field | None, scope):
        """A switch on the record's own integer field: its value taken once as a C integer
        and each case its number, an ``if``/``elif`` chain Cython renders as a C ``switch``
        (one jump by the type byte, where ``==`` of Python ints ran down the cases: a BSON
        element's 21). The field's writer has put it already, so it is an int in range."""
        prim = PRIMITIVES.get(key.type.name) if key is not None else None
        if (
            self.c_locals is None
            or prim is None
            or key.type.kind != "prim"
            or prim.kind != "int"
            or prim.size not in (1, 2, 4, 8)
        ):
            return super().case_test(w, ref, key, scope)
        number = w.fresh("case")
        self.c_locals.append(f"cdef {'' if prim.signed else 'unsigned '}long long {number}")
        w.line(f"{number} = {self.expression(f'this.{ref.switch_on}', scope)}")
        values = {member.name: member.value for member in self.spec.enums[ref.enum].values}
        return lambda case: f"{number} == {values[case]}"

    def measure_ahead(self, target: Field) -> str:
        if target.repeat is not None or target.type.kind not in ("str", "bytes"):
            raise Unsupported(f"sizeof({target.name}) of a record before it is written")
        ref = target.type
        if ref.kind == "str" and ref.encoding in ("utf8", "utf-8"):  # its UTF-8 not made twice
            plus = " + 1" if ref.terminator is not None else ""
            return f'text_size(model["{target.name}"], True){plus}'
        return super().measure_ahead(target)  # a text's length, as the fast writer has it

    def value(self, w: LineWriter, ref: TypeRef, var: str, field: Field, scope, written) -> None:
        if ref.args:
            raise Unsupported(f"runtime primitive {ref.name}")
        if ref.kind == "choice":
            self.choice(w, ref, var, written)
            return
        if ref.kind not in ("chunk", "region"):
            super().value(w, ref, var, field, scope, written)
            return
        if field.const is not None:
            raise Unsupported("a const chunk or region")
        start = self.sized_start(w, ref)
        if ref.kind == "chunk":
            chunk = CHUNK_TYPES[ref.name]
            count = self.expression(ref.count, scope) if ref.checked_on_build else f"len({var})"
            if ref.enum:  # a strict enum's codes only: else construct refuses it, at its element
                members = f"_{camel(ref.enum)}_members"
                self.enum_classes.add(camel(ref.enum))
                w.line(f"if not all(isinstance(v, int) and type(v) is not bool and v in {members}")
                w.line(f"           for v in {var}):")
                w.line('    raise ValueError("not a member")')
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
                w.line(f"if not isinstance({var}, list):")  # not {} or "": no list at all
                w.line('    raise TypeError("a list")')
                w.line(f"if {var}:")
                w.line(f"    put_uvarint(out, len({var}))")
                w.line(f"    {put}(out, {var}, len({var}){text})")
        self.sized_end(w, ref, start, scope)

    def choice(self, w: LineWriter, ref: TypeRef, var: str, written) -> None:
        """The case whose model class ``var`` is (the fast writer's table, as tests)."""
        if any(self.needs_parent(case) or case not in written for case in ref.cases):
            raise Unsupported("a choice of records reading `_parent` or without a writer")
        cls = w.fresh("cls")
        w.line(f"{cls} = type({var})")
        for i, case in enumerate(ref.cases):
            self.record_classes.add(camel(case))
            w.line(f"{'if' if i == 0 else 'elif'} {cls} is {camel(case)}:")
            w.line(f"    {var} = _cwrite_{case}({var}, out)")
        w.line("else:")
        w.line('    raise TypeError("no case of the choice")')

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
        member = False  # var is the enum's member member_of made: an int, no bool
        if ref.enum:
            self.enum_classes.add(camel(ref.enum))
            cls = camel(ref.enum)
            self.refuse_bool(w, var)
            if self.spec.enums[ref.enum].flags:  # a bit no flag names: KeyError, as fast
                w.line(f"{var} = {cls}[{var}] if isinstance({var}, str) else _{cls}_members[{var}]")
            else:
                w.line(f"{var} = member_of({cls}, _{cls}_members, {var})")
                member = True
        if ref.name in _PUT_PRIMS:
            w.line(_PUT_PRIMS[ref.name].format(var=var))
            return
        prim = PRIMITIVES[ref.name]
        if prim.kind != "int" or prim.size not in (1, 2, 4, 8):
            if ref.enum:
                raise Unsupported(f"{ref.name} enum values")
            super().prim(w, ref, var)  # bool, floats: struct's bytes, as the fast writer
            return
        big = struct_format(ref.name, self.spec.endian)[0] == ">"
        put = "put_fixed_member" if member else "put_fixed_int"
        w.line(f"{put}(out, {var}, {prim.size}, {big}, {prim.signed})")

    def pack_over(self, w: LineWriter, field: Field, at: str, var: str) -> None:
        """A reserved size put over its placeholder by the C writer of its type: the end
        moved back to the placeholder, the size put, the end restored (on a raise the
        buffer is dropped, as the caller builds with construct)."""
        end = w.fresh("end")
        w.line(f"{end} = out.size")
        w.line(f"out.size = {at}")
        self.prim(w, field.type, var)
        w.line(f"out.size = {end}")

    def text(self, w: LineWriter, ref: TypeRef, var: str, scope) -> None:
        """A length-prefixed text or bytes (``str`` UTF-8) after a uvarint, ZigZag or
        fixed-width integer length by one C call; a nullable one's None as the fast writer
        has it (the length -1, a C call too); a terminated one (a C string) and a UTF-8
        one whose length another field holds (:meth:`text_bytes`) by one C call too; the
        rest as the fast writer has it."""
        utf8 = ref.kind != "str" or ref.encoding in ("utf8", "utf-8")
        if ref.terminator is not None and not ref.nullable and utf8:
            text = "True" if ref.kind == "str" else "False"
            w.line(f"put_terminated_text(out, {var}, {text}, {ref.terminator})")
            return
        sized = not (ref.nullable or ref.pad or ref.size_is_prefix or ref.terminator is not None)
        if ref.kind == "str" and utf8 and sized:  # its length in another field, or to the end
            self.text_bytes(w, ref, var, scope)
            return
        plain = not ref.nullable and ref.terminator is None and ref.size_is_prefix
        length = _TEXT_LENGTHS.get(ref.size) if plain else None
        prim = PRIMITIVES.get(ref.size) if plain else None
        fixed = prim is not None and prim.kind == "int" and prim.size in (1, 2, 4, 8)
        if (length is None and not fixed) or (
            ref.kind == "str" and ref.encoding not in ("utf8", "utf-8")
        ):
            super().text(w, ref, var, scope)  # nullable: None, else back here
            return
        text = "True" if ref.kind == "str" else "False"
        limit = -1 if ref.max_length is None else ref.max_length
        if length is not None:
            w.line(f"put_text(out, {var}, {text}, {limit}, {length})")
            return
        big = struct_format(ref.size, self.spec.endian)[0] == ">"
        w.line(f"put_fixed_text(out, {var}, {text}, {limit}, {prim.size}, {big}, {prim.signed})")

    def text_bytes(self, w: LineWriter, ref: TypeRef, var: str, scope) -> None:
        """A UTF-8 text whose length another field holds (checked once it is put, unless
        that field is the reserved size that measures it) or that runs to the end: its
        bytes by one C call, not ``.encode`` and a copy of what it made."""
        checked = ref.size not in (None, "eos") and not self.size_implied(ref.size)
        if checked:
            at = w.fresh("at")
            w.line(f"{at} = len(out)")
        w.line(f"put_text_bytes(out, {var}, True)")
        if checked:
            w.line(f"if len(out) - {at} != {self.expression(ref.size, scope)}:")
            w.line('    raise ValueError("size")')

    def record(self, w: LineWriter, ref: TypeRef, var: str, scope, written) -> None:
        if ref.name not in written:
            if ref.name not in self.fast or self.needs_parent(ref.name) or ref.size_is_prefix:
                raise Unsupported(f"record {ref.name} without a compiled writer")
            self.python_writers.add(ref.name)  # a message declined: its fast writer's bytes
            start = self.sized_start(w, ref)
            sub = w.fresh("sub")
            w.line(f"{sub} = bytearray()")
            w.line(f"{var} = _python_write_{ref.name}({var}, {sub})")
            w.line(f"out += {sub}")
            self.sized_end(w, ref, start, scope)
            return
        parent = ", ctx" if self.needs_parent(ref.name) else ""
        if ref.size_is_prefix:  # written in place, its length after it, then moved before
            at, size = w.fresh("at"), w.fresh("size")
            w.line(f"{at} = len(out)")
            w.line(f"{var} = _cwrite_{ref.name}({var}, out{parent})")
            w.line(f"{size} = len(out) - {at}")
            self.prim(w, TypeRef("prim", ref.size), size)
            w.line(f"out_rotate(out, {at}, {at} + {size})")
            return
        start = self.sized_start(w, ref)
        w.line(f"{var} = _cwrite_{ref.name}({var}, out{parent})")
        self.sized_end(w, ref, start, scope)

    # -- the module's section -------------------------------------------------------

    @property
    def entries(self) -> list[str]:
        """The records a caller writes on their own (not read as another's ``_parent``)."""
        return [name for name in self.supported if not self.needs_parent(name)]

    def classes(self) -> list[str]:
        """The generated module's classes the writers name (its enums, the model classes
        of its choices)."""
        text = "\n".join(self.supported.values())
        names = {m.group(1) for m in _ENUM_CLASS.finditer(text)} | self.enum_classes
        names |= self.record_classes
        ours = {e.class_name for e in self.spec.enums.values()} | self.record_classes
        return sorted(n for n in names & ours if re.search(rf"\b{n}\b", text))

    def section(self) -> str:
        """The writers, their entries and ``bind_writers``, for the end of the .pyx."""
        classes = self.classes()
        text = "\n".join([*self.supported.values(), *self.constants.values()])
        python_writers_named = sorted(
            n for n in self.python_writers if f"_python_write_{n}(" in text
        )
        head = [
            "# -- the compiled writers: the build fast path in C (generator/emit/compiled_writers.py)",
            "",
            "cimport cython",
            "from libc.stdlib cimport free",
            "from cpython.bytes cimport PyBytes_FromStringAndSize",
            "from runtime._compiled.out cimport Out, put_byte, put_uvarint",
            "from runtime._compiled.chunk_writers cimport (",
            "    LENGTH_UVARINT, LENGTH_ZIGZAG, member_i64_of, member_of, member_u64_of, out_append,",
            "    out_extend, out_insert, out_patch, out_replace_tail, out_rotate, out_slice, out_truncate,",
            "    put_delta_uvarint_chunk, put_delta_varint_chunk, put_fixed_int, put_fixed_text,",
            "    put_nullable_bytes_chunk, put_reversed_uvarint, put_string_chunk,",
            "    put_fixed_member, put_fixed_size, put_terminated_text, put_text, put_text_bytes,",
            "    put_uvarint_chunk, put_varint_chunk, put_zigzag, text_size,",
            ")",
            *(_MSB_WRITERS if "put_msb_" in text else ()),
            *(_RECURSION_GUARD if "Py_EnterRecursiveCall(" in text else ()),
            *(_SLOT_READS if self.slots_read else ()),
            "import runtime.core.fast as rt_fast",
            *sorted(
                {line for used, line in IMPORTS.items() if re.search(rf"\b{re.escape(used)}", text)}
            ),
            "",
            "cdef object _WParent = rt_fast.Parent  # looked up once, not at each record written",
            "cdef object _WEmptyParent = rt_fast.EMPTY_PARENT",
            *(f"cdef object {name} = {value}" for name, value in sorted(self.constants.items())),
            f'WRITERS = "{self.digest()}"',
            '"""The digest of the writers rendered here: a build of other writers is not used."""',
        ]
        if classes or python_writers_named:
            head.append("# Set by bind_writers: the generated module's classes the writers name.")
            head += [f"cdef object {name}" for name in classes]
            head += [f"cdef object _python_write_{name}" for name in python_writers_named]
            head += [  # a flags enum's: its FlagMembers, a dict that makes the wider sets
                f"cdef {'object' if name in self.flags_classes() else 'dict'} _{name}_members"
                for name in sorted(self.enum_classes)
            ]
            head += [f"cdef object {name}" for name in sorted(set(self.members_named.values()))]
            head += [f"cdef Py_ssize_t {slot_global(*read)}" for read in sorted(self.slots_read)]
        parts = ["\n".join(head), *self.supported.values()]
        for name in self.entries:
            parts.append(
                "\n".join(
                    [
                        f"def write_record_{name}(model, bytearray out):",
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
            *(f"_python_write_{name}" for name in python_writers_named),
            *(f"_{name}_members" for name in sorted(self.enum_classes)),
            *sorted(set(self.members_named.values())),
            *(slot_global(*read) for read in sorted(self.slots_read)),
        ]
        if bound:
            bind.append(f"    global {', '.join(bound)}")
        bind += ['    if namespace.get("COMPILED_WRITERS_PLAN") != WRITERS:', "        return {}"]
        bind += [f'    {name} = namespace["{name}"]' for name in classes]
        bind += [
            f'    _python_write_{name} = namespace["_write_{name}"]'
            for name in python_writers_named
        ]
        flags = self.flags_classes()
        bind += [
            (
                f'    _{name}_members = namespace["_{flags[name]}_BY_VALUE"]'
                if name in flags
                else f'    _{name}_members = namespace["{name}"]._value2member_map_'
            )
            for name in sorted(self.enum_classes)
        ]
        bind += [
            f'    {name} = namespace["{named.split(".")[0]}"].{named.split(".")[1]}'
            for named, name in sorted(self.members_named.items())
        ]
        bind += [
            f'    {slot_global(cls, name)} = slot_offset_if_any({cls}, "{name}")'
            for cls, name in sorted(self.slots_read)
        ]
        bind.append("    return {")
        bind += [f'        "{name}": write_record_{name},' for name in self.entries]
        bind.append("    }")
        parts.append("\n".join(bind))
        return "\n\n\n".join(parts)

    def flags_classes(self) -> dict[str, str]:
        """The strict flags enums' classes, each with its ``_<ENUM>_BY_VALUE`` prefix."""
        return {e.class_name: e.name.upper() for e in self.spec.enums.values() if e.flags}

    def digest(self) -> str:
        """What the writers were rendered from: the generated module names the same."""
        return hashlib.sha256("\n".join(self.supported.values()).encode()).hexdigest()
