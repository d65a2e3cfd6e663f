"""Spec expressions: small Python expressions over the fields read so far.

    >>> translate("1 if delete_marker else 0", {"delete_marker"})
    '1 if this.delete_marker else 0'
    >>> translate("__import__('os')", set())
    Traceback (most recent call last):
    ...
    ValueError: expression may not call __import__: only len, min, max, abs, sum, all, any
    >>> translate("length(xs)", {"xs"})
    Traceback (most recent call last):
    ...
    ValueError: expression may not call length: only len, min, max, abs, sum, all, any (did you mean 'len'?)

A field name becomes ``this.<name>`` (construct's context) and ``ENUM.MEMBER`` the
generated enum member; anything that is not arithmetic, comparison, a conditional,
indexing, a list (comprehension) or one of a few pure builtins is refused, so a spec can
never run arbitrary code. Expressions the builder evaluates (``value:``) may also say
``sizeof(field)``, the built byte size of a field (a list of sizes for a repeated one):

    >>> translate("[sizeof(h)] + [sizeof(b.groups) for b in bs if b.groups]", {"h", "bs"}, build=True)
    "[rt.sizeof(this, 'h')] + [rt.sizeof(b, 'groups') for b in this.bs if b.groups]"
    >>> translate("kind == event_type.DDL", {"kind"}, {"event_type": "EventType"})
    'this.kind == EventType.DDL'

A rule over every element says ``all([...])`` or ``any([...])``, and a count of the
elements that match is the length of a filtered list (a ``count()`` would hide the many
fields named ``count``):

    >>> translate("len([t for t in types if t == event_type.ROW]) in (0, len(types))", {"types"}, {"event_type": "EventType"})
    'len([t for t in this.types if t == EventType.ROW]) in (0, len(this.types))'

``**``, ``<<`` and ``*`` on a field become bounded runtime calls, so data that asks for a
huge number (or a list repeated a billion times) is a DecodeError, not a hang:

    >>> translate("1 << shift", {"shift"})
    'rt.shift_left(1, this.shift)'

A field named like a dict method (``items``, ``values``, ...) cannot be read by name:
construct's context is a dict, where the name is the method (``sizeof(items)`` is fine).

An expression binds no name the spec did not define: a comprehension's variable is a
new lower-case name (not a field, an enum, a builtin or a name the translation uses),
and there are no lambdas, assignments (``:=``), private or dunder attributes; text
constants are short printable ASCII (a metadata key to look up), rendered with ``repr``:

    >>> translate("[len(n) for len in names]", {"names"})
    Traceback (most recent call last):
    ...
    ValueError: a comprehension may not bind 'len': it is a builtin
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re

from runtime.core.errors import did_you_mean

_ALLOWED_NODES = (
    ast.Expression, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.IfExp, ast.Compare, ast.Call,
    ast.Constant, ast.Name, ast.Load, ast.Attribute, ast.Subscript, ast.Tuple, ast.List,
    ast.ListComp, ast.comprehension, ast.Store,
    ast.And, ast.Or, ast.Not, ast.USub, ast.Invert,
    ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.Pow,
    ast.LShift, ast.RShift, ast.BitOr, ast.BitAnd, ast.BitXor,
    ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.Is, ast.IsNot,
)  # fmt: skip
_FUNCTIONS = ("len", "min", "max", "abs", "sum", "all", "any")
BYTES_LEFT = "bytes_left()"
"""An ``if:`` of only this reads the field while bytes remain in its sized region (the
loader's, not an expression: it is refused inside one)."""
_BOUNDED_OPERATORS = {ast.Pow: "power", ast.LShift: "shift_left", ast.Mult: "times"}
"""Operators whose result can grow without bound: translated to runtime.core.record's checked
versions (both operands constant: left as they are)."""
_PUBLIC_PRIVATES = ("_parent", "_index")
"""Context names an expression may use: the enclosing record, the list position."""
_DICT_METHODS = frozenset(name for name in dir(dict) if not name.startswith("_"))
_TRANSLATION_NAMES = ("this", "rt", "sizeof")
"""Names the translated expression uses itself."""
_BOUND_NAME = re.compile(r"[a-z][a-z0-9_]*")
"""Names an expression cannot read a field by: construct's contexts are dicts, so
``this.items`` is the method (``keys``, ``values``, ``get``, ... likewise)."""


class NotEarlier(ValueError):
    """An expression names ``name``, which is no field read before it (the spec builder
    says whether it is a later field or a misspelling)."""

    def __init__(self, name: str):
        super().__init__(f"expression uses {name!r}, which is not an earlier field")
        self.name = name


def _readable(name: str) -> str:
    if name in _DICT_METHODS:
        raise ValueError(
            f"an expression cannot read a field named {name!r}: in construct's context (a "
            "dict) that is a method; rename the field"
        )
    return name


class _ToContext(ast.NodeTransformer):
    def __init__(self, fields: set[str], enums: dict[str, str]):
        self.fields = fields
        self.enums = enums
        self.bound: list[set[str]] = []

    def visit_Name(self, node: ast.Name):
        if any(node.id in names for names in self.bound):
            return node
        if node.id in _FUNCTIONS:  # calls visit only their arguments (visit_Call)
            if node.id in self.fields:
                raise ValueError(f"the field {node.id!r} is named like a function: rename it")
            raise ValueError(f"{node.id} is a function: call it")
        if node.id not in self.fields:
            raise NotEarlier(node.id)
        _readable(node.id)
        return ast.copy_location(
            ast.Attribute(ast.Name("this", ast.Load()), node.id, ast.Load()), node
        )

    def visit_Attribute(self, node: ast.Attribute):
        base = node.value
        if isinstance(base, ast.Name) and base.id in self.enums and base.id not in self.fields:
            return ast.copy_location(
                ast.Attribute(ast.Name(self.enums[base.id], ast.Load()), node.attr, ast.Load()),
                node,
            )
        _readable(node.attr)
        return self.generic_visit(node)

    def visit_ListComp(self, node: ast.ListComp):
        names: set[str] = set()
        self.bound.append(names)  # each generator sees the names bound before it
        for gen in node.generators:
            gen.iter = self.visit(gen.iter)
            if not isinstance(gen.target, ast.Name):
                # ValueError is translate()'s one failure type (see below)
                raise ValueError("a comprehension binds one name")  # noqa: TRY004
            if gen.is_async:
                raise ValueError("async comprehensions are not allowed in an expression")
            self.check_binding(gen.target.id)
            names.add(gen.target.id)
            gen.ifs = [self.visit(cond) for cond in gen.ifs]
        node.elt = self.visit(node.elt)
        self.bound.pop()
        return node

    def visit_BinOp(self, node: ast.BinOp):
        """``**``, ``<<`` and ``*`` call the bounded versions in runtime.core.record: their
        operands may come from the data (a shift by 4 billion must fail, not hang)."""
        self.generic_visit(node)
        bounded = _BOUNDED_OPERATORS.get(type(node.op))
        if bounded is None or all(isinstance(x, ast.Constant) for x in (node.left, node.right)):
            return node
        call = ast.Call(
            ast.Attribute(ast.Name("rt", ast.Load()), bounded, ast.Load()),
            [node.left, node.right],
            [],
        )
        return ast.copy_location(call, node)

    def check_binding(self, name: str) -> None:
        """A comprehension variable is a new name: it hides nothing."""
        why = ""
        if not _BOUND_NAME.fullmatch(name) or keyword.iskeyword(name):
            why = "a comprehension variable is a lower-case name"
        elif name in self.fields:
            why = "it is a field"
        elif name in self.enums:
            why = "it is an enum"
        elif name in _FUNCTIONS or hasattr(builtins, name):
            why = "it is a builtin"
        elif name in _TRANSLATION_NAMES:
            why = "the translated expression uses it"
        elif any(name in names for names in self.bound):
            why = "it is bound already"
        if why:
            raise ValueError(f"a comprehension may not bind {name!r}: {why}")

    def visit_Call(self, node: ast.Call):
        if isinstance(node.func, ast.Name) and node.func.id == "sizeof":
            if len(node.args) != 1 or node.keywords:
                raise ValueError("sizeof takes one field")
            (arg,) = node.args
            if isinstance(arg, ast.Name) and not any(arg.id in b for b in self.bound):
                owner, name = ast.Name("this", ast.Load()), arg.id
                if name not in self.fields:
                    raise ValueError(f"sizeof({name}): not a field of this record")
            elif isinstance(arg, ast.Attribute):
                owner, name = self.visit(arg.value), arg.attr
            else:
                raise ValueError("sizeof takes a field name or x.field")
            call = ast.Call(
                ast.Attribute(ast.Name("rt", ast.Load()), "sizeof", ast.Load()),
                [owner, ast.Constant(name)],
                [],
            )
            return ast.copy_location(call, node)
        node.args = [self.visit(arg) for arg in node.args]  # translate() checked the function
        return node


def _allowed_constant(value) -> bool:
    """Numbers, None, and text of up to 64 printable ASCII characters (a metadata key such
    as ``"avro.codec"``, compared with a str or bytes field: ``e.key == "avro.codec"``)."""
    if isinstance(value, str):
        return len(value) <= 64 and all(" " <= c <= "~" for c in value)
    return isinstance(value, (int, float, type(None)))


def _syntax(err: SyntaxError, text: str) -> str:
    """Python's word for what does not parse, and the slips a spec's author makes most: a
    single ``=`` (a comparison is ``==``), ``&&``/``||``/``!`` (``and``/``or``/``not``).

    >>> _syntax(SyntaxError("invalid syntax"), "version = 1")
    "invalid syntax (a comparison is '==')"
    >>> _syntax(SyntaxError("invalid syntax"), "a && b")
    "invalid syntax (Python's words: 'and', 'or', 'not')"
    """
    if re.search(r"(?<![=!<>])=(?!=)", text):
        return f"{err.msg} (a comparison is '==')"
    if re.search(r"&&|\|\||!(?!=)", text):
        return f"{err.msg} (Python's words: 'and', 'or', 'not')"
    return err.msg


def translate(
    text: str, fields: set[str], enums: dict[str, str] | None = None, build: bool = False
) -> str:
    """Check ``text`` and rewrite it to Python over construct's ``this``; ``enums`` maps
    an enum's spec name to its class, ``build`` allows ``sizeof``."""
    try:
        tree = ast.parse(str(text), mode="eval")
    except SyntaxError as err:
        raise ValueError(
            f"{str(text)!r} is not a valid expression: {_syntax(err, str(text))}"
        ) from None
    functions = _FUNCTIONS + (("sizeof",) if build else ())
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            # ValueError is translate()'s one failure type; the model turns it into a SpecError
            message = f"{type(node).__name__} is not allowed in an expression"
            raise ValueError(message)  # noqa: TRY004
        if isinstance(node, ast.Call) and not (
            isinstance(node.func, ast.Name) and node.func.id in functions
        ):
            called = getattr(node.func, "id", "")
            hint = {
                "sizeof": " (sizeof only in value:)",
                "bytes_left": " (bytes_left() only as a whole if:)",
            }.get(called, "") or did_you_mean(called, functions)
            raise ValueError(
                f"expression may not call {called or 'that'}: only"
                f" {', '.join(_FUNCTIONS)}{hint}"
            )
        if (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and node.attr not in _PUBLIC_PRIVATES
        ):
            raise ValueError("expression may not use private attributes")
        if isinstance(node, ast.Constant) and not _allowed_constant(node.value):
            message = (
                "expression constants are numbers, None or short printable ASCII text, "
                f"not {node.value!r}"
            )
            raise ValueError(message)
    return ast.unparse(_ToContext(fields, enums or {}).visit(tree))
