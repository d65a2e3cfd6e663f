"""The plan of a record's ``map:`` (:mod:`generator.spec.mapping`): the steps that make its
models from the model of its source record, once that is read.

The Python mapping (:mod:`generator.emit.mapping`) renders the spec's model directly; the
compiled tier renders this plan (:mod:`generator.emit.compiled_mapping`), which says the
four things a mapping does beside reading: a per-element class switch
(:class:`ClassSwitch`), a dictionary lookup with a null id (:class:`Lookup`), a
per-element dispatch on a 256-entry kind table (:class:`KindTable`) and the models it
makes (:class:`MakeModel`: fields set, the rest the class's defaults). Expressions are the
spec's, checked and translated (``python``) over the mapping's names: ``FIELD_CHUNK`` (the
chunk ``source.FIELD.CHUNK``), ``i`` and ``body``.

    >>> print(Lookup("term_dictionary", -1, True))
    lookup in term_dictionary, null id -1, the empty name refused
"""

from __future__ import annotations

import dataclasses

from generator.emit.mapping import hoisted_expression
from generator.spec.model import Mapping, Spec, camel
from generator.spec.types import RUNTIME_TYPES


@dataclasses.dataclass(frozen=True)
class Lookup:
    """An id resolved to its name in the source's list ``dictionary``: ``null`` (if not
    None) is no name (None); any other id outside the list, or naming the empty name when
    ``empty_refused``, is a fault."""

    dictionary: str
    null: int | None
    empty_refused: bool

    def __str__(self) -> str:
        null = "" if self.null is None else f", null id {self.null}"
        empty = ", the empty name refused" * self.empty_refused
        return f"lookup in {self.dictionary}{null}{empty}"


@dataclasses.dataclass(frozen=True)
class KindTable:
    """Values decoded by the kind table of ``decoder`` (a ``VALUE_DECODERS`` key): the
    kind of each code (0..255) in chunk ``codes``, unsigned where chunk ``flags`` has the
    decoder's flag, the bytes from chunk ``values``."""

    decoder: str
    codes: str
    flags: str
    values: str

    def __str__(self) -> str:
        table = f"kind table {self.decoder} of {self.codes}, flags {self.flags}"
        return f"values {self.values} by {table}"


@dataclasses.dataclass(frozen=True)
class MakeModel:
    """A model of ``module.model`` with ``fields`` (name -> what sets it: an expression,
    a ``(chunk, Lookup)`` or, for a group's model, a chunk) set; the other fields are the
    class's defaults."""

    module: str
    model: str
    fields: tuple

    def __str__(self) -> str:
        return f"make {self.module}.{self.model}({', '.join(name for name, _ in self.fields)})"


@dataclasses.dataclass(frozen=True)
class Groups:
    """The element's groups (``body.each``): each group's ``by`` member once, into the
    model field ``into[member]``; one ``column`` per element of its chunks. ``record``: the
    groups' record."""

    each: str
    record: str
    by: str
    into: tuple[tuple[int, str], ...]
    column: MakeModel
    names: tuple[str, Lookup]
    values: KindTable

    def lines(self) -> list[str]:
        into = ", ".join(f"{value} -> {field}" for value, field in self.into)
        return [
            f"groups body.{self.each} by {self.by} once: {into}",
            f"  {self.column}",
            f"  names {self.names[0]}: {self.names[1]}",
            f"  {self.values}",
        ]


@dataclasses.dataclass(frozen=True)
class ClassCase:
    """One class of a :class:`ClassSwitch`: the member ``value`` selects it; its rules
    (expressions that must hold), its model and its groups."""

    member: str
    value: int
    rules: tuple[str, ...]
    make: MakeModel
    groups: Groups | None
    line: int | None

    def lines(self) -> list[str]:
        out = [f"case {self.value} ({self.member}):"]
        out += [f"  rule {rule}" for rule in self.rules]
        out.append(f"  {self.make}")
        for name, how in self.make.fields:
            how = f"{how[0]} by {how[1]}" if isinstance(how, tuple) else how
            out.append(f"    {name} = {how}")
        if self.groups is not None:
            out += ["  " + line for line in self.groups.lines()]
        return out


@dataclasses.dataclass(frozen=True)
class ClassSwitch:
    """Per element ``i`` of ``source.each``: the class whose member is element ``i`` of the
    chunk ``chunk`` (``FIELD_CHUNK``); no case: a fault."""

    chunk: str
    cases: tuple[ClassCase, ...]


@dataclasses.dataclass(frozen=True)
class MapPlan:
    """A record's ``map:``: its models (one per element of ``source.each``) into the
    record's one field ``field``, the chunks it reads hoisted (``FIELD_CHUNK`` ->
    ``(FIELD, CHUNK)``); ``kept_as``: the list class of ``field`` that keeps the bytes
    read, where its runtime primitive has one (``RuntimeType.kept_as``)."""

    record: str
    class_name: str
    field: str
    source: str
    each: str
    element_class: str
    hoisted: tuple[tuple[str, tuple[str, str]], ...]
    switch: ClassSwitch
    line: int | None
    kept_as: str = ""

    def describe(self) -> str:
        head = f"{self.record} -> {self.class_name}.{self.field}: map of {self.source}.{self.each}"
        lines = [head, f"  switch on {self.switch.chunk}[i]"]
        if self.kept_as:
            lines.insert(1, f"  a {self.kept_as} keeping the bytes read")
        lines += ["  " + line for case in self.switch.cases for line in case.lines()]
        return "\n".join(lines)


class NotMapped(Exception):
    """The ``map:`` says what this plan cannot (the Python mapping alone runs it)."""


def map_plans(spec: Spec) -> tuple[dict[str, MapPlan], dict[str, str]]:
    """The plans of the spec's records with ``map:``, and why the others have none."""
    plans, refused = {}, {}
    for name, record in spec.records.items():
        if record.mapping is None:
            continue
        try:
            plans[name] = _plan(spec, name, record.mapping)
        except NotMapped as why:
            refused[name] = str(why)
    return plans, refused


def _plan(spec: Spec, name: str, m: Mapping) -> MapPlan:
    record = spec.records[name]
    if len(record.fields) != 1:
        raise NotMapped("the mapped record has more than its one field")
    hoisted: dict[str, tuple[str, str]] = {}

    def expression(python: str) -> str:
        text, names = hoisted_expression(python)
        hoisted.update(names)
        return text

    chunk = expression(f"source.{m.class_by[0]}.{m.class_by[1]}[i]").removesuffix("[i]")
    source = spec.records[m.source]
    element = spec.records[source.field(m.each).type.name]
    cases = []
    for cls in m.classes:
        rules = tuple(expression(rule.check) for rule in cls.rules)
        fields = []
        for value in cls.fields:
            if value.ref is None:
                fields.append((value.name, expression(value.python)))
            else:
                at = expression(f"source.{value.at[0]}.{value.at[1]}[i]").removesuffix("[i]")
                ref = value.ref
                lookup = Lookup(ref.dictionary, ref.null, ref.empty_refused)
                fields.append((value.name, (at, lookup)))
        groups = None
        if cls.groups is not None:
            groups = _groups(spec, element, cls)
        make = MakeModel(cls.module, cls.model, tuple(fields))
        cases.append(ClassCase(cls.member, cls.value, rules, make, groups, cls.line))
    return MapPlan(
        name, camel(name), record.fields[0].name, m.source, m.each,
        camel(element.name), tuple(hoisted.items()),
        ClassSwitch(chunk, tuple(cases)), m.line, _kept_as(record.fields[0]),
    )  # fmt: skip


def _kept_as(field) -> str:
    """The list class a field's runtime primitive keeps the bytes read in, or ""."""
    if field.type.kind != "runtime":
        return ""
    return RUNTIME_TYPES[field.type.name].kept_as


def _groups(spec: Spec, element, cls) -> Groups:
    gr = cls.groups
    group = spec.records[element.field(gr.each).type.name]
    column = MakeModel(gr.module, gr.model, tuple(gr.columns.items()))
    ref = gr.ref
    return Groups(
        gr.each, group.name, gr.by, tuple(gr.into.items()), column,
        (gr.names, Lookup(ref.dictionary, ref.null, ref.empty_refused)),
        KindTable(f"{group.name}.{gr.values}", gr.codes, gr.flags, gr.values),
    )  # fmt: skip
