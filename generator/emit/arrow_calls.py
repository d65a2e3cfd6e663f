"""The Arrow writers' plans: a record its parent reads inline, read by its own writer.

The lowering reads a record used once in its parent's steps (generator/emit/lowering.py),
so the parent's model reader makes that model with no call. The Arrow writers
(generator/emit/compiled_arrow.py) render every record with Spark columns, those read only
inline too, so each such record would be rendered twice there: in its own
``_arrow_<record>`` and again in its parent's writer (PNG's chunk payloads, each a case of
the chunk's switch). :func:`calling` turns those reads into calls of the record's own
writer, as a record read from several places is read (a :class:`Nested` or a
:class:`Repeat` of records with no ``steps``). A record whose fields the parent reads
afterwards stays inline (MySQL's binlog_file reads its format description's
``checksum_alg`` in every event): a writer gives its parent no values.
"""

from __future__ import annotations

import dataclasses
import re

from generator.emit.plan import Build, Nested, Repeat, walk_steps
from generator.emit.plan_branches import Switch

_DEFINING = ("var", "item", "inner_end", "test", "blocks", "limit", "wire", "terminator", "table")
"""The attributes of a step that name a variable it sets (the others name what it reads)."""

_WORD = re.compile(r"\w+")


def calling(steps: tuple, writes) -> tuple:
    """``steps`` with each record read inline for which ``writes(record)`` is true read by
    its writer instead, unless other steps read the variables its steps set.

    >>> from generator.emit.plan import FieldSteps, Number
    >>> inner = (Number("v1_x", "u8"), Build("f_a", "A", (("x", "v1_x"),)))
    >>> plan = (FieldSteps("a", 1, (Nested("f_a", "a", "end", "end", steps=inner),)),)
    >>> calling(plan, {"a"}.__contains__)[0].steps[0].steps is None
    True
    >>> later = plan + (Number("f_b", "u8", const=1),)
    >>> calling(later, set().__contains__) == later
    True
    >>> reads = plan + (Nested("f_b", "b", "end", "end", length="v1_x"),)
    >>> calling(reads, {"a"}.__contains__) == reads
    True
    """
    kept: set[int] = set()
    while True:
        called: dict[int, object] = {}
        out = _rewritten(steps, writes, kept, called)
        words = set(_WORD.findall(repr(out)))
        clash = {key for key, step in called.items() if _set_by(step) & words}
        if not clash:
            return out
        kept |= clash  # each round keeps more inline: it ends


def _inline_record(step) -> bool:
    """``step`` reads a record inline: a record field, or each element of a list."""
    if isinstance(step, Nested):
        return bool(step.record) and step.steps is not None
    return (
        isinstance(step, Repeat)
        and bool(step.record and step.steps)
        and isinstance(step.steps[-1], Build)
        and step.steps[-1].var == step.item
    )


def _set_by(step) -> set[str]:
    """The variables the inline steps of ``step`` set, but the record's own."""
    own = step.item if isinstance(step, Repeat) else step.var
    return {
        value
        for inner in walk_steps(step.steps)
        for attr in _DEFINING
        if isinstance(value := getattr(inner, attr, None), str) and value
    } - {own}


def _rewritten(steps, writes, kept: set[int], called: dict[int, object]) -> tuple:
    out = []
    for step in steps:
        if id(step) not in kept and _inline_record(step) and writes(step.record):
            called[id(step)] = step
            out.append(dataclasses.replace(step, steps=None))
            continue
        changes = {}
        if getattr(step, "steps", None):
            changes["steps"] = _rewritten(step.steps, writes, kept, called)
        if isinstance(step, Switch):  # (a keyed field's ``default`` is a value's text)
            if step.default:
                changes["default"] = _rewritten(step.default, writes, kept, called)
            changes["cases"] = tuple(
                dataclasses.replace(case, steps=_rewritten(case.steps, writes, kept, called))
                for case in step.cases
            )
        out.append(dataclasses.replace(step, **changes) if changes else step)
    return tuple(out)
