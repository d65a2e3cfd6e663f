"""Pending elements in the pure-Python tier: the elements of a big row field kept as
models built on the first access of any of their fields (the quick tier's readers,
generator/emit/quicktier.py; the compiled tier's are runtime/_compiled/lazy.pyx's).

A list of models of a 64 MiB input holds several times the input. So where the quick tier
reads a row field of ``PENDING_BYTES`` or more, it reads and checks each element as it
always does, drops it, and appends :meth:`Elements.element` instead: a model of the
element's class whose first slot holds the element's offset, its second the list's
:class:`Elements` (the input, the limits and what reads one element again), and the others
nothing yet. The class's fields become :class:`PendingField` descriptors at its first
pending list (until then they stay member descriptors, which CPython reads fastest): the
first read, write or delete of any field of a pending model reads its element again (by
its quick reader where it has one, by the exact reader where it has none or that gives
up) and moves the slots in, so the model is the one the eager reader makes.

    >>> import dataclasses
    >>> @dataclasses.dataclass(slots=True)
    ... class Pair:
    ...     a: int = 0
    ...     b: int = 0
    >>> def read_pair(buf, pos, end, limits, depth):  # an exact reader: (model, pos)
    ...     return Pair(buf[pos], buf[pos + 1]), pos + 2
    >>> data = bytes([1, 2, 3, 4])
    >>> elements = Elements.of(Pair, read_pair, data, len(data), None, (2,))
    >>> pairs = [elements.element(0), elements.element(2)]
    >>> type(Pair.__dict__["a"]).__name__, pending(pairs[1])
    ('PendingField', True)
    >>> pairs[1].b, pending(pairs[1]), pending(pairs[0])
    (4, False, True)
    >>> pairs
    [Pair(a=1, b=2), Pair(a=3, b=4)]

A class of one field is never pending (it has no second slot to say so), nor is a generated
module's class while that module's compiled tier runs (its own descriptors go over the same
classes): :meth:`Elements.of` then gives None and the reader keeps the eager models.
"""

from __future__ import annotations

import dataclasses
import types

from runtime.core import tier
from runtime.core.fast import QUICK_FAILURES

_NEW = object.__new__


class PendingField:
    """A field of a model class in place of its slot's member descriptor: the same reads,
    writes and deletes, after building the model while it is pending (its second field's
    slot holds an :class:`Elements`)."""

    __slots__ = ("member", "probe")

    def __init__(self, member, probe):
        self.member, self.probe = member, probe

    def settle(self, model) -> None:
        """Build ``model`` if it is pending."""
        try:
            elements = self.probe.__get__(model)
        except (AttributeError, TypeError):  # unset, or no model of the class: not pending
            return
        if type(elements) is Elements:
            elements.fill(model)

    def __get__(self, model, owner=None):
        if model is not None:
            self.settle(model)
        return self.member.__get__(model, owner)

    def __set__(self, model, value) -> None:
        self.settle(model)
        self.member.__set__(model, value)

    def __delete__(self, model) -> None:
        self.settle(model)
        self.member.__delete__(model)


class Elements:
    """The elements of one big list: the value of the second slot of each pending model of
    it (see the module docstring)."""

    __slots__ = ("args", "cls", "data", "end", "limits", "members", "quick", "read")

    @classmethod
    def of(cls, model_class, read, data: bytes, end: int, limits, args: tuple, quick=None):
        """The pending elements of ``model_class`` in ``data`` up to ``end``, each read
        again by ``read(data, offset, end, limits, *args)`` (an exact reader), or first by
        ``quick(data, offset, end, limits)`` (the element's quick reader, where it has one:
        the exact reader's model, cheaper, or one of ``QUICK_FAILURES``, and then the exact
        reader reads); None where they cannot be pending (``data`` is no ``bytes``, which
        may change)."""
        if type(data) is not bytes:
            return None
        members = _pending_members(model_class)
        if members is None:
            return None
        elements = _NEW(cls)
        elements.cls, elements.members, elements.read = model_class, members, read
        elements.data, elements.end, elements.limits, elements.args = data, end, limits, args
        elements.quick = quick
        return elements

    def element(self, at: int):
        """A pending model of the element at offset ``at`` (checked by the caller)."""
        model = _NEW(self.cls)
        members = self.members
        members[0].__set__(model, at)
        members[1].__set__(model, self)
        return model

    def fill(self, model) -> None:
        """Read ``model``'s element again and move its slots in."""
        members = self.members
        at = members[0].__get__(model)
        built = None
        if self.quick is not None:
            try:
                built, _ = self.quick(self.data, at, self.end, self.limits)
            except QUICK_FAILURES:  # the exact reader gives the model or the exact error
                built = None
        if built is None:
            built, _ = self.read(self.data, at, self.end, self.limits, *self.args)
        for i, member in enumerate(members):
            try:
                member.__set__(model, member.__get__(built))
            except AttributeError:  # a field the reader left unset
                if i < 2:  # (the others are unset in a pending model)
                    member.__delete__(model)


_MEMBERS: dict[type, tuple] = {}
"""Model class -> the member descriptors of its fields, in field order, once its fields
are :class:`PendingField`\\ s."""


def _pending_members(model_class) -> tuple | None:
    """``model_class``'s member descriptors, with :class:`PendingField`\\ s put over them
    (once a class); None where its models cannot be pending."""
    members = _MEMBERS.get(model_class)
    if members is not None:
        return members
    names = [f.name for f in dataclasses.fields(model_class)]
    members = tuple(model_class.__dict__.get(name) for name in names)
    if len(names) < 2 or _compiled_lazy(model_class):
        return None
    if not all(type(m) is types.MemberDescriptorType for m in members):
        return None
    for name, member in zip(names, members):
        setattr(model_class, name, PendingField(member, members[1]))
    _MEMBERS[model_class] = members
    return members


def _compiled_lazy(model_class) -> bool:
    """Whether the compiled tier may pend ``model_class``'s elements too (its lazy models'
    descriptors go over the same class): it runs, and the class's generated module has a
    compiled reader."""
    module, _, name = model_class.__module__.partition(".")
    if module != "generated" or tier.compiled("runtime._compiled.lazy") is None:
        return False
    return tier.compiled(f"generated._compiled.{name}") is not None


def pending(model) -> bool:
    """Whether ``model`` is a pending element (read without building it)."""
    members = _MEMBERS.get(type(model))
    if members is None:
        return False
    try:
        return type(members[1].__get__(model)) is Elements
    except AttributeError:
        return False
