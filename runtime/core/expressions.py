"""What a spec expression (a size, a count, a condition) needs at run time: arithmetic
guarded against sizes taken from the data, and the errors of an expression that fails.

The generated code calls these as ``rt.power``, ``rt.shift_left``, ``rt.times`` (``rt``
being :mod:`runtime.core.record`, which re-exports them), so ``2 ** n`` with ``n`` read
from the data cannot hang the decoder:

    >>> power(2, 10), shift_left(1, 18), times(3, 4)
    (1024, 262144, 12)
    >>> str(expression_error(IndexError("list index out of range"), 5, "sizes"))
    "sizes at offset 5: the spec's expression for this field fails on this data: IndexError: list index out of range"
"""

from __future__ import annotations

from runtime.core.errors import DecodeError, EncodeError
from runtime.core.stream import remaining

EXPRESSION_ERRORS = (IndexError, KeyError, TypeError, ValueError, AttributeError, ArithmeticError)
"""What a spec expression (a size, a count, a condition) raises on data that does not fit
it, say a size table with too few entries: reported as a DecodeError at the field."""


def _expression_message(err: Exception) -> str:
    return f"the spec's expression for this field fails on this data: {type(err).__name__}: {err}"


def expression_error(err: Exception, offset: int, path: str) -> DecodeError:
    """The DecodeError for a spec expression that fails on the data (``err``, one of
    :data:`EXPRESSION_ERRORS`) at the field ``path`` starting at ``offset``."""
    return DecodeError(_expression_message(err), offset=offset, path=path)


def unsatisfied(field: str, value, text: str, offset: int, message: str = "") -> DecodeError:
    """The DecodeError for a field whose ``valid:`` expression ``text`` is false; it says
    ``message`` when the spec gives one (``valid: {check, message}``).

    >>> str(unsatisfied("n", 7, "n < 3", 4)), str(unsatisfied("n", 7, "n < 3", 4, "too many"))
    ('<message> at offset 4: n = 7 does not satisfy n < 3', '<message> at offset 4: too many')
    """
    return DecodeError(unsatisfied_text(field, value, text, message), offset=offset)


def unsatisfied_text(field: str, value, text: str, message: str = "") -> str:
    """What :func:`unsatisfied` says, without an offset (build's EncodeError says it too).

    >>> unsatisfied_text("n", 7, "n < 3"), unsatisfied_text("n", 7, "n < 3", "too many")
    ('n = 7 does not satisfy n < 3', 'too many')
    """
    if message:
        return message
    shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:77] + "..."
    return f"{field} = {shown} does not satisfy {text}"


EXPRESSION_MAX_BITS = 4096
"""The largest integer a spec expression may make with ``**``, ``<<`` or ``*``. The
operands come from the data, and an unbounded power or shift (``2 ** n`` with ``n`` read as
4 billion) would hang the decoder building a number of gigabytes."""


def power(base, exponent):
    """``base ** exponent`` of a spec expression, refused (ValueError: reported as a
    DecodeError at the field) when the result would pass :data:`EXPRESSION_MAX_BITS`.

    >>> power(2, 10)
    1024
    >>> power(2, 1 << 32)
    Traceback (most recent call last):
    ...
    ValueError: 2 ** 4294967296 is too large for a spec expression
    """
    integers = isinstance(base, int) and isinstance(exponent, int)
    if integers and abs(base) > 1 and (abs(base).bit_length() - 1) * exponent > EXPRESSION_MAX_BITS:
        raise ValueError(f"{base} ** {exponent} is too large for a spec expression")
    return base**exponent


def shift_left(value, count):
    """``value << count`` of a spec expression, refused past :data:`EXPRESSION_MAX_BITS`.

    >>> shift_left(1, 18)
    262144
    >>> shift_left(1, 10**9)
    Traceback (most recent call last):
    ...
    ValueError: 1 << 1000000000 is too large for a spec expression
    """
    integers = isinstance(value, int) and isinstance(count, int)
    if integers and value and value.bit_length() + count > EXPRESSION_MAX_BITS:
        raise ValueError(f"{value} << {count} is too large for a spec expression")
    return value << count


def times(left, right):
    """``left * right`` of a spec expression: numbers only, so a list or bytes value from
    the data is never repeated a number of times the data says.

    >>> times(3, 4)
    12
    >>> times([0], 10**9)
    Traceback (most recent call last):
    ...
    TypeError: a spec expression multiplies numbers, not list
    """
    for operand in (left, right):
        if not isinstance(operand, (int, float)):
            raise TypeError(f"a spec expression multiplies numbers, not {type(operand).__name__}")
    integers = isinstance(left, int) and isinstance(right, int)
    if integers and left.bit_length() + right.bit_length() > EXPRESSION_MAX_BITS:
        raise ValueError(f"{left} * {right} is too large for a spec expression")
    return left * right


def bytes_left(context, name: str, earlier: str) -> bool:
    """``if: bytes_left()`` in construct: on parse, whether the stream of the record
    (its sized region) has bytes left; on build, whether the model has field ``name``,
    which it may only have if it has ``earlier``, the ``bytes_left()`` field before it.

    >>> import io
    >>> from construct import Container
    >>> bytes_left(Container(_building=False, _io=io.BytesIO(b"x")), "b", "")
    True
    >>> bytes_left(Container(_building=True, a=None, b=7), "b", "a")
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: <model>: b is set but a, before it, is None: a field read only while bytes remain is absent, so every later one is
    """
    if not context._building:
        return remaining(context._io) > 0
    if context[name] is None:
        return False
    if earlier and context[earlier] is None:
        raise EncodeError(
            f"{name} is set but {earlier}, before it, is None: a field read only while bytes "
            "remain is absent, so every later one is"
        )
    return True
