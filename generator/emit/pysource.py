"""Writing Python (and Cython) source: the indenting line writer every renderer writes
through, the ``struct`` names and formats of fixed-width primitives, and the arguments
both Python readers pass for a ``valid:`` message.

    >>> w = LineWriter()
    >>> w.line("if n:")
    >>> with w.indent():
    ...     w.line("pass")
    >>> w.lines  # a function body: one level in
    ['    if n:', '        pass']
    >>> struct_name("u32", "le"), struct_format("u32", "le"), struct_format("s16be", "le")
    ('_LE_U32', '<I', '>h')
"""

from __future__ import annotations

import codecs
import re
import struct

from generator.spec.types import PRIMITIVES


def struct_name(prim: str, endian: str) -> str:
    p = PRIMITIVES[prim]
    order = "BE" if p.construct(endian).endswith("b") else "LE"
    return f"_{order}_{prim.rstrip('lbe').upper()}"


def member_constant(enum: str, member: str) -> str:
    """The module constant of an enum member's value, which the readers' expressions
    compare with: the enum's (lower-case) name, then ``_Value_``, then the member's, so no
    other enum's member and none of the module's upper-case names (``_KIND_BY_VALUE``,
    ``_LE_U32``, ``_READ_ORDER_OF_<record>``) is one.

    >>> member_constant("kind", "BY_VALUE"), member_constant("le", "U32")
    ('_kind_Value_BY_VALUE', '_le_Value_U32')
    """
    return f"_{enum}_Value_{member}"


def struct_format(prim: str, endian: str) -> str:
    p = PRIMITIVES[prim]
    order = ">" if p.construct(endian).endswith("b") else "<"
    code = {8: "b", 16: "h", 32: "i", 64: "q"}.get(p.bits)
    if p.kind == "float":
        code = "f" if p.size == 4 else "d"
    elif not p.signed:
        code = code.upper()
    return order + code


def decode_call(encoding: str) -> str:
    """The call that decodes a ``bytes`` value as ``encoding``: UTF-8 by ``bytes.decode``'s
    default, which skips looking the codec up by name (a fifth of a short name's decode),
    with the same errors.

    >>> decode_call("utf8"), decode_call("UTF-8"), decode_call("latin1")
    ('.decode()', '.decode()', ".decode('latin1')")
    """
    return ".decode()" if codecs.lookup(encoding).name == "utf-8" else f".decode({encoding!r})"


def float32_exact(w: LineWriter, var: str, at: str, order: str) -> None:
    """After ``var`` has a float32 from ``struct`` read at ``buf[at]``: a NaN read again
    from its bytes, payload and all (``struct`` quiets a signalling one;
    :mod:`runtime.core.float32`). A number pays one comparison."""
    w.line(f"if {var} != {var}:")
    w.line(f"    {var} = rt_float32.nan_from(buf, {at}, {order!r})")


WIDE_CONST_BYTES = 4
"""A ``const:`` of an integer type this many bytes wide or wider is a magic number (PNG's
signature, Avro's ``Obj\\x01``): a mismatch reads in hex, as the bytes on the wire
(``expected signature 89504e470d0a1a0a, got ...``), where a decimal says nothing."""


def wide_const(field) -> bool:
    """Whether ``field``'s ``const:`` is a magic number (:data:`WIDE_CONST_BYTES`)."""
    ref = field.type
    if field.const is None or ref.kind != "prim" or ref.name not in PRIMITIVES:
        return False
    return (PRIMITIVES[ref.name].size or 0) >= WIDE_CONST_BYTES


def const_mismatch(field, got: str, endian: str) -> str:
    """The f-string (quoted) of ``field``'s constant mismatch in a spec of ``endian``:
    ``got`` the expression of the bytes read for a magic number (shown in hex, as is the
    constant's wire form), else of the integer read (shown in decimal)."""
    if wide_const(field):
        want = struct.pack(struct_format(field.type.name, endian), field.const).hex()
        return f'f"expected {field.name} {want}, got {{{got}.hex()}}"'
    return f'f"expected {field.const} but parsed {{{got}}}"'


def valid_message_arg(field) -> str:
    """``, 'message'`` when ``field`` says ``valid: {check, message}`` (the argument
    ``rt.Valid`` and ``rt.unsatisfied`` take after the quoted check), else nothing."""
    return f", {field.valid_message!r}" if field.valid_message else ""


def valid_rule(field) -> str:
    """``field``'s ``valid:`` expression, checked on parse and build or on build only."""
    return field.valid or field.build_valid


def valid_on_build(record, field) -> bool:
    """Whether ``field``'s ``valid:`` is checked on build too: it reads only the field and
    the fields before it that are not computed (what is written by then), not a later or
    computed field (a size table written after) nor a ``sizeof``. What it reads of
    ``_parent`` is the enclosing model's (its writer has it; a record written alone is
    refused, as parse refuses it read alone).

    >>> from types import SimpleNamespace as F
    >>> a = F(name="a", value=None, valid="this.a < 3", build_valid="")
    >>> b = F(name="b", value=None, valid="", build_valid="this.a < this.c")
    >>> c = F(name="c", value=None, valid="this.c == this._parent.c", build_valid="")
    >>> record = F(fields=[a, b, c])
    >>> valid_on_build(record, a), valid_on_build(record, b), valid_on_build(record, c)
    (True, False, True)
    """
    rule = valid_rule(field)
    names = set(re.findall(r"\bthis\.(\w+)", rule)) - {"_parent"}
    if "sizeof" in rule:
        return False
    before = {field.name}
    for f in record.fields:
        if f is field:
            break
        if not f.value:
            before.add(f.name)
    return names <= before


def valid_construct(record, field, expr: str) -> str:
    """``expr`` (a construct) in the ``rt.Valid`` of ``field``'s rule: its message,
    ``on_build=False`` where :func:`valid_on_build` says no, ``on_parse=False`` for a rule
    checked on build only."""
    args = valid_message_arg(field)
    args += "" if valid_on_build(record, field) else ", on_build=False"
    args += ", on_parse=False" if field.build_valid else ""
    rule = f"lambda this: {valid_rule(field)}, {field.valid_text!r}{args}"
    return f"rt.Valid({expr}, {field.name!r}, {rule})"


def codec_cases(constants: dict[str, str], prefix: str, cases) -> str:
    """The name of a module constant holding a ``process:`` codec's ``cases`` (value ->
    codec), added to ``constants`` (name -> its text) once: made at import, not per
    region, as a dict literal at the call was."""
    text = repr(dict(cases))
    ours = [name for name in constants if name.startswith(prefix)]
    for name in ours:
        if constants[name] == text:
            return name
    name = f"{prefix}{len(ours)}"
    constants[name] = text
    return name


class LineWriter:
    def __init__(self):
        self.lines: list[str] = []
        self.depth = 1
        self.counter = 0

    def line(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def indent(self):
        writer = self

        class _Indent:
            def __enter__(self):
                writer.depth += 1

            def __exit__(self, *exc):
                writer.depth -= 1

        return _Indent()
