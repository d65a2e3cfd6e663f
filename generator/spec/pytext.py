r'''Spec text inside a generated module: the one way prose and values get there.

A spec is data, never code. Its names are checked when it loads (:mod:`generator.spec.names`);
every other piece of spec text that a template or emitter puts into a module goes through
one of these three, each safe for any text (quotes, backslashes, newlines, NUL, lone
surrogates, ``\N{...}``):

    >>> print(literal('say """hi""" \\'))
    'say """hi""" \\'
    >>> print(docstring('"""\nimport os  # ends in a backslash \\'))
    \"\""
    import os  # ends in a backslash \\
    >>> print(comment("two\nlines\x00"))
    two lines\x00

``literal`` is ``repr`` (a Python literal that evaluates to the value); ``docstring`` keeps
newlines, so a doc reads as the spec wrote it; ``comment`` is one line. Templates use them
as the filters ``pyrepr``, ``doc`` and ``comment``
(:func:`generator.emit.render.template_environment`).
'''

from __future__ import annotations

import re


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _printable(text: str, keep: str) -> str:
    """``text`` with every character that is not printable (and not in ``keep``) escaped."""
    return "".join(c if c.isprintable() or c in keep else _escape(c) for c in text)


def literal(value) -> str:
    """A Python literal of a spec value (str, int, bool, None, bytes, lists of them)."""
    return repr(value)


def docstring(text) -> str:
    """The body of a triple-quoted docstring that reads as ``text`` (stripped)."""
    text = str(text).strip().replace("\\", "\\\\")
    # A quote before another quote or at the end is escaped: no three in a row, none
    # against the closing quotes.
    text = re.sub(r'"(?="|\Z)', r'\\"', text)
    return _printable(text, "\n\t")


def comment(text) -> str:
    """``text`` as the rest of one ``#`` comment line: whitespace runs become one space."""
    return _printable(" ".join(str(text).split()), "")


def source_comment(display: str, line: int | None, text: str) -> str:
    """``# FILE:LINE: text``, the comment that ties generated code to its spec line."""
    return "# " + comment(f"{display}:{line}: {text}")
