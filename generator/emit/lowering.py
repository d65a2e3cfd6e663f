"""The lowering: one reading plan per record, which every optimistic reader renders.

A record's plan is an ordered tree of small frozen steps (:mod:`generator.emit.plan`): what is read, in which order, with
which checks. ``generator/emit/quicktier.py`` renders it as Python (``_quick_<record>``) and
``generator/emit/compiled.py`` as typed Cython (``generated/_compiled/<format>.pyx``); neither
decides anything about the spec again, so both read the same bytes with the same checks.

Variables are named here, so every renderer uses the same names: a record's fields are
``f_<field>``, the fields of a record read inline ``v<n>_<field>``, lengths ``n<n>`` and the
ends they set ``end<n>``. The steps themselves, and :class:`RecordPlan`, are in
:mod:`generator.emit.plan`.

Which records get a plan: those the tier can read without the exact reader's bookkeeping
(see :class:`Lowering`); ``refused`` says why the others have none. A plan reads no
recursive record, so its nesting depth is known (``RecordPlan.depth``).

    >>> from pathlib import Path
    >>> from generator.spec.loader import load
    >>> from generator.spec.validate import build_model
    >>> spec = build_model(load(Path("specs/plainbuffer.yaml")))
    >>> print(Lowering(spec).plans["row"].describe().splitlines()[0])
    row -> Row, nesting depth 3, entry
"""

from __future__ import annotations

import ast
import re

from generator.emit.fastpath import FastPathEmitter
from generator.emit.map_plan import map_plans
from generator.emit.order_plans import OrderedPlans
from generator.emit.plan import (
    VARINTS,
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
    RecordPlan,
    Repeat,
    Step,
    TagByte,
    Text,
    Valid,
    fixed_size,
    may_be_negative,
)
from generator.emit.plan_branches import Case, Choice, Optional, Presence, Switch, When
from generator.emit.plan_checksums import Checksum, ChecksumItem, Mark
from generator.emit.plan_keyed import Fallback, KeyedField, KeyedHeader, MsbNumber, Rest, SizeOf
from generator.emit.plan_trailers import EndsAt, FromEnd
from generator.spec.model import Field, Record, Spec, TypeRef, camel
from generator.spec.types import CHUNK_TYPES, PRIMITIVES, REGION_TYPES, RegionType

_THIS_UP = re.compile(r"\bthis\.((?:_parent\.)*)([a-z_][a-z0-9_]*)")
_MEMBER = re.compile(r"(?<![.\w])(f_\w+|v\d+_\w+)\.([a-z_][a-z0-9_]*)\b")


class NotLowered(Exception):
    """The record uses something the plan does not read: parse goes straight to the exact
    reader for it."""


def _fixed_length(ref: TypeRef) -> bool:
    """Whether ``ref`` has a length prefix that is a fixed-width integer or a varint."""
    return ref.size_is_prefix and (
        ref.size in VARINTS
        or (fixed_size(ref.size) is not None and PRIMITIVES[ref.size].kind == "int")
    )


def _size_expression(ref: TypeRef) -> bool:
    """Whether ``ref`` is sized by an expression over earlier fields (``event_size - 23``)."""
    return (
        isinstance(ref.size, str)
        and not ref.size_is_prefix
        and ref.size != "eos"
        and ref.size not in PRIMITIVES
    )


class Lowering(OrderedPlans):
    """The plans of one spec's records.

    A record gets a plan when the exact fast path reads it, it is a sequence (its trailer, if
    any, reversed uvarints and regions: :meth:`_check_trailer`), and every field is a number (fixed-width or a varint), a string or bytes of a
    fixed size or a length (fixed-width or a varint), an enum switch, a tag, a presence
    flag, a repeat of records or values (to the end, while tagged, a count computed from
    earlier fields, Avro's blocks, or until a terminator), a ``process:``ed record sized by a length, or another
    planned record (sized by a length, or not), with no condition. A record used once,
    outside a repeat, is read inline where used; records in repeats or used more than once
    have readers of their own (``entries``). A record that reads its parent (``_parent.x``)
    is planned only when it is read from one place, inline there, so its parent's fields
    are variables in scope."""

    def __init__(self, spec: Spec):
        self.spec = spec
        self.endian = spec.endian
        self.fast = FastPathEmitter(spec)
        self.depths: dict[str, int] = {}
        self.refused: dict[str, str] = {}
        """Record -> why it has no plan."""
        self.raw_uses = self._uses(set(spec.records))
        self.recursive = self._recursive_records()
        """The records that read themselves, directly or through others: read by their own
        readers, which take and check the nesting depth."""
        supported = self._supported()
        uses = self._uses(supported)
        chosen = {  # a choice's cases are picked by a table of their readers
            name
            for r in supported
            for f in spec.records[r].fields
            if f.type.kind == "choice"
            for name in f.type.cases
        }
        self.inline = {
            name
            for name, n in uses.items()
            if name not in self.recursive
            and name not in chosen
            and (
                n == (1, 0)
                or self.takes_order(name)  # read in its holder's order, wherever it is read
                or (name in self.fast.needs_parent and sum(n) == 1)
            )
        }
        called = {name for name, n in uses.items() if any(n) and name not in self.inline}
        unread = {name for name, n in uses.items() if not any(n)}
        self.entries = [  # what parse reads: the default, a record called, or one unread
            name
            for name in spec.record_order()
            if name in supported
            and name not in self.fast.needs_parent
            and (
                name == spec.default_record
                or name in called
                or name in unread
                or name in _kafka_columns(spec)
            )
        ]
        self.plans: dict[str, RecordPlan] = {}
        for name in spec.record_order():
            # a record that reads its parent has steps only inline, in its parent's
            if name in supported and name not in self.fast.needs_parent:
                self._counter = 0
                self._scopes: list[str] = []
                self._inline_fields: dict[str, str] = {}
                """A record read inline -> the prefix of its fields' variables."""
                record = spec.records[name]
                self.plans[name] = RecordPlan(
                    name,
                    camel(name),
                    tuple(self._record_steps(record, "f_", "end", "model")),
                    self.depths[name],
                    name in self.entries,
                    bool(self.recursive),
                )

        self.mappings, self.map_refused = map_plans(spec)
        """The plans of the records with ``map:`` (:mod:`generator.emit.map_plan`), and why
        the others have none."""

    def describe(self) -> str:
        """Every plan, then why the other records have none."""
        parts = [plan.describe() for plan in self.plans.values()]
        parts += [plan.describe() for plan in self.mappings.values()]
        parts += [f"{name}: no plan ({why})" for name, why in self.refused.items()]
        parts += [f"{name}: no map plan ({why})" for name, why in self.map_refused.items()]
        return "\n\n".join(parts)

    # -- which records have a plan -----------------------------------------------------

    def _supported(self) -> set[str]:
        # the records of a loop are checked as if all of them had a plan, until one has not
        hopeful = set(self.recursive)
        while True:
            ok: set[str] = set()
            self.refused.clear()
            for name in self.spec.record_order():
                try:
                    self._check_record(self.spec.records[name], ok | hopeful)
                except NotLowered as why:
                    self.refused[name] = str(why)
                    continue
                ok.add(name)
            if hopeful <= ok:
                break
            hopeful &= ok
        for name in self.spec.record_order():
            if name in ok:
                self._depth(name)
        return ok

    def _depth(self, name: str) -> int:
        """The nesting depth a record reads, a recursive one it reads by a call as 0 (its
        reader checks its own)."""
        if name not in self.depths:
            record = self.spec.records[name]
            children = [
                0 if r in self.recursive else self._depth(r)
                for f in record.fields
                for r in self._refs(f.type)
            ]
            # construct's SerializableMessage counts no nesting: the exact reader neither
            self.depths[name] = 0 if record.serializable else 1 + max(children, default=0)
        return self.depths[name]

    def _recursive_records(self) -> set[str]:
        """The records on a loop of records reading records (choices included)."""
        reads = {
            name: {r for f in record.fields for r in self._refs(f.type)}
            for name, record in self.spec.records.items()
        }
        out = set()
        for name, direct in reads.items():
            seen, todo = set(), list(direct)
            while todo:
                other = todo.pop()
                if other not in seen:
                    seen.add(other)
                    todo += reads.get(other, ())
            if name in seen:
                out.add(name)
        return out

    def readers_of(self, name: str) -> list[str]:
        """The records that read record ``name``, in the spec's order."""
        return [
            other
            for other, record in self.spec.records.items()
            if any(name in self._refs(f.type) for f in record.fields)
        ]

    def _refs(self, ref: TypeRef) -> list[str]:
        if ref.kind == "record":
            return [ref.name]
        return [name for sub in ref.cases.values() for name in self._refs(sub)]

    def _read_once(self, name: str) -> bool:
        """Whether the spec reads record ``name`` from one place only (so inline there)."""
        return name != self.spec.default_record and sum(self.raw_uses[name]) == 1

    def _check_record(self, record: Record, ok: set[str]) -> None:
        fast = self.fast
        if record.byte_order == "data" and self.check_order(record):
            raise NotLowered(self.check_order(record))
        if record.name not in fast.supported:
            raise NotLowered("no exact fast path")
        if record.name in fast.needs_parent and not self._read_once(record.name):
            raise NotLowered("reads its parent, and is read from more than one place")
        if record.serializable:
            self._check_keyed(record)
            return
        if record.layout != "sequence":
            raise NotLowered(f"layout {record.layout}")
        for field in record.trailer:
            self._check_trailer(field)
        for field in record.front:
            if field.kept_of:
                kept = record.field(field.kept_of)
                if kept.process is None and kept.on_cut:  # whole: None (a cut: not mine)
                    continue
                if kept.process is None and kept.repeat not in ("blocks", "until"):
                    raise NotLowered(f"{field.name}: a kept {kept.name} terminator")
                continue
            if field.process is not None:
                self._check_process(field)
            if field.derived:
                continue
            if field.type.nullable and field.type.kind not in ("str", "bytes"):
                raise NotLowered(f"{field.name}: a nullable length of a {field.type.kind}")
            if field.bit_group is not None and field.type.kind != "bits":
                raise NotLowered(f"{field.name}: a bit field")
            if field.repeat is not None:
                self._check_repeat(field)
            if field.const is not None and field.type.kind not in ("prim", "bits"):
                raise NotLowered(f"{field.name}: a const that is no number")
            self._check_type(field.type, ok, field.name)
            if field.checksum is not None:
                self._check_checksum(record, field)

    def _check_trailer(self, field: Field) -> None:
        """A trailer field the plan reads backwards: a reversed uvarint, or a region sized
        by an expression (read by the steps of its ``REGION_TYPES`` layout)."""
        ref = field.type
        if field.repeat is not None or field.condition or field.derived:
            raise NotLowered(f"{field.name}: a repeated, conditional or derived trailer field")
        if ref.kind == "prim" and ref.name == "reversed_uvarint" and field.const is None:
            return
        if ref.kind != "region" or not _size_expression(ref):
            raise NotLowered(
                f"{field.name}: a trailer field other than a reversed uvarint or a region"
            )

    def _check_repeat(self, field: Field) -> None:
        how = field.repeat if isinstance(field.repeat, str) else "count"
        if how not in ("eos", "tagged", "count", "blocks", "until"):
            raise NotLowered(f"{field.name}: a repeat {how}")
        if how == "count" and set(field.repeat) != {"count"}:
            raise NotLowered(f"{field.name}: a repeat {sorted(field.repeat)}")
        if how == "tagged" and field.type.kind != "record":
            raise NotLowered(f"{field.name}: a tagged repeat of values")
        sized = field.type.kind == "record" and field.type.size is not None
        each = how == "count" and _size_expression(field.type)  # `size: sizes[_index]`
        if sized and (how == "tagged" or not (_fixed_length(field.type) or each)):
            raise NotLowered(f"{field.name}: a repeat of records sized otherwise than by a length")
        if field.type.kind not in ("record", "prim", "str", "bytes"):
            raise NotLowered(f"{field.name}: a repeat of {field.type.kind}")

    def _check_process(self, field: Field) -> None:
        ref = field.type
        if field.process.rest:  # the rest of the record: one record, or a list of them
            if ref.kind != "record" or field.condition or field.tag is not None:
                raise NotLowered(f"{field.name}: a process: {{size: eos}} of other than records")
            if field.repeat is None and not self._read_once(ref.name):
                raise NotLowered(f"{field.name}: a process:ed record read from more than one place")
            return
        if ref.kind != "record" or field.repeat is not None or not _fixed_length(ref):
            raise NotLowered(f"{field.name}: a process: of other than one record after a length")
        if not self._read_once(ref.name):
            raise NotLowered(f"{field.name}: a process:ed record read from more than one place")

    def _check_type(self, ref: TypeRef, ok: set[str], where: str) -> None:
        if ref.args or (ref.count is not None and ref.kind != "chunk"):
            raise NotLowered(f"{where}: runtime arguments or counts")
        if ref.kind == "prim":
            if fixed_size(ref.name) is None and ref.name not in VARINTS:
                raise NotLowered(f"{where}: {ref.name}")
        elif ref.kind in ("str", "bytes"):
            to_end = ref.size == "eos"  # the rest of a sized region (a chunk's text)
            computed = isinstance(ref.size, str) and not ref.size_is_prefix and ref.size != "eos"
            if (
                ref.terminator is None
                and not _fixed_length(ref)
                and not isinstance(ref.size, int)
                and not to_end
                and not computed
            ):
                raise NotLowered(f"{where}: a string without a length")
        elif ref.kind == "record":
            if ref.name not in ok:
                raise NotLowered(f"{where}: record {ref.name} has no plan")
            if ref.size is not None and not _fixed_length(ref) and not _size_expression(ref):
                raise NotLowered(f"{where}: a record sized otherwise than by a length")
        elif ref.kind == "switch":
            if ref.size is not None and not _size_expression(ref) and not _fixed_length(ref):
                raise NotLowered(f"{where}: a switch sized otherwise than by a length")
            for sub in ref.cases.values():
                self._check_type(sub, ok, where)
        elif ref.kind == "choice":
            if ref.size is not None:
                raise NotLowered(f"{where}: a sized choice")
            for case in ref.cases:
                if case not in ok:
                    raise NotLowered(f"{where}: record {case} has no plan")
        elif ref.kind == "chunk":
            if ref.size is not None:
                raise NotLowered(f"{where}: a sized chunk")
        elif ref.kind == "bits":
            if ref.bits > 64:
                raise NotLowered(f"{where}: a bit field of more than 64 bits")
        elif ref.kind not in ("empty", "presence"):
            raise NotLowered(f"{where}: {ref.kind}")

    def _check_checksum(self, record: Record, field: Field) -> None:
        if field.type.kind != "prim":
            raise NotLowered(f"{field.name}: a checksum that is no number")
        for item in field.checksum.items:
            if item.kind == "raw":
                target = record.field(item.field)
                sized_switch = target.type.kind == "switch" and target.type.size is not None
                if target.repeat is not None or (
                    target.type.kind not in ("prim", "str", "bytes", "record") and not sized_switch
                ):
                    raise NotLowered(f"{field.name}: a raw item that may be None when present")
                if target.type.kind == "prim" and fixed_size(target.type.name) is None:
                    raise NotLowered(f"{field.name}: a raw item that is a varint")
                if target.condition or target.derived:
                    raise NotLowered(f"{field.name}: a raw item that is conditional or derived")
            elif item.kind == "value" and "_parent" in item.expression:
                raise NotLowered(f"{field.name}: a checksum value over the parent")
            elif item.kind == "span" and len(field.checksum.items) > 1:
                raise NotLowered(f"{field.name}: a checksum over a span and more")

    def _check_keyed(self, record: Record) -> None:
        """A mysql::serialization message whose every field is an msb varint, a fixed
        count of them, or text or bytes after an msb varint length (no nested message,
        no map, no enum)."""
        for field in record.fields:
            ref = field.type
            if ref.enum or field.const is not None or field.condition or field.valid:
                raise NotLowered(f"{field.name}: an enum, const, if: or valid: in a message")
            if field.repeat is not None and (
                not isinstance(field.repeat, dict)
                or set(field.repeat) != {"count"}
                or not isinstance(field.repeat["count"], int)
                or ref.kind != "prim"
            ):
                raise NotLowered(f"{field.name}: a repeat in a message other than a fixed count")
            if ref.kind == "prim" and ref.name.startswith("msb_") and not ref.args:
                continue
            if ref.kind in ("str", "bytes") and ref.size_is_prefix and ref.size == "msb_uvarint64":
                continue
            raise NotLowered(f"{field.name}: a {ref.kind} in a message")

    def _keyed_steps(self, record: Record, prefix: str, end: str, into: str) -> list[Step]:
        """A mysql::serialization message (``runtime.formats.serializable``): its head, its fields
        by id, the defaults, the bytes of fields this reader does not know."""
        size, lnifid, unknown = (
            f"{prefix}serializable_field_size",
            f"{prefix}last_non_ignorable_field_id",
            f"{prefix}unknown_fields",
        )
        steps: list[Step] = [KeyedHeader(size, lnifid, len(record.fields), end)]
        for field in record.fields:
            var = f"{prefix}{field.name}"
            if field.default_from:
                absent, default = "from", ""
            elif field.has_default:
                absent, default = "value", repr(field.default)
            else:
                absent, default = "required", ""
            value = tuple(self._keyed_value(field.type, var, end))
            if field.repeat is not None:
                item = self._fresh("item")
                count = str(field.repeat["count"])
                value = (
                    Repeat(
                        var,
                        "",
                        "count",
                        end,
                        count=count,
                        item=item,
                        steps=tuple(self._keyed_value(field.type, item, end)),
                    ),
                )
            counted = lnifid if field.unknown_field_policy == "error" else ""
            keyed = KeyedField(var, field.id, end, absent, default, value, counted)
            steps.append(FieldSteps(field.name, field.line, (keyed,)))
        for field in record.fields:
            if field.default_from:
                steps.append(Fallback(f"{prefix}{field.name}", f"{prefix}{field.default_from}"))
        steps.append(Rest(unknown, end))
        fields = (
            ("serializable_field_size", size),
            ("last_non_ignorable_field_id", lnifid),
            *((f.name, f"{prefix}{f.name}") for f in record.fields),
            ("unknown_fields", unknown),
            # the readers of a plan take only what build writes back as it came; the rest
            # they leave to the Python reader, which keeps the bytes (wire_form)
            ("wire_form", "None"),
        )
        steps.append(Build(into, camel(record.name), fields))
        return steps

    def _keyed_value(self, ref: TypeRef, var: str, end: str) -> list[Step]:
        if ref.kind == "prim":
            prim = PRIMITIVES[ref.name]
            return [MsbNumber(var, prim.bits, end, prim.signed)]
        n = self._fresh("n")
        return [
            MsbNumber(n, 64, end, length=True),
            Text(var, ref.kind, end, ref.encoding, length=n, max_length=ref.max_length),
        ]

    def _uses(self, supported: set[str]) -> dict[str, tuple[int, int]]:
        """How often each record is read by another one: (outside a repeat, in one)."""
        uses = {name: [0, 0] for name in supported}
        for name in supported:
            for field in self.spec.records[name].fields:
                for ref in self._refs(field.type):
                    uses[ref][1 if field.repeat is not None else 0] += 1
        return {name: tuple(n) for name, n in uses.items()}

    # -- the steps of a record ---------------------------------------------------------

    def _fresh(self, stem: str) -> str:
        self._counter += 1
        return f"{stem}{self._counter}"

    def _record_steps(self, record: Record, prefix: str, end: str, into: str) -> list[Step]:
        if record.serializable:
            return self._keyed_steps(record, prefix, end, into)
        self._scopes.append(prefix)
        steps: list[Step] = []
        if record.tag is not None:
            steps.append(TagByte(record.tag))
        spans = record.checksummed
        front_end = end
        if record.trailer:  # read first, from the end: the fields in front end where it starts
            front_end = self._fresh("limit")
            for i, field in enumerate(record.trailer):
                steps.append(self._from_end(field, prefix, "" if i else end, front_end))
        steps += self.front_steps(record, prefix, front_end, spans)  # (order_plans.py)
        if record.trailer:
            steps.append(EndsAt(front_end, end))
        fields = tuple((f.name, f"{prefix}{f.name}") for f in record.fields)
        if self.spec.keeps_form(record):  # they take forms build writes only: the rest is Python's
            fields += (("wire_form", "None"),)
        steps.append(Build(into, camel(record.name), fields))
        self._scopes.pop()
        return steps

    def _field_steps(self, record, field: Field, prefix: str, end: str, keep: bool):
        var = f"{prefix}{field.name}"
        if field.kept_of and record.field(field.kept_of).on_cut:  # a cut is the exact reader's
            return FieldSteps(field.name, field.line, (Derived(var, "None"),))
        if field.kept_of:  # set by the field it is kept for
            return FieldSteps(field.name, field.line, ())
        if field.derived:
            return FieldSteps(
                field.name, field.line, (Derived(var, self._expression(field.derived)),)
            )
        if field.type.kind == "presence":
            return FieldSteps(field.name, field.line, (Presence(var, field.tag, end),))
        if field.type.kind == "bits":
            body = [self._bits(field, var, prefix)]
        elif field.process is not None:  # a list under process: is one region
            body = self._processed(field, var, prefix, end)
        elif field.repeat is not None:
            body = [self._repeat(field, var, prefix, end)]
        else:
            body = self._value_steps(field.type, var, prefix, end, keep, field.const)
        if field.checksum is not None and field.checksum.items[0].kind != "span":
            body.append(self._checksum(record, field, prefix))  # only where it is read
        if field.valid:  # where the field is read: an absent one has nothing to check
            body.append(Valid(self._expression(field.valid)))
        if field.condition:
            test = self._fresh("when")
            # bytes_left(): bytes remain before the end of the region the record is read in
            expression = f"pos < {end}" if field.if_bytes_left else None
            expression = expression or self._expression(field.condition)
            body = [When(var, test, expression, tuple(body))]
        for other in record.fields:  # a span checksum: its first byte, and its last
            for item in other.checksum.items if other.checksum else ():
                if item.kind == "span" and item.field == field.name:
                    body.insert(0, Mark(f"{prefix}{other.name}_from"))
                if item.kind == "span" and item.last == field.name:
                    body.append(Mark(f"{prefix}{other.name}_to"))
                    body.append(self._checksum(record, other, prefix))
        if field.tag is not None and field.optional:
            absent = "[]" if field.repeat is not None else "None"
            body = [Optional(var, field.tag, end, absent, tuple(body))]
        elif field.tag is not None:
            body.insert(0, TagByte(field.tag))
        return FieldSteps(field.name, field.line, tuple(body))

    def _from_end(self, field: Field, prefix: str, start: str, limit: str) -> FieldSteps:
        """A trailer field, read backwards from ``limit`` (the first one: from ``start``)."""
        var, ref = f"{prefix}{field.name}", field.type
        if ref.kind == "prim":
            body: list[Step] = [FromEnd(var, limit, start=start)]
        else:
            size, inner_end = self._expression(ref.size), self._fresh("end")
            region = REGION_TYPES[ref.name]
            steps, absent = self._region(region, var, inner_end), "" if region.repeated else "[]"
            body = [FromEnd(var, limit, size, start, inner_end, steps, absent)]
        if field.valid:
            body.append(Valid(self._expression(field.valid)))
        return FieldSteps(field.name, field.line, tuple(body))

    def _region(self, region: RegionType, var: str, end: str) -> tuple[Step, ...]:
        """The steps of a region of counted chunks (Craft's size tables and term
        dictionary): each a uvarint count, then the chunk; to the end of the region (a list
        of them), or one whose count is not 0."""
        count = self._fresh("count")
        if region.repeated:
            item = self._fresh("item")
            each = (Number(count, "uvarint"), _chunk(region.chunk, item, count, end))
            return (Repeat(var, "", "eos", end, item=item, steps=each),)
        chunk = _chunk(region.chunk, var, count, end)
        return (Number(count, "uvarint"), Valid(f"{count} != 0"), chunk)

    def _repeat(self, field: Field, var: str, prefix: str, end: str) -> Repeat:
        ref = field.type
        how = field.repeat if isinstance(field.repeat, str) else "count"
        until_included = how == "until" and field.repeat_until["include"]
        item = self._fresh("item")
        record, tag, steps = "", None, None
        tied = ref.name in self.fast.needs_parent or self._reads_index(field)  # not read alone
        if ref.kind == "record":
            record, tag = ref.name, self.spec.records[ref.name].tag
            if ref.size is not None:
                steps = tuple(self._nested(ref, item, end, False))
            elif ref.name in self.inline:
                inner = f"{self._fresh('v')}_"
                steps = tuple(self._record_steps(self.spec.records[ref.name], inner, end, item))
        else:
            steps = tuple(self._value_steps(ref, item, prefix, end, False))
        return Repeat(
            var,
            record,
            how,
            end,
            tag,
            field.min_count,
            count=self._count(field.repeat["count"]) if how == "count" else "",
            blocks=f"{var}_blocks" if how == "blocks" else "",
            item=item,
            steps=steps,
            depth=self._call_depth() if record and steps is None else 0,
            stop=self._until(field, item) if how == "until" else "",
            terminator=f"{var}_terminator" if how == "until" and not until_included else "",
            index=f"{prefix}_index" if self._reads_index(field) else "",
            cut=f"{var}_cut" if field.on_cut and record and ref.size is None and not tied else "",
        )

    def _reads_index(self, field: Field) -> bool:
        """Whether reading an element of ``field`` reads its index: its size, or a record
        read inline that reads its parent's (``_parent._index``)."""
        ref = field.type
        if "this._index" in str(ref.size or ""):
            return True
        if ref.kind != "record" or ref.name not in self.inline:
            return False
        texts = self.fast.expressions(self.spec.records[ref.name])
        return any("this._parent._index" in text for text in texts)

    def _until(self, field: Field, item: str) -> str:
        """A ``repeat: {until:}``'s test, its ``_item`` the variable ``item``."""
        return self._expression(re.sub(r"\bthis\._item\b", item, field.repeat_until["until"]))

    def _processed(self, field: Field, var: str, prefix: str, end: str) -> list[Step]:
        ref, process = field.type, field.process
        n, inner_end = self._fresh("n"), self._fresh("end")
        if field.repeat is not None:
            steps = (self._repeat(field, var, prefix, inner_end),)
        else:
            inner = f"{self._fresh('v')}_"
            steps = tuple(self._record_steps(self.spec.records[ref.name], inner, inner_end, var))
        if process.cases is None:
            codec, cases = repr(process.codec), ()
        else:
            codec = self._expression(process.codec)
            cases = tuple(process.cases.items())  # the keys as the spec types them
        if process.rest:
            return [
                Processed(var, f"{var}_wire", codec, cases, n, False, end, inner_end, steps, True)
            ]
        return [
            Length(n, ref.size),
            Processed(
                var,
                f"{var}_wire",
                codec,
                cases,
                n,
                may_be_negative(ref.size),
                end,
                inner_end,
                steps,
            ),
        ]

    def _value_steps(self, ref: TypeRef, var, prefix, end, keep, const=None) -> list[Step]:
        if ref.kind == "prim":
            return [Number(var, ref.name, ref.enum, const, keep)]
        if ref.kind in ("str", "bytes"):
            common = {
                "encoding": ref.encoding,
                "pad": ref.pad,
                "max_length": ref.max_length,
                "keep": keep,
            }
            if ref.terminator is not None:
                if keep:  # the bytes a checksum covers would end before the terminator
                    raise NotLowered(f"{var}: a checksum over a terminated {ref.kind}")
                return [Text(var, ref.kind, end, terminator=ref.terminator, **common)]
            if isinstance(ref.size, int):
                return [Text(var, ref.kind, end, fixed=ref.size, **common)]
            if ref.size == "eos":
                return [Text(var, ref.kind, end, to_end=True, **common)]
            n = self._fresh("n")
            if not ref.size_is_prefix:  # `size:` an expression over earlier fields
                return [
                    Computed(n, self._expression(ref.size)),
                    Text(var, ref.kind, end, length=n, signed=True, **common),
                ]
            signed = may_be_negative(ref.size)
            return [
                Length(n, ref.size),
                Text(var, ref.kind, end, length=n, signed=signed, nullable=ref.nullable, **common),
            ]
        if ref.kind == "record":
            return self._nested(ref, var, end, keep)
        if ref.kind == "switch" and ref.size is not None:
            return self._sized_switch(ref, var, prefix, end, keep)
        if ref.kind == "switch":
            return [self._switch(ref, var, prefix, end)]
        if ref.kind == "choice":
            cases = tuple(
                (magic, mask, case) for case, (magic, mask) in zip(ref.cases, ref.detects)
            )
            return [Choice(var, f"pick_{var}", end, cases, self._call_depth())]
        if ref.kind == "chunk":
            return [self._chunk(ref, var, end)]
        assert ref.kind == "empty", ref.kind
        return [Nothing(var)]

    def _chunk(self, ref: TypeRef, var: str, end: str) -> Chunk:
        """A counted run of varints (Craft's chunks)."""
        return _chunk(ref.name, var, self._count(ref.count), end, ref.enum)

    def _nested(self, ref: TypeRef, var: str, end: str, keep: bool) -> list[Step]:
        steps: list[Step] = []
        n = inner_end = None
        if ref.size is not None and _size_expression(ref):
            n = self._fresh("n")
            steps.append(SizeOf(n, self._expression(ref.size)))
            inner_end = self._fresh("end")
        elif ref.size is not None:
            n = self._fresh("n")
            steps.append(Length(n, ref.size))
            inner_end = self._fresh("end")
        inline = None
        if ref.name in self.inline:
            record = self.spec.records[ref.name]
            inner = f"{self._fresh('v')}_"
            self._inline_fields[var] = inner
            inline = tuple(self._record_steps(record, inner, inner_end or end, var))
        signed = n is not None and (_size_expression(ref) or may_be_negative(ref.size))
        depth = self._call_depth() if inline is None else 0
        steps.append(
            Nested(var, ref.name, end, inner_end or end, n, signed, keep, inline, depth=depth)
        )
        return steps

    def _call_depth(self) -> int:
        """The depth past the plan's record a record read by its own reader is at, where
        the spec recurses (else 0: readers take no depth)."""
        return len(self._scopes) if self.recursive else 0

    def _bits(self, field: Field, var: str, prefix: str) -> Bits:
        group, shift, first, _ = field.bit_group
        if first:
            self._run = f"{var}_run"
        ref = field.type
        return Bits(
            var,
            self._run,
            group,
            shift,
            ref.bits,
            first,
            ref.bit_order,
            ref.bits_signed,
            field.const,
            ref.enum,
        )

    def _sized_switch(self, ref: TypeRef, var, prefix, end, keep: bool) -> list[Step]:
        """A switch within a size (an expression, ``size: event_size - 19``, or a length
        prefix): its cases read within it, and must end there (as a sized record)."""
        n, inner_end = self._fresh("n"), self._fresh("end")
        if _size_expression(ref):
            size: Step = SizeOf(n, self._expression(ref.size))
            signed = True
        else:
            size, signed = Length(n, ref.size), may_be_negative(ref.size)
        switch = self._switch(ref, var, prefix, inner_end)
        return [size, Nested(var, "", end, inner_end, n, signed, keep, steps=(switch,))]

    def _switch(self, ref: TypeRef, var: str, prefix: str, end: str) -> Switch:
        cases, default = ref.payload_cases()
        enum = self.spec.enums[ref.enum]
        branches = []
        for case, sub in cases:
            value = next(v.value for v in enum.values if v.name == case)
            steps = tuple(self._value_steps(sub, var, prefix, end, False))
            branches.append(Case(value, f"{enum.class_name}.{case}", steps))
        other = (
            None if default is None else tuple(self._value_steps(default, var, prefix, end, False))
        )
        on = f"{prefix}{ref.switch_on}"
        if ref.on_enclosing:  # a variable of the record read inline around this one
            on = self._expression(f"this.{ref.switch_on}")
        return Switch(var, on, enum.class_name, tuple(branches), other)

    def _checksum(self, record: Record, field: Field, prefix: str) -> Checksum:
        items = []
        for item in field.checksum.items:
            var = f"{prefix}{item.field}"
            if item.kind == "span":
                from_, to = f"{prefix}{field.name}_from", f"{prefix}{field.name}_to"
                items.append(ChecksumItem("span", from_, to))
            elif item.kind == "raw":
                target = record.field(item.field)
                kind = "record" if target.type.kind == "switch" else target.type.kind  # (kept)
                items.append(ChecksumItem("raw", var, kind, target.optional))
            elif item.kind == "each":
                u8 = "u8" if self.fast.member_is_u8(field, item) else ""
                items.append(
                    ChecksumItem("each", var, u8, member=item.member, encoder=item.encoder)
                )
            else:
                expression = self._expression(item.expression)
                items.append(ChecksumItem("value", encoder=item.encoder, expression=expression))
        one_byte = all(self._one_byte(item) for item in items)
        return Checksum(f"{prefix}{field.name}", field.checksum.algorithm, tuple(items), one_byte)

    @staticmethod
    def _one_byte(item: ChecksumItem) -> bool:
        """An item that is one byte in 0..255: a u8 member of each element, or a value
        whose every outcome is a number literal in range (another value could index a
        table from its end)."""
        if item.kind == "each":
            return item.target == "u8"
        if item.kind != "value" or item.encoder != "u8":
            return False
        node = ast.parse(item.expression, mode="eval").body
        outcomes = [node.body, node.orelse] if isinstance(node, ast.IfExp) else [node]
        return all(
            isinstance(o, ast.Constant) and type(o.value) is int and 0 <= o.value <= 0xFF
            for o in outcomes
        )

    def _count(self, count: int | str) -> str:
        """A ``count:`` as the plan's expression: a number as written, or an expression."""
        return str(count) if isinstance(count, int) else self._expression(count)

    def _expression(self, text: str) -> str:
        """A spec expression over this record's fields (``this.x``) and its parents'
        (``this._parent.x``, read inline around it) as the plan's variables."""

        def variable(match: re.Match) -> str:
            up = match.group(1).count("_parent.")
            if up >= len(self._scopes):
                raise NotLowered(f"{text}: reads past the records read inline")
            return f"{self._scopes[-1 - up]}{match.group(2)}"

        text = self.fast.expression(_THIS_UP.sub(variable, text))  # (its enum members)

        def field(match: re.Match) -> str:  # `record.field` of a record read inline here
            prefix = self._inline_fields.get(match.group(1))
            return match.group(0) if prefix is None else f"{prefix}{match.group(2)}"

        return _MEMBER.sub(field, text)


def _chunk(name: str, var: str, count: str, end: str, enum: str | None = None) -> Chunk:
    """A chunk of ``CHUNK_TYPES[name]``: the elements, or the lengths of payloads that
    follow them."""
    chunk = CHUNK_TYPES[name]
    if chunk.element == "int":
        return Chunk(var, count, end, chunk.zigzag, chunk.delta, enum)
    # payload lengths: ZigZag where -1 is NULL (never delta-coded)
    return Chunk(var, count, end, chunk.nullable, payload=chunk.element, encoding=chunk.encoding)


def _kafka_columns(spec: Spec) -> set[str]:
    """The records a ``kafka_message:`` is made of: read by the message, so entries."""
    return set(spec.kafka_message.columns.values()) if spec.kafka_message else set()


def kafka_lists(lowering: Lowering) -> tuple[tuple[str, str], ...] | None:
    """The ``kafka_message:`` as (column record, its list) per Kafka column, in order, when
    every column is an entry whose one repeated field is a list to the end (the message's
    events walked in step, item i of each list making event i); else None."""
    message = lowering.spec.kafka_message
    if message is None:
        return None
    lists = []
    for record in message.columns.values():
        repeats = [f for f in lowering.spec.records[record].fields if f.repeat is not None]
        if record not in lowering.entries or len(repeats) != 1 or repeats[0].repeat != "eos":
            return None
        lists.append((record, repeats[0].name))
    return tuple(lists)
