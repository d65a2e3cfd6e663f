"""The Arrow writers' lists read inline (:mod:`generator.emit.compiled_arrow`): chunks and
lists of lists.

A chunk (a counted run of varints, or of lengths and their payloads: Craft's columnar
chunks) makes no list here: each value is put into its list column's child as it is read,
a number as its column takes it (an int, a decimal of a uvarint, an enum member's name),
a payload as text or bytes (-1: a null). A list whose elements are lists read inline (a
region of counted chunks: Craft's size tables) puts each element into its column's child
list and closes it there. What the spec's expressions read of them stays in C: a chunk of
enum members in a ``MapRun`` (runtime/_compiled/mapped.pxd), a region's numbers in its
``IntTables`` (:mod:`generator.emit.compiled_lists`), a list's emptiness in its count of
items read.
"""

from __future__ import annotations

from generator.emit.compiled_fused import MEMBER_RUNS_PRELUDE, list_emptiness
from generator.emit.compiled_support import NotCompiled


class ArrowLists:
    """:class:`generator.emit.compiled_arrow.ArrowEmitter`'s part for lists read inline
    whose values are no raw column's or are lists (see the module docstring). The spec's
    expressions read a chunk of enum members from its ``MapRun``:

    >>> ArrowLists().members_read("types")
    ('map_member', 'types_run.values, types_k', 'types_k')
    """

    def aim_lists(self, var: str, kind, builder: str) -> bool:
        """Where a list of numbers that are no raw column (decimals, enum names) or of
        lists goes: the values into the list's child, a list's lists each into the child
        list, their values into its child (a list of chunks: Craft's size tables). False
        for the other lists."""
        element = kind[1]
        if element in ("decimal", "enum"):
            self.targets[var] = builder
            self.values[var] = (element, self.local(f"{builder}_e", "Builder", None, builder))
            return True
        if not (isinstance(element, tuple) and element[0] == "list"):
            return False
        item = self.repeats_read.get(var)
        if item is None or self.repeat_steps[var].steps is None:
            raise NotCompiled(f"{var}: lists not read inline")
        self.targets[var] = builder
        inner = self.local(f"{builder}_e", "ListBuilder", None, builder)
        self.values[var] = (element, inner)
        self.aim(item, element, inner)
        return True

    def chunk_body(self, step) -> None:
        """A chunk's values put into its list's child (no list made): numbers as its
        column takes them, payloads as text or bytes (a -1 length: a null). A chunk of
        enum members is kept in a ``MapRun`` too, for the spec's expressions over it."""
        if step.var not in self.values:
            raise NotCompiled(f"{step.var}: a chunk of no column")
        kind, child = self.values[step.var]
        var, n, k = step.var, f"{step.var}_i", f"{step.var}_k"
        self.payload_lengths(step)  # checked first, as the model reader does
        if step.enum and var not in self.loose:
            self.preludes.setdefault(MEMBER_RUNS_PRELUDE)
            self.declare(f"{var}_run", "MapRun")
            self.w.line(f"{var}_memory = map_run(&{var}_run, {k})")
            self.member_lists.add(var)
        self.w.line(f"{n} = 0")
        if step.delta:
            self.declare(f"{var}_acc", "int64_t" if step.zigzag else "uint64_t")
            self.w.line(f"{var}_acc = 0")
        self.w.line(f"while {n} < {k}:")
        with self.w.indent():
            if step.payload:
                self.chunk_cell(step, kind, child)
            else:
                self.chunk_number(step, kind, child)
            self.w.line(f"{n} += 1")
        self.table_close(step)
        self.w.line(f"{var} = True")

    def chunk_number(self, step, kind: str, child: str) -> None:
        """One varint of a chunk into ``child``: an int (declined past int64), a decimal of
        a uvarint, or an enum member's name."""
        value = self.chunk_varint(step)
        self.table_store(step, value)
        if step.enum:
            if kind != "enum":
                raise NotCompiled(f"{step.var}: enum members in a {kind} column")
            table, names = f"_{step.enum.upper()}_BY_BYTE", f"_{step.enum.upper()}_NAME"
            self.enums.add(step.enum)
            self.arrow_enums.add(step.enum)
            self.decline_if(f"<uint64_t>{value} > 255 or {table}[<uint8_t>{value}] == NULL")
            if step.var in self.member_lists:
                self.w.line(f"{step.var}_run.values[{step.var}_i] = <uint64_t>{value}")
            code = f"<uint8_t>{value}"
            self.decline_if(f"put_bytes({child}, {names}[{code}], {names}_N[{code}], True)")
        elif kind == "int" and step.zigzag:
            self.decline_if(f"put_int({child}, {value})")
        elif kind == "int":
            self.decline_if(f"{value} >> 63 or put_int({child}, <int64_t>{value})")
        elif kind == "decimal" and not step.zigzag:
            self.decline_if(f"put_decimal({child}, {value})")
        else:
            raise NotCompiled(f"{step.var}: a chunk of {'signed ' * step.zigzag}numbers, {kind}")

    def chunk_cell(self, step, kind: str, child: str) -> None:
        """One payload of a chunk into ``child`` (its length read again, checked before)."""
        var = step.var
        if kind != ("binary" if step.payload == "bytes" else "string"):
            raise NotCompiled(f"{var}: {step.payload} payloads in a {kind} column")
        self.payload_read(
            step,
            lambda: self.w.line(f"{child}.null()"),
            lambda: self.decline_if(f"put_scalar({child}, &{var}_item_s)"),
        )

    def members_read(self, var: str) -> tuple[str, str, str]:
        """A chunk's enum members are in its ``MapRun`` here (:meth:`chunk_body`)."""
        return "map_member", f"{var}_run.values, {var}_k", f"{var}_k"

    def fixed(self, step, at: str, end: str) -> None:
        """``<list> != []`` (or ``==``) of a list read here is its count of items read, as
        the fused readers test it (its items are in the builders, not in a list)."""
        items = {var: repeat.item for var, repeat in self.repeat_steps.items()}
        test = list_emptiness(step, items)
        if test is None:
            super().fixed(step, at, end)
        else:
            self.decline_if(f"not ({test})")
