"""The plan's steps of a checksum: the marks of the bytes it covers, what it covers, and
the check itself, after the bytes it covers are read.

    >>> print(ChecksumItem("span", "crc_from", "crc_to"))
    bytes from crc_from to crc_to
"""

from __future__ import annotations

import dataclasses

from generator.emit.plan import Step, _indented


@dataclasses.dataclass(frozen=True)
class Mark(Step):
    """``var`` is where reading is now (a span checksum's first or last byte + 1)."""

    var: str

    @property
    def size(self) -> int:
        return 0

    def __str__(self) -> str:
        return f"mark {self.var}"


@dataclasses.dataclass(frozen=True)
class ChecksumItem:
    """What a checksum covers, in order: the bytes between two :class:`Mark` steps
    (``span``: ``var`` to ``target``), a field's bytes (``raw``; ``optional`` fields only
    when present; ``target`` is its kind: ``prim``, ``str``, ``bytes`` or ``record``), a
    member of each element of a list (``each``; ``target`` ``u8`` when the member is a plain
    u8 of records), or the value of a Python ``expression``
    over the plan's variables (``value``); the last two packed as ``encoder``."""

    kind: str
    var: str = ""
    target: str = ""
    optional: bool = False
    member: str = ""
    encoder: str = ""
    expression: str = ""

    def __str__(self) -> str:
        if self.kind == "raw":
            return f"bytes of {self.var}" + " (when present)" * self.optional
        if self.kind == "span":
            return f"bytes from {self.var} to {self.target}"
        if self.kind == "each":
            return f"{self.encoder} {self.member} of each of {self.var}"
        return f"{self.encoder} {self.expression}"


@dataclasses.dataclass(frozen=True)
class Checksum(Step):
    """``var`` (already read) must be the ``algorithm`` of ``items``. ``one_byte``: every
    item is one byte 0..255 (a CRC-8 can run as a table loop over them)."""

    var: str
    algorithm: str
    items: tuple[ChecksumItem, ...]
    one_byte: bool = False

    @property
    def size(self) -> int:
        return 0

    def lines(self) -> list[str]:
        head = f"checksum {self.var} == {self.algorithm}" + " of one-byte items" * self.one_byte
        return [head] + _indented([str(item) for item in self.items])
