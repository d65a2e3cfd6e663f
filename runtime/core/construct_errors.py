"""construct's error texts said as wirespec says them: without construct's own path, and a
fixed-width number it could not pack as the other writers say it ("expected an integer,
got str 'x'", "-1 is out of range for uint32")."""

from __future__ import annotations

import re
import struct

from construct import ConstError, StreamError

from runtime.core.errors import EncodeError


def construct_message(err: Exception) -> str:
    """The explanation in construct's error ``err`` (a short read: what it lacked).

    >>> from construct import ConstructError, Int16ub
    >>> try:
    ...     Int16ub.parse(b"x")
    ... except ConstructError as err:
    ...     print(construct_message(err))
    truncated: expected 2, found 1
    """
    if isinstance(err, StreamError):
        return "truncated: " + str(err).rsplit("amount, ", 1)[-1]
    text = str(err)
    # construct prefixes its messages with its own path ("Error in path (parsing) -> x");
    # ours is more precise, so keep only the explanation.
    if "\n" in text:
        text = text.split("\n", 1)[1]
    if isinstance(err, ConstError):
        # construct's "parsing expected 2 but parsed 3": the fast paths' words without it
        text = text.strip().removeprefix("parsing ")
    return text.strip() or type(err).__name__


_FORMAT_FAILED = re.compile(
    r"struct '([<>=!@]?)([bBhHiIlLqQefd])' error during building, given value "
)
"""construct's words for a fixed-width number it could not pack (``FormatField``)."""


def packing_message(err: Exception, value) -> str:
    """:func:`construct_message` of a failure to build ``value``, construct's ``struct '<L' error
    during building, given value 'x'`` said as the other writers say it.

    >>> from construct import ConstructError, Float32b, Int32ul
    >>> def fails(field, value):
    ...     try:
    ...         field.build(value)
    ...     except ConstructError as err:
    ...         return packing_message(err, value)
    >>> fails(Int32ul, "x"), fails(Int32ul, -1), fails(Float32b, [1])
    ("expected an integer, got str 'x'", '-1 is out of range for uint32', 'expected a number, got list [1]')
    """
    text = construct_message(err)
    match = _FORMAT_FAILED.match(text)
    if match is None or text[match.end() :] != repr(value):  # not the value itself: an element
        return text
    return unpackable(match.group(1) + match.group(2), value)


def unpackable(fmt: str, value) -> str:
    """Why ``struct`` format ``fmt`` (one number) cannot pack ``value``, as the writers say it.

    >>> unpackable(">H", "x"), unpackable("<b", 200), unpackable("<f", 1e300), unpackable("Q", 1.5)
    ("expected an integer, got str 'x'", '200 is out of range for int8', '1e+300 is out of range for float32', 'expected an integer, got float 1.5')
    """
    code = fmt[-1]
    bits = struct.calcsize(fmt) * 8
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return EncodeError.expected("a number" if code in "efd" else "an integer", value).message
    if code in "efd":
        return f"{value} is out of range for float{bits}"
    if isinstance(value, float):
        return EncodeError.expected("an integer", value).message
    return f"{value} is out of range for {'int' if code.islower() else 'uint'}{bits}"
