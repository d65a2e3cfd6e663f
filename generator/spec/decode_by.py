"""``decode_by:``: the elements of a bytes chunk are values whose wire type an enum
attribute's ``kinds:`` names, by the code at the same index of a sibling chunk; checked
once every record of the spec is built.

A Craft column group's values are decoded by the ``craft`` kind of each column's type code,
unsigned where the column has the UNSIGNED flag::

    column_group:
      fields:
        - {name: types, type: uvarint_chunk, count: count, enum: column_type, open: true}
        - {name: flags, type: uvarint_chunk, count: count, enum: column_flag, open: true}
        - name: values
          type: nullable_bytes_chunk
          count: count
          decode_by: {code: types, attribute: column_type.craft,
                      signed_unless: "flags[_index] & column_flag.UNSIGNED"}

The wire keeps the bytes (``parse(data, "frame")`` shows them); what they mean is
:class:`runtime.core.value_kinds.ValueKinds`'s, which the generated module configures from
this field (``VALUE_DECODERS["record.field"]``).
"""

from __future__ import annotations

import re

from generator.spec.model import DecodeBy, Field, Record
from generator.spec.types import CHUNK_TYPES

_SIGNED_UNLESS = re.compile(
    r"([a-z_][a-z0-9_]*)\[_index\] & ([a-z_][a-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)"
)


def _int_chunk(field: Field | None) -> bool:
    return (
        field is not None
        and field.type.kind == "chunk"
        and CHUNK_TYPES[field.type.name].element == "int"
    )


def check_decode_by(builder, records: dict[str, Record]) -> None:
    """Reads every ``decode_by:`` of the spec's records into their fields (``builder``:
    the :class:`generator.spec.validate.SpecBuilder`, for raw data and ``file:line`` errors)."""
    for record in records.values():
        for field in record.fields:
            parts = builder.field_parts(record.name, field)
            raw = builder.data
            for part in parts:
                raw = raw[part]
            if "decode_by" in raw:
                field.decode_by = _decode_by(builder, record, field, raw["decode_by"], parts)


def _decode_by(builder, record: Record, field: Field, raw: dict, parts) -> DecodeBy:
    parts = parts + ("decode_by",)
    if field.type.kind != "chunk" or CHUNK_TYPES[field.type.name].element != "bytes":
        raise builder.error(parts, "decode_by: is on a chunk of bytes (a nullable_bytes_chunk)")
    siblings = {f.name: f for f in record.fields}
    enum_name, _, attr_name = raw["attribute"].partition(".")
    enum = builder.enums.get(enum_name)
    attribute = enum and next((a for a in enum.attributes if a.name == attr_name), None)
    if not attribute or not attribute.kinds or not attribute.wire_kinds:
        raise builder.error(
            parts + ("attribute",),
            f"{raw['attribute']!r} is not ENUM.ATTRIBUTE with kinds: of wire types",
        )
    code = siblings.get(raw["code"])
    if not _int_chunk(code) or enum_name not in (code.type.enum, code.open_enum):
        raise builder.error(
            parts + ("code",),
            f"{raw['code']!r} is not a sibling chunk of integers with enum: {enum_name}",
        )
    unsigned_kinds = [k for k, (_, unsigned) in attribute.kinds.items() if unsigned]
    if "signed_unless" not in raw:
        if unsigned_kinds:
            raise builder.error(
                parts, f"kind {unsigned_kinds[0]!r} has unsigned: it needs signed_unless:"
            )
        return DecodeBy(code.name, enum_name, attr_name)
    text = raw["signed_unless"]
    match = _SIGNED_UNLESS.fullmatch(text)
    if match is None:
        raise builder.error(
            parts + ("signed_unless",), f"{text!r} is not SIBLING[_index] & ENUM.MEMBER"
        )
    flags_name, flag_enum, member = match.groups()
    flags = siblings.get(flags_name)
    if not _int_chunk(flags) or flags is code:
        raise builder.error(
            parts + ("signed_unless",), f"{flags_name!r} is not a sibling chunk of integers"
        )
    enum = builder.enums.get(flag_enum)
    value = enum and next((v.value for v in enum.values if v.name == member), None)
    if value is None:
        raise builder.error(
            parts + ("signed_unless",), f"{flag_enum}.{member} is not a member of this spec"
        )
    return DecodeBy(code.name, enum_name, attr_name, flags.name, value)


def decoders(records: dict[str, Record]) -> list[tuple[Record, Field]]:
    """(record, field) of every field with ``decode_by:``, in spec order."""
    return [(r, f) for r in records.values() for f in r.fields if f.decode_by is not None]
