"""The lists a rendered writer builds that nothing reads, left out of it.

A fast writer (:mod:`generator.emit.fastbuild`, and the compiled writers rendered from it)
writes a repeated field as construct's repeats build it: each element's built value onto
a list that becomes the field's value, each element's size onto ``s_<name>`` where some
``sizeof`` may measure it. Most writers read neither afterwards (the record returns
``EMPTY_PARENT``, no later expression names the field): the lists are then one allocation
and one append per element for nothing (a BSON document's elements: most of what its
writer did besides writing). :func:`without_dead_lists` drops them from the rendered
source, with the marks only their appends read and the loop counter nothing reads::

    items1 = []                              # dropped
    s_elements = []                          # dropped
    for i2, item3 in enumerate(f_elements or ()):    ->  for item3 in f_elements or ():
        at4 = len(out)                       # dropped
        item3 = _write_element(item3, out)
        items1.append(item3)                 # dropped
        s_elements.append(len(out) - at4)    # dropped
    f_elements = items1                      # dropped: f_elements not read below

The pass reads the writers' own regular lines (one statement a line), so it keeps whatever
it does not recognise: a list read by any other line, a field's value read after the
list became it (or inside a loop, where a later line may run first).
"""

from __future__ import annotations

import ast
import re

_NEW_LIST = re.compile(r"^ *(\w+) = (?:\[\]|0  # absent.*)$")
"""A list started empty (or a size list's 0 where its field is absent)."""

_LOOP = re.compile(r"^( *)for (\w+), (\w+) in enumerate\((.+)\):$")
"""A loop over ``enumerate``: its counter may be read by no line."""

_MARK = re.compile(r"^ *(\w+) = len\(out\)$")
"""A writer's mark of where it is in ``out``."""


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _in_loop(lines: list[str], at: int) -> bool:
    """Whether line ``at`` is inside a ``for`` or ``while`` block."""
    depth = _indent(lines[at])
    for line in reversed(lines[:at]):
        if line.strip() and _indent(line) < depth:
            if re.match(r" *(for|while)\b", line):
                return True
            depth = _indent(line)
    return False


def _uses(lines: list[str], name: str) -> list[int]:
    word = re.compile(rf"(?<![\w.]){name}\b")
    return [i for i, line in enumerate(lines) if word.search(line)]


def _dead_list_lines(lines: list[str], name: str) -> set[int] | None:
    """The lines that build list ``name`` when nothing else reads it (nor what it became),
    else None."""
    dead = set()
    for i in _uses(lines, name):
        body = lines[i].strip()
        if _NEW_LIST.match(lines[i]) or re.fullmatch(rf"{name}\.(append\(.*\)|pop\(\))", body):
            dead.add(i)
            continue
        alias = re.fullmatch(rf"(\w+) = {name}", body)
        if alias is None or _in_loop(lines, i):
            return None
        if any(j > i for j in _uses(lines, alias.group(1))):
            return None
        dead.add(i)
    return dead


def without_dead_lists(body: str) -> str:
    """``body`` (a rendered writer's lines) without the lists nothing reads, the marks only
    they read, and the loop counters nothing reads.

    >>> print(without_dead_lists('''    items1 = []
    ...     s_x = []
    ...     for i2, item3 in enumerate(f_x or ()):
    ...         at4 = len(out)
    ...         item3 = _write_e(item3, out)
    ...         items1.append(item3)
    ...         s_x.append(len(out) - at4)
    ...     f_x = items1
    ...     return rt_fast.EMPTY_PARENT'''))
        for item3 in f_x or ():
            item3 = _write_e(item3, out)
        return rt_fast.EMPTY_PARENT
    """
    lines = body.split("\n")
    dead: set[int] = set()
    for name in dict.fromkeys(m.group(1) for m in map(_NEW_LIST.match, lines) if m):
        found = _dead_list_lines(lines, name)
        dead |= found or set()
    lines = [line for i, line in enumerate(lines) if i not in dead]
    lines = [line for line in lines if not _unread_mark(lines, line)]
    lines = [_without_counter(lines, line) for line in lines]
    result = "\n".join(lines)
    try:  # one statement a line, as the writers render: what parses is what was meant
        ast.parse("def _():\n" + result)
    except SyntaxError:
        return body
    return result


def _unread_mark(lines: list[str], line: str) -> bool:
    match = _MARK.match(line)
    return match is not None and len(_uses(lines, match.group(1))) == 1


def _without_counter(lines: list[str], line: str) -> str:
    match = _LOOP.match(line)
    if match is None or len(_uses(lines, match.group(2))) != 1:
        return line
    indent, _, item, source = match.groups()
    return f"{indent}for {item} in {source}:"
