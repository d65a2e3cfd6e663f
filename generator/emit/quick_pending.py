"""The quick tier's pending elements: the row field of a big input read into models built
on first access (``runtime/core/pending.py``), as the compiled tier's are
(``generator/emit/compiled_pending.py``).

Where the quick reader of a record reads its row field (the last field, a ``repeat: eos``
of records, that ``iter_rows`` streams) over :data:`PENDING_BYTES` or more of a ``bytes``
input (``Elements.of`` checks the type: a small input pays one comparison), it reads and
checks each element as it always does (so every check, and every Retry that hands the
input to the exact reader, is the eager reader's, at parse time) without building it (an
element read inline is checked alone; its own quick reader is called with ``checking``
true), and appends a pending model of it instead (``rt_pending.Elements.element``): the
first access of any of its fields reads the element again and moves its slots in: by its
quick reader (``_quick_<element>``) where the loop calls one, which gives the exact
reader's model, cheaper; by the exact reader (``_read_<element>``, at the depth and with
the ``_parent`` it reads at) where the element is read inline or its quick reader gives
up. Smaller lists, the exact reader and the row iterators stay eager. ::

    f_rows = []
    if end - pos < _PENDING_BYTES:
        item1_pending = None
    else:  # a big input's elements: checked now, built on first access
        item1_pending = rt_pending.Elements.of(
            Row, _read_row, buf, end, limits, (2,), quick=_quick_row
        )
    while pos < end:
        ...
        item1_at = pos
        item1, pos = _quick_row(buf, pos, end, limits, item1_pending is not None)
        f_rows.append(item1 if item1_pending is None else item1_pending.element(item1_at))
"""

from __future__ import annotations

from generator.emit.compiled_pending import PENDING_BYTES
from generator.emit.plan import Repeat, last_repeat


class QuickPending:
    """Pending elements in the quick tier (see the module docstring): a base of
    :class:`generator.emit.quicktier.QuickTierEmitter`, whose state it uses."""

    def pending_repeat(self, plan) -> Repeat | None:
        """The repeat of ``plan``'s row field, when its elements can be pending."""
        if plan.checks_depth:
            return None
        record = self.spec.records[plan.name]
        if self.lowering.fast.row_iterated(record) is None:
            return None
        found = last_repeat(plan.steps)
        if found is None:
            return None
        repeat = found[1]
        return repeat if repeat.until == "eos" and repeat.record else None

    @property
    def checked_alone(self) -> set[str]:
        """The records whose quick reader a pending list's loop calls: they take
        ``checking``, true where the element is pending (checked, its model not built)."""
        plans = self.lowering.plans
        repeats = [self.pending_repeat(plans[name]) for name in self.entries]
        return {r.record for r in repeats if r and self.read_alone(r)}

    @staticmethod
    def read_alone(step: Repeat) -> bool:
        """Whether a pending list's loop calls its element's quick reader (not inline)."""
        return step.steps is None and not step.depth

    def checking_build(self, build) -> None:
        """A record's model, not built where its reader only checks (``checked_alone``)."""
        self.w.line("if checking:  # a pending element: built on its first access")
        with self.w.indent():
            self.w.line(f"{build.var} = None")
        self.w.line("else:")
        with self.w.indent():
            self.model_build(build)

    @property
    def pends(self) -> bool:
        """Whether a quick reader of this spec keeps pending elements (the module imports
        ``runtime.core.pending``)."""
        plans = self.lowering.plans
        return any(self.pending_repeat(plans[name]) for name in self.entries)

    def pending_start(self, step: Repeat) -> None:
        """Before the loop: the list's ``Elements``, or None to keep eager models."""
        plans, record = self.lowering.plans, self.spec.records[self.plan.name]
        element = step.steps if step.steps is not None else plans[step.record].steps
        cls = element[-1].class_name
        args = "2,"
        if step.record in self.lowering.fast.needs_parent:
            build = self.plan.steps[-1]
            before = record.fields[: record.fields.index(record.field(self.plan.steps[-2].name))]
            known = dict(build.fields)
            parent = ", ".join(f"{f.name}={known[f.name]}" for f in before)
            args = f"2, rt_fast.Parent({parent})"
        quick = ""
        if self.read_alone(step):
            quick = f", quick=_quick_{step.record}"
        pending = f"{step.item}_pending"
        self.w.line(f"if {step.end} - pos < _PENDING_BYTES:")
        with self.w.indent():
            self.w.line(f"{pending} = None")
        self.w.line("else:  # a big input's elements: checked now, built on first access")
        with self.w.indent():
            self.w.line(
                f"{pending} = rt_pending.Elements.of("
                f"{cls}, _read_{step.record}, buf, {step.end}, limits, ({args}){quick})"
            )

    def pending_build(self, build) -> None:
        """An element read inline is built only where it is kept: a pending one is checked
        alone (its model is made by its first access)."""
        self.w.line(f"if {build.var}_pending is None:")
        with self.w.indent():
            self.model_build(build)

    def model_build(self, build) -> None:
        """The model's lines: made, then each field written."""
        self.w.line(f"{build.var} = _NEW({build.class_name})")
        for name, var in build.fields:
            self.w.line(f"{build.var}.{name} = {var}")

    def pending_append(self, step: Repeat) -> str:
        """The item ``item(step)`` appends: the model, or a pending one of it."""
        pending = f"{step.item}_pending"
        return f"{step.item} if {pending} is None else {pending}.element({step.item}_at)"

    def pending_constant(self) -> list[str]:
        """The module constant the readers compare a row field's bytes to."""
        return [f"_PENDING_BYTES = {PENDING_BYTES}  # (generator/emit/quick_pending.py)"] * (
            self.pends
        )
