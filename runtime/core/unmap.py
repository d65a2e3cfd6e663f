"""The way back of a spec's ``map:``: what the rendered functions of a generated module's
``UNMAPPINGS`` call (``generator/emit/unmapping.py`` renders them from the spec).

A rendered unmapping turns one model into the parts of its element of the source record
(an estimate, its header row, its body), checking every field as it goes; on a fault it
calls ``fail(path, problem, value)``. The quick path passes :func:`give_up` (any fault: map
the model again, checked), the checked path a :class:`WriteFaults`, which raises the exact
:class:`~runtime.core.errors.EncodeError` at the path. ``problem`` is either the spec's
message (``{value}``, ``{value!r}``, ``{type}`` and ``{got}`` in it are the value, its repr,
its type's name and both as :meth:`EncodeError.expected` says them: plain text
replacement, never ``str.format``) or the writer whose own error
it is, called with ``value`` (a tuple of arguments): when the writer accepts them after
all (a numpy integer, a bytearray), ``fail`` returns what it returns.

    >>> from runtime.core.leb128 import write_uvarint
    >>> fail = WriteFaults(("events", 2))
    >>> fail(("commit_ts",), "commit ts {value!r} is not a uint64", -1)
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: events[2].commit_ts: commit ts -1 is not a uint64
    >>> fail(("query",), "expected str, got {got}", 7)
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: events[2].query: expected str, got int 7
    >>> fail(("new", 0, "flags"), write_uvarint, (2**64,))
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: events[2].new[0].flags: uvarint 18446744073709551616 is out of range for uint64
    >>> wire_size("é"), wire_size(None), wire_size(b"ab")
    (2, 0, 2)
"""

from __future__ import annotations

from collections.abc import Callable

from runtime.core.errors import EncodeError, shown


class GiveUp(Exception):
    """The quick path (a ``map:``'s mapping or its way back) met something it leaves to the
    checked one."""


def give_up(*_fault):
    """The quick path's ``fail``: any fault goes to the checked path."""
    raise GiveUp


class WriteFaults:
    """The checked path's ``fail``: raises the EncodeError of a fault at ``prefix`` + its
    path (names and list indices, outermost first)."""

    __slots__ = ("prefix",)

    def __init__(self, prefix: tuple = ()):
        self.prefix = prefix

    def __call__(self, path: tuple, problem: str | Callable, value=None):
        if isinstance(problem, str):
            message = problem.replace("{value!r}", repr(value)).replace("{value}", f"{value}")
            message = message.replace("{type}", type(value).__name__)
            return self.raise_at(path, EncodeError(message.replace("{got}", shown(value))))
        try:
            return problem(*value)
        except EncodeError as err:
            return self.raise_at(path, err)

    def raise_at(self, path: tuple, err: EncodeError):
        for part in reversed(self.prefix + path):
            if isinstance(part, int):
                err.add_path(index=part)
            else:
                err.add_path(part)
        raise err


def wire_size(value) -> int:
    """The bytes ``value`` takes as written: a name's UTF-8 (unpaired surrogates kept, as
    Go strings hold any bytes), a value's bytes, 0 for None or the empty name (the
    ``sizeof()`` of a ``batch:`` ``estimate:``)."""
    if not value:
        return 0
    if type(value) is str:
        return len(value.encode("utf-8", "surrogateescape"))
    return len(value)


class WayBack:
    """The rendered way back of one ``map:`` (a generated module's ``UNMAPPINGS[record]``):
    ``unmap(model, fail, kinds) -> (estimate, header row, body)``, ``frame(parts, fail) ->
    the source record's model`` (names not yet interned), and ``batch(events, writer,
    *limits)``, the spec's ``batch:`` (``writer``: ``parts(i, model)``, ``pack(parts)``
    and ``batches(events, *limits)``, the compiled tier's answer or None)."""

    __slots__ = ("batch", "frame", "unmap")

    def __init__(self, unmap, frame, batch):
        self.unmap, self.frame, self.batch = unmap, frame, batch
