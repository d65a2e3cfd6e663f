"""The compiled tier's pending elements: the row field of a big input read into models
built on first access (``runtime/_compiled/lazy.pyx``'s ``Elements``).

A list of models of a 64 MiB input holds several times the input (a model, its list slot
and its values a field). So where ``parse`` (or ``read_<record>``) reads a row field (the
last field, a ``repeat: eos`` of records, that ``iter_rows`` streams) of
:data:`PENDING_BYTES` or more, its reader reads each element as the eager reader does (so
every check and every decline is the eager reader's, at parse time) and keeps, instead of
the element, a model of the element's class whose slots hold the element's offset
(``pending_element``). The first read, write or delete of any of its fields reads that
element again, by the same steps, and moves its slots in: the model is then the one the
eager reader made (``==``, repr, pickling, the writers and ``to_dict`` read it through the
class's ``LazySlot`` fields, put over its slots by the first pending element: until then
its fields are member descriptors, which CPython reads fastest). The input stays alive
while an element of it is pending.

Smaller lists, the Arrow writers and every other reader stay eager, as does a reader
called on a buffer that is not the ``bytes`` the entry reads (``_reading``).
"""

from __future__ import annotations

from generator.emit.plan import Repeat

PENDING_BYTES = 1 << 20
"""A row field of this many input bytes or more is read into pending elements."""

PENDING_PRELUDE = f'''\
from cpython.bytes cimport PyBytes_GET_SIZE

from runtime._compiled.lazy cimport Elements, lazy_slots, pending_element, slot_offsets


cdef Py_ssize_t _PENDING_BYTES = {PENDING_BYTES}
"""A row field of this many input bytes or more is read into pending elements
(generator/emit/compiled_pending.py)."""

cdef object _source = None
"""The ``bytes`` an entry (``parse``, ``read_<record>``) reads, while it reads them: what its
pending elements keep."""


cdef inline bint _reading(const unsigned char* buf) noexcept:
    """Whether ``buf`` is the start of ``_source``, so elements read from it can be pending."""
    return _source is not None and <const unsigned char*><char*>(<bytes>_source) == buf


cdef inline object _whole_kept(_Reader read, Py_ssize_t depth, bytes data, limits):
    """``_whole``, with ``data`` in ``_source`` while it reads when it is big enough to hold
    a row field of ``_PENDING_BYTES`` (a small message pays one comparison)."""
    if PyBytes_GET_SIZE(data) < _PENDING_BYTES:
        return _whole(read, depth, data, limits)
    return _whole_big(read, depth, data, limits)


cdef object _whole_big(_Reader read, Py_ssize_t depth, bytes data, limits):
    """``_whole_kept`` of a big input (its own function: no small one sets up the
    ``finally``)."""
    global _source
    outer = _source
    _source = data
    try:
        return _whole(read, depth, data, limits)
    finally:
        _source = outer
'''


class PendingSteps:
    """Pending elements (see the module docstring).

    A base of :class:`generator.emit.compiled.CompiledEmitter`, whose state and other parts
    it uses."""

    pends_elements = True
    """A big row field's elements are pending (the Arrow writers write what they read)."""

    def pending_field(self, name: str) -> Repeat | None:
        """The repeat of ``name``'s row field, when its elements can be pending: records
        read by their own reader or by the loop its row iterator shares."""
        if not self.pends_elements or self.recursive:
            return None
        row = self.row_field(name, counted=True)
        if row is None or not row[1].record:
            return None
        repeat = row[1]
        # elements read inline are read again by the row iterator's loop, which a count bars
        return None if repeat.steps is not None and repeat.min_count else repeat

    def element_class(self, step: Repeat) -> str:
        """The model class of the elements ``step`` reads."""
        steps = step.steps if step.steps is not None else self.lowering.plans[step.record].steps
        return steps[-1].class_name

    def repeat(self, step: Repeat) -> None:
        if step is not self.pending_field(self.name):
            super().repeat(step)
            return
        self.w.line(f"if {step.end} - pos < _PENDING_BYTES or not _reading(buf):")
        with self.w.indent():
            super().repeat(step)
        self.w.line("else:  # a big input's elements: checked now, built on first access")
        with self.w.indent():
            args = self.element_reads.get(self.name, "") if step.steps is not None else ""
            call = f"_pending_{self.name}(buf, pos, {step.end}, lim, &pos{args})"
            self.w.line(f"{step.var} = {call}")
            self.decline_if(f"{step.var} is None")
        self.preludes.setdefault(PENDING_PRELUDE)
        self.pending_classes.add(self.element_class(step))
        self.pendings[self.name] = self.pending_function(step)

    def pending_function(self, step: Repeat) -> str:
        """``_reread_<record>`` (what reads one element again) and ``_pending_<record>``
        (the list of pending elements, or None to decline as the eager loop would). Both
        are lower case: a capital word before a record's name is how a class's slot offsets
        are named (``_Pending_<field>`` is record ``pending``'s)."""
        name, cls = self.name, self.element_class(step)
        field = self.lowering.plans[name].steps[-2].name
        params = self.element_params.get(name, []) if step.steps is not None else []
        if step.steps is None:
            read = f"_read_{step.record}(buf, pos, {{end}}, {{lim}}, &{{stop}})"
        else:
            args = "".join(f", {{ctx}}{var}" for _, var in params)
            read = f"_elements_{name}(buf, pos, {{end}}, {{lim}}, &{{stop}}, None, 1{args})"
        once = read.format(end="self.end", lim="&self.lim", stop="stop", ctx="self.")
        each = read.format(end="end", lim="lim", stop="pos", ctx="")
        signature = "".join(f", {ctype} {var}" for ctype, var in params)
        lines = [
            f"cdef class _reread_{name}(Elements):",
            f'    """The elements of ``{name}.{field}``, read again one at a time (lazy.pyx)."""',
            "",
            "    cdef _Limits lim",
            *[f"    cdef {ctype} {var}" for ctype, var in params],
            "",
            "    cdef object read(self, Py_ssize_t pos):",
            "        cdef const unsigned char* buf = self.data",
            "        cdef Py_ssize_t stop = 0",
            f"        return {once}",
            "",
            "",
            f"cdef object _pending_{name}(const unsigned char* buf, Py_ssize_t pos, Py_ssize_t end,",
            f"{' ' * (len(name) + 22)}_Limits* lim, Py_ssize_t* stop{signature}):",
            f'    """``{name}.{field}`` to ``end``: each element read (and dropped) as',
            f'    ``_read_{name}`` reads them, kept as a pending {cls}; None to decline."""',
            "    cdef bytes data = <bytes>_source  # the caller's check holds: nothing ran since",
            f"    cdef _reread_{name} elements = _reread_{name}.__new__(_reread_{name})",
            "    cdef Py_ssize_t at, n = 0",
            "    elements.data, elements.end, elements.lim = data, end, lim[0]",
            f"    lazy_slots(_{cls}, {list(self.classes[cls])!r})  # (once a class)",
            f"    elements.cls, elements.slots = _{cls}, _{cls}_SLOTS",
            f"    elements.n_slots = {len(self.classes[cls])}",
            *[f"    elements.{var} = {var}" for _, var in params],
            "    items = new_list()",
            "    while pos < end:",
            "        if n >= lim.max_count:",
            "            return None",
            "        at = pos",
            f"        if {each} is None:",
            "            return None",
            "        items.append(pending_element(elements, at))",
            "        n += 1",
        ]
        if step.min_count:
            lines += [f"    if n < {step.min_count}:", "        return None"]
        lines += ["    untrack(items)  # pending models are untracked", "    stop[0] = pos"]
        lines.append("    return items")
        return "\n".join(lines)

    def pending_globals(self) -> list[str]:
        """The slot tables of the pending elements' classes (set by ``bind``)."""
        return [
            f"cdef Py_ssize_t _{cls}_SLOTS[{len(self.classes[cls])}]"
            for cls in sorted(self.pending_classes)
        ]

    def pending_bind(self, cls: str, fields: list[str]) -> list[str]:
        """``bind``'s lines for a pending elements' class: its slot offsets, kept for the
        pending elements too (a ``LazySlot``'s own where one is over a slot). Until a big
        input's first pending element the fields stay member descriptors, which CPython
        reads faster than any other descriptor."""
        lines = [f"    offsets = slot_offsets(_{cls}, {list(fields)!r})"]
        for i, field in enumerate(fields):
            lines.append(f'    _{cls}_{field} = _{cls}_SLOTS[{i}] = offsets["{field}"]')
        lines.append(f"    free_fast(_{cls})")
        return lines
