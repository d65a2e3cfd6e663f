"""The C arrays of a batch of a fused compiled way back, and the message written from them
(:mod:`generator.emit.compiled_unmapping` checks the models into them).

The way back of a ``map:`` (:class:`generator.spec.unmapping.WayBack`) makes, per model, one
element of each of the ``class_by`` record's chunks (a header's), one body (the element
record's fields, or its ``groups:``) and, per group, one element of each of the group
record's chunks. Here they are C structs, filled as each model is checked:

- ``_back_<R>_Row``: the header's elements of one model (a ``ref:`` chunk's name held, its
  id once interned), where its body's own bytes are in the scratch buffer, its groups;
- ``_back_<R>_Group``: one group's ``by`` member and columns; ``_back_<R>_Cell``: one
  column's chunk elements (its name held, its value's bytes in the scratch buffer);
- ``_back_<R>_Batch``: the three arrays and the scratch buffer (``Out``).

Each name of the way back of record ``R`` goes on with a capital after ``_back_<R>`` (a
record name has none), so no two records' names meet (``_back_a_column_Use`` is record
``a_column``'s, ``_back_a_Column_use`` record ``a``'s), nor meet ``_back_bind_<R>``.

``_back_<R>_Pack(b, start, stop)`` writes the message of rows ``start .. stop - 1``: the
names interned in the ``interned:`` order, then the source record's fields in wire order,
each as its type says (a ``const:``, the header's chunks, the bodies, the dictionary, the
size tables of a ``value:`` made of ``sizeof``, a ``value: sizeof(X)``), with no model of
the source. A source whose fields are of another shape has no fused way back
(:class:`NotCompiled`).
"""

from __future__ import annotations

import ast
import re

from generator.emit.compiled_support import NotCompiled
from generator.spec.model import Record
from generator.spec.types import CHUNK_TYPES, REGION_TYPES
from generator.spec.unmapping import WayBack


def _sizeof(node) -> str | None:
    """``X`` of ``sizeof(X)``, else None."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "sizeof"
        and len(node.args) == 1
        and not node.keywords
    ):
        arg = node.args[0]
        if isinstance(arg, ast.Name):
            return arg.id
        if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name):
            return f"{arg.value.id}.{arg.attr}"
    return None


def put_element(chunk: str, value: str, prev: str, kind: str) -> list[str]:
    """The lines that put one element ``value`` of a ``chunk`` type (``prev``: the previous
    element of a delta chunk, of C type ``kind``) into ``o``."""
    ct = CHUNK_TYPES[chunk]
    if ct.element != "int":
        raise NotCompiled(f"a {chunk} of numbers")
    if not ct.delta:
        return [f"put_zigzag(&o, {value})" if ct.zigzag else f"put_uvarint(&o, {value})"]
    if ct.zigzag:
        step = f"put_zigzag(&o, <int64_t>(<uint64_t>({value}) - <uint64_t>{prev}))"
    else:
        step = f"put_uvarint(&o, <uint64_t>({value}) - {prev})"
    return [step, f"{prev} = <{kind}>({value})"]


class Layout:
    """The structs and ``_pack`` of one way back (see the module docstring)."""

    def __init__(self, spec, record: Record, prefix: str):
        self.spec, self.prefix = spec, prefix
        self.m = record.mapping
        self.back: WayBack = self.m.way_back
        self.source = spec.records[self.m.source]
        self.header_record = self.record_of(self.back.header_field)
        self.element = self.record_of(self.m.each)
        groups = [c.groups for c in self.back.classes if c.groups is not None]
        self.groups = groups[0] if groups else None
        if any(g != self.groups for g in groups):
            raise NotCompiled("classes whose groups differ")
        self.group_record = self.record_of(self.groups.each, self.element) if groups else None
        self.refs = {f.name: f.ref for f in self.header_record.fields if f.ref is not None}
        self.body_fields = self.element_fields()

    def record_of(self, field: str, record: Record | None = None) -> Record:
        found = (record or self.source).field(field)
        if found is None or found.type.kind != "record":
            raise NotCompiled(f"{field}: no record")
        return self.spec.records[found.type.name]

    def c_type(self, chunk: str) -> str:
        return "int64_t" if CHUNK_TYPES[chunk].zigzag else "uint64_t"

    # -- a body's own fields ---------------------------------------------------------------

    def element_fields(self) -> dict[str, set[str]]:
        """The element record's fields other than the groups -> the class members whose
        body writes them (their ``if:`` says the ``class_by`` element is that member), as
        each class's way back sets them."""
        chunk = self.m.class_by[1]
        test = re.compile(
            rf"this\._parent\.{self.back.header_field}\.{chunk}\[this\._parent\._index\]"
            r" == \w+\.(\w+)"
        )
        out = {}
        for field in self.element.fields:
            match = test.fullmatch(field.condition)
            if match is None:
                raise NotCompiled(f"{field.name}: not written by the class_by element alone")
            members = {
                c.member for c in self.back.classes if c.body.get(field.name, "None") != "None"
            }
            if members != {match[1]}:
                raise NotCompiled(f"{field.name}: set by other classes than its if: says")
            if self.groups is not None and field.name == self.groups.each:
                continue
            if members & {c.member for c in self.back.classes if c.groups is not None}:
                raise NotCompiled(f"{field.name}: beside the groups of its class")
            if field.type.kind == "prim" and field.type.name == "uvarint":
                pass
            elif field.type.kind == "str" and field.type.size == "uvarint":
                if field.type.encoding not in ("utf8", "utf-8") or field.type.max_length:
                    raise NotCompiled(f"{field.name}: not plain UTF-8 text")
            else:
                raise NotCompiled(f"{field.name}: neither a uvarint nor text")
            out[field.name] = members
        return out

    def put_body_field(self, name: str, local: str) -> list[str]:
        """The lines that put the body field ``name`` (its value in ``local``, checked) into
        the scratch buffer."""
        if self.element.field(name).type.kind == "str":
            return [
                f"put_uvarint(&b.scratch, text_bytes({local}))",
                f"put_text_strict(&b.scratch, {local})",
            ]
        return [f"put_uvarint(&b.scratch, <uint64_t>{local})"]

    # -- the structs -----------------------------------------------------------------------

    def structs(self) -> str:
        p = self.prefix
        row = [f"cdef struct {p}_Row:  # one model: its header elements, its body"]
        for field in self.header_record.fields:
            if field.type.kind != "chunk" or field.type.name not in CHUNK_TYPES:
                raise NotCompiled(f"{field.name}: not a chunk")
            if field.ref is not None:
                row += [
                    f"    PyObject* {field.name}  # held; NULL: None",
                    f"    int64_t {field.name}_id",
                ]
            else:
                row.append(f"    {self.c_type(field.type.name)} {field.name}")
        row += [
            "    Py_ssize_t body_at, body_size  # its body's own bytes in the scratch buffer",
            "    Py_ssize_t first_group, groups",
            "    Py_ssize_t size  # of its body, as written",
        ]
        parts = ["\n".join(row)]
        arrays = [("rows", "row")]
        if self.groups is not None:
            parts.append(
                "\n".join(
                    [
                        f"cdef struct {p}_Group:",
                        "    long by",
                        "    Py_ssize_t first_column, columns, size",
                    ]
                )
            )
            column = [f"cdef struct {p}_Cell:"]
            for field, chunk in self.groups.chunks.items():
                chunk_type = self.group_record.field(chunk).type.name
                if field == self.groups.name:
                    column += [f"    PyObject* {field}  # held", f"    int64_t {field}_id"]
                elif field == self.groups.value:
                    column.append(f"    Py_ssize_t {field}_at, {field}_size  # -1: None")
                else:
                    column.append(f"    {self.c_type(chunk_type)} {field}")
            parts.append("\n".join(column))
            arrays += [("groups", "group"), ("columns", "cell")]
        batch = [f"cdef struct {p}_Batch:  # the models checked, not yet written"]
        for many, one in arrays:
            batch.append(f"    {p}_{one.capitalize()}* {many}")
            batch.append(f"    Py_ssize_t n_{many}, {many}_cap")
        batch.append("    Out scratch  # the bodies' own bytes and the values")
        parts.append("\n".join(batch))
        parts.append(self.clear())
        return "\n\n\n".join(parts)

    def clear(self) -> str:
        p = self.prefix
        lines = [
            f"cdef void {p}_Clear({p}_Batch* b, bint free_all) noexcept:",
            '    """Lets go of the names held (the batch empty again), and where ``free_all``',
            '    of its memory."""',
            "    cdef Py_ssize_t i",
            "    for i in range(b.n_rows):",
        ]
        lines += [f"        let_go(b.rows[i].{name})" for name in self.refs]
        lines.append("    b.n_rows = b.scratch.size = 0")
        if self.groups is not None:
            lines += [
                "    for i in range(b.n_columns):",
                f"        let_go(b.columns[i].{self.groups.name})",
                "    b.n_groups = b.n_columns = 0",
            ]
        lines.append("    if free_all:")
        arrays = ["rows"] + (["groups", "columns"] if self.groups is not None else [])
        lines += [f"        free(b.{many})" for many in arrays]
        lines.append("        free(b.scratch.data)")
        return "\n".join(lines)

    # -- the message -----------------------------------------------------------------------

    def interned(self) -> list[tuple[str, object, bool]]:
        """``(path, null, empty refused)`` of each ``interned:`` ref, as the runtime
        Dictionary has them."""
        dictionary = [f for f in self.source.fields if f.interned]
        if len(dictionary) != 1:
            raise NotCompiled("not one interned: dictionary")
        self.dictionary = dictionary[0]
        out = []
        for path in self.dictionary.interned:
            head, _, last = path.rpartition(".")
            if head == self.back.header_field and last in self.refs:
                ref = self.refs[last]
            elif self.groups is not None and path == self.column_names_path():
                ref = self.group_record.field(last).ref
            else:
                raise NotCompiled(f"interned: {path}")
            out.append((path, ref.null, ref.empty_refused))
        return out

    def column_names_path(self) -> str:
        names = self.groups.chunks[self.groups.name]
        return f"{self.m.each}[*].{self.groups.each}[*].{names}"

    def pack(self) -> str:
        p, w = self.prefix, []
        self.lines = w
        w += [
            f"cdef bytes {p}_Pack({p}_Batch* b, Py_ssize_t start, Py_ssize_t stop):",
            '    """The message of rows ``start .. stop - 1``: their names interned, then the',
            f'    {self.source.name}\'s fields in wire order, written from the rows (no model of it)."""',
            "    cdef dict ids = {}",
            "    cdef list names = []",
            "    cdef Out o = Out(NULL, 0, 0)",
            "    cdef Py_ssize_t i, g, c, at, body_at",
            "    cdef uint64_t prev_u",
            "    cdef int64_t prev",
            f"    cdef {p}_Row* row",
        ]
        if self.groups is not None:
            w += [f"    cdef {p}_Group* group", f"    cdef {p}_Cell* cell"]
        for path, null, refused in self.interned():
            w.append(f"    # interned: {path}")
            null_id = 0 if null is None else int(null)
            if path != (self.column_names_path() if self.groups is not None else None):
                name = path.rpartition(".")[2]
                w += [
                    "    for i in range(start, stop):",
                    f"        b.rows[i].{name}_id = intern_name(ids, names, b.rows[i].{name}, {null_id}, {refused})",
                ]
                continue
            field = self.groups.name
            w += [
                "    for i in range(start, stop):",
                "        row = b.rows + i",
                "        for g in range(row.first_group, row.first_group + row.groups):",
                "            group = b.groups + g",
                "            for c in range(group.first_column, group.first_column + group.columns):",
                "                cell = b.columns + c",
                f"                cell.{field}_id = intern_name(ids, names, cell.{field}, {null_id}, {refused})",
            ]
        w.append("    try:")
        order = self.source.fields  # the trailer's fields as they are on the wire
        for field in order:
            w.append(f"        # {self.spec.source.display}:{field.line}: {field.name}")
            w.append("        at = o.size")
            self.field(field)
            w.append(f"        s_{field.name} = o.size - at")
        w += [
            "        return PyBytes_FromStringAndSize(<const char*>o.data, o.size)",
            "    finally:",
            "        free(o.data)",
        ]
        sizes = [f"s_{f.name}" for f in order]
        w.insert(3, f"    cdef Py_ssize_t {', '.join(sizes)}")
        return "\n".join(w)

    def put(self, lines: list[str], depth: int = 2) -> None:
        self.lines.extend("    " * depth + line for line in lines)

    def field(self, field) -> None:
        ref = field.type
        if field.const is not None and ref.kind == "prim" and ref.name == "uvarint":
            self.put([f"put_uvarint(&o, {int(field.const)})"])
        elif field.name == self.back.header_field:
            self.header()
        elif field.name == self.m.each:
            self.bodies()
        elif field is getattr(self, "dictionary", None):
            region = REGION_TYPES.get(ref.name) if ref.kind == "region" else None
            if region is None or region.repeated or region.chunk != "string_chunk":
                raise NotCompiled(f"{field.name}: not a region of one string chunk")
            self.put(
                [
                    "if names:  # one chunk whose count is not 0, or no bytes at all",
                    "    put_uvarint(&o, len(names))",
                    "    for name in names:",
                    "        put_uvarint(&o, text_bytes(name))",
                    "    for name in names:",
                    "        put_text_strict(&o, name)",
                ]
            )
        elif ref.kind == "region" and field.value_text:
            self.size_tables(field)
        elif ref.kind == "prim" and ref.name in ("uvarint", "reversed_uvarint"):
            name = _sizeof(ast.parse(field.value_text or "0", mode="eval").body)
            if name is None or self.source.field(name) is None:
                raise NotCompiled(f"{field.name}: not a sizeof of a field")
            self.put([f"put_{ref.name}(&o, s_{name})"])
        else:
            raise NotCompiled(f"{field.name}: not written by the fused way back")

    def header(self) -> None:
        for field in self.header_record.fields:
            chunk = field.type.name
            kind = self.c_type(chunk)
            prev = "prev" if kind == "int64_t" else "prev_u"
            value = f"b.rows[i].{field.name}" + ("_id" if field.ref is not None else "")
            self.put([f"{prev} = 0"] if CHUNK_TYPES[chunk].delta else [])
            self.put(["for i in range(start, stop):"])
            self.put(put_element(chunk, value, prev, kind), 3)

    def bodies(self) -> None:
        self.put(["for i in range(start, stop):", "    row = b.rows + i", "    body_at = o.size"])
        if self.groups is not None:
            self.put(
                [
                    "    if row.groups:",
                    "        for g in range(row.first_group, row.first_group + row.groups):",
                ]
            )
            self.put(["group = b.groups + g", "group.size = o.size"], 5)
            self.group()
            self.put(["group.size = o.size - group.size"], 5)
            self.put(["    elif row.body_size:"])
        else:
            self.put(["    if row.body_size:"])
        self.put(
            [
                "        put(&o, b.scratch.data + row.body_at, row.body_size)",
                "    row.size = o.size - body_at",
            ]
        )

    def group(self) -> None:
        """The group record's fields, from ``group`` and its columns."""
        gr, fields = self.groups, {chunk: field for field, chunk in self.groups.chunks.items()}
        loop = "for c in range(group.first_column, group.first_column + group.columns):"
        for field in self.group_record.fields:
            ref = field.type
            counted = re.fullmatch(r"len\((\w+)\)", field.value_text or "")
            if field.name == gr.by and ref.kind == "prim" and ref.name in ("u8", "uvarint"):
                put = (
                    "put_byte(&o, <unsigned char>group.by)"
                    if ref.name == "u8"
                    else "put_uvarint(&o, <uint64_t>group.by)"
                )
                self.put([put], 5)
            elif counted and counted[1] in fields and ref.kind == "prim" and ref.name == "uvarint":
                self.put(["put_uvarint(&o, <uint64_t>group.columns)"], 5)
            elif field.name in fields and ref.kind == "chunk" and fields[field.name] == gr.value:
                if ref.name != "nullable_bytes_chunk":
                    raise NotCompiled(f"{field.name}: values not in a nullable bytes chunk")
                value = gr.value
                self.put([
                    loop,
                    f"    put_uvarint(&o, zigzag(b.columns[c].{value}_size))",
                    loop,
                    f"    if b.columns[c].{value}_size > 0:",
                    f"        put(&o, b.scratch.data + b.columns[c].{value}_at, b.columns[c].{value}_size)",
                ], 5)  # fmt: skip
            elif field.name in fields and ref.kind == "chunk" and ref.name in CHUNK_TYPES:
                column = fields[field.name]
                value = f"b.columns[c].{column}" + ("_id" if column == gr.name else "")
                kind = self.c_type(ref.name)
                prev = "prev" if kind == "int64_t" else "prev_u"
                self.put([f"{prev} = 0"] if CHUNK_TYPES[ref.name].delta else [], 5)
                self.put([loop], 5)
                self.put(put_element(ref.name, value, prev, kind), 6)
            else:
                raise NotCompiled(f"{field.name}: not a group's chunk, count or by")

    def size_tables(self, field) -> None:
        """A repeated region whose ``value:`` lists chunks of sizes: ``[sizeof(A), ...]``
        (one chunk), ``sizeof(EACH)`` (the bodies'), ``[sizeof(x.G) for x in EACH if x.G
        is not None]`` (each body's groups')."""
        region = REGION_TYPES[field.type.name]
        if not region.repeated:
            raise NotCompiled(f"{field.name}: not a repeated region")
        chunk = region.chunk
        kind = self.c_type(chunk)
        prev = "prev" if kind == "int64_t" else "prev_u"
        tree = ast.parse(field.value_text, mode="eval").body
        terms = []
        while isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.Add):
            terms.insert(0, tree.right)
            tree = tree.left
        terms.insert(0, tree)
        for term in terms:
            if isinstance(term, ast.List):
                for element in term.elts:
                    self.size_table(element, chunk, kind, prev)
            elif isinstance(term, ast.ListComp):
                self.group_tables(term, chunk, kind, prev)
            else:
                raise NotCompiled(f"{field.name}: {ast.unparse(term)}")

    def size_table(self, element, chunk: str, kind: str, prev: str) -> None:
        """One chunk of ``element``: ``[sizeof(A), ...]`` or ``sizeof(EACH)``."""
        if isinstance(element, ast.List):
            names = [_sizeof(e) for e in element.elts]
            if None in names or any(self.source.field(n or "") is None for n in names):
                raise NotCompiled(f"size table {ast.unparse(element)}")
            self.put(
                [f"put_uvarint(&o, {len(names)})"]
                + ([f"{prev} = 0"] if CHUNK_TYPES[chunk].delta else [])
            )
            for name in names:
                self.put(put_element(chunk, f"s_{name}", prev, kind))
        elif _sizeof(element) == self.m.each:
            self.put(
                ["put_uvarint(&o, <uint64_t>(stop - start))"]
                + ([f"{prev} = 0"] if CHUNK_TYPES[chunk].delta else [])
            )
            self.put(["for i in range(start, stop):"])
            self.put(put_element(chunk, "b.rows[i].size", prev, kind), 3)
        else:
            raise NotCompiled(f"size table {ast.unparse(element)}")

    def group_tables(self, comp: ast.ListComp, chunk: str, kind: str, prev: str) -> None:
        """``[sizeof(x.G) for x in EACH if x.G is not None]``: a chunk of each body's groups'
        sizes, for each body with groups."""
        (gen,) = comp.generators
        var = gen.target.id if isinstance(gen.target, ast.Name) else None
        groups = self.groups.each if self.groups is not None else None
        test = f"{var}.{groups} is not None"
        if (
            _sizeof(comp.elt) != f"{var}.{groups}"
            or not (isinstance(gen.iter, ast.Name) and gen.iter.id == self.m.each)
            or [ast.unparse(t) for t in gen.ifs] != [test]
        ):
            raise NotCompiled(f"size tables {ast.unparse(comp)}")
        self.put([
            "for i in range(start, stop):",
            "    row = b.rows + i",
            "    if row.groups:",
            "        put_uvarint(&o, <uint64_t>row.groups)",
        ])  # fmt: skip
        self.put([f"{prev} = 0"] if CHUNK_TYPES[chunk].delta else [], 4)
        self.put(["for g in range(row.first_group, row.first_group + row.groups):"], 4)
        self.put(put_element(chunk, "b.groups[g].size", prev, kind), 5)
