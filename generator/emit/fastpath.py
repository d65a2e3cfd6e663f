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

The emitter is put together from parts, one module each: which records it reads
(:mod:`generator.emit.fastpath_support`), fields and repeats
(:mod:`generator.emit.fastpath_fields`), values (:mod:`generator.emit.fastpath_values`) and
serializable messages (:mod:`generator.emit.fastpath_messages`); this module writes the
module-level tables and each record's function.
"""

from __future__ import annotations

import functools
import re

from generator.emit.fastpath_fields import FieldReaders
from generator.emit.fastpath_messages import MessageReaders
from generator.emit.fastpath_orders import OrderedReaders
from generator.emit.fastpath_support import FastPathSupport
from generator.emit.fastpath_values import ValueReaders
from generator.emit.pysource import (
    LineWriter,
    const_mismatch,
    float32_exact,
    member_constant,
    struct_format,
    struct_name,
    valid_message_arg,
    wide_const,
)
from generator.spec import pytext
from generator.spec.model import Field, Record, Spec, TypeRef, camel
from generator.spec.types import CHUNK_TYPES, PRIMITIVES, REGION_TYPES

_THIS = re.compile(r"\bthis\.([a-z_][a-z0-9_]*)")


class FastPathEmitter(FastPathSupport, FieldReaders, ValueReaders, MessageReaders, OrderedReaders):
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
        self.codec_cases: dict[str, str] = {}
        """Module constants of ``process:`` codecs' cases: name -> their dict."""
        self.instances: dict[str, str] = {}
        """Runtime chunk and region objects the functions call: name -> constructor."""
        self.choices: dict[str, TypeRef] = {}
        """Choice tables the functions read: name -> the choice."""
        self.supported = self._supported_records()

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
        """``Class.MEMBER`` -> (``_enum_Value_MEMBER``, its value): the enum's name as it is
        (lower case, so none of the module's upper-case names, ``_ENUM_BY_VALUE``, is one
        of a member named ``BY_VALUE``), a capital word after it (where it ends)."""
        return {
            f"{enum.class_name}.{v.name}": (member_constant(enum.name, v.name), v.value)
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
        functions = []
        for name in self.spec.record_order():
            record = self.spec.records[name]
            if name in self.supported and record.byte_order == "data":
                functions += self.ordered_functions(record)  # one reader per byte order
            elif name in self.supported:
                functions.append(self.record_function(record))
        iterated = [
            self.spec.records[name]
            for name in self.spec.record_order()
            if name in self.supported
            and self.spec.records[name].byte_order != "data"
            and self.row_iterated(self.spec.records[name])
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
            constants.append("_MSB_SHORTEST = rt_fast.MSB_SHORTEST")
        if self.uses_msb_zigzag:
            constants.append("_MSB_ZIGZAG1 = rt_fast.MSB_ZIGZAG1")
        constants += [
            f"{name} = rt_fast.MsbArray({count}, {bits})"
            for name, (count, bits) in sorted(self.msb_arrays.items())
        ]
        constants += [f"{name} = {ctor}" for name, ctor in sorted(self.instances.items())]
        constants += [f"{n} = {v}" for n, v in sorted(self.member_constants.items())]
        constants += [f"{name} = {cases}" for name, cases in self.codec_cases.items()]
        if self.uses_unzigzag:
            constants.append("_UNZIGZAG = rt_fast.LEB128_ZIGZAG1.__getitem__")
        constants.append("_NEW = object.__new__")  # the quick tier makes any model so
        enums = [  # a flags enum: any set of its flags (runtime.core.flags)
            (
                f"_{e.name.upper()}_BY_VALUE = rt_fast.FlagMembers({e.class_name})"
                if e.flags
                else f"_{e.name.upper()}_BY_VALUE = {{m.value: m for m in {e.class_name}}}"
            )
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
        w = LineWriter()
        if rows is None:
            w.line(
                f'"""Fast path of ``{record.name}``: the model and errors of the construct path."""'
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
                    # bytes_left(): bytes remain in the region the record is read in
                    test = "pos < end" if field.if_bytes_left else None
                    w.line(f"if {test or self.expression(field.condition)}:")
                    with w.indent():
                        self.field(w, field, record)
                        if field.valid:  # an absent field has nothing to check
                            self.valid(w, field, f"f_{field.name}_start")
                    w.line("else:")
                    with w.indent():
                        w.line(f"f_{field.name} = None")
                else:
                    self.field(w, field, record)
                if field.name in spans:
                    w.line(f"f_{field.name}_end = pos")
                if field.valid and not field.condition:
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

    def derived(self, w: LineWriter, field: Field) -> None:
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
        DecodeError at the field; comparisons and sums of integers cannot fail). A repeat
        until's test always may: ``_item`` is of any type."""
        if field.repeat == "until":
            return True
        texts = [field.condition * (not field.if_bytes_left), *self._type_expressions(field.type)]
        if isinstance(field.repeat, dict):
            texts.append(str(field.repeat["count"]))
        if field.process is not None and field.process.cases is not None:
            texts.append(field.process.codec)
        return any(re.search(r"[\[(./%]", self.expression(t)) for t in texts if t != "eos")

    def expression_failure(self, w: LineWriter, field: Field, offset: str) -> None:
        w.line("except rt.EXPRESSION_ERRORS as err:")
        with w.indent():
            w.line(f"raise rt.expression_error(err, {offset}, {field.name!r}) from None")

    def valid(self, w: LineWriter, field: Field, offset: str) -> None:
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
                f"{field.valid_text!r}, {offset}{valid_message_arg(field)})"
            )

    def trailer(self, w: LineWriter, record: Record) -> None:
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

    def sized_backwards(self, w: LineWriter, field: Field) -> None:
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
        options = [f"enum={camel(ref.enum)}"] if ref.enum else []
        name = f"_{ref.name.upper()}" + (f"_Of_{ref.enum}" if ref.enum else "")
        self.instances[name] = CHUNK_TYPES[ref.name].construct("0", *options)
        return name

    def new_model(self, w: LineWriter, record: Record) -> None:
        """``return Model(f_a, ...), pos`` without the class call: ``object.__new__`` and one
        slot store per field (a model's fields are its record's, each set here) skip the
        type call and the dataclass ``__init__`` frame, about a third of the model's cost."""
        w.line(f"model = _NEW({camel(record.name)})")
        for f in record.fields:
            w.line(f"model.{f.name} = f_{f.name}")
        if self.spec.keeps_form(record):  # set on the model parse returns, when it keeps bytes
            w.line("model.wire_form = None")
        w.line("return model, pos")

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

    def fused_run(self, w: LineWriter, record: Record, run: list[Field]) -> None:
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
                    self.strict_member(w, f.type.enum, f"f_{f.name}", at, path=f.name)
                if f.type.name == "f32":
                    float32_exact(w, f"f_{f.name}", at, fmt[0])
                if f.const is not None:
                    read = f"buf[{at} : {at} + {size}]" if wide_const(f) else f"f_{f.name}"
                    message = const_mismatch(f, read, self.spec.endian)
                    w.line(f"if f_{f.name} != {f.const:#x}:")
                    with w.indent():
                        w.line(f"raise DecodeError({message}, offset={at}, path={f.name!r})")
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
