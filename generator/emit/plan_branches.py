"""The plan's steps that choose what is read: a tag that says a field is there (presence,
``optional:``), an ``if:`` expression, a ``switch_on:`` by an enum field's value and its
cases, and a ``choice:`` by the bytes that come next.

    >>> print(Presence("f_flag", 0x08, "end"))
    presence f_flag: tag 0x08 before end
"""

from __future__ import annotations

import dataclasses

from generator.emit.plan import Step, _indented, _steps_lines


@dataclasses.dataclass(frozen=True)
class Presence(Step):
    """``var`` is whether the next byte before ``end`` is ``tag`` (then read)."""

    var: str
    tag: int
    end: str

    def __str__(self) -> str:
        return f"presence {self.var}: tag 0x{self.tag:02x} before {self.end}"


@dataclasses.dataclass(frozen=True)
class Optional(Step):
    """When the next byte before ``end`` is ``tag``, it and ``steps``; else ``var`` is
    ``absent`` (``None`` or ``[]``)."""

    var: str
    tag: int
    end: str
    absent: str
    steps: tuple[Step, ...]

    def lines(self) -> list[str]:
        head = f"optional tag 0x{self.tag:02x} before {self.end} (else {self.var} = {self.absent})"
        return [head] + _steps_lines(self.steps)


@dataclasses.dataclass(frozen=True)
class When(Step):
    """``if:``: ``steps`` when the Python ``expression`` is true (an error evaluating it:
    not mine), else ``var`` is None."""

    var: str
    test: str
    """The variable the expression's value goes in."""
    expression: str
    steps: tuple[Step, ...]

    def lines(self) -> list[str]:
        head = f"when {self.test} = {self.expression} (else {self.var} = None)"
        return [head] + _steps_lines(self.steps)


@dataclasses.dataclass(frozen=True)
class Case(Step):
    """One branch of a :class:`Switch`: the selector's integer ``value`` (enum ``member``)."""

    value: int
    member: str
    steps: tuple[Step, ...]

    def lines(self) -> list[str]:
        return [f"case {self.member} ({self.value:#x})"] + _steps_lines(self.steps)


@dataclasses.dataclass(frozen=True)
class Switch(Step):
    """``var`` by the value of the enum field ``selector``: the steps of the matching case,
    else ``default`` (None: ``var`` is None)."""

    var: str
    selector: str
    enum: str
    cases: tuple[Case, ...]
    default: tuple[Step, ...] | None = None

    def lines(self) -> list[str]:
        lines = [f"switch {self.var} on {self.selector} ({self.enum})"]
        lines += _indented([line for case in self.cases for line in case.lines()])
        tail = ["default"] + _steps_lines(self.default) if self.default else ["default: None"]
        return lines + _indented(tail)


@dataclasses.dataclass(frozen=True)
class Choice(Step):
    """``choice:``: the first of ``cases`` (magic, mask, record) whose bytes match at
    ``pos`` before ``end`` picks the record read into ``var``, each by its own reader
    (``depth``: the nesting depth it is read at, past the plan's record; 0 when the spec
    has no recursion and readers take no depth); none matches: not mine."""

    var: str
    table: str
    """A name for the table of the first byte (module-level in a renderer)."""
    end: str
    cases: tuple[tuple[bytes, bytes, str], ...]
    depth: int = 0

    def lines(self) -> list[str]:
        head = f"choice {self.var} within {self.end}" + f", at depth +{self.depth}" * bool(
            self.depth
        )
        return [head] + _indented(
            [f"{magic.hex()}/{mask.hex()}: {record}" for magic, mask, record in self.cases]
        )
