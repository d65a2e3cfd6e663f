"""The compiled tier's way back of a ``map:`` with ``batch:`` (:mod:`generator.spec.unmapping`),
fused: the quick path of :mod:`generator.emit.unmapping`'s three functions in Cython, each
model checked straight into the C arrays of its batch and each message written from them
(:mod:`generator.emit.compiled_packing`), with no model of the map's source record.

For a record ``R`` the compiled module gets:

- ``_back_R_check(model, b)``: one model checked as ``_unmap_R``'s quick path checks it and
  put into the batch ``b``: its header elements in a row (names held), its body's own
  fields' bytes and its groups' values in the scratch buffer, its columns; its estimate,
  or -1 where the quick path gives up (a model of no class or a subclass, a field out of
  range or of another type, a value ``ValueKinds.quick_encode`` is unsure of); the classes
  are told by ``type(model) is``;
- ``_back_R_pack(b, start, stop)``: the message of rows ``start .. stop - 1``
  (:class:`generator.emit.compiled_packing.Layout`);
- ``batches_R(models, <limits>, kinds, terms)`` and ``message_R(models, kinds, terms)``:
  ``_batch_R``'s messages and one message of all models, or None (declined: the Python
  way back writes them or raises the exact ``EncodeError``).

``bind_way_backs`` hands them to the generated module (``COMPILED_WAY_BACKS``), which gives
them to its runtime primitive.
"""

from __future__ import annotations

import re

from generator.emit.compiled_packing import Layout
from generator.emit.compiled_support import NotCompiled
from generator.emit.unmapping import way_backs
from generator.spec.model import Record
from generator.spec.unmapping import I64, U64, WayBack, WriteCheck, WriteClass, WriteGroups

_TEXT_SIZE = re.compile(
    r"""\(len\((\w+)\.encode\(['"]utf-8['"], ['"]surrogateescape['"]\)\) if \1 else 0\)"""
)
"""``sizeof`` of a name as :mod:`generator.spec.unmapping` writes it: ``text_size`` in C."""


def _in_c(expression: str) -> str:
    """An estimate expression with its names' sizes measured in C (``unmapped.pxd``)."""
    return _TEXT_SIZE.sub(r"text_size(\1)", expression)


def _gives_up(check: WriteCheck, local: str) -> list[str]:
    """The lines that give up (return -1) where ``check`` fails on ``local``."""
    if check.kind in ("uint64", "int64", "uvarint"):
        low, high = (0, U64) if check.kind != "int64" else (-I64, I64 - 1)
        return [
            f"if type({local}) is not int or not {low} <= {local} <= {high}:",
            "    return -1",
        ]
    test = f"type({local}) is not str"
    if check.nullable:
        test = f"{local} is not None and {test}"
    return [f"if {test}:", "    return -1"]


_HEAD = """\
# -- the compiled way back of map:, fused (generator/emit/compiled_unmapping.py)

from cpython.object cimport PyObject
from libc.string cimport memset
from runtime._compiled.chunk_writers cimport zigzag
from runtime._compiled.mapped cimport map_kinds, map_kinds_ok
from runtime._compiled.out cimport put, put_byte
from runtime._compiled.unmapped cimport (
    held, intern_name, let_go, put_text_strict, put_unmapped_value, field_at, room,
    slot_or_none, text_bytes, text_size,
)"""
"""What the way backs cimport (after the compiled writers' section)."""


def _read(model: str, holder: str, field: str) -> str:
    """``model.field`` of a model of exactly ``holder``'s class, its slot read in place."""
    return f'field_at({model}, {holder}_{field}, "{field}")'


def _calls_runtime(back: WayBack) -> bool:
    """Whether an estimate calls the runtime (``rt_unmap.wire_size``): not compiled here."""
    return any("rt_" in c.estimate for c in back.classes) or "rt_" in back.column_estimate


class CompiledWayBacks:
    """The compiled way backs of one spec (see the module docstring); ``writers``: its
    :class:`generator.emit.compiled_writers.CompiledWriters`."""

    def __init__(self, spec, writers):
        self.spec = spec
        self.renderers: list[_Renderer] = []
        for record in way_backs(spec.records):
            if record.mapping.source not in writers.entries or _calls_runtime(
                record.mapping.way_back
            ):
                continue
            try:
                self.renderers.append(_Renderer(self, record))
            except NotCompiled:
                continue
        self.names = [r.name for r in self.renderers]

    def of_primitive(self, ref) -> str | None:
        """The record whose compiled way back a runtime primitive takes (its ``unmapping``
        argument), or None."""
        argument = ref.args.get("unmapping")
        return next((n for n in self.names if argument == f"UNMAPPINGS[{n!r}]"), None)

    def where(self, line) -> str:
        return f"{self.spec.source.display}:{line}"

    def section(self) -> str:
        parts = [_HEAD]
        for renderer in self.renderers:
            parts += renderer.functions()
        bind = [
            "def bind_way_backs(namespace):",
            '    """The compiled way backs by record, given the generated module\'s namespace."""',
            "    out = {}",
        ]
        for name in self.names:
            bind += [
                f"    if _back_bind_{name}(namespace):",
                f'        out["{name}"] = (batches_{name}, message_{name})',
            ]
        bind.append("    return out")
        parts.append("\n".join(bind))
        return "\n\n\n".join(parts)


class _Renderer:
    def __init__(self, owner: CompiledWayBacks, record: Record):
        self.owner, self.record = owner, record
        self.back: WayBack = record.mapping.way_back
        self.m = record.mapping
        self.name = record.name
        self.prefix = f"_back_{record.name}"
        self.layout = Layout(owner.spec, record, self.prefix)
        self.packed = self.layout.pack()  # raises NotCompiled for a source of another shape

    def functions(self) -> list[str]:
        return [
            self.layout.structs(),
            self.globals_(),
            self.check(),
            self.packed,
            self.batches(),
            self.message(),
            self.bind(),
        ]

    def classes(self) -> list[tuple[str, str]]:
        """(global, ``module.Model``) of each class's model, then the column model's."""
        out = [
            (f"{self.prefix}_Class{n}", f"{c.module}.{c.model}")
            for n, c in enumerate(self.back.classes)
        ]
        groups = self.layout.groups
        if groups is not None:
            out.append((f"{self.prefix}_Column", f"{groups.module}.{groups.model}"))
        return out

    def globals_(self) -> str:
        p = self.prefix
        lines = [
            "# Set by the bind: the models' classes, the value kinds' table, the interned refs."
        ]
        lines += [f"cdef object {name}  # {model}" for name, model in self.classes()]
        lines += [f"cdef Py_ssize_t {holder}_{field}" for holder, field in self.fields_read()]
        interned = tuple(self.layout.interned())
        lines += [
            f"cdef signed char {p}_Kinds[256]",
            f"cdef uint64_t {p}_Unsigned",
            f"cdef bint {p}_Big",
            f"cdef object {p}_Bound_kinds = None",
            f"cdef object {p}_Bound_terms = None",
            f"cdef tuple {p}_Interned = {interned!r}",
            '"""The ``interned:`` refs (path, null, empty refused) the names are interned by."""',
        ]
        return "\n".join(lines)

    def fields_read(self) -> list[tuple[str, str]]:
        """(class global, field) of each attribute the way back reads: its slot's offset
        is bound beside the class (``{class global}_{field}``, -1: none, getattr reads it)."""
        out = []
        for n, cls in enumerate(self.back.classes):
            fields = [f.name for f in cls.fields]
            if cls.groups is not None:
                fields += [field for _, field in cls.groups.into]
            out += [(f"{self.prefix}_Class{n}", field) for field in dict.fromkeys(fields)]
        if self.layout.groups is not None:
            out += [(f"{self.prefix}_Column", field) for field in self.layout.groups.chunks]
        return out

    # -- one model ---------------------------------------------------------------------

    def check(self) -> str:
        p = self.prefix
        lines = [
            f"cdef Py_ssize_t {p}_Check(object model, {p}_Batch* b) except -2:",
            f'    """{self.owner.where(self.m.line)}: one model checked as _unmap_{self.name}\'s quick path',
            "    checks it and put into ``b`` (a row, its body's bytes, its groups' columns): its",
            '    estimate, or -1 where the quick path gives up."""',
            "    cdef type cls = type(model)",
            "    cdef Py_ssize_t estimate",
            f"    cdef {p}_Row* row",
        ]
        if self.layout.groups is not None:
            lines += [
                "    cdef int64_t value_size",
                f"    cdef {p}_Group* group",
                f"    cdef {p}_Cell* cell",
            ]
        for n, cls in enumerate(self.back.classes):
            lines.append(f"    {'if' if n == 0 else 'elif'} cls is {p}_Class{n}:  # {cls.member}")
            lines += ["        " + line for line in self.write_class(cls, f"{p}_Class{n}")]
        lines.append("    return -1")
        return "\n".join(lines)

    def write_class(self, cls: WriteClass, holder: str) -> list[str]:
        """``holder``: the global of the class (its fields' offsets beside it)."""
        p, lines = self.prefix, []
        for field in cls.fields:
            lines.append(f"{field.name} = {_read('model', holder, field.name)}")
            if field.value is None:
                lines += _gives_up(field.check, field.name)
                continue
            written = f"{field.name}_written"
            lines.append(f"{written} = {field.value}")
            lines += _gives_up(field.check, written)
            tests = [*(f"not ({rule})" for rule in field.rules), f"({field.read}) != {field.name}"]
            lines += [f"if {' or '.join(tests)}:", "    return -1"]
        lines += [
            f"estimate = {_in_c(cls.estimate)}",
            f"row = <{p}_Row*>room(<void**>&b.rows, &b.rows_cap, b.n_rows, sizeof({p}_Row))",
            (
                "row.first_group, row.groups = (b.n_groups, 0)"
                if self.layout.groups
                else "row.groups = 0"
            ),
        ]
        if cls.groups is not None:
            lines += self.write_groups(cls.groups, holder)
        lines.append("row.body_at = b.scratch.size")
        for field in self.layout.body_fields:  # in the element record's order
            if cls.body[field] != "None":
                lines += self.layout.put_body_field(field, cls.body[field])
        lines.append("row.body_size = b.scratch.size - row.body_at")
        refs = self.layout.refs
        for chunk, value in zip(self.back.header, cls.header):
            lines.append(
                f"row.{chunk} = held({value})" if chunk in refs else f"row.{chunk} = {value}"
            )
        lines += ["b.n_rows += 1", "return estimate"]
        return lines

    def write_groups(self, gr: WriteGroups, holder: str) -> list[str]:
        p = self.prefix
        into = ", ".join(f"({value}, {_read('model', holder, field)})" for value, field in gr.into)
        local = {field: f"column_{field}" for field in gr.chunks}
        lines = [
            f"for by, columns in ({into}):",
            "    if columns is None:",
            "        continue",
            "    if type(columns) is not list:",
            "        return -1",
            f"    group = <{p}_Group*>room(<void**>&b.groups, &b.groups_cap, b.n_groups, sizeof({p}_Group))",
            "    group.by, group.first_column, group.columns = (by, b.n_columns, 0)",
            "    b.n_groups += 1",
            "    row.groups += 1",
            "    for column in columns:",
            f"        if type(column) is not {p}_Column:",
            "            return -1",
        ]
        for field in gr.chunks:
            if field != gr.value:
                lines.append(f"        {local[field]} = {_read('column', f'{p}_Column', field)}")
            if field == gr.name:  # each attribute read once: a getattr is most of a column's cost
                lines += [f"        if type({local[field]}) is not str:", "            return -1"]
        for field, check in gr.checked:
            lines += ["        " + line for line in _gives_up(check, local[field])]
        value = gr.value
        lines += [
            f"        cell = <{p}_Cell*>room(<void**>&b.columns, &b.columns_cap, b.n_columns, sizeof({p}_Cell))",
            f"        cell.{value}_at = b.scratch.size",
            (
                f"        value_size = put_unmapped_value(&b.scratch, {p}_Kinds, {local[gr.code]}, "
                f"{local[gr.flags]}, {_read('column', f'{p}_Column', value)}, {p}_Unsigned, "
                f"{p}_Big)"
            ),
            "        if value_size == -2:",
            "            return -1",
            f"        cell.{value}_size = value_size",
        ]
        for field in gr.chunks:
            if field not in (gr.name, value):
                lines.append(f"        cell.{field} = {local[field]}")
        lines += [
            f"        cell.{gr.name} = held({local[gr.name]})",
            "        b.n_columns += 1",
            "        group.columns += 1",
            f"        estimate += {self.column_estimate(gr)}",
            "if row.groups == 0:",
            "    return -1",
        ]
        return lines

    def column_estimate(self, gr: WriteGroups) -> str:
        """The ``estimate:`` of a column in C: its value's size the bytes put."""
        value = f"column_{gr.value}"
        text = _in_c(self.back.column_estimate).replace(
            f"(len({value}) if {value} else 0)", "(value_size if value_size > 0 else 0)"
        )
        if value in text:
            raise NotCompiled("a column estimate of its value other than its size")
        return text

    # -- the batches -------------------------------------------------------------------

    def alone_test(self) -> str:
        chunk = self.m.class_by[1]
        last = f"b.rows[b.n_rows - 1].{chunk}"
        return " or ".join(f"{last} == {value}" for value in self.back.batch.alone)

    def batches(self) -> str:
        """``_batch_R``'s loop (:func:`generator.emit.unmapping.render_batch`) over the
        checked rows; where the Python loop raises, this one declines."""
        batch = self.back.batch
        (count, _), (size, _) = batch.limits
        p, start = self.prefix, batch.start
        opens = batch.exceeding == "opens"
        lines = [
            f"def batches_{self.name}(models, {count}, {size}, kinds, terms):",
            f'    """The messages _batch_{self.name} writes of ``models`` (a list), or None (declined):',
            '    ``kinds``: the values\' ValueKinds, ``terms``: the Dictionary the names go to."""',
            f"    cdef {p}_Batch b",
            "    cdef Py_ssize_t cost, start = 0, estimate, most_count, most_bytes",
            f"    if type(models) is not list or type({count}) is not int or type({size}) is not int:",
            "        return None",
        ]
        if batch.positive:
            positive = " or ".join(f"{limit} < 1" for limit in batch.positive)
            lines += [
                f"    if {positive}:  # _batch_{self.name}'s own error",
                "        return None",
            ]
        lines += [
            f"    if not {p}_Use(kinds, terms):",
            "        return None",
            "    # the limits as C numbers: no estimate comes near 2**62",
            f"    most_count = max(min({count}, 1 << 62), -(1 << 62))",
            f"    most_bytes = max(min({size}, 1 << 62), -(1 << 62))",
            f"    estimate = {start}",
            "    memset(&b, 0, sizeof(b))",
            "    messages = []",
            "    try:",
            "        for model in models:",
            f"            cost = {p}_Check(model, &b)",
            "            if cost < 0:",
            "                return None",
            f"            if {self.alone_test()}:",
            "                if b.n_rows - 1 > start:",
            f"                    messages.append({p}_Pack(&b, start, b.n_rows - 1))",
            f"                messages.append({p}_Pack(&b, b.n_rows - 1, b.n_rows))",
            f"                {p}_Clear(&b, False)",
            f"                start, estimate = 0, {start}",
            "                continue",
        ]
        if batch.too_large is not None:
            alone_size = f"{start} + cost" if start != "0" else "cost"
            lines += [
                f"            if {alone_size} > most_bytes:  # its too_large: error",
                "                return None",
            ]
        if opens:
            lines += [
                "            if b.n_rows - 1 > start and (b.n_rows - 1 - start >= most_count or estimate + cost > most_bytes):",
                f"                messages.append({p}_Pack(&b, start, b.n_rows - 1))",
                f"                start, estimate = b.n_rows - 1, {start}",
                "            estimate += cost",
            ]
        else:
            lines += [
                "            estimate += cost",
                "            if estimate > most_bytes or b.n_rows - start >= most_count:",
                f"                messages.append({p}_Pack(&b, start, b.n_rows))",
                f"                {p}_Clear(&b, False)",
                f"                start, estimate = 0, {start}",
            ]
        lines += [
            "        if b.n_rows > start:",
            f"            messages.append({p}_Pack(&b, start, b.n_rows))",
            "    except Exception:  # a writer unsure of a value: the Python way back decides",
            "        return None",
            "    finally:",
            f"        {p}_Clear(&b, True)",
            "    return messages",
        ]
        return "\n".join(lines)

    def message(self) -> str:
        p = self.prefix
        return "\n".join(
            [
                f"def message_{self.name}(models, kinds, terms):",
                '    """The one message of all ``models`` (a list), or None (declined)."""',
                f"    cdef {p}_Batch b",
                f"    if type(models) is not list or not models or not {p}_Use(kinds, terms):",
                "        return None",
                "    memset(&b, 0, sizeof(b))",
                "    try:",
                "        for model in models:",
                f"            if {p}_Check(model, &b) < 0:",
                "                return None",
                f"            if len(models) > 1 and ({self.alone_test()}):",
                "                return None",
                f"        return {p}_Pack(&b, 0, b.n_rows)",
                "    except Exception:  # a writer unsure of a value: the Python way back decides",
                "        return None",
                "    finally:",
                f"        {p}_Clear(&b, True)",
            ]
        )

    def bind(self) -> str:
        p = self.prefix
        classes = self.classes()
        names = [name for name, _ in classes]
        lines = [
            f"cdef bint {p}_Use(kinds, terms) except -1:",
            '    """Whether the kind table and the interned refs are those of ``kinds`` and',
            "    ``terms`` (bound on first use): False for kinds the table cannot say, or refs",
            '    interned otherwise than this way back interns them."""',
            f"    global {p}_Bound_kinds, {p}_Bound_terms, {p}_Unsigned, {p}_Big",
            f"    if kinds is not {p}_Bound_kinds:",
            "        if not map_kinds_ok(kinds):",
            "            return False",
            f"        map_kinds({p}_Kinds, kinds.quick)",
            f'        {p}_Unsigned, {p}_Big = kinds.unsigned, kinds.byte_order == ">"',
            f"        {p}_Bound_kinds = kinds",
            f"    if terms is not {p}_Bound_terms:",
            "        refs = tuple((r.path, r.null, r.empty_refused) for r in terms.interned)",
            f"        if refs != {p}_Interned:",
            "            return False",
            f"        {p}_Bound_terms = terms",
            "    return True",
            "",
            "",
            f"def _back_bind_{self.name}(namespace):",
            '    """Binds the models\' classes: False where one class is another\'s subclass',
            '    (``isinstance`` would take the first, ``type(model) is`` another)."""',
            f"    global {', '.join(names)}",
        ]
        offsets = [f"{holder}_{field}" for holder, field in self.fields_read()]
        lines.append(f"    global {', '.join(offsets)}")
        for name, model in classes:
            module, cls = model.split(".")
            lines.append(f'    {name} = namespace["rt_{module}"].{cls}')
        lines += [
            f'    {holder}_{field} = slot_or_none({holder}, "{field}")'
            for holder, field in self.fields_read()
        ]
        models = ", ".join(names[: len(self.back.classes)])
        lines += [
            f"    models = ({models},)",
            "    return not any(a is not b and issubclass(a, b) for a in models for b in models)",
        ]
        return "\n".join(lines)
