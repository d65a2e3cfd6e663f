"""A switch on an enclosing record's field (``switch_on: _parent.header.linktype``).

A pcap packet's data is read by the file header's link type: a field of the record that
holds the packets, read before them. ``_parent`` is the record holding this one (for an
element of a list: the record with the list), as in expressions; ``_parent._parent`` the
one holding that. The path is resolved at load in every record that holds this one: each
must have the fields it names, read before the field that holds this record, ending in an
integer field with an enum (its own, or the switch's ``enum:``), the same enum in all.

Where the selector is not at hand (a JSON form read back, a Spark row made of one
record's model) the case is told by the value itself, so the cases with a payload must
differ in kind: at most one record, one bytes, one text, one integer ... (``shape``).
"""

from __future__ import annotations

from runtime.core.errors import did_you_mean


def _holders(records: dict, name: str) -> list[tuple[str, int]]:
    """(record, index of the field) of every field that holds record ``name``."""
    out = []
    for holder, body in records.items():
        for i, raw in enumerate(body.get("fields", [])):
            cases = raw.get("cases", {}).values()
            if (
                raw.get("type") == name
                or name in raw.get("choice", [])
                or any(c == name or (isinstance(c, dict) and c.get("type") == name) for c in cases)
            ):
                out.append((holder, i))
    return out


def enclosing_enum(builder, parts: tuple, on: str, raw_switch: dict) -> str:
    """The enum that names the cases of ``switch_on: on`` (``_parent.``...) in the record
    of ``parts``, checked in every record that holds it (a :class:`SpecError` naming the
    ``switch_on:`` line otherwise)."""
    records = builder.data["records"]
    steps = on.split(".")
    ups = 0
    while ups < len(steps) and steps[ups] == "_parent":
        ups += 1
    names = steps[ups:]
    where = parts + ("switch_on",)
    if not names or any(not n or n.startswith("_") for n in names):
        raise builder.error(where, f"{on!r}: after _parent, name fields (_parent.header.linktype)")
    level = [(parts[1], None)]
    for _ in range(ups):
        held = " or ".join(sorted({name for name, _ in level}))
        level = [h for name, _ in level for h in _holders(records, name)]
        if not level:
            raise builder.error(where, f"{on!r}: no record holds {held}, so it has no _parent")
    found = set()
    for holder, index in level:
        fields = records[holder]["fields"][:index]
        record = holder
        for depth, name in enumerate(names):
            match = next((f for f in fields if f.get("name") == name), None)
            if match is None:
                rest = records[holder]["fields"][index:] if depth == 0 else []
                later = any(f.get("name") == name for f in rest)
                later = " (it is read after the field holding this record)" if later else ""
                known = [f.get("name") for f in fields]
                raise builder.error(
                    where,
                    f"{on!r}: {record} has no field {name!r} read before it{later}"
                    + did_you_mean(name, known),
                )
            if depth < len(names) - 1:
                if match.get("type") not in records or match.get("repeat"):
                    raise builder.error(
                        where, f"{on!r}: {record}.{name} is not a record to step into"
                    )
                record = match["type"]
                fields = records[record]["fields"]
        enum = match.get("enum") or raw_switch.get("enum")
        if enum and enum not in builder.enums and match.get("enum"):  # its own line says so
            at = ("records", record, "fields", fields.index(match), "enum")
            raise builder.error(at, f"unknown enum {enum!r}" + did_you_mean(enum, builder.enums))
        if "derived" in match or not enum or "switch_on" in match:
            raise builder.error(
                where,
                f"{on!r} is not an integer field with an enum read from the wire: a switch is "
                "on one (give it enum: NAME, or the switch enum: NAME)",
            )
        found.add(enum)
    if len(found) > 1:
        raise builder.error(where, f"{on!r} has a different enum in each record holding this one")
    enum = found.pop()
    if enum not in builder.enums:
        raise builder.error(where, f"{on!r}: unknown enum {enum!r}")
    return enum


def shape(ref) -> str:
    """How a value of a switch case looks on its own (in a model and its JSON form)."""
    if ref.kind in ("record", "bytes", "str", "empty"):
        return ref.kind
    if ref.kind == "bits" or (ref.kind == "prim" and ref.name != "bool" and ref.enum is None):
        from generator.spec.types import PRIMITIVES

        return PRIMITIVES[ref.name].kind if ref.kind == "prim" else "int"
    return ""


def check_cases(builder, parts: tuple, cases: dict) -> None:
    """The payload cases of a switch on an enclosing field differ in kind (module docstring)."""
    seen: dict[str, str] = {}
    for case, ref in cases.items():
        kind = shape(ref)
        if kind == "empty":
            continue
        if not kind or kind in seen:
            article = "an" if kind[:1] in "aeiou" else "a"
            why = f"{seen[kind]!r} is {article} {kind} too" if kind in seen else "its kind"
            raise builder.error(
                parts + ("cases", case),
                f"{case!r}: a switch on an enclosing record's field tells its cases apart by "
                f"their values where the selector is not at hand (JSON, Spark rows): {why}; "
                "give each case a different kind (one record, one bytes, ...)",
            )
        seen[kind] = case
