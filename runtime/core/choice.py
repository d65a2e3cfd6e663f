"""A field that is one of several records, told apart by their leading bytes (a spec's
``choice: [a, b, ...]``).

Each case has the bytes that pick it, ``(magic, mask)``: the case is the first whose
``magic`` equals the next bytes in the bits ``mask`` keeps. Building writes the record the
model holds (its class picks the case); the case's own constants write the leading bytes.

    >>> from construct import Const, Int8ul
    >>> from runtime.core.record import Record
    >>> small = Record("v" / Int8ul)
    >>> big = Record("code" / Const(0xCC, Int8ul), "v" / Int8ul)
    >>> either = Choice([(b"\\x00", b"\\x80", small, None), (b"\\xcc", b"\\xff", big, None)])
    >>> either.parse(b"\\x05"), either.parse(b"\\xcc\\xff")
    (Container(v=5), Container(code=204, v=255))
    >>> either.parse(b"\\xc1")
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: <message> at offset 0: no case matches the bytes c1
"""

from __future__ import annotations

from construct import Construct

from runtime.core.errors import DecodeError, EncodeError
from runtime.core.stream import ran_out, read_ahead


class Choice(Construct):
    """``cases``: ``(magic, mask, construct, model class)`` in the spec's order."""

    def __init__(self, cases):
        super().__init__()
        self.cases = list(cases)
        self.width = max(len(magic) for magic, *_ in self.cases)
        self.by_model = {model: sub for _, _, sub, model in self.cases if model is not None}

    def _parse(self, stream, context, path):
        start = stream.tell()
        # the leading bytes of the widest case, given back: fewer at the end of the input
        # is no cut (``on_cut: keep``) when a narrower case matches them
        head = read_ahead(stream, self.width)
        stream.seek(start)
        for magic, mask, sub, _ in self.cases:
            if matches(head, magic, mask):
                return sub._parsereport(stream, context, path)
        if not head:
            ran_out(stream)
            raise DecodeError("truncated: a value needs at least 1 byte", offset=start)
        for magic, mask, _, _ in self.cases:  # the input ends inside a case's leading bytes
            if len(head) < len(magic) and matches(head, magic[: len(head)], mask):
                stream.seek(start + len(head))
                ran_out(stream)
                stream.seek(start)
                raise DecodeError(
                    f"truncated: needs {len(magic)} bytes, {len(head)} remain", offset=start
                )
        raise DecodeError(f"no case matches the bytes {head.hex()}", offset=start)

    def _build(self, obj, stream, context, path):
        sub = self.by_model.get(obj.__class__)
        if sub is None:
            names = ", ".join(model.__name__ for model in self.by_model)
            raise EncodeError.expected(f"one of {names}", obj)
        return sub._build(obj, stream, context, path)

    def _sizeof(self, context, path):
        raise EncodeError("a choice has no fixed size")


def matches(head: bytes, magic: bytes, mask: bytes) -> bool:
    """Whether ``head`` starts with ``magic`` in the bits ``mask`` keeps."""
    if len(head) < len(magic):
        return False
    return all(h & m == g for h, g, m in zip(head, magic, mask))
