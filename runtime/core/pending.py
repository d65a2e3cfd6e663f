"""Pending elements in the pure-Python tier: the elements of a big row field kept as
models built on the first access of any of their fields (the quick tier's readers,
generator/emit/quicktier.py; the compiled tier's are runtime/_compiled/lazy.pyx's).

A list of models of a 64 MiB input holds several times the input. So where the quick tier
reads a row field of ``PENDING_BYTES`` or more, it reads and checks each element as it
always does, drops it, and appends :meth:`Elements.element` instead: a model of the
element class's *pending class* whose first slot holds the element's offset, its second the
list's :class:`Elements` (the input, the limits and what reads one element again), and the
others nothing yet. The pending class (made at the class's first pending list) subclasses
the element class and :class:`PendingModel`, with the same slots: the first attribute
read, write or delete of a pending model (a field, ``__class__``, a method) reads its
element again (by its quick reader where it has one, by the exact reader where it has none
or that gives up), moves the slots in and sets its class back to the element class, so the
model is the one the eager reader makes, of the same class. The element class itself is
never changed: its fields stay member descriptors, which CPython reads fastest, and a model
built of it costs the same before and after any big input.

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
    >>> pending(pairs[1]), isinstance(pairs[1], Pair), type(pairs[1]) is Pair
    (True, True, False)
    >>> pairs[1].b, pending(pairs[1]), type(pairs[1]) is Pair, pending(pairs[0])
    (4, False, True, True)
    >>> pairs, type(Pair.__dict__["a"]).__name__
    ([Pair(a=1, b=2), Pair(a=3, b=4)], 'member_descriptor')

A class of one field is never pending (it has no second slot for the list), nor is a
generated module's class while that module's compiled tier runs (its own descriptors go
over the same classes): :meth:`Elements.of` then gives None and the reader keeps the eager models.
"""

from __future__ import annotations

import dataclasses
import types

from runtime.core import tier
from runtime.core.fast import QUICK_FAILURES

_NEW = object.__new__


class PendingModel:
    """The base of each pending class (see :func:`_pending_class`): any attribute read,
    write or delete of one of its models, a field, ``__class__`` or a method, builds it
    first (its element read again, its class set back to the model class), then goes on as
    on the model class."""

    __slots__ = ()

    def __getattribute__(self, name):
        _settle(self)
        return getattr(self, name)  # (of the model class now)

    def __setattr__(self, name, value) -> None:
        _settle(self)
        setattr(self, name, value)

    def __delattr__(self, name) -> None:
        _settle(self)
        delattr(self, name)


_SET_CLASS = object.__setattr__
"""Sets a model's ``__class__`` past :class:`PendingModel`'s ``__setattr__`` (which would
build it again)."""


def _settle(model) -> None:
    """Build ``model`` (of a pending class) and make it a model of its model class."""
    model_class, probe = _PENDING[type(model)]
    try:
        elements = probe.__get__(model, None)
    except AttributeError:
        elements = None
    if type(elements) is Elements:
        elements.fill(model)
    else:  # not pending (made by the pending class's own constructor): nothing to read
        _SET_CLASS(model, "__class__", model_class)


class Elements:
    """The elements of one big list: the value of the second slot of each pending model of
    it (see the module docstring)."""

    __slots__ = ("args", "cls", "data", "end", "limits", "members", "model_class", "quick", "read")

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
        pending_class = _pending_class(model_class)
        if pending_class is None:
            return None
        elements = _NEW(cls)
        elements.cls, elements.model_class, elements.read = pending_class, model_class, read
        elements.members = _MEMBERS[pending_class]
        elements.data, elements.end, elements.limits, elements.args = data, end, limits, args
        elements.quick = quick
        return elements

    def element(self, at: int):
        """A pending model of the element at offset ``at`` (checked by the caller): a model
        of the pending class whose first two slots hold ``at`` and this."""
        model = _NEW(self.cls)
        members = self.members
        members[0].__set__(model, at)
        members[1].__set__(model, self)
        return model

    def fill(self, model) -> None:
        """Read ``model``'s element again, move its slots in and make it a model of the
        model class."""
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
        _SET_CLASS(model, "__class__", self.model_class)


_PENDING: dict[type, tuple] = {}
"""Pending class -> (its model class, the member descriptor of the model class's second
field)."""
_MEMBERS: dict[type, tuple] = {}
"""Pending class -> the member descriptors of its model class's fields, in field order."""
_PENDING_CLASS: dict[type, type | None] = {}
"""Model class -> its pending class (None where its models cannot be pending)."""


def _pending_class(model_class) -> type | None:
    """``model_class``'s pending class (made once a class): a subclass of it and of
    :class:`PendingModel`, of the same slots, so a built model's class can be set back to
    ``model_class``; None where its models cannot be pending."""
    if model_class in _PENDING_CLASS:
        return _PENDING_CLASS[model_class]
    names = [f.name for f in dataclasses.fields(model_class)]
    members = tuple(model_class.__dict__.get(name) for name in names)
    pending_class = None
    plain = all(type(m) is types.MemberDescriptorType for m in members)
    if len(names) >= 2 and plain and not _compiled_lazy(model_class):
        pending_class = type(model_class.__name__, (PendingModel, model_class), {
            "__slots__": (), "__module__": model_class.__module__,
            "__qualname__": model_class.__qualname__,
        })  # fmt: skip
        _PENDING[pending_class] = (model_class, members[1])
        _MEMBERS[pending_class] = members
    _PENDING_CLASS[model_class] = pending_class
    return pending_class


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
    return type(model) in _PENDING
