"""Byte spans of a JSON document, for ``wirespec inspect`` (only used when tracing).

:func:`report` walks one JSON text with the standard library's own scanner
(:func:`json.decoder.scanstring` for member names, ``py_make_scanner`` for scalars, both
of which return the end index) and reports into a :class:`runtime.core.spans.SpanRecorder`:
a node per object member (keyed by its name) and per array element (by index), whose
value bytes are the member's value; the member name with its colon is a ``key`` mark of
the member, and braces, brackets, commas and whitespace are ``syntax`` marks of the
enclosing object. So every byte of the document lands in exactly one leaf.

The walk is on the decoded text; offsets are mapped back to bytes (UTF-8), so non-ASCII
text keeps the right byte ranges.

    >>> from runtime.core.spans import SpanRecorder, Trace
    >>> rec = SpanRecorder()
    >>> doc = '{"a":1,"é":"x"}'.encode()
    >>> report(rec, doc, 0)
    True
    >>> rec.root.end = len(doc)
    >>> [(s.start, s.end, s.path, s.role, s.value) for s in Trace(doc, rec.root).leaves()]
    ... # doctest: +NORMALIZE_WHITESPACE
    [(0, 1, '', 'syntax', '{'), (1, 5, 'a', 'key', 'a'), (5, 6, 'a', 'value', 1),
     (6, 7, '', 'syntax', ','), (7, 12, 'é', 'key', 'é'), (12, 15, 'é', 'value', 'x'),
     (15, 16, '', 'syntax', '}')]
"""

from __future__ import annotations

import itertools
import json
import json.decoder
import json.scanner

_SCAN = json.scanner.py_make_scanner(json.JSONDecoder())
_WS = " \t\n\r"


class _Bad(Exception):
    """The text is no JSON the walker can follow (the codec's own error says why)."""


def report(recorder, data: bytes, start: int) -> bool:
    """Report the members of the JSON document ``data`` (at ``start`` of the stream being
    read) into the current node of ``recorder``. False (and nothing reported) when the
    document cannot be walked; the caller then shows it in one piece."""
    text = data.decode("utf-8", "surrogateescape")
    if len(text) == len(data):
        offsets = None
    else:
        sizes = (len(ch.encode("utf-8", "surrogateescape")) for ch in text)
        offsets = [0, *itertools.accumulate(sizes)]
    walker = _Walker(recorder, text, offsets, start)
    node = recorder.current
    depth = len(recorder.stack)
    saved = (len(node.children), len(node.marks))
    try:
        end = walker.value(walker.skip(0))
        if walker.skip(end) != len(text):
            raise _Bad
    except (_Bad, StopIteration, ValueError, RecursionError):
        del recorder.stack[depth:]
        del node.children[saved[0] :], node.marks[saved[1] :]
        return False
    return True


class _Walker:
    def __init__(self, recorder, text: str, offsets, base: int):
        self.rec = recorder
        self.text = text
        self.offsets = offsets
        self.base = base

    def pos(self, i: int) -> int:
        return self.base + (i if self.offsets is None else self.offsets[i])

    def skip(self, i: int) -> int:
        """Past whitespace from ``i``; the whitespace is a syntax mark."""
        j = i
        while j < len(self.text) and self.text[j] in _WS:
            j += 1
        self.syntax(i, j)
        return j

    def syntax(self, i: int, j: int) -> None:
        if j > i:
            self.rec.mark(self.pos(i), self.pos(j), "syntax", self.text[i:j])

    def punct(self, i: int, ch: str) -> int:
        """The character ``ch`` at ``i`` (a syntax mark) and the whitespace after it."""
        if self.text[i : i + 1] != ch:
            raise _Bad
        self.syntax(i, i + 1)
        return self.skip(i + 1)

    def value(self, i: int) -> int:
        """The JSON value at ``i`` (no leading whitespace) into the current node; its end."""
        ch = self.text[i : i + 1]
        if ch == "{":
            return self.members(i)
        if ch == "[":
            return self.elements(i)
        _, end = _SCAN(self.text, i)
        return end

    def members(self, i: int) -> int:
        i = self.punct(i, "{")
        if self.text[i : i + 1] == "}":
            return self.close_punct(i)
        while True:
            if self.text[i : i + 1] != '"':
                raise _Bad
            name, j = json.decoder.scanstring(self.text, i + 1)
            self.rec.open(name, self.pos(i))
            k = j
            while k < len(self.text) and self.text[k] in _WS:
                k += 1
            if self.text[k : k + 1] != ":":
                raise _Bad
            k += 1
            while k < len(self.text) and self.text[k] in _WS:
                k += 1
            self.rec.mark(self.pos(i), self.pos(k), "key", name)
            end = self.value(k)
            self.rec.close(self.pos(end), _SCAN(self.text, k)[0])
            i = self.skip(end)
            if self.text[i : i + 1] == "}":
                return self.close_punct(i)
            i = self.punct(i, ",")

    def elements(self, i: int) -> int:
        i = self.punct(i, "[")
        if self.text[i : i + 1] == "]":
            return self.close_punct(i)
        index = 0
        while True:
            self.rec.open(index, self.pos(i))
            end = self.value(i)
            self.rec.close(self.pos(end), _SCAN(self.text, i)[0])
            i = self.skip(end)
            if self.text[i : i + 1] == "]":
                return self.close_punct(i)
            i = self.punct(i, ",")
            index += 1

    def close_punct(self, i: int) -> int:
        self.syntax(i, i + 1)
        return i + 1
