"""A file record's ``framed:``: how it is read record by record in bounded memory.

A framed file is an optional magic (a leading ``const:`` fixed-width integer), then the
records every later one needs (read in full before any of them: a binlog file's format
description), then a ``repeat: eos`` of records, each framed by the ``size:`` field of its
header: the fixed-size fields it starts with. The size counts the whole record (``counts:
record``) or the bytes after the header (``counts: body``); every leading record carries
the same size field at the same offset. :func:`framed_file` checks a file record against
that shape and makes its :class:`FramedFile`, the table the Spark data source reads a file
by (rendered as the generated module's ``FRAMED_FILES``); a record the table cannot
describe is refused, naming the spec line.
"""

from __future__ import annotations

import dataclasses

from generator.spec.model import Field, Record
from generator.spec.types import PRIMITIVES

_STRUCT_CODES = {1: "B", 2: "H", 4: "I", 8: "Q"}


@dataclasses.dataclass(frozen=True)
class FramedFile:
    """What a reader needs to frame a file record's records without parsing them."""

    magic: bytes
    """The bytes every file starts with (empty: none)."""
    leading: tuple[tuple[str, str], ...]
    """``(field, record)`` of each record read before the repeated ones, which need it."""
    field: str
    """The repeated field."""
    each: str
    """One framed record, as errors and field paths name it (the spec's ``name:``)."""
    header: int
    """Bytes of the fixed-size header each record starts with."""
    size: str
    """The header field whose value frames the record ..."""
    size_at: int
    """... at this offset in the header ..."""
    size_format: str
    """... read with this ``struct`` format ..."""
    counts_header: bool
    """... counting the header (True) or only the bytes after it."""


def _fixed(field: Field) -> int | None:
    """The byte size of a field that always has one (a fixed-width primitive, there
    unconditionally), else None."""
    ref = field.type
    if field.condition or field.repeat is not None or field.trailer or field.derived:
        return None
    if ref.kind == "prim":
        return PRIMITIVES[ref.name].size
    if ref.kind in ("str", "bytes") and isinstance(ref.size, int) and not ref.size_is_prefix:
        return ref.size
    return None


def _size_field(record: Record, name: str, endian: str) -> tuple[int, str] | None:
    """``(offset, struct format)`` of unsigned integer field ``name`` when only fixed-size
    fields come before it, else None."""
    if record.tag is not None or record.layout != "sequence":
        return None  # a tag byte before the fields, or fields in any order: no fixed offset
    offset = 0
    for field in record.front:
        size = _fixed(field)
        if size is None:
            return None
        if field.name == name:
            prim = PRIMITIVES.get(field.type.name) if field.type.kind == "prim" else None
            if prim is None or prim.kind != "int" or prim.signed or size not in _STRUCT_CODES:
                return None
            order = "<" if prim.construct(endian).endswith("l") else ">"
            return offset, order + _STRUCT_CODES[size]
        offset += size
    return None


def _header(record: Record) -> int:
    """Bytes of the fixed-size fields a record starts with."""
    total = 0
    for field in record.front:
        size = _fixed(field)
        if size is None:
            break
        total += size
    return total


def _magic(field: Field, endian: str) -> bytes | None:
    """The bytes of a leading ``const:`` fixed-width integer, else None."""
    prim = PRIMITIVES.get(field.type.name) if field.type.kind == "prim" else None
    if field.const is None or _fixed(field) is None or prim is None or prim.kind != "int":
        return None
    order = "little" if prim.construct(endian).endswith("l") else "big"
    return (field.const % (1 << (8 * prim.size))).to_bytes(prim.size, order)


def framed_file(builder, record: Record, raw: dict, records: dict, where: tuple) -> FramedFile:
    """The :class:`FramedFile` of ``record`` (its ``framed:`` is ``raw``); ``builder``
    makes the spec errors (``builder.error(parts, message)``, ``builder.field_parts``)."""
    fields, magic = list(record.fields), b""
    if record.layout != "sequence" or record.trailer or not fields:
        raise builder.error(where, "a framed file is a sequence of fields, without a trailer")
    if fields[0].const is not None:
        magic = _magic(fields[0], builder.endian)
        if magic is None:
            raise builder.error(
                builder.field_parts(record.name, fields[0]),
                "a framed file's magic is a const: fixed-width integer",
            )
        fields = fields[1:]
    last = fields[-1] if fields else None
    if last is None or last.repeat != "eos" or last.type.kind != "record" or last.condition:
        raise builder.error(where, "a framed file ends with a repeat: eos of records")
    element = records[last.type.name]
    found = _size_field(element, raw["size"], builder.endian)
    if found is None:
        raise builder.error(
            where + ("size",),
            f"{raw['size']!r} is no unsigned fixed-width integer field of {element.name} "
            "after only fixed-size fields",
        )
    for field in fields[:-1]:
        leading = records.get(field.type.name) if field.type.kind == "record" else None
        if (
            leading is None
            or field.condition
            or field.repeat is not None
            or _size_field(leading, raw["size"], builder.endian) != found
        ):
            raise builder.error(
                builder.field_parts(record.name, field),
                f"a framed file's {field.name!r} is a record with {element.name}'s "
                f"{raw['size']} at offset {found[0]}, or the repeated field",
            )
    return FramedFile(
        magic=magic,
        leading=tuple((f.name, f.type.name) for f in fields[:-1]),
        field=last.name,
        each=raw["name"],
        header=_header(element),
        size=raw["size"],
        size_at=found[0],
        size_format=found[1],
        counts_header=raw["counts"] == "record",
    )
