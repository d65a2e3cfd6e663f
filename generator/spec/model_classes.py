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

What values a field holds, which the strategies of the formats that make the class draw
from (:mod:`generator.emit.strategies`, each narrowed by the format's own field type):
``range: [LO, HI]`` for an ``int`` field (an end is an integer or an integer type, LO its
least value and HI its largest: ``[0, s64]``; one type is its whole range: ``u64``),
``enum: NAME`` an enum of the spec (a ``flags:`` enum: any set of its members), and
``nonempty: true`` for an optional field that is never the empty value (0, ``""``, an
empty list): the formats write it as they write None.

How the JSON form of a format that makes the class shows a field (``json:``, rendered into
that format's module by :mod:`generator.emit.event_json`): ``json: {names: ENUM}`` an
``int`` field by the name of its member in ENUM, an enum of the importing format (each
format's own: Craft's ``column_type`` lists DECIMAL, Open Protocol's does not; a flags enum:
the list of the names; a code it does not list stays a number), and ``json: {text_unless:
FIELD.MEMBER}`` a ``bytes`` or ``value`` field's bytes as their text when they are UTF-8 and
FIELD (an ``int`` field of the class with a flags ``enum:``) lacks flag MEMBER, else
``{"$hex"}`` (``runtime.core.codec.text_or_hex``). Other fields show as they are (an int
past 2**53 as a string); a ``value`` field's other values as the codec's kinds say.

    >>> from pathlib import Path
    >>> from generator.spec.loader import load
    >>> from generator.spec.validate import build_model
    >>> spec = build_model(load(Path("specs/ticdc_types.yaml"), "specs/ticdc_types.yaml"))
    >>> spec.models["Column"].field_names
    ('name', 'type', 'flags', 'value')
    >>> spec.models["RowChangedEvent"].fields[4].annotation
    'list[Column] | None'
    >>> spec.models["RowChangedEvent"].fields[3].range == (0, 2**63 - 1)
    True
    >>> [(f.json_names, f.json_text_unless) for f in spec.models["Column"].fields[1:]]
    [('column_type', None), ('column_flag', None), ('', ('flags', 1))]
"""

from __future__ import annotations

import dataclasses
import keyword

from generator.spec import names as spec_names
from generator.spec.expressions import translate
from generator.spec.model import int_range
from generator.spec.types import PRIMITIVES

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
    range: tuple[int, int] | None = None
    """``range:``: the least and the largest value of an ``int`` field (None: any)."""
    members: tuple[int, ...] = ()
    """``enum:``: the values of its members (an ``int`` field holds one of them)."""
    flags: bool = False
    """``enum:`` names a ``flags:`` enum: the field holds any set of ``members``."""
    nonempty: bool = False
    """``nonempty:``: never 0, ``""`` or an empty list (an optional field: None instead)."""
    enum: str = ""
    json_names: str = ""
    """``json: {names: ENUM}``: the importing format's enum whose member names show it."""
    json_text_unless: tuple[str, int] | None = None
    """``json: {text_unless: FIELD.MEMBER}``: the flag field and the bit that make bytes hex."""

    @property
    def holds(self) -> str:
        """What ``range:``, ``enum:`` and ``nonempty:`` say, as the docs show it.

        >>> ModelField("partition", "int | None", None, range=(0, 2**63 - 1), nonempty=True).holds
        '0 .. 2**63-1, not empty'
        """
        said = [" .. ".join(map(_bound, self.range))] if self.range else []
        if self.enum:
            said.append(f"{'a set of' if self.flags else 'one of'} `{self.enum}`")
        return ", ".join(said + (["not empty"] if self.nonempty else []))

    @property
    def shown(self) -> str:
        """What ``json:`` says, as the docs show it.

        >>> ModelField("value", "bytes", b"", json_text_unless=("flags", 1)).shown
        'text unless `flags` & 0x1, else `{"$hex"}`'
        """
        if self.json_names:
            return f"the name in the format's `{self.json_names}`"
        if self.json_text_unless:
            flag, bit = self.json_text_unless
            return f'text unless `{flag}` & {bit:#x}, else `{{"$hex"}}`'
        return ""


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
        fields = tuple(
            _field(builder, raw, f, parts + ("fields", i)) for i, f in enumerate(body["fields"])
        )
        seen, optional_seen = set(), False
        for i, f in enumerate(fields):
            where = parts + ("fields", i)
            if f.json_text_unless:
                fields = _text_unless(builder, fields, i, where + ("json", "text_unless"))
            if f.name in seen:
                raise builder.error(where, f"{name} has two fields named {f.name!r}")
            seen.add(f.name)
            if f.default is dataclasses.MISSING and optional_seen:
                raise builder.error(
                    where, f"{f.name!r} has no default but follows a field with one"
                )
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
    if raw.get("nonempty") and not optional:
        raise builder.error(parts + ("nonempty",), "only an optional field can be nonempty")
    if ("range" in raw or "enum" in raw) and (type_ != "int" or raw.get("repeat")):
        key = "range" if "range" in raw else "enum"
        raise builder.error(parts + (key,), f"{key}: is for an int field, not {annotation}")
    members, flags = (), False
    if "enum" in raw:
        enum = builder.enums.get(raw["enum"])
        if enum is None:
            known = ", ".join(builder.enums) or "none"
            raise builder.error(
                parts + ("enum",), f"no enum {raw['enum']!r} in this spec ({known})"
            )
        members, flags = tuple(v.value for v in enum.values), enum.flags
    bounds = _range(builder, raw["range"], parts + ("range",)) if "range" in raw else None
    json_names, text_unless = _json(builder, raw.get("json"), type_, raw, parts + ("json",))
    return ModelField(
        name, annotation, default, raw.get("doc", ""), bounds, members, flags,
        bool(raw.get("nonempty")), raw.get("enum", ""), json_names, text_unless,
    )  # fmt: skip


def _json(builder, raw, type_: str, field: dict, parts) -> tuple[str, tuple | None]:
    """``json:`` of a field: (``names:``'s enum, ``text_unless:`` as (FIELD, 0) until
    :func:`_text_unless` finds the member's bit)."""
    if raw is None:
        return "", None
    if len(raw) != 1:
        raise builder.error(parts, "json: is one of names: or text_unless:")
    if "names" in raw:
        if type_ != "int" or field.get("repeat"):
            raise builder.error(parts + ("names",), "names: is for an int field")
        found = spec_names.problem("enum", raw["names"])
        if found:
            raise builder.error(parts + ("names",), found)
        return raw["names"], None
    if type_ not in ("bytes", "value") or field.get("repeat"):
        raise builder.error(parts + ("text_unless",), "text_unless: is for a bytes or value field")
    flag_field, dot, member = raw["text_unless"].partition(".")
    if not dot:
        raise builder.error(parts + ("text_unless",), "text_unless: is FIELD.MEMBER (flags.BINARY)")
    return "", (flag_field, member)


def _text_unless(builder, fields: tuple, i: int, parts) -> tuple:
    """``fields`` with field ``i``'s ``text_unless:`` as (FIELD, the bit of MEMBER), FIELD an
    int field of the class whose flags ``enum:`` has MEMBER."""
    name, member = fields[i].json_text_unless
    flag = next((f for f in fields if f.name == name), None)
    if flag is None or not flag.flags:
        raise builder.error(parts, f"{name!r} is no field of this class with a flags enum:")
    bit = next((v.value for v in builder.enums[flag.enum].values if v.name == member), None)
    if bit is None:
        raise builder.error(parts, f"{flag.enum} has no member {member!r}")
    said = dataclasses.replace(fields[i], json_text_unless=(name, bit))
    return fields[:i] + (said,) + fields[i + 1 :]


def _bound(n: int) -> str:
    """An end of a range, a type's end as a power of two (``2**63-1``, ``-2**63``)."""
    for bits in (16, 32, 63, 64):
        if n in (2**bits - 1, -(2**bits)):
            return f"{'-' if n < 0 else ''}2**{bits}{'-1' if n > 0 else ''}"
    return str(n)


def _range(builder, raw, parts) -> tuple[int, int]:
    """``range:``: an integer type (its whole range) or ``[LO, HI]``, each an integer or an
    integer type (LO: its least value, HI: its largest)."""
    ends = [raw, raw] if isinstance(raw, str) else raw
    out = []
    for i, end in enumerate(ends):
        if isinstance(end, str):
            prim = PRIMITIVES.get(end)
            if prim is None or prim.kind != "int":
                raise builder.error(parts, f"{end!r} is not an integer type (u8 .. u64, s8 .. s64)")
            end = int_range(prim.bits or 8 * prim.size, prim.signed)[i]
        out.append(end)
    if out[0] > out[1]:
        raise builder.error(parts, f"an empty range: {out[0]} > {out[1]}")
    return out[0], out[1]
