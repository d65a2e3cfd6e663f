"""The plan's steps of a record's trailer: fields read backwards from the record's end
(a reversed uvarint, a region of a length), then the fields in front of it ending where it
starts.

    >>> print(EndsAt("limit", "end"))
    pos == limit, then pos = end
"""

from __future__ import annotations

import dataclasses

from generator.emit.plan import Step, _steps_lines


@dataclasses.dataclass(frozen=True)
class FromEnd(Step):
    """A field of a record's trailer, read backwards: the bytes that end at ``limit``
    (which starts at the record's ``end``; never before ``pos``), then ``limit`` moves back
    to where they start. A reversed uvarint (``length`` empty: its last byte first), or a
    region of ``length`` (an expression) bytes read front to back by ``steps`` within
    ``inner_end``, which they must fill exactly (``pos`` is back where it was after them);
    ``absent``: a region of no bytes at all is ``var = absent``, not read. The fields in
    front then read within ``limit``."""

    var: str
    limit: str
    length: str = ""
    start: str = ""
    """The trailer's first field: ``limit`` starts at ``start`` (the record's end)."""
    inner_end: str = ""
    steps: tuple[Step, ...] = ()
    absent: str = ""

    def lines(self) -> list[str]:
        if not self.length:
            return [f"reversed uvarint {self.var}, ending at {self.limit}"]
        head = f"region {self.var}: {self.length} bytes ending at {self.limit} ({self.inner_end})"
        head += f", no bytes: {self.var} = {self.absent}" if self.absent else ""
        return [head] + _steps_lines(self.steps)


@dataclasses.dataclass(frozen=True)
class EndsAt(Step):
    """The fields in front of a trailer end where it starts (``limit``); ``pos`` then
    moves past the trailer to ``end``."""

    limit: str
    end: str

    def __str__(self) -> str:
        return f"pos == {self.limit}, then pos = {self.end}"
