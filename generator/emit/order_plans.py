"""Plans of records whose byte order the data chooses (``endian: {switch_on:}`` on a
record; generator/spec/byte_order.py), for the quick and compiled tiers.

The record that chooses reads its selector (its first field, in an order of its own),
then one :class:`OrderChoice`: its later fields read in the order the selector names,
each order's steps lowered once inside :func:`generator.spec.byte_order.specialised` (its
numbers, and those of the records it holds, as if the spec had given them that suffix),
the two with the same variables, so the model is built after either. A record that only
takes the order is read inline wherever it is read (from one place or several), so it is
lowered inside its holder's order; a recursive one, which would be called, would need a
reader per order: it has no plan (``refused`` says why).

The selector's enum check comes first, so every value that reaches the choice names an
order (a member, or an open enum's number with a ``default:``): one test of the values
naming the first case, the other case otherwise.

    >>> from generator.spec.loader import load_text
    >>> from generator.spec.validate import build_model
    >>> from generator.emit.lowering import Lowering
    >>> spec = build_model(load_text('''
    ... format: t
    ... doc: t
    ... endian: le
    ... default_record: file
    ... enums:
    ...   magic: {doc: m, type: u16, values: {BIG: {value: 0x4d4d, doc: b}, LITTLE: {value: 0x4949, doc: l}}}
    ... records:
    ...   file:
    ...     doc: f
    ...     endian: {switch_on: magic, cases: {BIG: be, LITTLE: le}}
    ...     fields:
    ...       - {name: magic, type: u16be, enum: magic, doc: m}
    ...       - {name: n, type: u32, doc: n}
    ... ''', None, "t.yaml"))
    >>> print(Lowering(spec).plans["file"].describe())
    file -> File, nesting depth 1, entry
      field magic (line 13)
        u16be f_magic in enum magic
      byte order by f_magic
        be if f_magic in (0x4d4d,)
          field n (line 14)
            u32be f_n
        le otherwise
          field n (line 14)
            u32le f_n
      model = File(f_magic, f_n)
"""

from __future__ import annotations

import dataclasses

from generator.emit.plan import Step, _indented, _steps_lines
from generator.spec.byte_order import specialised
from generator.spec.model import Record

TAKES_ORDER = (
    "takes the byte order the data chooses in the record around it, and reads itself"
    " (a reader of its own would need one per order): not yet"
)
"""Why a recursive record that takes a chosen byte order has no plan."""


@dataclasses.dataclass(frozen=True)
class OrderCase(Step):
    """The steps read in byte ``order`` (``le``/``be``): when the selector is one of
    ``values``, or (``values`` empty) when it is none of the other case's."""

    order: str
    values: tuple[int, ...]
    steps: tuple[Step, ...]


@dataclasses.dataclass(frozen=True)
class OrderChoice(Step):
    """The rest of a record in the byte order the number ``selector`` names: the first of
    ``cases`` when it is one of its values, else the second."""

    selector: str
    cases: tuple[OrderCase, OrderCase]

    def lines(self) -> list[str]:
        first, second = self.cases
        lines = [f"byte order by {self.selector}"]
        lines += _indented([f"{first.order} if {self.selector} in {self.test_values()}"])
        lines += _indented(_steps_lines(first.steps))
        lines += _indented([f"{second.order} otherwise"]) + _indented(_steps_lines(second.steps))
        return lines

    def test_values(self) -> str:
        """The first case's values as a tuple literal (``(0x4949,)``)."""
        values = self.cases[0].values
        return "(" + ", ".join(f"{v:#x}" for v in values) + ("," if len(values) == 1 else "") + ")"


class OrderedPlans:
    """A part of :class:`generator.emit.lowering.Lowering` (its state it uses)."""

    def takes_order(self, name: str) -> bool:
        """Whether record ``name`` reads in the order a record around it chose."""
        record = self.spec.records[name]
        return record.byte_order == "data" and record.order_switch is None

    def check_order(self, record: Record) -> str:
        """Why ``record`` (read in an order the data chooses) has no plan, or ''."""
        if record.order_switch is None and record.name in self.recursive:
            return TAKES_ORDER
        return ""

    def front_steps(self, record: Record, prefix: str, end: str, spans) -> list[Step]:
        """The steps of ``record``'s fields before any trailer: for the record that
        chooses its order, its selector, then the :class:`OrderChoice`."""
        if record.order_switch is None:
            return [
                self._field_steps(record, field, prefix, end, field.name in spans)
                for field in record.front
            ]
        selector = record.front[0]  # the selector is its first field (fastpath_orders.py)
        steps = [self._field_steps(record, selector, prefix, end, False)]
        _, orders, default = record.order_switch
        counter, cases = self._counter, []
        # the order a value not listed takes goes second (its values are every other one)
        last = default or self.spec.endian
        for order in sorted(("le", "be"), key=lambda o: o == last):
            self._counter = counter  # the same variables in both orders
            with specialised(self.spec.records, order):
                clone = self.spec.records[record.name]
                body = [self._field_steps(clone, f, prefix, end, False) for f in clone.front[1:]]
            values = () if order == last else tuple(v for v, o in orders.items() if o == order)
            cases.append(OrderCase(order, values, tuple(body)))
        steps.append(OrderChoice(f"{prefix}{selector.name}", tuple(cases)))
        return steps


def quick_order_choice(emitter, step: OrderChoice) -> None:
    """The quick tier's :class:`OrderChoice` (``emitter``: a ``QuickTierEmitter``): the
    selector is the enum member, or the open enum's number (either equals its value)."""
    first, second = step.cases
    emitter.w.line(f"if {step.selector} in {step.test_values()}:  # {first.order}")
    with emitter.w.indent():
        emitter.branch(first.steps)
    emitter.w.line(f"else:  # {second.order}")
    with emitter.w.indent():
        emitter.branch(second.steps)


def compiled_order_choice(emitter, step: OrderChoice, end: str) -> None:
    """The compiled tier's :class:`OrderChoice` (``emitter``: a ``CompiledEmitter``): the
    selector's C number (``<var>_c`` of an enum) tested against each value."""
    number = emitter.numbers.get(step.selector)
    value = f"{step.selector}_c" if number is not None and number.enum else step.selector
    first, second = step.cases
    test = " or ".join(f"{value} == {v:#x}" for v in first.values) or "False"
    emitter.w.line(f"if {test}:  # {first.order}")
    with emitter.w.indent():
        emitter.branch(first.steps, end)
    emitter.w.line(f"else:  # {second.order}")
    with emitter.w.indent():
        emitter.branch(second.steps, end)
