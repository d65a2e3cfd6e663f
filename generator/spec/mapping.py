"""``map:``: a record whose models are mapped from another record, read first; checked
once every record of the spec is built.

Craft's ``message`` is one event per body of its ``frame``, the event's class by the
header's type chunk::

    message:
      map:
        from: frame
        each: bodies                  # `body` in expressions, its index `i`
        class_by: "header.type[i]"    # a chunk with a closed enum: one class per member
        classes:
          RESOLVED:
            model: ticdc_types.ResolvedEvent
            rules:                    # in declared order, after the frame's own
              - {check: "header.partition[i] == -1", at: "header.partition[i]",
                 message: "partition {value} out of range (always -1 here)"}
            fields: {commit_ts: "header.commit_ts[i]"}

A field that is exactly ``FIELD.CHUNK[i]`` of a chunk with ``ref:`` is the name the id
stands for, checked by the ref after the class's rules. A class's ``groups:`` makes model
fields of the element's groups (Craft: a row body's column groups -> ``new``/``old``, one
``ticdc_types.Column`` per column, its name by ``ref:``, its value by ``decode_by:``), checked
after every element's rules and decoded after every group is checked. The generator renders the mapping
as one function of the generated module (``MAPPINGS["message"]``,
:mod:`generator.emit.mapping`); models are the classes an imported spec's ``models:`` declares
(``IMPORT.CLASS``, :mod:`generator.spec.model_classes`), so no spec text names Python to import.
"""

from __future__ import annotations

import ast
import re

from generator.spec.expressions import translate
from generator.spec.model import (
    Field,
    MapClass,
    MapGroups,
    Mapping,
    MapRule,
    MapValue,
    Record,
    camel,
)

_ELEMENT = re.compile(r"([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)\[i\]")
"""``FIELD.CHUNK[i]``: element ``i`` of a chunk of a record field of the source."""
_ELEMENT_NAMES = ("body", "i")
"""Names an expression has beside the source's fields: the element and its index."""


def check_maps(builder, records: dict[str, Record]) -> None:
    """Reads every ``map:`` of the spec's records into them (``builder``: the
    :class:`generator.spec.validate.SpecBuilder`, for raw data and ``file:line`` errors)."""
    for name, body in builder.data.get("records", {}).items():
        if "map" in body:
            parts = ("records", name, "map")
            records[name].mapping = _mapping(builder, records, body["map"], parts)


def _mapping(builder, records, raw: dict, parts) -> Mapping:
    source = records.get(raw["from"])
    if source is None:
        raise builder.error(parts + ("from",), f"{raw['from']!r} is not a record of this spec")
    each = next((f for f in source.fields if f.name == raw["each"]), None)
    if each is None or each.repeat is None or each.type.kind != "record":
        raise builder.error(
            parts + ("each",), f"{raw['each']!r} is not a repeated record field of {source.name}"
        )
    class_by = _element(builder, records, source, raw["class_by"], parts + ("class_by",))
    chunk = records[_field(source, class_by[0]).type.name].field(class_by[1])
    enum = builder.enums.get(chunk.type.enum or "")
    if enum is None:
        raise builder.error(parts + ("class_by",), f"{raw['class_by']!r} has no closed enum:")
    members = class_members(builder, enum, raw["classes"], parts + ("classes",))
    context = _Context(builder, records, source, records[each.type.name])
    classes = [
        context.map_class(member, members[member], body, parts + ("classes", member))
        for member, body in raw["classes"].items()
    ]
    line = builder.lines.line(parts)
    return Mapping(source.name, each.name, class_by, classes, line)


def class_members(builder, enum, classes: dict, parts) -> dict[str, int]:
    """``enum``'s members by name, once ``classes`` (at ``parts``) has one class per member
    (a ``map:``'s classes, a ``kafka_message:``'s)."""
    members = {v.name: v.value for v in enum.values}
    for member in classes:
        if member not in members:
            raise builder.error(parts + (member,), f"{member!r} is not a member of {enum.name}")
    missing = [m for m in members if m not in classes]
    if missing:
        raise builder.error(parts, f"{enum.name} {missing[0]} has no class")
    return members


def _field(record: Record, name: str) -> Field | None:
    return next((f for f in record.fields if f.name == name), None)


def _element(builder, records, source: Record, text: str, parts) -> tuple[str, str]:
    """``FIELD.CHUNK[i]`` -> (field, chunk): a chunk of a record field of ``source``."""
    match = _ELEMENT.fullmatch(text)
    outer = match and _field(source, match.group(1))
    inner = (
        outer is not None
        and outer.type.kind == "record"
        and outer.repeat is None
        and _field(records[outer.type.name], match.group(2))
    )
    if not inner or inner.type.kind != "chunk":
        raise builder.error(parts, f"{text!r} is not FIELD.CHUNK[i] of {source.name}")
    return match.group(1), match.group(2)


class _Context:
    """What the expressions of one ``map:`` may name: the source's fields, ``body`` (an
    element of ``each``, a ``element`` record) and ``i``."""

    def __init__(self, builder, records, source: Record, element: Record):
        self.builder, self.records, self.source, self.element = builder, records, source, element

    def map_class(self, member: str, value: int, raw: dict, parts) -> MapClass:
        module, _, model = raw["model"].partition(".")
        models = self.builder.imported_models
        allowed = models[raw["model"]].field_names if raw["model"] in models else None
        if allowed is None:
            raise self.builder.error(
                parts + ("model",), f"{raw['model']!r} is not one of {sorted(models)}"
            )
        for name in raw["fields"]:
            if name not in allowed:
                raise self.builder.error(
                    parts + ("fields", name), f"{raw['model']} has no field {name!r} {allowed}"
                )
        rules = [
            self.rule(rule, parts + ("rules", n)) for n, rule in enumerate(raw.get("rules", []))
        ]
        fields = [
            self.value(name, text, parts + ("fields", name)) for name, text in raw["fields"].items()
        ]
        groups = None
        if "groups" in raw:
            groups = self.groups(raw["model"], raw["fields"], raw["groups"], parts + ("groups",))
        line = self.builder.lines.line(parts)
        return MapClass(member, value, module, model, rules, fields, line, groups)

    def groups(self, owner: str, fields: dict, raw: dict, parts) -> MapGroups:
        """``groups:``: the element's repeated record field ``each`` (``body.FIELD``), each
        group filling the model field its ``by`` member names, one column per element."""
        error = self.builder.error
        each = _field(self.element, raw["each"].removeprefix("body."))
        if not raw["each"].startswith("body.") or each is None or each.repeat is None \
                or each.type.kind != "record":  # fmt: skip
            raise error(parts + ("each",), f"{raw['each']!r} is not body.FIELD, a repeated "
                        f"record field of {self.element.name}")  # fmt: skip
        group = self.records[each.type.name]
        by = _field(group, raw["by"])
        enum = by is not None and self.builder.enums.get(by.type.enum or "")
        if not enum or by.open_enum:
            raise error(
                parts + ("by",), f"{raw['by']!r} is not a field of {group.name} with a closed enum"
            )
        members = {v.name: v.value for v in enum.values}
        into = {}
        for member, target in raw["into"].items():
            if member not in members:
                raise error(parts + ("into", member), f"{member!r} is not a member of {enum.name}")
            owned = self.builder.imported_models[owner].field_names
            if target not in owned or target in fields or target in into.values():
                raise error(parts + ("into", member), f"{owner} has no free field {target!r}")
            into[members[member]] = target
        missing = [m for m in members if m not in raw["into"]]
        if missing:
            raise error(parts + ("into",), f"{enum.name} {missing[0]} goes into no field")
        models = self.builder.imported_models
        allowed = models[raw["model"]].field_names if raw["model"] in models else None
        if allowed is None or raw["model"] == owner:
            raise error(parts + ("model",), f"{raw['model']!r} is not one of {sorted(models)}")
        if list(raw["columns"]) != list(allowed):
            raise error(
                parts + ("columns",), f"{raw['model']} needs the fields {list(allowed)}, in order"
            )
        chunks = {}
        for name, chunk_name in raw["columns"].items():
            chunk = _field(group, chunk_name)
            if chunk is None or chunk.type.kind != "chunk":
                raise error(
                    parts + ("columns", name), f"{chunk_name!r} is not a chunk of {group.name}"
                )
            chunks[name] = chunk
        named = [c for c in chunks.values() if c.ref is not None]
        decoded = [c for c in chunks.values() if c.decode_by is not None]
        if len(named) != 1 or named[0].ref.null is not None or named[0].ref.empty_refused \
                or named[0].ref.record != self.source.name:  # fmt: skip
            raise error(parts + ("columns",), f"one column is the name of an id into "
                        f"{self.source.name} (a ref: chunk, no null, the empty name allowed)")  # fmt: skip
        if len(decoded) != 1 or not decoded[0].decode_by.flags:
            raise error(parts + ("columns",), "one column is the value of a decode_by: chunk "
                        "with signed_unless:")  # fmt: skip
        module, _, model = raw["model"].partition(".")
        by_value = decoded[0].decode_by
        return MapGroups(
            each.name, by.name, raw["once"], into, module, model,
            {name: c.name for name, c in chunks.items()}, named[0].name, named[0].ref,
            decoded[0].name, by_value.code, by_value.flags, self.builder.lines.line(parts),
        )  # fmt: skip

    def rule(self, raw: dict, parts) -> MapRule:
        at = _element(self.builder, self.records, self.source, raw["at"], parts + ("at",))
        check = self.python(raw["check"], parts + ("check",))
        return MapRule(check, at, raw["message"], self.builder.lines.line(parts))

    def value(self, name: str, text: str, parts) -> MapValue:
        python = self.python(text, parts)
        if _ELEMENT.fullmatch(text):
            at = _element(self.builder, self.records, self.source, text, parts)
            chunk = self.records[_field(self.source, at[0]).type.name].field(at[1])
            if chunk.ref is not None:
                if chunk.ref.record != self.source.name:
                    raise self.builder.error(
                        parts, f"{text!r} names ids into {chunk.ref.record}, not {self.source.name}"
                    )
                return MapValue(name, python, at, chunk.ref)
        return MapValue(name, python)

    def python(self, text: str, parts) -> str:
        """``text`` checked as a spec expression and rendered over the mapping function's
        names: ``source.FIELD``, ``body``, ``i`` and the generated enum classes."""
        fields = {f.name for f in self.source.fields}
        enums = {name: camel(name) for name in self.builder.enums}
        try:
            translated = translate(text, fields | set(_ELEMENT_NAMES), enums)
        except ValueError as err:
            raise self.builder.error(parts, str(err)) from None
        tree = _OverSource().visit(ast.parse(translated, mode="eval"))
        for node in ast.walk(tree):
            problem = self.unknown_attribute(node)
            if problem:
                raise self.builder.error(parts, problem)
        return ast.unparse(tree)

    def unknown_attribute(self, node) -> str | None:
        """``source.FIELD.X`` and ``body.X`` name fields of their records."""
        if not isinstance(node, ast.Attribute):
            return None
        base = node.value
        if isinstance(base, ast.Name) and base.id == "body":
            record = self.element
        elif (
            isinstance(base, ast.Attribute)
            and isinstance(base.value, ast.Name)
            and base.value.id == "source"
        ):
            outer = _field(self.source, base.attr)
            if outer is None or outer.type.kind != "record":
                return f"{base.attr!r} is not a record field of {self.source.name}"
            record = self.records[outer.type.name]
        else:
            return None
        if _field(record, node.attr) is None:
            return f"{record.name} has no field {node.attr!r}"
        return None


class _OverSource(ast.NodeTransformer):
    """``this.body`` / ``this.i`` -> ``body`` / ``i``; ``this.FIELD`` -> ``source.FIELD``."""

    def visit_Attribute(self, node: ast.Attribute):
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id == "this":
            if node.attr in _ELEMENT_NAMES:
                return ast.copy_location(ast.Name(node.attr, ast.Load()), node)
            node.value = ast.Name("source", ast.Load())
        return node


def mappings(records: dict[str, Record]) -> list[Record]:
    """The records with ``map:``, in spec order."""
    return [r for r in records.values() if r.mapping is not None]
