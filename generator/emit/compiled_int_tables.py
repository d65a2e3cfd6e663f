"""Regions of counted integer lists in the compiled tier: kept as C arrays too, and the
spec expressions over them evaluated in C.

A trailer region whose layout (``REGION_TYPES``) is counted chunks of plain varints to its
end (Craft's size tables) is read into its Python lists, as the quick tier's model holds
them, and into an ``IntTables`` (runtime/_compiled/int_tables.pxd) beside them. An
expression over it that :meth:`IntTableSteps.table_expression` covers (``len`` of it or of
one of its lists, an element, small sums and comparisons of those) is then C arithmetic,
not Python indexing of lists of ints: where Python would raise IndexError, ``table_failed``
is set and the reader declines, as it does on the Python error; ``and``, ``or`` and ``if``
short-circuit in C as in Python, so no error is seen that Python would not meet."""

from __future__ import annotations

import ast

from generator.emit.plan import Chunk, FromEnd, Number, Repeat

INT_TABLES_PRELUDE = (
    "from runtime._compiled.int_tables cimport (\n"
    "    IntTables, int_tables_add, int_tables_close, int_tables_item, int_tables_len,\n"
    "    int_tables_start,\n"
    ")\n"
)

_SMALL = ("uint8_t", "uint16_t", "uint32_t", "int8_t", "int16_t", "int32_t")
"""C numbers whose sums of a few terms cannot overflow 64 bits."""

_ARITHMETIC = {ast.Add: "+", ast.Sub: "-"}
_COMPARISONS = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
}  # fmt: skip


def int_lists_region(step: FromEnd) -> Chunk | None:
    """The chunk of each list, when ``step`` is a region of counted lists of plain varints
    to its end (a repeat of a count and a chunk of that many numbers); else None."""
    if len(step.steps) != 1 or step.absent:
        return None
    repeat = step.steps[0]
    if not isinstance(repeat, Repeat) or repeat.until != "eos" or repeat.steps is None:
        return None
    if len(repeat.steps) != 2:
        return None
    count, chunk = repeat.steps
    if not (isinstance(count, Number) and isinstance(chunk, Chunk)):
        return None
    if chunk.count != count.var or chunk.payload or chunk.enum or chunk.var != repeat.item:
        return None
    if not chunk.zigzag:  # uvarints may pass int64: kept in Python only
        return None
    return chunk


class IntTableSteps:
    """The compiled emitter's part for regions of integer lists (see the module docstring)."""

    def int_tables_region(self, step: FromEnd) -> None:
        """Room for ``step``'s lists in C, when it is a region of integer lists."""
        chunk = int_lists_region(step)
        if chunk is None:
            return
        self.preludes.setdefault(INT_TABLES_PRELUDE)
        tables = f"{step.var}_c"
        self.declare(tables, "IntTables")
        self.w.line(f"{step.var}_memory = int_tables_start(&{tables}, {step.var}_size)")
        self.int_tables[step.var] = tables
        self.table_chunks[chunk.var] = tables

    def table_store(self, chunk: Chunk, value: str) -> None:
        """An element of a region's list, stored in C too."""
        tables = self.table_chunks.get(chunk.var)
        if tables is not None:
            self.w.line(f"int_tables_add(&{tables}, {value})")

    def table_close(self, chunk: Chunk) -> None:
        """A region's list complete."""
        tables = self.table_chunks.get(chunk.var)
        if tables is not None:
            self.w.line(f"int_tables_close(&{tables})")

    def table_expression(self, expression: str) -> str | None:
        """``expression`` as C (an ``int64_t`` or a truth value), when it reads a region
        of integer lists and only what C holds exactly; None otherwise."""
        if not self.int_tables:
            return None
        tree = ast.parse(expression, mode="eval").body
        if sum(1 for _ in ast.walk(tree)) > 32:  # a few small terms: 64 bits cannot overflow
            return None
        reads = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in self.int_tables]
        if not reads:
            return None
        try:
            code, _ = self._table_c(tree)
        except ValueError:
            return None
        return code

    def table_evaluate(self, var: str, expression: str) -> bool:
        """``var`` (an ``int64_t``) is ``expression``'s value, computed in C, declining where
        Python would raise; False (nothing written) where C does not cover it."""
        code = self.table_expression(expression)
        if code is None:
            return False
        self.declare("table_failed", "bint")
        self.declare(var, "int64_t")
        self.w.line("table_failed = False")
        self.w.line(f"{var} = {code}")
        self.decline_if("table_failed")
        return True

    def _table_c(self, node) -> tuple[str, str]:
        """(C text, kind): ``small`` (below 2**62 in magnitude, sums allowed), ``wide`` (any
        int64: compared only) or ``truth``."""
        if isinstance(node, ast.Constant) and type(node.value) is int:
            if abs(node.value) >= 1 << 31:
                raise ValueError(node.value)
            return str(node.value), "small"
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner, kind = self._table_c(node.operand)
            if kind != "small":
                raise ValueError("negated")
            return f"(-{inner})", "small"
        if isinstance(node, ast.Name) and node.id not in self.loose:
            if self.decls.get(node.id) in _SMALL:
                return f"<int64_t>{node.id}", "small"
            if node.id in self.indices:  # an item's index: below the items read
                return f"<int64_t>{node.id}", "small"
        if isinstance(node, ast.Call) and _is_len(node):
            (arg,) = node.args
            if isinstance(arg, ast.Name) and arg.id in self.int_tables:
                return f"<int64_t>{self.int_tables[arg.id]}.count", "small"
            if isinstance(arg, ast.Subscript) and _table_name(arg.value, self.int_tables):
                tables = self.int_tables[arg.value.id]
                i = self._index(arg.slice)
                return f"int_tables_len(&{tables}, {i}, &table_failed)", "small"
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Subscript):
            inner = node.value
            if _table_name(inner.value, self.int_tables):
                tables = self.int_tables[inner.value.id]
                i, j = self._index(inner.slice), self._index(node.slice)
                return f"int_tables_item(&{tables}, {i}, {j}, &table_failed)", "wide"
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
            (left, lk), (right, rk) = self._table_c(node.left), self._table_c(node.right)
            if lk != "small" or rk != "small":
                raise ValueError("a sum of what may be wide")
            return f"({left} {_ARITHMETIC[type(node.op)]} {right})", "small"
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            op = _COMPARISONS.get(type(node.ops[0]))
            (left, lk), (right, rk) = self._table_c(node.left), self._table_c(node.comparators[0])
            if op is not None and "truth" not in (lk, rk):
                return f"({left} {op} {right})", "truth"
        if isinstance(node, ast.BoolOp):
            parts = [self._table_c(value) for value in node.values]
            if all(kind == "truth" for _, kind in parts):
                joiner = " and " if isinstance(node.op, ast.And) else " or "
                return f"({joiner.join(code for code, _ in parts)})", "truth"
        raise ValueError(ast.dump(node))

    def _index(self, node) -> str:
        code, kind = self._table_c(node)
        if kind != "small":
            raise ValueError("an index that may be wide")
        return code


def _is_len(node: ast.Call) -> bool:
    return (
        isinstance(node.func, ast.Name)
        and node.func.id == "len"
        and len(node.args) == 1
        and not node.keywords
    )


def _table_name(node, tables: dict[str, str]) -> bool:
    return isinstance(node, ast.Name) and node.id in tables
