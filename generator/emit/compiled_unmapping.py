"""The compiled tier's way back of a ``map:`` with ``batch:`` (:mod:`generator.spec.unmapping`):
the quick path of :mod:`generator.emit.unmapping`'s three functions in Cython, over the
compiled writer of the map's source record (:mod:`generator.emit.compiled_writers`).

For a record ``R`` the compiled module gets:

- ``_back_unmap_R(model)``: the parts of one model, ``(estimate, header row, body)``, as
  ``_unmap_R`` makes them when nothing fails, or None where its quick path gives up (a
  model of no class or a subclass, a field out of range or of another type, a value
  ``ValueKinds.quick_encode`` is unsure of); the classes are told by ``type(model) is``;
- ``_back_pack_R(parts)``: the message of a batch's parts: ``_frame_R``'s source record
  (dicts), its names interned as ``Dictionary.intern`` does (``runtime/_compiled/unmapped.pxd``),
  written by ``_cwrite_<source>``;
- ``batches_R(models, <limits>, kinds, terms)`` and ``message_R(models, kinds, terms)``:
  ``_batch_R``'s messages and one message of all models, or None (declined: the Python
  way back writes them or raises the exact ``EncodeError``).

``bind_way_backs`` hands them to the generated module (``COMPILED_WAY_BACKS``), which gives
them to its runtime primitive.
"""

from __future__ import annotations

import re

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
    """The lines that give up (return None) where ``check`` fails on ``local``."""
    if check.kind in ("uint64", "int64", "uvarint"):
        low, high = (0, U64) if check.kind != "int64" else (-I64, I64 - 1)
        return [
            f"if type({local}) is not int or not {low} <= {local} <= {high}:",
            "    return None",
        ]
    test = f"type({local}) is not str"
    if check.nullable:
        test = f"{local} is not None and {test}"
    return [f"if {test}:", "    return None"]


_HEAD = """\
# -- the compiled way back of map: (generator/emit/compiled_unmapping.py)

from runtime._compiled.mapped cimport map_kinds, map_kinds_ok
from runtime._compiled.unmapped cimport (
    intern_frame, intern_paths, read_field, slot_or_none, text_size, unmap_value,
)"""
"""What the way backs cimport (after the compiled writers' section)."""


def _read(model: str, holder: str, field: str) -> str:
    """``model.field`` of a model of exactly ``holder``'s class, its slot read in place."""
    return f'read_field({model}, {holder}_{field}, "{field}")'


def _calls_runtime(back: WayBack) -> bool:
    """Whether an estimate calls the runtime (``rt_unmap.wire_size``): not compiled here."""
    return any("rt_" in c.estimate for c in back.classes) or "rt_" in back.column_estimate


class CompiledWayBacks:
    """The compiled way backs of one spec (see the module docstring); ``writers``: its
    :class:`generator.emit.compiled_writers.CompiledWriters`."""

    def __init__(self, spec, writers):
        self.spec = spec
        self.records: list[Record] = [
            r
            for r in way_backs(spec.records)
            if r.mapping.source in writers.entries and not _calls_runtime(r.mapping.way_back)
        ]
        self.names = [r.name for r in self.records]

    def of_primitive(self, ref) -> str | None:
        """The record whose compiled way back a runtime primitive takes (its ``unmapping``
        argument), or None."""
        argument = ref.args.get("unmapping")
        return next((n for n in self.names if argument == f"UNMAPPINGS[{n!r}]"), None)

    def where(self, line) -> str:
        return f"{self.spec.source.display}:{line}"

    def section(self) -> str:
        parts = [_HEAD]
        for record in self.records:
            parts += _Renderer(self, record).functions()
        bind = [
            "def bind_way_backs(namespace):",
            '    """The compiled way backs by record, given the generated module\'s namespace."""',
            "    out = {}",
        ]
        for record in self.records:
            bind += [
                f"    if _back_bind_{record.name}(namespace):",
                f'        out["{record.name}"] = (batches_{record.name}, message_{record.name})',
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

    def functions(self) -> list[str]:
        return [
            self.globals_(),
            self.unmap(),
            self.pack(),
            self.batches(),
            self.message(),
            self.bind(),
        ]

    def classes(self) -> list[tuple[str, str]]:
        """(global, ``module.Model``) of each class's model, then the column model's."""
        out = [
            (f"{self.prefix}_class{n}", f"{c.module}.{c.model}")
            for n, c in enumerate(self.back.classes)
        ]
        groups = [c.groups for c in self.back.classes if c.groups is not None]
        if groups:
            out.append((f"{self.prefix}_column", f"{groups[0].module}.{groups[0].model}"))
        return out

    def globals_(self) -> str:
        p = self.prefix
        lines = [
            "# Set by the bind: the models' classes, the value kinds' table, the interned refs."
        ]
        lines += [f"cdef object {name}  # {model}" for name, model in self.classes()]
        lines += [f"cdef Py_ssize_t {holder}_{field}" for holder, field in self.fields_read()]
        lines += [
            f"cdef signed char {p}_kinds[256]",
            f"cdef uint64_t {p}_unsigned",
            f"cdef bint {p}_big",
            f"cdef object {p}_bound_kinds = None",
            f"cdef object {p}_bound_terms = None",
            f"cdef list {p}_interned = None",
            f"cdef object {p}_dictionary = None",
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
            out += [(f"{self.prefix}_class{n}", field) for field in dict.fromkeys(fields)]
        groups = [c.groups for c in self.back.classes if c.groups is not None]
        if groups:
            out += [(f"{self.prefix}_column", field) for field in groups[0].chunks]
        return out

    # -- one model ---------------------------------------------------------------------

    def unmap(self) -> str:
        lines = [
            f"cdef object {self.prefix}_unmap(model):",
            f'    """{self.owner.where(self.m.line)}: the parts of one model, as _unmap_{self.name}\'s',
            '    quick path makes them (estimate, header row, body), or None where it gives up."""',
            "    cdef type cls = type(model)",
            "    cdef bint gave_up",
            "    cdef Py_ssize_t estimate",
        ]
        for n, cls in enumerate(self.back.classes):
            lines.append(
                f"    {'if' if n == 0 else 'elif'} cls is {self.prefix}_class{n}:  # {cls.member}"
            )
            lines += [
                "        " + line for line in self.write_class(cls, f"{self.prefix}_class{n}")
            ]
        lines.append("    return None")
        return "\n".join(lines)

    def write_class(self, cls: WriteClass, holder: str) -> list[str]:
        """``holder``: the global of the class (its fields' offsets beside it)."""
        lines = []
        for field in cls.fields:
            lines.append(f"{field.name} = {_read('model', holder, field.name)}")
            if field.value is None:
                lines += _gives_up(field.check, field.name)
                continue
            written = f"{field.name}_written"
            lines.append(f"{written} = {field.value}")
            lines += _gives_up(field.check, written)
            tests = [*(f"not ({rule})" for rule in field.rules), f"({field.read}) != {field.name}"]
            lines += [f"if {' or '.join(tests)}:", "    return None"]
        lines.append(f"estimate = {_in_c(cls.estimate)}")
        if cls.groups is not None:
            lines += self.write_groups(cls.groups, holder)
        header = ", ".join(cls.header)
        body = ", ".join(f'"{name}": {value}' for name, value in cls.body.items())
        lines.append(f"return estimate, ({header},), {{{body}}}")
        return lines

    def write_groups(self, gr: WriteGroups, holder: str) -> list[str]:
        p = self.prefix
        into = ", ".join(f"({value}, {_read('model', holder, field)})" for value, field in gr.into)
        local = {field: f"column_{field}" for field in gr.chunks}
        lists = ", ".join(f"group_{chunk}" for chunk in gr.chunks.values())
        lines = [
            "body_groups = []",
            f"for by, columns in ({into}):",
            "    if columns is None:",
            "        continue",
            "    if type(columns) is not list:",
            "        return None",
            f"    {lists} = {', '.join('[]' for _ in gr.chunks)}",
            "    for column in columns:",
            f"        if type(column) is not {p}_column:",
            "            return None",
        ]
        for field in gr.chunks:
            if field != gr.value:
                lines.append(f"        {local[field]} = {_read('column', f'{p}_column', field)}")
            if field == gr.name:  # each attribute read once: a getattr is most of a column's cost
                lines += [f"        if type({local[field]}) is not str:", "            return None"]
        for field, check in gr.checked:
            lines += ["        " + line for line in _gives_up(check, local[field])]
        lines += [
            (
                f"        {local[gr.value]} = unmap_value({p}_kinds, {local[gr.code]}, "
                f"{local[gr.flags]}, {_read('column', f'{p}_column', gr.value)}, {p}_unsigned, "
                f"{p}_big, &gave_up)"
            ),
            "        if gave_up:",
            "            return None",
            f"        estimate += {_in_c(self.back.column_estimate)}",
        ]
        lines += [
            f"        group_{chunk}.append({local[field]})" for field, chunk in gr.chunks.items()
        ]
        group = ", ".join([f'"{gr.by}": by', *(f'"{c}": group_{c}' for c in gr.chunks.values())])
        lines += [
            f"    body_groups.append({{{group}}})",
            "if not body_groups:",
            "    return None",
        ]
        return lines

    # -- a batch's message, the batches -------------------------------------------------

    def pack(self) -> str:
        back, m, p = self.back, self.m, self.prefix
        chunks = [f"{back.header_field}_{chunk}" for chunk in back.header]
        header = ", ".join(f'"{chunk}": {local}' for chunk, local in zip(back.header, chunks))
        return "\n".join(
            [
                f"cdef bytes {p}_pack(list parts):",
                f'    """The message of a batch\'s parts: _frame_{self.name}\'s {m.source} (dicts), its names',
                f'    interned, written by _cwrite_{m.source}."""',
                "    cdef Out o = Out(NULL, 0, 0)",
                "    cdef tuple row",
                f"    cdef list {', '.join(chunks)}, each = []",
                f"    {', '.join(chunks)} = {', '.join('[]' for _ in chunks)}",
                "    for part in parts:  # the header's rows as its chunks, in one pass",
                "        row = part[1]",
                *(f"        {local}.append(row[{n}])" for n, local in enumerate(chunks)),
                "        each.append(part[2])",
                f'    source = {{"{back.header_field}": {{{header}}}, "{m.each}": each}}',
                f"    intern_frame(source, {p}_interned, {p}_dictionary)",
                "    try:",
                f"        _cwrite_{m.source}(source, &o)",
                "        return PyBytes_FromStringAndSize(<const char*>o.data, o.size)",
                "    finally:",
                "        free(o.data)",
            ]
        )

    def alone_test(self) -> str:
        kind = self.back.header.index(self.m.class_by[1])
        return f"part[1][{kind}] in {tuple(self.back.batch.alone)!r}"

    def batches(self) -> str:
        """``_batch_R``'s loop (:func:`generator.emit.unmapping.render_batch`) over the
        compiled parts; where the Python loop raises, this one declines."""
        batch = self.back.batch
        (count, _), (size, _) = batch.limits
        p, start = self.prefix, batch.start
        opens = batch.exceeding == "opens"
        lines = [
            f"def batches_{self.name}(models, {count}, {size}, kinds, terms):",
            f'    """The messages _batch_{self.name} writes of ``models`` (a list), or None (declined):',
            '    ``kinds``: the values\' ValueKinds, ``terms``: the Dictionary the names go to."""',
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
            f"    if not {p}_use(kinds, terms):",
            "        return None",
            "    messages = []",
            "    batch = []",
            f"    estimate = {start}",
            "    try:",
            "        for model in models:",
            f"            part = {p}_unmap(model)",
            "            if part is None:",
            "                return None",
            f"            if {self.alone_test()}:",
            "                if batch:",
            f"                    messages.append({p}_pack(batch))",
            f"                    batch, estimate = [], {start}",
            f"                messages.append({p}_pack([part]))",
            "                continue",
        ]
        if batch.too_large is not None:
            alone_size = f"{start} + part[0]" if start != "0" else "part[0]"
            lines += [
                f"            if {alone_size} > {size}:  # its too_large: error",
                "                return None",
            ]
        if opens:
            lines += [
                f"            if batch and (len(batch) >= {count} or estimate + part[0] > {size}):",
                f"                messages.append({p}_pack(batch))",
                f"                batch, estimate = [], {start}",
                "            batch.append(part)",
                "            estimate += part[0]",
            ]
        else:
            lines += [
                "            batch.append(part)",
                "            estimate += part[0]",
                f"            if estimate > {size} or len(batch) >= {count}:",
                f"                messages.append({p}_pack(batch))",
                f"                batch, estimate = [], {start}",
            ]
        lines += [
            "        if batch:",
            f"            messages.append({p}_pack(batch))",
            "    except Exception:  # a writer unsure of a value: the Python way back decides",
            "        return None",
            "    return messages",
        ]
        return "\n".join(lines)

    def message(self) -> str:
        p = self.prefix
        return "\n".join(
            [
                f"def message_{self.name}(models, kinds, terms):",
                '    """The one message of all ``models`` (a list), or None (declined)."""',
                f"    if type(models) is not list or not models or not {p}_use(kinds, terms):",
                "        return None",
                "    parts = []",
                "    for model in models:",
                f"        part = {p}_unmap(model)",
                f"        if part is None or (len(models) > 1 and {self.alone_test()}):",
                "            return None",
                "        parts.append(part)",
                "    try:",
                f"        return {p}_pack(parts)",
                "    except Exception:  # a writer unsure of a value: the Python way back decides",
                "        return None",
            ]
        )

    def bind(self) -> str:
        p = self.prefix
        classes = self.classes()
        names = [name for name, _ in classes]
        lines = [
            f"cdef bint {p}_use(kinds, terms) except -1:",
            '    """Whether the kind table and the interned refs are those of ``kinds`` and',
            '    ``terms`` (bound on first use): False for kinds the table cannot say."""',
            f"    global {p}_bound_kinds, {p}_bound_terms, {p}_interned, {p}_dictionary",
            f"    global {p}_unsigned, {p}_big",
            f"    if kinds is not {p}_bound_kinds:",
            "        if not map_kinds_ok(kinds):",
            "            return False",
            f"        map_kinds({p}_kinds, kinds.quick)",
            f'        {p}_unsigned, {p}_big = kinds.unsigned, kinds.byte_order == ">"',
            f"        {p}_bound_kinds = kinds",
            f"    if terms is not {p}_bound_terms:",
            f"        {p}_interned, {p}_dictionary = intern_paths(terms), terms.field",
            f"        {p}_bound_terms = terms",
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
