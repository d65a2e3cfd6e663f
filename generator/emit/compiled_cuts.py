"""``on_cut: keep`` in the compiled readers: a cut input read once, as the quick tier reads
it (``QuickTierEmitter.cut_repeat``). A list whose elements are records read by their own
reader (the plan's ``Repeat.cut``) keeps its whole elements in C; the element whose compiled
read declines is read by the generated module's exact reader ``_read_<record>``, over its
bytes to the end (``runtime.core.sequences.compiled_cut``): a cut when that ran past the
end, its bytes the list's ``<name>_cut``; anything else declines as before, and the exact
reader reads the input for its model or its DecodeError. A whole input pays nothing.

A base of :class:`generator.emit.compiled.CompiledEmitter`. The Arrow writers read their
elements by their own ``item`` (a cut declines there: its row is the Python rows'), and
a big input's pending elements by ``_pending_<record>`` (a cut declines there too)."""

from __future__ import annotations

from generator.emit.plan import Repeat

CUT_PRELUDE = '''\
import runtime.core.sequences as _rt_sequences
from runtime.core.limits import Limits as _PythonLimits

_EXACT_READERS = {}
"""Record -> the generated module's exact reader ``_read_<record>`` (set by ``bind``): what
reads the element of an ``on_cut: keep`` list that a compiled read declined."""


cdef object _cut_at(str record, const unsigned char* buf, Py_ssize_t start, Py_ssize_t end,
                    _Limits* lim):
    """The bytes from ``start`` to ``end`` when the ``record`` there, read by its exact reader,
    ran past ``end`` (``runtime.core.sequences.compiled_cut``); else None, a decline."""
    limits = _PythonLimits(
        max_message_bytes=lim.max_message_bytes, max_depth=lim.max_depth,
        max_count=lim.max_count, max_string=lim.max_string,
        max_decompressed_bytes=lim.max_decompressed_bytes,
    )
    element = PyBytes_FromStringAndSize(<const char*>buf + start, end - start)
    return _rt_sequences.compiled_cut(_EXACT_READERS[record], element, limits)
'''
"""What a module whose readers keep a cut adds: ``_cut_at`` and the exact readers it calls."""


class CutSteps:
    """The cut of an ``on_cut: keep`` list read by the compiled reader (module docstring)."""

    def cut_read(self, step: Repeat) -> bool:
        """Whether this reader keeps ``step``'s cut itself: its elements are records read
        by their own compiled reader (the plan's ``cut``), in a spec that does not recurse
        (``_cut_at`` reads the element at depth 1, which meets no depth limit only where
        every depth is known before the read, as the quick tier's are)."""
        return bool(step.cut) and step.steps is None and not self.recursive

    def repeat(self, step: Repeat) -> None:
        if self.cut_read(step):  # set before the list: a path that reads no cut leaves None
            self.cut_vars.add(step.cut)
            self.w.line(f"{step.cut} = None")
        super().repeat(step)

    def evaluate(self, var: str, expression: str) -> None:
        if var in self.cut_vars:  # the kept field's own step: its bytes are the list's
            self.cut_vars.discard(var)
            return
        super().evaluate(var, expression)

    def item(self, step: Repeat) -> None:
        if not self.cut_read(step):
            super().item(step)
            return
        self.preludes.setdefault(CUT_PRELUDE)
        self.cut_records.add(step.record)
        self.item_index(step)
        at = f"{step.item}_at"
        self.declare(at, "Py_ssize_t")
        self.w.line(f"{at} = pos")
        self.w.line(f"{step.item} = {self.call(step.record, step.end, step.var, step.depth)}")
        self.w.line(f"if {step.item} is None:")
        with self.w.indent():
            self.w.line(f'{step.cut} = _cut_at("{step.record}", buf, {at}, {step.end}, lim)')
            self.decline_if(f"{step.cut} is None")
            self.w.line(f"pos = {step.end}")
            self.w.line("break")
        self.w.line(f"{step.var}.append({step.item})")
        self.w.line(f"{step.item}_n += 1")

    def cut_bind(self) -> list[str]:
        """``bind``'s lines that hand ``_cut_at`` the exact readers it calls."""
        return [
            f'    _EXACT_READERS["{record}"] = namespace["_read_{record}"]'
            for record in sorted(self.cut_records)
        ]
