"""Sizes written before what they measure, in one pass: reserve, write, patch.

A fixed-width integer field whose ``value:`` is ``sizeof(x) + c`` (``- c``, or no ``c``)
for the field ``x`` written right after it (BSON's document size before its elements, a
string's length before its text, PNG's chunk length before its data) is written by the
fast writers (and the compiled writers rendered from them) as ::

    f_size_at = len(out)
    out += b"\\x00\\x00\\x00\\x00"  # the size's bytes, filled in below
    ... x written, s_x its size ...
    f_size = s_x + 5
    out[f_size_at : f_size_at + 4] = _PACK_LE_S32(f_size)

instead of writing ``x`` once more just to measure it (``rt_fast.measured``: a document in
a document in ... was written once per enclosing level). The bytes are the same; a value
the size's type cannot hold, or one its ``valid:`` refuses, still raises (after ``x`` is
written rather than before, which is all the same to the caller: construct then builds).

``x``'s own size check (``size: "size - 5"``, construct's ``Sized``) is then true by
construction and not written; a record whose other expressions read the size while ``x``
is written (``x``'s condition, a child's ``_parent.size``) keeps the measuring writer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from generator.emit.pysource import LineWriter, valid_on_build
from generator.spec.model import Field, Record
from generator.spec.types import PRIMITIVES

_SIZEOF_PLUS = re.compile(r"rt\.sizeof\(this, '(\w+)'\)(?: ([+-]) (\d+))?")
"""A ``value:`` of ``sizeof(x)``, ``sizeof(x) + c`` or ``sizeof(x) - c`` (as lowered)."""


@dataclass(frozen=True)
class ReservedSize:
    """A size field written as a placeholder and patched once ``target`` is written."""

    field: Field
    target: str
    """The field it measures, the next one on the wire."""
    plus: int
    """What the value adds to the target's size (negative: subtracts)."""
    implied: re.Pattern
    """The target's ``size:`` this value makes true (construct's check, not written)."""


def _offset(sign: str | None, digits: str | None) -> int:
    return 0 if sign is None else int(digits) * (1 if sign == "+" else -1)


class ReservedSizes:
    """The reserve-and-patch writing of sizes (a mixin of ``fastbuild.BuildEmitter``)."""

    implied_size: ReservedSize | None = None
    """The reserved size whose target is being written: its size check is implied."""

    def reserved_sizes(self, record: Record, context: set[str]) -> dict[str, ReservedSize]:
        """The record's size fields written as a placeholder and patched: by their name
        and by their target's."""
        out: dict[str, ReservedSize] = {}
        names = [f.name for f in record.fields]
        for at, field in enumerate(record.fields):
            match = _SIZEOF_PLUS.fullmatch(field.value or "")
            if match is None or match.group(1) not in names[at + 1 :] or not _fixed_int(field):
                continue
            target = record.field(match.group(1))
            if field.name in context or field.name in record.checksummed:
                continue  # read while the target is written, or summed before it is
            if target.repeat is not None or target.condition or target.tag is not None:
                continue
            plus = _offset(match.group(2), match.group(3))
            reserved = ReservedSize(
                field, target.name, plus, re.compile(rf"this\.{field.name}(?: ([+-]) (\d+))?")
            )
            written = record.fields[at + 1 : names.index(target.name) + 1]
            if not any(self.reads_reserved(reserved, f) for f in written):
                out[field.name] = out[target.name] = reserved
        return out

    def reads_reserved(self, reserved: ReservedSize, field: Field) -> bool:
        """Whether writing ``field`` reads the reserved size (before it is known), the
        target's size check it makes true aside."""
        reads = [field.valid, *self.built_expressions(field)]
        reads += [ref.size for ref in field.type.cases.values()]
        if field.name == reserved.target:
            reads = [e for e in reads if not self.size_implied(e, reserved)]
        name = reserved.field.name
        return any(isinstance(e, str) and re.search(rf"\bthis\.{name}\b", e) for e in reads)

    def size_implied(self, size, reserved: ReservedSize | None = None) -> bool:
        """Whether ``size`` (a ``size:`` being written) is the one a reserved size (that of
        the field being written) makes true: ``size - c`` of ``sizeof(x) + c``."""
        reserved = reserved or self.implied_size
        if reserved is None or not isinstance(size, str):
            return False
        match = reserved.implied.fullmatch(size)
        return match is not None and _offset(match.group(1), match.group(2)) == -reserved.plus

    def reserve(self, w: LineWriter, field: Field) -> None:
        """The size's placeholder: zeros of its width, their offset kept."""
        width = PRIMITIVES[field.type.name].size
        w.line(f"f_{field.name}_at = len(out)  # the size, filled in once its target is written")
        w.line(f"out += {bytes(width)!r}")

    def fill_reserved(self, w: LineWriter, reserved: ReservedSize, scope) -> None:
        """The size, now its target is written: packed over the placeholder (a value the
        type cannot hold raises, as the packer does), then its ``valid:`` checked."""
        field, var = reserved.field, f"f_{reserved.field.name}"
        plus = f" + {reserved.plus}" if reserved.plus > 0 else f" - {-reserved.plus}"
        w.line(f"{var} = s_{reserved.target}{plus if reserved.plus else ''}")
        self.pack_over(w, field, f"{var}_at", var)
        scope.built.add(field.name)
        if field.valid and valid_on_build(scope.record, field):  # as rt.Valid: declined
            w.line(f"if not ({self.expression(field.valid, scope)}):")
            w.line('    raise ValueError("valid")')

    def pack_over(self, w: LineWriter, field: Field, at: str, var: str) -> None:
        """``var`` packed as ``field``'s type over the placeholder at ``at``."""
        width = PRIMITIVES[field.type.name].size
        w.line(f"out[{at} : {at} + {width}] = {self.packer(field.type.name)}({var})")


def _fixed_int(field: Field) -> bool:
    """A plain fixed-width integer: packed over its placeholder, nothing else to it."""
    prim = PRIMITIVES.get(field.type.name) if field.type.kind == "prim" else None
    plain = not (field.type.enum or field.repeat is not None or field.condition)
    plain = plain and field.tag is None and field.const is None and field.checksum is None
    plain = plain and field.process is None and field.bit_group is None
    return plain and prim is not None and prim.kind == "int" and prim.size is not None
