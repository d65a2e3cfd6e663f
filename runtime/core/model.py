"""The base of generated model classes.

Generated modules define one ``@dataclass(slots=True)`` per record, subclassing
:class:`Model`, so a decoded message is a tree of small typed objects with the spec's field
names. Item access is kept for code that treats models as mappings:

    >>> import dataclasses
    >>> @dataclasses.dataclass(slots=True)
    ... class Point(Model):
    ...     x: int = 0
    ...     y: int = 0
    >>> p = Point(1, 2)
    >>> p["y"], p.get("z", 9), dict(p.items())
    (2, 9, {'x': 1, 'y': 2})
"""

from __future__ import annotations

import dataclasses


class Model:
    """Mapping-style read access for generated dataclasses."""

    __slots__ = ()

    def __getitem__(self, name: str):
        try:
            return getattr(self, name)
        except AttributeError:
            raise KeyError(name) from None

    def get(self, name: str, default=None):
        return getattr(self, name, default)

    def keys(self):
        return [f.name for f in dataclasses.fields(self)]

    def items(self):
        return [(f.name, getattr(self, f.name)) for f in dataclasses.fields(self)]


def fields_of(model) -> dict:
    """A model's fields by name; unlike ``model.items()`` it works when a field is named
    ``items`` or ``keys``.

    >>> @dataclasses.dataclass(slots=True)
    ... class Index(Model):
    ...     items: list = dataclasses.field(default_factory=list)
    >>> fields_of(Index([1]))
    {'items': [1]}
    """
    return {f.name: getattr(model, f.name) for f in dataclasses.fields(model)}
