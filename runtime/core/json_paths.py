"""Where in a JSON form a ``from_dict`` converter failed: the key path of the value it
could not take, found only after it failed.

A converter reads its form with plain ``d["key"]``, ``d.get(...)`` and ``for item in ...``,
and keeps no path while it works (a path kept on every read would cost every good form).
When it fails, :func:`located` runs it once more over a copy of the form whose objects,
lists and strings log each read, and the last read is the value it could not take:

    >>> def row_from_dict(d):
    ...     return [int(item) for item in d.get("cells") or []]
    >>> def message_from_dict(d):
    ...     return [row_from_dict(item) for item in d.get("rows") or []]
    >>> form = {"rows": [{"cells": [1]}, {"cells": 7}]}
    >>> try:
    ...     message_from_dict(form)
    ... except TypeError as err:
    ...     print(located(message_from_dict, form, err))
    rows[1].cells: expected a list, got int

A converter takes the form it reads as its first argument, which is how a value it refuses
as a whole reads "expected an object" rather than "expected a list".
"""

from __future__ import annotations

import sys

from runtime.core.errors import EncodeError

_KINDS = {type(None): "null", bool: "bool", int: "int", float: "float", str: "str", list: "list"}


def kind(value) -> str:
    """The JSON name of ``value``'s type (``object`` for a dict).

    >>> kind(None), kind({}), kind(True), kind("x")
    ('null', 'object', 'bool', 'str')
    """
    if isinstance(value, dict):
        return "object"
    for cls, name in _KINDS.items():
        if isinstance(value, cls):  # bool before int: the table is in that order
            return name
    return type(value).__name__


def _child(at: str, key) -> str:
    if isinstance(key, int):
        return f"{at}[{key}]"
    return f"{at}.{key}" if at else str(key)


class _Misplaced(Exception):
    """A logged string iterated: a string where a list or an object belongs."""


class _Log:
    """The reads of one replay: ``(path, value)`` of the last value handed out."""

    __slots__ = ("missing", "owner", "path", "value")

    def __init__(self):
        self.path, self.value, self.missing, self.owner = None, None, None, None

    def read(self, at: str, key, value):
        self.path, self.value, self.missing = _child(at, key), value, None
        return value


class _Object(dict):
    __slots__ = ("_at", "_log")

    def __getitem__(self, key):
        try:
            return self._log.read(self._at, key, dict.__getitem__(self, key))
        except KeyError:
            self._log.path, self._log.missing = _child(self._at, key), key
            self._log.owner = self._at  # where an error the miss leads to is (another key)
            raise

    def get(self, key, default=None):
        return self._log.read(self._at, key, dict.get(self, key, default))

    def items(self):
        for key, value in dict.items(self):
            yield key, self._log.read(self._at, key, value)

    def values(self):
        for key, value in dict.items(self):
            yield self._log.read(self._at, key, value)


class _List(list):
    __slots__ = ("_at", "_log")

    def __iter__(self):
        for index, value in enumerate(list.__iter__(self)):
            yield self._log.read(self._at, index, value)

    def __getitem__(self, index):
        value = list.__getitem__(self, index)
        if isinstance(index, int):
            self._log.read(self._at, index if index >= 0 else len(self) + index, value)
        return value


class _Text(str):
    # no __slots__: a str subclass cannot have any
    def __iter__(self):
        # no converter iterates a string it takes: iterated, it stands where a list or an
        # object belongs (the frame that iterates says which)
        raise _Misplaced(self._at, _expected(self, sys._getframe(1)), "str")


def _logged(value, at: str, log: _Log):
    """A copy of ``value`` whose objects, lists and strings log their reads into ``log``."""
    if isinstance(value, dict):
        out = _Object((k, _logged(v, _child(at, k), log)) for k, v in value.items())
    elif isinstance(value, list):
        out = _List(_logged(v, _child(at, i), log) for i, v in enumerate(value))
    elif isinstance(value, str):
        out = _Text(value)
    else:
        return value
    out._at, out._log = at, log
    return out


def _expected(value, frame) -> str:
    """What ``frame``'s converter wanted of ``value``: its whole form (its first argument)
    is an object, anything else it iterates is a list."""
    if frame is None or not frame.f_code.co_argcount:
        return "a list"
    form = frame.f_locals.get(frame.f_code.co_varnames[0])
    return "an object" if form is value else "a list"


def _innermost(err: BaseException):
    tb = err.__traceback__
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame


def _segments(path: str) -> list:
    out = []
    for part in path.replace("[", ".[").split("."):
        if part:
            out.append(int(part[1:-1]) if part.startswith("[") and part[1:-1].isdigit() else part)
    return out


def _resolves(form, segments: list) -> bool:
    """Whether ``segments`` lead from the top of ``form`` to a value (a path a converter
    that keeps its own paths, Open Protocol's and Craft's, gives from the top)."""
    for step in segments:
        in_object = isinstance(form, dict) and not isinstance(step, int) and step in form
        in_list = isinstance(form, list) and isinstance(step, int) and 0 <= step < len(form)
        if not (in_object or in_list):
            return False
        form = form[step]
    return True


def _absent_key(form, segments: list) -> bool:
    """Whether ``segments`` (two or more) lead from the top of ``form`` to an object that
    lacks their last key: the path of a missing key that a converter keeping its own paths
    names."""
    if len(segments) < 2 or isinstance(segments[-1], int) or not _resolves(form, segments[:-1]):
        return False
    parent = form
    for step in segments[:-1]:
        parent = parent[step]
    return isinstance(parent, dict) and segments[-1] not in parent


def _join(at: str, path: str, form) -> str:
    """``path`` (an error's own, relative to some level) under ``at`` (where the replay's
    last read was): ``at`` when it already ends there (the error's path names that read,
    perhaps without list indices), ``path`` when it is one from the top of ``form``, else
    the two joined."""
    mine, theirs = _segments(at), _segments(path)
    names = [s for s in mine if not isinstance(s, int)]
    their_names = [s for s in theirs if not isinstance(s, int)]
    if mine[len(mine) - len(theirs) :] == theirs or (
        their_names and names[len(names) - len(their_names) :] == their_names
    ):
        return at
    if not at or _resolves(form, theirs) or _absent_key(form, theirs):
        return path
    return at + ("" if path.startswith("[") else ".") + path


def located(converter, form, err: BaseException) -> EncodeError:
    """The :class:`EncodeError` of ``converter``'s failure ``err`` on ``form``, with the key
    path of the value it could not take (a replay over a logging copy of ``form``); ``err``
    as an EncodeError without a path when the replay does not fail again."""
    log = _Log()
    try:
        converter(_logged(form, "", log))
    except _Misplaced as misplaced:
        at, expected, got = misplaced.args
        return EncodeError(f"expected {expected}, got {got}", path=at)
    except RecursionError:
        return _plain(err)
    except Exception as again:  # noqa: BLE001 - whatever it was, the log says where
        return _at(again, log, form)
    return _plain(err)


def _at(err: BaseException, log: _Log, form) -> EncodeError:
    at = log.path or ""
    value = form if log.path is None else log.value
    if isinstance(err, EncodeError) and isinstance(err.__context__, (TypeError, AttributeError)):
        # a converter that wraps what Python raised (Thrift's): the wrapped error says more
        err = err.__context__
    if isinstance(err, EncodeError) and log.missing is not None and err.path:
        # raised on the miss (a key in the missing one's place): its path is the object's
        at = log.owner
    if isinstance(err, EncodeError):
        return EncodeError(err.message, path=_join(at, err.path, form) if err.path else at)
    if isinstance(err, KeyError) and log.missing is not None:
        return EncodeError(f"missing key {log.missing!r}", path=at)
    if isinstance(err, (TypeError, AttributeError)):
        expected = _expected(value, _innermost(err))
        return EncodeError(f"expected {expected}, got {kind(value)}", path=at)
    return EncodeError(str(err), path=at)


def _plain(err: BaseException) -> EncodeError:
    if isinstance(err, EncodeError):
        return err
    if isinstance(err, KeyError):
        return EncodeError(f"missing key {err}")
    return EncodeError(f"malformed JSON form: {err}")
