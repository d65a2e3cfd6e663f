"""The way back of a ``map:`` (models -> the source record), read when the mapping has a
``batch:``: the inverse of the read, plus what a read cannot say.

- A class's member is written as ``class_by`` (``header.type[i] = ROW_CHANGED``); a model
  of no class is ``write_message:`` (``{type}``: its type's name).
- A field that is ``FIELD.CHUNK[i]`` or ``body.X`` is written back there, checked by the
  chunk's or field's type (an int chunk: an int64 or a uint64; a ``ref:`` chunk: a name,
  None where the ref has a null; a uvarint; a str) with the derived message, or the
  class's ``write: {FIELD: {message:}}``. A field that is any other expression names its
  inverse, ``write: {FIELD: {value:, message:}}`` (names: the model's fields): the value
  written is checked by the chunk's type, the class's rules ``at:`` that element, and
  reads back as the model's field.
- An element no field sets is the constant its class's rule demands (``check:
  "header.partition[i] == -1"``), a ``ref:`` chunk's null as None (interning writes it);
  a body field no field sets is absent (None).
- ``groups:`` inverts in ``into:`` order: each ``into:`` field that is not None is one
  group (its ``by`` the member), one element per column: the column model checked
  (``write_message: {model:}``), its other chunks by their types, its value encoded by
  the ``decode_by:`` kinds; a model with no group is ``write_message: {empty:}``.
- ``batch:``: the classes that are a message of their own (``alone:``), the limits as
  arguments with defaults, the running ``estimate:`` (``sizeof(x)``: the bytes ``x``
  takes as written) and the messages' errors.

Every expression here is parsed and checked against a small grammar (names, integer
constants, arithmetic, comparisons, ``if``/``else``, ``sizeof(NAME)``), so spec text never
becomes code; :mod:`generator.emit.unmapping` renders the result.
"""

from __future__ import annotations

import ast
import dataclasses

from generator.spec import batching
from generator.spec.batching import Batch, read_batch
from generator.spec.mapping import _ELEMENT, _field
from generator.spec.model import Mapping, Record
from generator.spec.types import CHUNK_TYPES

U64, I64 = (1 << 64) - 1, 1 << 63


@dataclasses.dataclass
class WriteCheck:
    """How the way back checks one value before writing it: ``kind`` is ``uint64`` or
    ``int64`` (an int in range), ``name`` (a str; None too when ``nullable``), ``str``,
    or ``uvarint`` (the writer's own error, ``runtime.core.leb128.write_uvarint``)."""

    kind: str
    message: str | None = None
    nullable: bool = False


@dataclasses.dataclass
class WriteField:
    """A model field written back: to ``target`` (``("header", chunk)`` or ``("body",
    field)``), as it is or (``value`` set: Python over the model's fields) computed, then
    checked by ``check``; a computed one also by ``rules`` and ``read`` (Python over the
    written element ``<name>_written``: its rules, and the field it reads back as)."""

    name: str
    target: tuple[str, str]
    check: WriteCheck
    value: str | None = None
    rules: list[str] = dataclasses.field(default_factory=list)
    read: str | None = None


@dataclasses.dataclass
class WriteGroups:
    """``groups:`` written back: ``into`` (by member -> model field) in order, the column
    ``model``, its fields -> the group's chunks, the name field, the code field, the
    value field, the other checked fields, and the messages."""

    each: str
    by: str
    into: list[tuple[int, str]]
    module: str
    model: str
    chunks: dict[str, str]
    name: str
    code: str
    flags: str
    value: str
    checked: list[tuple[str, WriteCheck]]
    model_message: str
    empty_message: str


@dataclasses.dataclass
class WriteClass:
    """One class written back: the fields in spec order, the header row (Python per
    chunk of the class_by record, in its order), the body's fields (Python each), the
    groups, and the model's estimate (Python over the written fields)."""

    member: str
    value: int
    module: str
    model: str
    fields: list[WriteField]
    header: list[str]
    body: dict[str, str]
    groups: WriteGroups | None
    estimate: str
    line: int | None


@dataclasses.dataclass
class WayBack:
    """The way back of a ``map:``: its classes, the ``class_by`` record's chunks (the header
    row's order) and record name, the element record's fields, the model of no class's
    message, the column estimate, the ``batch:`` messages, and the ``batch:``."""

    classes: list[WriteClass]
    header_field: str
    header: list[str]
    body: list[str]
    message: str
    column_estimate: str
    empty_message: str
    alone_message: str
    batch: Batch
    estimate_text: tuple[str, str] = ("", "")
    """The ``estimate:`` as the spec writes it (model, column), for the docs."""


def check_way_back(builder, records: dict[str, Record]) -> None:
    """Reads the way back of every ``map:`` with a ``batch:`` into its mapping."""
    for name, body in builder.data.get("records", {}).items():
        raw = body.get("map", {})
        if "batch" in raw:
            parts = ("records", name, "map")
            mapping = records[name].mapping
            mapping.way_back = _Reader(builder, records, mapping, parts).way_back(raw)


class _Reader:
    def __init__(self, builder, records, mapping: Mapping, parts):
        self.builder, self.records, self.mapping, self.parts = builder, records, mapping, parts
        self.source = records[mapping.source]
        self.header_field = mapping.class_by[0]
        self.header = records[_field(self.source, self.header_field).type.name]
        self.element = records[_field(self.source, mapping.each).type.name]

    def error(self, parts, message):
        return self.builder.error(self.parts + parts, message)

    def way_back(self, raw: dict) -> WayBack:
        if "write_message" not in raw:
            raise self.error((), "a map: with batch: needs write_message: (a model of no class)")
        batch = raw["batch"]
        for section, key in (("estimate", "column"), ("messages", "empty"), ("messages", "alone")):
            if key not in batch.get(section, {}):
                raise self.error(("batch", section), f"a map:'s batch: needs {section}: {{{key}:}}")
        members = {c.member: c.value for c in self.mapping.classes}
        common = read_batch(self, batch, members, "a class of this map:")
        classes = [
            self.write_class(c, raw["classes"][c.member], ("classes", c.member))
            for c in self.mapping.classes
        ]
        estimate_parts = ("batch", "estimate", "model")
        for cls in classes:
            names = {f.name: f.name for f in cls.fields}
            allowed = {
                n: names.get(n, "None")
                for n in self.builder.imported_models[f"{cls.module}.{cls.model}"].field_names
            }
            for other in self.mapping.classes:
                for field in self.builder.imported_models[
                    f"{other.module}.{other.model}"
                ].field_names:
                    allowed.setdefault(field, "None")
            texts = {f.name for f in cls.fields if f.check.kind in ("name", "str")}
            cls.estimate = self.expression(
                batch["estimate"]["model"], allowed, estimate_parts, texts=texts
            )
        grouped = [c.groups for c in classes if c.groups is not None]
        column_names = {}
        if grouped:
            column_names = {f: f"column_{f}" for f in grouped[0].chunks}
        texts = {f"column_{grouped[0].name}"} if grouped else set()
        byte_values = {f"column_{grouped[0].value}"} if grouped else set()
        column = self.expression(
            batch["estimate"]["column"], column_names, ("batch", "estimate", "column"),
            texts=texts, byte_values=byte_values,
        )  # fmt: skip
        return WayBack(
            classes, self.header_field, [f.name for f in self.header.fields],
            [f.name for f in self.element.fields], raw["write_message"], column,
            batch["messages"]["empty"], batch["messages"]["alone"], common,
            (batch["estimate"]["model"], batch["estimate"]["column"]),
        )  # fmt: skip

    def write_class(self, cls, raw: dict, parts) -> WriteClass:
        writes = raw.get("write", {})
        for name in writes:
            if name not in raw["fields"]:
                raise self.error(parts + ("write", name), f"{name!r} is not a field of this class")
        header = {self.mapping.class_by[1]: str(cls.value)}
        body: dict[str, str] = {}
        fields = []
        for value in cls.fields:
            write = writes.get(value.name, {})
            field = self.write_field(cls, value, write, parts + ("fields", value.name))
            where, name = field.target
            taken = header if where == "header" else body
            if name in taken:
                raise self.error(parts + ("fields", value.name), f"{where}.{name} is written twice")
            taken[name] = f"{field.name}_written" if field.value is not None else field.name
            fields.append(field)
        for chunk in self.header.fields:
            if chunk.name not in header:
                header[chunk.name] = self.constant(cls, chunk, parts)
        groups = None
        if cls.groups is not None:
            groups = self.write_groups(cls, raw["groups"], parts + ("groups",))
            body[cls.groups.each] = "body_groups"
        return WriteClass(
            cls.member, cls.value, cls.module, cls.model, fields,
            [header[c.name] for c in self.header.fields],
            {f.name: body.get(f.name, "None") for f in self.element.fields}, groups, "", cls.line,
        )  # fmt: skip

    def write_field(self, cls, value, write: dict, parts) -> WriteField:
        text = _read_text(value)
        element = self.element_of(text)
        if element is not None and "value" not in write:
            target, chunk = ("header", element), self.header.field(element)
            check = self.chunk_check(chunk, parts)
        elif text.startswith("body.") and text[5:].isidentifier() and "value" not in write:
            target = ("body", text[5:])
            check = self.field_check(_field(self.element, text[5:]), parts)
        else:
            elements = self.elements_in(value.python)
            if "value" not in write or len(elements) != 1:
                raise self.error(parts, f"{text!r} is not an element written back as it is: "
                                 "write: needs its value: (the inverse), of one element")  # fmt: skip
            target = ("header", elements[0])
            check = self.chunk_check(self.header.field(elements[0]), parts)
            names = {
                f: f for f in self.builder.imported_models[f"{cls.module}.{cls.model}"].field_names
            }
            inverse = self.expression(write["value"], names, ("write", value.name, "value"))
            written = f"{value.name}_written"
            rules = [
                _over_element(r.check, target[1], written)
                for r in cls.rules
                if r.at == (self.header_field, target[1])
            ]
            read = _over_element(value.python, target[1], written)
            check.message = write.get("message", check.message)
            return WriteField(value.name, target, check, inverse, rules, read)
        check.message = write.get("message", check.message)
        return WriteField(value.name, target, check)

    def element_of(self, text: str) -> str | None:
        match = _ELEMENT.fullmatch(text)
        if match and match.group(1) == self.header_field:
            return match.group(2)
        return None

    def elements_in(self, python: str) -> list[str]:
        found = []
        for node in ast.walk(ast.parse(python, mode="eval")):
            chunk = _source_chunk(node, self.header_field)
            if chunk and chunk not in found:
                found.append(chunk)
        return found

    def chunk_check(self, chunk, parts) -> WriteCheck:
        if chunk.ref is not None:
            nullable = chunk.ref.null is not None
            return WriteCheck("name", f"expected str{' or None' if nullable else ''}, got {{got}}",
                              nullable)  # fmt: skip
        kind = CHUNK_TYPES.get(chunk.type.name) if chunk.type.kind == "chunk" else None
        if kind is None or kind.element != "int":
            raise self.error(parts, f"the way back cannot write a {chunk.type.name} element")
        bits = "int64" if kind.zigzag else "uint64"
        return WriteCheck(bits, f"{chunk.name} {{value!r}} is not a{'n' * (bits[0] == 'i')} {bits}")

    def field_check(self, field, parts) -> WriteCheck:
        if field is not None and field.type.kind == "prim" and field.type.name == "uvarint":
            return WriteCheck("uvarint")
        if field is not None and field.type.kind == "str":
            return WriteCheck("str", "expected str, got {got}")
        raise self.error(parts, "the way back writes a body field that is a uvarint or a str")

    def constant(self, cls, chunk, parts) -> str:
        """The element of ``chunk`` a class's rule fixes (``FIELD.CHUNK[i] == N``)."""
        for rule in cls.rules:
            tree = ast.parse(rule.check, mode="eval").body
            if (
                isinstance(tree, ast.Compare)
                and len(tree.ops) == 1
                and isinstance(tree.ops[0], ast.Eq)
                and _source_chunk(tree.left, self.header_field) == chunk.name
            ):
                try:
                    value = ast.literal_eval(tree.comparators[0])
                except ValueError:
                    continue
                if type(value) is int:
                    if chunk.ref is not None and value == chunk.ref.null:
                        return "None"  # interning writes the null id
                    return str(value)
        raise self.error(parts, f"no field of {cls.member} writes {self.header_field}."
                         f"{chunk.name}[i] and no rule fixes it (== N)")  # fmt: skip

    def write_groups(self, cls, raw: dict, parts) -> WriteGroups:
        gr = cls.groups
        messages = raw.get("write_message")
        if messages is None:
            raise self.error(parts, "the way back needs write_message: {model:, empty:}")
        group = self.records[_field(self.element, gr.each).type.name]
        chunks = dict(gr.columns)
        name = next(f for f, c in chunks.items() if c == gr.names)
        code = next(f for f, c in chunks.items() if c == gr.codes)
        value = next(f for f, c in chunks.items() if c == gr.values)
        flags = next((f for f, c in chunks.items() if c == gr.flags), None)
        if flags is None:
            raise self.error(parts + ("columns",), f"{gr.flags!r}, the values' flags, is no column")
        checked = []
        for field, chunk in chunks.items():
            if field not in (name, code, value):
                checked.append((field, self.chunk_check(group.field(chunk), parts + ("columns",))))
        for field, check in checked:
            if check.kind != "uint64":
                raise self.error(parts + ("columns", field), "the way back writes a column's "
                                 "other chunks as uvarints")  # fmt: skip
            check.kind = "uvarint"
        return WriteGroups(
            gr.each, gr.by, list(gr.into.items()), gr.module, gr.model, chunks, name, code,
            flags, value, checked, messages["model"], messages["empty"],
        )  # fmt: skip

    def expression(self, text: str, names: dict[str, str], parts, texts=(), byte_values=()):
        """``text`` checked against the way back's grammar (:func:`batching.expression`)."""
        return batching.expression(self.error, text, names, parts, texts, byte_values)

    def line(self, parts) -> int | None:
        return self.builder.lines.line(self.parts + parts)


def _read_text(value) -> str:
    """The spec text of a mapped field, as :class:`MapValue` keeps it (rendered Python)."""
    tree = ast.parse(value.python, mode="eval").body
    chunk = _source_chunk(tree, None)
    if chunk is not None:
        return f"{tree.value.value.attr}.{chunk}[i]"
    if isinstance(tree, ast.Attribute) and isinstance(tree.value, ast.Name) \
            and tree.value.id == "body":  # fmt: skip
        return f"body.{tree.attr}"
    return value.python


def _source_chunk(node, field: str | None) -> str | None:
    """``source.FIELD.CHUNK[i]`` -> CHUNK (any FIELD when ``field`` is None)."""
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Name)
        and node.slice.id == "i"
        and isinstance(node.value, ast.Attribute)
        and isinstance(node.value.value, ast.Attribute)
        and isinstance(node.value.value.value, ast.Name)
        and node.value.value.value.id == "source"
        and (field is None or node.value.value.attr == field)
    ):
        return node.value.attr
    return None


def _over_element(python: str, chunk: str, name: str) -> str:
    """``python`` (over the source) with ``source.FIELD.CHUNK[i]`` as the local ``name``."""

    class Replace(ast.NodeTransformer):
        def visit_Subscript(self, node):
            if _source_chunk(node, None) == chunk:
                return ast.copy_location(ast.Name(name, ast.Load()), node)
            return self.generic_visit(node)

    return ast.unparse(Replace().visit(ast.parse(python, mode="eval")))
