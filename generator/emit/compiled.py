"""The compiled tier: the plan of ``generator/emit/lowering.py`` rendered as typed Cython.

``wirespec generate`` writes ``generated/_compiled/<format>.pyx`` for every format with a
record the renderer covers. Each covered record gets ``read_<record>(data, limits)``: the
model, exactly the quick tier's (``_quick_<record>``), or None where the quick tier raises
``Retry`` ("not mine": the Python readers then give the model or the exact ``DecodeError``).
It reads a ``const unsigned char*`` with C integers, and checks ``end`` before every read:
a run of fixed-size steps is checked once against the end it reads within, an untrusted
length against what is left (and the limits) before anything is sliced or allocated.

Models are made as ``object.__new__`` makes them (the type's ``tp_alloc``, or the memory of a
freed model kept for reuse) and their slots written at the offsets of their member
descriptors, found once by ``bind``; ``bind`` also has CPython free each model class by
``runtime/_compiled/slots.pxd``'s ``wirespec_model_dealloc`` (``free_fast``). ``bind`` takes
the generated module's namespace (its classes and enum tables) when the module imports the
extension; it refuses (returns no readers) a namespace whose plan digest differs from the
one the extension was rendered from, so a stale build is never used.

The renderer covers a subset of what a plan can say (:class:`NotCompiled`); a record it
does not cover stays with the Python quick tier. Its parts: :mod:`compiled_values` (steps at
a constant offset, checksums), :mod:`compiled_moving` (steps that move ``pos``),
:mod:`compiled_keyed` (tag-keyed messages), :mod:`compiled_lists` (expressions over the lists
a reader made, in C), :mod:`compiled_prelude` (the Cython text every
module starts with) and :mod:`compiled_support` (what they share).
"""

from __future__ import annotations

import hashlib
import re

from generator.emit.compiled_cuts import CutSteps
from generator.emit.compiled_fused import FusedSteps
from generator.emit.compiled_keyed import KeyedSteps
from generator.emit.compiled_lists import ListExpressions
from generator.emit.compiled_mapping import MAPPED_PRELUDE, MappedRecord
from generator.emit.compiled_moving import MovingSteps
from generator.emit.compiled_pending import PendingSteps
from generator.emit.compiled_prelude import (
    EXPRESSION_PRELUDE,
    PRELUDE,
    REUSE_PRELUDE,
)
from generator.emit.compiled_rows import RowSteps
from generator.emit.compiled_support import (
    DECLINE,
    NotCompiled,
)
from generator.emit.compiled_values import ValueSteps
from generator.emit.lowering import Lowering, kafka_lists
from generator.emit.order_plans import OrderChoice
from generator.emit.plan import Bits, FieldSteps, Nested, Number, Processed, Repeat, flatten
from generator.emit.plan_branches import Optional, Switch, When
from generator.emit.plan_keyed import KeyedField, KeyedHeader
from generator.emit.pysource import LineWriter, member_constant
from generator.emit.untracked import atomic_classes, value_kinds
from generator.spec import pytext


def plan_digest(lowering: Lowering) -> str:
    """What the compiled readers of a spec were rendered from: the generated module and the
    extension must name the same."""
    text = f"endian {lowering.endian}\n{lowering.describe()}"
    return hashlib.sha256(text.encode()).hexdigest()


class CompiledEmitter(
    CutSteps, PendingSteps, ValueSteps, MovingSteps, KeyedSteps, RowSteps, ListExpressions
):
    """Renders ``generated/_compiled/<format>.pyx`` of one spec (see the module docstring)."""

    decline_text = DECLINE
    """The line that declines (a row iterator's element steps raise instead)."""

    def __init__(
        self,
        spec,
        lowering: Lowering | None = None,
        *,
        beside: bool = False,
        in_memory: bool = False,
    ):
        self.spec = spec
        self.lowering = lowering or Lowering(spec)
        self.module = None if beside else f"generated._compiled.{spec.format}"
        """The extension's dotted name, or None for one built in the ``_compiled`` folder
        beside a module generated outside ``generated/`` (``runtime.core.tier.compiled_beside``)."""
        self.in_memory = in_memory
        """The module is rendered in memory (``--spec``): it runs pure Python and never looks
        for an extension, so a spec named like a shipped format cannot take the shipped
        module's build (which binds to the first module that asks for it)."""
        self.digest = plan_digest(self.lowering)
        self.functions: dict[str, str] = {}
        self.mapped: dict[str, MappedRecord] = {}
        """Record with ``map:`` -> its reader (:mod:`generator.emit.compiled_mapping`)."""
        self.loaders: dict[str, str] = {}
        self.classes: dict[str, list[str]] = {}
        """Model class -> its fields, in the order the generated module declares them."""
        self.enums: set[str] = set()
        self.wide_enums: set[str] = set()
        """Enums with members past a byte: their ``_<ENUM>_BY_VALUE`` dicts, bound."""
        self.refused: dict[str, str] = {}
        self.callees: dict[str, set[str]] = {}
        """Record -> the records its reader calls."""
        self.expressions = False
        """Whether a reader evaluates spec expressions or decodes a ``process:`` codec."""
        self.recursive = any(plan.checks_depth for plan in self.lowering.plans.values())
        """The spec recurses: every reader takes the depth it is read at (``_DReader``)."""
        self.pickers: dict[str, str] = {}
        """A choice's table -> the code that declares and fills it."""
        self.preludes: dict[str, None] = {}
        """Shared helpers a reader cimports (runtime/_compiled/*.pxd), in first-use order."""
        self.codec_cases: dict[str, str] = {}
        """A ``process:`` codec's cases (their repr) -> the module dict holding them."""
        self.shared_ints: list[str] = []
        """The ``SharedInt`` globals of the fields read through ``shared_int``."""
        self.enclosing_repeats = 0
        """How many repeats enclose the step being rendered."""
        self.reuse = self._reuse_records()
        """Entry record -> the model classes its reads write into dead models (see
        :meth:`reuse_entry`)."""
        self.atomic_classes = atomic_classes(self.lowering)
        """Model classes whose every field is atomic in every model read (see
        :meth:`untrack`)."""
        self.fast = self.lowering.fast
        self.member_values = {
            member_constant(enum.name, v.name): v.value
            for enum in spec.enums.values()
            for v in enum.values
        }
        """An enum member's constant in expressions (the fast path's) -> its value."""
        self.elements: dict[str, str] = {}
        """Row record -> ``_elements_<record>``, the loop over its elements its reader
        and its row iterator share (:meth:`RowSteps.elements_call`)."""
        self.element_reads: dict[str, str] = {}
        """Row record -> the arguments of earlier fields ``_elements_<record>`` takes."""
        self.element_params: dict[str, list[tuple[str, str]]] = {}
        """Row record -> those arguments' (C type, variable)."""
        self.heads: dict[str, list[str]] = {}
        self.head_functions: dict[str, str] = {}
        """Row record -> ``_head_<record>``, the fields before its row field, which its
        reader and its row iterator share (:meth:`RowSteps.head_outputs`)."""
        self.head_pointers: dict[str, list[str]] = {}
        self.head_values: dict[str, list[str]] = {}
        self.head_decls: dict[str, dict[str, str]] = {}
        """Row record -> the head's outputs: C variables, Python values, their C types."""
        self.pendings: dict[str, str] = {}
        """Record -> ``_reread_<record>`` and ``_pending_<record>``, its row field's
        pending elements (:mod:`generator.emit.compiled_pending`)."""
        self.pending_classes: set[str] = set()
        """The model classes of pending elements (read through ``LazySlot``s)."""
        self.cut_vars: set[str] = set()
        """The ``on_cut: keep`` bytes a list sets, not its kept field (compiled_cuts.py)."""
        self.cut_records: set[str] = set()
        """The records whose exact readers ``_cut_at`` calls (compiled_cuts.py)."""
        for name in self.rendered():
            try:
                self.functions[name] = self.record_function(self.lowering.plans[name])
            except NotCompiled as why:
                self.refused[name] = str(why)
        # a record that calls one not covered is not covered either
        changed = True
        while changed:
            changed = False
            for name in list(self.functions):
                missing = self.callees.get(name, set()) - set(self.functions)
                if missing:
                    del self.functions[name]
                    self.refused[name] = f"calls {', '.join(sorted(missing))}"
                    changed = True
        self.entries = [name for name in self.rendered() if name in self.functions]
        self.map_records()
        self.rows: dict[str, str] = {}
        """Record -> its row iterator (:mod:`generator.emit.compiled_rows`)."""
        for name in self.entries:
            if self.row_field(name) is not None:
                try:
                    function = self.rows_function(name)
                except NotCompiled:
                    continue
                if self.callees[f"rows {name}"] <= set(self.functions):
                    self.rows[name] = function

    def rendered(self) -> list[str]:
        """The records given a function of their own: those ``parse`` reads by a reader
        (the lowering's entries)."""
        return self.lowering.entries

    def map_records(self) -> None:
        """The readers of the records with ``map:``, fused with their sources' reading."""
        for name, plan in self.lowering.mappings.items():
            try:
                self.mapped[name] = MappedRecord(self, plan, FusedEmitter)
            except NotCompiled as why:
                self.refused[name] = str(why)

    # -- the module ---------------------------------------------------------------------

    def module_text(self, version: str, arrow=None, writers=None, way_backs=None) -> str | None:
        """The .pyx (headed, as ``with_header`` heads it), or None when no record is covered.
        ``arrow``: the Arrow writers of :mod:`generator.emit.compiled_arrow` to add, if any;
        ``writers``: the compiled writers of :mod:`generator.emit.compiled_writers`, if any,
        and ``way_backs`` those of :mod:`generator.emit.compiled_unmapping` over them."""
        if not self.entries:
            return None
        if arrow is not None:  # its readers look members up by value too: bound with these
            self.wide_enums |= arrow.wide_enums
        source = self.spec.source.display
        head = [
            f"# Code generated by wirespec {version} from {pytext.comment(source)}. DO NOT EDIT.",
            f"# source sha256: {self.spec.source.sha256}",
            "# @generated",
            "# Every read is checked against its end by the code itself, so Cython checks none:",
            "# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True",
            f'"""The compiled tier of ``generated.{self.spec.format}``.',
            "",
            "The plans of generator/emit/lowering.py in typed Cython (generator/emit/compiled.py renders",
            "them; ``bind`` hands the readers to the module). Each reader gives the quick tier's",
            'model, or None where the quick tier would raise Retry."""',
            "",
        ]
        body = [PRELUDE]
        if self.expressions:
            body.append(EXPRESSION_PRELUDE)
        body += list(self.preludes)
        if self.mapped:
            body.append(MAPPED_PRELUDE)
        loaders = {**self.loaders, **(arrow.loaders if arrow is not None else {})}
        body += list(loaders.values())
        body.append(
            f'PLAN = "{self.digest}"\n"""The digest of the plans this was rendered from."""\n'
        )
        globals_ = [
            "# Set by bind: the model classes, their slot offsets, the enum members by byte."
        ]
        for cls, fields in sorted(self.classes.items()):
            globals_.append(f"cdef object _{cls}")
            globals_ += [f"cdef Py_ssize_t _{cls}_{field}" for field in fields]
        globals_ += [f"cdef PyObject* _{enum.upper()}_BY_BYTE[256]" for enum in sorted(self.enums)]
        globals_ += [
            # a flags enum's FlagMembers makes its wider sets in its own get
            f"cdef {'object' if self.spec.enums[enum].flags else 'dict'} _{enum.upper()}_BY_VALUE"
            for enum in sorted(self.wide_enums)
        ]
        reused = sorted({cls for name in self.entries for cls in self.reuse.get(name, ())})
        globals_ += [f"cdef SharedInt {name}" for name in self.shared_ints]
        globals_ += self.pending_globals()
        globals_ += [line for mapped in self.mapped.values() for line in mapped.globals_()]
        if reused:
            body.append(REUSE_PRELUDE)
            globals_.append(
                "# A dead model of the class for the next Build to write into, or NULL."
            )
            globals_ += [f"cdef PyObject* _into_{cls} = NULL" for cls in reused]
        body.append("\n".join(globals_))
        body += [
            part
            for name in self.entries
            for part in (
                self.elements.get(name),
                self.pendings.get(name),
                self.head_functions.get(name),
                self.functions[name],
            )
            if part is not None
        ]
        for mapped in self.mapped.values():
            body += [*mapped.functions, mapped.bind_function()]
            if mapped.kept:
                body.append(mapped.whole_function(self.whole()))
        body += [self.pickers[table] for table in sorted(self.pickers)]
        if self.recursive:  # the readers as `_Reader`s: the first record at depth 1
            body += [self.top_function(name) for name in self.entries]
        body += [self.reuse_entry(name) for name in self.entries if name in self.reuse]
        body += [self.entry_function(name) for name in [*self.entries, *self.mapped]]
        if self.pair_function() is not None:
            body.append(self.pair_function())
        body += self.rows_section()
        entries = [
            f'    "{name}": _entry({self.reader(name)}, {self.depth(name)}, {self.whole()}),'
            for name in self.entries
        ]
        body.append("\n".join(["_ENTRIES = {", *entries, "}"]))
        body.append(self.bind_function())
        if arrow is not None and arrow.entries:
            body.append(arrow.section())
        if writers is not None and writers.entries:
            body.append(writers.section())
            if way_backs is not None and way_backs.names:
                body.append(way_backs.section())
        constants = self.member_constants("\n".join(body))
        if constants:  # after the preludes, before the first reader
            at = body.index(PRELUDE) + 1 + bool(self.expressions) + len(self.preludes)
            body.insert(at, constants)
        text = "\n".join(head) + "\n" + "\n\n".join(part.rstrip("\n") + "\n" for part in body)
        return text

    def member_constants(self, text: str) -> str:
        """The enum members the readers' expressions compare with (``_chunk_type_Value_IEND`` of
        ``_item.type == chunk_type.IEND``), as the fast path defines them."""
        used = [
            f"{name} = {value}"
            for name, value in sorted(self.fast.member_constants.items())
            if re.search(rf"\b{name}\b", text)
        ]
        return "\n".join(used)

    def bind_function(self) -> str:
        lines = [
            "def bind(namespace):",
            '    """The readers by record, given the generated module\'s namespace; none when',
            '    the module was generated from other plans (a stale build)."""',
        ]
        names = [f"_{cls}" for cls in sorted(self.classes)] + [
            f"_{cls}_{f}" for cls, fields in sorted(self.classes.items()) for f in fields
        ]
        names += [f"_{enum.upper()}_BY_VALUE" for enum in sorted(self.wide_enums)]
        if names:
            lines.append(f"    global {', '.join(names)}")
        lines.append('    if namespace.get("COMPILED_PLAN") != PLAN:')
        lines.append("        return {}")
        for cls, fields in sorted(self.classes.items()):
            lines.append(f'    _{cls} = namespace["{cls}"]')
            lines.append(
                f"    if tuple(f.name for f in dataclasses.fields(_{cls})) != {tuple(fields)!r}:"
            )
            lines.append("        return {}")
            if cls in self.pending_classes:
                lines += self.pending_bind(cls, fields)
                continue
            for field in fields:
                lines.append(f'    _{cls}_{field} = slot_offset(_{cls}, "{field}")')
            lines.append(f"    free_fast(_{cls})")
        for enum in sorted(self.enums):
            table = f'namespace["_{enum.upper()}_BY_VALUE"]'
            table = f"{table}.byte_table()" if self.spec.enums[enum].flags else table
            lines.append(f"    _enum_bytes({table}, _{enum.upper()}_BY_BYTE)")
        for enum in sorted(self.wide_enums):
            table = f"_{enum.upper()}_BY_VALUE"
            lines.append(f'    {table} = namespace["{table}"]')
        if self.rows:
            lines.append("    bind_row_readers(namespace)")
        lines += self.cut_bind()
        lines.append("    readers = {" if self.mapped else "    return {")
        lines += [f'        "{name}": read_{name},' for name in self.entries]
        lines.append("    }")
        for name in self.mapped:  # a namespace the mapping cannot use leaves it unbound
            lines += [
                "    try:",
                f"        mapped = _bind_{name}(namespace)",
                "    except (AttributeError, KeyError, TypeError):",
                "        mapped = False",
                "    if mapped:",
                f'        _ENTRIES["{name}"] = _entry(_read_{name}, {self.depth(name)}, {self.whole(name)})',
                f'        readers["{name}"] = read_{name}',
            ]
        if self.mapped:
            lines.append("    return readers")
        return "\n".join(lines)

    def depth(self, name: str) -> int:
        """The nesting depth an entry reads (a mapped record: its source's)."""
        if name in self.mapped:
            return self.mapped[name].source_depth
        return self.lowering.plans[name].depth

    def entry_function(self, name: str) -> str:
        depth = self.depth(name)
        if name in self.mapped:
            return "\n".join(
                [
                    f"def read_{name}(bytes data not None, limits):",
                    f'    """A ``{name}`` from all of ``data``: the Python readers\' and mapping\'s model,',
                    '    or None where they fail or give up (or where the limits do not let it read)."""',
                    f"    return {self.whole(name)}(_read_{name}, {depth}, data, limits)",
                ]
            )
        return "\n".join(
            [
                f"def read_{name}(bytes data not None, limits):",
                f'    """A ``{name}`` from all of ``data``: ``_quick_{name}``\'s model, or None where',
                '    it raises Retry (or where the limits do not let it read)."""',
                f"    return {self.whole()}({self.reader(name)}, {depth}, data, limits)",
            ]
        )

    def whole(self, name: str = "") -> str:
        """What an entry (``name``) reads all of its input with: ``_whole_kept`` where
        elements may be pending in it, ``_kept_<name>`` where a mapped record keeps the
        bytes read (:meth:`MappedRecord.whole_function`)."""
        if name in self.mapped and self.mapped[name].kept:
            return f"_kept_{name}"
        return "_whole_kept" if self.pendings else "_whole"

    def pair_function(self) -> str | None:
        """``pair_from_kafka``: the spec's ``kafka_message:`` read from its Kafka columns, each by
        its plan, their lists walked in step; item i of every list (event i's documents)
        goes to the runtime codec's kernel, ``documents(*lists)``, which gives the model or
        None. None when the columns are not lists to the end (``kafka_lists``)."""
        lists = kafka_lists(self.lowering)
        if lists is None or any(record not in self.entries for record, _ in lists):
            return None
        columns = list(self.spec.kafka_message.columns)
        record, fields = self.spec.kafka_message.record, ", ".join(f for _, f in lists)
        lines = [
            f"def pair_from_kafka({', '.join(f'bytes {c} not None' for c in columns)}, limits, documents):",
            f'    """A ``{record}`` from its Kafka columns: each read by its plan, then',
            f"    ``documents({fields})`` (the codec's kernel) on their lists, which",
            '    hold one item per event; None where a column declines or the lists differ."""',
        ]
        for column, (record, field) in zip(columns, lists):
            depth = self.lowering.plans[record].depth
            lines += [
                f"    {column}_model = _whole({self.reader(record)}, {depth}, {column}, limits)",
                f"    if {column}_model is None:",
                "        return None",
                f"    {field} = {column}_model.{field}",
            ]
        first = lists[0][1]
        for _, field in lists[1:]:
            lines += [f"    if len({field}) != len({first}):", "        return None"]
        lines.append(f"    return documents({fields})")
        return "\n".join(lines)

    def top_function(self, name: str) -> str:
        """A reader of a spec that recurses, as a ``_Reader`` reading at depth 1."""
        signature = "const unsigned char* buf, Py_ssize_t pos, Py_ssize_t end, _Limits* lim,"
        return "\n".join(
            [
                f"cdef object _top_{name}({signature}",
                f"{' ' * (len(name) + 18)}Py_ssize_t* stop):",
                f"    return _read_{name}(buf, pos, end, lim, stop, 1)",
            ]
        )

    # -- a record ------------------------------------------------------------------------

    def record_function(self, plan) -> str:
        self.start(plan)
        if plan.checks_depth:
            extra = f" + {plan.depth - 1}" if plan.depth > 1 else ""
            self.decline_if(f"depth{extra} > lim.max_depth or depth > _C_MAX_DEPTH")
        shares_head = self.shares_head(plan)
        if shares_head:
            self.head_call(plan)
        self.steps(plan.steps[-2:] if shares_head else plan.steps, "end")
        self.flush()
        self.w.line("stop[0] = pos")
        self.w.line("return model")
        if shares_head:
            self.head_outputs(plan)
        head = self.function_head(plan)
        if self.intos:
            head.append(f"    global {', '.join(sorted(self.intos))}")
        for var, ctype in self.decls.items():
            ctype, _, init = ctype.partition(" = ")
            head.append(f"    cdef {ctype} {var}" + f" = {init}" * bool(init))
        self.callees[plan.name] = self.calls
        return "\n".join(head + self.w.lines)

    def start(self, plan) -> None:
        """A new function reading ``plan``: no lines, no variables yet."""
        self.w = LineWriter()
        self.decls: dict[str, str] = {}
        self.numbers = {}
        """Variable -> the Number step that reads it (for selectors and element members)."""
        self.repeats = {}
        """List variable -> the record of its elements."""
        self.loose: set[str] = set()
        """Variables that may hold None or another type (in a switch or an optional)."""
        self.calls: set[str] = set()
        self.indices: set[str] = set()
        """The ``_index`` variables of repeats (below the items read: small numbers)."""
        self.int_tables: dict[str, str] = {}
        """Region of integer lists -> its ``IntTables`` (:mod:`compiled_lists`)."""
        self.table_chunks: dict[str, str] = {}
        """A chunk of such a region -> the ``IntTables`` it stores its numbers in."""
        self.member_lists: set[str] = set()
        """Lists of enum members read by chunks (:mod:`compiled_lists`)."""
        self.byte_lengths: dict[str, str] = {}
        """Bytes variable -> its length as a C number, where the reader keeps no bytes
        object (the Arrow writers' values: ``len`` of it in C, :mod:`compiled_lists`)."""
        self._collect(plan.steps)
        self.name = plan.name
        self.plan = plan
        self.kinds = value_kinds(plan.steps, self.lowering.plans)
        """Variable -> what it may hold (:func:`generator.emit.untracked.value_kinds`)."""
        self.intos: set[str] = set()
        """The ``_into_<class>`` globals the reader sets (see :meth:`reuse_entry`)."""
        self.spare_lists: set[str] = set()
        """List variables that may hold a dead model's list (see :meth:`fixed_list`)."""
        self.off = 0
        self.checked = 0

    def function_head(self, plan) -> list[str]:
        """The ``def`` line and docstring of ``plan``'s reader."""
        signature = "const unsigned char* buf, Py_ssize_t pos, Py_ssize_t end, _Limits* lim,"
        last = "Py_ssize_t* stop, Py_ssize_t depth" if plan.checks_depth else "Py_ssize_t* stop"
        return [
            f"cdef object _read_{plan.name}({signature}",
            f"{' ' * (len(plan.name) + 19)}{last}):",
            f'    """``_quick_{plan.name}`` in C: None where it raises Retry."""',
        ]

    def _collect(self, steps) -> None:
        """Note the numbers read (selectors and element members are read back as C
        numbers), the element records of lists, and the variables that may hold None or
        values of several types (an optional's, a switch's)."""
        for step in steps:
            if isinstance(step, FieldSteps):
                self._collect(step.steps)
            elif isinstance(step, (Number, Bits)):  # an enum's bit field is a selector too
                self.numbers[step.var] = step
            elif isinstance(step, Optional):
                self.loose.add(step.var)
                self._collect(step.steps)
            elif isinstance(step, Switch):
                self.loose.add(step.var)
                for case in step.cases:
                    self._collect(case.steps)
                self._collect(step.default or ())
            elif isinstance(step, (Nested, Processed, KeyedField)):
                self._collect(step.steps or ())
            elif isinstance(step, OrderChoice):  # read always, in one order or the other
                for case in step.cases:
                    self._collect(case.steps)
            elif isinstance(step, When):
                self.loose.add(step.var)
                self._collect(step.steps)
            elif isinstance(step, Repeat):
                self.repeats[step.var] = step.record
                if step.index:
                    self.indices.add(step.index)
                self._collect(step.steps or ())

    # `off`: bytes past `pos` read by fixed steps, `pos` not yet advanced; `checked`: bytes
    # past `pos` known to be before the end of the steps being read.

    def steps(self, steps, end: str) -> None:
        flat = flatten(steps)
        for i, step in enumerate(flat):
            if isinstance(step, FieldSteps):
                if i + 1 < len(flat) and flat[i + 1].size is None:
                    self.flush()
                self.w.line(pytext.source_comment(self.spec.source.display, step.line, step.name))
            elif step.size is not None:
                if step.size and self.off + step.size > self.checked:
                    run = 0
                    for later in flat[i:]:
                        if isinstance(later, FieldSteps):
                            continue
                        if later.size is None:
                            break
                        run += later.size
                    self.decline_if(f"{end} - pos < {self.off + run}")
                    self.checked = self.off + run
                self.fixed(step, self.at(), end)
                self.off += step.size
            else:
                self.flush()
                self.moving(step, end)
                self.checked = 0

    def at(self, extra: int = 0) -> str:
        off = self.off + extra
        return f"pos + {off}" if off else "pos"

    def flush(self) -> None:
        if self.off:
            self.w.line(f"pos += {self.off}")
            self.checked = max(0, self.checked - self.off)
            self.off = 0

    def decline_if(self, condition: str) -> None:
        self.w.line(f"if {condition}:")
        with self.w.indent():
            self.w.line(self.decline_text)

    def declare(self, var: str, ctype: str) -> None:
        if self.decls.setdefault(var, ctype) != ctype:
            raise NotCompiled(f"{var} is read as {self.decls[var]} and as {ctype}")

    def branch(self, steps, end: str) -> None:
        self.off = 0
        self.checked = 0
        self.steps(steps, end)
        self.flush()

    # -- models reused once dead ---------------------------------------------------------

    def _reuse_records(self) -> dict[str, list[str]]:
        """Entry record -> the classes of the models it builds (its own, then those in its
        record fields), for the entries of mysql::serialization messages and of records
        that hold one: a binlog's events are read one after another and dropped, and
        each would otherwise free one event and body and allocate the next
        (``runtime/_compiled/reuse.pxd``)."""
        plans = self.lowering.plans
        out = {}
        for name in self.lowering.entries:
            plan = plans[name]
            build = plan.steps[-1]
            classes = [plan.class_name]
            keyed = isinstance(plan.steps[0], KeyedHeader)
            for step in flatten(plan.steps):
                if isinstance(step, Nested) and step.record in plans:
                    inner = plans[step.record]
                    keyed = keyed or isinstance(inner.steps[0], KeyedHeader)
                    if any(var == step.var for _, var in build.fields):
                        classes.append(inner.class_name)
            if keyed:
                out[name] = classes
        return out

    def reader(self, name: str) -> str:
        """The C reader of an entry: ``_read_<name>``, its reusing wrapper, or where the
        spec recurses its ``_top_<name>`` reading at depth 1."""
        if name in self.mapped:
            return f"_read_{name}"
        if self.recursive:
            return f"_top_{name}"
        return f"_reuse_{name}" if name in self.reuse else f"_read_{name}"

    def reuse_entry(self, name: str) -> str:
        """``_read_<name>`` writing into the model it returned last when its caller has
        dropped it (and into that model's record fields when nothing else holds them)."""
        cls, *inner = self.reuse[name]
        classes = [cls, *inner]
        intos = ", ".join(f"_into_{c}" for c in classes)
        signature = "const unsigned char* buf, Py_ssize_t pos, Py_ssize_t end, _Limits* lim,"
        lines = [
            f"cdef object _last_{name} = None",
            f'"""The model ``_reuse_{name}`` returned last."""',
            "",
            "",
            f"cdef object _reuse_{name}({signature}",
            f"{' ' * (len(name) + 20)}Py_ssize_t* stop):",
            f'    """``_read_{name}`` into the model it returned last, when dead."""',
            f"    global _last_{name}, {intos}",
            f"    _into_{cls} = spare(<PyObject*>_last_{name}, _{cls})",
            "    try:",
            f"        model = _read_{name}(buf, pos, end, lim, stop)",
            "    finally:  # a declined read leaves no dead model to the next one",
        ]
        lines += [f"        _into_{c} = NULL" for c in classes]
        lines += [
            "    if model is not None:",
            f"        _last_{name} = model",
            "    return model",
        ]
        return "\n".join(lines)

    def spare_slot(self, step: Nested) -> None:
        """Before a record field of a reusing entry's model: the dead model in that slot,
        for the field's Build."""
        classes = self.reuse.get(self.plan.name)
        if not classes or step.record not in self.lowering.plans:
            return
        build = self.plan.steps[-1]
        field = next((name for name, var in build.fields if var == step.var), None)
        inner = self.lowering.plans[step.record].class_name
        if field is None or inner not in classes:
            return
        outer = self.plan.class_name
        self.intos.add(f"_into_{inner}")
        self.w.line(f"_into_{inner} = spare_slot(_into_{outer}, _{outer}_{field}, _{inner})")

    def fixed_list(self, step: Repeat) -> None:
        """The list of a repeat of a literal count: the dead model's when the entry
        reuses it and nothing else holds that list, else a new one of that size."""
        classes = [c for name, cs in self.reuse.items() for c in cs]
        build = self.plan.steps[-1]
        field = next((name for name, var in build.fields if var == step.var), None)
        cls = self.plan.class_name
        if field is not None and cls in classes:
            self.spare_lists.add(step.var)
            spare = f"{step.var}_spare"
            self.declare(spare, "PyObject*")
            self.w.line(f"{spare} = spare_list(_into_{cls}, _{cls}_{field}, {step.count})")
            self.w.line(
                f"{step.var} = PyList_New({step.count}) if {spare} == NULL else <list>{spare}"
            )
        else:
            self.w.line(f"{step.var} = PyList_New({step.count})")


class FusedEmitter(FusedSteps, CompiledEmitter):
    """The reader of one record with ``map:``, fused with its source's reading
    (:mod:`generator.emit.compiled_fused`)."""
