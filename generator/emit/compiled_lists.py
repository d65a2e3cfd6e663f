"""Spec expressions over the lists a compiled reader made, evaluated in C.

Two kinds of lists are read in C: a trailer region whose layout (``REGION_TYPES``) is counted
chunks of ZigZag varints to its end (Craft's size tables) is read into its Python lists, as
the quick tier's model holds them, and into an ``IntTables`` beside them
(runtime/_compiled/int_tables.pxd); a chunk of enum members is read where it is, each an int
of its value below 256 (runtime/_compiled/member_lists.pxd). An expression that
:meth:`ListExpressions.list_expression` covers (``len`` of such a list or of a table, an
element, ``in``, ``min``/``max`` of members, enum members, ``len`` of bytes held as a
pointer and a length (the Arrow writers'), small sums, comparisons,
``and``/``or``/``if``) is then C arithmetic, not Python indexing and comparison of ints.
Where Python would raise (IndexError, ValueError), ``list_failed`` is set and the reader
declines, as it does on the Python error; ``and``, ``or`` and ``if`` short-circuit in C as
in Python, so no error is seen that Python would not meet."""

from __future__ import annotations

import ast

from generator.emit.plan import Chunk, Number, Repeat
from generator.emit.plan_trailers import FromEnd

INT_TABLES_PRELUDE = (
    "from runtime._compiled.int_tables cimport (\n"
    "    IntTables, int_tables_add, int_tables_close, int_tables_item, int_tables_len,\n"
    "    int_tables_start,\n"
    ")\n"
)
MEMBER_LISTS_PRELUDE = (
    "from runtime._compiled.member_lists cimport member_at, member_extreme, member_in\n"
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


class ListExpressions:
    """The compiled emitter's part for expressions over lists (see the module docstring)."""

    expressions_in_c = False
    """Whether an expression that reads no such list is C too where C covers it (the
    model readers keep their other expressions' Python evaluation, as the quick tier's)."""

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

    def list_expression(self, expression: str) -> str | None:
        """``expression`` as C (an ``int64_t`` or a truth value), when it reads a region
        of integer lists, a list of enum members or bytes held in C (any expression, with
        :attr:`expressions_in_c`), and only what C holds exactly; None otherwise."""
        lists = self.int_tables.keys() | self.member_lists | self.byte_lengths.keys()
        tree = ast.parse(expression, mode="eval").body
        if sum(1 for _ in ast.walk(tree)) > 32:  # a few small terms: 64 bits cannot overflow
            return None
        reads_lists = any(isinstance(n, ast.Name) and n.id in lists for n in ast.walk(tree))
        if not reads_lists and not self.expressions_in_c:
            return None
        try:
            code, _ = self._c(tree)
        except ValueError:
            return None
        return code

    def list_evaluate(self, var: str, expression: str) -> bool:
        """``var`` (an ``int64_t``) is ``expression``'s value, computed in C, declining where
        Python would raise; False (nothing written) where C does not cover it."""
        code = self.list_expression(expression)
        if code is None:
            return False
        self.declare(var, "int64_t")
        if "list_failed" not in code:  # reads no list: nothing in it can fail
            self.w.line(f"{var} = {code}")
            return True
        self.declare("list_failed", "bint")
        self.w.line("list_failed = False")
        self.w.line(f"{var} = {code}")
        self.decline_if("list_failed")
        return True

    def _c(self, node) -> tuple[str, str]:
        """(C text, kind): ``small`` (below 2**62 in magnitude, sums allowed), ``wide`` (any
        int64: compared only) or ``truth``."""
        if isinstance(node, ast.Constant) and type(node.value) is int:
            if abs(node.value) >= 1 << 31:
                raise ValueError(node.value)
            return str(node.value), "small"
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner, kind = self._c(node.operand)
            if kind != "small":
                raise ValueError("negated")
            return f"(-{inner})", "small"
        if isinstance(node, ast.Name) and node.id in self.member_values:
            value = self.member_values[node.id]
            if abs(value) >= 1 << 31:
                raise ValueError(node.id)
            return f"{value:#x}" if value >= 0 else str(value), "small"
        if isinstance(node, ast.Name) and node.id not in self.loose:
            if self.decls.get(node.id) in _SMALL:
                return f"<int64_t>{node.id}", "small"
            if node.id in self.indices:  # an item's index: below the items read
                return f"<int64_t>{node.id}", "small"
        if isinstance(node, ast.Subscript) and self._members(node.value):
            i = self._small(node.slice)
            prefix, members, _ = self.members_read(node.value.id)
            return f"{prefix}_at({members}, {i}, &list_failed)", "small"
        if isinstance(node, ast.Call) and _is_call(node, "min", "max"):
            (arg,) = node.args
            if self._members(arg):
                largest = int(node.func.id == "max")
                prefix, members, _ = self.members_read(arg.id)
                return f"{prefix}_extreme({members}, {largest}, &list_failed)", "small"
        if isinstance(node, ast.Call) and _is_call(node, "len"):
            (arg,) = node.args
            if self._members(arg):
                return f"<int64_t>{self.members_read(arg.id)[2]}", "small"
            if isinstance(arg, ast.Name) and arg.id in self.int_tables:
                return f"<int64_t>{self.int_tables[arg.id]}.count", "small"
            if isinstance(arg, ast.Name) and arg.id in self.byte_lengths:
                return f"<int64_t>{self.byte_lengths[arg.id]}", "small"
            if isinstance(arg, ast.Subscript) and _table_name(arg.value, self.int_tables):
                tables = self.int_tables[arg.value.id]
                i = self._small(arg.slice)
                return f"int_tables_len(&{tables}, {i}, &list_failed)", "small"
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Subscript):
            inner = node.value
            if _table_name(inner.value, self.int_tables):
                tables = self.int_tables[inner.value.id]
                i, j = self._small(inner.slice), self._small(node.slice)
                return f"int_tables_item(&{tables}, {i}, {j}, &list_failed)", "wide"
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
            (left, lk), (right, rk) = self._c(node.left), self._c(node.right)
            if lk != "small" or rk != "small":
                raise ValueError("a sum of what may be wide")
            return f"({left} {_ARITHMETIC[type(node.op)]} {right})", "small"
        if (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and self._members(node.comparators[0])
        ):
            value = self._small(node.left)  # a member's value: small
            prefix, members, _ = self.members_read(node.comparators[0].id)
            if isinstance(node.ops[0], ast.In):
                return f"{prefix}_in({value}, {members})", "truth"
            if isinstance(node.ops[0], ast.NotIn):
                return f"(not {prefix}_in({value}, {members}))", "truth"
        if (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], (ast.In, ast.NotIn))
            and isinstance(node.comparators[0], (ast.List, ast.Tuple, ast.Set))
        ):  # a value among literals: a comparison with each
            value = self._small(node.left)
            tests = [f"{value} == {self._small(item)}" for item in node.comparators[0].elts]
            found = f"({' or '.join(tests) or '0'})"
            return (found if isinstance(node.ops[0], ast.In) else f"(not {found})"), "truth"
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            op = _COMPARISONS.get(type(node.ops[0]))
            (left, lk), (right, rk) = self._c(node.left), self._c(node.comparators[0])
            if op is not None and "truth" not in (lk, rk):
                return f"({left} {op} {right})", "truth"
        if isinstance(node, ast.IfExp):
            test, test_kind = self._c(node.test)
            (body, bk), (orelse, ok) = self._c(node.body), self._c(node.orelse)
            if test_kind == "truth" and bk == ok == "small":
                return f"({body} if {test} else {orelse})", "small"
        if isinstance(node, ast.BoolOp):
            parts = [self._c(value) for value in node.values]
            if all(kind == "truth" for _, kind in parts):
                joiner = " and " if isinstance(node.op, ast.And) else " or "
                return f"({joiner.join(code for code, _ in parts)})", "truth"
        raise ValueError(ast.dump(node))

    def members_read(self, var: str) -> tuple[str, str, str]:
        """How C reads the list of enum members ``var``: the prefix of the functions
        (``member``: runtime/_compiled/member_lists.pxd's, over a list), the arguments
        that stand for the list before theirs, and its length."""
        return "member", var, f"len({var})"

    def _members(self, node) -> bool:
        """Whether ``node`` names a list of enum members the reader made."""
        return isinstance(node, ast.Name) and node.id in self.member_lists

    def _small(self, node) -> str:
        code, kind = self._c(node)
        if kind != "small":
            raise ValueError("an index that may be wide")
        return code


def _is_call(node: ast.Call, *functions: str) -> bool:
    """Whether ``node`` calls one of the builtins ``functions`` with one argument."""
    return (
        isinstance(node.func, ast.Name)
        and node.func.id in functions
        and len(node.args) == 1
        and not node.keywords
    )


def _table_name(node, tables: dict[str, str]) -> bool:
    return isinstance(node, ast.Name) and node.id in tables
