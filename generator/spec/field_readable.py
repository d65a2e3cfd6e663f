"""How a field reads in the JSON form: ``open:`` (an enum that only names values),
``logical:`` (a uuid, a four-character code, a WAL position, an integer time),
``display: hex`` and ``pad:``, each checked against the field's type.

:class:`ReadableFields` is a base of :class:`generator.spec.fields.FieldBuilder`, and uses
its builder's ``error``, ``endian`` and ``enums``.
"""

from __future__ import annotations

from generator.spec.model import SPARK_TIMES, Field
from generator.spec.types import CHUNK_TYPES, PRIMITIVES
from runtime.core.errors import did_you_mean

_U64 = ("u64", "u64le", "u64be")
"""What ``logical: pg_lsn`` goes on: a WAL position is an unsigned 64-bit number."""


class ReadableFields:
    """A field's ``open:``, ``logical:``, ``display:`` and ``pad:`` (see the module docstring)."""

    def readable(self, field: Field, raw: dict, parts) -> None:
        """``open:``, ``logical:`` and ``pad:``: how a field reads in the JSON form."""
        ref = field.type
        is_int = (ref.kind == "prim" and PRIMITIVES[ref.name].kind == "int") or (
            ref.kind == "chunk" and CHUNK_TYPES[ref.name].element == "int"
        )
        is_int = is_int or ref.kind == "bits"
        if raw.get("open"):
            if "enum" not in raw or "switch_on" in raw:
                raise self.error(parts + ("open",), "open: true goes with enum: on an integer")
            if raw["enum"] not in self.enums:
                hint = did_you_mean(raw["enum"], self.enums)
                raise self.error(parts + ("enum",), f"unknown enum {raw['enum']!r}{hint}")
            if not is_int:
                raise self.error(parts + ("enum",), "only integers can be enums")
            field.open_enum = raw["enum"]
        logical = raw.get("logical", "")
        if logical == "uuid":
            sixteen_ints = is_int and ref.kind == "prim" and field.repeat == {"count": 16}
            if not (sixteen_ints or (ref.kind == "bytes" and ref.size == 16)):
                raise self.error(
                    parts + ("logical",),
                    "logical: uuid is 16 bytes (bytes of size 16, or repeat: {count: 16} integers)",
                )
        elif logical == "fourcc":
            self.fourcc(field, raw, parts)
        elif logical == "pg_lsn" and (
            ref.kind != "prim" or ref.name not in _U64 or field.repeat is not None or "enum" in raw
        ):
            raise self.error(
                parts + ("logical",), "logical: pg_lsn is one u64, no enum (a WAL position)"
            )
        elif logical and not is_int:
            raise self.error(parts + ("logical",), f"logical: {logical} is an integer time")
        field.logical = logical
        if not field.spark_type and field.repeat is None:  # a time: a timestamp column too
            field.spark_type = SPARK_TIMES.get(logical, "")
        if raw.get("display"):
            if not is_int or ref.kind != "prim" or raw.get("enum") or logical:
                raise self.error(
                    parts + ("display",),
                    "display: hex goes with a plain integer (no enum: or logical:, which "
                    "already say how it reads)",
                )
            field.display = raw["display"]
        if raw.get("pad"):
            if ref.kind != "str" or not isinstance(ref.size, int) or ref.size_is_prefix:
                raise self.error(parts + ("pad",), "pad: goes with a str of a fixed size: N")
            ref.pad = {"nul": b"\0"}[raw["pad"]]

    def fourcc(self, field: Field, raw: dict, parts) -> None:
        """``logical: fourcc``: a big-endian u32 whose bytes are four letters (a PNG chunk
        type, a RIFF chunk id), one value a field (a switch may select on it); its codes an
        open enum names, or none (a strict enum leaves no code to show as text)."""
        ref = field.type
        big = ref.name == "u32be" or (ref.name == "u32" and self.endian == "be")
        if ref.kind != "prim" or not big or field.repeat is not None:
            raise self.error(
                parts + ("logical",),
                "logical: fourcc is one u32be (its four bytes the letters, as const: "
                "0x52494646 is RIFF)",
            )
        if raw.get("enum") and not field.open_enum:
            raise self.error(
                parts + ("logical",),
                "logical: fourcc shows the codes an enum leaves unnamed: give it open: true",
            )
        if field.open_enum and self.enums[field.open_enum].flags:
            raise self.error(parts + ("enum",), "a fourcc's enum names codes, not flags")
