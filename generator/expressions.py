"""Spec expressions: small Python expressions over the fields read so far.

    >>> translate("1 if delete_marker else 0", {"delete_marker"})
    '1 if this.delete_marker else 0'
    >>> translate("__import__('os')", set())
    Traceback (most recent call last):
    ...
    ValueError: expression may not call functions other than len, min, max, abs

A field name becomes ``this.<name>`` (construct's context); anything that is not
arithmetic, comparison, a conditional, indexing or one of a few pure builtins is refused,
so a spec can never run arbitrary code.
"""

from __future__ import annotations

import ast

_ALLOWED_NODES = (
    ast.Expression, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.IfExp, ast.Compare, ast.Call,
    ast.Constant, ast.Name, ast.Load, ast.Attribute, ast.Subscript, ast.Tuple,
    ast.And, ast.Or, ast.Not, ast.USub, ast.Invert,
    ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.Pow,
    ast.LShift, ast.RShift, ast.BitOr, ast.BitAnd, ast.BitXor,
    ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.Is, ast.IsNot,
)  # fmt: skip
_FUNCTIONS = ("len", "min", "max", "abs")


class _ToContext(ast.NodeTransformer):
    def __init__(self, fields: set[str]):
        self.fields = fields

    def visit_Name(self, node: ast.Name):
        if node.id in _FUNCTIONS:
            return node
        if node.id not in self.fields:
            raise ValueError(f"expression uses {node.id!r}, which is not an earlier field")
        return ast.copy_location(
            ast.Attribute(ast.Name("this", ast.Load()), node.id, ast.Load()), node
        )


def translate(text: str, fields: set[str]) -> str:
    """Check ``text`` and rewrite it to Python over construct's ``this``."""
    try:
        tree = ast.parse(str(text), mode="eval")
    except SyntaxError as err:
        raise ValueError(f"not a valid expression: {err.msg}") from None
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            # ValueError is translate()'s one failure type; the model turns it into a SpecError
            message = f"{type(node).__name__} is not allowed in an expression"
            raise ValueError(message)  # noqa: TRY004
        if isinstance(node, ast.Call) and not (
            isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS
        ):
            raise ValueError(
                f"expression may not call functions other than {', '.join(_FUNCTIONS)}"
            )
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise ValueError("expression may not use private attributes")
    return ast.unparse(_ToContext(fields).visit(tree))
