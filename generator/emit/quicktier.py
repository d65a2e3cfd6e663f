"""The quick tier: an optimistic reader tried before the exact fast path.

For the records that have a plan (``generator/emit/lowering.py``), the emitter renders ::

    def _quick_cell(buf, pos, end, limits):
        ...
        return model, pos

which makes every check that ``_read_cell`` (the exact fast path) makes, but keeps no error
bookkeeping: no field spans, no offsets, no messages, no field path. At the first check that
fails it raises ``runtime.core.fast.Retry`` (a read past the buffer raises IndexError or
struct.error, bad text UnicodeDecodeError: ``runtime.core.fast.QUICK_FAILURES`` all), and
``runtime.core.codec.parse_fast`` then reads the input again with the exact reader, which gives
the exact ``DecodeError``. So it can only accept what the exact reader accepts, with the
same model, and errors stay identical.

What it saves: bounds checks, offsets read at constants from ``pos`` (a run of fixed-size
steps such as a tag, a tag and a length moves ``pos`` once), a record used once, outside a
repeat, read inline (no call, no ``(model, pos)`` tuple), the bytes a checksum covers kept
from the reads, a CRC-8 over one-byte items (a row's cell checksums) as a table loop instead
of a ``bytes`` built for the C function. The nesting depth of a record is known from the
spec (the tier reads no recursive record), so ``max_depth`` is compared once per parse.

Why no bounds checks: ``pos`` only grows, and every read moves it past the bytes read, so a
read past ``end`` leaves ``pos`` beyond ``end`` for good (a loop ``while pos < end`` stops, an
optional tag tested with ``pos < end`` is absent, a length is more than ``end - pos``). Every
``end`` is either the input's (past it, a fixed read raises IndexError or struct.error, and
``parse_fast`` takes only ``pos == len(data)``), a ``process:``ed region's decoded bytes (the
same: ``buf`` is then those bytes, and ``pos`` must end at their length), or a length's,
after which the reader tests ``pos`` against it; bytes to the end (``size: eos``) are read
only from ``pos <= end``. So whatever read past an ``end`` is refused, as the exact reader
refuses it. Varints longer than a byte go through ``read_uvarint`` (its 10-byte and 64-bit
checks), and every spec expression (``derived:``, ``if:``, ``valid:``, a count, a codec)
that fails to evaluate is a Retry.

This module only renders: what is read, in which order and with which checks is the plan's.
"""

from __future__ import annotations

from generator.emit.lowering import Lowering
from generator.emit.order_plans import OrderChoice, quick_order_choice
from generator.emit.plan import (
    Bits,
    Build,
    Chunk,
    Computed,
    Derived,
    FieldSteps,
    Length,
    Nested,
    Nothing,
    Number,
    Processed,
    Repeat,
    TagByte,
    Text,
    Valid,
    flatten,
    walk_steps,
)
from generator.emit.plan_branches import Choice, Optional, Presence, Switch, When
from generator.emit.plan_checksums import Checksum, Mark
from generator.emit.plan_keyed import KEYED_STEPS
from generator.emit.plan_trailers import EndsAt, FromEnd
from generator.emit.pysource import (
    LineWriter,
    codec_cases,
    decode_call,
    float32_exact,
    struct_format,
    struct_name,
)
from generator.emit.quick_helpers import (
    QUICK_MSB,
    QUICK_UVARINT,
    QUICK_UVARINT_SHORTEST,
    QUICK_VARINTS,
    fused_format,
    fused_runs,
)
from generator.emit.quick_helpers import RETRY as _RETRY
from generator.emit.quick_keyed import QuickKeyed
from generator.emit.quick_pending import QuickPending
from generator.spec import pytext

_STACK_DEPTH = 200
"""Where a spec recurses, deeper than this the Python stack is not trusted (a level is at
most a call): the exact reader decides, and turns a RecursionError into a DecodeError."""
_EXPRESSION_FAILURES = "(DecodeError, *rt.EXPRESSION_ERRORS)"


class QuickTierEmitter(QuickPending, QuickKeyed):
    """Renders the quick-tier functions of one spec (see the module docstring)."""

    def __init__(self, spec, lowering: Lowering | None = None):
        self.spec = spec
        self.lowering = lowering or Lowering(spec)
        self.entries = self.lowering.entries
        self.unpackers: dict[str, str] = {}
        """``_UNPACK_LE_S32``-style names of bound ``unpack_from`` methods -> struct format."""
        self.uses_crc8_table = False
        self.uses_uvarint = False
        self.choice_tables: dict[str, Choice] = {}
        """Module-level tables of a choice's first byte -> its cases' readers."""
        self.uses_msb = False
        self.uses_varints = False
        self.cut_vars: set[str] = set()
        """The ``on_cut: keep`` bytes a repeat sets (``cut_repeat``), not its kept field."""
        self.read: set[str] = set()
        """Variables a fused read (:meth:`fused`) has already read."""
        self.fused_tags: dict[int, str] = {}
        """The variables a fused read read tag bytes into, by ``id`` of their step."""
        self.codec_cases: dict[str, str] = {}
        """Module constants of ``process:`` codecs' cases: name -> their dict."""

    def module_code(self) -> str:
        plans = self.lowering.plans
        functions = [self.record_function(plans[name]) for name in self.entries]
        constants = [
            f"{name} = struct.Struct({fmt!r}).unpack_from"
            for name, fmt in sorted(self.unpackers.items())
        ]
        if self.uses_crc8_table:
            constants.append("_CRC8_TABLE = rt_fast.CRC8_TABLE")
        constants += self.pending_constant()
        constants += [f"{name} = {cases}" for name, cases in self.codec_cases.items()]
        if self.uses_uvarint:
            kept = self.spec.kept_varints  # a longer one is the exact reader's to keep
            functions.insert(0, QUICK_UVARINT_SHORTEST if kept else QUICK_UVARINT)
        for table, step in self.choice_tables.items():
            cases = ", ".join(f"({m!r}, {k!r}, _quick_{r})" for m, k, r in step.cases)
            functions.append(f"{table} = rt_fast.choice_table([{cases}])")
        if self.uses_msb:
            functions.insert(0, QUICK_MSB)
        if self.uses_varints:
            functions.insert(0, QUICK_VARINTS)
        table = (
            [
                "# The quick tier of `parse`: (reader, the nesting depth it reads) by record.",
                "QUICK_READERS = {",
            ]
            + [f"    {name!r}: (_quick_{name}, {plans[name].depth})," for name in self.entries]
            + ["}"]
        )
        return "\n\n".join(
            ["\n".join(constants)] * bool(constants) + functions + ["\n".join(table)]
        )

    def record_function(self, plan) -> str:
        self.w = LineWriter()
        self.w.line(
            f'"""``_read_{plan.name}``\'s checks without its errors: any failure raises '
            '``rt_fast.Retry``."""'
        )
        self.off = 0
        self.plan = plan
        self.pending = self.pending_repeat(plan)
        self.selectors = {s.selector for s in walk_steps(plan.steps) if isinstance(s, Switch)}
        self.codes: set[str] = set()
        """Enum fields read here whose integer code ``<var>_code`` a switch compares with
        (exact ints compare faster than an IntEnum member)."""
        if plan.checks_depth:  # the exact reader checks each record's; the deepest is this
            extra = f" + {plan.depth - 1}" if plan.depth > 1 else ""
            self.retry_if(f"depth{extra} > limits.max_depth or depth > {_STACK_DEPTH}")
        self.steps(plan.steps)
        self.flush()
        self.w.line("return model, pos")
        params = "buf, pos, end, limits" + ", depth=1" * plan.checks_depth
        params += ", checking=False" * (plan.name in self.checked_alone)
        return f"def _quick_{plan.name}({params}):\n" + "\n".join(self.w.lines)

    # `off`: the bytes past `pos` read by the fixed steps so far, `pos` not yet advanced.

    def steps(self, steps) -> None:
        flat = flatten(steps)
        runs = fused_runs(flat, self.spec.endian)
        for i, step in enumerate(flat):
            if isinstance(step, FieldSteps):
                # the comment does not end a run of fixed steps, unless the field's first
                # step does
                if i + 1 < len(flat) and flat[i + 1].size is None:
                    self.flush()
                self.w.line(pytext.source_comment(self.spec.source.display, step.line, step.name))
            elif step.size is not None:
                if i in runs:
                    self.fused(runs[i], self.at())
                self.fixed(step, self.at())
                self.off += step.size
            else:
                self.flush()
                self.moving(step)

    def at(self, extra: int = 0) -> str:
        off = self.off + extra
        return f"pos + {off}" if off else "pos"

    def flush(self) -> None:
        if self.off:
            self.w.line(f"pos += {self.off}")
            self.off = 0

    def retry_if(self, condition: str) -> None:
        self.w.line(f"if {condition}:")
        with self.w.indent():
            self.w.line(_RETRY)

    def branch(self, steps) -> None:
        self.off = 0
        self.steps(steps)
        self.flush()

    # -- steps at a constant offset ----------------------------------------------------

    def fixed(self, step, at: str) -> None:
        if isinstance(step, KEYED_STEPS):
            self.keyed(step)
        elif isinstance(step, TagByte):
            byte = self.fused_tags.pop(id(step), f"buf[{at}]")
            self.retry_if(f"{byte} != 0x{step.byte:02x}")
        elif isinstance(step, Number):
            self.number(step, at)
        elif isinstance(step, Length):
            if not self.was_read(step.var):
                self.w.line(f"{step.var} = {self.read_int(step.prim, at)}")
        elif isinstance(step, Text):
            self.retry_if(f"limits.max_string < {step.fixed}")
            self.sliced(step, at, self.at(step.fixed))  # `off` is this step's offset
        elif isinstance(step, Nothing):
            self.w.line(f"{step.var} = None")
        elif isinstance(step, Bits):
            self.bits(step, at)
        elif isinstance(step, Computed):
            self.evaluate(step.var, step.expression)
            self.retry_if(f"type({step.var}) is not int")
        elif isinstance(step, Checksum):
            self.checksum(step)
        elif isinstance(step, Derived):
            if step.var not in self.cut_vars:  # on_cut: keep's bytes: set by the repeat
                self.evaluate(step.var, step.expression)
        elif isinstance(step, Mark):
            self.w.line(f"{step.var} = {at}")
        elif isinstance(step, Valid):
            self.w.line("try:")
            with self.w.indent():
                self.w.line(f"valid = {step.expression}")
            self.w.line(f"except {_EXPRESSION_FAILURES}:")
            with self.w.indent():
                self.w.line("valid = False")
            self.retry_if("not valid")
        else:
            assert isinstance(step, Build), step
            if self.pending is not None and step.var == self.pending.item:
                self.pending_build(step)
                return
            if step.var == "model" and self.plan.name in self.checked_alone:
                self.checking_build(step)
                return
            self.model_build(step)

    def bits(self, step: Bits, at: str) -> None:
        """A bit field: the run's first field reads the run's bytes."""
        if step.first and step.group == 1:
            self.w.line(f"{step.run} = buf[{at}]")
        elif step.first and step.group in (2, 4, 8):
            fmt = (">" if step.order == "big" else "<") + {2: "H", 4: "I", 8: "Q"}[step.group]
            name = f"_UNPACK_BITS_{'BE' if fmt[0] == '>' else 'LE'}_{fmt[1]}"
            self.unpackers[name] = fmt
            self.w.line(f"{step.run} = {name}(buf, {at})[0]")
        elif step.first:
            self.w.line(f"{step.run}_bytes = buf[{at} : {self.at(step.group)}]")
            self.retry_if(f"len({step.run}_bytes) != {step.group}")  # past the input
            self.w.line(f"{step.run} = int.from_bytes({step.run}_bytes, {step.order!r})")
        value = step.run if step.shift == 0 else f"({step.run} >> {step.shift})"
        if step.mask is not None:
            value += f" & {step.mask:#x}"
        self.w.line(f"{step.var} = {value}")
        if step.signed:  # two's complement in its width
            self.w.line(f"if {step.var} >> {step.width - 1}:")
            with self.w.indent():
                self.w.line(f"{step.var} -= {1 << step.width:#x}")
        if step.enum:  # the member; an unlisted code: the exact reader says which
            self.w.line(f"{step.var} = _{step.enum.upper()}_BY_VALUE.get({step.var})")
            self.retry_if(f"{step.var} is None")
        if step.const is not None:
            self.retry_if(f"{step.var} != {step.const:#x}")

    def evaluate(self, var: str, expression: str) -> None:
        """``var`` is a spec expression's value; an error evaluating it is a Retry."""
        self.w.line("try:")
        with self.w.indent():
            self.w.line(f"{var} = {expression}")
        self.w.line(f"except {_EXPRESSION_FAILURES}:")
        with self.w.indent():
            self.w.line(_RETRY)

    def read_int(self, prim: str, at: str) -> str:
        if prim == "u8":
            return f"buf[{at}]"
        return f"{self.unpacker(prim)}(buf, {at})[0]"

    def number(self, step: Number, at: str | None) -> None:
        """A number at ``at``, or a varint at ``pos`` (``at`` None)."""
        var = step.var
        if step.keep:  # the bytes a checksum covers
            self.w.line(f"{var}_raw = buf[{at} : {self.at(step.size)}]")
        if at is None:
            self.varint(var, step.zigzag)
            if step.enum:
                self.w.line(f"{var} = _{step.enum.upper()}_BY_VALUE.get({var})")
                self.retry_if(f"{var} is None")
        elif step.prim == "bool":
            self.retry_if(f"buf[{at}] > 1")
            self.w.line(f"{var} = buf[{at}] == 1")
        elif step.enum:
            raw = var if self.was_read(var) else self.read_int(step.prim, at)
            if var in self.selectors:
                self.codes.add(var)
                self.w.line(f"{var}_code = {raw}")
                raw = f"{var}_code"
            self.w.line(f"{var} = _{step.enum.upper()}_BY_VALUE.get({raw})")
            self.retry_if(f"{var} is None")
        else:
            if not self.was_read(var):
                self.w.line(f"{var} = {self.read_int(step.prim, at)}")
            if step.prim == "f32":
                float32_exact(self.w, var, at, struct_format(step.prim, self.spec.endian)[0])
        if step.const is not None:
            self.retry_if(f"{var} != {step.const:#x}")

    def fused(self, run: list, at: str) -> None:
        """The numbers of a run (:func:`fused_runs`) in one ``unpack_from`` at ``at``: their
        steps then make only their checks. Past the input it raises ``struct.error``, as the
        first of its reads one by one that would."""
        name, self.unpackers[name] = fused_format(run, self.spec.endian)
        for i, step in enumerate(run):  # a tag: compared by its step (`fixed`)
            if isinstance(step, TagByte):
                self.fused_tags[id(step)] = f"tag_{i}"
        names = [self.fused_tags.get(id(step)) or step.var for step in run]
        self.w.line(f"{', '.join(names)} = {name}(buf, {at})")
        self.read.update(step.var for step in run if not isinstance(step, TagByte))

    def was_read(self, var: str) -> bool:
        """Whether a fused read has read ``var`` (its step then only checks it)."""
        found = var in self.read
        self.read.discard(var)
        return found

    def varint(self, var: str, zigzag: bool) -> None:
        """A LEB128 varint at ``pos`` into ``var`` (one byte inline, two where the format
        keeps longer forms, longer ones by call)."""
        self.uses_uvarint = True
        self.w.line(f"{var} = buf[pos]")
        self.w.line(f"if {var} < 0x80:")
        with self.w.indent():
            self.w.line("pos += 1")
        if self.spec.kept_varints:  # two bytes inline, as the fast path: in the shortest form
            self.w.line("elif 0 < buf[pos + 1] < 0x80:")
            with self.w.indent():
                self.w.line(f"{var} = ({var} & 0x7F) | (buf[pos + 1] << 7)")
                self.w.line("pos += 2")
        self.w.line("else:")
        with self.w.indent():
            self.w.line(f"{var}, pos = _quick_uvarint(buf, pos)")
        if zigzag:
            self.w.line(f"{var} = ({var} >> 1) ^ -({var} & 1)")

    def unpacker(self, prim: str) -> str:
        """The module constant of the ``unpack_from`` of a fixed-width number (bound: one
        attribute lookup less a read)."""
        name = "_UNPACK" + struct_name(prim, self.spec.endian)
        self.unpackers[name] = struct_format(prim, self.spec.endian)
        return name

    def sliced(self, step: Text, start: str, stop: str) -> None:
        """A string's or bytes' value; a string in a checksum keeps its bytes as
        ``<var>_raw`` (what the checksum covers: no second slice)."""
        var = step.var
        strip = f".rstrip({step.pad!r})" if step.pad else ""  # pad: not in the model
        if step.kind == "bytes":
            self.w.line(f"{var} = buf[{start} : {stop}]")
        elif step.keep:
            self.w.line(f"{var}_raw = buf[{start} : {stop}]")
            self.w.line(f"{var} = {var}_raw{strip}{decode_call(step.encoding)}")
        else:
            self.w.line(f"{var} = buf[{start} : {stop}]{strip}{decode_call(step.encoding)}")

    # -- steps that move `pos` themselves ----------------------------------------------

    def moving(self, step) -> None:
        if isinstance(step, KEYED_STEPS):
            self.keyed(step)
        elif isinstance(step, Number):
            self.number(step, None)
        elif isinstance(step, Length):
            self.varint(step.var, step.zigzag)
        elif isinstance(step, Processed):
            self.processed(step)
        elif isinstance(step, When):
            self.evaluate(step.test, step.expression)
            self.w.line(f"if {step.test}:")
            with self.w.indent():
                self.branch(step.steps)
            self.w.line("else:")
            with self.w.indent():
                self.w.line(f"{step.var} = None")
        elif isinstance(step, Text):
            self.text(step)
        elif isinstance(step, Presence):
            self.w.line(f"{step.var} = pos < {step.end} and buf[pos] == 0x{step.tag:02x}")
            self.w.line(f"if {step.var}:")
            with self.w.indent():
                self.w.line("pos += 1")
        elif isinstance(step, Optional):
            self.w.line(f"if pos < {step.end} and buf[pos] == 0x{step.tag:02x}:")
            with self.w.indent():
                self.off = 1  # the tag, tested just now
                self.steps(step.steps)
                self.flush()
            self.w.line("else:")
            with self.w.indent():
                self.w.line(f"{step.var} = {step.absent}")
        elif isinstance(step, Repeat):
            self.repeat(step)
        elif isinstance(step, Nested):
            self.nested(step)
        elif isinstance(step, Choice):
            self.choice(step)
        elif isinstance(step, Chunk):
            self.chunk(step)
        elif isinstance(step, FromEnd):
            self.from_end(step)
        elif isinstance(step, EndsAt):
            self.retry_if(f"pos != {step.limit}")
            self.w.line(f"pos = {step.end}")
        elif isinstance(step, OrderChoice):
            quick_order_choice(self, step)
        else:
            assert isinstance(step, Switch), step
            self.switch(step)

    def from_end(self, step: FromEnd) -> None:
        """A trailer field: the bytes that end at ``limit``, which then moves back; a
        region's read front to back by its steps, ``pos`` kept aside meanwhile."""
        limit = step.limit
        if step.start:
            self.w.line(f"{limit} = {step.start}")
        if not step.length:
            self.retry_if(f"{limit} <= pos")
            kept = self.spec.kept_varints  # a longer one than it needs: the exact reader's
            if kept:
                self.w.line(f"{step.var}_end = {limit}")
            self.w.line("try:")
            with self.w.indent():
                self.w.line(
                    f"{step.var}, {limit} = rt_fast.read_reversed_uvarint(buf, {limit}, pos)"
                )
            self.w.line("except DecodeError:")
            with self.w.indent():
                self.w.line(_RETRY + " from None")
            if kept:  # its first byte, the varint's last, is 0 only in a longer form
                self.retry_if(f"not buf[{limit}] and {step.var}_end - {limit} > 1")
            return
        n = f"{step.var}_size"
        self.evaluate(n, step.length)
        self.retry_if(f"type({n}) is not int or {n} < 0 or {n} > {limit} - pos")
        self.w.line(f"{step.inner_end} = {limit}")
        self.w.line(f"{limit} -= {n}")
        if step.absent:
            self.w.line(f"if {n} == 0:")
            with self.w.indent():
                self.w.line(f"{step.var} = {step.absent}")
            self.w.line("else:")
            self.w.depth += 1
        self.w.line(f"{step.var}_pos, pos = pos, {limit}")
        self.branch(step.steps)
        self.retry_if(f"pos != {step.inner_end}")
        self.w.line(f"pos = {step.var}_pos")
        if step.absent:
            self.w.depth -= 1

    def chunk(self, step: Chunk) -> None:
        """A counted run of varints: one-byte ones are their bytes (no loop in Python),
        longer ones by ``_quick_varints``; then a payload's bytes, back to back."""
        var, n = step.var, f"{step.var}_n"
        if step.count.isidentifier() or step.count.isdigit():  # a field, or a number
            self.w.line(f"{n} = {step.count}")
        else:
            self.evaluate(n, step.count)
        self.retry_if(
            f"type({n}) is not int or {n} < 0 or {n} > limits.max_count or {n} > {step.end} - pos"
        )
        values = f"{var}_raw" if step.payload else var
        self.w.line(f"{values} = buf[pos : pos + {n}]")
        self.w.line(f"if {values}.isascii():")
        with self.w.indent():
            mapped = values
            if step.zigzag:
                mapped = f"map(rt_fast.LEB128_ZIGZAG1.__getitem__, {mapped})"
            if step.delta:  # one-byte deltas: no sum of them reaches 2**63
                mapped = f"rt_fast.accumulate({mapped})"
            self.w.line(f"{values} = list({mapped})")
            self.w.line(f"pos += {n}")
        self.w.line("else:")
        with self.w.indent():
            self.uses_varints = True
            self.w.line(
                f"{values}, pos = _quick_varints(buf, pos, {n}, {step.zigzag}, {step.delta})"
            )
        if step.enum:
            self.w.line(f"{var} = list(map(_{step.enum.upper()}_BY_VALUE.get, {var}))")
            self.retry_if(f"None in {var}")
        if step.payload:
            self.payloads(step, values)

    def payloads(self, step: Chunk, lengths: str) -> None:
        """The payloads after a chunk of their lengths (-1: None)."""
        var = step.var
        self.retry_if(f"{lengths} and (min({lengths}) < -1 or max({lengths}) > limits.max_string)")
        self.w.line(f"{var} = []")
        self.w.line(f"for {var}_len in {lengths}:")
        with self.w.indent():
            self.w.line(f"if {var}_len < 0:")
            with self.w.indent():
                self.w.line(f"{var}.append(None)")
                self.w.line("continue")
            self.retry_if(f"{var}_len > {step.end} - pos")
            value = f"buf[pos : pos + {var}_len]"
            if step.payload == "str":
                value += decode_call(step.encoding)
            self.w.line(f"{var}.append({value})")
            self.w.line(f"pos += {var}_len")

    def depth_arg(self, depth: int) -> str:
        """The depth argument of a call to a record's reader (none where readers take no
        depth)."""
        return f", depth + {depth}" if depth else ""

    def choice(self, step: Choice) -> None:
        """The table of the first byte gives the case's reader (several cases sharing that
        byte: the bytes after it pick, ``rt_fast.pick``), as the exact reader picks."""
        table = f"_QUICK_{step.table}_In_{self.plan.name}"
        self.choice_tables[table] = step
        self.retry_if(f"pos >= {step.end}")
        self.w.line(f"reader = {table}[buf[pos]]")
        self.w.line("if reader.__class__ is tuple:")
        with self.w.indent():
            self.w.line(f"reader = rt_fast.pick(reader, buf, pos, {step.end})")
        self.retry_if("reader is None")
        self.w.line(
            f"{step.var}, pos = reader(buf, pos, {step.end}, limits{self.depth_arg(step.depth)})"
        )

    def text(self, step: Text) -> None:
        if step.terminator is not None:  # not found (or `pos` past the end): -1
            n = f"{step.var}_n"
            self.w.line(f"{n} = buf.find({bytes((step.terminator,))!r}, pos, {step.end}) - pos")
            self.retry_if(f"{n} < 0 or {n} > limits.max_string")
            self.sliced(step, "pos", f"pos + {n}")
            self.w.line(f"pos += {n} + 1")
            return
        if step.to_end:
            self.retry_if(f"pos > {step.end}")  # `pos` never moves back
            self.sliced(step, "pos", step.end)
            self.w.line(f"pos = {step.end}")
            return
        n = step.length
        if step.nullable:
            self.w.line(f"if {n} == -1:")
            with self.w.indent():
                self.w.line(f"{step.var} = None")
            self.w.line("else:")
            self.w.depth += 1
        tests = [f"{n} < 0"] * step.signed
        if step.max_length is not None:
            tests.append(f"{n} > {step.max_length}")
        tests += [f"{n} > limits.max_string", f"{n} > {step.end} - pos"]
        self.retry_if(" or ".join(tests))
        self.sliced(step, "pos", f"pos + {n}")
        self.w.line(f"pos += {n}")
        if step.nullable:
            self.w.depth -= 1

    def nested(self, step: Nested) -> None:
        """A record: inline when read only here, else a call; within its length."""
        var = step.var
        if step.length is not None:
            n = step.length
            tests = [f"{n} < 0"] * step.signed
            tests += [f"{n} > limits.max_message_bytes", f"{n} > {step.end} - pos"]
            self.retry_if(" or ".join(tests))
            self.w.line(f"{step.inner_end} = pos + {n}")
        if step.keep:
            self.w.line(f"{var}_at = pos")
        if step.steps is not None:
            if step.record:
                self.w.line(f"# {step.record}, read here")
            self.steps(step.steps)
            self.flush()
        else:
            self.w.line(
                f"{var}, pos = _quick_{step.record}(buf, pos, {step.inner_end}, limits"
                f"{self.depth_arg(step.depth)})"
            )
        if step.length is not None:
            self.retry_if(f"pos != {step.inner_end}")
        if step.keep:
            self.w.line(f"{var}_end = pos")

    def switch(self, step: Switch) -> None:
        """As ``FastPathEmitter.switch_value``: the selector's integer value per case."""
        selector = f"{step.selector}_code" if step.selector in self.codes else step.selector
        for i, case in enumerate(step.cases):
            self.w.line(
                f"{'if' if i == 0 else 'elif'} {selector} == {case.value:#x}:  # {case.member}"
            )
            with self.w.indent():
                self.branch(case.steps)
        self.w.line("else:" if step.cases else "if True:")
        with self.w.indent():
            if step.default is None:
                self.w.line(f"{step.var} = None")
            else:
                self.branch(step.default)

    def repeat(self, step: Repeat) -> None:
        var = step.var
        self.w.line(f"{var} = []")
        if step.until == "blocks":
            self.blocks(step)
            return
        if step.until == "count":
            self.w.line("try:")
            with self.w.indent():
                self.w.line(f"{step.item}_times = {step.count}")
            self.w.line(f"except {_EXPRESSION_FAILURES}:")
            with self.w.indent():
                self.w.line(_RETRY)
            self.retry_if(
                f"type({step.item}_times) is not int or {step.item}_times < 0"
                f" or {step.item}_times > limits.max_count"
            )
            self.w.line(f"for _ in range({step.item}_times):")
            with self.w.indent():
                self.item(step)
            return
        if step.until == "until":
            self.until(step)
            return
        if step is self.pending:
            self.pending_start(step)
        if step.cut:
            self.cut_repeat(step)
            return
        if step.until == "eos":
            self.w.line(f"while pos < {step.end}:")
        else:
            self.w.line(f"while pos < {step.end} and buf[pos] == 0x{step.tag:02x}:")
        with self.w.indent():
            self.retry_if(f"len({var}) >= limits.max_count")
            self.item(step)
        if step.min_count:
            self.retry_if(f"len({var}) < {step.min_count}")

    def cut_repeat(self, step: Repeat) -> None:
        """``on_cut: keep`` read once: an item whose quick read fails is read by its exact
        reader, a cut when that ran past the end (its bytes to ``step.cut``, set here, not
        by the kept field's step), else a Retry (``runtime.core.sequences.cut_or_retry``).
        The loop is inside the ``try`` (not each item: a whole input pays nothing per item),
        so a Retry of too many items is told apart after it, as the exact reader checks the
        count before it reads an item."""
        self.cut_vars.add(step.cut)
        self.w.line(f"{step.cut} = None")
        at = "pos"  # a call that raised has not moved it
        self.w.line("try:")
        with self.w.indent():
            self.w.line(f"while pos < {step.end}:")
            with self.w.indent():
                self.retry_if(f"len({step.var}) >= limits.max_count")
                if step.steps is not None:  # read inline: from where it started
                    at = f"{step.item}_at"
                    self.w.line(f"{at} = pos")
                self.item(step)
        self.w.line("except rt_fast.QUICK_FAILURES:")
        with self.w.indent():
            self.retry_if(f"len({step.var}) >= limits.max_count")
            self.w.line(
                f"{step.cut} = rt_sequences.cut_or_retry("
                f"_read_{step.record}, buf, {at}, {step.end}, limits)"
            )
            self.w.line(f"pos = {step.end}")

    def until(self, step: Repeat) -> None:
        """Items up to the first that passes the test (``runtime.core.sequences.RepeatUntil``):
        the end before it, too many items, or a test that fails to evaluate is a Retry."""
        self.w.line("while True:")
        with self.w.indent():
            self.retry_if(f"pos >= {step.end} or len({step.var}) >= limits.max_count")
            self.item(step)
            self.w.line("try:")
            with self.w.indent():
                self.w.line(f"if {step.stop}:")
                with self.w.indent():
                    self.w.line("break")
            self.w.line(f"except {_EXPRESSION_FAILURES}:")
            with self.w.indent():
                self.w.line(_RETRY)
        if step.terminator:
            self.w.line(f"{step.terminator} = {step.var}.pop()")

    def item(self, step: Repeat) -> None:
        """One item of a repeat, appended."""
        if step.index:
            self.w.line(f"{step.index} = len({step.var})")
        if step is self.pending:
            self.w.line(f"{step.item}_at = pos")
        if step.steps is None:
            alone = step is self.pending and self.read_alone(step)
            checking = f", {step.item}_pending is not None" * alone
            self.w.line(
                f"{step.item}, pos = _quick_{step.record}(buf, pos, {step.end}, limits"
                f"{self.depth_arg(step.depth)}{checking})"
            )
        else:
            self.branch(step.steps)
        item = self.pending_append(step) if step is self.pending else step.item
        self.w.line(f"{step.var}.append({item})")

    def blocks(self, step: Repeat) -> None:
        """Avro's blocks, as ``FastPathEmitter`` reads them."""
        var, n, size = step.var, f"{step.item}_count", f"{step.item}_size"
        self.w.line(f"{step.blocks} = []")
        self.w.line("while True:")
        with self.w.indent():
            self.varint(n, True)
            self.w.line(f"if {n} == 0:")
            with self.w.indent():
                self.w.line("break")
            self.retry_if(f"len({var}) + abs({n}) > limits.max_count")
            self.w.line(f"if {n} < 0:")
            with self.w.indent():
                self.varint(size, True)
                self.retry_if(f"{size} < 0 or {size} > {step.end} - pos")
                self.w.line(f"{step.item}_stop = pos + {size}")
            self.w.line(f"for _ in range(abs({n})):")
            with self.w.indent():
                self.item(step)
            self.retry_if(f"{n} < 0 and pos != {step.item}_stop")
            self.w.line(f"{step.blocks}.append({n})")

    def processed(self, step: Processed) -> None:
        """``process:``: the bytes decoded (``none``: read where they are), then read."""
        n, inner_end, codec = step.length, step.inner_end, f"{step.inner_end}_codec"
        if step.rest:
            self.w.line(f"{n} = {step.end} - pos")
        else:
            tests = [f"{n} < 0"] * step.signed
            tests += [f"{n} > limits.max_message_bytes", f"{n} > {step.end} - pos"]
            self.retry_if(" or ".join(tests))
        keep = f"{step.wire} = buf[pos : pos + {n}]"
        if not step.rest:
            self.w.line(keep)
        self.w.line("try:")
        with self.w.indent():
            cases = (
                "None"
                if not step.cases
                else codec_cases(self.codec_cases, "_QUICK_CODECS_", step.cases)
            )
            self.w.line(f"{codec} = rt_process.codec_for({step.codec}, {cases})")
        self.w.line(f"except {_EXPRESSION_FAILURES}:")
        with self.w.indent():
            self.w.line(_RETRY)
        self.w.line(f'if {codec} == "none":')
        with self.w.indent():
            self.w.line(f"{inner_end} = pos + {n}")
            if step.rest:  # read in place, nothing kept
                self.w.line(f"{step.wire} = None")
        self.w.line("else:")
        with self.w.indent():
            if step.rest:
                self.w.line(keep)
            self.w.line("try:")
            with self.w.indent():
                self.w.line(
                    f"{inner_end}_plain = rt_process.decode("
                    f"{codec}, {step.wire}, limits.max_decompressed_bytes)"
                )
            self.w.line("except DecodeError:")
            with self.w.indent():
                self.w.line(_RETRY)
            # the steps read `buf`: the decoded bytes, then the input again
            self.w.line(f"{inner_end}_outer = buf, pos + {n}")
            self.w.line(f"buf, pos, {inner_end} = {inner_end}_plain, 0, len({inner_end}_plain)")
        self.w.line(f"# {step.var}, read here")
        self.steps(step.steps)
        self.flush()
        self.retry_if(f"pos != {inner_end}")
        self.w.line(f'if {codec} != "none":')
        with self.w.indent():
            self.w.line(f"buf, pos = {inner_end}_outer")

    # -- checksums --------------------------------------------------------------------

    def checksum(self, step: Checksum) -> None:
        if step.algorithm == "crc8" and step.one_byte:
            # one table lookup an item: cheaper than a bytes object for the C function
            self.uses_crc8_table = True
            crc = f"{step.var}_crc"
            self.w.line(f"{crc} = 0")
            for item in step.items:
                if item.kind == "each":
                    self.w.line(f"for e in {item.var}:")
                    with self.w.indent():
                        self.w.line(f"{crc} = _CRC8_TABLE[{crc} ^ e.{item.member}]")
                else:
                    self.w.line(f"{crc} = _CRC8_TABLE[{crc} ^ ({item.expression})]")
            self.retry_if(f"{step.var} != {crc}")
            return
        data = f"{step.var}_data"
        first = step.items[0]
        assigned = first.kind == "span" or (first.kind == "raw" and not first.optional)
        if not assigned:
            self.w.line(f'{data} = b""')
        for i, item in enumerate(step.items):
            if item.kind == "span":
                self.w.line(f"{data} = buf[{item.var} : {item.target}]")
            elif item.kind == "raw":
                part = {"bytes": item.var, "record": f"buf[{item.var}_at : {item.var}_end]"}.get(
                    item.target, f"{item.var}_raw"
                )
                if item.optional:
                    self.w.line(f"if {item.var} is not None:")
                    with self.w.indent():
                        self.w.line(f"{data} += {part}")
                else:
                    self.w.line(f"{data} {'=' if i == 0 else '+='} {part}")
            elif item.kind == "each" and item.encoder == "u8" and item.target == "u8":
                self.w.line(f"{data} += bytes([e.{item.member} for e in {item.var}])")
            elif item.kind == "each":
                enc = self.packer(item.encoder)
                self.w.line(
                    f'{data} += b"".join([{enc}.pack(e.{item.member}) for e in {item.var}])'
                )
            else:
                enc = self.packer(item.encoder)
                self.w.line(f"{data} += {enc}.pack({item.expression})")
        self.retry_if(f"{step.var} != _{step.algorithm.upper()}({data})")

    def packer(self, prim: str) -> str:
        """The fast path's ``struct.Struct`` constant of ``prim``."""
        return struct_name(prim, self.spec.endian)
