"""Bit fields (``b<n>``, ``b<n>le``): consecutive ones make a run that fills whole bytes,
and each gets its place in it (the run's bytes, its shift, first and last), checked
against what a bit field may say (no tag, repeat or size; a ``const:`` or enum that fits
its width; one bit order inside a byte).

:class:`BitFields` is a base of :class:`generator.spec.fields.FieldBuilder`, and uses its
builder's ``error`` and ``enums``.
"""

from __future__ import annotations

from generator.spec.model import Field, bit_field_range


class BitFields:
    """The runs of a record's bit fields (see the module docstring)."""

    def bit_groups(self, fields: list[Field], raws: list[dict], where) -> None:
        """Consecutive bit fields make a run that fills whole bytes; give each its place."""
        run: list[int] = []  # indices of the run being read

        def close(end: int) -> None:
            width = sum(fields[i].type.bits for i in run)
            if width % 8:
                raise self.error(
                    where + ("fields", run[-1], "type"),
                    f"bit fields {', '.join(fields[i].name for i in run)} make {width} bits: "
                    "a run of bit fields fills whole bytes",
                )
            little = fields[run[0]].type.bit_order == "little"
            shift = 0 if little else width
            for i in run:
                if not little:
                    shift -= fields[i].type.bits
                fields[i].bit_group = (width // 8, shift, i == run[0], i == run[-1])
                if little:
                    shift += fields[i].type.bits
            run.clear()

        for i, (field, raw) in enumerate(zip(fields, raws)):
            if field.type.kind != "bits":
                if run:
                    close(i)
                continue
            parts = where + ("fields", i)
            refused = [
                k for k in ("tag", "repeat", "size", "if", "checksum", "optional") if k in raw
            ]
            if refused:
                raise self.error(parts + (refused[0],), f"a bit field takes no {refused[0]!r}")
            low, high = bit_field_range(field.type)
            if field.const is not None and not low <= field.const <= high:
                raise self.error(
                    parts + ("const",), f"{field.const} does not fit {field.type.name}"
                )
            enum = self.enums.get(field.type.enum or field.open_enum)
            wide = [v for v in enum.values if not low <= v.value <= high] if enum else []
            if enum and enum.flags and not field.open_enum:
                raise self.error(
                    parts + ("enum",), "a flags enum on a bit field is open: true (any set)"
                )
            if wide:
                raise self.error(
                    parts + ("enum",),
                    f"{enum.name}.{wide[0].name} ({wide[0].value}) does not fit "
                    f"{field.type.name} ({low} to {high})",
                )
            if run and field.type.bit_order != fields[run[0]].type.bit_order:
                if sum(fields[j].type.bits for j in run) % 8:
                    raise self.error(
                        parts + ("type",),
                        f"bit fields {', '.join(fields[j].name for j in run)} and {field.name} "
                        "mix bit orders (b<n> and b<n>le) inside a byte",
                    )
                close(i)  # a new run, in the other bit order
            run.append(i)
        if run:
            close(len(fields))
