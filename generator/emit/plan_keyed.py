"""The plan's steps of a mysql::serialization message (a message of numbered fields, each
an msb-count varint's id before its value) and of a record sized by an expression.

:class:`generator.emit.plan.Step` is their base; :data:`KEYED_STEPS` names them all, for the
renderers that hand them to their keyed part (``quick_keyed``, ``compiled_keyed``).

    >>> print(MsbNumber("f_len", 32, "end", length=True))
    length32 f_len before end
"""

from __future__ import annotations

import dataclasses

from generator.emit.plan import Step, _steps_lines


@dataclasses.dataclass(frozen=True)
class SizeOf(Step):
    """``var`` is a record's byte size computed by the Python ``expression`` over the
    plan's variables (``size: event_size - 23``); a :class:`Nested` then checks it as a
    signed length (an error evaluating it, or a value that is no int: not mine)."""

    var: str
    expression: str

    @property
    def size(self) -> int:
        return 0

    def __str__(self) -> str:
        return f"size {self.var} = {self.expression}"


@dataclasses.dataclass(frozen=True)
class MsbNumber(Step):
    """An msb-count varint (mysql::serialization's: the first byte's low one bits count
    the bytes after it, 9 bytes at most) before ``end`` into ``var``, within ``bits``
    (``runtime.core.msbvarint.read_uvar``); ``signed``: ZigZag. ``length``: a byte length (a
    :class:`Text` checks it), not a model value."""

    var: str
    bits: int
    end: str
    signed: bool = False
    length: bool = False

    def __str__(self) -> str:
        kind = "length" if self.length else "msb_svarint" if self.signed else "msb_uvarint"
        return f"{kind}{self.bits} {self.var} before {self.end}"


@dataclasses.dataclass(frozen=True)
class KeyedHeader(Step):
    """A mysql::serialization message's head, before ``end`` (the message is the rest of
    the input): the format version (must be 1), ``declared`` (``serializable_field_size``:
    the message's true length, or MySQL's formula for it) and ``lnifid``
    (``last_non_ignorable_field_id``, at most ``fields``), each an msb-count varint."""

    declared: str
    lnifid: str
    fields: int
    end: str

    def __str__(self) -> str:
        return (
            f"message head before {self.end}: version 1, size {self.declared},"
            f" lnifid {self.lnifid} <= {self.fields}"
        )


@dataclasses.dataclass(frozen=True)
class KeyedField(Step):
    """Field ``id`` of a mysql::serialization message: the next field id before ``end``
    (an msb-count varint) peeked; ``id``: read, then ``steps`` into ``var``; a smaller id:
    not mine (out of order); a larger one, or the end: absent, and ``absent`` says what
    ``var`` is: ``required`` (not mine), ``value`` (the Python literal ``default``) or
    ``from`` (None, then :class:`Fallback` gives it another field's value). ``lnifid``:
    the message's ``last_non_ignorable_field_id`` variable when the field is non-ignorable
    (present, build writes at least ``id + 1`` there)."""

    var: str
    id: int
    end: str
    absent: str
    default: str = ""
    steps: tuple[Step, ...] = ()
    lnifid: str = ""

    def lines(self) -> list[str]:
        otherwise = {"required": "not mine", "value": self.default, "from": "None"}[self.absent]
        head = f"keyed field {self.id} {self.var} before {self.end} (absent: {otherwise})"
        return [head] + _steps_lines(self.steps)


@dataclasses.dataclass(frozen=True)
class Fallback(Step):
    """``var`` is ``source``'s value when it is None (an absent ``default_from`` field,
    resolved after every field: it may name a later one)."""

    var: str
    source: str

    @property
    def size(self) -> int:
        return 0

    def __str__(self) -> str:
        return f"{self.var} = {self.source} when None"


@dataclasses.dataclass(frozen=True)
class Rest(Step):
    """``var`` is the bytes left before ``end`` (fields a newer writer added), None when
    there are none; reading ends at ``end``."""

    var: str
    end: str

    def __str__(self) -> str:
        return f"rest {self.var}: the bytes before {self.end}, or None"


KEYED_STEPS = (SizeOf, MsbNumber, KeyedHeader, KeyedField, Fallback, Rest)
"""The steps of mysql::serialization messages and of records sized by an expression."""
