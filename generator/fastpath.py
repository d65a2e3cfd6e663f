"""The fast path: straight-line Python parse functions emitted from the same format model.

For every record the emitter writes one function ::

    def _read_cell(buf, pos, end, limits, depth):
        ...
        return Cell(f_name, f_value, f_op, f_timestamp, f_checksum), pos

that reads with precompiled ``struct.Struct`` objects and plain byte comparisons instead of
interpreting construct objects. It must return the same model as the construct path and
raise the same ``DecodeError`` (class, offset, field path) on bad bytes; tests hold the
two paths against each other. A record whose fields use something the fast path does not
know (a runtime primitive, say) gets no fast function, and ``parse`` falls back to
construct for it.
"""

from __future__ import annotations

import re

from .model import Field, Record, Spec, TypeRef, camel
from .types import PRIMITIVES

_THIS = re.compile(r"\bthis\.([a-z_][a-z0-9_]*)")


def struct_name(prim: str, endian: str) -> str:
    p = PRIMITIVES[prim]
    order = "BE" if p.construct(endian).endswith("b") else "LE"
    return f"_{order}_{prim.rstrip('lbe').upper()}"


def struct_format(prim: str, endian: str) -> str:
    p = PRIMITIVES[prim]
    order = ">" if p.construct(endian).endswith("b") else "<"
    code = {8: "b", 16: "h", 32: "i", 64: "q"}.get(p.bits)
    if p.kind == "float":
        code = "f" if p.size == 4 else "d"
    elif not p.signed:
        code = code.upper()
    return order + code


class Unsupported(Exception):
    """The record uses something the fast path cannot express; construct handles it."""


class _Writer:
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


class FastPathEmitter:
    """Emits the fast-path functions of one spec (see the module docstring)."""

    def __init__(self, spec: Spec):
        self.spec = spec
        self.structs: dict[str, str] = {}
        self.supported = self._supported_records()

    # -- which records can have a fast path --------------------------------------------

    def _supported_records(self) -> set[str]:
        ok = set()
        for name in self.spec.record_order():
            record = self.spec.records[name]
            if record.layout != "sequence":
                continue
            try:
                for field in record.fields:
                    self._check_field(field, ok)
            except Unsupported:
                continue
            ok.add(name)
        return ok

    def _check_type(self, ref: TypeRef, ok: set[str]) -> None:
        if ref.kind == "record" and ref.name not in ok:
            raise Unsupported(ref.name)
        if ref.max_length is not None or ref.args or "default" in ref.cases:
            raise Unsupported("bounded strings, runtime arguments and switch defaults")
        if ref.kind == "switch" and ref.size is not None:
            raise Unsupported("sized switches")
        if ref.kind == "prim" and ref.name not in PRIMITIVES:
            raise Unsupported(ref.name)
        if ref.kind not in ("prim", "record", "str", "bytes", "switch", "presence", "empty"):
            raise Unsupported(ref.kind)
        if isinstance(ref.size, str) and not ref.size_is_prefix and "_parent" in ref.size:
            raise Unsupported("expression over an enclosing record")
        for sub in ref.cases.values():
            self._check_type(sub, ok)

    def _check_field(self, field: Field, ok: set[str]) -> None:
        if field.condition or field.id is not None or field.spark_inline:
            raise Unsupported("conditional and id-keyed fields")
        self._check_type(field.type, ok)
        if isinstance(field.repeat, dict) and "_parent" in str(field.repeat["count"]):
            raise Unsupported("expression over an enclosing record")
        if field.checksum is not None:
            for item in field.checksum.items:
                if "_parent" in item.expression:
                    raise Unsupported("expression over an enclosing record")

    # -- emission ---------------------------------------------------------------------

    def struct(self, prim: str) -> str:
        name = struct_name(prim, self.spec.endian)
        self.structs[name] = struct_format(prim, self.spec.endian)
        return name

    def expression(self, text) -> str:
        return _THIS.sub(r"f_\1", str(text))

    def module_code(self) -> str:
        """All fast-path functions, then the struct constants they use (emitted last so
        the set of constants is known)."""
        functions = [
            self.record_function(self.spec.records[name])
            for name in self.spec.record_order()
            if name in self.supported
        ]
        constants = [
            f"{name} = struct.Struct({fmt!r})" for name, fmt in sorted(self.structs.items())
        ]
        enums = [
            f"_{e.name.upper()}_BY_VALUE = {{m.value: m for m in {e.class_name}}}"
            for e in self.spec.enums.values()
        ]
        table = (
            ["FAST_READERS = {"]
            + [
                f"    {name!r}: _read_{name},"
                for name in self.spec.record_order()
                if name in self.supported
            ]
            + ["}"]
        )
        return "\n\n".join(["\n".join(constants + enums)] + functions + ["\n".join(table)])

    def record_function(self, record: Record) -> str:
        w = _Writer()
        w.line(f'"""Fast path of ``{record.name}``: the model and errors of the construct path."""')
        self.limit(w, "max_depth", "depth", "pos")
        spans = self.spanned_fields(record)
        if record.tag is not None:
            self.tag(w, record.tag)
        for field in record.fields:
            w.line(f"# {self.spec.source.display}:{field.line}: {field.name}")
            if field.name in spans:
                w.line(f"f_{field.name}_start = pos")
            w.line("try:")
            with w.indent():
                self.field(w, field, record)
                if field.name in spans:
                    w.line(f"f_{field.name}_end = pos")
            w.line("except DecodeError as err:")
            with w.indent():
                w.line(f"err.add_path({field.name!r})")
                w.line("raise")
        args = ", ".join(f"f_{f.name}" for f in record.fields)
        w.line(f"return {camel(record.name)}({args}), pos")
        head = f"def _read_{record.name}(buf, pos, end, limits, depth):"
        return head + "\n" + "\n".join(w.lines)

    def tag(self, w: _Writer, tag: int) -> None:
        w.line(f"if pos >= end or buf[pos] != 0x{tag:02x}:")
        with w.indent():
            w.line(f"raise rt_fast.tag_error(buf, pos, end, 0x{tag:02x})")
        w.line("pos += 1")

    def limit(self, w: _Writer, name: str, value: str, offset: str) -> None:
        """A limit check that costs one comparison unless it fails."""
        w.line(f"if {value} > limits.{name}:")
        with w.indent():
            w.line(f'limits.check("{name}", {value}, offset={offset})')

    def field(self, w: _Writer, field: Field, record: Record) -> None:
        var = f"f_{field.name}"
        ref = field.type
        if ref.kind == "presence":
            w.line(f"{var} = pos < end and buf[pos] == 0x{field.tag:02x}")
            w.line(f"if {var}:")
            with w.indent():
                w.line("pos += 1")
            return
        if field.tag is not None and field.optional:
            w.line(f"if pos < end and buf[pos] == 0x{field.tag:02x}:")
            with w.indent():
                w.line("pos += 1")
                self.field_body(w, field, var)
            w.line("else:")
            with w.indent():
                w.line(f"{var} = {'[]' if field.repeat is not None else 'None'}")
        else:
            if field.tag is not None:
                self.tag(w, field.tag)
            self.field_body(w, field, var)

    def spanned_fields(self, record: Record) -> set[str]:
        """Fields whose byte span later code needs (raw checksum items, const errors)."""
        names = {f.name for f in record.fields if f.const is not None}
        for f in record.fields:
            if f.checksum is not None:
                names |= {i.field for i in f.checksum.items if i.kind == "raw"}
        return names

    def field_body(self, w: _Writer, field: Field, var: str) -> None:
        ref = field.type
        if field.repeat is None:
            self.value(w, ref, var, field)
            return
        w.line(f"{var} = []")
        w.line(f"{var}_begin = pos")
        if field.repeat == "eos":
            w.line("while pos < end:")
        elif field.repeat == "tagged":
            tag = self.spec.records[ref.name].tag
            w.line(f"while pos < end and buf[pos] == 0x{tag:02x}:")
        else:
            count = field.repeat["count"]
            w.line(f"{var}_count = {self.expression(count)}")
            self.limit(w, "max_count", f"{var}_count", "pos")
            w.line(f"while len({var}) < {var}_count:")
        with w.indent():
            self.limit(w, "max_count", f"len({var}) + 1", "pos")
            w.line("try:")
            with w.indent():
                self.value(w, ref, f"{var}_item", field)
            w.line("except DecodeError as err:")
            with w.indent():
                w.line(f"err.add_path(index=len({var}))")
                w.line("raise")
            w.line(f"{var}.append({var}_item)")
        if field.min_count:
            what = f"{field.min_count} element(s)"
            if field.repeat == "tagged":
                what += f" starting with tag 0x{tag:02x}"
            w.line(f"if len({var}) < {field.min_count}:")
            with w.indent():
                w.line(f'raise DecodeError("expected at least {what}", offset={var}_begin)')

    def fixed(self, w: _Writer, prim: str, var: str) -> None:
        size = PRIMITIVES[prim].size
        w.line(f"if end - pos < {size}:")
        with w.indent():
            w.line(
                f'raise DecodeError(f"truncated: needs {size} bytes, {{end - pos}} remain", '
                "offset=pos)"
            )
        if prim == "u8":
            w.line(f"{var} = buf[pos]")
        else:
            w.line(f"{var} = {self.struct(prim)}.unpack_from(buf, pos)[0]")
        w.line(f"pos += {size}")

    def value(self, w: _Writer, ref: TypeRef, var: str, field: Field) -> None:
        if ref.kind == "prim":
            self.prim_value(w, ref, var, field)
        elif ref.kind in ("str", "bytes"):
            self.bytes_value(w, ref, var)
        elif ref.kind == "record":
            self.record_value(w, ref, var)
        elif ref.kind == "switch":
            enum = camel(ref.enum)
            for i, (case, sub) in enumerate(ref.cases.items()):
                w.line(f"{'if' if i == 0 else 'elif'} f_{ref.switch_on} is {enum}.{case}:")
                with w.indent():
                    if sub.kind == "empty":
                        w.line(f"{var} = None")
                    else:
                        self.value(w, sub, var, field)
        elif ref.kind == "empty":
            w.line(f"{var} = None")
        else:
            raise AssertionError(ref.kind)

    def prim_value(self, w: _Writer, ref: TypeRef, var: str, field: Field) -> None:
        start = w.fresh("at")
        w.line(f"{start} = pos")
        if ref.name == "bool":
            w.line("if pos >= end:")
            with w.indent():
                w.line('raise DecodeError("truncated boolean: needs 1 byte, 0 remain", offset=pos)')
            w.line("if buf[pos] > 1:")
            with w.indent():
                w.line(
                    'raise DecodeError(f"boolean byte must be 0 or 1, got 0x{buf[pos]:02x}", '
                    "offset=pos)"
                )
            w.line(f"{var} = buf[pos] == 1")
            w.line("pos += 1")
            return
        self.fixed(w, ref.name, var)
        if ref.enum:
            enum = self.spec.enums[ref.enum]
            raw = w.fresh("raw")
            w.line(f"{raw} = {var}")
            w.line(f"{var} = _{enum.name.upper()}_BY_VALUE.get({raw})")
            w.line(f"if {var} is None:")
            with w.indent():
                w.line(
                    f'raise DecodeError(f"{{{raw}}} (0x{{{raw}:02x}}) is not a known '
                    f'{enum.class_name}", offset={start})'
                )
        if field.const is not None and var == f"f_{field.name}":
            w.line(f"if {var} != {field.const:#x}:")
            with w.indent():
                w.line(
                    f'raise DecodeError(f"expected {field.const} but parsed {{{var}}}", '
                    f"offset=f_{field.name}_start)"
                )
        if field.checksum is not None and var == f"f_{field.name}":
            self.checksum(w, field, var, start)

    def checksum(self, w: _Writer, field: Field, var: str, start: str) -> None:
        parts = []
        for item in field.checksum.items:
            if item.kind == "raw":
                target = self.field_of(field, item.field)
                skip = 1 if target.tag is not None else 0
                if target.type.size_is_prefix:
                    skip += PRIMITIVES[target.type.size].size
                src = f"f_{item.field}"
                parts.append(f"(b'' if {src} is None else buf[{src}_start + {skip}:{src}_end])")
            elif item.kind == "each":
                enc = self.struct(item.encoder)
                parts.append(f"b''.join({enc}.pack(e.{item.member}) for e in f_{item.field} or ())")
            else:
                enc = self.struct(item.encoder)
                parts.append(f"{enc}.pack({self.expression(item.expression)})")
        computed = w.fresh("computed")
        w.line(
            f"{computed} = rt_checksum.{field.checksum.algorithm}(b''.join(({', '.join(parts)},)))"
        )
        w.line(f"if {var} != {computed}:")
        width = PRIMITIVES[field.type.name].size * 2
        with w.indent():
            w.line(
                f'raise DecodeError(f"checksum mismatch: stored 0x{{{var}:0{width}x}}, '
                f'computed 0x{{{computed}:0{width}x}}", offset={start})'
            )

    def field_of(self, field: Field, name: str) -> Field:
        for record in self.spec.records.values():
            if field in record.fields:
                return record.field(name)
        raise AssertionError(name)

    def bytes_value(self, w: _Writer, ref: TypeRef, var: str) -> None:
        what = "string" if ref.kind == "str" else "bytes"
        start = w.fresh("at")
        n = w.fresh("n")
        w.line(f"{start} = pos")
        if ref.size_is_prefix:
            self.fixed(w, ref.size, n)
            w.line(f"if {n} < 0:")
            with w.indent():
                w.line(f'raise DecodeError(f"negative length {{{n}}}", offset={start})')
        else:
            w.line(f"{n} = {ref.size if isinstance(ref.size, int) else self.expression(ref.size)}")
        self.limit(w, "max_string", n, start)
        self.need(w, n, what)
        w.line(f"{var} = buf[pos : pos + {n}]")
        w.line(f"pos += {n}")
        if ref.kind == "str":
            w.line("try:")
            with w.indent():
                w.line(f"{var} = {var}.decode({ref.encoding!r})")
            w.line("except UnicodeDecodeError as exc:")
            with w.indent():
                w.line(
                    f'raise DecodeError(f"invalid {ref.encoding}: {{exc.reason}}", '
                    f"offset={start}) from None"
                )

    def need(self, w: _Writer, n: str, what: str) -> None:
        w.line(f"if {n} > end - pos:")
        with w.indent():
            w.line(
                f'raise DecodeError(f"truncated {what}: needs {{{n}}} bytes, '
                f'{{end - pos}} remain", offset=pos)'
            )

    def record_value(self, w: _Writer, ref: TypeRef, var: str) -> None:
        reader = f"_read_{ref.name}"
        if ref.size is None:
            w.line(f"{var}, pos = {reader}(buf, pos, end, limits, depth + 1)")
            return
        start = w.fresh("at")
        n = w.fresh("n")
        w.line(f"{start} = pos")
        if ref.size_is_prefix:
            self.fixed(w, ref.size, n)
            w.line(f"if {n} < 0:")
            with w.indent():
                w.line(f'raise DecodeError(f"negative length {{{n}}}", offset={start})')
            self.limit(w, "max_message_bytes", n, start)
            what = "size-prefixed field"
        else:
            w.line(f"{n} = {ref.size if isinstance(ref.size, int) else self.expression(ref.size)}")
            what = "sized field"
        w.line(f"if {n} < 0:")
        with w.indent():
            w.line(f'raise DecodeError(f"negative length {{{n}}} for {what}", offset=pos)')
        self.need(w, n, what)
        sub_end = w.fresh("sub_end")
        w.line(f"{sub_end} = pos + {n}")
        w.line(f"{var}, pos = {reader}(buf, pos, {sub_end}, limits, depth + 1)")
        w.line(f"if pos != {sub_end}:")
        with w.indent():
            label = "length" if ref.size_is_prefix else "size"
            w.line(
                f'raise DecodeError(f"{label} {{{n}}} leaves {{{sub_end} - pos}} byte(s) '
                f'unparsed", offset={start})'
            )
