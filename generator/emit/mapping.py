"""A record's ``map:`` (:mod:`generator.spec.mapping`) as one function of the generated
module: ``MAPPINGS[record](source, fail, decode) -> [model, ...]``.

The same function serves both Python paths: ``fail(path, message, into)`` raises, and the
caller says what: the quick path gives up (then the checked path maps the source again),
the checked path raises the DecodeError at ``path`` of the source (names and indices:
``("header", "partition", 3)``; ``message`` None: the ref's own message, else ``{value}``
in it is the element there; ``into`` set: the values of that group did not decode, and
the model field they go into). ``decode(codes, flags, raws)`` is the values' decoder
(``decode_by:``): the values, or None when it cannot say. A class's rules run in declared
order, then its fields, the ``ref:`` ones checked as they resolve; then, every element
mapped, its ``groups:`` (each group's type once, the ids of its names), then, all checked,
their columns. The chunks it reads are locals taken once (``header_partition``), so the
loop does no attribute chains.
"""

from __future__ import annotations

import ast

from generator.spec.model import MapClass, MapGroups, Mapping, MapValue, Record


class _Hoisted(ast.NodeTransformer):
    """``source.FIELD.CHUNK`` -> the local ``FIELD_CHUNK``; collects what it hoists."""

    def __init__(self):
        self.names: dict[str, str] = {}

    def visit_Attribute(self, node: ast.Attribute):
        base = node.value
        if (
            isinstance(base, ast.Attribute)
            and isinstance(base.value, ast.Name)
            and base.value.id == "source"
        ):
            local = f"{base.attr}_{node.attr}"
            self.names[local] = f"source.{base.attr}.{node.attr}"
            return ast.copy_location(ast.Name(local, ast.Load()), node)
        self.generic_visit(node)
        return node


def hoisted_expression(python: str) -> tuple[str, dict[str, tuple[str, str]]]:
    """A mapping's expression over the hoisted chunks (``source.FIELD.CHUNK`` ->
    ``FIELD_CHUNK``), and those chunks (``FIELD_CHUNK`` -> ``(FIELD, CHUNK)``)."""
    hoisted = _Hoisted()
    text = ast.unparse(hoisted.visit(ast.parse(python, mode="eval")))
    return text, {local: tuple(path.split(".")[1:]) for local, path in hoisted.names.items()}


class _Renderer:
    def __init__(self, spec, record: Record):
        self.spec, self.record, self.mapping = spec, record, record.mapping
        self.hoisted = _Hoisted()
        self.resolvers: dict[tuple, str] = {}

    def expression(self, python: str) -> str:
        return ast.unparse(self.hoisted.visit(ast.parse(python, mode="eval")))

    def element(self, at: tuple[str, str]) -> str:
        return self.expression(f"source.{at[0]}.{at[1]}[i]")

    def function(self) -> list[str]:
        m: Mapping = self.mapping
        where = f"{self.spec.source.display}:{m.line}"
        body = [f"    for i, body in enumerate(source.{m.each}):"]
        body.append(f"        kind = {self.element(m.class_by)}")
        for n, cls in enumerate(m.classes):
            last = n == len(m.classes) - 1
            test = "else:" if last else f"{'if' if n == 0 else 'elif'} kind == {cls.value}:"
            note = f"{cls.member}, {self.spec.source.display}:{cls.line}"
            body.append(f"        {test}  # {note}")
            body += ["            " + line for line in self.map_class(cls)]
        for cls in m.classes:
            if cls.groups is not None:
                body += self.groups(cls)
        head = [
            f"def _map_{self.record.name}(source, fail, decode):",
            f'    """{where}: the map: of {self.record.name}, one model per element',
            f"    of {m.source}.{m.each}, its class by {'.'.join(m.class_by)}[i].",
            "",
            "    ``fail(path, message, into)`` raises (quick path: give up; checked path: the",
            "    DecodeError at that path of the source, ``message`` None for the ref's own, else",
            "    its {value} is the element there; ``into``: the model field of values that",
            '    ``decode(codes, flags, raws)`` could not decode)."""',
        ]
        head += [f"    {local} = {text}" for local, text in self.hoisted.names.items()]
        for key, name in self.resolvers.items():
            head += self.resolver(key, name)
        head += ["    models = []", "    append = models.append"]
        return [*head, *body, "    return models"]

    def map_class(self, cls: MapClass) -> list[str]:
        lines = []
        for rule in cls.rules:
            lines.append(f"if not ({self.expression(rule.check)}):")
            lines.append(f"    fail(({rule.at[0]!r}, {rule.at[1]!r}, i), {rule.message!r})")
        names = [value.name for value in cls.fields]
        # the model's leading fields in its order are positional (a call without keywords)
        positional = names == list(
            self.spec.imported_models[f"{cls.module}.{cls.model}"].field_names[: len(names)]
        )
        args = [("" if positional else f"{v.name}=") + self.value(v) for v in cls.fields]
        lines.append(f"append(rt_{cls.module}.{cls.model}({', '.join(args)}))")
        return lines

    def value(self, value: MapValue) -> str:
        """A field's expression; a ``ref:`` element resolved by the resolver of its ref
        (arguments are evaluated in order, so refs are checked in field order)."""
        if value.ref is None:
            return self.expression(value.python)
        ref = value.ref
        key = (ref.dictionary, ref.null, ref.empty_refused)
        resolver = self.resolvers.setdefault(
            key, f"{ref.dictionary}_name{len(self.resolvers) or ''}"
        )
        return f"{resolver}({self.element(value.at)}, ({value.at[0]!r}, {value.at[1]!r}, i))"

    def groups(self, cls: MapClass) -> list[str]:
        """The loops of a class's ``groups:``: every body's groups checked (each ``by``
        member once, the names' ids in range), then their columns made, values decoded."""
        gr: MapGroups = cls.groups
        m, where = self.mapping, f"{self.spec.source.display}:{gr.line}"
        kind = self.element(m.class_by)
        group_path = f"({m.each!r}, i, {gr.each!r}, g"
        members = list(gr.into.items())
        into = repr(members[-1][1])
        for value, field in reversed(members[:-1]):
            into = f"{field!r} if kind == {value} else {into}"
        model = f"rt_{gr.module}.{gr.model}"
        chunks = {name: f"group_{chunk}" for name, chunk in gr.columns.items()}
        chunks[_field_of(gr.columns, gr.names)] = f"map(names.__getitem__, group_{gr.names})"
        chunks[_field_of(gr.columns, gr.values)] = "values"
        lines = [
            f"    # {cls.member} groups, {where}: each {gr.by} once and the ids of the names,",
            "    # in every body first; then the columns, values decoded",
            f"    bodies = source.{m.each}",
            f"    names = source.{gr.ref.dictionary}",
            "    count = len(names)",
            "    grouped = []",
            "    for i, body in enumerate(bodies):",
            f"        if {kind} != {cls.value}:",
            "            continue",
            "        seen = []",
            f"        for g, group in enumerate(body.{gr.each}):",
            f"            kind = group.{gr.by}",
            "            if kind in seen:",
            f"                fail({group_path}, {gr.by!r}), {gr.once!r})",
            "            seen.append(kind)",
            f"            ids = group.{gr.names}",
            "            if ids and (min(ids) < 0 or max(ids) >= count):",
            "                for j, value in enumerate(ids):",
            "                    if not 0 <= value < count:",
            f"                        fail({group_path}, {gr.names!r}, j), None)",
            "        grouped.append(i)",
            "    for i in grouped:",
            "        model = models[i]",
            f"        for g, group in enumerate(bodies[i].{gr.each}):",
            f"            kind = group.{gr.by}",
            *(f"            group_{c} = group.{c}" for c in gr.columns.values()),
            f"            values = decode(group_{gr.codes}, group_{gr.flags}, group_{gr.values})",
            "            if values is None:",
            f"                fail({group_path}, {gr.values!r}), None, {into})",
            f"            columns = list(map({model}, {', '.join(chunks.values())}))",
        ]
        for n, (value, field) in enumerate(members):
            test = (
                "else:"
                if n == len(members) - 1
                else f"{'if' if n == 0 else 'elif'} kind == {value}:"
            )
            lines += [f"            {test}", f"                model.{field} = columns"]
        return lines

    def resolver(self, key, name: str) -> list[str]:
        """The local function that resolves an id to its name as a ``ref:`` says (the
        runtime's ``runtime.core.refs.Ref.problem``), else calls ``fail``."""
        dictionary, null, empty_refused = key
        names = f"source.{dictionary}"
        found = "0 <= value < len(names)" + (" and names[value]" if empty_refused else "")
        lines = [
            f"def {name}(value, path, names={names}):",
            f'    """The name of id ``value`` in {dictionary}'
            + ("" if null is None else f" ({null}: None")
            + ("" if not empty_refused else ", the empty name refused")
            + ("" if null is None else ")")
            + ', else ``fail``."""',
            f"    if {found}:",
            "        return names[value]",
        ]
        if null is not None:
            lines += [f"    if value == {null}:", "        return None"]
        lines.append("    return fail(path, None)")
        return ["    " + line for line in lines]


def _field_of(columns: dict[str, str], chunk: str) -> str:
    """The model field a group's chunk fills."""
    return next(name for name, value in columns.items() if value == chunk)


def render_mapping(spec, record: Record) -> str:
    """The source text of ``record``'s mapping function, ``_map_<record>``."""
    return "\n".join(_Renderer(spec, record).function())


def mapping_modules(records) -> set[str]:
    """The ``runtime.formats`` modules whose models the mappings make."""
    return {
        module
        for r in records
        if r.mapping
        for c in r.mapping.classes
        for module in (c.module, c.groups and c.groups.module)
        if module
    }
