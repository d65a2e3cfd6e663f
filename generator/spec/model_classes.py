"""``models:``: plain model classes a spec declares for other specs to make.

TiCDC's events are one model that two formats decode into (Craft's ``map:``, Open
Protocol's ``kafka_message: classes:``), so they cannot be a record of either: they are
declared once, in the spec both import (specs/ticdc_types.yaml), and rendered as that
spec's generated module (``generated/models/ticdc_types.py``, :mod:`generator.emit.model_classes`).
An importing spec names a class ``IMPORT.CLASS`` (``ticdc_types.RowChangedEvent``):

.. code-block:: yaml

    models:
      Column:
        doc: One column of a row image.
        fields:
          - {name: name, type: str}
          - {name: flags, type: int, default: 0, doc: "Column flag bitset."}
          - {name: value, type: value, optional: true}
      RowChangedEvent:
        doc: An insert, update or delete.
        fields:
          - {name: new, type: Column, repeat: true, optional: true}
        properties:
          op: "'insert' if new is not None else 'delete'"
      ResolvedEvent:
        doc: A watermark.
        fields: [{name: commit_ts, type: int}]
        constants: {op: resolved}

A field's ``type`` is ``int``, ``float``, ``str``, ``bytes``, ``bool``, ``value`` (a
column value: any of those or None) or another class of the spec; ``repeat: true`` is a
list of it, ``optional: true`` adds None (the default), ``default:`` gives a literal one.
A field without either comes before every field with one (a dataclass's rule). A
``properties:`` entry is a spec expression over the fields (:mod:`generator.spec.expressions`:
spec text never becomes code); a ``constants:`` entry a class attribute's text.

    >>> from pathlib import Path
    >>> from generator.spec.loader import load
    >>> from generator.spec.validate import build_model
    >>> spec = build_model(load(Path("specs/ticdc_types.yaml"), "specs/ticdc_types.yaml"))
    >>> spec.models["Column"].field_names
    ('name', 'type', 'flags', 'value')
    >>> spec.models["RowChangedEvent"].fields[4].annotation
    'list[Column] | None'
"""

from __future__ import annotations

import dataclasses
import keyword

from generator.spec import names as spec_names
from generator.spec.expressions import translate

SCALAR_TYPES = {
    "int": "int",
    "float": "float",
    "str": "str",
    "bytes": "bytes",
    "bool": "bool",
    "value": "int | float | bytes | str | None",
}
"""A field's ``type:`` -> its Python annotation (a declared class is its own name)."""


@dataclasses.dataclass(frozen=True)
class ModelField:
    name: str
    annotation: str
    """The Python annotation, as the class shows it (``list[Column] | None``)."""
    default: object = dataclasses.MISSING
    """The default value (None for an optional field); MISSING: the field is required."""
    doc: str = ""


@dataclasses.dataclass(frozen=True)
class ModelClass:
    name: str
    doc: str
    fields: tuple[ModelField, ...]
    constants: dict[str, str]
    """Class attribute -> its text."""
    properties: dict[str, str]
    """Read-only attribute -> its Python expression over ``this`` (the instance)."""
    line: int | None = None

    @property
    def field_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)


def read_models(builder, raw: dict) -> dict[str, ModelClass]:
    """The ``models:`` section, checked at the spec's ``file:line``."""
    out = {}
    for name, body in raw.items():
        parts = ("models", name)
        if keyword.iskeyword(name):
            raise builder.error(parts, f"{name!r} is a Python keyword")
        fields = tuple(_field(builder, raw, f, parts + ("fields", i)) for i, f in enumerate(body["fields"]))
        seen, optional_seen = set(), False
        for i, f in enumerate(fields):
            where = parts + ("fields", i)
            if f.name in seen:
                raise builder.error(where, f"{name} has two fields named {f.name!r}")
            seen.add(f.name)
            if f.default is dataclasses.MISSING and optional_seen:
                raise builder.error(where, f"{f.name!r} has no default but follows a field with one")
            optional_seen |= f.default is not dataclasses.MISSING
        for attr in (*body.get("constants", {}), *body.get("properties", {})):
            if attr in seen or not attr.isidentifier() or attr.startswith("_"):
                raise builder.error(parts, f"{name}: {attr!r} cannot be an attribute of its own")
        properties = {}
        for attr, text in body.get("properties", {}).items():
            try:
                properties[attr] = translate(text, seen)
            except ValueError as err:
                raise builder.error(parts + ("properties", attr), str(err)) from None
        out[name] = ModelClass(
            name, body["doc"], fields, dict(body.get("constants", {})), properties,
            builder.lines.line(parts),
        )  # fmt: skip
    return out


def _field(builder, models: dict, raw: dict, parts) -> ModelField:
    name = raw["name"]
    found = spec_names.problem("field", name)
    if found:
        raise builder.error(parts + ("name",), found)
    type_ = raw["type"]
    if type_ not in SCALAR_TYPES and type_ not in models:
        known = ", ".join([*SCALAR_TYPES, *models])
        raise builder.error(parts + ("type",), f"unknown type {type_!r} ({known})")
    annotation = SCALAR_TYPES.get(type_, type_)
    if raw.get("repeat"):
        annotation = f"list[{annotation}]"
    optional = raw.get("optional", False)
    if optional and "default" in raw:
        raise builder.error(parts + ("default",), "an optional field's default is None")
    if optional and not annotation.endswith("| None"):
        annotation += " | None"
    default = None if optional else raw.get("default", dataclasses.MISSING)
    return ModelField(name, annotation, default, raw.get("doc", ""))
