"""The Arrow writers' four-character codes (``logical: fourcc``, :mod:`generator.emit.compiled_arrow`).

A code's Spark column is text, as ``FourCC.text`` of runtime/core/codec.py makes it: a
code its open enum lists is the member's name; another is its four letters where they are
printable ASCII and no member's name (``"prVt"``, a private PNG chunk), else its number in
decimal. The names and the codes whose letters are a member's name are known here, so
they are compared in C, one branch each; the rest goes to ``_put_fourcc``, rendered once
into the module that writes a code.

A list's ``until:`` may read a code of the element just written (PNG's ``_item.type ==
chunk_type.IEND``): its text column cannot be read back as a number, so each code is also
kept as written, in the module's ``_last_<record>_<field>`` (:func:`last_code`), which the
caller reads right after the element's writer returns.
"""

from __future__ import annotations

import contextlib

from generator.emit.compiled_support import NotCompiled

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


def last_code(record: str, slot: str) -> str:
    """The module global keeping the code last written into column ``slot`` of ``record``.

    >>> last_code("chunk", "body.type")
    '_last_chunk_body_type'
    """
    return f"_last_{record}_{slot.replace('.', '_')}"


class ArrowFourcc:
    """:class:`generator.emit.compiled_arrow.ArrowEmitter`'s part for ``fourcc`` columns."""

    @property
    def last_codes(self) -> list[str]:
        """The globals of :func:`last_code` this module's writers set, in order."""
        if not hasattr(self, "_last_codes"):
            self._last_codes = []
        return self._last_codes

    def fourcc_prelude(self) -> list[str]:
        """``_put_fourcc`` and the globals, where a writer writes a code."""
        if not self.last_codes:
            return []
        kept = [f"cdef uint32_t {name} = 0" for name in dict.fromkeys(self.last_codes)]
        return [
            "# each code as last written (read by a list's until:)\n" + "\n".join(kept),
            PUT_FOURCC,
        ]

    def fourcc_column(self, var: str, builder: str, record: str, slot: str) -> None:
        """Put code ``var`` (a C number read always) into text column ``builder``."""
        if self.decls.get(var) not in ("uint32_t", "int64_t", "uint64_t", "int32_t"):
            raise NotCompiled(f"{var}: a four-character code of no C number")
        kept = last_code(record, slot)
        self.last_codes.append(kept)
        self.w.line(f"global {kept}")
        self.w.line(f"{kept} = <uint32_t>{var}")
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
