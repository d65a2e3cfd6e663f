"""Dictionaries of names that other fields name by id (a spec's ``ref:`` and ``interned:``).

A generated module configures one :class:`Dictionary` per dictionary field with
``interned:``; a mapping asks it whether an id names an entry, the names it shows, and on
build it turns names back into ids in the spec's interning order:

    >>> terms = Dictionary("terms", "term", (Ref("schema", null=-1, empty_refused=True),
    ...                                      Ref("rows[*].names")))
    >>> model = {"schema": ["db", None], "rows": [{"names": ["id", "db"]}, None]}
    >>> terms.intern(model)
    >>> model
    {'schema': [0, -1], 'rows': [{'names': [1, 0]}, None], 'terms': ['db', 'id']}
    >>> terms.ref("schema").problem(3, ["db", "id"], "term")
    'term id 3 out of range (-1 .. 1)'
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Ref:
    """The ``ref:`` of a field: its ``path`` from the dictionary's record (``[*]`` over the
    elements of a list), the ``null`` id of no name, and whether an id of the empty name is
    refused (the empty name is then written as ``null``, so every message rebuilds)."""

    path: str
    null: int | None = None
    empty_refused: bool = False

    def problem(self, value: int, names: list, noun: str) -> str | None:
        """The error message of id ``value`` into ``names``, or None when it is fine.

        >>> Ref("names").problem(-1, ["a"], "term")
        'term id -1 out of range (0 .. 0)'
        >>> Ref("schema", -1, True).problem(0, [""], "term")
        'term id 0 is the empty name, which is written as -1'
        """
        if 0 <= value < len(names):
            if self.empty_refused and not names[value]:
                return f"{noun} id {value} is the empty name, which is written as {self.null}"
            return None
        if value == self.null:
            return None
        last = len(names) - 1
        if self.null == -1:
            allowed = f"-1 .. {last}"
        else:
            allowed = f"0 .. {last}" + ("" if self.null is None else f", or {self.null}")
        return f"{noun} id {value} out of range ({allowed})"


@dataclasses.dataclass(frozen=True)
class Dictionary:
    """A dictionary field (``field`` of its record), what one of its ids is called in
    errors (``noun``: a Craft term), and the :class:`Ref` s that name its entries, in
    ``interned:`` order."""

    field: str
    noun: str
    interned: tuple[Ref, ...]

    def ref(self, path: str) -> Ref:
        """The :class:`Ref` of the field at ``path``."""
        for ref in self.interned:
            if ref.path == path:
                return ref
        raise KeyError(path)

    def labels(self, ids, names: list) -> list:
        """The name each id stands for (None for no name or an id out of range): what
        ``wirespec inspect`` shows beside the ids."""
        return [names[i] if 0 <= i < len(names) else None for i in ids]

    def intern(self, model) -> None:
        """Replace the names in ``model``'s ref fields (a dict-like record holding this
        dictionary) by ids, each name getting the next id when first seen in
        ``interned:`` order, and set the dictionary to the names in id order. None (and,
        where the empty name is refused, "") becomes the null id."""
        ids: dict[str, int] = {}
        get = ids.get
        for ref in self.interned:
            null, refused = ref.null, ref.empty_refused
            *steps, last = ref.path.split(".")
            for holder in _holders(model, steps):
                value = holder[last]
                many = type(value) is list
                out = []
                for name in value if many else (value,):
                    if name is None or (refused and not name):
                        out.append(null)
                    else:
                        term = get(name)
                        if term is None:
                            term = ids[name] = len(ids)
                        out.append(term)
                holder[last] = out if many else out[0]
        model[self.field] = list(ids)


def _holders(model, steps: list[str]) -> list:
    """The records ``steps`` reach from ``model`` (``name[*]``: each element of a list; a
    None field, absent on the wire, holds nothing)."""
    holders = [model]
    for step in steps:
        many = step.endswith("[*]")
        name = step[:-3] if many else step
        reached = []
        for holder in holders:
            value = holder[name]
            if value is None:
                continue
            if not many:
                reached.append(value)
                continue
            for element in value:
                if element is not None:
                    reached.append(element)
        holders = reached
    return holders
