"""A field's ``switch_on:``: its selector (an earlier integer field with an enum, the
switch's own ``enum:``, or an enclosing record's field), its cases by enum member and its
``default``, and why a ``switch_on:`` names no selector, in plain words.

:class:`SwitchFields` is a base of :class:`generator.spec.fields.FieldBuilder`, and uses
its builder's ``error``, ``data``, ``enums``, ``typeref`` and ``expression``.
"""

from __future__ import annotations

from generator.spec.enclosing import check_cases, enclosing_enum
from generator.spec.model import TypeRef
from generator.spec.types import PRIMITIVES
from runtime.core.errors import did_you_mean


class SwitchFields:
    """The ``switch_on:`` fields of a record (see the module docstring)."""

    @staticmethod
    def no_selector(on, selector, siblings, later=()) -> str:
        """Why ``switch_on: on`` names no selector: no such earlier field (or one ``later``
        in the record), a field of another kind (text cannot select: a four-letter code is
        an integer with an enum), or an integer with no enum (the field's own or the
        switch's ``enum:``)."""
        if selector is None and "." in on:
            return (
                f"{on!r} is not a field of this record: a switch is on an earlier field of "
                "its own record, or on an enclosing record's (_parent.header.linktype)"
            )
        if selector is not None and selector.derived:
            return (
                f"{on!r} is a derived value: a switch is on a field read from the wire "
                "(building, derived values are not computed, so no case could be chosen)"
            )
        if selector is None and on in later:
            return f"{on!r} is read after the switch: move it in front (a switch is on an earlier field)"
        if selector is None:
            earlier = [f.name for f in siblings]
            return f"{on!r} is not an earlier field" + did_you_mean(on, earlier)
        kind = selector.type.kind
        is_int = kind == "bits" or (kind == "prim" and PRIMITIVES[selector.type.name].kind == "int")
        if not is_int:
            what = selector.type.name if kind == "prim" else kind
            code = " (four ASCII letters: a u32be with enum:)" if kind in ("str", "bytes") else ""
            return (
                f"{on!r} is a {what} field: a switch is on an earlier integer field with an "
                f"enum{code}"
            )
        return (
            f"{on!r} has no enum: give the field enum: NAME, or the switch enum: NAME "
            "(its members name the cases)"
        )

    def switch(self, raw: dict, parts, siblings) -> TypeRef:
        # The selector is an earlier enum field, or an integer field whose case names come
        # from the switch's own `enum:`; a `default` case takes every other value.
        on = raw["switch_on"]
        selector = next((f for f in siblings if f.name == on), None)
        enum_name = selector.type.enum if selector is not None else None
        if selector is not None and enum_name is None and selector.type.kind in ("prim", "bits"):
            # an open enum's field is a plain integer; its enum names the cases all the same
            enum_name = raw.get("enum") or selector.open_enum
        if on.startswith("_parent.") and parts[:1] == ("records",):
            enum_name = enclosing_enum(self, parts, on, raw)  # generator/spec/enclosing.py
        elif enum_name is None or enum_name not in self.enums or selector.derived:
            if raw.get("enum") is not None and raw["enum"] not in self.enums:
                hint = did_you_mean(raw["enum"], self.enums)
                raise self.error(parts + ("enum",), f"unknown enum {raw['enum']!r}{hint}")
            later = []
            if parts[:1] == ("records",) and parts[2:3] == ("fields",):
                later = [f.get("name") for f in self.data["records"][parts[1]]["fields"]]
            why = self.no_selector(on, selector, siblings, later)
            raise self.error(parts + ("switch_on",), why)
        enum = self.enums[enum_name]
        members = {v.name for v in enum.values}
        cases = {}
        for case, case_raw in raw.get("cases", {}).items():
            if case not in members and case != "default":
                same = sorted(m for m in members if str(case).lower() == m.lower())
                hint = did_you_mean(same[0] if same else case, sorted(members | {"default"}))
                raise self.error(
                    parts + ("cases", case),
                    f"{case!r} is not a member of {enum.name}{hint}: add it to the enum's "
                    "values: or name the case by a member (default: takes every other value)",
                )
            cases[case] = self.typeref(case_raw, parts + ("cases", case), siblings)
        missing = members - set(cases)
        if missing and "default" not in cases:
            raise self.error(
                parts + ("cases",),
                f"no case for {sorted(missing)}: every member of {enum.name} needs a case "
                "(`MEMBER: empty` for no payload), or add a default: case",
            )
        if on.startswith("_parent."):
            check_cases(self, parts, cases)
        ref = TypeRef("switch", switch_on=on, cases=cases, enum=enum_name)
        if "size" in raw:
            size = raw["size"]
            ref.size = (
                size
                if isinstance(size, int)
                else self.expression(size, parts + ("size",), siblings)
            )
        return ref
