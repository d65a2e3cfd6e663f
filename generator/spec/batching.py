"""The ``batch:`` language: how ``encode_events`` packs a codec's models into messages,
shared by a ``map:``'s way back (Craft, :mod:`generator.spec.unmapping`) and a
``kafka_message:`` (Open Protocol). :func:`generator.emit.unmapping.render_batch` renders it.

- ``alone:``: the classes whose model is a message of its own (pending models written
  first): ``map:`` classes, or members of the ``enum:`` a ``kafka_message:`` names;
- ``max_count:`` / ``max_bytes:``: the two limits, each an argument with its default;
  below 1 is an EncodeError before any model, unless ``positive: false`` (then a
  ``max_count`` below 1 makes every model a batch of its own);
- ``estimate:``: the running size: ``message:`` a batch's own (default 0), ``model:`` per
  model (and, in a ``map:``, ``column:`` per column of its groups), a small grammar with
  ``sizeof(NAME)``;
- ``exceeding:``: ``ends`` (the model that takes the estimate past ``max_bytes`` ends its
  batch; the default) or ``opens`` (a model that would take it past ``max_bytes``, or
  find the batch full, opens the next one);
- ``messages: {too_large:}``: a model not alone whose batch of its own would be past
  ``max_bytes`` is this EncodeError at ``events[i]`` (``{size}``: that estimate,
  ``{limit}``: ``max_bytes``; plain replacement, spec text never becomes code).
"""

from __future__ import annotations

import ast
import dataclasses

RENDERED_NAMES = ("batch", "estimate", "i", "message", "messages", "model", "models", "pack",
                  "part", "parts", "rt", "size", "writer")  # fmt: skip
"""The names :func:`generator.emit.unmapping.render_batch` binds: no limit's argument."""


@dataclasses.dataclass
class Batch:
    """A ``batch:`` as the renderer needs it: the ``alone:`` members' values (and names,
    for the docs), the limits ``(argument, default)`` (max_count, max_bytes), the ones
    that must be positive, the batch's own estimate (Python), ``exceeding:``, the
    ``too_large:`` message (None: none), and the spec line."""

    alone: list[int]
    alone_members: tuple[str, ...]
    limits: list[tuple[str, int]]
    positive: list[str]
    start: str
    exceeding: str
    too_large: str | None
    line: int | None
    model_text: str = ""
    """A ``kafka_message:``'s ``estimate: {model:}`` as the spec writes it, for the docs."""


def read_batch(reader, raw: dict, members: dict[str, int], not_a_member: str) -> Batch:
    """The parts of ``raw`` (a ``batch:``) both places share. ``reader`` has ``error(parts,
    message)`` and ``line(parts)`` (parts under the ``batch:``'s parent); ``members``: the classes ``alone:`` may name (member -> value).
    """
    alone = []
    for n, member in enumerate(raw["alone"]):
        if member not in members:
            raise reader.error(("batch", "alone", n), f"{member!r} is not {not_a_member}")
        alone.append(members[member])
    limits = [(raw[k]["argument"], raw[k]["default"]) for k in ("max_count", "max_bytes")]
    if limits[0][0] == limits[1][0]:
        raise reader.error(("batch", "max_bytes", "argument"), "max_count: and max_bytes: "
                           "are two arguments")  # fmt: skip
    for key, (argument, _default) in zip(("max_count", "max_bytes"), limits):
        if argument in RENDERED_NAMES:
            raise reader.error(("batch", key, "argument"), f"{argument!r} is a name the rendered "
                               f"batch uses ({', '.join(RENDERED_NAMES)})")  # fmt: skip
    positive = [
        raw[k]["argument"] for k in ("max_count", "max_bytes") if raw[k].get("positive", True)
    ]
    start = expression(
        reader.error, raw["estimate"].get("message", "0"), {}, ("batch", "estimate", "message")
    )
    return Batch(
        alone, tuple(raw["alone"]), limits, positive, start, raw.get("exceeding", "ends"),
        raw.get("messages", {}).get("too_large"), reader.line(("batch",)),
    )  # fmt: skip


class _Under:
    """``error`` and ``line`` at parts under ``parts`` of a spec's builder."""

    def __init__(self, builder, parts: tuple):
        self.builder, self.parts = builder, parts

    def error(self, parts, message):
        return self.builder.error(self.parts + parts, message)

    def line(self, parts) -> int | None:
        return self.builder.lines.line(self.parts + parts)


def read_kafka_batch(builder, raw: dict, enum) -> tuple[Batch, str]:
    """A ``kafka_message:``'s ``batch:`` and its model estimate (Python over ``part``, what
    the codec's ``parts(i, model)`` gives: the model's class, a member of ``enum`` (the
    enum its ``class_by:`` key names), then its Kafka columns as written, in ``columns:``
    order)."""
    under = _Under(builder, ("kafka_message",))
    batch = raw["batch"]
    for section, key in (("estimate", "column"), ("messages", "empty"), ("messages", "alone")):
        if key in batch.get(section, {}):
            raise under.error((("batch", section)), f"a kafka_message's batch: has no {section}: "
                              f"{{{key}:}} (a map:'s has)")  # fmt: skip
    members = {v.name: v.value for v in enum.values}
    common = read_batch(under, batch, members, f"a member of {enum.name}")
    columns = {column: f"part[{n + 1}]" for n, column in enumerate(raw["columns"])}
    estimate = expression(
        under.error, batch["estimate"]["model"], columns, ("batch", "estimate", "model"),
        sized=set(columns.values()),
    )  # fmt: skip
    common.model_text = batch["estimate"]["model"]
    return common, estimate


def expression(error, text: str, names: dict[str, str], parts, texts=(), byte_values=(), sized=()):
    """``text`` checked against the way back's grammar (names, integer constants, None,
    arithmetic, comparisons, ``if``/``else``, ``sizeof(NAME)``), its names renamed by
    ``names``: ``sizeof()`` inline for the renamed ``texts`` (a str or None),
    ``byte_values`` (bytes or None), ``sized`` (always bytes) and None. ``error(parts,
    message)`` makes the spec error.

    >>> expression(None, "sizeof(key) + 16", {"key": "part[1]"}, (), sized={"part[1]"})
    'len(part[1]) + 16'
    """
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as err:
        raise error(parts, f"{text!r}: {err.msg}") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id not in names and node.id != "sizeof":
                raise error(parts, f"{text!r}: unknown name {node.id!r} "
                            f"(it may name {sorted(names)})")  # fmt: skip
        elif isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id == "sizeof"
                    and len(node.args) == 1 and not node.keywords
                    and isinstance(node.args[0], ast.Name)):  # fmt: skip
                raise error(parts, f"{text!r}: the only call is sizeof(NAME)")
        elif isinstance(node, ast.Constant):
            if type(node.value) is not int and node.value is not None:
                raise error(parts, f"{text!r}: constants are integers or None")
        elif not isinstance(node, _GRAMMAR):
            raise error(parts, f"{text!r}: {type(node).__name__} is not allowed here")
    return ast.unparse(_Renamed(names, set(texts), set(byte_values), set(sized)).visit(tree))


_GRAMMAR = (
    ast.Expression, ast.BinOp, ast.UnaryOp, ast.IfExp, ast.Compare, ast.BoolOp, ast.Load,
    ast.Add, ast.Sub, ast.Mult, ast.USub, ast.Not, ast.And, ast.Or,
    ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot,
)  # fmt: skip
"""The nodes a way back expression may have beside names, integers, None and sizeof()."""


class _Renamed(ast.NodeTransformer):
    """Names renamed; ``sizeof(x)`` as ``runtime.core.unmap.wire_size`` would say it, inline
    where ``x`` is known to be a name (UTF-8), bytes or None, or bytes."""

    def __init__(self, names: dict[str, str], texts: set, byte_values: set, sized: set):
        self.names, self.texts, self.byte_values, self.sized = names, texts, byte_values, sized

    def visit_Call(self, node: ast.Call):
        local = self.names[node.args[0].id]
        if local == "None":
            out = "0"
        elif local in self.texts:
            out = f'(len({local}.encode("utf-8", "surrogateescape")) if {local} else 0)'
        elif local in self.byte_values:
            out = f"(len({local}) if {local} else 0)"
        elif local in self.sized:
            out = f"len({local})"
        else:
            out = f"rt_unmap.wire_size({local})"
        return ast.copy_location(ast.parse(out, mode="eval").body, node)

    def visit_Name(self, node: ast.Name):
        return ast.copy_location(ast.Name(self.names[node.id], ast.Load()), node)
