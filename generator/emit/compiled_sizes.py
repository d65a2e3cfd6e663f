"""The compiled writers' marks in their buffer, and the sizes taken from them, as C integers.

A writer rendered from a fast writer (:mod:`generator.emit.compiled_writers`) marks where
it is in the C buffer (``f_x_start = out.size``, a size's placeholder ``f_n_at``) and
takes sizes from those marks (``s_x = f_x_end - f_x_start``, a reserved size
``f_n = s_x + 5``). Left to Cython untyped, each is a Python int made and read back;
declared ``Py_ssize_t`` they are C arithmetic, and a size put by ``put_fixed_int`` goes to
``put_fixed_size`` (chunk_writers.pxd), which takes the C integer as it is.
"""

from __future__ import annotations

import re

_MARK = re.compile(r"^ *(\w+) = out\.size(?:  #.*)?$", re.MULTILINE)
"""A writer's mark of where it is in the buffer (a size's place, a field's start)."""

_FROM_MARKS = re.compile(
    r"^    (\w+) = ((?:\w+|out\.size)(?: [+-] (?:\w+|out\.size))*)$", re.MULTILINE
)
"""A name bound, in the writer's own block (bound before any line of it below reads it),
to a sum or difference of names, ``out.size`` and integers."""


def _bindings(body: str, name: str) -> int:
    """How many statements bind ``name`` (an assignment, ``+=``, a loop's or an
    unpacking's target)."""
    word = rf"(?<![\w.]){name}(?!\w)"
    bound = re.findall(
        rf"^ *(?:for |.*,\s*)?{word}(?:\s*,.*)?\s*(?:[-+*/%&|^]|<<|>>|//)?=(?!=)",
        body,
        re.MULTILINE,
    )
    return len(bound) + len(re.findall(rf"\bfor\b[^:]*{word}[^:]*\bin\b", body))


def size_marks(body: str) -> list[str]:
    """The names a writer binds only to ``out.size`` (its marks), which can be C integers:
    every other binding of the name (another assignment, ``+=``, a loop's or an unpacking's
    target) keeps it a Python object.

    >>> size_marks("    at = out.size\\n    n = out.size\\n    for n in x:\\n        pass")
    ['at']
    """
    marks = []
    for name in sorted(set(_MARK.findall(body))):
        if _bindings(body, name) == len(
            re.findall(rf"^ *{name} = out\.size(?:  #.*)?$", body, re.MULTILINE)
        ):
            marks.append(name)
    return marks


def mark_sizes(body: str, marks: list[str]) -> list[str]:
    """The names a writer binds only to sums and differences of its marks, of each other
    and of integers (no product, so no C overflow), which can be C integers too.

    >>> mark_sizes("    s_x = x_end - x_start\\n    f_n = s_x + 5\\n    f_m = s_x + k", ["x_end", "x_start"])
    ['f_n', 's_x']
    """
    c_ints = set(marks)
    found: set[str] = set()
    while True:
        added = set()
        for name, expression in _FROM_MARKS.findall(body):
            if name in c_ints or name in added:
                continue
            operands = re.findall(r"out\.size|\w+", expression)
            if not all(o == "out.size" or o.isdigit() or o in c_ints for o in operands):
                continue
            if _bindings(body, name) == 1:
                added.add(name)
        if not added:
            return sorted(found)
        c_ints |= added
        found |= added


def sizes_put_as_c(body: str, sizes: list[str]) -> str:
    """``body`` with each of ``sizes`` put by ``put_fixed_size``, not as a Python int.

    >>> sizes_put_as_c("    put_fixed_int(out, f_n, 4, False, True)", ["f_n"])
    '    put_fixed_size(out, f_n, 4, False, True)'
    """
    for name in sizes:
        body = re.sub(rf"\bput_fixed_int\(out, {name}, ", f"put_fixed_size(out, {name}, ", body)
    return body
