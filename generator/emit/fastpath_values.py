"""Reading one value in a fast reader, by type: numbers (fixed-width, LEB128, msb
varints), bit fields, bytes and strings, switches, choices, runtime primitives, nested and
sized records, and checksums."""

from __future__ import annotations

import codecs

from generator.emit.fastpath_support import Unsupported
from generator.emit.pysource import (
    LineWriter,
    const_mismatch,
    decode_call,
    float32_exact,
    struct_format,
    wide_const,
)
from generator.spec.model import Field, TypeRef, camel
from generator.spec.types import CHUNK_TYPES, LEB128, PRIMITIVES


class ValueReaders:
    """Reads single values (a base of
    :class:`generator.emit.fastpath.FastPathEmitter`, whose state and other parts it uses)."""

    def is_msb(self, ref: TypeRef) -> bool:
        return ref.kind == "prim" and ref.name.startswith("msb_")

    def msb(
        self, w: LineWriter, var: str, bits: int, signed: bool, what: str, as_is: bool = False
    ) -> None:
        """An msb-count varint: the one-byte form inline, the rest in ``runtime.core.fast``,
        which notes one longer than it needs (``runtime.core.kept``: build writes it
        shortest); ``as_is``: any form, nothing noted (a message's size and lnifid, which
        build may widen)."""
        w.line("if pos < end and not buf[pos] & 1:")
        with w.indent():
            if signed:
                w.line(f"{var} = buf[pos] >> 1")
                w.line(f"{var} = ({var} >> 1) ^ -({var} & 1)")
            else:
                w.line(f"{var} = buf[pos] >> 1")
            w.line("pos += 1")
        # The 2- and 3-byte forms inline too when every value they hold fits in `bits`
        # (in their shortest form: a last byte of 0 or 1 leaves the value below 2**(7n-7)).
        for n, mask in ((2, 3), (3, 7)):
            if bits < 7 * n:
                break
            shortest = "" if as_is else f" and buf[pos + {n - 1}] > 1"
            w.line(f"elif pos + {n - 1} < end and buf[pos] & {mask} == {mask >> 1}{shortest}:")
            with w.indent():
                parts = " | ".join(
                    ["buf[pos]"] + [f"buf[pos + {k}] << {8 * k}" for k in range(1, n)]
                )
                w.line(f"{var} = ({parts}) >> {n}")
                if signed:
                    w.line(f"{var} = ({var} >> 1) ^ -({var} & 1)")
                w.line(f"pos += {n}")
        w.line("else:")
        with w.indent():
            helper = "msb_uvar" if as_is else "msb_svar_noting" if signed else "msb_uvar_noting"
            w.line(f"{var}, pos = rt_fast.{helper}(buf, pos, end, {bits}, {what!r})")

    def strict_member(
        self, w: LineWriter, enum_name: str, var: str, offset: str, *, mask=None, path=None
    ) -> None:
        """``var`` becomes its code's member of a strict enum, or a DecodeError at ``offset``
        names the code (``mask``: the bits a bit field's code shows; ``path``: the field,
        where the caller does not add it)."""
        enum = self.spec.enums[enum_name]
        raw = w.fresh("raw")
        code = raw if mask is None else f"{raw} & {mask:#x}"
        where = f"offset={offset}" + ("" if path is None else f", path={path!r}")
        w.line(f"{raw} = {var}")
        w.line(f"{var} = _{enum.name.upper()}_BY_VALUE.get({raw})")
        w.line(f"if {var} is None:")
        with w.indent():
            w.line(
                f'raise DecodeError(f"{{{raw}}} (0x{{{code}:02x}}) is not a known '
                f'{enum.class_name}", {where})'
            )

    def scalar(self, w: LineWriter, prim: str, var: str) -> None:
        """A fixed-width integer or float, or an msb-count varint."""
        p = PRIMITIVES[prim]
        if prim.startswith("msb_"):
            what = "signed varint" if p.signed else "varint"
            self.msb(w, var, p.bits, p.signed, what)
            return
        if prim in LEB128:
            self.leb128(w, var, p.signed)
            return
        self.fixed(w, prim, var)

    def leb128(self, w: LineWriter, var: str, signed: bool) -> None:
        """A LEB128 varint: the one-byte form inline, the rest in ``runtime.core.leb128``."""
        w.line("if pos < end and buf[pos] < 0x80:")
        with w.indent():
            w.line(f"{var} = buf[pos]")
            w.line("pos += 1")
        # The 2-byte form too (values below 2**14: a Kafka record's or value's length).
        # A longer one than it needs goes to the slow path, which notes it (runtime.core.kept).
        kept = self.spec.kept_varints
        w.line(f"elif pos + 1 < end and {'0 < ' if kept else ''}buf[pos + 1] < 0x80:")
        with w.indent():
            w.line(f"{var} = (buf[pos] & 0x7F) | (buf[pos + 1] << 7)")
            w.line("pos += 2")
        w.line("else:")
        with w.indent():
            w.line(f"{var}, pos = rt_fast.read_uvarint(buf, pos, end=end)")
            if kept:
                w.line("if not buf[pos - 1]:  # longer than it needs: the message keeps it")
                with w.indent():
                    w.line("rt_kept.note()")
        if signed:
            w.line(f"{var} = ({var} >> 1) ^ -({var} & 1)")

    def fixed(self, w: LineWriter, prim: str, var: str) -> None:
        size = PRIMITIVES[prim].size
        w.line(f"if end - pos < {size}:")
        with w.indent():
            w.line(
                f'raise DecodeError(f"truncated: needs {size} bytes, {{end - pos}} remain", '
                "offset=pos)"
            )
        if prim == "u8":
            w.line(f"{var} = buf[pos]")
        elif prim == "s8":  # cheaper than a struct call
            w.line(f"{var} = buf[pos]")
            w.line(f"if {var} > 0x7F:")
            with w.indent():
                w.line(f"{var} -= 0x100")
        else:
            w.line(f"{var} = {self.struct(prim)}.unpack_from(buf, pos)[0]")
            if prim == "f32":
                float32_exact(w, var, "pos", struct_format(prim, self.spec.endian)[0])
        w.line(f"pos += {size}")

    def value(self, w: LineWriter, ref: TypeRef, var: str, field: Field) -> None:
        if ref.kind == "prim":
            self.prim_value(w, ref, var, field)
        elif ref.kind == "bits":
            self.bits_value(w, ref, var, field)
        elif ref.kind == "choice":
            self.choice_value(w, ref, var, field)
        elif ref.kind in ("str", "bytes"):
            self.bytes_value(w, ref, var)
        elif ref.kind == "record":
            self.record_value(w, ref, var, field)
        elif ref.kind == "switch":
            if ref.size is not None:
                self.sized(w, ref, var, field, self.switch_value)
            else:
                self.switch_value(w, ref, var, field)
        elif ref.kind == "empty":
            w.line(f"{var} = None")
        elif ref.kind in ("chunk", "region"):
            if ref.size is not None:
                self.sized(w, ref, var, field, self.runtime_value)
            else:
                self.runtime_value(w, ref, var, field)
        else:
            raise AssertionError(ref.kind)

    def runtime_value(self, w: LineWriter, ref: TypeRef, var: str, field: Field) -> None:
        """A chunk (``count`` elements) or a region (every byte up to ``end``), read by
        the runtime object's bytes-level ``read``/``unpack``."""
        if ref.kind == "region":
            w.line(f"{var} = {self.instance(ref)}.unpack(buf, pos, end, limits)")
            w.line("pos = end")
            return
        count = ref.count if isinstance(ref.count, int) else self.expression(ref.count)
        chunk = CHUNK_TYPES[ref.name]
        if chunk.element != "int" or (ref.enum and (chunk.zigzag or chunk.delta)):
            w.line(f"{var}, pos = {self.instance(ref)}.read(buf, pos, end, {count}, limits)")
            return
        # The usual chunk is n one-byte varints: the n bytes are the values (ZigZag through
        # a table), with no loop in Python; anything else is read by the runtime's chunk.
        n = w.fresh("n")
        w.line(f"{n} = {count}")
        w.line(
            f"if type({n}) is int and 0 <= {n} <= limits.max_count and {n} <= end - pos "
            f"and buf[pos : pos + {n}].isascii():"
        )
        with w.indent():
            values = f"buf[pos : pos + {n}]"
            if chunk.zigzag:
                values = f"map(_UNZIGZAG, {values})"
                self.uses_unzigzag = True
            if chunk.delta:  # one-byte deltas: no sum of them reaches 2**63
                values = f"rt_fast.accumulate({values})"
            if ref.enum:
                values = f"map(_{ref.enum.upper()}_BY_VALUE.get, {values})"
            w.line(f"{var} = list({values})")
            if ref.enum:  # a value that is no member: the runtime's chunk says which
                w.line(f"if None in {var}:")
                with w.indent():
                    w.line(f"{var}, pos = {self.instance(ref)}.read(buf, pos, end, {n}, limits)")
                w.line("else:")
                with w.indent():
                    w.line(f"pos += {n}")
            else:
                w.line(f"pos += {n}")
        w.line("else:")
        with w.indent():
            w.line(f"{var}, pos = {self.instance(ref)}.read(buf, pos, end, {n}, limits)")

    def switch_value(self, w: LineWriter, ref: TypeRef, var: str, field: Field) -> None:
        enum = camel(ref.enum)
        # Cases without a payload fall to the `else` that gives None when the default does.
        cases, default = ref.payload_cases()
        selector = f"f_{ref.switch_on}"
        if ref.on_enclosing:  # an enclosing record's field, read once
            selector = f"{var}_on"
            w.line(f"{selector} = {self.expression('this.' + ref.switch_on)}")
        for i, (case, sub) in enumerate(cases):
            # The value, not the member: an enum's class attributes go through
            # EnumType.__getattr__ (about 0.1 us each); IntEnum members equal their values.
            value = next(v.value for v in self.spec.enums[ref.enum].values if v.name == case)
            test = f"{selector} == {value:#x}"
            w.line(f"{'if' if i == 0 else 'elif'} {test}:  # {enum}.{case}")
            with w.indent():
                if sub.kind == "empty":
                    w.line(f"{var} = None")
                else:
                    self.value(w, sub, var, field)
        w.line("else:" if cases else "if True:")
        with w.indent():
            if default is None:
                w.line(f"{var} = None")
            else:
                self.value(w, default, var, field)

    def bits_value(self, w: LineWriter, ref: TypeRef, var: str, field: Field) -> None:
        """A bit field: the run's first field reads its bytes (``runtime.core.bits``)."""
        group, shift, first, _ = field.bit_group
        if first:
            w.line(f"if pos + {group} > end:")
            with w.indent():
                w.line(
                    f'raise DecodeError(f"truncated {group}-byte bit field run: needs {group} '
                    'bytes, {end - pos} remain", offset=pos)'
                )
            if group == 1:
                w.line("bit_run = buf[pos]")
            else:
                w.line(f"bit_run = int.from_bytes(buf[pos : pos + {group}], {ref.bit_order!r})")
            w.line(f"pos += {group}")
        value = "bit_run" if shift == 0 else f"(bit_run >> {shift})"
        if shift + ref.bits < 8 * group:
            value += f" & {(1 << ref.bits) - 1:#x}"
        w.line(f"{var} = {value}")
        if ref.bits_signed:  # two's complement in its width
            w.line(f"if {var} >> {ref.bits - 1}:")
            w.line(f"    {var} -= {1 << ref.bits:#x}")
        if ref.enum:  # an unlisted code: at the run's first byte, as construct's BitField
            self.strict_member(w, ref.enum, var, f"pos - {group}", mask=(1 << ref.bits) - 1)
        if field.const is not None:
            w.line(f"if {var} != {field.const:#x}:")
            with w.indent():
                w.line(
                    f'raise DecodeError(f"expected {field.const} but parsed {{{var}}}", '
                    f"offset=f_{field.name}_start)"
                )

    def choice_value(self, w: LineWriter, ref: TypeRef, var: str, field: Field) -> None:
        """A choice: the table of its first byte gives the case's reader (several cases
        sharing that byte: the bytes after it pick, ``runtime.core.fast.pick``)."""
        table = f"_PICK_{field.name}_In_{self._record_of(field)}"
        self.choices[table] = ref
        width = max(len(magic) for magic, _ in ref.detects)
        w.line("reader = None if pos >= end else " + f"{table}[buf[pos]]")
        w.line("if reader.__class__ is tuple:")
        with w.indent():
            w.line("reader = rt_fast.pick(reader, buf, pos, end)")
        w.line("if reader is None:")
        with w.indent():
            w.line(f"raise rt_fast.no_case(buf, pos, end, {width})")
        w.line(f"{var}, pos = reader(buf, pos, end, limits, depth + 1)")

    def _record_of(self, field: Field) -> str:
        return next(n for n, r in self.spec.records.items() if any(f is field for f in r.fields))

    def choice_tables(self) -> list[str]:
        """The module-level tables the choices read: first byte -> reader(s)."""
        out = []
        for table, ref in sorted(self.choices.items()):
            cases = ", ".join(
                f"({magic!r}, {mask!r}, _read_{case})"
                for case, (magic, mask) in zip(ref.cases, ref.detects)
            )
            out.append(f"{table} = rt_fast.choice_table([{cases}])")
        return out

    def prim_value(self, w: LineWriter, ref: TypeRef, var: str, field: Field) -> None:
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
        self.scalar(w, ref.name, var)
        if ref.enum:
            self.strict_member(w, ref.enum, var, start)
        if field.const is not None and var == f"f_{field.name}":
            read = f"buf[{start} : pos]" if wide_const(field) else var
            message = const_mismatch(field, read, self.spec.endian)
            w.line(f"if {var} != {field.const:#x}:")
            with w.indent():
                w.line(f"raise DecodeError({message}, offset=f_{field.name}_start)")
        if field.checksum is not None and var == f"f_{field.name}" and not self.span_of(field):
            self.checksum(w, field, var, start)

    def checksum(self, w: LineWriter, field: Field, var: str, start: str) -> None:
        parts = []
        raws = self.contiguous_raw_items(field)
        span = self.span_of(field)
        if span is not None and len(field.checksum.items) == 1:
            data = f"buf[f_{span.field}_start:f_{span.last}_end]"
        elif span is not None:
            raise Unsupported("a span checksum with other items")
        elif raws is not None:
            # The items are fields back to back: one slice (a field that is absent
            # occupied no bytes, just as the construct path adds nothing for it).
            first, last = raws
            data = f"buf[f_{first}_start:f_{last}_end]"
        else:
            for item in field.checksum.items:
                if item.kind == "raw":
                    target = self.field_of(field, item.field)
                    skip = 1 if target.tag is not None else 0
                    if target.type.size_is_prefix:
                        skip += PRIMITIVES[target.type.size].size
                    src = f"f_{item.field}"
                    raw = f"buf[{src}_start + {skip}:{src}_end]"
                    # construct adds nothing for a None value; these kinds are never None
                    never_none = target.type.kind in ("prim", "str", "bytes", "record")
                    if target.optional or target.condition or not never_none:
                        raw = f"(b'' if {src} is None else {raw})"
                    parts.append(raw)
                elif item.kind == "each" and self.member_is_u8(field, item):
                    # one byte per element, each already a parsed u8
                    parts.append(f"bytes([e.{item.member} for e in f_{item.field} or ()])")
                elif item.kind == "each":
                    enc = self.struct(item.encoder)
                    parts.append(
                        f"b''.join([{enc}.pack(e.{item.member}) for e in f_{item.field} or ()])"
                    )
                else:
                    enc = self.struct(item.encoder)
                    parts.append(f"{enc}.pack({self.expression(item.expression)})")
            data = f"b''.join(({', '.join(parts)},))"
        computed = w.fresh("computed")
        algorithm = field.checksum.algorithm
        self.checksums.add(algorithm)
        w.line(f"{computed} = _{algorithm.upper()}({data})")
        w.line(f"if {var} != {computed}:")
        width = PRIMITIVES[field.type.name].size * 2
        with w.indent():
            w.line(
                f'raise DecodeError(f"checksum mismatch: stored 0x{{{var}:0{width}x}}, '
                f'computed 0x{{{computed}:0{width}x}}", offset={start}'
                + (f", path={field.name!r})" if span is not None else ")")
            )

    def member_is_u8(self, field: Field, item) -> bool:
        """An ``each`` item that packs a u8 member of u8 elements (row checksums of cell
        checksums): ``bytes([...])`` gives the same bytes as packing them one by one."""
        if item.encoder != "u8":
            return False
        target = self.field_of(field, item.field).type
        if target.kind != "record":
            return False
        member = self.spec.records[target.name].field(item.member)
        return member.type.kind == "prim" and member.type.name == "u8" and not member.type.enum

    def contiguous_raw_items(self, field: Field):
        """``(first, last)`` when the checksum covers consecutive fields whole, each of
        which has a value whenever it occupies bytes; else None."""
        items = field.checksum.items
        record = next(r for r in self.spec.records.values() if field in r.fields)
        names = [f.name for f in record.fields]
        if not items or any(i.kind != "raw" for i in items):
            return None
        idx = [names.index(i.field) for i in items]
        if idx != list(range(idx[0], idx[0] + len(idx))):
            return None
        for i in items:
            target = record.field(i.field)
            if target.tag is not None or target.type.size_is_prefix:
                return None  # the item skips its tag or length prefix
            if target.type.kind in ("empty", "presence") or target.repeat is not None:
                return None
            if target.type.kind == "switch":
                cases = target.type.cases
                if "default" not in cases or any(c.kind == "empty" for c in cases.values()):
                    return None
        return items[0].field, items[-1].field

    def field_of(self, field: Field, name: str) -> Field:
        for record in self.spec.records.values():
            if field in record.fields:
                return record.field(name)
        raise AssertionError(name)

    def bytes_value(self, w: LineWriter, ref: TypeRef, var: str) -> None:
        what = "string" if ref.kind == "str" else "bytes"
        if ref.size == "eos" and ref.kind == "bytes":
            w.line(f"{var} = buf[pos:end]")
            w.line("pos = end")
            return
        if ref.size == "eos":  # construct's GreedyString, and its error word for word
            start = w.fresh("at")
            w.line(f"{start} = pos")
            w.line(f"{var} = buf[pos:end]")
            w.line("pos = end")
            self.decode(
                w, ref.encoding, var, "",
                f'raise DecodeError(f"cannot use encoding {ref.encoding!r} to decode '
                f'{{bytes({var})!r}}", offset={start}) from None',
            )  # fmt: skip
            return
        start = w.fresh("at")
        n = w.fresh("n")
        w.line(f"{start} = pos")
        if ref.terminator is not None:  # rt.TerminatedBytes: the bytes before it, then it
            self.terminated(w, ref, var, n, start)
        elif ref.size_is_prefix:
            self.scalar(w, ref.size, n)
            if ref.nullable:  # the length -1 is None; the rest reads in the else branch
                w.line(f"if {n} == -1:")
                with w.indent():
                    w.line(f"{var} = None")
                w.line("else:")
                w.depth += 1
            if PRIMITIVES[ref.size].signed:
                w.line(f"if {n} < 0:")
                with w.indent():
                    w.line(f'raise DecodeError(f"negative length {{{n}}}", offset={start})')
            if ref.max_length is not None:
                w.line(f"if {n} > {ref.max_length}:")
                with w.indent():
                    w.line(
                        f'raise DecodeError(f"string of {{{n}}} bytes exceeds its bound of '
                        f'{ref.max_length}", offset={start})'
                    )
            self.limit(w, "max_string", n, start)
        else:
            w.line(f"{n} = {ref.size if isinstance(ref.size, int) else self.expression(ref.size)}")
            self.limit(w, "max_string", n, start)
            if not isinstance(ref.size, int):
                w.line(f"if {n} < 0:")
                with w.indent():
                    w.line(f'raise DecodeError(f"negative length {{{n}}} for {what}", offset=pos)')
        if ref.terminator is None:
            self.need(w, n, what)
            w.line(f"{var} = buf[pos : pos + {n}]")
            w.line(f"pos += {n}")
        if ref.pad:  # pad: the model holds the text without its trailing padding
            w.line(f"{var} = {var}.rstrip({ref.pad!r})")
        if ref.kind == "str":
            self.decode(
                w, ref.encoding, var, " as exc",
                f'raise DecodeError(f"invalid {ref.encoding}: {{exc.reason}}", '
                f"offset={start}) from None",
            )  # fmt: skip
        if ref.nullable:
            w.depth -= 1

    @staticmethod
    def decode(w: LineWriter, encoding: str, var: str, bound: str, error: str) -> None:
        """``var`` decoded as ``encoding``, ``error`` raised on bad text; no handler for an
        encoding that maps every byte (Latin-1), whose decoding cannot fail."""
        decoding = f"{var} = {var}{decode_call(encoding)}"
        if codecs.lookup(encoding).name == "iso8859-1":
            w.line(decoding)
            return
        w.line("try:")
        with w.indent():
            w.line(decoding)
        w.line(f"except UnicodeDecodeError{bound}:")
        with w.indent():
            w.line(error)

    def terminated(self, w: LineWriter, ref: TypeRef, var: str, n: str, start: str) -> None:
        """``terminator:``: the bytes up to that byte before ``end``, the byte skipped."""
        what = "string" if ref.kind == "str" else "bytes"
        byte = bytes((ref.terminator,))
        w.line(f"{n} = buf.find({byte!r}, pos, end) - pos")
        w.line(f"if {n} < 0:")
        with w.indent():
            w.line(
                f'raise DecodeError("no terminator byte {ref.terminator:#04x} after the {what}", '
                "offset=end)"
            )
        self.limit(w, "max_string", n, start)
        w.line(f"{var} = buf[pos : pos + {n}]")
        w.line(f"pos += {n} + 1")

    def need(self, w: LineWriter, n: str, what: str) -> None:
        w.line(f"if {n} > end - pos:")
        with w.indent():
            w.line(
                f'raise DecodeError(f"truncated {what}: needs {{{n}}} bytes, '
                f'{{end - pos}} remain", offset=pos)'
            )

    def record_call(self, ref: TypeRef, var: str, end: str, field: Field) -> str:
        extra = f", parent_of_{field.name}" if ref.name in self.needs_parent else ""
        return f"{var}, pos = _read_{ref.name}(buf, pos, {end}, limits, depth + 1{extra})"

    def record_value(
        self, w: LineWriter, ref: TypeRef, var: str, field: Field, call: str = ""
    ) -> None:
        """A record (``call``: the read of it, ``{end}`` where it ends: a processed one)."""
        if ref.size is None:
            w.line(call.replace("{end}", "end") or self.record_call(ref, var, "end", field))
            return
        if not ref.size_is_prefix:
            self.sized(w, ref, var, field, None, call)
            return
        start = w.fresh("at")
        n = w.fresh("n")
        w.line(f"{start} = pos")
        self.scalar(w, ref.size, n)
        w.line(f"if {n} < 0:")
        with w.indent():
            w.line(f'raise DecodeError(f"negative length {{{n}}}", offset={start})')
        self.limit(w, "max_message_bytes", n, start)
        what = "size-prefixed field"
        self.need(w, n, what)
        sub_end = w.fresh("sub_end")
        w.line(f"{sub_end} = pos + {n}")
        if call:  # it reads every byte up to sub_end, or raises
            w.line(call.replace("{end}", sub_end))
            w.line(f"pos = {sub_end}")
            return
        w.line(self.record_call(ref, var, sub_end, field))
        w.line(f"if pos != {sub_end}:")
        with w.indent():
            w.line(
                f'raise DecodeError(f"length {{{n}}} leaves {{{sub_end} - pos}} byte(s) '
                f'unparsed", offset={start})'
            )

    def sized(self, w: LineWriter, ref: TypeRef, var: str, field: Field, inner, call="") -> None:
        """``runtime.core.sized.Sized``: exactly ``size`` bytes (a number or an expression),
        which the value must consume entirely."""
        start = w.fresh("at")
        n = w.fresh("n")
        w.line(f"{start} = pos")
        w.line(f"{n} = {ref.size if isinstance(ref.size, int) else self.expression(ref.size)}")
        what = "sized field"
        w.line(f"if {n} < 0:")
        with w.indent():
            w.line(f'raise DecodeError(f"invalid size {{{n}!r}}", offset=pos)')
        self.need(w, n, what)
        sub_end = w.fresh("sub_end")
        w.line(f"{sub_end} = pos + {n}")
        if call:  # it reads every byte up to sub_end, or raises
            w.line(call.replace("{end}", sub_end))
            w.line(f"pos = {sub_end}")
            return
        if inner is None:
            w.line(self.record_call(ref, var, sub_end, field))
        else:
            outer = w.fresh("outer_end")
            w.line(f"{outer} = end")
            w.line(f"end = {sub_end}")
            inner(w, ref, var, field)
            w.line(f"end = {outer}")
        w.line(f"if pos != {sub_end}:")
        with w.indent():
            w.line(
                f'raise DecodeError(f"size {{{n}}} leaves {{{sub_end} - pos}} byte(s) '
                f'unparsed", offset={start})'
            )
