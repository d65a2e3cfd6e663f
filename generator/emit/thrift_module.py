"""The Thrift target: a Thrift spec's model (:mod:`generator.spec.thrift`) rendered as a
generated module with ``templates/thrift_module.py.j2``, and the Python expressions and
precomputed wire bytes that template writes.

    >>> header_bytes(0, 1, 5), header_bytes(1, 40, 5)
    (b'\\x15', b'\\x05P')
"""

from __future__ import annotations

import math

from generator.spec.thrift import TField, ThriftSpec, TStruct, TType, attr_name
from runtime.formats import thrift_compact


def default_expr(t: TType, v, structs: dict[str, TStruct] | None = None) -> str:
    """Python source that builds the default value ``v`` of type ``t`` (a new object on
    every evaluation, so mutable defaults are never shared)."""
    k = t.kind
    if k == "double" and not math.isfinite(v):
        return f"float({str(v)!r})"
    if k in ("bool", "i8", "i16", "i32", "i64", "double", "string", "binary"):
        return repr(v)
    if k == "uuid":
        return f"_uuid.UUID({v!r})"  # the generated module imports uuid as _uuid
    if k == "enum":
        return f"{t.name}.{v}" if isinstance(v, str) else repr(v)
    if k in ("list", "set"):
        return "[" + ", ".join(default_expr(t.elem, x) for x in v) + "]"
    if k == "map":
        return (
            "{"
            + ", ".join(f"{default_expr(t.key, a)}: {default_expr(t.value, b)}" for a, b in v)
            + "}"
        )
    if k == "struct":
        args = ", ".join(f"{attr_name(n)}={default_expr(sub, x)}" for n, (sub, x) in v.items())
        return f"{t.name}({args})"
    raise AssertionError(k)


def is_mutable(t: TType) -> bool:
    """Whether a default is built by a factory: a new object each time, and names read
    from the module, never from the class body (where a field may be called ``Status``)."""
    return t.kind in ("list", "set", "map", "struct", "enum", "uuid", "double")


def header_bytes(prev: int, fid: int, ct: int) -> bytes:
    """The field header Apache writes for ``fid`` after ``prev`` (short or long form)."""
    delta = fid - prev
    if 0 < delta <= 15:
        return bytes([delta << 4 | ct])
    z = (fid << 1) ^ (fid >> 15)
    out = bytearray([ct])
    z &= 0xFFFF
    while z >= 0x80:
        out.append(z & 0x7F | 0x80)
        z >>= 7
    out.append(z)
    return bytes(out)


def zz16(fid: int) -> bytes:
    """The zigzag varint of a long-form field id."""
    return _zz_bytes(fid)


def _zz_bytes(v: int) -> bytes:
    z = ((v << 1) ^ (v >> 15)) & 0xFFFF
    out = bytearray()
    while z >= 0x80:
        out.append(z & 0x7F | 0x80)
        z >>= 7
    out.append(z)
    return bytes(out)


def write_plan(struct: TStruct) -> list[tuple[TField, int | None]]:
    """Each field with the id written before it when that is known statically (the
    previous field is required, or it is the first field), else None."""
    plan, prev = [], 0
    for f in struct.fields:
        plan.append((f, prev))
        prev = f.id if f.required else None
    return plan


def expects(t: TType) -> str:
    """The last arguments of a writer's ``rt.enc_*`` call of a value of type ``t``: what
    its error says was expected where Python raised on the value (none for a bool, which
    any value writes as).

    >>> expects(TType("i32")), expects(TType("struct", name="Inner")), expects(TType("bool"))
    (", 'an integer'", ", 'struct Inner'", '')
    """
    words = {"double": "a number", "string": "str", "binary": "bytes", "uuid": "a uuid.UUID"}
    if t.kind == "bool":
        return ""
    if t.kind in ("i8", "i16", "i32", "i64", "enum"):
        return ", 'an integer'"
    if t.kind == "struct":
        return f", 'struct {t.name}'"
    if t.kind in ("list", "set"):  # a set<> is read and written as a list
        return ", 'a list'"
    return f", {words.get(t.kind, 'a mapping')!r}"


def struct_bytes(struct: TStruct) -> int:
    """What one instance of ``struct`` is charged against the expansion budget: its
    object with a slot per field and one for its wire layout."""
    return thrift_compact.STRUCT_BYTES + 8 * (len(struct.fields) + 1)


def render_thrift(spec: ThriftSpec, *, fmt: bool = True) -> str:
    """The generated module of a Thrift spec, formatted and headed, as text."""
    import black

    from generator import __version__
    from generator.emit.render import template_environment, with_header

    body = (
        template_environment()
        .get_template("thrift_module.py.j2")
        .render(
            spec=spec,
            w=spec.wire,
            ct={k: v["value"] for k, v in spec.wire["compact_type"]["values"].items()},
            structs=list(spec.structs.values()),
            version=__version__,
            default_expr=default_expr,
            is_mutable=is_mutable,
            header_bytes=header_bytes,
            zz16=zz16,
            write_plan=write_plan,
            expects=expects,
            budget=thrift_compact,
            struct_bytes=lambda name: struct_bytes(spec.structs[name]),
        )
    )
    if fmt:  # black only for committed modules; in-memory ones skip its cost
        body = black.format_str(body, mode=black.Mode(line_length=100))
    return with_header(body)
