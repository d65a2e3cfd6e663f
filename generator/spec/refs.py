"""``ref:`` and ``interned:``: fields whose integers are ids into a dictionary of names read
elsewhere in the message, checked once every record of the spec is built (a ``ref:`` may
name a field of an enclosing record, so it needs them all).

A Craft header names its schema by a term id into the frame's term dictionary::

    header:
      fields:
        - {name: schema, type: delta_varint_chunk, count: ...,
           ref: {to: _parent.term_dictionary, null: -1, empty: refused}}
    frame:
      trailer:
        - {name: term_dictionary, type: term_dictionary, size: ...,
           interned: [header.schema, header.table, "bodies[*].column_groups[*].names"]}

The wire keeps the ids (``parse(data, "frame")`` shows them); what the ids mean (range,
``null``, the empty name refused, the names shown by ``inspect``, the order a writer
interns names in) is :class:`runtime.core.refs.Dictionary`'s, which the generated module
configures from these fields.
"""

from __future__ import annotations

import re

from generator.spec.model import Field, Record, Ref
from generator.spec.types import CHUNK_TYPES, PRIMITIVES

_TO = re.compile(r"((?:_parent\.)*)([a-z_][a-z0-9_]*)")
_STEP = re.compile(r"([a-z_][a-z0-9_]*)(\[\*\])?")


def is_dictionary(field: Field) -> bool:
    """Whether ``field`` holds a list of names: a term dictionary or a string chunk."""
    ref = field.type
    return (ref.kind == "region" and ref.name == "term_dictionary") or (
        ref.kind == "chunk" and CHUNK_TYPES[ref.name].element == "str"
    )


def holds_ids(field: Field) -> bool:
    """Whether ``field`` holds integers a ``ref:`` can name entries with."""
    ref = field.type
    if ref.kind == "chunk":
        return CHUNK_TYPES[ref.name].element == "int"
    return ref.kind == "prim" and PRIMITIVES[ref.name].kind == "int"


def _parents(records: dict[str, Record]) -> dict[str, set[str]]:
    """record -> the records that hold it in a field (directly, or as a switch case)."""
    out: dict[str, set[str]] = {name: set() for name in records}
    for record in records.values():
        for field in record.fields:
            refs = [field.type, *field.type.cases.values()]
            for ref in refs:
                if ref.kind == "record" and ref.name in out:
                    out[ref.name].add(record.name)
    return out


def check_refs(builder, records: dict[str, Record]) -> None:
    """Reads every ``ref:`` and ``interned:`` of the spec's records into their fields
    (``builder``: the :class:`generator.spec.validate.SpecBuilder`, for raw data and
    ``file:line`` errors)."""
    parents = _parents(records)
    targets: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for record in records.values():
        for field in record.fields:
            parts = builder.field_parts(record.name, field)
            raw = _raw(builder, parts)
            if "ref" in raw:
                field.ref = _ref(builder, records, parents, record, field, raw["ref"], parts)
                key = (field.ref.record, field.ref.dictionary)
                targets.setdefault(key, []).append((record.name, field.name))
    for record in records.values():
        for field in record.fields:
            parts = builder.field_parts(record.name, field)
            raw = _raw(builder, parts)
            named = targets.get((record.name, field.name), [])
            if "interned" in raw:
                field.interned = _interned(builder, records, record, field, raw["interned"], parts)
            elif named:
                where = ".".join(named[0])
                raise builder.error(
                    parts, f"{field.name} is named by ref: fields ({where}): it needs interned:"
                )


def _raw(builder, parts) -> dict:
    raw = builder.data
    for part in parts:
        raw = raw[part]
    return raw


def _ref(builder, records, parents, record, field, raw: dict, parts) -> Ref:
    parts = parts + ("ref",)
    if not holds_ids(field):
        raise builder.error(parts, "a ref: field holds integer ids (an integer or an int chunk)")
    match = _TO.fullmatch(raw["to"])
    if match is None:
        raise builder.error(
            parts + ("to",), "ref: to is _parent. once per enclosing record, then a field name"
        )
    holders = {record.name}
    for _ in range(match.group(1).count("_parent")):
        holders = set().union(*(parents[name] for name in holders))
        if not holders:
            raise builder.error(parts + ("to",), f"{raw['to']!r}: no record encloses that far")
    if len(holders) != 1:
        found = ", ".join(sorted(holders))
        raise builder.error(parts + ("to",), f"{raw['to']!r} is in more than one record: {found}")
    (holder,) = holders
    target = next((f for f in records[holder].fields if f.name == match.group(2)), None)
    if target is None or not is_dictionary(target):
        raise builder.error(
            parts + ("to",),
            f"{raw['to']!r}: record {holder} has no dictionary {match.group(2)!r}"
            " (a term_dictionary or a string_chunk)",
        )
    empty_refused = raw.get("empty", "allowed") == "refused"
    if empty_refused and "null" not in raw:
        raise builder.error(parts + ("empty",), "empty: refused writes the empty name as null:")
    return Ref(raw["to"], holder, target.name, raw.get("null"), empty_refused)


def _interned(builder, records, record, field, paths: list, parts) -> tuple[str, ...]:
    """The ``interned:`` paths of dictionary ``field`` of ``record``: each reaches a
    ``ref:`` field naming it, and together they reach all of them."""
    parts = parts + ("interned",)
    if not is_dictionary(field):
        raise builder.error(
            parts, "interned: is on a dictionary (a term_dictionary or a string_chunk)"
        )
    reached = set()
    for i, path in enumerate(paths):
        try:
            end = walk(records, record, path)
        except ValueError as err:
            raise builder.error(parts + (i,), str(err)) from None
        if end.ref is None or (end.ref.record, end.ref.dictionary) != (record.name, field.name):
            raise builder.error(parts + (i,), f"{path!r} is not a ref: to {field.name}")
        reached.add(id(end))
    key = (record.name, field.name)
    for other in records.values():
        for f in other.fields:
            if (
                f.ref is not None
                and (f.ref.record, f.ref.dictionary) == key
                and id(f) not in reached
            ):
                raise builder.error(
                    parts, f"{other.name}.{f.name} refs {field.name}: interned: misses it"
                )
    return tuple(paths)


def walk(records: dict[str, Record], record: Record, path: str) -> Field:
    """The field ``path`` reaches from ``record`` (``[*]`` steps into a repeat's elements);
    ValueError says why a path reaches none."""
    steps = path.split(".")
    for n, step in enumerate(steps):
        match = _STEP.fullmatch(step)
        field = match and next((f for f in record.fields if f.name == match.group(1)), None)
        if not field:
            raise ValueError(f"{path!r}: record {record.name} has no field {step!r}")
        if n == len(steps) - 1:
            if match.group(2):
                raise ValueError(f"{path!r}: the last step takes no [*]")
            return field
        repeated = field.repeat is not None
        if repeated != bool(match.group(2)):
            what = "a repeat: write" if repeated else "not a repeat: drop"
            raise ValueError(f"{path!r}: {field.name} is {what} [*]")
        if field.type.kind != "record":
            raise ValueError(f"{path!r}: {field.name} is not a record")
        record = records[field.type.name]
    raise ValueError(f"{path!r} is empty")


def dictionaries(records: dict[str, Record]) -> list[tuple[Record, Field]]:
    """(record, dictionary field) of every dictionary with ``interned:``, in spec order."""
    return [(r, f) for r in records.values() for f in r.fields if f.interned]
