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

import dataclasses

from .errors import LimitError, WirespecError


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

    @classmethod
    def from_kwargs(cls, kwargs: dict, base: Limits | None = None) -> Limits:
        """``base`` (default: the defaults above) with the limits ``kwargs`` names replaced.

        >>> Limits.from_kwargs({"max_depth": 8}, Limits(max_count=5)).max_count
        5
        """
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(kwargs) - names
        if unknown:
            raise WirespecError(f"unknown limit(s) {sorted(unknown)}; known: {sorted(names)}")
        return dataclasses.replace(base, **kwargs) if base is not None else cls(**kwargs)

    def check(self, what: str, value: int, *, offset: int | None = None) -> None:
        """Raise :class:`LimitError` if ``value`` exceeds the limit named ``what``."""
        limit = getattr(self, what)
        if value > limit:
            raise LimitError(f"{value} exceeds the limit {what}={limit}", offset=offset)


DEFAULT = Limits()

LIMIT_NAMES = tuple(f.name for f in dataclasses.fields(Limits))


def limits_from_options(options) -> dict[str, int]:
    """The limits named in ``options`` (a mapping of limit name -> value, values as strings
    the way Spark options and ``--limit NAME=VALUE`` give them, or ints), validated: a
    name that is no limit or a value that is not a positive integer raises ValueError.
    Returns only the given limits, as ``parse(data, **limits)`` takes them.

    >>> limits_from_options({"max_count": "5000000"})
    {'max_count': 5000000}
    >>> limits_from_options({"max_cont": "5"})
    Traceback (most recent call last):
    ...
    ValueError: unknown limit 'max_cont'; limits: max_message_bytes, max_depth, max_count, max_string
    """
    out = {}
    for name, value in options.items():
        if name not in LIMIT_NAMES:
            raise ValueError(f"unknown limit {name!r}; limits: {', '.join(LIMIT_NAMES)}")
        text = str(value).strip().replace("_", "")
        if isinstance(value, bool) or not text.isdigit() or int(text) < 1:
            raise ValueError(f"limit {name} must be a positive integer, got {value!r}")
        out[name] = int(text)
    return out


def current(context) -> Limits:
    """The limits of the parse that ``context`` belongs to (defaults outside a parse)."""
    params = getattr(context, "_params", None) or {}
    return params.get("limits", DEFAULT) if hasattr(params, "get") else DEFAULT
