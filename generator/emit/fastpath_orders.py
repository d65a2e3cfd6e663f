"""The fast readers of records whose byte order the data chooses (``endian: {switch_on:}``
on a record; generator/spec/byte_order.py), specialised once per order.

Each such record gets ``_read_<record>_Le`` and ``_read_<record>_Be`` (a capital after the
record's name: ``_read_x__le`` was also record ``x__le``'s reader): its reader
rendered as if the spec had given its numbers (and those of the records it holds) that
suffix, calling the same order's readers of the records it holds. The record that
chooses reads its selector (its first field, in an order of its own) and calls the
order's reader; a record that only takes the order has ``_read_<record>`` read in the
spec's ``endian:``, as construct reads it alone. What this does not take (a choice inside,
a selector that is not the first field, an open enum's selector without a ``default:``) is
left to construct (``refused``).
"""

from __future__ import annotations

import re

from generator.emit.pysource import LineWriter
from generator.spec.byte_order import order_table, order_table_name, ordered_float, specialised
from generator.spec.model import Record
from generator.spec.types import PRIMITIVES

CONSTRUCT = "its byte order is chosen by the data (endian: switch_on): construct reads it"
"""The start of why a record read in an order the data chooses has no fast reader."""


class OrderedReaders:
    """A part of :class:`generator.emit.fastpath.FastPathEmitter` (its state it uses)."""

    def data_ordered(self) -> list[str]:
        return [n for n, r in self.spec.records.items() if r.byte_order == "data"]

    def order_problem(self, record: Record) -> str:
        """Why ``record`` (read in an order the data chooses) gets no fast reader, or ''."""
        if any(f.type.kind == "choice" for f in record.fields):
            return f"{CONSTRUCT}, with a choice inside"
        if ordered_float(record):
            return f"{CONSTRUCT}, with a float inside (no suffix for a reader per order)"
        if record.order_switch is None:
            return ""
        on, _, default = record.order_switch
        first = record.fields[0]
        if first.name != on or first.tag is not None or first.condition or first.repeat:
            return f"{CONSTRUCT}, and its selector is not its first field"
        if first.open_enum and default is None:
            return f"{CONSTRUCT}, by an open enum without a default order"
        return ""

    def ordered_functions(self, record: Record) -> list[str]:
        """The functions of ``record``: one reader per order, then what ``_read_<record>``
        is (the chooser, or the spec's order)."""
        out = []
        names = [n for n in self.data_ordered() if n in self.supported]
        rename = re.compile(r"\b_read_(" + "|".join(map(re.escape, names)) + r")\b")
        for order in ("le", "be"):
            with specialised(self.spec.records, order):
                text = self.record_function(self.spec.records[record.name])
            out.append(rename.sub(rf"_read_\1_{order.capitalize()}", text))
        out.append(self.order_chooser(record))
        return out

    def order_chooser(self, record: Record) -> str:
        """``_read_<record>``: the reader of the order its selector names (a value naming
        none is read by the spec's order's reader, whose enum check refuses it as
        construct's does); the spec's order's reader where the record does not choose."""
        name = record.name
        params = "buf, pos, end, limits, depth" + (", parent" if name in self.needs_parent else "")
        if record.order_switch is None:
            return f"_read_{name} = _read_{name}_{self.spec.endian.capitalize()}"
        on, orders, default = record.order_switch
        prim = record.fields[0].type.name
        size = PRIMITIVES[prim].size
        table = order_table_name(name)
        self.member_constants[table] = order_table(orders)
        other = "be" if self.spec.endian == "le" else "le"
        w = LineWriter()
        w.line(f'"""Fast path of ``{name}``: the reader of the byte order its {on} names."""')
        w.line(f"if end - pos >= {size}:")
        with w.indent():
            unpack = f"{self.struct(prim)}.unpack_from(buf, pos)[0]"
            w.line(f"if {table}.get({unpack}, {default!r}) == {other!r}:")
            with w.indent():
                w.line(f"return _read_{name}_{other.capitalize()}({params})")
        w.line(f"return _read_{name}_{self.spec.endian.capitalize()}({params})")
        return f"def _read_{name}({params}):\n" + "\n".join(w.lines)
