"""The compiled tier's second output: Spark's Arrow columns written straight from the bytes.

The same plans the model readers render (generator/emit/lowering.py), rendered once more by
:class:`ArrowEmitter`: each record gets ``_arrow_<record>``, which reads exactly what
``_read_<record>`` reads and declines where it declines, but makes no model. The values
stay C values (a number, or a pointer and a length into the input for text and bytes;
``Scalar`` of runtime/_compiled/arrow.pxd), and where the model reader builds its model,
this one appends them to the record's Spark columns, as the record's column table says
(:meth:`generator.emit.spark_columns.SparkColumns.spark_tables`), into
:mod:`runtime._compiled.arrow`'s typed builders. A list of records is written element by
element into its column's child builder as it is read; a record read inline is written with its parent; chunks and lists of lists value by value
(:mod:`generator.emit.compiled_arrow_lists`).

A decline part way leaves columns part-written: ``write_arrow`` (rendered at the end)
truncates every builder back to where the message began and hands the message back, and
the caller (``runtime.spark.decode.BatchDecoder``) decodes it the Python way. A value its
column does not take (a number past the column's type, a column past Arrow's sizes: the
builders' ``REFUSED``) is declined so too, where it is put. Records the
renderer cannot write (expressions, ``process:``, inlined columns, other lists read inline,
a switch's default) raise :class:`NotCompiled` and keep the model path only.
"""

from __future__ import annotations

import ast
import dataclasses

from generator.emit.arrow_calls import calling
from generator.emit.compiled import CompiledEmitter
from generator.emit.compiled_arrow_fourcc import ArrowFourcc
from generator.emit.compiled_arrow_lists import ArrowLists
from generator.emit.compiled_support import NotCompiled
from generator.emit.lowering import Lowering
from generator.emit.plan import (
    Bits,
    Build,
    Checksum,
    Derived,
    Fallback,
    KeyedField,
    MsbNumber,
    Nested,
    Number,
    Rest,
    walk_steps,
)
from generator.spec.model import TIMESTAMP_US_EPOCHS

_RAW = ("int", "float", "bool", "string", "binary")
_FLOATS = ("float", "double")
_INTS = ("int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t")
_TIMES = {
    "micros": "put_micros",
    "time_ms": "put_time_us",
    "time_us": "put_time_us",
    "time_ns": "put_time_us",
    "time_us_postgres": "put_time_us",
}
"""``timestamp_us``'s and ``timestamp_ns``'s two columns of a number: its int, and its
time (``time_ns``: the microseconds of the nanoseconds, rounded down as Python's ``//``,
written out since the module divides as C does)."""
_PY_TIMES = {"micros": "{var}", "time_ms": "{var} * 1000", "time_us": "{var}"}
_PY_TIMES |= {"time_ns": "{var} // 1000", "time_us_postgres": "({var} + {shift})"}
"""A time column's microseconds of a Python int ``var`` (Python's ``//``, as the rows')."""
_TIME_SHIFTS = {"time_us_postgres": TIMESTAMP_US_EPOCHS["postgres_micros"]}
"""Time columns of microseconds after another epoch: what Unix's time of them adds."""


class _Members(ast.NodeTransformer):
    """``item.member`` -> ``last_int(<its column>)`` (or a code read again, ``<item>_<member>``)
    where ``column(item, member)`` gives one (:meth:`ArrowEmitter.member_column`)."""

    def __init__(self, column):
        self.column = column

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name):
            value = self.column(node.value.id, node.attr)
            if value is not None:
                return ast.parse(value, mode="eval").body
        return self.generic_visit(node)


class ArrowEmitter(ArrowFourcc, ArrowLists, CompiledEmitter):
    """The ``_arrow_<record>`` writers of one spec, and ``write_arrow``/``bind_arrow``.

    ``tables``: the spec's column tables (records -> column entries); ``row_fields``:
    records whose Spark rows are the elements of one of their fields (``spark: {row:}``),
    record -> that field; ``paths``: records whose rows are a path (not written here)."""

    decline_text = "return -1"
    shares_row_elements = False  # the elements go to the column builders as they are read
    expressions_in_c = True  # no Python objects here: an expression C covers is C
    pends_elements = False  # likewise
    keeps_blocks = False  # no model to keep Avro's block counts in

    def __init__(self, spec, lowering: Lowering, tables: dict, row_fields: dict, paths=()):
        # not ``rows``: the base's row iterators, set after the records are rendered
        self.tables, self.row_fields, self.paths = tables, row_fields, set(paths)
        self.returned: dict[str, str] = {}
        """Record -> the member of its elements a parent's checksum reads (its writer
        returns that member's value, the parent keeps them in the list)."""
        self.running: dict[str, dict[str, str]] = {}
        """Record -> its lists whose elements' members go into a CRC-8 as they are read
        (list -> the checksum), so no list of them is kept: see :meth:`running_crcs`; set
        as its writer is rendered, from the steps it renders."""
        self.summed: set[str] = set()
        """Lists whose elements a checksum reads (the others keep no elements at all)."""
        for plan in lowering.plans.values():
            lists = {s.var: s.record for s in walk_steps(plan.steps) if hasattr(s, "until")}
            for step in walk_steps(plan.steps):
                if isinstance(step, Checksum):
                    for item in step.items:
                        if item.kind == "each" and lists.get(item.var):
                            self.returned.setdefault(lists[item.var], item.member)
                        if item.kind == "each":
                            self.summed.add(item.var)
        self.spread_records = {r for plan in lowering.plans.values() for r in self.spread(plan)}
        """Records whose columns a caller inlines among its own (``spark: {inline: true}``
        of a record read by its own reader): written by ``_columns_<record>`` from a given
        child of the caller's struct on, ``_arrow_<record>`` calling it for all of one."""
        super().__init__(spec, lowering)

    def spread(self, plan) -> set[str]:
        """The records ``plan`` reads by their own readers whose columns are among its own."""
        if plan.name not in self.tables:
            return set()
        fields = {var: name for name, var in plan.steps[-1].fields}
        slots = [entry[1] for entry in self.tables[plan.name]]
        return {
            s.record
            for s in walk_steps(plan.steps)
            if isinstance(s, Nested) and s.record and s.steps is None and s.var in fields
            if any(slot.startswith(f"{fields[s.var]}.") for slot in slots)
        }

    @staticmethod
    def running_crcs(plan) -> dict[str, str]:
        """The lists of ``plan`` a CRC-8 can take element by element as they are read:
        the checksum's first items are ``each`` of lists read one after the other in that
        order, each list read once by a call, so the CRC so far is the same number."""
        steps = list(walk_steps(plan.steps))
        lists = [s.var for s in steps if hasattr(s, "until")]
        out: dict[str, str] = {}
        for step in steps:
            if not isinstance(step, Checksum) or step.algorithm != "crc8":
                continue
            prefix = []
            for item in step.items:
                if item.kind != "each" or item.target != "u8":
                    break
                prefix.append(item.var)
            read = [s for s in steps if hasattr(s, "until") and s.var in prefix]
            if (
                prefix
                and [s.var for s in read] == prefix
                and all(lists.count(var) == 1 and s.steps is None for var, s in zip(prefix, read))
                and not set(prefix) & set(out)
            ):
                out.update(dict.fromkeys(prefix, step.var))
        return out

    # -- a record ------------------------------------------------------------------------

    def rendered(self) -> list[str]:
        """Every record with Spark columns and a plan: one read only inline by its parent
        (PNG's chunk payloads) is still a record a query decodes on its own."""
        return [name for name in self.lowering.plans if name in self.tables]

    def record_function(self, plan) -> str:
        """The writer of ``plan`` calling the writers of the records it reads inline, where
        they have one (:func:`generator.emit.arrow_calls.calling`); else reading them
        inline, as its model reader does."""
        steps = plan.steps if plan.checks_depth else calling(plan.steps, self.writes)
        if steps != plan.steps:
            kept = set(self.arrow_enums), dict(self.loaders), dict(self.preludes), self.expressions
            try:
                return self.writer(dataclasses.replace(plan, steps=steps))
            except NotCompiled:
                self._arrow_enums, self.loaders, self.preludes, self.expressions = kept
        return self.writer(plan)

    def writes(self, record: str) -> bool:
        """Whether ``record`` has a writer a parent calls (rendered before its parents:
        ``rendered`` is leaves first), one that writes a struct column of its own."""
        return record in self.functions and record not in self.row_fields

    def writer(self, plan) -> str:
        if plan.name not in self.tables or plan.name in self.paths:
            raise NotCompiled("no Spark columns of its own")
        self.running[plan.name] = self.running_crcs(plan)
        builds = [s for s in walk_steps(plan.steps) if isinstance(s, Build)]
        self.builds = {s.var: s for s in builds}
        self.nested_calls = {
            s.var: s.record
            for s in walk_steps(plan.steps)
            if isinstance(s, Nested) and s.record and s.steps is None
        }
        """Variable -> the record read into it by its own reader."""
        self.repeats_read = {s.var: s.item for s in walk_steps(plan.steps) if hasattr(s, "until")}
        """List variable -> the variable of each element (a record's, when read inline)."""
        self.targets: dict[str, str] = {}
        """Variable -> the builder a record read into it is written to (as it is read)."""
        self.builders: dict[str, str] = {}
        """Local builder -> its declaration (found once a call, not once a value)."""
        self.values: dict[str, tuple[str, str]] = {}
        """List of values read inline -> (the values' kind, the builder of its elements)."""
        self.repeat_steps = {s.var: s for s in walk_steps(plan.steps) if hasattr(s, "until")}
        self.spreads: dict[str, tuple[str, str, int]] = {}
        """Variable of a record read by a call whose columns are inlined here -> (record,
        the struct they are in, the first of them)."""
        self.case_targets: dict[str, dict[str, str]] = {}
        """Switch variable -> its record cases' struct builders (written by their call)."""
        self.called_cases: set[tuple[str, str]] = set()
        """(switch variable, record) of the record cases written (by a call, or at the
        case's build)."""
        self.wide: set[str] = set()
        """Numbers that may be absent, read as a uint64_t (in their ``Scalar``'s ``i``)."""
        classes = {p.class_name: p.name for p in self.lowering.plans.values()}
        self.case_builds = {
            (s.var, s.record): s.steps[-1]
            for s in walk_steps(plan.steps)
            if isinstance(s, Nested) and s.record and s.steps and isinstance(s.steps[-1], Build)
            if classes.get(s.steps[-1].class_name, s.record) == s.record
        }
        """(variable, record) -> the build of that record read inline into the variable."""
        self.spreading = plan.name in self.spread_records
        top = dict(self.builds["model"].fields)
        row_field = self.row_fields.get(plan.name)
        if row_field is not None:
            var = top[row_field]
            self.targets[var] = "out"
            step = self.repeat_steps.get(var)
            if step is not None and step.item in self.builds:  # each element read is a row
                self.values[var] = (("record", step.record), "out")
                for inner, k, b in self.columns(
                    step.record, dict(self.builds[step.item].fields), "out"
                ):
                    self.aim(inner, k, b)
        else:
            for var, kind, builder in self.columns(plan.name, top, "out"):
                self.aim(var, kind, builder)
        steps = list(walk_steps(plan.steps))
        self.stand_ins = (
            {getattr(s, "var", None) for s in steps if not isinstance(s, (Derived, Number, Bits))}
            | {getattr(s, "item", None) for s in steps}
            | {getattr(s, "blocks", None) for s in steps}
        )
        """Variables that hold no value here (True for text, bytes, records and lists:
        their values are in the builders; Avro's block counts are not kept), which no
        Python expression may read."""
        text = super().record_function(plan)
        if not self.spreading:
            return text
        name = plan.name
        return (
            text.rstrip("\n")
            + "\n\n\n"
            + "\n".join(
                [
                    f"cdef int _arrow_{name}(const unsigned char* buf, Py_ssize_t pos, Py_ssize_t end,",
                    f"{' ' * (len(name) + 17)}_Limits* lim, Py_ssize_t* stop, StructBuilder out) except -2:",
                    f'    """``_columns_{name}`` into every child of ``out``, its slot closed."""',
                    f"    cdef int read = _columns_{name}(buf, pos, end, lim, stop, out, 0)",
                    "    if read >= 0:",
                    "        out.valid()",
                    "    return read",
                    "",
                ]
            )
        )

    def map_records(self) -> None:
        """Nothing: a record with ``map:`` is read by the model tier's fused reader (the
        base would render it here only to be dropped: no Arrow writer calls it)."""

    def rows_function(self, name: str) -> str:
        """No row iterator here: a record's rows are written by its writer, as its
        elements are read."""
        raise NotCompiled("rows are written, not iterated")

    def python(self, expression: str) -> str:
        """An expression evaluated in Python, when it reads only numbers, other
        expressions' values and integer members of list elements written by their own
        writers (read back from their columns, ``last_int``): nothing that is a stand-in."""
        tree = _Members(self.member_column).visit(ast.parse(expression, mode="eval"))
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        if names & self.stand_ins:
            raise NotCompiled(f"an expression of {', '.join(sorted(names & self.stand_ins))}")
        return super().python(ast.unparse(tree))

    def member_column(self, var: str, member: str) -> str | None:
        """The value of the integer column ``member`` of the element ``var`` of a list
        whose elements are written by their own writer, as it was just written (its
        builder's ``last_int``, a code read again from its bytes); None when ``var`` is
        no such element."""
        step = next((s for s in self.repeat_steps.values() if s.item == var), None)
        if step is None or step.steps is not None or step.var not in self.targets:
            return None
        for k, (_name, slot, kind, _nullable) in enumerate(self.tables.get(step.record, ())):
            if slot == member and kind == "int":
                struct = self.targets[step.var]
                return f"last_int({self.local(f'{struct}_{k}', 'Builder', k, struct)})"
            if slot == member and kind == "fourcc" and slot in self.codes_read_again(step):
                return f"{step.item}_{slot}"  # read again (ArrowFourcc.element_codes)
        raise NotCompiled(f"{var}.{member}: no integer column")

    def columns(self, record: str, fields: dict, struct: str) -> list[tuple[str, object, str]]:
        """``(variable, kind, builder)`` of each Spark column of ``record``, whose model
        fields are in ``fields`` (name -> variable), in struct builder ``struct``."""
        out = []
        for k, (_name, slot, kind, _nullable) in enumerate(self.tables[record]):
            spread = self.spread_column(record, fields, struct, k)
            if spread is not None:
                out.append(spread)
                continue
            # an inlined column (``body.flags``): a field of a record read inline here
            *path, field = slot.split(".")
            inner = fields
            for part in path:
                read_here = part in inner and inner[part] in self.builds
                inner = dict(self.builds[inner[part]].fields) if read_here else {}
            if field not in inner:
                raise NotCompiled(f"{record}: column {slot} is no field read here")
            shape = kind[0] if isinstance(kind, tuple) else ""
            ctype = {"list": "ListBuilder", "record": "StructBuilder", "switch": "StructBuilder"}
            name = f"{struct}_{k}"
            out.append(
                (inner[field], kind, self.local(name, ctype.get(shape, "Builder"), k, struct))
            )
        return out

    def spread_column(self, record: str, fields: dict, struct: str, k: int):
        """``(variable, ("spread", record, first), struct)`` where column ``k`` of
        ``record`` is one of the columns of a record read by a call, inlined here (they
        must be that record's columns, in order); else None."""
        field, _, rest = self.tables[record][k][1].partition(".")
        var = fields.get(field)
        called = self.nested_calls.get(var)
        if not rest or called not in self.spread_records:
            return None
        if var not in self.spreads:
            inner = self.tables[called]
            mine = self.tables[record][k : k + len(inner)]
            want = [(n, f"{field}.{slot}", kind, null) for n, slot, kind, null in inner]
            if list(mine) != want:
                raise NotCompiled(f"{record}: {field}'s columns are not {called}'s, in order")
            self.spreads[var] = (called, struct, k)
        return var, ("spread",), struct

    def local(self, name: str, ctype: str, k, struct: str) -> str:
        """``name``: a local ``ctype``, child ``k`` of builder ``struct`` (its list element
        when ``k`` is None; from child ``base`` on in a ``_columns_<record>``)."""
        if struct == "out" and self.spreading and k is not None:
            k = f"base + {k}"
        of = f"{struct}.child" if k is None else f"{struct}.children[{k}]"
        self.builders[name] = f"cdef {ctype} {name} = <{ctype}>{of}"
        return name

    def aim(self, var: str, kind, builder: str) -> None:
        """Note where the records read into ``var`` go (lists and records read by a call;
        inline records' own columns)."""
        if kind == "uuid" and self.uuid_bytes(var):
            self.values[var] = ("uuid", builder)
        elif isinstance(kind, tuple) and kind[0] == "switch":
            k = 0
            for _value, case in kind[2]:
                if isinstance(case, tuple) and case[0] == "record":
                    if case[1] in self.case_targets.get(var, {}):
                        raise NotCompiled(f"{var}: two cases of record {case[1]}")
                    child = self.local(f"{builder}_{k}", "StructBuilder", k, builder)
                    self.case_targets.setdefault(var, {})[case[1]] = child
                    build = self.case_builds.get((var, case[1]))
                    if build is not None:  # read inline: written at its build
                        for inner, kind_, b in self.columns(case[1], dict(build.fields), child):
                            self.aim(inner, kind_, b)
                k += case is not None
        elif isinstance(kind, tuple) and kind[0] == "list" and self.aim_lists(var, kind, builder):
            return
        elif isinstance(kind, tuple) and kind[0] == "list" and isinstance(kind[1], tuple):
            if kind[1][0] != "record":
                return
            self.targets[var] = self.local(f"{builder}_e", "StructBuilder", None, builder)
            self.values[var] = (kind[1], self.targets[var])
            item = self.repeats_read.get(var)
            if item in self.builds:  # elements read inline: their own lists and records too
                element = dict(self.builds[item].fields)
                for inner, k, b in self.columns(kind[1][1], element, self.targets[var]):
                    self.aim(inner, k, b)
            elif item in self.nested_calls:  # each read by a call in its own bounds
                self.targets[item] = self.targets[var]
        elif isinstance(kind, tuple) and kind[0] == "list" and kind[1] in _RAW:
            # values read inline, each appended to the list's child as it is read
            self.targets[var] = builder
            self.values[var] = (kind[1], self.local(f"{builder}_e", "Builder", None, builder))
        elif isinstance(kind, tuple) and kind[0] == "record":
            if var in self.builds:
                for inner, k, b in self.columns(kind[1], dict(self.builds[var].fields), builder):
                    self.aim(inner, k, b)
            else:
                self.targets[var] = builder

    def uuid_bytes(self, var: str) -> bool:
        """Whether ``var`` is a list of 16 bytes read inline (each a number of at most 8
        bits), which a uuid column takes as they are read, into ``<var>_b``."""
        step = self.repeat_steps.get(var)
        if step is None or step.until != "count" or step.count != "16" or not step.steps:
            return False
        last = step.steps[-1]
        if isinstance(last, MsbNumber):
            return last.var == step.item and last.bits <= 8 and not last.signed
        return isinstance(last, Number) and last.var == step.item and last.prim == "u8"

    def function_head(self, plan) -> list[str]:
        if plan.checks_depth and self.calls:
            raise NotCompiled("a record of a recursive spec that reads records")
        name = plan.name
        signature = "const unsigned char* buf, Py_ssize_t pos, Py_ssize_t end, _Limits* lim,"
        # a record of a spec that recurses, reading no record: read first, as `_top_<name>`
        depth = ["    cdef Py_ssize_t depth = 1"] if plan.checks_depth else []
        function, out = f"_arrow_{name}", "StructBuilder out"
        if self.spreading:
            function, out = f"_columns_{name}", "StructBuilder out, Py_ssize_t base"
        return [
            f"cdef int {function}({signature}",
            f"{' ' * (len(function) + 10)}Py_ssize_t* stop, {out}) except -2:",
            f'    """``_read_{name}`` writing Spark\'s Arrow columns into ``out``: -1 where it',
            '    declines or a value does not fit its column (``out`` then part-written)."""',
            *depth,
            *(f"    {line}" for line in self.builders.values()),
        ]

    def decline_if(self, condition: str) -> None:
        self.w.line(f"if {condition}:")
        with self.w.indent():
            self.w.line("return -1")

    def raw_call(self, record: str, end: str, var: str) -> str:
        """The call of ``record``'s writer for ``var``: -1 where it declines."""
        if var in self.spreads:
            called, struct, first = self.spreads[var]
            base = f"base + {first}" if struct == "out" and self.spreading else first
            return f"_columns_{called}(buf, pos, {end}, lim, &pos, {struct}, {base})"
        target = self.case_targets.get(var, {}).get(record)
        if target is not None:
            self.called_cases.add((var, record))
            return f"_arrow_{record}(buf, pos, {end}, lim, &pos, {target})"
        if var not in self.targets or record in self.row_fields:
            raise NotCompiled(f"{var}: a record that is no Spark struct column")
        return f"_arrow_{record}(buf, pos, {end}, lim, &pos, {self.targets[var]})"

    def call(self, record: str, end: str, var: str, depth: int = 0) -> str:
        return f"_present({self.raw_call(record, end, var)})"

    def new_list(self, step) -> str:
        kept = step.var in self.summed and step.var not in self.running[self.name]
        return "[]" if kept else "True"

    def untrack_list(self, step) -> None:
        """Nothing: the lists here are no models' (``True``, or the counts a checksum reads)."""

    def crc8_start(self, step, crc: str) -> tuple:
        lists = [var for var, chk in self.running[self.name].items() if chk == step.var]
        if not lists:
            return super().crc8_start(step, crc)
        self.declare(crc, "unsigned int = 0")  # added to as the lists were read
        return step.items[len(lists) :]

    def element_member(self, cls: str, member: str) -> str:
        """The element's writer returned its ``returned`` member, the one byte kept of it:
        a checksum over another member of the same elements is not compiled."""
        (record,) = (name for name, plan in self.lowering.plans.items() if plan.class_name == cls)
        if self.returned.get(record) != member:
            raise NotCompiled(f"a checksum of {record}.{member}, not {self.returned.get(record)}")
        return "<uint8_t>e"

    def bits(self, step, at: str) -> None:
        if step.width == 64 and not step.signed:  # a uint64_t: no C value of a column here
            raise NotCompiled(f"{step.var}: 64 unsigned bits")
        super().bits(step, at)

    def choice(self, step) -> None:
        raise NotCompiled(f"{step.var}: a choice")

    def keyed(self, step) -> None:
        """mysql::serialization's steps on C numbers: an optional field whose default is
        another's (``from``) notes that it was absent in ``<var>_a``."""
        if isinstance(step, Fallback):
            ctype = self.decls.get(step.var)
            if ctype not in (*_INTS, "uint64_t") or self.decls.get(step.source) != ctype:
                raise NotCompiled(f"{step.var}: a default of no C number")
            self.w.line(f"if {step.var}_a:")
            with self.w.indent():
                self.w.line(f"{step.var} = {step.source}")
            self.w.line(f"elif {step.var} == {step.source}:  # written at its default")
            with self.w.indent():
                self.w.line("return -1")
        elif isinstance(step, Rest):  # fields a newer writer added: no column of them
            self.w.line(f"pos = {step.end}")
        else:
            if isinstance(step, KeyedField) and step.absent == "from":
                self.declare(f"{step.var}_a", "bint")
                self.w.line(f"{step.var}_a = False")
            super().keyed(step)

    def keyed_absent(self, step) -> None:
        if step.absent == "from":
            self.w.line(f"{step.var}_a = True")
        elif step.default.lstrip("-").isdigit() and self.decls.get(step.var) in (
            *_INTS,
            "uint64_t",
        ):
            self.w.line(f"{step.var} = {step.default}")
        else:
            raise NotCompiled(f"{step.var}: a default of no C number")

    def msb_value(self, var: str, raw: str, signed: bool, bits: int) -> None:
        """A C number: int64_t (ZigZag decoded when ``signed``), uint64_t past 63 bits."""
        if signed:
            self.declare(var, "int64_t")
            self.w.line(f"{var} = <int64_t>({raw} >> 1) ^ -<int64_t>({raw} & 1)")
        else:
            self.declare(var, "int64_t" if bits < 64 else "uint64_t")
            self.w.line(f"{var} = {raw}" if bits == 64 else f"{var} = <int64_t>{raw}")

    def fixed_list(self, step) -> None:
        self.w.line(f"{step.var} = True")

    def spare_slot(self, step) -> None:
        """Nothing: no model is made here, so none is reused."""

    def fixed_item(self, step) -> None:
        self.item(step)

    def item(self, step) -> None:
        if step.steps is not None:
            if step.var not in self.values:
                raise NotCompiled(f"{step.var}: elements read inline")
            kind, builder = self.values[step.var]
            self.item_index(step)
            self.branch(step.steps, step.end)
            if kind == "uuid":
                self.declare(f"{step.var}_b", "unsigned char[16]")
                self.w.line(f"{step.var}_b[{step.item}_n] = <unsigned char>{step.item}")
            elif isinstance(kind, tuple) and kind[0] == "list":  # a list read inline: closed
                self.decline_if(f"{builder}.close_list()")
            elif isinstance(kind, tuple) and step.item not in self.builds:
                pass  # a record its call wrote as it read it
            elif isinstance(kind, tuple):  # a record read inline: its columns, in the element
                self.write_columns(kind[1], dict(self.builds[step.item].fields), builder)
            else:
                self.write(step.item, kind, builder, {}, nullable=False)
            self.w.line(f"{step.item}_n += 1")
            return
        self.calls.add(step.record)
        self.declare(step.item, "int")
        self.element_start(step)
        self.w.line(f"{step.item} = {self.raw_call(step.record, step.end, step.var)}")
        self.decline_if(f"{step.item} < 0")
        self.element_codes(step)
        checksum = self.running[self.name].get(step.var)
        if checksum is None and step.var in self.summed:
            self.w.line(f"{step.var}.append({step.item})")
        elif checksum is not None:
            self.declare(f"{checksum}_crc", "unsigned int = 0")
            self.w.line(f"{checksum}_crc = _CRC8[{checksum}_crc ^ <uint8_t>{step.item}]")
        self.w.line(f"{step.item}_n += 1")

    # -- values: C values, no Python objects ---------------------------------------------

    def scalar(self, var: str, kind: str, **values: str) -> None:
        self.declare(f"{var}_s", "Scalar")
        self.w.line(f"{var}_s.kind = SCALAR_{kind}")
        for name, value in values.items():
            self.w.line(f"{var}_s.{name} = {value}")
        self.w.line(f"{var} = True")

    def number(self, step, at, end: str = "") -> None:
        if step.var not in self.loose or step.enum:
            super().number(step, at, end)
            return
        if step.const is not None:
            raise NotCompiled(f"{step.var}: a constant that may be absent")
        if step.keep:
            self.keep(step.var, at, self.at(step.size))
        if step.prim == "bool":
            self.decline_if(f"buf[{at}] > 1")
        if at is None:
            ctype, value = self.varint(step.var, step.zigzag, end)
        else:
            ctype, value = self.load(step.prim, at)
        if ctype in _FLOATS:
            self.scalar(step.var, "FLOAT", d=value)
        elif ctype == "bint":
            self.scalar(step.var, "BOOL", i=value)
        elif ctype in _INTS:
            self.scalar(step.var, "INT", i=value)
        elif ctype == "uint64_t":  # its bits in ``i``: only a decimal column takes it
            self.scalar(step.var, "INT", i=f"<int64_t>{value}")
            self.wide.add(step.var)
        else:
            raise NotCompiled(f"{step.var}: a {ctype} value")

    def number_value(self, var: str) -> str:
        """A number that may be absent is its ``Scalar``'s (``var`` is True here)."""
        if var in self.wide:
            return f"<uint64_t>{var}_s.i"
        return f"{var}_s.i" if f"{var}_s" in self.decls else var

    def text_value(self, step, start: str, n: str) -> None:
        var = step.var
        if step.keep:
            self.keep(var, start, f"{start} + {n}")
        if step.pad:
            self.declare(f"{var}_n", "Py_ssize_t")
            self.w.line(f"{var}_n = {n}")
            tests = " or ".join(f"buf[{start} + {var}_n - 1] == {b:#04x}" for b in step.pad)
            self.w.line(f"while {var}_n > 0 and ({tests}):")
            with self.w.indent():
                self.w.line(f"{var}_n -= 1")
            n = f"{var}_n"
        if step.kind != "bytes":
            encoding = step.encoding.replace("-", "").lower()
            if encoding == "utf8":
                self.decline_if(f"not utf8_valid(buf + {start}, {n})")
            elif encoding == "ascii":
                self.declare(f"{var}_i", "Py_ssize_t")
                self.w.line(f"for {var}_i in range({n}):")
                with self.w.indent():
                    self.decline_if(f"buf[{start} + {var}_i] >= 0x80")
            elif encoding != "latin1":  # every byte is Latin-1: converted as it is put
                raise NotCompiled(f"{var}: encoding {step.encoding}")
        if step.kind == "bytes":  # an expression's len() of it: this length, in C
            self.byte_lengths[var] = n
        kind = "BYTES" if step.kind == "bytes" else "TEXT"
        if step.kind != "bytes" and step.encoding.replace("-", "").lower() == "latin1":
            kind = "LATIN1"
        self.scalar(var, kind, p=f"<const char*>buf + {start}", n=n)

    # -- the columns, where the model reader builds its model ----------------------------

    def build(self, step: Build) -> None:
        if step.var != "model":  # a record read inline: written with its parent
            for (var, record), build in self.case_builds.items():
                if build is step and record in self.case_targets.get(var, {}):
                    # a switch's case: its columns now, the other cases' nulls at the end
                    self.write_columns(record, dict(step.fields), self.case_targets[var][record])
                    self.called_cases.add((var, record))
            self.w.line(f"{step.var} = True")
            return
        if self.name not in self.row_fields:
            self.write_columns(self.name, dict(step.fields), "out")
        self.declare("model", "int")
        member = self.returned.get(self.name)
        if member is None:
            self.w.line("model = 1")
            return
        var = dict(step.fields)[member]
        if self.decls.get(var) not in _INTS:
            raise NotCompiled(f"{var}: a checksum member that is no C number")
        self.w.line(f"model = {var}")

    def write_columns(self, record: str, fields: dict, struct: str) -> None:
        entries = self.tables[record]
        for (var, kind, builder), entry in zip(self.columns(record, fields, struct), entries):
            if kind == "fourcc":  # text by the field's enum
                self.fourcc_column(var, builder, record, entry[1])
                continue
            self.write(var, kind, builder, fields, nullable=entry[3])
        if struct != "out" or not self.spreading:  # else _arrow_<record> closes it
            self.w.line(f"{struct}.valid()")

    def write(self, var: str, kind, builder: str, fields: dict, nullable: bool) -> None:
        """Append the value of ``var`` (a column of ``kind``) to ``builder``."""
        ctype = self.decls.get(var)
        if kind == ("spread",):  # written as it was read
            return
        if kind == "lsn":
            self.lsn_text(var, builder, ctype)
            return
        if kind in _TIMES and ctype in (*_INTS, "uint64_t"):
            fits = f"{var} >> 63 == 0" if ctype == "uint64_t" else "True"
            value, shift = f"<int64_t>{var}", _TIME_SHIFTS.get(kind)
            if kind == "time_ms":  # null where the microseconds would not fit an int64
                in_range = f"-{2**63 // 1000} <= {value} <= {(2**63 - 1) // 1000}"
                fits = in_range if fits == "True" else f"({fits}) and {in_range}"
                value = f"({value} * 1000 if {fits} else 0)"
            if kind == "time_ns":
                value = f"({value} // 1000 if {value} >= 0 else -((-({value} + 1)) // 1000) - 1)"
            if shift:  # null where Unix's microseconds would not fit an int64 (no C overflow)
                fits = f"({fits}) and {value} <= {2**63 - 1 - shift}"
                value = f"({value} + {shift} if {fits} else 0)"
            self.decline_if(f"{_TIMES[kind]}({builder}, {value}, {fits})")
            return
        if ctype in _INTS or ctype in _FLOATS or ctype == "bint":
            put = "put_double" if ctype in _FLOATS else "put_bool" if ctype == "bint" else "put_int"
            if kind not in _RAW:
                raise NotCompiled(f"{var}: a {ctype} in a {kind} column")
            if put == "put_int":  # a float or a bool fits any column of its kind
                self.decline_if(f"put_int({builder}, {var})")
            else:
                self.w.line(f"{put}({builder}, {var})")
            return
        if ctype == "uint64_t":  # what a long cannot hold: a decimal column
            if kind != "decimal":
                raise NotCompiled(f"{var}: a uint64_t in a {kind} column")
            self.decline_if(f"put_decimal({builder}, {var})")
            return
        if isinstance(kind, tuple) and kind[0] == "switch":  # None: a case without payload
            self.switch_columns(var, kind, builder, fields)
            return
        self.w.line(f"if {var} is None:")
        with self.w.indent():
            # where <record>_to_row would fail on a None, the Python way decides
            self.w.line(f"{builder}.null()" if nullable else "return -1")
        self.w.line("else:")
        with self.w.indent():
            self.present(var, kind, builder, fields)

    def lsn_text(self, var: str, builder: str, ctype: str | None) -> None:
        """``logical: pg_lsn``'s text column: the number as PostgreSQL writes it, ``X/Y``
        (``rt_codec.lsn_text``), null where the number is absent."""
        number = self.number_value(var)
        text = f'f"{{{number} >> 32:X}}/{{{number} & 0xFFFFFFFF:X}}"'
        if ctype == "uint64_t" and var not in self.wide:  # read always
            self.decline_if(f"put_object({builder}, {text})")
            return
        self.w.line(f"if {var} is None:")
        with self.w.indent():
            self.w.line(f"{builder}.null()")
        self.w.line("else:")
        with self.w.indent():
            self.decline_if(f"put_object({builder}, {text})")

    def present(self, var: str, kind, builder: str, fields: dict) -> None:
        if var in self.wide:  # a uint64 that may be absent
            if kind != "decimal":
                raise NotCompiled(f"{var}: a uint64_t in a {kind} column")
            self.decline_if(f"put_decimal({builder}, <uint64_t>{var}_s.i)")
        elif kind in _RAW and f"{var}_s" in self.decls:
            self.decline_if(f"put_scalar({builder}, &{var}_s)")
        elif kind in _RAW:
            if var in self.stand_ins or var in self.decls:
                raise NotCompiled(f"{var}: no value for a {kind} column")
            self.decline_if(f"put_object({builder}, {var})")  # an expression's Python value
        elif kind in _TIMES and (
            f"{var}_s" in self.decls or (var not in self.stand_ins and var not in self.decls)
        ):  # a Python int (derived), or one read if present: in C where its time fits
            number = f"(<object>{var}_s.i)" if f"{var}_s" in self.decls else var
            value = _PY_TIMES[kind].format(var=number, shift=_TIME_SHIFTS.get(kind, 0))
            fits = f"{-(2**63)} <= {value} <= {2**63 - 1}"
            self.decline_if(
                f"{_TIMES[kind]}({builder}, <int64_t>({value}) if {fits} else 0, {fits})"
            )
        elif kind == "uuid" and self.values.get(var, ("",))[0] == "uuid":
            self.decline_if(f"put_uuid({builder}, {var}_b)")
        elif kind == "enum":
            step = self.numbers.get(var)
            if step is None or not step.enum or step.enum in self.wide_enums:
                raise NotCompiled(f"{var}: an enum column of no enum byte")
            names = f"_{step.enum.upper()}_NAME"
            self.arrow_enums.add(step.enum)
            self.decline_if(f"put_bytes({builder}, {names}[{var}_c], {names}_N[{var}_c], True)")
        elif isinstance(kind, tuple) and kind[0] == "list" and var in self.targets:
            self.decline_if(f"{builder}.close_list()")
        elif isinstance(kind, tuple) and kind[0] == "record" and var in self.builds:
            self.write_columns(kind[1], dict(self.builds[var].fields), builder)
        elif isinstance(kind, tuple) and kind[0] == "record" and var in self.targets:
            self.w.line("pass  # written as it was read")
        else:
            raise NotCompiled(f"{var}: a {kind!r} column")

    def switch_columns(self, var: str, kind, builder: str, fields: dict) -> None:
        """One struct child per case with a payload, only the selected one filled (a
        record written by its call as it was read), and the default's after them."""
        _, selector, cases, default = kind
        step = self.numbers.get(fields.get(selector, ""))
        if step is None or step.var in self.loose:
            raise NotCompiled(f"{var}: a switch on no number read always")
        # an enum's byte, or the number itself (an open enum's)
        code = f"{step.var}_c" if step.enum else step.var
        if not step.enum and self.decls.get(code) not in _INTS:
            raise NotCompiled(f"{var}: a switch on no C number")
        k = 0
        for value, case_kind in cases:
            if case_kind is None:
                continue
            selected = f"{code} == {value:#x} and {var} is not None"
            if isinstance(case_kind, tuple) and (var, case_kind[1]) in self.called_cases:
                self.w.line(f"if not ({selected}):")
                with self.w.indent():
                    self.w.line(f"{self.case_targets[var][case_kind[1]]}.null()")
                k += 1
                continue
            if case_kind not in _RAW or f"{var}_s" not in self.decls:
                raise NotCompiled(f"{var}: a {case_kind!r} case")
            child = self.local(f"{builder}_{k}", "Builder", k, builder)
            self.w.line(f"if {selected}:")
            with self.w.indent():
                self.decline_if(f"put_scalar({child}, &{var}_s)")
            self.w.line("else:")
            with self.w.indent():
                self.w.line(f"{child}.null()")
            k += 1
        if default is not None:
            if default not in _RAW or f"{var}_s" not in self.decls:
                raise NotCompiled(f"{var}: a {default!r} default")
            child = self.local(f"{builder}_{k}", "Builder", k, builder)
            named = " or ".join(f"{code} == {value:#x}" for value, _ in cases)
            self.w.line(f"if {named or 'False'} or {var} is None:")
            with self.w.indent():
                self.w.line(f"{child}.null()")
            self.w.line("else:")
            with self.w.indent():
                self.decline_if(f"put_scalar({child}, &{var}_s)")
        self.w.line(f"{builder}.valid()")

    # -- the module section --------------------------------------------------------------

    @property
    def arrow_enums(self) -> set:
        if not hasattr(self, "_arrow_enums"):
            self._arrow_enums = set()
        return self._arrow_enums

    def section(self) -> str:
        """The Arrow part of the .pyx: the writers, ``write_arrow`` and ``bind_arrow``."""
        names = sorted(self.arrow_enums)
        head = [
            "# -- Spark's Arrow columns straight from the bytes (generator/emit/compiled_arrow.py) --",
            "",
            "from runtime._compiled.arrow cimport (",
            "    SCALAR_BOOL, SCALAR_BYTES, SCALAR_FLOAT, SCALAR_INT, SCALAR_LATIN1, SCALAR_TEXT,",
            "    Builder,",
            "    ListBuilder, Scalar, StructBuilder, put_bool, put_bytes, put_decimal, put_double,",
            "    last_int, put_int, put_micros, put_object, put_scalar, put_time_us, put_uuid,",
            "    utf8_valid,",
            ")",
            "from runtime._compiled.arrow_prelude cimport _enum_names, _new_arrow_entry, _write_arrow",
            "",
            "",
            "cdef inline object _present(int read):",
            '    """A record written as it was read: None where its writer declined."""',
            "    return None if read < 0 else True",
            "",
            "# Set by bind_arrow: each enum member's name by byte, as UTF-8 (kept alive in _NAMES)",
            "cdef list _NAMES = []",
        ]
        for enum in names:
            head.append(f"cdef const char* _{enum.upper()}_NAME[256]")
            head.append(f"cdef Py_ssize_t _{enum.upper()}_NAME_N[256]")
        parts = ["\n".join(head)] + self.fourcc_prelude()
        parts += [self.functions[name] for name in self.entries]
        entries = [
            f'    "{name}": _new_arrow_entry(_arrow_{name}, {self.lowering.plans[name].depth}),'
            for name in self.entries
        ]
        parts.append("\n".join(["_ARROW_ENTRIES = {", *entries, "}"]))
        parts.append(_WRITE_ARROW)
        bind = [
            "def bind_arrow(namespace):",
            '    """The records ``write_arrow`` writes, given the generated module\'s namespace;',
            '    none when the module was generated from other plans (a stale build)."""',
            '    if namespace.get("COMPILED_PLAN") != PLAN:',
            "        return frozenset()",
        ]
        for enum in names:
            table, name = f'namespace["_{enum.upper()}_BY_VALUE"]', f"_{enum.upper()}_NAME"
            if self.spec.enums[enum].flags:
                table = f"{table}.byte_table(named=True)"
            bind.append(f"    _enum_names({table}, {name}, {name}_N, _NAMES)")
        bind.append("    return frozenset(_ARROW_ENTRIES)")
        parts.append("\n".join(bind))
        return "\n\n\n".join(part.rstrip("\n") for part in parts) + "\n"


_WRITE_ARROW = '''\
def write_arrow(str record, column, Py_ssize_t start, Py_ssize_t stop, StructBuilder out,
                list counts, limits):
    """The Spark rows of ``column[start:stop]`` as ``record``s, written into ``out``, each
    message's number of rows appended to ``counts``; where it stopped (``_write_arrow`` of
    runtime/_compiled/arrow_prelude.pxd says how)."""
    return _write_arrow(_ARROW_ENTRIES[record], column, start, stop, out, counts, limits)'''
