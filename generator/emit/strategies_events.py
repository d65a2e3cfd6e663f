"""The strategy table of a module whose models are events of an imported ``models:`` spec
(Craft's ``map:``, Open Protocol's ``kafka_message: classes:``): ``_STRATEGY_EVENTS``, what
:mod:`runtime.formats.ticdc_strategies` draws event lists from.

Per class the format makes, the model fields it carries (a field it does not carry keeps
its default), each described by what the model says it holds (``range:``, ``enum:``,
``nonempty:``, :mod:`generator.spec.model_classes`) narrowed by the format's own type of it
where the field is one wire integer (Craft's ``body.ddl_type`` a uvarint, Open Protocol's
``ddl_value.t`` an s64). The column class's type code and value are the codec's (drawn
from its table of type codes and value kinds); the table says which fields they are.

    >>> from pathlib import Path
    >>> from generator.spec.loader import load
    >>> from generator.spec.validate import build_model
    >>> path = "specs/ticdc_open_protocol.yaml"
    >>> table = EventStrategies(build_model(load(Path(path), path)))
    >>> table.field_of("DdlEvent", "ddl_type", "s64")
    '{"kind": "int", "lo": -9223372036854775808, "hi": 9223372036854775807}'
"""

from __future__ import annotations

import re

from generator.spec.model import Spec
from generator.spec.types import PRIMITIVES

_BODY_FIELD = re.compile(r"body\.([a-z_][a-z0-9_]*)")
"""A ``map:`` field read straight from a field of the element record (``body.ddl_type``)."""
_LIST_OF = re.compile(r"list\[(\w+)\]")


class EventStrategies:
    """The ``_STRATEGY_EVENTS`` of ``spec`` (None when its models are not events of an
    imported spec's classes)."""

    def __init__(self, spec: Spec):
        self.spec = spec

    def classes(self) -> list[tuple[str, dict[str, str | None]]] | None:
        """(imported ``MODULE.CLASS``, {model field -> the integer type the format carries
        it as, or None}) per class the format makes, in the spec's order."""
        mapping = next((r.mapping for r in self.spec.records.values() if r.mapping), None)
        if mapping is not None:
            element = self.spec.records[
                next(f for f in self.spec.records[mapping.source].fields if f.name == mapping.each).type.name
            ]  # fmt: skip
            wire = {f.name: f.type.name for f in element.fields if f.type.kind == "prim"}
            out = []
            for cls in mapping.classes:
                fields = {}
                for value in cls.fields:
                    body = _BODY_FIELD.fullmatch(value.python)
                    fields[value.name] = wire.get(body[1]) if body else None
                for into in cls.groups.into.values() if cls.groups else ():
                    fields[into] = None
                out.append((f"{cls.module}.{cls.model}", fields))
            return out
        kafka = self.spec.kafka_message
        if kafka is None or not kafka.classes:
            return None
        docs = self.spec.json_documents
        return [
            (f"{cls.module}.{cls.model}",
             {f: next(k.type for k in docs[doc].keys if k.field == f) for f, doc in cls.fields})
            for cls in kafka.classes
        ]  # fmt: skip

    def alone(self) -> list[str]:
        """The classes a message holds only one event of: a ``map:``'s message is one batch
        of its way back (Craft's frame), so its ``batch: alone:`` classes come alone."""
        mapping = next((r.mapping for r in self.spec.records.values() if r.mapping), None)
        if mapping is None or mapping.way_back is None:
            return []
        members = mapping.way_back.batch.alone_members
        return [f"rt_{c.module}.{c.model}" for c in mapping.classes if c.member in members]

    def column(self) -> tuple[str, dict[str, str], str, str]:
        """The class of the events' row images, its fields' descriptions, and the fields
        the codec draws: the type code and the value decoded by it."""
        row = next(self._model(n) for n, _ in self.classes() if self._images(self._model(n)))
        name = _LIST_OF.search(self._images(row)[0].annotation)[1]
        module = next(n for n, _ in self.classes()).split(".")[0]
        model = self.spec.imported_models[f"{module}.{name}"]
        code, value = self._code_and_value()
        fields = {
            f.name: self.field_of(name, f.name, None, module)
            for f in model.fields
            if f.name not in (code, value)
        }  # fmt: skip
        return f"rt_{module}.{name}", fields, code, value

    def unique_names(self) -> bool:
        """A row image is a JSON object (Open Protocol's ``type: map``): its columns' names
        are unique, in the order Go writes a map's keys."""
        return any(k.type == "map" for d in self.spec.json_documents.values() for k in d.keys)

    def table(self) -> list[tuple[str, dict[str, str]]]:
        """(class, {field -> its description}) per class the format makes."""
        return [
            (self._class(name), {f: self.field_of(name.split(".")[1], f, wire, name.split(".")[0])
                                 for f, wire in fields.items()})
            for name, fields in self.classes()
        ]  # fmt: skip

    def field_of(self, cls: str, name: str, wire: str | None, module: str = "ticdc_types") -> str:
        """The description of field ``name`` of model ``cls``, carried as integer type
        ``wire`` (None: not one wire integer)."""
        f = next(f for f in self.spec.imported_models[f"{module}.{cls}"].fields if f.name == name)
        extra = ', "optional": True' if f.default is None else ""
        extra += ', "nonempty": True' if f.nonempty else ""
        if _LIST_OF.match(f.annotation):
            return f'{{"kind": "columns"{extra}}}'
        kind = f.annotation.split(" ")[0]
        if kind != "int":
            return f'{{"kind": "{kind}"{extra}}}'
        if f.members:  # an enum's members (a flags enum: any set of them)
            return f'{{"kind": "int", "{"flags" if f.flags else "members"}": {f.members!r}{extra}}}'
        low, high = f.range or (None, None)
        prim = PRIMITIVES.get(wire or "")
        if prim is not None and prim.kind == "int":
            bits = prim.bits or 8 * prim.size
            ends = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if prim.signed else (0, 2**bits - 1)
            low = ends[0] if low is None else max(low, ends[0])
            high = ends[1] if high is None else min(high, ends[1])
        if low is None or low > high:
            raise ValueError(
                f"{module}.{cls}.{name}: {'no range:' if low is None else 'an empty range'}"
                f" for {self.spec.format} ({wire or 'no integer type of its own'})"
            )
        return f'{{"kind": "int", "lo": {low}, "hi": {high}{extra}}}'

    def _code_and_value(self) -> tuple[str, str]:
        """The column fields the value is decoded by and the value: Craft's ``groups:``
        ``decode_by:`` chunks, Open Protocol's column key with a ``rendering:``."""
        for record in self.spec.records.values():
            for cls in record.mapping.classes if record.mapping else ():
                if cls.groups:
                    by_chunk = {chunk: f for f, chunk in cls.groups.columns.items()}
                    return by_chunk[cls.groups.codes], by_chunk[cls.groups.values]
        for doc in self.spec.json_documents.values():
            for key in doc.keys:
                if key.rendering:
                    enum = key.rendering.split(".")[0]
                    code = next(k.field for k in doc.keys if k.enum == enum)
                    return code, key.field
        raise ValueError(f"{self.spec.format}: no column value decoded by a type code")

    def _model(self, name: str):
        return self.spec.imported_models[name]

    def _images(self, model) -> list:
        return [f for f in model.fields if _LIST_OF.match(f.annotation)]

    @staticmethod
    def _class(name: str) -> str:
        module, cls = name.split(".")
        return f"rt_{module}.{cls}"
