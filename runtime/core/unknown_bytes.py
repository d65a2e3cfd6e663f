"""Whether a parsed model keeps bytes its spec does not know, by the table its generated
module renders from the spec.

Some layouts keep what a newer writer added as bytes, so that ``build(parse(x)) == x``: a
``layout: serializable`` record its ``unknown_fields``, a ``layout: protobuf`` record the
``bytes`` entries of its ``wire_layout``, a Thrift struct the ``UnknownField`` entries of
its ``WireLayout``. Which model classes do, in which field, and how that field's value says
so, is the generated module's ``UNKNOWN_BYTES`` (model class -> {field -> ``holds(value)``},
the predicate from the format's runtime module, or :func:`unlisted` of an enum for the
selector of a switch whose ``default:`` keeps the bytes of a code the spec does not list;
None for a class that keeps none at any depth, so the walk does not enter it); the module's
contract offers ``keeps_unknown(model)`` over it (``runtime.core.contract``). The Spark
layer asks it of a file that reads both as one message and as frames
(``runtime.spark.input_kind``).

    >>> import dataclasses
    >>> @dataclasses.dataclass
    ... class Body:
    ...     unknown_fields: bytes | None = None
    >>> @dataclasses.dataclass
    ... class Event:
    ...     bodies: list
    >>> holders = {Body: {"unknown_fields": bool}}
    >>> keeps_unknown(Event([Body(), Body(b"\\x01")]), holders), keeps_unknown(Event([Body()]), holders)
    (True, False)
    >>> keeps_unknown(Event([Body(b"\\x01")]), {})        # a module whose records keep none
    False
    >>> keeps_unknown(Event([Body(b"\\x01")]), {**holders, Event: None})  # None: not entered
    False
"""

from __future__ import annotations

import functools
from collections.abc import Callable

_LEAVES = (str, bytes, bytearray, memoryview, int, float, complex)
"""Values that hold no model."""
_WALKED: dict = {}
"""The fields tested of a model class ``holders`` does not name: none, its fields walked."""


def keeps_unknown(model, holders: dict) -> bool:
    """Whether ``model``, or a model inside it, is of a class of ``holders`` (model class ->
    {field -> ``holds(value)``}) whose ``holds`` says True of its field's value. Walks dict
    values, lists, tuples, sets and the fields of model objects (``__dict__`` and the slots
    of the class and its bases), each object once; not a model whose class ``holders`` maps
    to None (it keeps none, nor does a model inside it)."""
    if not holders:
        return False
    todo, seen = [model], set()
    while todo:
        value = todo.pop()
        if value is None or isinstance(value, _LEAVES) or id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, dict):
            todo.extend(value.values())
            continue
        if isinstance(value, (list, tuple, set, frozenset)):
            todo.extend(value)
            continue
        fields = holders.get(type(value), _WALKED)
        if fields is None:  # no model inside it keeps any either
            continue
        for name, holds in fields.items():
            if holds(getattr(value, name, None)):
                return True
        todo.extend(_field_values(value))
    return False


def _field_values(value) -> list:
    """The values of a model object's fields: its ``__dict__`` and every slot that is set."""
    slots = _slot_names(type(value))
    if not hasattr(value, "__dict__"):
        return [getattr(value, n) for n in slots if hasattr(value, n)]
    names = dict.fromkeys([*value.__dict__, *slots])
    return [getattr(value, n) for n in names if hasattr(value, n)]


@functools.lru_cache(maxsize=1024)
def _slot_names(cls: type) -> tuple[str, ...]:
    """The slots of ``cls`` and its bases, each once (looked up once per class)."""
    names = []
    for base in cls.__mro__:
        slots = base.__dict__.get("__slots__", ())
        names += [slots] if isinstance(slots, str) else list(slots)
    return tuple(dict.fromkeys(names))


def unlisted(enum) -> Callable[[object], bool]:
    """The test of a switch's selector in ``UNKNOWN_BYTES``: whether its value is a code
    ``enum`` does not list, which the switch's ``default:`` keeps as raw bytes (a PNG chunk
    type of an application's own, a BSON binary subtype of a newer writer). A listed code
    the spec reads as bytes too (PNG's IDAT, BSON's generic subtype) is known; a value that is
    no integer (None) is no code.

    >>> import enum
    >>> class Kind(enum.IntEnum):
    ...     TEXT = 1
    >>> holds = unlisted(Kind)
    >>> holds(Kind.TEXT), holds(1), holds(7), holds(None)
    (False, False, True, False)
    """
    codes = frozenset(member.value for member in enum)
    return lambda value: isinstance(value, int) and value not in codes
