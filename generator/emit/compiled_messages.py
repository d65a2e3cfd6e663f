"""The compiled writers of ``layout: serializable`` messages (mysql::serialization): the fast
writer of :mod:`generator.emit.fastbuild_messages` (the message's plan written back, field
by field in its order and forms), its bytes put into the compiled writers' C buffer.

The fast writer gathers the body in a bytearray, then appends the head (which holds the
body's size) and the body. Here the body is put into ``out`` where the message begins
(``body_at``), its varints, text and uint8s by the C calls of
``runtime/_compiled/msb_writers.pxd``, and the head inserted before it at the end: the same
bytes. What a value is compared with (a ``default:``, a ``default_from:`` field) and the
unknown fields written back are the fast writer's Python, compiled.

    cdef object _cwrite_gtid_tagged_body(object model, Out* out)
"""

from __future__ import annotations

import re

from generator.emit.fastbuild_messages import MessageUnsupported, MessageWriters
from generator.emit.plan import Repeat, Text
from generator.emit.pysource import LineWriter
from generator.spec.model import Record, camel

_CLASS_OF = re.compile(r"(?<![.\w])(\w+)\.__class__ is\b")


def exact_type_tests(text: str) -> str:
    """A fast writer's exact type tests, ``x.__class__ is T`` (Python's quicker form, an
    attribute look-up in C), as ``type(x) is T`` (a pointer compare in C).

    >>> exact_type_tests("if given.__class__ is not int or m.__class__ is Body:")
    'if type(given) is not int or type(m) is Body:'
    """
    return _CLASS_OF.sub(r"type(\1) is", text)


class CompiledMessages(MessageWriters):
    """:class:`MessageWriters` whose bytes go to the C buffer ``out`` (a base of
    :class:`generator.emit.compiled_writers.CompiledWriters`, which adds ``record_classes``
    and ``translated``)."""

    def message_function(self, record: Record) -> str:
        source = super().message_function(record)
        body = exact_type_tests(source.split("\n", 1)[1])
        self.record_classes.add(camel(record.name))  # the model class it reads attributes of
        return f"cdef object _cwrite_{record.name}(object model, Out* out):\n{body}"

    @staticmethod
    def _open_body(w: LineWriter) -> None:
        w.line("cdef Py_ssize_t body_at = out.size  # the body first, its head put before it")

    @staticmethod
    def _body_byte(w: LineWriter, value: str, comment: str = "") -> None:
        w.line(f"put_byte(out, {value}){comment}")

    @staticmethod
    def _body_extend(w: LineWriter, data: str, comment: str = "") -> None:
        w.line(f"out_extend(out, {data}){comment}")

    @staticmethod
    def _body_length() -> str:
        return "(out.size - body_at)"

    @staticmethod
    def _head(w: LineWriter, one_byte: str) -> None:
        w.line(f"if {one_byte}:")
        w.line("    out_insert(out, body_at, bytes((0x02, size << 1, lnifid << 1)))")
        w.line("else:  # format version 1, then the head")
        w.line(
            "    out_insert(out, body_at, b'\\x02' + "
            "rt_serializable.message_head(1, out.size - body_at, lnifid, given))"
        )

    def _uint8s(self, w: LineWriter, step: Repeat) -> None:
        w.line(f"put_msb_uint8s(out, {step.var}, {step.count})")

    @staticmethod
    def _msb(w: LineWriter, var: str, bits: int, signed: bool, length: bool = False) -> None:
        w.line(f"put_msb_{'svar' if signed else 'uvar'}(out, {var}, {bits})")

    def _text(self, w: LineWriter, step: Text) -> None:
        if step.fixed is not None or step.pad or step.signed:
            raise MessageUnsupported("a fixed, padded or signed text")
        if step.kind == "str" and step.encoding not in ("utf8", "utf-8"):
            raise MessageUnsupported(f"{step.encoding} text (its fast writer writes it)")
        text = "True" if step.kind == "str" else "False"
        limit = -1 if step.max_length is None else step.max_length
        w.line(f"put_msb_text(out, {step.var}, {text}, {limit})")
