"""Which compiled models the cyclic GC need not track.

CPython does not track a tuple that holds only atomic values (numbers, text, None, untracked
objects): it can be in no reference cycle, so the collector has nothing to find by walking
it. The compiled readers (:mod:`generator.emit.compiled`) apply the same rule to the models
they build, and to the lists they fill: a model whose fields hold only atomic values, or a
list whose items all are, is untracked (a model is allocated so, a list untracked once it is
filled). This module decides it from the plans of :mod:`generator.emit.lowering`: what each
reader variable may hold, and which model classes hold only atomic values in every model
read. What the plans cannot say (a nested model of a class that may hold a list, an
expression's value) the reader checks at run time (``runtime/_compiled/slots.pxd``).

Caveat (generator/README.md): a user who later makes an untracked model or list part of a
reference cycle (a list in it appended to itself, say) leaks that cycle instead of having it
collected; nothing crashes.
"""

from __future__ import annotations

import ast

from generator.emit.lowering import Lowering
from generator.emit.order_plans import OrderChoice
from generator.emit.plan import (
    Bits,
    Build,
    Computed,
    Derived,
    FieldSteps,
    Length,
    Nested,
    Nothing,
    Number,
    Processed,
    Repeat,
    Text,
)
from generator.emit.plan_branches import Choice, Optional, Presence, Switch, When
from generator.emit.plan_checksums import Mark
from generator.emit.plan_keyed import Fallback, KeyedField, MsbNumber, Rest, SizeOf
from generator.emit.plan_trailers import FromEnd

ATOMIC, LIST, CHECK = "atomic", "list", "check"
"""What a reader's variable holds, for the GC rule of ``CompiledEmitter.untrack``: an atomic
value, a (tracked) list, or something only known at run time; else ``model <Class>``, or
``items <var>``: a list the reader fills with the values of ``var`` and untracks when they
are all atomic."""

_VALUE_STEPS = (Number, Text, Nothing, Bits, Presence, Computed, Length, Mark, SizeOf, Rest)
_VALUE_STEPS += (MsbNumber,)


_SCALARS = (type(None), bool, int, float, str, bytes)


def _literal_kind(text: str) -> str:
    """The kind of a Python literal a reader writes for an absent field (a list of scalars
    the reader untracks: :func:`untracked_literal`)."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return CHECK
    if isinstance(value, list):
        return ATOMIC if untracked_literal(text) else LIST
    return ATOMIC if isinstance(value, _SCALARS) else CHECK


def untracked_literal(text: str) -> bool:
    """Whether ``text`` is a list literal of scalars, which a reader untracks once made."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return False
    return isinstance(value, list) and all(isinstance(item, _SCALARS) for item in value)


def value_kinds(steps, plans, kinds: dict[str, set[str]] | None = None) -> dict[str, set[str]]:
    """Variable -> the kinds of value (``ATOMIC``, ...) the steps that set it may give it."""
    kinds = {} if kinds is None else kinds

    def add(var: str, kind: str) -> None:
        kinds.setdefault(var, set()).add(kind)

    for step in steps:
        if isinstance(step, _VALUE_STEPS):
            add(step.var, ATOMIC)
        elif isinstance(step, Build):
            add(step.var, f"model {step.class_name}")
        elif isinstance(step, Repeat):
            add(step.var, f"items {step.item}")
            if step.steps is None:
                add(step.item, f"model {plans[step.record].class_name}")
            if step.blocks:
                add(step.blocks, ATOMIC)  # a list of ints, untracked once filled
        elif isinstance(step, Nested) and step.steps is None:
            add(step.var, f"model {plans[step.record].class_name}")
        elif isinstance(step, Choice):
            for _, _, record in step.cases:
                add(step.var, f"model {plans[record].class_name}")
        elif isinstance(step, Optional):
            add(step.var, _literal_kind(step.absent))
        elif isinstance(step, KeyedField) and step.absent != "required":
            add(step.var, _literal_kind(step.default or "None"))
        elif isinstance(step, When) or isinstance(step, Switch) and step.default is None:
            add(step.var, ATOMIC)  # None where it reads nothing
        elif isinstance(step, (Derived, Fallback)):
            add(step.var, CHECK)
        elif isinstance(step, Processed):
            add(step.wire, ATOMIC)  # the bytes as on the wire, or None
        elif isinstance(step, FromEnd) and (not step.length or step.absent):
            add(step.var, _literal_kind(step.absent or "0"))  # a number, or a region's absent
        for inner in _inner_steps(step):
            value_kinds(inner, plans, kinds)
        if isinstance(step, Repeat) and step.terminator:  # an item, kept apart
            for kind in kinds.get(step.item, {CHECK}):
                add(step.terminator, kind)
    return kinds


def kinds_of(var: str, kinds: dict[str, set[str]]) -> set[str]:
    """What a model field's value may be: a variable's kinds, or a literal's (a field the
    plan sets to a constant, such as ``wire_form``'s None)."""
    return kinds.get(var) or {_literal_kind(var)}


def _inner_steps(step) -> list:
    """The step lists inside ``step`` (a field's, a branch's, a nested record's)."""
    if isinstance(step, Switch):
        return [case.steps for case in step.cases] + [step.default or ()]
    if isinstance(step, OrderChoice):
        return [case.steps for case in step.cases]
    if isinstance(step, (FieldSteps, Optional, When, Processed, KeyedField, FromEnd)):
        return [step.steps]
    if isinstance(step, (Nested, Repeat)):
        return [step.steps or ()]
    return []


def is_atomic(kinds: set[str], atomic: set[str], variables: dict[str, set[str]]) -> bool:
    """Whether a variable of these kinds holds an atomic value in every read, given the
    model classes known to be atomic and what the reader's ``variables`` hold (a list is
    atomic when its items are)."""
    return _atomic(kinds, atomic, variables, set())


def _atomic(kinds: set[str], atomic: set[str], variables: dict, seen: set[str]) -> bool:
    for kind in kinds:
        what, _, name = kind.partition(" ")
        if kind == ATOMIC or what == "model" and name in atomic:
            continue
        if what != "items" or name in seen:
            return False
        if not _atomic(variables.get(name, {CHECK}), atomic, variables, seen | {name}):
            return False
    return True


def may_be_atomic(kinds: set[str]) -> bool:
    """Whether a variable of these kinds may hold an atomic value (else it is a tracked
    list in every read, and a run-time check would never pass)."""
    return kinds != {LIST}


def atomic_classes(lowering: Lowering) -> set[str]:
    """The model classes whose every field holds an atomic value in every model the plans
    build (a class built where a field may hold a tracked list or an unknown value is not).
    The greatest fixed point: a reader builds a tree bottom up, each model after what it
    holds, so a record that holds itself (through a list, say) is atomic when its other
    fields are, by induction on the tree's depth."""
    builds = []
    for plan in lowering.plans.values():
        kinds = value_kinds(plan.steps, lowering.plans)
        found = [s for s in _all_steps(plan.steps) if isinstance(s, Build)]
        builds += [(build, kinds) for build in found]
    atomic = {build.class_name for build, _ in builds}
    changed = True
    while changed:
        changed = False
        for cls in sorted(atomic):
            if not all(
                all(is_atomic(kinds_of(var, kinds), atomic, kinds) for _, var in build.fields)
                for build, kinds in builds
                if build.class_name == cls
            ):
                atomic.discard(cls)
                changed = True
    return atomic


def _all_steps(steps):
    for step in steps:
        yield step
        for inner in _inner_steps(step):
            yield from _all_steps(inner)
