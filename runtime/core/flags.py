"""A strict ``flags:`` enum's values: any set of its flags, 0 (no flag) too, and nothing
with a bit no flag names (``open: true`` keeps those).

Every tier reads one through :class:`FlagMembers` (the generated module's ``_X_BY_VALUE``)
and construct's ``EnumField`` through :func:`flag_member`, so they agree on what is a member.
"""

from __future__ import annotations

import enum
from functools import reduce
from operator import or_


def known_bits(enum_class: type[enum.IntFlag]) -> int:
    """The bits a flags enum names (every member's, several-bit ones too).

    >>> class Flag(enum.IntFlag):
    ...     A = 1
    ...     C = 4
    >>> known_bits(Flag)
    5
    """
    return reduce(or_, (int(m) for m in enum_class.__members__.values()), 0)


def flag_member(enum_class: type[enum.IntFlag], value: int, known: int | None = None):
    """``value`` as a set of ``enum_class``'s flags, or None where it has a bit no flag names
    (or is negative).

    >>> class Flag(enum.IntFlag):
    ...     A = 1
    ...     C = 4
    >>> flag_member(Flag, 5), flag_member(Flag, 0), flag_member(Flag, 2)
    (<Flag.A|C: 5>, <Flag: 0>, None)
    >>> flag_member(Flag, Flag.C), flag_member(Flag, 8)
    (<Flag.C: 4>, None)
    """
    if known is None:
        known = known_bits(enum_class)
    if not isinstance(value, int) or value < 0 or value & ~known:
        return None  # a member passes (an int with known bits only); a bool as other enums' do
    return enum_class(value)


class FlagMembers(dict):
    """A strict flags enum's members by value, as ``_X_BY_VALUE`` is for other enums: ``get``
    gives any set of its flags (0 too), None for a value with a bit no flag names.

    The dict itself holds every set that fits in a byte, 0 too (:meth:`byte_table`, which
    the compiled tier's per-byte tables are built from), and each flag past the byte;
    ``get`` makes the wider sets, keeping none (a stream of distinct values must not grow
    it).

    >>> class Flag(enum.IntFlag):
    ...     A = 1
    ...     C = 4
    >>> members = FlagMembers(Flag)
    >>> sorted(members), members.get(0), members.get(5), members.get(2)
    ([0, 1, 4, 5], <Flag: 0>, <Flag.A|C: 5>, None)
    >>> members[0], 0 in members
    (<Flag: 0>, True)
    """

    def __init__(self, enum_class: type[enum.IntFlag]):
        self.enum_class = enum_class
        self.known = known_bits(enum_class)
        low = self.known & 0xFF
        subset = low
        while subset:  # every non-empty subset of the byte's known bits
            self[subset] = enum_class(subset)
            subset = (subset - 1) & low
        self[0] = enum_class(0)
        super().update((m.value, m) for m in enum_class if m.value > 0xFF)

    def __missing__(self, value):
        """``members[value]``, as the fast and compiled writers look a value up (a set past
        a byte too): KeyError for a bit no flag names (the writer then leaves the build to
        construct, which says why)."""
        member = flag_member(self.enum_class, value, self.known)
        if member is None:
            raise KeyError(value)
        return member

    def get(self, value, default=None):
        member = dict.get(self, value)
        if member is None:
            member = flag_member(self.enum_class, value, self.known)
        return default if member is None else member

    def byte_table(self, *, named: bool = False) -> dict:
        """The members that fit in a byte, by value, as a plain dict: the compiled tier's
        per-byte tables (its readers' members, its Arrow writers' names) are built from it.
        0 (no flag) is in it unless ``named``: its member is the one set with no name.

        >>> class Flag(enum.IntFlag):
        ...     A = 1
        ...     C = 4
        ...     W = 0x100
        >>> table = FlagMembers(Flag).byte_table()
        >>> type(table), sorted(table), table[5]
        (<class 'dict'>, [0, 1, 4, 5], <Flag.A|C: 5>)
        >>> sorted(FlagMembers(Flag).byte_table(named=True))
        [1, 4, 5]
        """
        return {
            value: member
            for value, member in self.items()
            if value <= 0xFF and (value or not named)
        }


def flag_names(member: enum.IntFlag) -> list[str]:
    """A flags value's JSON form: the names of its flags, in the enum's order (several-bit
    members too, as :class:`runtime.core.codec.OpenEnum` shows them); no flag is ``[]``.

    >>> class Flag(enum.IntFlag):
    ...     A = 1
    ...     C = 4
    >>> flag_names(Flag.A | Flag.C), flag_names(Flag(0))
    (['A', 'C'], [])
    """
    value = int(member)
    return [m.name for m in type(member).__members__.values() if m and value & m == m]


def flags_from_names(enum_class: type[enum.IntFlag], names: list):
    """The flags value of a list of flag names (the JSON form; numbers too); KeyError for a
    name no flag has, None for a number with a bit no flag names.

    >>> class Flag(enum.IntFlag):
    ...     A = 1
    ...     C = 4
    >>> flags_from_names(Flag, ["C", "A"]), flags_from_names(Flag, []), flags_from_names(Flag, [2])
    (<Flag.A|C: 5>, <Flag: 0>, None)
    """
    bits = 0
    for name in names:
        bits |= enum_class[name] if isinstance(name, str) else name
    return flag_member(enum_class, bits)
