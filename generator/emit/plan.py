"""The plan's vocabulary: the frozen steps a record's reading plan is made of.

:class:`generator.emit.lowering.Lowering` decides, per record, which steps read it and in
which order; :class:`RecordPlan` holds the result. The renderers (``generator/emit/quicktier.py``,
``generator/emit/compiled.py``, ``generator/emit/compiled_arrow.py``) walk the steps and
decide nothing about the spec again. The steps that choose what is read are in
:mod:`generator.emit.plan_branches`, a trailer's in :mod:`generator.emit.plan_trailers`, a
checksum's in :mod:`generator.emit.plan_checksums`, a mysql::serialization message's in
:mod:`generator.emit.plan_keyed`.

A step's ``size`` is the bytes it reads at a constant offset from ``pos`` (a renderer reads a
run of such steps at ``pos + k`` and moves ``pos`` once), or None when it moves ``pos`` by
what it reads. ``str(step)`` is one line of a plan's description (``RecordPlan.describe``).

    >>> print(Number("f_id", "u32", enum="kind"))
    u32 f_id in enum kind
    >>> Number("f_id", "u32").size, Number("f_len", "uvarint").size
    (4, None)
"""

from __future__ import annotations

import dataclasses

from generator.spec.types import PRIMITIVES


def fixed_size(prim) -> int | None:
    """The size of a fixed-width number (not a varint), else None."""
    p = PRIMITIVES.get(prim) if isinstance(prim, str) else None
    if p is None or p.size is None or prim.startswith("msb_"):
        return None
    if p.kind not in ("int", "uint", "float", "bool"):
        return None
    return p.size


VARINTS = {"uvarint": False, "varint": True}
"""The LEB128 varints a plan reads (at most 10 bytes, 64 bits) -> whether ZigZag-signed."""


def may_be_negative(prim: str) -> bool:
    """Whether a length or count read as ``prim`` may be negative."""
    return VARINTS[prim] if prim in VARINTS else PRIMITIVES[prim].signed


# -- the steps --------------------------------------------------------------------------


def _indented(lines: list[str]) -> list[str]:
    return ["  " + line for line in lines]


def _steps_lines(steps) -> list[str]:
    return _indented([line for step in steps for line in step.lines()])


@dataclasses.dataclass(frozen=True)
class Step:
    """One step of a plan."""

    @property
    def size(self) -> int | None:
        """Bytes read at a constant offset from ``pos``; None when ``pos`` moves by what
        is read (or by a branch)."""
        return None

    def lines(self) -> list[str]:
        """The step as text, one line per step (children indented under it)."""
        return [str(self)]


@dataclasses.dataclass(frozen=True)
class TagByte(Step):
    """One byte that must be ``byte`` (a record's or a field's tag)."""

    byte: int

    @property
    def size(self) -> int:
        return 1

    def __str__(self) -> str:
        return f"tag 0x{self.byte:02x}"


@dataclasses.dataclass(frozen=True)
class Number(Step):
    """A number ``prim`` into ``var``: fixed-width, or a varint (``uvarint``; ``varint``
    ZigZag-signed) of at most 10 bytes and 64 bits; a ``bool`` must be 0 or 1, an ``enum``
    value must be a member (``var`` is the member), a ``const`` must match. ``keep``: its
    bytes are kept for a checksum."""

    var: str
    prim: str
    enum: str | None = None
    const: int | None = None
    keep: bool = False

    @property
    def size(self) -> int | None:
        return fixed_size(self.prim)

    @property
    def zigzag(self) -> bool:
        return VARINTS.get(self.prim, False)

    def __str__(self) -> str:
        text = f"{self.prim} {self.var}"
        if self.enum:
            text += f" in enum {self.enum}"
        if self.const is not None:
            text += f" == {self.const:#x}"
        return text + ", kept" * self.keep


@dataclasses.dataclass(frozen=True)
class Length(Step):
    """A length prefix, a fixed-width integer or a varint, into ``var`` (unchecked: the
    step that uses it checks it)."""

    var: str
    prim: str

    @property
    def size(self) -> int | None:
        return fixed_size(self.prim)

    @property
    def signed(self) -> bool:
        return may_be_negative(self.prim)

    @property
    def zigzag(self) -> bool:
        return VARINTS.get(self.prim, False)

    def __str__(self) -> str:
        return f"length {self.var}: {self.prim}"


@dataclasses.dataclass(frozen=True)
class Text(Step):
    """A string (``kind`` ``str``, decoded with ``encoding``, trailing ``pad`` bytes
    stripped) or ``bytes``: ``fixed`` bytes, or ``length`` (a :class:`Length`'s variable)
    bytes checked first: not negative, at most ``max_length``, ``limits.max_string`` and
    what is left before ``end``. ``keep``: its bytes are kept for a checksum."""

    var: str
    kind: str
    end: str
    encoding: str = "utf8"
    pad: bytes = b""
    terminator: int | None = None
    """The value runs to this byte (consumed, not part of it) within ``end``."""
    fixed: int | None = None
    length: str | None = None
    signed: bool = False
    max_length: int | None = None
    keep: bool = False
    nullable: bool = False
    """The length -1 is None."""
    to_end: bool = False
    """Every byte left before ``end`` (``size: eos``)."""

    @property
    def size(self) -> int | None:
        return self.fixed

    def __str__(self) -> str:
        what = f"{self.fixed}" if self.fixed is not None else self.length
        if self.to_end:
            what = "the rest"
        if self.terminator is not None:
            what = f"to byte {self.terminator:#04x}"
        if self.nullable:
            what += " (-1: None)"
        text = f"{self.kind} {self.var}: {what} bytes"
        if self.kind == "str":
            text += f" {self.encoding}"
        if self.pad:
            text += f", {self.pad!r} stripped"
        if self.max_length is not None:
            text += f", <= {self.max_length}"
        text += ", <= max_string"
        if self.length or self.terminator is not None:
            text += f", within {self.end}"
        return text + ", kept" * self.keep


@dataclasses.dataclass(frozen=True)
class Nothing(Step):
    """No bytes: ``var`` is None (an ``empty`` value)."""

    var: str

    @property
    def size(self) -> int:
        return 0

    def __str__(self) -> str:
        return f"{self.var} = None"


@dataclasses.dataclass(frozen=True)
class Chunk(Step):
    """A counted run of LEB128 varints before ``end`` into the list ``var``: ``count`` (a
    variable or an expression) must be an int, 0 to ``limits.max_count`` and at most the
    bytes left (each element takes one). The varints are ZigZag-signed (``zigzag``), each
    the difference to the one before (``delta``: modulo 2**64, or int64-wrapped when
    signed), members of ``enum``. With a ``payload`` (``bytes`` or ``str``, decoded with
    ``encoding``) they are the lengths, -1 to ``limits.max_string`` (-1: None), and the
    payloads follow them back to back."""

    var: str
    count: str
    end: str
    zigzag: bool = False
    delta: bool = False
    enum: str | None = None
    payload: str = ""
    encoding: str | None = None

    def __str__(self) -> str:
        kind = ("zigzag " if self.zigzag else "u") + "varints"
        if self.delta:
            kind = "delta " + kind
        text = f"chunk {self.var}: {self.count} {kind}"
        if self.enum:
            text += f" in enum {self.enum}"
        if self.payload:
            text += f" (lengths, -1: None), then the {self.payload}"
            text += f" {self.encoding}" if self.encoding else ""
        return text + f", within {self.end}"


@dataclasses.dataclass(frozen=True)
class Repeat(Step):
    """Items into the list ``var``, at most ``limits.max_count``: records ``record`` read
    by their own reader, or by ``steps`` (inline: a record, its last step builds ``item``;
    or a value's steps into ``item``). ``until`` says how many:

    - ``eos``: until ``end``; ``tagged``: while the next byte before ``end`` is ``tag``;
      at least ``min_count``;
    - ``count``: the Python expression ``count`` (an int, not negative, else not mine);
    - ``blocks``: Avro's blocks: a ZigZag varint count (0 ends; negative: a varint byte
      size follows, and the block must end there), its counts kept in ``blocks``;
    - ``until``: items while bytes are left before ``end``, up to the first for which the
      Python expression ``stop`` (over ``item`` and the plan's variables; an error
      evaluating it: not mine) is true; no bytes left before it: not mine. With
      ``terminator``, that last item goes there instead of into the list."""

    var: str
    record: str
    until: str
    end: str
    tag: int | None = None
    min_count: int = 0
    count: str = ""
    blocks: str = ""
    item: str = "item"
    steps: tuple[Step, ...] | None = None
    depth: int = 0
    """A record read by its own reader in a spec with recursion: the nesting depth it is
    read at, past the plan's record (0: readers take no depth)."""
    stop: str = ""
    terminator: str = ""
    index: str = ""
    """The variable that holds each item's index while it is read (an expression reads
    ``_index``: a size, or the parent's index in a record read inline)."""
    cut: str = ""
    """``on_cut: keep`` of records read by ``_read_<record>`` alone: the variable the bytes of
    the item the input ends inside go to, in the quick tier (which reads a cut input once:
    ``runtime.core.sequences.cut_or_retry``); else a cut is the exact reader's."""

    def lines(self) -> list[str]:
        what = self.record or "values"
        how = {
            "tagged": f"while tag 0x{self.tag or 0:02x} before {self.end}",
            "count": f"{self.count} times, within {self.end}",
            "blocks": f"in blocks (counts {self.blocks}) within {self.end}",
            "until": f"until {self.stop}, within {self.end}"
            + f" (the last one to {self.terminator})" * bool(self.terminator),
        }.get(self.until, f"until {self.end}")
        text = f"repeat {self.var}: {what} {how}, <= max_count"
        text += f", >= {self.min_count}" if self.min_count else ""
        text += ", inline" if self.steps is not None else ", called"
        text += f" at depth +{self.depth}" * bool(self.depth)
        text += f", index {self.index}" * bool(self.index)
        return [text] + _steps_lines(self.steps or ())


@dataclasses.dataclass(frozen=True)
class Valid(Step):
    """The Python ``expression`` over the plan's variables must be true (an error
    evaluating it is false)."""

    expression: str

    @property
    def size(self) -> int:
        return 0

    def __str__(self) -> str:
        return f"valid {self.expression}"


@dataclasses.dataclass(frozen=True)
class Derived(Step):
    """``var`` is the Python ``expression`` over the plan's variables (an error evaluating
    it: not mine)."""

    var: str
    expression: str

    @property
    def size(self) -> int:
        return 0

    def __str__(self) -> str:
        return f"derived {self.var} = {self.expression}"


@dataclasses.dataclass(frozen=True)
class Processed(Step):
    """``process:``: ``length`` bytes (checked as :class:`Nested` checks them) kept as
    bytes in ``wire``, decoded by the codec ``cases`` maps the Python expression ``codec``
    to (``none``: read where they are), then read by ``steps`` (a record read inline into
    ``var``, or a :class:`Repeat` of them) within ``inner_end``, which they must fill
    exactly. ``rest`` (``process: {size: eos}``): the bytes up to ``end``, ``length`` set
    to their count, and ``wire`` None when the codec is ``none``."""

    var: str
    wire: str
    codec: str
    cases: tuple[tuple[int | str, str], ...]
    length: str
    signed: bool
    end: str
    inner_end: str
    steps: tuple[Step, ...]
    rest: bool = False

    def lines(self) -> list[str]:
        cases = ", ".join(f"{k!r}: {v}" for k, v in self.cases)
        head = (
            f"processed {self.var}: {self.length} bytes kept in {self.wire}, decoded by"
            f" {{{cases}}}[{self.codec}], read within {self.inner_end}"
        )
        return [head] + _steps_lines(self.steps)


@dataclasses.dataclass(frozen=True)
class Nested(Step):
    """A record ``record`` into ``var``. With ``length`` (a :class:`Length`'s variable,
    checked against ``limits.max_message_bytes`` and what is left before ``end``), it is
    read within ``inner_end`` and must end there. ``steps``: read inline (its fields
    named with another prefix, the last step builds ``var``); None: by its own reader.
    ``keep``: its start and end (``<var>_at``, ``<var>_end``) are kept for a checksum.
    ``record`` empty: a value that is no record (a sized :class:`Switch`, the one step)
    read within ``length``."""

    var: str
    record: str
    end: str
    inner_end: str
    length: str | None = None
    signed: bool = False
    keep: bool = False
    steps: tuple[Step, ...] | None = None
    depth: int = 0
    """As :class:`Repeat`'s: the depth a record read by its own reader is read at."""

    def lines(self) -> list[str]:
        within = f" within {self.length} bytes ({self.inner_end})" if self.length else ""
        how = "inline" if self.steps is not None else "called"
        how += f" at depth +{self.depth}" * bool(self.depth)
        what = f"record {self.var}: {self.record}" if self.record else f"value {self.var}:"
        head = f"{what}{within}, {how}" + ", kept" * self.keep
        return [head] + _steps_lines(self.steps or ())


@dataclasses.dataclass(frozen=True)
class Bits(Step):
    """A bit field into ``var``: ``width`` bits at ``shift`` of the run ``run``, a
    ``group``-byte integer in ``order`` (``big``; ``little``: ``b<n>le``) read by the run's
    ``first`` field; ``signed``: two's complement in its width; a ``const`` must match; an
    ``enum`` value must be a member (``var`` is the member, as :class:`Number`'s)."""

    var: str
    run: str
    group: int
    shift: int
    width: int
    first: bool
    order: str = "big"
    signed: bool = False
    const: int | None = None
    enum: str | None = None

    @property
    def size(self) -> int:
        return self.group if self.first else 0

    @property
    def mask(self) -> int | None:
        """The mask after the shift, None when the shift leaves only this field."""
        return None if self.shift + self.width >= 8 * self.group else (1 << self.width) - 1

    def __str__(self) -> str:
        text = f"bits {self.var}: {self.width} at {self.shift} of {self.run}"
        if self.first:
            text += f" ({self.group} bytes, {self.order})"
        text += ", signed" * self.signed
        text += f" in enum {self.enum}" if self.enum else ""
        return text + (f" == {self.const:#x}" if self.const is not None else "")


@dataclasses.dataclass(frozen=True)
class Computed(Step):
    """A length ``var`` computed by the Python ``expression`` over earlier fields (``size:
    length``): an int, else not mine (the step that uses it checks its range)."""

    var: str
    expression: str

    @property
    def size(self) -> int:
        return 0

    def __str__(self) -> str:
        return f"length {self.var} = {self.expression}"


@dataclasses.dataclass(frozen=True)
class Build(Step):
    """The model: a ``class_name`` made without ``__init__``, its ``fields`` (name,
    variable) stored, into ``var``."""

    var: str
    class_name: str
    fields: tuple[tuple[str, str], ...]

    @property
    def size(self) -> int:
        return 0

    def __str__(self) -> str:
        return f"{self.var} = {self.class_name}({', '.join(v for _, v in self.fields)})"


@dataclasses.dataclass(frozen=True)
class FieldSteps(Step):
    """The steps of one field, from spec line ``line`` (the renderers' source comment)."""

    name: str
    line: int | None
    steps: tuple[Step, ...]

    @property
    def size(self) -> int | None:
        sizes = [step.size for step in self.steps]
        return None if None in sizes else sum(sizes)

    def lines(self) -> list[str]:
        return [f"field {self.name} (line {self.line})"] + _steps_lines(self.steps)


@dataclasses.dataclass(frozen=True)
class RecordPlan:
    """The plan of one record: its ``steps`` (the last builds ``model``), read within
    ``end``; ``depth``: the nesting depth it reads; ``entry``: it has a reader of its own
    (the default record, or one another plan calls)."""

    name: str
    class_name: str
    steps: tuple[Step, ...]
    depth: int
    entry: bool
    checks_depth: bool = False
    """The spec recurses: the reader takes the depth it is read at and checks
    ``depth + self.depth - 1`` against ``max_depth`` itself (``depth`` then counts the
    records read by their own readers as 0: they check their own)."""

    def describe(self) -> str:
        head = f"{self.name} -> {self.class_name}, nesting depth {self.depth}"
        head += ", checked by the reader" * self.checks_depth
        head += ", entry" if self.entry else ", inline only"
        return "\n".join([head] + _steps_lines(self.steps))

    __str__ = describe


def flatten(steps) -> list[Step]:
    """``steps`` with every :class:`FieldSteps` replaced by itself (its comment) and its
    steps: a renderer reads runs of fixed-size steps across fields."""
    out: list[Step] = []
    for step in steps:
        if isinstance(step, FieldSteps):
            out.append(step)
            out += flatten(step.steps)
        else:
            out.append(step)
    return out


def last_repeat(steps) -> tuple[FieldSteps, Repeat] | None:
    """The last field of a record's ``steps`` and its repeat, when a lone repeat reads that
    field and the model is built right after it (a row field's form)."""
    *_, last, build = steps
    if not isinstance(build, Build) or not isinstance(last, FieldSteps):
        return None
    if len(last.steps) != 1 or not isinstance(last.steps[0], Repeat):
        return None
    return last, last.steps[0]


# -- the lowering -----------------------------------------------------------------------


def walk_steps(steps):
    """Every step of ``steps``, nested ones (a step's ``steps``, ``default``, its cases')
    included, in reading order."""
    for step in steps or ():
        yield step
        for inner in ("steps", "default"):
            yield from walk_steps(getattr(step, inner, None))
        for case in getattr(step, "cases", None) or ():
            yield from walk_steps(getattr(case, "steps", None))
