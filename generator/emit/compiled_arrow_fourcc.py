"""The Arrow writers' four-character codes (``logical: fourcc``, :mod:`generator.emit.compiled_arrow`).

A code's Spark column is text, as ``FourCC.text`` of runtime/core/codec.py makes it: a
code its open enum lists is the member's name; another is its four letters where they are
printable ASCII and no member's name (``"prVt"``, a private PNG chunk), else its number in
decimal. The names and the codes whose letters are a member's name are known here, so
they are compared in C, one branch each; the rest goes to ``_put_fourcc``, rendered once
into the module that writes a code.

A list's ``until:`` may read a code of the element just written (PNG's ``_item.type ==
chunk_type.IEND``): its text column cannot be read back as a number, so the caller reads
the code again from the element's bytes, at its offset from where the element began
(:func:`member_at`). A module global set by the element's writer would be another
reader's when two read at once (threads, or a reader within a reader).
"""

from __future__ import annotations

import contextlib
import re

from generator.emit.compiled_support import NotCompiled
from generator.emit.plan import FieldSteps, Number

PUT_FOURCC = '''\
cdef int _put_fourcc(Builder builder, uint32_t code) except -1:
    """A code no enum member names, as Spark text: its four letters where each is
    printable ASCII, else its number in decimal (``FourCC.text``)."""
    cdef char text[10]
    cdef int i, n = 0
    for i in range(4):
        text[i] = <char>((code >> (24 - 8 * i)) & 0xFF)
        if <unsigned char>text[i] < 0x20 or <unsigned char>text[i] > 0x7E:
            break
    else:
        return put_bytes(builder, text, 4, True)
    while True:  # the digits from the right
        n += 1
        text[10 - n] = <char>(48 + code % 10)
        code //= 10
        if code == 0:
            break
    return put_bytes(builder, text + 10 - n, n, True)'''


def fourcc_texts(spec, record: str, slot: str) -> list[tuple[int, str]]:
    """The codes of the field at ``slot`` of ``record`` (``a.b.type``: inlined records'
    fields) whose text is not their four letters: each member of its enum as its name (the
    first name of a value, as Python's enum keeps it), then each code spelling a member's
    name as its number.

    >>> from types import SimpleNamespace as N
    >>> members = [N(name="IHDR", value=0x49484452), N(name="DATA", value=0x64617461)]
    >>> field = N(name="type", open_enum="chunk")
    >>> spec = N(records={"c": N(fields=[field])}, enums={"chunk": N(values=members)})
    >>> fourcc_texts(spec, "c", "type")
    [(1229472850, 'IHDR'), (1684108385, 'DATA'), (1145132097, '1145132097')]
    """
    *path, name = slot.split(".")
    for part in path:
        record = next(f for f in spec.records[record].fields if f.name == part).type.name
    field = next(f for f in spec.records[record].fields if f.name == name)
    if not field.open_enum:
        return []
    texts: dict[int, str] = {}
    for member in spec.enums[field.open_enum].values:
        texts.setdefault(member.value, member.name)
    for member in spec.enums[field.open_enum].values:
        letters = member.name.encode("ascii", "replace")
        if len(letters) == 4 and all(0x20 <= b < 0x7F for b in letters):
            texts.setdefault(int.from_bytes(letters, "big"), str(int.from_bytes(letters, "big")))
    return list(texts.items())


def member_at(plan, member: str) -> tuple[int, str] | None:
    """``(offset, primitive)`` of the number field ``member`` of ``plan``'s record, its
    offset from where the record begins; None where a field before it has no fixed size
    or ``member`` is no fixed-width number read alone.

    >>> from types import SimpleNamespace as N
    >>> length = FieldSteps("length", 1, (Number("f_length", "u32"),))
    >>> kind = FieldSteps("type", 2, (Number("f_type", "u32", enum="chunk_type"),))
    >>> member_at(N(steps=(length, kind)), "type")
    (4, 'u32')
    >>> member_at(N(steps=(FieldSteps("n", 1, (Number("f_n", "uvarint"),)), kind)), "type")
    """
    offset = 0
    for step in plan.steps:
        if isinstance(step, FieldSteps) and step.name == member:
            number = step.steps[0] if len(step.steps) == 1 else None
            fixed = isinstance(number, Number) and number.size is not None
            return (offset, number.prim) if fixed else None
        if step.size is None:
            return None
        offset += step.size
    return None


class ArrowFourcc:
    """:class:`generator.emit.compiled_arrow.ArrowEmitter`'s part for ``fourcc`` columns."""

    def fourcc_prelude(self) -> list[str]:
        """``_put_fourcc``, where a writer writes a code."""
        return [PUT_FOURCC] if getattr(self, "writes_codes", False) else []

    def codes_read_again(self, step) -> dict[str, tuple[int, str]]:
        """The codes of the elements of ``step`` that its ``until:`` reads: slot -> offset
        and primitive (:func:`member_at`); empty where it reads none."""
        columns = self.tables.get(step.record, ())
        slots = [slot for _, slot, kind, _ in columns if kind == "fourcc"]
        reads = step.stop if step.until == "until" else ""
        read = [s for s in slots if re.search(rf"\b{step.item}\.{s}\b", reads)]
        if not read:
            return {}
        if self.spec.records[step.record].byte_order == "data":
            raise NotCompiled(f"{step.record}: codes in the order the data chooses")
        found = {slot: member_at(self.lowering.plans[step.record], slot) for slot in read}
        if None in found.values():
            raise NotCompiled(f"{step.record}: a code at no fixed offset")
        return found

    def element_start(self, step) -> None:
        """Keep where an element of ``step`` begins, when its codes are read again."""
        if self.codes_read_again(step):
            self.declare(f"{step.item}_at", "Py_ssize_t")
            self.w.line(f"{step.item}_at = pos")

    def element_codes(self, step) -> None:
        """Read again each code of the element just written that the ``until:`` reads
        (``<item>_<slot>``, as :meth:`member_column` names it), from the element's bytes."""
        for slot, (offset, prim) in self.codes_read_again(step).items():
            ctype, value = self.load(prim, f"{step.item}_at + {offset}")
            self.declare(f"{step.item}_{slot}", ctype)
            self.w.line(f"{step.item}_{slot} = {value}")

    def fourcc_column(self, var: str, builder: str, record: str, slot: str) -> None:
        """Put code ``var`` (a C number read always) into text column ``builder``."""
        if self.decls.get(var) not in ("uint32_t", "int64_t", "uint64_t", "int32_t"):
            raise NotCompiled(f"{var}: a four-character code of no C number")
        self.writes_codes = True
        branches = fourcc_texts(self.spec, record, slot)
        for k, (code, text) in enumerate(branches):
            self.w.line(f"{'elif' if k else 'if'} {var} == {code:#x}:")
            with self.w.indent():
                data = text.encode()
                self.decline_if(f"put_bytes({builder}, {data!r}, {len(data)}, True)")
        if branches:
            self.w.line("else:")
        with self.w.indent() if branches else contextlib.nullcontext():
            self.decline_if(f"_put_fourcc({builder}, <uint32_t>{var})")
