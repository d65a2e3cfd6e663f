"""Limits on what untrusted input may make a parser allocate or recurse into.

Every generated ``parse(data, **limits)`` accepts these as keyword arguments and hands
them to the constructs through construct's ``_params`` as ``limits``:

    >>> Limits().max_depth
    64
    >>> Limits.from_kwargs({"max_count": 10}).max_count
    10

A construct asks :func:`current` for the limits in force and calls :meth:`Limits.check`
*before* allocating anything sized by a length or count it has read.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from collections.abc import Mapping

from runtime.core.errors import LimitError, OptionError, WirespecError


@dataclasses.dataclass(frozen=True)
class Limits:
    """Safe defaults; each can be overridden per call (``parse(data, max_count=1000)``)."""

    max_message_bytes: int = 64 * 1024 * 1024
    """Largest input a parser accepts."""
    max_depth: int = 64
    """Deepest nesting of structs/containers (Apache Thrift's default)."""
    max_count: int = 1_000_000
    """Largest element count of one list, map, chunk or repetition."""
    max_string: int = 16 * 1024 * 1024
    """Largest byte length of one string or byte field."""
    max_decompressed_bytes: int = 64 * 1024 * 1024
    """Largest decoded size of one ``process:`` region (compressed data)."""

    @classmethod
    def from_kwargs(cls, kwargs: dict, base: Limits | None = None) -> Limits:
        """``base`` (default: the defaults above) with the limits ``kwargs`` names replaced.

        >>> Limits.from_kwargs({"max_depth": 8}, Limits(max_count=5)).max_count
        5
        """
        key = (cls, base, *kwargs.items())
        if all(type(value) is int for value in kwargs.values()):
            made = _MADE.get(key)
            if made is not None:
                return made
        else:  # True == 1.0 == 1 would find one another's entry (an unhashable one none)
            key = None
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(kwargs) - names
        if unknown:
            raise WirespecError(f"unknown limit(s) {sorted(unknown)}; known: {sorted(names)}")
        for name, value in kwargs.items():  # the readers compare them with C integers
            if not isinstance(value, int):
                raise OptionError(f"limit {name} must be a whole number, got {value!r}")
        made = dataclasses.replace(base, **kwargs) if base is not None else cls(**kwargs)
        if key is not None:
            if len(_MADE) >= _MADE_MAX:
                _MADE.clear()
            _MADE[key] = made
        return made

    def check(self, what: str, value: int, *, offset: int | None = None) -> None:
        """Raise :class:`LimitError` if ``value`` exceeds the limit named ``what``."""
        limit = getattr(self, what)
        if value > limit:
            raise LimitError(f"{value} exceeds the limit {what}={limit}", offset=offset)


_MADE: dict[tuple, Limits] = {}
"""The limits made for each (class, base, keyword arguments): a call with limits (Spark passes
them with every record) costs a dict look-up, not a dataclass replace."""
_MADE_MAX = 256

DEFAULT = Limits()

LIMIT_NAMES = tuple(f.name for f in dataclasses.fields(Limits))


def limits_from_options(options: Mapping) -> dict[str, int]:
    """The limits ``options`` names, as ints: ``{"max_count": "5000000"}`` -> ``{"max_count":
    5000000}``. Other keys are ignored (the caller owns them); names match case-insensitively,
    as Spark options do. Values are ints or strings of decimal digits (``"5_000_000"``
    too); anything else, or a value below 1, raises :class:`OptionError` naming the option.

    >>> limits_from_options({"max_count": "5_000_000", "mode": "PERMISSIVE"})
    {'max_count': 5000000}
    >>> limits_from_options({"MAX_DEPTH": 8})
    {'max_depth': 8}
    """
    out = {}
    for key, value in options.items():
        name = str(key).lower()
        if name not in LIMIT_NAMES:
            continue
        number = value if isinstance(value, int) and not isinstance(value, bool) else None
        if isinstance(value, str):
            try:
                number = int(value)
            except ValueError:
                pass
        if number is None:
            raise OptionError(f"limit {name} must be a whole number, got {value!r}")
        if number < 1:
            raise OptionError(f"limit {name} must be at least 1, got {value!r}")
        out[name] = number
    return out


def current(context) -> Limits:
    """The limits of the parse that ``context`` belongs to (defaults outside a parse)."""
    params = getattr(context, "_params", None) or {}
    return params.get("limits", DEFAULT) if hasattr(params, "get") else DEFAULT


FRAMES_PER_RECORD = 16
"""Python frames the construct objects nest per record they read or write, with room to
spare: a BSON document's three records (document, element list, element) take 28 to
parse, 14 to build."""

MOST_FRAMES = 10_000
"""The recursion limit :func:`stack_for` raises Python's to at most, whatever ``max_depth``
says: deeper stays a clean "nesting too deep" error, not a crash of the C stack."""


@contextlib.contextmanager
def stack_for(max_depth: int):
    """Python's recursion limit raised, while the block runs, to what ``max_depth`` records
    nested need through the construct objects (each a few Python frames deep): the
    limit of 1,000 frames would refuse the 100 levels of BSON documents ``max_depth`` 302
    allows. Never lowered; put back when the block ends unless another raised it since.

    >>> with stack_for(302):
    ...     sys.getrecursionlimit() >= 302 * FRAMES_PER_RECORD
    True
    """
    before = sys.getrecursionlimit()
    needed = min(_stack_depth() + max_depth * FRAMES_PER_RECORD, MOST_FRAMES)
    if needed <= before:
        yield
        return
    sys.setrecursionlimit(needed)
    try:
        yield
    finally:
        if sys.getrecursionlimit() == needed:
            sys.setrecursionlimit(before)


def _stack_depth() -> int:
    """How many frames deep the stack already is."""
    frame, depth = sys._getframe(1), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth
