"""The compiled reader of a record with ``map:``, fused: the source record's plan read as its
compiled reader reads it, each element mapped as it is read, and no model of the source.

:class:`FusedSteps` (the base of ``generator.emit.compiled.FusedEmitter``, a
``CompiledEmitter``) renders the source record's plan (and the plan of the groups' record)
once more, as :mod:`generator.emit.compiled_arrow` renders plans for Arrow, with these
differences:

- the chunks the ``map:`` reads (the hoisted ``FIELD_CHUNK``s, a group's chunks) are read
  into C arrays (``MapRun``, runtime/_compiled/mapped.pxd), not lists, unless a spec
  expression of the plan names them;
- where the plan builds an element (``each``), the element's class is chosen, its rules
  checked and its model made, as :class:`generator.emit.map_plan.ClassCase` says, from the
  arrays and the element's fields read just before;
- a group is read by ``_group_<group>_In_<record>`` (a record name has no capital, so no
  other name is it): its chunks into arrays, then one model per
  column, the names looked up and the values decoded straight from the bytes (``map_lookup``
  and ``map_value``); its ``by`` member chooses the field it goes into, once each;
- where the plan builds any other record's model (a header) nothing is built, and the
  source record's own model is the mapped record's.

It reads exactly the bytes the source's compiled reader reads, declining where it declines,
and declines wherever the Python mapping fails or gives up (faults in any order: every one
declines). The model registry, kind tables and ``bind`` are :mod:`compiled_mapping`'s.
"""

from __future__ import annotations

import ast
import re

from generator.emit.compiled_support import NotCompiled
from generator.emit.plan import Build, Chunk, FieldSteps, Nested, Repeat, Valid, walk_steps
from generator.spec import pytext

MEMBER_RUNS_PRELUDE = (
    "from runtime._compiled.mapped cimport map_member_at, map_member_extreme, map_member_in\n"
)

_EXPRESSION_PARTS = ("expression", "count", "stop", "length")
"""The parts of a step that are spec expressions (or name the variables they read)."""


def _field(steps, name: str) -> FieldSteps:
    for step in steps:
        if isinstance(step, FieldSteps) and step.name == name:
            return step
    raise NotCompiled(f"no field {name} read where the map: reads it")


def _first(steps, kind):
    for step in walk_steps(steps):
        if isinstance(step, kind):
            return step
    raise NotCompiled(f"no {kind.__name__} where the map: reads one")


def _named(plan) -> set[str]:
    """The variables a spec expression of ``plan`` names."""
    text = " ".join(
        str(getattr(step, part))
        for step in walk_steps(plan.steps)
        for part in _EXPRESSION_PARTS
        if isinstance(getattr(step, part, None), str)
    )
    return set(re.findall(r"\w+", text))


def _built(steps, var: str) -> dict[str, str]:
    """Field -> variable of the model ``var`` built among ``steps``."""
    for step in walk_steps(steps):
        if isinstance(step, Build) and step.var == var:
            return dict(step.fields)
    raise NotCompiled(f"no model {var} built")


def list_emptiness(step, items: dict) -> str | None:
    """The C test of a ``<list> != []`` (or ``==``) check of a list the reader read
    (``items``: its name -> its item's name), by the count of items read (the items are in
    builders or runs, not in a list), or None for any other step.

    >>> list_emptiness(Valid("rows != []"), {"rows": "row"})
    'rows is None or row_n != 0'
    """
    emptiness = re.fullmatch(r"(\w+) (!=|==) \[\]", getattr(step, "expression", ""))
    if not (isinstance(step, Valid) and emptiness and emptiness[1] in items):
        return None
    var, op = emptiness.groups()
    n = f"{items[var]}_n"
    return f"{var} is None or {n} != 0" if op == "!=" else f"{var} is not None and {n} == 0"


class FusedSteps:
    """``_read_<record>`` (the source read and mapped) and ``_group_<group>_In_<record>`` of one
    ``map:`` (``record``: the :class:`compiled_mapping.MappedRecord` whose model
    registry, kind tables and expressions it uses). A base of
    ``generator.emit.compiled.FusedEmitter``, before ``CompiledEmitter``, whose steps it
    changes where the map: reads."""

    def takes_longer_varints(self) -> bool:
        """A mapped record that keeps the bytes read itself (``kept_as``) takes any form."""
        return self.record.kept is not None or super().takes_longer_varints()

    def __init__(self, spec, lowering, record):
        self.record, plan = record, record.plan
        self.source_plan = lowering.plans.get(plan.source)
        if self.source_plan is None:
            raise NotCompiled(f"its source {plan.source} has no plan")
        source = self.source_plan
        self.named = _named(source)
        top = _built(source.steps, "model")
        self.dictionaries = {}
        """A ``ref:`` dictionary -> the variable of its names (a list of str)."""
        fields = [s.name for s in source.steps if isinstance(s, FieldSteps)]
        for case in plan.switch.cases:
            for lookup in record.lookups(case):
                if fields.index(lookup.dictionary) > fields.index(plan.each):
                    raise NotCompiled(f"{lookup.dictionary} is read after {plan.each}")
                self.dictionaries[lookup.dictionary] = top[lookup.dictionary]
        self.hoisted: dict[str, Chunk] = {}
        """A hoisted ``FIELD_CHUNK`` -> the chunk that reads it."""
        for local, (field, chunk) in plan.hoisted:
            inner = _first(_field(source.steps, field).steps, Nested)
            if inner.steps is None:
                raise NotCompiled(f"{field} is read by a call, not where the map: reads it")
            self.hoisted[local] = _first(_field(inner.steps, chunk).steps, Chunk)
        self.runs = {c.var for c in self.hoisted.values() if c.var not in self.named}
        """Chunks read into a ``MapRun``, not a list."""
        self.member_runs = {c.var for c in self.hoisted.values() if c.enum} & self.named
        """Chunks of enum members the spec's expressions read, read into a ``MapRun`` too
        while C evaluates every expression over them (:mod:`compiled_lists`: no member
        made; else read into their list as the plan reads it)."""
        self.each_var = top[plan.each]
        each = _first(_field(source.steps, plan.each).steps, Repeat)
        element = _first(each.steps, Nested)
        if each.var != self.each_var or element.steps is None:
            raise NotCompiled(f"{plan.each}: its elements are not read where it is")
        self.each, self.element = each, element
        self.element_fields = _built(element.steps, element.var)
        built = {s.var for s in walk_steps(source.steps) if isinstance(s, Build)}
        if built & self.named:
            raise NotCompiled("a spec expression names a record the map: does not build")
        self.caches: list[str] = []
        """Module globals of the names kept from one message to the next (:meth:`kept_names`)."""
        self.groups = self.group_plan = None
        groups = [case.groups for case in plan.switch.cases if case.groups is not None]
        if groups:
            self.groups = groups[0]
            if any(g != self.groups for g in groups):
                raise NotCompiled("classes whose groups differ")
            self.groups_var = self.element_fields.get(self.groups.each)
            self.group_plan = lowering.plans.get(self.groups.record)
            if self.group_plan is None or self.groups_var is None:
                raise NotCompiled(f"{self.groups.each}: no plan of its groups")
            self.group_fields = _built(self.group_plan.steps, "model")
            named = _named(self.group_plan)
            for _, chunk in self.groups.column.fields:
                var = self.group_fields.get(chunk)
                if var is None or var in named:
                    raise NotCompiled(f"{chunk}: no chunk of its own")
                self.runs.add(var)
        super().__init__(spec, lowering)

    def map_records(self) -> None:
        """None here: this renders one."""

    @property
    def function_names(self) -> dict[str, str]:
        plan = self.record.plan
        names = {plan.source: f"_read_{plan.record}"}
        if self.groups is not None:
            names[self.groups.record] = f"_group_{self.groups.record}_In_{plan.record}"
        return names

    # -- a record ------------------------------------------------------------------------

    def record_function(self, plan) -> str:
        if plan.name not in self.function_names:
            raise NotCompiled("not read by the map:")
        self.mode = "source" if plan.name == self.record.plan.source else "group"
        self.c_only: set[str] = set()
        """Lists not kept (no spec expression reads them in Python, no model holds them
        here): regions of integer lists, read into C only, and the groups' list (their
        models go where the map: puts them as they are read)."""
        self.python_named: set[str] = set()
        self.list_items: dict[str, str] = {}
        """A repeat's list -> its item (``<item>_n`` counts the items)."""
        self.kept_list = False
        """Whether the mapped models' list is made of the kept class (:meth:`new_list`)."""
        text = super().record_function(plan)
        if self.mode == "source" and self.record.kept and not self.kept_list:
            raise NotCompiled(f"{plan.name}: its list is not made where the bytes are kept")
        while True:  # once more, those lists left out (the member runs Python reads, in)
            lists = set(self.int_tables)
            if self.mode == "source" and self.groups is not None:
                lists.add(self.groups_var)
            c_only, in_python = lists - self.python_named, self.member_runs & self.python_named
            if c_only == self.c_only and not in_python:
                return text
            self.c_only, self.member_runs = c_only, self.member_runs - in_python
            text = super().record_function(plan)

    def repeat(self, step: Repeat) -> None:
        self.list_items[step.var] = step.item
        super().repeat(step)

    def fixed(self, step, at: str, end: str) -> None:
        test = list_emptiness(step, self.list_items)
        if test is None:
            super().fixed(step, at, end)
        else:
            self.decline_if(f"not ({test})")

    def python(self, expression: str) -> str:
        self.python_named.update(re.findall(r"\w+", expression))
        return super().python(expression)

    def c_only_chunk(self, step: Chunk) -> bool:
        tables = {self.int_tables[r] for r in self.c_only if r in self.int_tables}
        return self.table_chunks.get(step.var) in tables

    def new_list(self, step: Repeat) -> str:
        if step.var in self.c_only:
            return "True"
        kept = self.record.kept
        if kept and self.mode == "source" and step.var == self.each_var:
            # the kept class, its wire_form unset until the entry's _kept_<record> sets it
            self.kept_list = True
            return f"<list>wirespec_alloc({kept})"
        return super().new_list(step)

    def item(self, step: Repeat) -> None:
        if step.var not in self.c_only:
            super().item(step)
            return
        self.item_index(step)
        if step.steps is None:
            self.calls.add(step.record)
            self.w.line(f"{step.item} = {self.call(step.record, step.end, step.var, step.depth)}")
            self.decline_if(f"{step.item} is None")
        else:
            self.branch(step.steps, step.end)
        self.w.line(f"{step.item}_n += 1")

    def function_head(self, plan) -> list[str]:
        if plan.checks_depth:
            raise NotCompiled("a recursive record")
        name = self.function_names[plan.name]
        signature = "const unsigned char* buf, Py_ssize_t pos, Py_ssize_t end, _Limits* lim,"
        where = pytext.comment(f"{self.spec.source.display}:{self.record.plan.line}")
        if self.mode == "source":
            return [
                f"cdef object {name}({signature}",
                f"{' ' * (len(name) + 13)}Py_ssize_t* stop):",
                f'    """``{self.record.plan.record}``: a {plan.name} read, each element mapped as it is',
                f'    read ({where}); None where the Python readers or mapping would not take it."""',
            ]  # fmt: skip
        return [
            f"cdef object {name}({signature}",
            f"{' ' * (len(name) + 13)}Py_ssize_t* stop, list names, long* by):",
            f'    """The models of a {plan.name} ({where}): a list, its ``{self.groups.by}`` in',
            '    ``by``; None where the Python readers or mapping would not take it."""',
        ]

    def untrack_list(self, step: Repeat) -> None:
        if step.var in self.c_only:
            return
        if step.var == self.each_var:  # the mapped models: untracked where they all are
            self.w.line(f"if all_atomic({step.var}):")
            with self.w.indent():
                self.w.line(f"untrack({step.var})")
        else:
            super().untrack_list(step)

    # -- chunks into C arrays ------------------------------------------------------------

    def chunk(self, step: Chunk) -> None:
        if self.c_only_chunk(step):  # a region's list: its numbers in C only
            self.chunk_count(step)
            self.w.line(f"{step.var}_i = 0")
            self.read_elements(step, f"int_tables_add(&{self.table_chunks[step.var]}, {{}})")
            self.table_close(step)
            return
        if self.mode == "source" and step.payload and step.var in self.dictionaries.values():
            self.kept_names(step)
            return
        if step.var in self.member_runs and step.var in self.loose:  # may be unread
            self.member_runs.discard(step.var)
        if step.var in self.member_runs:
            self.preludes.setdefault(MEMBER_RUNS_PRELUDE)
            self.member_lists.add(step.var)
        elif step.var not in self.runs:
            super().chunk(step)
            return
        var, n, k = step.var, f"{step.var}_i", f"{step.var}_k"
        self.chunk_count(step)
        self.declare(f"{var}_run", "MapRun")
        self.w.line(f"{var}_memory = map_run(&{var}_run, {k})")
        self.w.line(f"{n} = 0")
        if step.payload:  # the lengths, checked and kept; the payloads stay where they are
            self.declare(f"{var}_len", "int64_t")
            self.w.line(f"while {n} < {k}:")
            with self.w.indent():
                self.chunk_length(step)
                if not step.zigzag:
                    self.w.line(f"{var}_len = <int64_t>{var}_u")
                self.w.line(f"{var}_run.values[{n}] = <uint64_t>{var}_len")
                self.w.line(f"{n} += 1")
            self.declare(f"{var}_data", "Py_ssize_t")
            self.w.line(f"{var}_data = pos")
            self.w.line(f"{n} = 0")
            self.w.line(f"while {n} < {k}:")
            with self.w.indent():
                self.w.line(f"{var}_len = <int64_t>{var}_run.values[{n}]")
                self.w.line(f"if {var}_len > 0:")
                with self.w.indent():
                    self.decline_if(f"{var}_len > {step.end} - pos")
                    self.w.line(f"pos += {var}_len")
                self.w.line(f"{n} += 1")
            return
        self.read_elements(step, f"{var}_run.values[{n}] = <uint64_t>{{}}")

    def kept_names(self, step: Chunk) -> None:
        """A dictionary's names, read as the plan reads them, unless they are the bytes read
        last time (messages of one table repeat them): then the names read then, which no
        model holds (the look-ups give the str, shared: immutable and equal). The bytes,
        the count and the longest name are kept, so each limits are checked again."""
        # each map: record of a frame keeps its own; _last_<record> is a record's model kept
        var, k = step.var, f"{step.var}_k"
        last = f"_last_{var}_In_{self.record.plan.record}"
        self.caches = [
            f"cdef bytes {last}_Raw = None",
            f"cdef list {last}",
            f"cdef Py_ssize_t {last}_Count, {last}_Longest",
        ]
        self.intos.update([f"{last}_Raw", last, f"{last}_Count", f"{last}_Longest"])  # set here
        self.chunk_count(step)
        self.declare(f"{var}_start", "Py_ssize_t")
        self.declare(f"{var}_longest", "Py_ssize_t")
        self.w.line(f"{var}_start = pos")
        self.w.line(
            f"if ({last}_Raw is not None and {k} == {last}_Count and {last}_Longest <= lim.max_string"
            f"\n            and PyBytes_GET_SIZE({last}_Raw) <= {step.end} - pos"
            f"\n            and memcmp(PyBytes_AS_STRING({last}_Raw), buf + pos, PyBytes_GET_SIZE({last}_Raw)) == 0):"
        )  # fmt: skip
        with self.w.indent():
            self.w.line(f"{var} = {last}")
            self.w.line(f"pos += PyBytes_GET_SIZE({last}_Raw)")
        self.w.line("else:")
        with self.w.indent():
            self.chunk_body(step)
            self.w.line(f"{var}_longest = 0")
            self.w.line(f"{var}_at = {var}_start")
            self.w.line(f"for {var}_i in range({k}):")
            with self.w.indent():
                self.w.line(f"_uvarint(buf, &{var}_at, {step.end}, &{var}_u)")
                self.w.line(f"{var}_longest = max({var}_longest, <Py_ssize_t>{var}_u)")
            self.w.line(
                f"{last}_Raw = PyBytes_FromStringAndSize(<const char*>buf + {var}_start, pos - {var}_start)"
            )
            self.w.line(f"{last}, {last}_Count, {last}_Longest = {var}, {k}, {var}_longest")

    def read_elements(self, step: Chunk, store: str) -> None:
        """The loop over a chunk's varints (summed, checked members of their enum), each
        value stored by ``store`` (a line, ``{}`` the value)."""
        var, n, k = step.var, f"{step.var}_i", f"{step.var}_k"
        if step.delta:
            self.declare(f"{var}_acc", "int64_t" if step.zigzag else "uint64_t")
            self.w.line(f"{var}_acc = 0")
        self.w.line(f"while {n} < {k}:")
        with self.w.indent():
            value = self.chunk_varint(step)
            if step.enum:
                table = f"_{step.enum.upper()}_BY_BYTE"
                self.enums.add(step.enum)
                self.decline_if(f"<uint64_t>{value} > 255 or {table}[<uint8_t>{value}] == NULL")
            self.w.line(store.format(value))
            self.w.line(f"{n} += 1")

    def members_read(self, var: str) -> tuple[str, str, str]:
        if var in self.member_runs:
            return "map_member", f"{var}_run.values, {var}_k", f"{var}_k"
        return super().members_read(var)

    def run_item(self, chunk: Chunk, index: str) -> str:
        """Element ``index`` of a chunk read into a run, as its C number."""
        item = f"{chunk.var}_run.values[{index}]"
        return f"<int64_t>{item}" if chunk.zigzag else item

    # -- elements and groups, mapped as they are read ------------------------------------

    def nested(self, step: Nested) -> None:
        source = self.mode == "source" and self.groups is not None
        if source and step.var == self.element.var:
            self.declare("seen", "unsigned long")
            self.w.line("seen = 0  # the groups read into the element's fields")
        super().nested(step)
        if source and step.record == self.groups.record and step.steps is None:
            self.group_into(step.var)

    def call(self, record: str, end: str, var: str, depth: int = 0) -> str:
        if self.mode == "source" and self.groups is not None and record == self.groups.record:
            names = self.dictionaries[self.groups.names[1].dictionary]
            self.declare("group_by", "long = 0")
            return f"{self.function_names[record]}(buf, pos, {end}, lim, &pos, {names}, &group_by)"
        return super().call(record, end, var, depth)

    def group_into(self, var: str) -> None:
        """The models of a group just read (``var``) into the field its member chooses,
        once per member."""
        for bit, (value, field) in enumerate(self.groups.into):
            self.w.line(f"{'if' if bit == 0 else 'elif'} group_by == {int(value)}:")
            with self.w.indent():
                self.decline_if(f"seen & {1 << bit}")  # its second group of one kind
                self.w.line(f"seen |= {1 << bit}")
                self.declare(f"group_{field}", "object")
                self.w.line(f"group_{field} = {var}")
        self.w.line("else:")
        with self.w.indent():
            self.w.line("return None")

    def build(self, step: Build) -> None:
        if self.mode == "group":
            if step.var == "model":
                self.group_models()
            return
        if step.var == "model":
            self.mapped_model()
        elif step.var == self.element.var:
            self.element_model(step.var)
        # any other record (a header): its chunks are in runs, its model not needed

    def mapped_model(self) -> None:
        """The mapped record's model: its one field, the elements' models."""
        plan, events = self.record.plan, self.each_var
        cls = f"_{plan.class_name}"
        self.w.line(f"model = wirespec_alloc_untracked({cls})")
        self.w.line(f"map_set(model, {cls}_{plan.field}, {events})")
        self.w.line(f"if not atomic({events}):")
        with self.w.indent():
            self.w.line("keep_tracked(model)")

    def element_model(self, var: str) -> None:
        """``var``: the model of element ``<item>_n``, of the class its member chooses."""
        w, switch = self.w, self.record.plan.switch
        index = f"{self.each.item}_n"
        self.declare("kind", "long")
        w.line(f"kind = {self.hoisted_item(switch.chunk, index)}")
        for k, case in enumerate(switch.cases):
            w.line(
                f"{'if' if k == 0 else 'elif'} kind == {int(case.value)}:  # {pytext.comment(case.member)}"
            )
            with w.indent():
                self.case(case, index)
        w.line("else:")
        with w.indent():
            w.line("return None")
        w.line(f"{var} = model")

    def hoisted_item(self, local: str, index: str) -> str:
        chunk = self.hoisted[local]
        if chunk.var in self.runs | self.member_runs:
            return self.run_item(chunk, index)
        return f"{chunk.var}[{index}]"

    def case(self, case, index: str) -> None:
        w = self.w
        for rule in case.rules:
            self.decline_if(f"not ({self.expression(rule, index)})")
        later = [field for _, field in case.groups.into] if case.groups else []
        cls = self.record.model(case.make, later)
        values = []
        for field, how in case.make.fields:
            var = f"v_{field}"
            if isinstance(how, tuple):
                self.lookup(var, self.hoisted_item(how[0], index), how[1])
            else:
                self.declare(var, "object")
                w.line(f"{var} = {self.expression(how, index)}")
            values.append((field, var))
        self.make("model", cls, values)
        tests = [f"atomic({var})" for (field, how), (_, var) in zip(case.make.fields, values)
                 if not isinstance(how, tuple) and "body" in how]  # fmt: skip
        if tests:  # the element's fields: atomic or not as read
            w.line(f"if not ({' and '.join(tests)}):")
            with w.indent():
                w.line("keep_tracked(model)")
        if case.groups is not None:
            self.decline_if(f"{self.groups_var} is None")  # the mapping iterates them
            for bit, (_, field) in enumerate(case.groups.into):
                w.line(f"if seen & {1 << bit}:")
                with w.indent():
                    w.line(f"map_put(model, {cls}_{field}, group_{field})")

    def expression(self, python: str, index: str) -> str:
        """A rule's or field's expression (the mapping's: its chunks ``FIELD_CHUNK[i]``,
        ``body.FIELD``) over the C numbers and the element's fields read here."""
        tree = self.record.checked(python)
        parts = {}

        class Here(ast.NodeTransformer):
            def visit_Subscript(inner, node):
                if isinstance(node.value, ast.Name) and node.value.id in self.hoisted:
                    name = f"_part{len(parts)}"
                    parts[name] = f"({self.hoisted_item(node.value.id, index)})"
                    return ast.Name(name)
                return inner.generic_visit(node)

            def visit_Attribute(inner, node):
                if isinstance(node.value, ast.Name) and node.value.id == "body":
                    var = self.element_fields.get(node.attr)
                    if var is None:
                        raise NotCompiled(f"the map: reads body.{node.attr}, not read")
                    return ast.Name(var)
                return inner.generic_visit(node)

        text = ast.unparse(Here().visit(tree))
        for name, c in parts.items():
            text = re.sub(rf"\b{name}\b", c, text)
        return text

    def lookup(self, var: str, id_: str, lookup) -> None:
        self.declare(f"{var}_p", "PyObject*")
        null = lookup.null
        self.w.line(
            f"{var}_p = map_lookup({self.dictionaries[lookup.dictionary]}, {id_}, "
            f"{null is not None}, {0 if null is None else int(null)}, {lookup.empty_refused})"
        )
        self.decline_if(f"{var}_p == NULL")
        self.w.line(f"{var} = <object>{var}_p")

    def make(self, var: str, cls: str, values: list[tuple[str, str]]) -> None:
        """``var``: a new model of ``cls`` (untracked), its defaults (where the mapping
        leaves any) and ``values`` (field, expression) written at their offsets."""
        self.w.line(f"{var} = wirespec_alloc_untracked({cls})")
        self.w.line(f"if {cls}_Defaults.count:")
        with self.w.indent():
            self.w.line(f"map_put_defaults({var}, &{cls}_Defaults)")
        for field, value in values:  # (slots the defaults leave empty)
            self.w.line(f"map_set({var}, {cls}_{field}, {value})")

    def group_models(self) -> None:
        """A group's models, one per element of its chunks (read into runs), into ``model``
        (the list); its ``by`` member into ``by``."""
        w, groups, fields = self.w, self.groups, self.group_fields
        by = fields[groups.by]
        step = self.numbers.get(by)
        w.line(f"by[0] = {by}_c" if step is not None and step.enum else f"by[0] = {by}")
        chunks = {chunk: self.chunk_of(fields[chunk]) for _, chunk in groups.column.fields}
        first, *others = chunks.values()
        self.declare("count", "Py_ssize_t")
        self.declare("j", "Py_ssize_t")
        w.line(f"count = {first.var}_k")
        for chunk in others:
            self.decline_if(f"{chunk.var}_k != count")
        names_chunk, lookup = groups.names
        kinds = groups.values
        values = chunks[kinds.values]
        table = self.record.table(kinds)
        self.declare("at", "Py_ssize_t")
        self.declare("gave_up", "bint")
        self.declare("column_name_p", "PyObject*")
        cls = self.record.model(groups.column, [])
        w.line(f"at = {values.var}_data")
        w.line("model = PyList_New(count)")
        w.line("for j in range(count):")
        with w.indent():
            out = []
            for field, chunk in groups.column.fields:
                item = self.run_item(chunks[chunk], "j")
                if chunk == names_chunk:
                    null = lookup.null
                    w.line(f"column_name_p = map_lookup(names, {item}, {null is not None}, "
                           f"{0 if null is None else int(null)}, {lookup.empty_refused})")  # fmt: skip
                    self.decline_if("column_name_p == NULL")
                    out.append((field, "<object>column_name_p"))
                elif chunk == kinds.values:
                    codes = self.run_item(chunks[kinds.codes], "j")
                    flags = self.run_item(chunks[kinds.flags], "j")
                    length = self.run_item(values, "j")
                    w.line(f"value = map_value({table}, {codes}, {flags}, buf + at, {length}, "
                           f"{table}_unsigned, {table}_big, &gave_up)")  # fmt: skip
                    self.decline_if("gave_up")
                    w.line(f"if {length} > 0:")
                    with w.indent():
                        w.line(f"at += <Py_ssize_t>{length}")
                    out.append((field, "value"))
                else:
                    chunk_step = chunks[chunk]
                    number = f"_int64({item})"
                    if not chunk_step.zigzag:  # the small ones from a table, as the quick tier's
                        number = f"_int(<int64_t>{item}) if {item} >> 63 == 0 else PyLong_FromUnsignedLongLong({item})"
                    out.append((field, number))
            self.make("column", cls, out)
            w.line("map_list_set(model, j, column)")
        # a column holds a name, numbers and a value of a kind: atomic, as its list
        w.line("untrack(model)")

    def chunk_of(self, var: str) -> Chunk:
        for step in walk_steps(self.group_plan.steps):
            if isinstance(step, Chunk) and step.var == var:
                return step
        raise NotCompiled(f"{var}: no chunk")
