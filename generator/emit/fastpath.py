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
construct for it; ``refused`` keeps why, which the module declares (generator/emit/fallbacks.py).
"""

from __future__ import annotations

import functools
import re

from generator.spec import pytext
from generator.spec.model import Field, Record, Spec, TypeRef, camel
from generator.spec.types import CHUNK_TYPES, LEB128, PRIMITIVES, REGION_TYPES
from runtime.core.fast import GROUPED_ARRAY_MAX

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


FAST_KINDS = (
    "prim", "bits", "record", "str", "bytes", "switch", "choice", "presence", "empty", "chunk",
    "region",
)
"""Type kinds the fast path reads (a runtime primitive brings its own reader)."""


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
        self.checksums: set[str] = set()
        self.uses_msb_length = False
        self.uses_msb_zigzag = False
        self.msb_arrays: dict[str, tuple[int, int]] = {}
        self.uses_unzigzag = False
        self.member_constants: dict[str, str] = {}
        self.instances: dict[str, str] = {}
        """Runtime chunk and region objects the functions call: name -> constructor."""
        self.choices: dict[str, TypeRef] = {}
        """Choice tables the functions read: name -> the choice."""
        self.supported = self._supported_records()

    # -- which records can have a fast path --------------------------------------------

    def _supported_records(self) -> set[str]:
        self.needs_parent = {
            name for name, record in self.spec.records.items() if self._uses_parent(record)
        }
        self.refused: dict[str, str] = {}
        """Record -> why it has no fast reader (``parse`` reads it with construct)."""
        # `_parent._parent.x`: the parent passes its own parent on, so it takes one too
        self.needs_parent |= {
            name
            for name, record in self.spec.records.items()
            for field in record.fields
            for ref in [field.type, *field.type.cases.values()]
            if ref.kind == "record"
            and any("_parent._parent" in t for t in self._expressions(self.spec.records[ref.name]))
        }
        self.reads_index = any(
            "_index" in text
            for record in self.spec.records.values()
            for text in self._expressions(record)
        )
        """Some expression reads ``_index``: parents passed on carry the element's index."""
        # Every record is taken to have a reader until one it uses has none: a recursive
        # record's reader calls itself, so its records are supported together or not at all.
        ok = set(self.spec.records)
        changed = True
        while changed:
            changed = False
            for name in self.spec.record_order():
                if name not in ok:
                    continue
                record = self.spec.records[name]
                try:
                    for field in record.fields:
                        self._check_field(field, record, ok)
                except Unsupported as why:
                    self.refused[name] = f"{field.name}: {why}"
                    ok.discard(name)
                    changed = True
        return ok

    def _expressions(self, record: Record) -> list[str]:
        """Every expression of ``record``'s own fields (sizes, counts, conditions, ...)."""
        out = []
        for field in record.fields:
            out += self._type_expressions(field.type)
            out.append(field.condition or "")
            out.append(field.valid)
            out.append(field.derived)
            if isinstance(field.repeat, dict):
                out.append(str(field.repeat["count"]))
            if field.process is not None and field.process.cases is not None:
                out.append(field.process.codec)
            if field.checksum is not None:
                out.extend(item.expression for item in field.checksum.items)
        return out

    @staticmethod
    def _type_expressions(ref: TypeRef) -> list[str]:
        out = [ref.size] if isinstance(ref.size, str) and not ref.size_is_prefix else []
        if isinstance(ref.count, str):
            out.append(ref.count)
        for sub in ref.cases.values():
            out += FastPathEmitter._type_expressions(sub)
        return out

    def _uses_parent(self, record: Record) -> bool:
        return any("_parent" in text for text in self._expressions(record))

    def _record_refs(self, ref: TypeRef) -> list[str]:
        if ref.kind == "record":
            return [ref.name]
        return [name for sub in ref.cases.values() for name in self._record_refs(sub)]

    def _check_type(
        self, ref: TypeRef, ok: set[str], serializable: bool, bounded: bool = False
    ) -> None:
        """``bounded``: inside a sized switch (a message there ends where the size says)."""
        if ref.kind == "record":
            if ref.name not in ok:
                raise Unsupported(f"record {ref.name} has no fast reader")
            target = self.spec.records[ref.name]
            if serializable and (target.serializable or ref.name in self.needs_parent):
                raise Unsupported("a message or a _parent user nested in a message")
            if target.serializable and ref.size is None and not bounded:
                raise Unsupported("an unsized message inside a record")
        if ref.args:
            raise Unsupported(f"runtime primitive {ref.name} (it brings its own reader)")
        if ref.kind == "prim" and (ref.name not in PRIMITIVES or ref.name == "reversed_uvarint"):
            raise Unsupported(f"{ref.name} outside a trailer")  # read from the end only
        if ref.size_is_prefix and ref.size == "reversed_uvarint":
            raise Unsupported("a reversed length prefix")
        if ref.kind not in FAST_KINDS:
            raise Unsupported(f"a {ref.kind} type")
        if ref.kind in ("chunk", "region") and ref.size_is_prefix:
            raise Unsupported("a length-prefixed chunk or region")
        if ref.kind == "choice" and any(case in self.needs_parent for case in ref.cases):
            raise Unsupported("a choice of records reading `_parent`")
        for sub in ref.cases.values():
            self._check_type(sub, ok, serializable, bounded or ref.size is not None)

    def _check_field(self, field: Field, record: Record, ok: set[str]) -> None:
        if field.repeat == "until":
            raise Unsupported("repeat: until (read by construct)")
        if (field.process is not None or field.repeat == "blocks") and field.condition:
            raise Unsupported("a conditional process: or repeat: blocks (read by construct)")
        if field.process is not None and field.type.kind != "record" and not field.repeat:
            raise Unsupported("process: on bytes or text (read by construct)")
        if field.trailer and not self.backwards(field.type):
            raise Unsupported("a trailer field the fast path cannot read from the end")
        if field.trailer and field.type.name in self.needs_parent:
            raise Unsupported("a trailer record reading `_parent`")
        if record.serializable and (
            field.tag is not None
            or field.condition
            or field.const is not None
            or field.checksum is not None
            or field.repeat not in (None,)
            and not isinstance(field.repeat, dict)
        ):
            raise Unsupported("tags, conditions, checksums or open repeats in a message")
        if any(
            "_parent._parent._parent" in text or "this._parent" == text
            for text in self._expressions(record)
        ):
            raise Unsupported("expressions over the great-grandparent")
        if not (field.trailer and field.type.kind == "prim"):
            self._check_type(field.type, ok, record.serializable)
        if field.checksum is not None:
            for item in field.checksum.items:
                if item.kind == "raw":
                    target = self.field_of(field, item.field)
                    if target.type.size_is_prefix and PRIMITIVES[target.type.size].size is None:
                        raise Unsupported("a raw checksum item with a varint length")

    @staticmethod
    def backwards(ref: TypeRef) -> bool:
        """A trailer field's type: a reversed uvarint, or a region or record whose
        ``size:`` expression says where it starts."""
        if ref.kind == "prim":
            return ref.name == "reversed_uvarint"
        return (
            ref.kind in ("region", "record")
            and isinstance(ref.size, str)
            and not ref.size_is_prefix
        )

    # -- emission ---------------------------------------------------------------------

    def struct(self, prim: str) -> str:
        name = struct_name(prim, self.spec.endian)
        self.structs[name] = struct_format(prim, self.spec.endian)
        return name

    def expression(self, text) -> str:
        text = str(text).replace("this._parent.", "parent.")
        text = _THIS.sub(r"f_\1", text)
        # An enum member as a module constant holding its integer value: IntEnum members
        # equal their values, and a class attribute of an enum goes through
        # EnumType.__getattr__ (about 0.1 us).
        return self._enum_member.sub(self._member_constant, text)

    def _member_constant(self, match: re.Match) -> str:
        name, value = self._enum_values[match.group(0)]
        self.member_constants[name] = f"{value:#x}  # {match.group(0)}"
        return name

    @functools.cached_property
    def _enum_values(self) -> dict[str, tuple[str, int]]:
        """``Class.MEMBER`` -> (``_ENUM_MEMBER``, its value)."""
        return {
            f"{enum.class_name}.{v.name}": (f"_{enum.name.upper()}_{v.name}", v.value)
            for enum in self.spec.enums.values()
            for v in enum.values
        }

    @functools.cached_property
    def _enum_member(self) -> re.Pattern:
        names = sorted(self._enum_values, key=len, reverse=True) or ["(?!)"]
        return re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b")

    def module_code(self) -> str:
        """All fast-path functions, then the struct constants they use (emitted last so
        the set of constants is known)."""
        functions = [
            self.record_function(self.spec.records[name])
            for name in self.spec.record_order()
            if name in self.supported
        ]
        iterated = [
            self.spec.records[name]
            for name in self.spec.record_order()
            if name in self.supported and self.row_iterated(self.spec.records[name])
        ]
        functions += [self.rows_function(r) for r in iterated]
        constants = [
            f"{name} = struct.Struct({fmt!r})" for name, fmt in sorted(self.structs.items())
        ]
        constants += [
            f"_{name.upper()} = rt_fast.CHECKSUMS[{name!r}]" for name in sorted(self.checksums)
        ]
        if self.uses_msb_length:
            constants.append("_MSB_LENGTH = rt_fast.MSB_LENGTH")
        if self.uses_msb_zigzag:
            constants.append("_MSB_ZIGZAG1 = rt_fast.MSB_ZIGZAG1")
        constants += [
            f"{name} = rt_fast.MsbArray({count}, {bits})"
            for name, (count, bits) in sorted(self.msb_arrays.items())
        ]
        constants += [f"{name} = {ctor}" for name, ctor in sorted(self.instances.items())]
        constants += [f"{n} = {v}" for n, v in sorted(self.member_constants.items())]
        if self.uses_unzigzag:
            constants.append("_UNZIGZAG = rt_fast.LEB128_ZIGZAG1.__getitem__")
        if any(not self.spec.records[n].serializable for n in self.supported):
            constants.append("_NEW = object.__new__")
        enums = [
            f"_{e.name.upper()}_BY_VALUE = {{m.value: m for m in {e.class_name}}}"
            for e in self.spec.enums.values()
        ]
        # A record whose expressions name `_parent` is only read inside its parent; parsed
        # on its own it goes through construct (which has no parent to give it either).
        table = (
            ["FAST_READERS = {"]
            + [
                f"    {name!r}: _read_{name},"
                for name in self.spec.record_order()
                if name in self.supported and name not in self.needs_parent
            ]
            + ["}", "", "FAST_ROW_ITERATORS = {"]
            + [f"    {r.name!r}: _rows_{r.name}," for r in iterated]
            + ["}"]
        )
        table = self.choice_tables() + table
        return "\n\n".join(["\n".join(constants + enums)] + functions + ["\n".join(table)])

    def record_readers(self, ref: TypeRef) -> str:
        """``arg=_read_<record>, ...`` for a runtime primitive's record arguments that
        have a fast reader (its ``use_fast_readers`` takes them)."""
        return ", ".join(
            f"{arg}=_read_{value}"
            for arg, value in ref.args.items()
            if value in self.supported and value not in self.needs_parent
        )

    def signature(self, record: Record) -> str:
        extra = ", parent" if record.name in self.needs_parent else ""
        return f"def _read_{record.name}(buf, pos, end, limits, depth{extra}):"

    def row_iterated(self, record: Record) -> Field | None:
        """The field whose elements ``iter_rows`` yields as they are read: the record's
        ``spark: {row: ...}`` field when it is its last, a ``repeat: eos`` of records,
        with no tag or condition (so nothing after the elements needs them kept)."""
        if (
            not record.spark_row
            or record.spark_path
            or record.name not in self.supported
            or record.name in self.needs_parent
            or record.serializable
        ):
            return None
        field = record.field(record.spark_row)
        if (
            field is not record.fields[-1]
            or field.repeat != "eos"
            or field.type.kind != "record"
            or field.type.size is not None
            or field.tag is not None
            or field.condition
        ):
            return None
        return field

    def rows_function(self, record: Record) -> str:
        """``_rows_<record>``: a generator of the row field's elements, each yielded as
        soon as it is read (the fields before it read as ``_read_<record>`` reads them;
        errors with the same offset and path, raised when reached)."""
        return self.record_function(record, rows=self.row_iterated(record))

    def record_function(self, record: Record, rows: Field | None = None) -> str:
        if record.serializable:
            return self.message_function(record)
        w = _Writer()
        if rows is None:
            w.line(
                f'"""Fast path of ``{record.name}``: the model and errors of the construct '
                'path."""'
            )
        else:
            w.line(
                f'"""The elements of ``{record.name}.{rows.name}`` one at a time (``iter_rows``)."""'
            )
        self.limit(w, "max_depth", "depth", "pos")
        spans = self.spanned_fields(record)
        if record.tag is not None:
            self.tag(w, record.tag)
        if record.trailer:
            self.trailer(w, record)
        runs = self.fixed_runs(record)
        known = [f.name for f in record.trailer]  # what `_parent.x` of a child may read
        for field in record.front:
            if field.name in runs:
                self.fused_run(w, record, runs[field.name])
            w.line(pytext.source_comment(self.spec.source.display, field.line, field.name))
            if any(r in self.needs_parent for r in self._record_refs(field.type)):
                # What the element's `_parent.x` expressions see: this record's fields so far.
                args = ", ".join(f"{n}=f_{n}" for n in known)
                if record.name in self.needs_parent:
                    args += (", " if args else "") + "_parent=parent"
                w.line(f"parent_of_{field.name} = rt_fast.Parent({args})")
            known.append(field.name)
            if field.derived:
                self.derived(w, field)
                continue
            if field is rows:
                self.rows_loop(w, field)
                return f"def _rows_{record.name}(buf, pos, end, limits, depth):\n" + "\n".join(
                    w.lines
                )
            evaluates = self.evaluates(field)
            if field.name in spans or evaluates or field.valid:
                w.line(f"f_{field.name}_start = pos")
            w.line("try:")
            with w.indent():
                if field.condition:
                    w.line(f"if {self.expression(field.condition)}:")
                    with w.indent():
                        self.field(w, field, record)
                    w.line("else:")
                    with w.indent():
                        w.line(f"f_{field.name} = None")
                else:
                    self.field(w, field, record)
                if field.name in spans:
                    w.line(f"f_{field.name}_end = pos")
                if field.valid:
                    self.valid(w, field, f"f_{field.name}_start")
            w.line("except DecodeError as err:")
            with w.indent():
                w.line(f"err.add_path({field.name!r})")
                w.line("raise")
            if evaluates:
                self.expression_failure(w, field, f"f_{field.name}_start")
            for checksum in record.fields:
                if checksum.checksum is not None and self.span_of(checksum, field.name):
                    self.checksum(w, checksum, f"f_{checksum.name}", f"f_{checksum.name}_start")
            if field.name in self._run_ends:
                w.depth -= 1  # the end of a fused run's exact (else) branch
        if record.trailer:
            last = record.trailer[-1].name
            w.line("if pos != end:")
            with w.indent():
                w.line(
                    'raise DecodeError(f"{end - pos} byte(s) between the last field and the '
                    f'trailer", offset=pos, path={last!r})'
                )
            w.line("pos = record_end")
        self.new_model(w, record)
        return self.signature(record) + "\n" + "\n".join(w.lines)

    def derived(self, w: _Writer, field: Field) -> None:
        """``derived:``: the value from the fields read so far (``runtime.core.record.Derived``)."""
        w.line("try:")
        with w.indent():
            w.line(f"f_{field.name} = {self.expression(field.derived)}")
        w.line("except rt.EXPRESSION_ERRORS as err:")
        with w.indent():
            w.line(f"raise rt.expression_error(err, pos, {field.name!r}) from None")

    @staticmethod
    def span_of(field: Field, last: str | None = None):
        """The ``span`` item of ``field``'s checksum (ending with ``last`` when given)."""
        return next(
            (
                item
                for item in field.checksum.items
                if item.kind == "span" and last in (None, item.last)
            ),
            None,
        )

    def evaluates(self, field: Field) -> bool:
        """Whether reading ``field`` evaluates a spec expression that may fail on the data
        (an index, a call, an attribute, a division: construct reports that failure as a
        DecodeError at the field; comparisons and sums of integers cannot fail)."""
        texts = [field.condition, *self._type_expressions(field.type)]
        if isinstance(field.repeat, dict):
            texts.append(str(field.repeat["count"]))
        if field.process is not None and field.process.cases is not None:
            texts.append(field.process.codec)
        return any(re.search(r"[\[(./%]", self.expression(t)) for t in texts if t != "eos")

    def expression_failure(self, w: _Writer, field: Field, offset: str) -> None:
        w.line("except rt.EXPRESSION_ERRORS as err:")
        with w.indent():
            w.line(f"raise rt.expression_error(err, {offset}, {field.name!r}) from None")

    def valid(self, w: _Writer, field: Field, offset: str) -> None:
        """``valid:``: the expression must hold once the field is read (failing to
        evaluate counts as false, as in ``runtime.core.record.Valid``)."""
        w.line("try:")
        with w.indent():
            w.line(f"valid = {self.expression(field.valid)}")
        w.line("except rt.EXPRESSION_ERRORS:")
        with w.indent():
            w.line("valid = False")
        w.line("if not valid:")
        with w.indent():
            w.line(
                f"raise rt.unsatisfied({field.name!r}, f_{field.name}, "
                f"{field.valid_text!r}, {offset})"
            )

    def trailer(self, w: _Writer, record: Record) -> None:
        """The ``trailer:`` fields, read first from the end backwards (``limit``: where
        the ones read so far start); the fields in front then end there."""
        w.line("limit = end")
        for field in record.trailer:
            ref, var = field.type, f"f_{field.name}"
            w.line(
                pytext.source_comment(
                    self.spec.source.display, field.line, f"{field.name} (from the end)"
                )
            )
            w.line("try:")
            with w.indent():
                if ref.kind == "prim":  # a reversed uvarint
                    w.line("if limit == pos:")
                    with w.indent():
                        w.line(
                            'raise DecodeError("no bytes left for the reversed uvarint", '
                            "offset=pos)"
                        )
                    w.line(f"{var}, limit = rt_fast.read_reversed_uvarint(buf, limit, pos)")
                else:
                    self.sized_backwards(w, field)
            w.line("except DecodeError as err:")
            with w.indent():
                w.line(f"err.add_path({field.name!r})")
                w.line("raise")
            if ref.kind != "prim":
                self.expression_failure(w, field, "limit")
        w.line("record_end, end = end, limit")

    def sized_backwards(self, w: _Writer, field: Field) -> None:
        """``Sized._parse_backwards``: the ``size`` bytes that end at ``limit``."""
        ref, var = field.type, f"f_{field.name}"
        w.line(f"n = {self.expression(ref.size)}")
        w.line("if type(n) is not int or n < 0:")
        with w.indent():
            w.line('raise DecodeError(f"invalid size {n!r}", offset=limit)')
        w.line("if n > limit - pos:")
        with w.indent():
            w.line(
                'raise DecodeError(f"size {n} points outside the record: only {limit - pos} '
                'byte(s) before the end of this field", offset=limit)'
            )
        w.line("begin = limit - n")
        if ref.kind == "region":
            w.line(f"{var} = {self.instance(ref)}.unpack(buf, begin, limit, limits)")
        else:
            w.line(f"{var}, q = _read_{ref.name}(buf, begin, limit, limits, depth + 1)")
            w.line("if q != limit:")
            with w.indent():
                w.line(
                    'raise DecodeError(f"size {n} leaves {limit - q} byte(s) unparsed", '
                    "offset=begin)"
                )
        if field.valid:
            self.valid(w, field, "begin")
        w.line("limit = begin")

    def instance(self, ref: TypeRef) -> str:
        """The module constant of a chunk or region type (its bytes-level reader)."""
        if ref.kind == "region":
            name = f"_{ref.name.upper()}"
            self.instances[name] = REGION_TYPES[ref.name].construct
            return name
        chunk = CHUNK_TYPES[ref.name]
        args = ["0"]
        if chunk.encoding:
            args.append(repr(chunk.encoding))
        if ref.enum:
            args.append(f"enum={camel(ref.enum)}")
        name = f"_{ref.name.upper()}" + (f"_OF_{ref.enum.upper()}" if ref.enum else "")
        self.instances[name] = f"rt_craft.{chunk.construct}({', '.join(args)})"
        return name

    def new_model(self, w: _Writer, record: Record) -> None:
        """``return Model(f_a, ...), pos`` without the class call: ``object.__new__`` and one
        slot store per field (a model's fields are its record's, each set here) skip the
        type call and the dataclass ``__init__`` frame, about a third of the model's cost."""
        w.line(f"model = _NEW({camel(record.name)})")
        for f in record.fields:
            w.line(f"model.{f.name} = f_{f.name}")
        w.line("return model, pos")

    def rows_loop(self, w: _Writer, field: Field) -> None:
        """``repeat_loop`` of an eos repeat that yields each element instead of keeping it.

        The elements are not kept, so ``max_count`` does not bound how many there are, and
        ``max_message_bytes`` applies to each element (one binlog event), not to the input:
        a file of any size streams through."""
        var = f"f_{field.name}"
        w.line(f"{var}_begin = pos")
        w.line(f"{var}_n = 0")
        w.line("while pos < end:")
        with w.indent():
            w.line(f"{var}_at = pos")
            w.line("try:")
            with w.indent():
                w.line("try:")
                with w.indent():
                    self.value(w, field.type, f"{var}_item", field)
                w.line("except DecodeError as err:")
                with w.indent():
                    w.line(f"err.add_path(index={var}_n)")
                    w.line("raise")
                self.limit(w, "max_message_bytes", f"pos - {var}_at", f"{var}_at")
            w.line("except DecodeError as err:")
            with w.indent():
                w.line(f"err.add_path({field.name!r})")
                w.line("raise")
            w.line(f"{var}_n += 1")
            w.line(f"yield {var}_item")
        if field.min_count:
            w.line(f"if {var}_n < {field.min_count}:")
            with w.indent():
                w.line(
                    f'raise DecodeError("expected at least {field.min_count} element(s)", '
                    f"offset={var}_begin, path={field.name!r})"
                )

    def fusable(self, field: Field) -> bool:
        """A plain fixed-width number: part of a run read with one ``unpack_from``."""
        ref = field.type
        return (
            ref.kind == "prim"
            and ref.name in PRIMITIVES
            and not ref.name.startswith("msb_")
            and ref.name != "bool"
            and PRIMITIVES[ref.name].size is not None
            and PRIMITIVES[ref.name].kind in ("int", "uint", "float")
            and field.tag is None
            and not field.condition
            and field.repeat is None
            and field.checksum is None
            and not field.derived
            and not field.valid  # the run's fast branch makes no `valid:` check
            and not ref.args
        )

    def fixed_runs(self, record: Record) -> dict[str, list[Field]]:
        """Runs of two or more adjacent fusable fields with one byte order, by first name."""
        runs, current = {}, []
        self._run_ends = set()

        def close():
            if len(current) >= 2:
                runs[current[0].name] = list(current)
                self._run_ends.add(current[-1].name)
            current.clear()

        for field in record.front:
            if self.fusable(field):
                order = struct_format(field.type.name, self.spec.endian)[0]
                if current and struct_format(current[0].type.name, self.spec.endian)[0] != order:
                    close()
                current.append(field)
            else:
                close()
        close()
        return runs

    def fused_run(self, w: _Writer, record: Record, run: list[Field]) -> None:
        """Adjacent fixed-width fields in one ``unpack_from`` when all their bytes are
        there (the checks after it raise what the field-by-field code raises); else that
        code (the ``else`` branch, closed after the run's last field)."""
        fmt = struct_format(run[0].type.name, self.spec.endian)[0] + "".join(
            struct_format(f.type.name, self.spec.endian)[1:] for f in run
        )
        name = "_" + ("BE" if fmt[0] == ">" else "LE") + "_" + fmt[1:]
        self.structs[name] = fmt
        total = sum(PRIMITIVES[f.type.name].size for f in run)
        w.line(f"# {', '.join(f.name for f in run)}: one read when all {total} bytes are there")
        w.line(f"if end - pos >= {total}:")
        with w.indent():
            names = ", ".join(f"f_{f.name}" for f in run)
            w.line(f"{names} = {name}.unpack_from(buf, pos)" + ("" if len(run) > 1 else "[0]"))
            off = 0
            starts, ends = self.checksum_bounds(record)
            for f in run:
                size = PRIMITIVES[f.type.name].size
                at = f"pos + {off}" if off else "pos"
                if f.name in starts:
                    w.line(f"f_{f.name}_start = {at}")
                if f.name in ends:
                    w.line(f"f_{f.name}_end = pos + {off + size}")
                if f.type.enum:
                    enum = self.spec.enums[f.type.enum]
                    raw = w.fresh("raw")
                    w.line(f"{raw} = f_{f.name}")
                    w.line(f"f_{f.name} = _{enum.name.upper()}_BY_VALUE.get({raw})")
                    w.line(f"if f_{f.name} is None:")
                    with w.indent():
                        w.line(
                            f'raise DecodeError(f"{{{raw}}} (0x{{{raw}:02x}}) is not a known '
                            f'{enum.class_name}", offset={at}, path={f.name!r})'
                        )
                if f.const is not None:
                    w.line(f"if f_{f.name} != {f.const:#x}:")
                    with w.indent():
                        w.line(
                            f'raise DecodeError(f"expected {f.const} but parsed {{f_{f.name}}}", '
                            f"offset={at}, path={f.name!r})"
                        )
                off += size
            w.line(f"pos += {total}")
        w.line("else:")
        w.depth += 1

    def checksum_bounds(self, record: Record) -> tuple[set[str], set[str]]:
        """The fields whose start and whose end offsets a checksum of ``record`` reads
        (a fused run defines only these; its const errors take their offsets inline)."""
        starts, ends = set(), set()
        for field in record.fields:
            if field.checksum is None:
                continue
            raws = self.contiguous_raw_items(field)
            if raws is not None:
                starts.add(raws[0])
                ends.add(raws[1])
            else:
                names = {i.field for i in field.checksum.items if i.kind == "raw"}
                starts |= names
                ends |= names
        return starts, ends

    def message_function(self, record: Record) -> str:
        """A ``layout: serializable`` record: ``runtime.formats.serializable.SerializableMessage``
        (top level: version 1, size, lnifid, then the present fields by id) unrolled."""
        w = _Writer()
        w.line(
            f'"""Fast path of ``{record.name}``, a mysql::serialization message: the model and '
            'errors of ``runtime.formats.serializable``."""'
        )
        w.line("# No depth check: construct's SerializableMessage does not count nesting.")
        w.line("start = pos")
        self.msb(w, "version", 64, False, "format version")
        w.line("if version != 1:")
        with w.indent():
            w.line(
                'raise DecodeError(f"format version (top-level id) is {version}, expected 1", '
                "offset=start)"
            )
        w.line("size_at = pos")
        self.msb(w, "declared", 64, False, "serializable_field_size")
        w.line("lnifid_at = pos")
        self.msb(w, "lnifid", 64, False, "last_non_ignorable_field_id")
        n = len(record.fields)
        w.line(f"if lnifid > {n}:")
        with w.indent():
            w.line(
                'raise DecodeError(f"last_non_ignorable_field_id is {lnifid}: the writer has a '
                "non-ignorable field {lnifid - 1}, "
                f'this reader knows fields 0..{n - 1} only", offset=lnifid_at)'
            )
        w.line("# The message is the rest of the input: the true length or MySQL's formula.")
        w.line(
            "if declared != end - start and declared != rt_fast.mysql_size("
            "size_at - start, pos - lnifid_at, end - pos):"
        )
        with w.indent():
            w.line(
                'raise DecodeError(f"serializable_field_size is {declared} but the message has '
                '{end - start} bytes", offset=size_at)'
            )
        for field in record.fields:
            w.line(
                pytext.source_comment(
                    self.spec.source.display, field.line, f"{field.name} (id {field.id})"
                )
            )
            w.line("at = pos")
            w.line("present = False")
            w.line("if pos < end:")
            with w.indent():
                if field.id < 64:
                    w.line(f"if buf[pos] == 0x{2 * field.id:02x}:")
                    with w.indent():
                        w.line("pos += 1")
                        w.line("present = True")
                    w.line("else:")
                    with w.indent():
                        w.line(f"present, pos = rt_fast.msb_field_id(buf, pos, end, {field.id})")
                else:
                    w.line(f"present, pos = rt_fast.msb_field_id(buf, pos, end, {field.id})")
            w.line("if present:")
            with w.indent():
                w.line("try:")
                with w.indent():
                    self.field_body(w, field, f"f_{field.name}")
                w.line("except DecodeError as err:")
                with w.indent():
                    w.line(f"err.add_path({field.name!r})")
                    w.line("raise")
            w.line("else:")
            with w.indent():
                if field.has_default or field.default_from:
                    w.line(f"f_{field.name} = None  # resolved below")
                else:
                    w.line(
                        f'raise DecodeError("required field {field.id} is missing", '
                        f"offset=at, path={field.name!r})"
                    )
        for field in record.fields:
            if field.default_from:
                w.line(f"if f_{field.name} is None:")
                with w.indent():
                    w.line(f"f_{field.name} = f_{field.default_from}")
            elif field.has_default:
                w.line(f"if f_{field.name} is None:")
                with w.indent():
                    w.line(f"f_{field.name} = {field.default!r}")
        w.line("# Fields this reader does not know (a newer writer's): kept as they came.")
        args = ", ".join(["declared", "lnifid"] + [f"f_{f.name}" for f in record.fields])
        w.line("unknown = bytes(buf[pos:end]) if pos < end else None")
        w.line(f"return {camel(record.name)}({args}, unknown), end")
        if not self.message_common_supported(record):
            return self.signature(record) + "\n" + "\n".join(w.lines)
        exact = f"def _read_{record.name}_exact(buf, pos, end, limits, depth):"
        return self.message_common_function(record) + "\n\n" + exact + "\n" + "\n".join(w.lines)

    def message_common_supported(self, record: Record) -> bool:
        """Whether every field of the message has a common form that
        :meth:`message_common_function` reads: an id below 64 (one byte), then an msb
        varint, a fixed count of unsigned ones, or a string or bytes with a length."""
        return all(self._common_field(field) for field in record.fields)

    def _common_field(self, field: Field) -> bool:
        ref = field.type
        if field.id >= 64 or ref.enum or field.const is not None:
            return False
        if ref.kind in ("str", "bytes"):
            return (
                field.repeat is None
                and ref.size_is_prefix
                and str(ref.size).startswith("msb_uvarint")
            )
        if not self.is_msb(ref):
            return False
        return field.repeat is None or (
            isinstance(field.repeat, dict)
            and isinstance(field.repeat.get("count"), int)
            and not PRIMITIVES[ref.name].signed
        )

    def message_common_function(self, record: Record) -> str:
        """``_read_<message>``, which reads the message in its common form: version 1, the
        size its true length, every field id in its one-byte form and in order, varints
        of at most 8 bytes, string lengths of one byte, no unknown field, within the
        limits. It reads without bounds checks; at the first thing outside that form (a
        byte read past ``end`` included: ``pos`` ends beyond ``end`` then) it hands the
        message to ``_read_<message>_exact``, which reads it again from the start and
        gives the model or the error. Where it gives a model, that is the exact reader's."""
        self.exact_call = f"return _read_{record.name}_exact(buf, start, end, limits, depth)"
        w = _Writer()
        w.line(f'"""Fast path of ``{record.name}``, a mysql::serialization message, in its')
        w.line("common form (version 1, its true size, every field id in one byte and in order,")
        w.line("varints of at most 8 bytes, one-byte string lengths, no unknown field, within the")
        w.line("limits), read without bounds checks; anything else (a read past ``end`` too: it")
        w.line(f'leaves ``pos`` beyond ``end``) by ``_read_{record.name}_exact``."""')
        w.line("start = pos")
        w.line("try:")
        with w.indent():
            w.line("if buf[pos] != 0x02:  # format version 1")
            with w.indent():
                self.uncommon(w)
            self.msb_common(w, "declared", 64, False)
            w.line("if declared != end - start:")
            with w.indent():
                self.uncommon(w)
            w.line("lnifid = buf[pos]")
            w.line(f"if lnifid & 1 or lnifid > {2 * len(record.fields)}:")
            with w.indent():
                self.uncommon(w)
            w.line("lnifid >>= 1")
            w.line("pos += 1")
            for field in record.fields:
                self.message_common_field(w, record, field)
            w.line("if pos != end:")
            with w.indent():
                self.uncommon(w)
        w.line("except (IndexError, UnicodeDecodeError):  # read past the buffer; bad text")
        with w.indent():
            self.uncommon(w)
        for field in record.fields:
            if field.default_from:
                w.line(f"if f_{field.name} is None:")
                with w.indent():
                    w.line(f"f_{field.name} = f_{field.default_from}")
        args = ", ".join(["declared", "lnifid"] + [f"f_{f.name}" for f in record.fields])
        w.line(f"return {camel(record.name)}({args}), end")
        return self.signature(record) + "\n" + "\n".join(w.lines)

    def uncommon(self, w: _Writer) -> None:
        """Leave the common form: the exact reader reads the message from its start."""
        w.line(self.exact_call)

    def message_common_field(self, w: _Writer, record: Record, field: Field) -> None:
        var = f"f_{field.name}"
        id_byte = f"0x{2 * field.id:02x}"
        w.line(
            pytext.source_comment(
                self.spec.source.display, field.line, f"{field.name} (id {field.id})"
            )
        )
        optional = field.has_default or field.default_from
        if optional:
            w.line(f"if pos < end and buf[pos] == {id_byte}:")
            w.depth += 1
        else:
            w.line(f"if buf[pos] != {id_byte}:")
            with w.indent():
                self.uncommon(w)
        ref = field.type
        if ref.kind in ("str", "bytes"):
            n = w.fresh("n")
            w.line(f"{n} = buf[pos + 1]")
            bound = 2 * ref.max_length if ref.max_length is not None else None
            w.line(f"if {n} & 1{f' or {n} > {bound}' if bound is not None else ''}:")
            with w.indent():
                self.uncommon(w)
            w.line(f"{n} >>= 1")
            w.line(f"if {n} > limits.max_string:")
            with w.indent():
                self.uncommon(w)
            decode = f".decode({ref.encoding!r})" if ref.kind == "str" else ""
            w.line(f"{var} = buf[pos + 2 : pos + 2 + {n}]{decode}")
            w.line(f"pos += 2 + {n}")
        elif field.repeat is not None:
            count = field.repeat["count"]
            arr = w.fresh("arr")
            w.line(f"if {count} > limits.max_count:")
            with w.indent():
                self.uncommon(w)
            bits = PRIMITIVES[ref.name].bits
            if count <= GROUPED_ARRAY_MAX and bits >= 7:
                array = f"_{record.name.upper()}_{field.name.upper()}"
                self.msb_arrays[array] = (count, bits)
                last, values = w.fresh("last"), w.fresh("values")
                w.line("# the array read last first (a binlog's events share their UUID):")
                w.line("# the same bytes are the same elements")
                w.line(f"{last}, {values} = {array}.last")
                w.line(f"if buf.startswith({last}, pos + 1):")
                with w.indent():
                    w.line(f"{var} = list({values})")
                    w.line(f"pos += 1 + len({last})")
                w.line("else:")
                with w.indent():
                    w.line(f"{arr} = {array}.match(buf, pos + 1, end)")
                    w.line(f"if {arr} is None:")
                    with w.indent():
                        self.uncommon(w)
                    w.line(f"{var} = list(map({array}.value, {arr}.groups()))")
                    w.line(f"pos = {arr}.end()")
                    w.line(f"{array}.last = ({arr}.group(), tuple({var}))")
            else:
                w.line(f"{arr} = rt_fast.msb_uvar_array(buf, pos + 1, end, {count}, {bits})")
                w.line(f"if {arr} is None:")
                with w.indent():
                    self.uncommon(w)
                w.line(f"{var}, pos = {arr}")
        else:
            p = PRIMITIVES[ref.name]
            self.msb_common(w, var, p.bits, p.signed)
        if optional:
            w.depth -= 1
            w.line("else:")
            with w.indent():
                if field.default_from:
                    w.line(f"{var} = None  # resolved below")
                else:
                    w.line(f"{var} = {field.default!r}")

    def msb_common(self, w: _Writer, var: str, bits: int, signed: bool) -> None:
        """An msb varint at ``pos + 1`` (after a one-byte id or version) without bounds
        checks (see :meth:`message_common_function`); the 9-byte form and values wider
        than ``bits`` go to the exact reader."""
        first = w.fresh("b")
        w.line(f"{first} = buf[pos + 1]")
        w.line(f"if not {first} & 1:")
        with w.indent():
            # a table instead of the arithmetic: signed values are mostly small
            w.line(f"{var} = _MSB_ZIGZAG1[{first}]" if signed else f"{var} = {first} >> 1")
            w.line("pos += 2")
        if bits >= 14:  # every 2-byte value fits
            w.line(f"elif {first} & 3 == 1:")
            with w.indent():
                w.line(f"{var} = ({first} | buf[pos + 2] << 8) >> 2")
                if signed:
                    w.line(f"{var} = ({var} >> 1) ^ -({var} & 1)")
                w.line("pos += 3")
        w.line("else:")
        with w.indent():
            n = w.fresh("n")
            w.line(f"{n} = _MSB_LENGTH[{first}]")
            w.line(f"if {n} == 9:")
            with w.indent():
                self.uncommon(w)
            w.line(f'{var} = int.from_bytes(buf[pos + 1 : pos + 1 + {n}], "little") >> {n}')
            if bits < 56:
                w.line(f"if {var} >> {bits}:")
                with w.indent():
                    self.uncommon(w)
            if signed:
                w.line(f"{var} = ({var} >> 1) ^ -({var} & 1)")
            w.line(f"pos += 1 + {n}")
        self.uses_msb_length = True
        self.uses_msb_zigzag |= signed

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
        if field.kept_of:
            w.line(f"pass  # {field.name} is set with {field.kept_of}")
            return
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
        """Fields whose byte span later code needs (raw checksum items, const errors, a
        checksum over later fields)."""
        spanned = {f.name for f in record.fields if f.const is not None} | record.checksummed
        return spanned | {f.name for f in record.fields if f.checksum and self.span_of(f)}

    def field_body(self, w: _Writer, field: Field, var: str) -> None:
        if field.process is not None and field.process.rest:
            self.processed_rest(w, field, var)
        elif field.process is not None:
            self.processed_value(w, field, var)
        else:
            self.plain_body(w, field, var)

    def processed_rest(self, w: _Writer, field: Field, var: str) -> None:
        """``process: {size: eos}``: the field (a list too) read from the rest of the
        record's bytes decoded, ``buf`` and ``end`` standing for the decoded bytes
        meanwhile; with the codec ``none`` in place (no copy, no wire kept)."""
        process = field.process
        if process.cases is None:
            codec = f"{process.codec!r}, None"
        else:
            codec = f"{self.expression(process.codec)}, {process.cases!r}"
        at, outer = f"{var}_at", f"{var}_outer"
        w.line(f"{at} = pos")
        w.line(f"{var}_codec = rt_process.codec_at({codec}, pos)")
        w.line(f"{var}_wire = {outer} = None")
        w.line(f'if {var}_codec != "none":')
        with w.indent():
            w.line(f"{outer} = buf, end")
            w.line(f"{var}_wire = bytes(buf[pos:end])")
            w.line(f"buf = rt_process.decoded({var}_codec, {var}_wire, pos, limits)")
            w.line("pos, end = 0, len(buf)")
        w.line("try:")
        with w.indent():
            self.plain_body(w, field, var)
        w.line("except DecodeError as err:")
        with w.indent():
            w.line(f"if {outer} is not None:  # no offset of the input: the region's")
            with w.indent():
                w.line(f"err.offset = {at}")
                w.line(f'err.add_path(f"<{{{var}_codec}}>")')
            w.line("raise")
        w.line("if pos != end:")
        with w.indent():
            w.line(f"if {outer} is None:")
            with w.indent():
                w.line('raise DecodeError(f"{end - pos} byte(s) left unparsed", offset=pos)')
            w.line(
                f'raise DecodeError(f"{{end - pos}} decoded byte(s) left unparsed", offset={at})'
            )
        w.line(f"if {outer} is not None:")
        with w.indent():
            w.line(f"buf, end = {outer}")
            w.line("pos = end")

    def plain_body(self, w: _Writer, field: Field, var: str) -> None:
        """The field's value (a list when repeated) from ``buf[pos:end]``."""
        ref = field.type
        if field.repeat is None:
            self.value(w, ref, var, field)
            return
        if field.repeat == "blocks":
            self.blocks_loop(w, field, var)
            return
        w.line(f"{var}_begin = pos")
        count = field.repeat.get("count") if isinstance(field.repeat, dict) else None
        if count is not None:
            w.line(f"{var}_count = {self.expression(count)}")
            if not isinstance(count, int):  # construct's RepeatCount checks what it is given
                w.line(f"if type({var}_count) is not int or {var}_count < 0:")
                with w.indent():
                    w.line(
                        f'raise DecodeError(f"invalid element count {{{var}_count!r}}", '
                        "offset=pos)"
                    )
            self.limit(w, "max_count", f"{var}_count", "pos")
        if isinstance(count, int) and self.is_msb(ref) and not ref.enum and field.const is None:
            # Fixed-count varints (a UUID's 16 bytes): one tight loop for the usual 1- and
            # 2-byte forms; anything else is re-read below element by element for its error.
            prim = PRIMITIVES[ref.name]
            if not prim.signed:
                arr = w.fresh("arr")
                w.line(f"{arr} = rt_fast.msb_uvar_array(buf, pos, end, {count}, {prim.bits})")
                w.line(f"if {arr} is not None:")
                with w.indent():
                    w.line(f"{var}, pos = {arr}")
                w.line("else:")
                with w.indent():
                    self.repeat_loop(w, field, var, count)
                return
        self.repeat_loop(w, field, var, count)

    def element(self, w: _Writer, field: Field, var: str) -> None:
        """One element of a repeated field onto the list ``var`` (its index in errors)."""
        ref = field.type
        if "this._index" in " ".join(self._type_expressions(ref)):
            w.line(f"f__index = len({var})")
        if self.reads_index and any(r in self.needs_parent for r in self._record_refs(ref)):
            w.line(f"parent_of_{field.name}._index = len({var})  # `_parent._index`")
        w.line("try:")
        with w.indent():
            self.value(w, ref, f"{var}_item", field)
        w.line("except DecodeError as err:")
        with w.indent():
            w.line(f"err.add_path(index=len({var}))")
            w.line("raise")
        w.line(f"{var}.append({var}_item)")

    def blocks_loop(self, w: _Writer, field: Field, var: str) -> None:
        """``runtime.core.sequences.RepeatBlocks``: ZigZag counts (a byte size after a negative
        one), the elements, until a 0 count; the split goes to ``<name>_blocks``."""
        count, size, stop = f"{var}_n", f"{var}_size", f"{var}_stop"
        w.line(f"{var} = []")
        w.line(f"{var}_blocks = []")
        w.line("while True:")
        with w.indent():
            w.line(f"{var}_at = pos")
            self.leb128(w, count, True)
            w.line(f"if {count} == 0:")
            with w.indent():
                w.line("break")
            self.limit(w, "max_count", f"len({var}) + abs({count})", f"{var}_at")
            w.line(f"{stop} = None")
            w.line(f"if {count} < 0:")
            with w.indent():
                w.line(f"{var}_size_at = pos")
                self.leb128(w, size, True)
                w.line(f"if {size} < 0 or {size} > end - pos:")
                with w.indent():
                    w.line(
                        f'raise DecodeError(f"block byte size {{{size}}} out of range", '
                        f"offset={var}_size_at)"
                    )
                w.line(f"{stop} = pos + {size}")
            w.line(f"for _ in range(abs({count})):")
            with w.indent():
                self.element(w, field, var)
            w.line(f"if {stop} is not None and pos != {stop}:")
            with w.indent():
                w.line(
                    f'raise DecodeError(f"block of {{abs({count})}} element(s) ends at {{pos}}, '
                    f'its byte size says {{{stop}}}", offset={var}_at)'
                )
            w.line(f"{var}_blocks.append({count})")

    def processed_value(self, w: _Writer, field: Field, var: str) -> None:
        """``runtime.core.process.Processed`` inside its size: the bytes decoded by the codec,
        the record read from them (``runtime.core.process.read_processed``)."""
        ref, process = field.type, field.process
        if process.cases is None:
            codec = f"{process.codec!r}, None"
        else:
            codec = f"{self.expression(process.codec)}, {process.cases!r}"
        extra = f", parent_of_{field.name}" if ref.name in self.needs_parent else ""
        call = (
            f"{var}, {var}_wire = rt_process.read_processed(_read_{ref.name}, buf, pos, {{end}}, "
            f"{codec}, limits, depth + 1{extra})"
        )
        self.record_value(w, ref, var, field, call)

    def repeat_loop(self, w: _Writer, field: Field, var: str, count) -> None:
        ref = field.type
        w.line(f"{var} = []")
        if field.repeat == "eos":
            w.line("while pos < end:")
        elif field.repeat == "tagged":
            tag = self.spec.records[ref.name].tag
            w.line(f"while pos < end and buf[pos] == 0x{tag:02x}:")
        else:  # the count is checked against max_count before the loop
            w.line(f"for _ in range({var}_count):")
        with w.indent():
            if field.repeat in ("eos", "tagged"):
                self.limit(w, "max_count", f"len({var}) + 1", "pos")
            self.element(w, field, var)
        if field.min_count:
            what = f"{field.min_count} element(s)"
            if field.repeat == "tagged":
                what += f" starting with tag 0x{tag:02x}"
            w.line(f"if len({var}) < {field.min_count}:")
            with w.indent():
                w.line(f'raise DecodeError("expected at least {what}", offset={var}_begin)')

    def is_msb(self, ref: TypeRef) -> bool:
        return ref.kind == "prim" and ref.name.startswith("msb_")

    def msb(self, w: _Writer, var: str, bits: int, signed: bool, what: str) -> None:
        """An msb-count varint: the one-byte form inline, the rest in ``runtime.core.fast``."""
        w.line("if pos < end and not buf[pos] & 1:")
        with w.indent():
            if signed:
                w.line(f"{var} = buf[pos] >> 1")
                w.line(f"{var} = ({var} >> 1) ^ -({var} & 1)")
            else:
                w.line(f"{var} = buf[pos] >> 1")
            w.line("pos += 1")
        # The 2- and 3-byte forms inline too when every value they hold fits in `bits`.
        for n, mask in ((2, 3), (3, 7)):
            if bits < 7 * n:
                break
            w.line(f"elif pos + {n - 1} < end and buf[pos] & {mask} == {mask >> 1}:")
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
            helper = "msb_svar" if signed else "msb_uvar"
            w.line(f"{var}, pos = rt_fast.{helper}(buf, pos, end, {bits}, {what!r})")

    def scalar(self, w: _Writer, prim: str, var: str) -> None:
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

    def leb128(self, w: _Writer, var: str, signed: bool) -> None:
        """A LEB128 varint: the one-byte form inline, the rest in ``runtime.core.leb128``."""
        w.line("if pos < end and buf[pos] < 0x80:")
        with w.indent():
            w.line(f"{var} = buf[pos]")
            w.line("pos += 1")
        # The 2-byte form too (values below 2**14: a Kafka record's or value's length).
        w.line("elif pos + 1 < end and buf[pos + 1] < 0x80:")
        with w.indent():
            w.line(f"{var} = (buf[pos] & 0x7F) | (buf[pos + 1] << 7)")
            w.line("pos += 2")
        w.line("else:")
        with w.indent():
            w.line(f"{var}, pos = rt_fast.read_uvarint(buf, pos, end=end)")
        if signed:
            w.line(f"{var} = ({var} >> 1) ^ -({var} & 1)")

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
        elif prim == "s8":  # cheaper than a struct call
            w.line(f"{var} = buf[pos]")
            w.line(f"if {var} > 0x7F:")
            with w.indent():
                w.line(f"{var} -= 0x100")
        else:
            w.line(f"{var} = {self.struct(prim)}.unpack_from(buf, pos)[0]")
        w.line(f"pos += {size}")

    def value(self, w: _Writer, ref: TypeRef, var: str, field: Field) -> None:
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

    def runtime_value(self, w: _Writer, ref: TypeRef, var: str, field: Field) -> None:
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

    def switch_value(self, w: _Writer, ref: TypeRef, var: str, field: Field) -> None:
        enum = camel(ref.enum)
        # Cases without a payload fall to the `else` that gives None when the default does.
        cases, default = ref.payload_cases()
        for i, (case, sub) in enumerate(cases):
            # The value, not the member: an enum's class attributes go through
            # EnumType.__getattr__ (about 0.1 us each); IntEnum members equal their values.
            value = next(v.value for v in self.spec.enums[ref.enum].values if v.name == case)
            test = f"f_{ref.switch_on} == {value:#x}"
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

    def bits_value(self, w: _Writer, ref: TypeRef, var: str, field: Field) -> None:
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
        if field.const is not None:
            w.line(f"if {var} != {field.const:#x}:")
            with w.indent():
                w.line(
                    f'raise DecodeError(f"expected {field.const} but parsed {{{var}}}", '
                    f"offset=f_{field.name}_start)"
                )

    def choice_value(self, w: _Writer, ref: TypeRef, var: str, field: Field) -> None:
        """A choice: the table of its first byte gives the case's reader (several cases
        sharing that byte: the bytes after it pick, ``runtime.core.fast.pick``)."""
        table = f"_PICK_{field.name.upper()}_OF_{self._record_of(field).upper()}"
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
        self.scalar(w, ref.name, var)
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
        if field.checksum is not None and var == f"f_{field.name}" and not self.span_of(field):
            self.checksum(w, field, var, start)

    def checksum(self, w: _Writer, field: Field, var: str, start: str) -> None:
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

    def bytes_value(self, w: _Writer, ref: TypeRef, var: str) -> None:
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
            w.line("try:")
            with w.indent():
                w.line(f"{var} = {var}.decode({ref.encoding!r})")
            w.line("except UnicodeDecodeError:")
            with w.indent():
                w.line(
                    f'raise DecodeError(f"cannot use encoding {ref.encoding!r} to decode '
                    f'{{bytes({var})!r}}", offset={start}) from None'
                )
            return
        start = w.fresh("at")
        n = w.fresh("n")
        w.line(f"{start} = pos")
        if ref.size_is_prefix:
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
        self.need(w, n, what)
        w.line(f"{var} = buf[pos : pos + {n}]")
        w.line(f"pos += {n}")
        if ref.pad:  # pad: the model holds the text without its trailing padding
            w.line(f"{var} = {var}.rstrip({ref.pad!r})")
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
        if ref.nullable:
            w.depth -= 1

    def need(self, w: _Writer, n: str, what: str) -> None:
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
        self, w: _Writer, ref: TypeRef, var: str, field: Field, call: str = ""
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

    def sized(self, w: _Writer, ref: TypeRef, var: str, field: Field, inner, call="") -> None:
        """``runtime.core.record.Sized``: exactly ``size`` bytes (a number or an expression),
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
