"""Byte spans recorded by the parse itself, for ``wirespec inspect``.

A :class:`SpanRecorder` is handed to a parse through construct's ``_params`` (next to
the limits) as ``spans``. Constructs that read fields report into it: a record opens a
node per field (:meth:`SpanRecorder.open` / :meth:`SpanRecorder.close`), a repetition
one per element, and tags, length prefixes and counts are *marks* of the node they belong
to (:meth:`SpanRecorder.mark`). Offsets are relative to the stream being read; a construct
that parses a sub-stream wraps it in :meth:`SpanRecorder.shifted` so every span is
absolute. When no recorder is passed, :func:`current` returns None and a construct does
nothing more than that one lookup. :func:`runtime.core.codec.trace` is a parse with a
recorder:

    >>> from construct import Int8ul
    >>> from runtime.core.codec import trace
    >>> from runtime.core.record import Record
    >>> t = trace(Record("x" / Int8ul, "y" / Int8ul), b"\\x01\\x02")
    >>> [(s.start, s.end, s.path, s.value) for s in t.leaves()]
    [(0, 1, 'x', 1), (1, 2, 'y', 2)]

The leaves of a node are its marks, its children's leaves and, for bytes that none of
those cover, the node itself (role ``value``). So the leaves of a complete parse cover
every byte of the input exactly once, each labelled with its field path.

Primitives that are not constructs (hand-written decoders over a buffer and a position)
report the same way with absolute positions: ``open(key, pos)``, ``mark(...)``,
``close(end, value)``.
"""

from __future__ import annotations

import contextlib
import dataclasses

from construct import ConstructError

from runtime.core.errors import DecodeError, WirespecError


@dataclasses.dataclass
class Node:
    """One field, list element or message: a byte range with a value and sub-ranges."""

    key: str | int | None
    """Field name, list index, or None for the whole message."""
    start: int
    end: int | None = None
    """None while the node is still being read (or when reading it failed)."""
    value: object = None
    parent: Node | None = dataclasses.field(default=None, repr=False)
    children: list = dataclasses.field(default_factory=list, repr=False)
    marks: list = dataclasses.field(default_factory=list, repr=False)
    bits: tuple | None = None
    """A bit field's place in its run: (shift, width, run bytes, first of the run); the
    node spans the run's bytes (the leaves give them to the first field only)."""

    @property
    def path(self) -> str:
        """``rows[0].primary_key[1].name``; empty for the message itself."""
        parts = []
        node = self
        while node is not None and node.key is not None:
            parts.append(f"[{node.key}]" if isinstance(node.key, int) else node.key)
            node = node.parent
        out = ""
        for part in reversed(parts):
            out += part if part.startswith("[") or not out else "." + part
        return out

    @property
    def closed(self) -> bool:
        return self.end is not None

    def find(self, *path) -> Node:
        """The node at ``path`` below this one (field names and list indices)."""
        node = self
        for key in path:
            node = next(c for c in node.children if c.key == key)
        return node

    def walk(self):
        """This node and every node below it, in reading order."""
        yield self
        for child in sorted(self.children, key=lambda c: c.start):
            yield from child.walk()


@dataclasses.dataclass(frozen=True)
class Span:
    """A leaf: bytes ``[start, end)`` of the input, the field they belong to and what
    they mean (``role``: ``value``, ``tag``, ``length``, ``count``, ...)."""

    start: int
    end: int
    path: str
    value: object
    role: str = "value"
    depth: int = 0


class SpanRecorder:
    """Collects the node tree of one parse (see the module docstring)."""

    def __init__(self):
        self.root = Node(None, 0)
        self.stack = [self.root]
        self.base = 0

    @property
    def current(self) -> Node:
        return self.stack[-1]

    def open(self, key, start: int) -> Node:
        """Start a child of the current node at ``start`` (relative to the stream)."""
        node = Node(key, self.base + start, parent=self.current)
        self.current.children.append(node)
        self.stack.append(node)
        return node

    def close(self, end: int, value) -> None:
        """Finish the current node at ``end`` with its decoded value."""
        node = self.stack.pop()
        node.end = self.base + end
        node.value = value

    def mark(self, start: int, end: int, role: str, value=None) -> None:
        """Bytes of the current node that are not its value: a tag, a length, a count."""
        if end > start:
            self.current.marks.append((self.base + start, self.base + end, role, value))

    @contextlib.contextmanager
    def shifted(self, base: int):
        """Offsets inside the block are relative to ``base`` (a sub-stream)."""
        saved = self.base
        self.base = saved + base
        try:
            yield
        finally:
            self.base = saved

    def abandon(self, depth: int) -> None:
        """Drop the nodes opened since the stack was ``depth`` deep, with what they hold: a
        read given up on (the element a cut input ends inside, which
        :class:`runtime.core.sequences.RepeatEos` keeps as bytes).

        >>> recorder = SpanRecorder()
        >>> _ = recorder.open("xs", 0), recorder.open(0, 0), recorder.open("n", 0)
        >>> recorder.abandon(2)
        >>> recorder.current.key, recorder.current.children
        ('xs', [])
        """
        if len(self.stack) > depth:
            given_up = self.stack[depth]
            given_up.parent.children.remove(given_up)
            del self.stack[depth:]

    def unwind(self) -> list[Node]:
        """The nodes still open (outermost first) after a failure; empties the stack."""
        open_nodes = self.stack[1:]
        del self.stack[1:]
        return open_nodes


def current(context) -> SpanRecorder | None:
    """The recorder of the parse ``context`` belongs to, or None (the usual case)."""
    params = getattr(context, "_params", None)
    return params.get("spans") if params is not None and hasattr(params, "get") else None


def _node_leaves(node: Node, depth: int, out: list) -> None:
    parts = [(s, e, node.path, v, role, depth) for s, e, role, v in node.marks]
    for child in node.children:
        if child.bits is not None and not child.bits[3]:
            continue  # a bit run's bytes are one leaf, its first field's: leaves tile
        sub: list = []
        _node_leaves(child, depth + 1, sub)
        parts += sub
    parts.sort(key=lambda p: p[0])
    if node.closed:
        pos = node.start
        residual = []
        for s, e, *_ in parts:
            if s > pos:
                residual.append((pos, s, node.path, node.value, "value", depth))
            pos = max(pos, e)
        if node.end > pos:
            residual.append((pos, node.end, node.path, node.value, "value", depth))
        parts = sorted(parts + residual, key=lambda p: p[0])
    out.extend(parts)


@dataclasses.dataclass
class Trace:
    """The outcome of :func:`trace`: the model (None on failure), the node tree, the
    error (None on success) and the input."""

    data: bytes
    root: Node
    model: object = None
    error: DecodeError | None = None
    failing: list = dataclasses.field(default_factory=list)
    """Nodes that were open when the error happened, outermost first."""
    views: dict = dataclasses.field(default_factory=dict)
    """How the JSON form shows fields (the module's ``JSON_VIEWS``): the dump shows them so."""

    def leaves(self) -> list[Span]:
        """The leaf spans in byte order; after a failure, those of the fields read
        completely (an unfinished node contributes its marks and finished children)."""
        out: list = []
        _node_leaves(self.root, -1, out)
        return [Span(*p) for p in out if p[1] > p[0]]


def run(parse_call, data: bytes, recorder: SpanRecorder) -> Trace:
    """Call ``parse_call()`` (which parses ``data`` reporting into ``recorder``) and
    collect a :class:`Trace`; a DecodeError is kept, not raised."""
    recorder.root.start = 0
    result = Trace(bytes(data), recorder.root)
    try:
        result.model = parse_call()
    except DecodeError as err:
        result.error = err
        result.failing = recorder.unwind()
        return result
    except (ConstructError, WirespecError) as err:
        result.error = DecodeError(str(err), offset=None)
        result.failing = recorder.unwind()
        return result
    recorder.root.end = len(data)
    recorder.root.value = result.model
    return result
