"""The fast writers of records whose byte order the data chooses (``endian: {switch_on:}``
on a record; generator/spec/byte_order.py), specialised once per order, as their readers
are (:mod:`generator.emit.fastpath_orders`).

Each such record gets ``_write_<record>_Le`` and ``_write_<record>_Be``, rendered as if
the spec had given its numbers (and those of the records it holds) that suffix, calling
the same order's writers. The record that chooses looks its selector up in the model and
calls that order's writer (a value that names no order raises, and construct builds it,
with its error); a record that only takes the order has ``_write_<record>`` write in the
spec's ``endian:``, as construct builds it alone.
"""

from __future__ import annotations

import re

from generator.spec.byte_order import order_table, order_table_name, specialised
from generator.spec.model import Record


class OrderedWriters:
    """A part of :class:`generator.emit.fastbuild.BuildEmitter` (its state it uses)."""

    def ordered_writers(self, record: Record, written: dict) -> str:
        """The writers of ``record``: one per order, then what ``_write_<record>`` is."""
        data = [n for n, r in self.spec.records.items() if r.byte_order == "data"]
        rename = re.compile(r"\b_write_(" + "|".join(map(re.escape, data)) + r")\b")
        out = []
        for order in ("le", "be"):
            with specialised(self.spec.records, order):
                text = self.record_function(self.spec.records[record.name], written)
            out.append(rename.sub(rf"_write_\1_{order.capitalize()}", text))
        name = record.name
        params = "model, out, parent" if self.needs_parent(name) else "model, out"
        if record.order_switch is None:
            out.append(f"_write_{name} = _write_{name}_{self.spec.endian.capitalize()}")
            return "\n\n\n".join(out)
        on, orders, default = record.order_switch
        self.constants[order_table_name(name, "WRITE")] = order_table(orders)
        out.append(
            f"def _write_{name}({params}):\n"
            f'    """Fast build of ``{name}``: the writer of the byte order its {on} names."""\n'
            f'    order = {order_table_name(name, "WRITE")}.get(model["{on}"], {default!r})\n'
            "    if order is None:\n"
            '        raise ValueError("no byte order")  # construct builds it, and says why\n'
            f'    return (_write_{name}_Le if order == "le" else _write_{name}_Be)({params})'
        )
        return "\n\n\n".join(out)
