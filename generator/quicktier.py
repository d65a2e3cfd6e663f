"""The quick tier: an optimistic reader tried before the exact fast path.

For the records whose fields it knows, the emitter writes ::

    def _quick_cell(buf, pos, end, limits):
        ...
        return model, pos

which makes every check that ``_read_cell`` (the exact fast path) makes, but keeps no error
bookkeeping: no field spans, no offsets, no messages, no field path. At the first check that
fails it raises ``runtime.fast.Retry`` (a read past the buffer raises IndexError or
struct.error, bad text UnicodeDecodeError: ``runtime.fast.QUICK_FAILURES`` all), and
``runtime.codec.parse_fast`` then reads the input again with the exact reader, which gives
the exact ``DecodeError``. So it can only accept what the exact reader accepts, with the
same model, and errors stay identical.

What it saves: bounds checks, offsets read at constants from ``pos`` (a run of fixed-size
items such as a tag, a tag and a length moves ``pos`` once), a record used once, outside a
repeat, read inline (no call, no ``(model, pos)`` tuple), the bytes a checksum covers kept
from the reads, a CRC-8 over one-byte items (a row's cell checksums) as a table loop instead
of a ``bytes`` built for the C function. The nesting depth of a record is known from the
spec (the tier reads no recursive record), so ``max_depth`` is compared once per parse.

Why no bounds checks: ``pos`` only grows, and every read moves it past the bytes read, so a
read past ``end`` leaves ``pos`` beyond ``end`` for good (a loop ``while pos < end`` stops, an
optional tag tested with ``pos < end`` is absent, a length is more than ``end - pos``). Every
``end`` is either the input's (past it, a fixed read raises IndexError or struct.error, and
``parse_fast`` takes only ``pos == len(data)``) or a length's, after which the reader tests
``pos`` against it. So whatever read past an ``end`` is refused, as the exact reader refuses it.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Callable

from .fastpath import FastPathEmitter, _Writer, struct_format, struct_name
from .model import Field, Record, Spec, TypeRef, camel
from .types import PRIMITIVES

_RETRY = "raise rt_fast.Retry"
_THIS = re.compile(r"\bthis\.([a-z_][a-z0-9_]*)")


class _NoQuick(Exception):
    """The record uses something the quick tier does not read: parse goes straight to the
    exact reader for it."""


@dataclasses.dataclass
class _Fixed:
    """``size`` bytes at a constant offset from ``pos``: ``emit(at)`` reads them at ``at``
    (``"pos + 3"``); ``pos`` moves past a run of these at once."""

    size: int
    emit: Callable[[str], None]


@dataclasses.dataclass
class _Code:
    """Code that reads at ``pos`` itself (``pos`` is advanced past the pending fixed items
    first)."""

    emit: Callable[[], None]


class QuickTierEmitter:
    """Emits the quick-tier functions of one spec (see the module docstring)."""

    def __init__(self, spec: Spec):
        self.spec = spec
        self.fast = FastPathEmitter(spec)
        self.unpackers: dict[str, str] = {}
        """``_UNPACK_LE_S32``-style names of bound ``unpack_from`` methods -> struct format."""
        self.uses_crc8_table = False
        self.depths: dict[str, int] = {}
        self.supported = self._supported()
        uses = self._uses()
        # Read inline where used: records read once, outside a repeat, by another record.
        self.inline = {name for name, n in uses.items() if n == (1, 0)}
        self.called = {name for name, n in uses.items() if any(n) and name not in self.inline}
        self.entries = [
            name
            for name in spec.record_order()
            if name in self.supported and (name == spec.default_record or name in self.called)
        ]

    # -- which records the tier reads -------------------------------------------------

    def _supported(self) -> set[str]:
        ok: set[str] = set()
        for name in self.spec.record_order():
            record = self.spec.records[name]
            try:
                self._check_record(record, ok)
            except _NoQuick:
                continue
            ok.add(name)
            children = [self.depths[r] for f in record.fields for r in self._refs(f.type)]
            self.depths[name] = 1 + max(children, default=0)
        return ok

    def _refs(self, ref: TypeRef) -> list[str]:
        if ref.kind == "record":
            return [ref.name]
        return [name for sub in ref.cases.values() for name in self._refs(sub)]

    def _check_record(self, record: Record, ok: set[str]) -> None:
        fast = self.fast
        if (
            record.name not in fast.supported
            or record.name in fast.needs_parent
            or record.layout != "sequence"
            or record.trailer
        ):
            raise _NoQuick(record.name)
        for field in record.fields:
            if field.condition or field.valid or field.trailer:
                raise _NoQuick(field.name)
            if field.repeat is not None:
                if field.repeat not in ("eos", "tagged") or field.type.kind != "record":
                    raise _NoQuick("a counted repeat or a repeat of values")
                if field.type.size is not None:
                    raise _NoQuick("a repeat of sized records")
            if field.const is not None and field.type.kind != "prim":
                raise _NoQuick("a const that is no number")
            self._check_type(field.type, ok)
            if field.checksum is not None:
                self._check_checksum(record, field)

    def _check_type(self, ref: TypeRef, ok: set[str]) -> None:
        if ref.args or ref.count is not None:
            raise _NoQuick("runtime arguments or counts")
        if ref.kind == "prim":
            if self._fixed_size(ref.name) is None:
                raise _NoQuick(ref.name)
        elif ref.kind in ("str", "bytes"):
            if not self._fixed_length(ref) and not isinstance(ref.size, int):
                raise _NoQuick("a string without a fixed-width length")
        elif ref.kind == "record":
            if ref.name not in ok:
                raise _NoQuick(ref.name)
            if ref.size is not None and not self._fixed_length(ref):
                raise _NoQuick("a record sized otherwise than by a fixed-width length")
        elif ref.kind == "switch":
            if ref.size is not None or not ref.enum:
                raise _NoQuick("a sized switch or one not over an enum")
            for sub in ref.cases.values():
                self._check_type(sub, ok)
        elif ref.kind not in ("empty", "presence"):
            raise _NoQuick(ref.kind)

    def _check_checksum(self, record: Record, field: Field) -> None:
        if field.type.kind != "prim":
            raise _NoQuick("a checksum that is no number")
        for item in field.checksum.items:
            if item.kind == "raw":
                target = record.field(item.field)
                if target.repeat is not None or target.type.kind not in (
                    "prim",
                    "str",
                    "bytes",
                    "record",
                ):
                    raise _NoQuick("a raw checksum item that may be None when present")
            elif item.kind == "value" and "_parent" in item.expression:
                raise _NoQuick("a checksum value over the parent")

    @staticmethod
    def _fixed_size(prim) -> int | None:
        """The size of a fixed-width number (not a varint), else None."""
        p = PRIMITIVES.get(prim) if isinstance(prim, str) else None
        if p is None or p.size is None or prim.startswith("msb_"):
            return None
        if p.kind not in ("int", "uint", "float", "bool"):
            return None
        return p.size

    def _fixed_length(self, ref: TypeRef) -> bool:
        """Whether ``ref`` has a length prefix that is a fixed-width integer."""
        return (
            ref.size_is_prefix
            and self._fixed_size(ref.size) is not None
            and PRIMITIVES[ref.size].kind == "int"
        )

    def _uses(self) -> dict[str, tuple[int, int]]:
        """How often each record is read by another one: (outside a repeat, in one)."""
        uses = {name: [0, 0] for name in self.supported}
        for name in self.supported:
            for field in self.spec.records[name].fields:
                for ref in self._refs(field.type):
                    uses[ref][1 if field.repeat is not None else 0] += 1
        return {name: tuple(n) for name, n in uses.items()}

    # -- emission ---------------------------------------------------------------------

    def module_code(self) -> str:
        functions = [self.record_function(self.spec.records[name]) for name in self.entries]
        constants = [
            f"{name} = struct.Struct({fmt!r}).unpack_from"
            for name, fmt in sorted(self.unpackers.items())
        ]
        if self.uses_crc8_table:
            constants.append("_CRC8_TABLE = rt_fast.CRC8_TABLE")
        table = (
            [
                "# The quick tier of `parse`: (reader, the nesting depth it reads) by record.",
                "QUICK_READERS = {",
            ]
            + [f"    {name!r}: (_quick_{name}, {self.depths[name]})," for name in self.entries]
            + ["}"]
        )
        return "\n\n".join(
            ["\n".join(constants)] * bool(constants) + functions + ["\n".join(table)]
        )

    def record_function(self, record: Record) -> str:
        self.w = _Writer()
        self.w.line(
            f'"""``_read_{record.name}``\'s checks without its errors: any failure raises '
            '``rt_fast.Retry``."""'
        )
        self.off = 0
        self.emit_ops(self.record_ops(record, "f_", "end"))
        self.flush()
        self.w.line("return model, pos")
        return f"def _quick_{record.name}(buf, pos, end, limits):\n" + "\n".join(self.w.lines)

    # `off`: the bytes past `pos` read by the fixed items so far, `pos` not yet advanced.

    def emit_ops(self, ops: list) -> None:
        for op in ops:
            if isinstance(op, _Fixed):
                op.emit(self.at())
                self.off += op.size
            else:
                self.flush()
                op.emit()

    def at(self, extra: int = 0) -> str:
        off = self.off + extra
        return f"pos + {off}" if off else "pos"

    def flush(self) -> None:
        if self.off:
            self.w.line(f"pos += {self.off}")
            self.off = 0

    def retry_if(self, condition: str) -> None:
        self.w.line(f"if {condition}:")
        with self.w.indent():
            self.w.line(_RETRY)

    def record_ops(self, record: Record, prefix: str, end: str) -> list:
        """The reads of ``record`` with its fields as ``<prefix><name>``, within ``end``;
        the last one builds ``model``."""
        ops: list = []
        if record.tag is not None:
            ops.append(self.tag_op(record.tag))
        spans = record.checksummed
        for field in record.fields:
            ops += self.field_ops(record, field, prefix, end, spans)
        ops.append(_Code(lambda: self.new_model(record, prefix)))
        return ops

    def new_model(self, record: Record, prefix: str, var: str = "model") -> None:
        self.w.line(f"{var} = _NEW({camel(record.name)})")
        for f in record.fields:
            self.w.line(f"{var}.{f.name} = {prefix}{f.name}")

    def tag_op(self, tag: int) -> _Fixed:
        return _Fixed(1, lambda at: self.retry_if(f"buf[{at}] != 0x{tag:02x}"))

    def field_ops(self, record, field: Field, prefix: str, end: str, spans: set[str]) -> list:
        var = f"{prefix}{field.name}"
        comment = _Code(
            lambda: self.w.line(f"# {self.spec.source.display}:{field.line}: {field.name}")
        )
        if field.type.kind == "presence":

            def presence():
                self.w.line(f"{var} = pos < {end} and buf[pos] == 0x{field.tag:02x}")
                self.w.line(f"if {var}:")
                with self.w.indent():
                    self.w.line("pos += 1")

            return [comment, _Code(presence)]
        body = self.body_ops(record, field, var, prefix, end, field.name in spans)
        if field.tag is None:
            return [self.comment_fixed(comment, body)] + body
        if not field.optional:
            return [self.comment_fixed(comment, body), self.tag_op(field.tag)] + body

        def optional():
            comment.emit()
            self.w.line(f"if pos < {end} and buf[pos] == 0x{field.tag:02x}:")
            with self.w.indent():
                self.off = 1  # the tag, tested just now
                self.emit_ops(body)
                self.flush()
            self.w.line("else:")
            with self.w.indent():
                self.w.line(f"{var} = {'[]' if field.repeat is not None else 'None'}")

        return [_Code(optional)]

    def comment_fixed(self, comment: _Code, body: list):
        """The field's spec line as a comment, which does not end a run of fixed items
        (or ends it before the comment when the field's first read does)."""
        if isinstance(body[0], _Fixed):
            return _Fixed(0, lambda at: comment.emit())
        return comment

    def body_ops(self, record, field: Field, var: str, prefix: str, end: str, span: bool) -> list:
        ref = field.type
        if field.repeat is not None:
            return [_Code(lambda: self.repeat(field, var, end))]
        ops = self.value_ops(ref, var, prefix, end, span)
        if field.const is not None:
            ops.append(_Fixed(0, lambda at: self.retry_if(f"{var} != {field.const:#x}")))
        if field.checksum is not None:
            ops.append(_Fixed(0, lambda at: self.checksum(record, field, prefix)))
        return ops

    def value_ops(self, ref: TypeRef, var: str, prefix: str, end: str, span: bool) -> list:
        if ref.kind == "prim":
            return [self.prim_op(ref, var, end, span)]
        if ref.kind in ("str", "bytes"):
            return self.bytes_ops(ref, var, end, span)
        if ref.kind == "record":
            return self.record_ops_of(ref, var, end, span)
        if ref.kind == "switch":
            return [_Code(lambda: self.switch(ref, var, prefix, end))]
        assert ref.kind == "empty", ref.kind
        return [_Fixed(0, lambda at: self.w.line(f"{var} = None"))]

    def prim_op(self, ref: TypeRef, var: str, end: str, span: bool) -> _Fixed:
        size = self._fixed_size(ref.name)

        def emit(at: str):
            if span:  # the bytes a checksum covers
                self.w.line(f"{var}_raw = buf[{at} : {self.at(size)}]")
            if ref.name == "bool":
                self.retry_if(f"buf[{at}] > 1")
                self.w.line(f"{var} = buf[{at}] == 1")
            elif ref.name == "u8":
                read = f"buf[{at}]"
                if ref.enum:
                    self.enum_value(ref, var, read)
                else:
                    self.w.line(f"{var} = {read}")
            else:
                read = f"{self.unpacker(ref.name)}(buf, {at})[0]"
                if ref.enum:
                    self.enum_value(ref, var, read)
                else:
                    self.w.line(f"{var} = {read}")

        return _Fixed(size, emit)

    def unpacker(self, prim: str) -> str:
        """The module constant of the ``unpack_from`` of a fixed-width number (bound: one
        attribute lookup less a read)."""
        name = "_UNPACK" + struct_name(prim, self.spec.endian)
        self.unpackers[name] = struct_format(prim, self.spec.endian)
        return name

    def enum_value(self, ref: TypeRef, var: str, read: str) -> None:
        self.w.line(f"{var} = _{ref.enum.upper()}_BY_VALUE.get({read})")
        self.retry_if(f"{var} is None")

    def length(self, ref: TypeRef, n: str, end: str) -> _Fixed:
        """A fixed-width length prefix into ``n``."""

        def emit(at: str):
            if ref.size == "u8":
                self.w.line(f"{n} = buf[{at}]")
            else:
                self.w.line(f"{n} = {self.unpacker(ref.size)}(buf, {at})[0]")

        return _Fixed(self._fixed_size(ref.size), emit)

    def bytes_ops(self, ref: TypeRef, var: str, end: str, span: bool) -> list:
        if isinstance(ref.size, int):
            return [self.fixed_bytes(ref, var, end, span)]
        n = self.w.fresh("n")

        def body():
            tests = []
            if PRIMITIVES[ref.size].signed:
                tests.append(f"{n} < 0")
            if ref.max_length is not None:
                tests.append(f"{n} > {ref.max_length}")
            tests += [f"{n} > limits.max_string", f"{n} > {end} - pos"]
            self.retry_if(" or ".join(tests))
            self.sliced(ref, var, span, "pos", f"pos + {n}")
            self.w.line(f"pos += {n}")

        return [self.length(ref, n, end), _Code(body)]

    def sliced(self, ref: TypeRef, var: str, span: bool, start: str, stop: str) -> None:
        """A string's or bytes' value; a string in a checksum keeps its bytes as
        ``<var>_raw`` (what the checksum covers: no second slice)."""
        strip = f".rstrip({ref.pad!r})" if ref.pad else ""  # pad: not in the model
        if ref.kind == "bytes":
            self.w.line(f"{var} = buf[{start} : {stop}]")
        elif span:
            self.w.line(f"{var}_raw = buf[{start} : {stop}]")
            self.w.line(f"{var} = {var}_raw{strip}.decode({ref.encoding!r})")
        else:
            self.w.line(f"{var} = buf[{start} : {stop}]{strip}.decode({ref.encoding!r})")

    def fixed_bytes(self, ref: TypeRef, var: str, end: str, span: bool) -> _Fixed:
        """A string or bytes of a constant size: part of a run of fixed items."""
        size = ref.size

        def emit(at: str):
            self.retry_if(f"limits.max_string < {size}")
            self.sliced(ref, var, span, at, self.at(size))  # `off` is this item's offset

        return _Fixed(size, emit)

    def record_ops_of(self, ref: TypeRef, var: str, end: str, span: bool) -> list:
        """A record field: inline when read only here, else a call; within its length."""
        ops = []
        sub_end = end
        if ref.size is not None:
            n = self.w.fresh("n")
            ops.append(self.length(ref, n, end))
            sub_end = self.w.fresh("end")

            def bound():
                tests = [f"{n} > limits.max_message_bytes", f"{n} > {end} - pos"]
                if PRIMITIVES[ref.size].signed:
                    tests.insert(0, f"{n} < 0")
                self.retry_if(" or ".join(tests))
                self.w.line(f"{sub_end} = pos + {n}")
                if span:
                    self.w.line(f"{var}_at = pos")

            ops.append(_Code(bound))
        elif span:
            ops.append(_Code(lambda: self.w.line(f"{var}_at = pos")))
        if ref.name in self.inline:
            record = self.spec.records[ref.name]
            # a prefix no field variable (f_*) and no other inlined record has
            inner = f"{self.w.fresh('v')}_"
            ops.append(
                _Code(lambda: self.w.line(f"# {ref.name}, read here (its fields: {inner}*)"))
            )
            sub = self.record_ops(record, inner, sub_end)
            sub[-1] = _Code(lambda: self.new_model(record, inner, var))
            ops += sub
        else:
            ops.append(
                _Code(
                    lambda: self.w.line(
                        f"{var}, pos = _quick_{ref.name}(buf, pos, {sub_end}, limits)"
                    )
                )
            )
        tail = []
        if ref.size is not None:
            tail.append(f"pos != {sub_end}")

        def close():
            if tail:
                self.retry_if(tail[0])
            if span:
                self.w.line(f"{var}_end = pos")

        ops.append(_Code(close))
        return ops

    def switch(self, ref: TypeRef, var: str, prefix: str, end: str) -> None:
        """As ``FastPathEmitter.switch_value``: the selector's integer value per case."""
        cases, default = ref.payload_cases()
        enum = self.spec.enums[ref.enum]
        for i, (case, sub) in enumerate(cases):
            value = next(v.value for v in enum.values if v.name == case)
            self.w.line(
                f"{'if' if i == 0 else 'elif'} {prefix}{ref.switch_on} == {value:#x}:"
                f"  # {enum.class_name}.{case}"
            )
            with self.w.indent():
                self.branch(self.value_ops(sub, var, prefix, end, False))
        self.w.line("else:" if cases else "if True:")
        with self.w.indent():
            if default is None:
                self.w.line(f"{var} = None")
            else:
                self.branch(self.value_ops(default, var, prefix, end, False))

    def branch(self, ops: list) -> None:
        self.off = 0
        self.emit_ops(ops)
        self.flush()

    def repeat(self, field: Field, var: str, end: str) -> None:
        ref = field.type
        self.w.line(f"{var} = []")
        if field.repeat == "eos":
            self.w.line(f"while pos < {end}:")
        else:
            tag = self.spec.records[ref.name].tag
            self.w.line(f"while pos < {end} and buf[pos] == 0x{tag:02x}:")
        with self.w.indent():
            self.retry_if(f"len({var}) >= limits.max_count")
            self.w.line(f"item, pos = _quick_{ref.name}(buf, pos, {end}, limits)")
            self.w.line(f"{var}.append(item)")
        if field.min_count:
            self.retry_if(f"len({var}) < {field.min_count}")

    # -- checksums --------------------------------------------------------------------

    def checksum(self, record: Record, field: Field, prefix: str) -> None:
        var = f"{prefix}{field.name}"
        items = field.checksum.items
        algorithm = field.checksum.algorithm
        if algorithm == "crc8" and all(self.one_byte(record, field, i) for i in items):
            # one table lookup an item: cheaper than a bytes object for the C function
            self.uses_crc8_table = True
            crc = self.w.fresh("crc")
            self.w.line(f"{crc} = 0")
            for item in items:
                if item.kind == "each":
                    self.w.line(f"for e in {prefix}{item.field}:")
                    with self.w.indent():
                        self.w.line(f"{crc} = _CRC8_TABLE[{crc} ^ e.{item.member}]")
                else:
                    self.w.line(
                        f"{crc} = _CRC8_TABLE[{crc} ^ ({self.expression(item.expression, prefix)})]"
                    )
            self.retry_if(f"{var} != {crc}")
            return
        data = self.w.fresh("data")
        first = items[0]
        if first.kind != "raw" or record.field(first.field).optional:
            self.w.line(f'{data} = b""')
        for i, item in enumerate(items):
            add = (
                "="
                if i == 0 and first.kind == "raw" and not record.field(first.field).optional
                else "+="
            )
            src = f"{prefix}{item.field}"
            if item.kind == "raw":
                target = record.field(item.field)
                kind = target.type.kind
                part = (
                    src
                    if kind == "bytes"
                    else f"{src}_raw"
                    if kind != "record"
                    else f"buf[{src}_at : {src}_end]"
                )
                if target.optional:
                    self.w.line(f"if {src} is not None:")
                    with self.w.indent():
                        self.w.line(f"{data} += {part}")
                else:
                    self.w.line(f"{data} {add} {part}")
            elif item.kind == "each" and self.fast.member_is_u8(field, item):
                self.w.line(f"{data} += bytes([e.{item.member} for e in {src}])")
            elif item.kind == "each":
                enc = self.fast.struct(item.encoder)
                self.w.line(f'{data} += b"".join([{enc}.pack(e.{item.member}) for e in {src}])')
            else:
                enc = self.fast.struct(item.encoder)
                self.w.line(f"{data} += {enc}.pack({self.expression(item.expression, prefix)})")
        self.retry_if(f"{var} != _{algorithm.upper()}({data})")

    def one_byte(self, record: Record, field: Field, item) -> bool:
        """An item that is one byte in 0..255: a u8 member of each element, or a value
        whose every outcome is a number literal in range (another value could index the
        table from its end)."""
        if item.kind == "each":
            return self.fast.member_is_u8(field, item)
        if item.kind != "value" or item.encoder != "u8":
            return False
        node = ast.parse(self.expression(item.expression, "f_"), mode="eval").body
        outcomes = [node.body, node.orelse] if isinstance(node, ast.IfExp) else [node]
        return all(
            isinstance(o, ast.Constant) and type(o.value) is int and 0 <= o.value <= 0xFF
            for o in outcomes
        )

    def expression(self, text: str, prefix: str) -> str:
        """A spec expression over this record's fields (``this.x``) as its variables."""
        return self.fast.expression(_THIS.sub(rf"this.{prefix}\1", text)).replace(
            f"f_{prefix}", prefix
        )
