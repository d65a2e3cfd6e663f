"""The strategy table of a generated module: what ``runtime.core.strategies`` needs to draw
valid models of every record, derived from the model (ranges by width and signedness,
enum members, switch cases, repetitions, optional/conditional fields, and which earlier
field a size or count expression must be solved for).

The table is Python source rendered into ``_STRATEGY_RECORDS``; it names the module's
own enum classes, models and runtime instances, and holds no hypothesis objects (the
module imports without hypothesis).
"""

from __future__ import annotations

import ast
import re

from generator.emit.strategies_events import EventStrategies
from generator.spec.model import Field, Spec, TypeRef, bit_field_range, camel, record_dependencies
from generator.spec.types import PRIMITIVES

_COMPARED = re.compile(r"this\._item(?:\.(\w+))? == ((?:[A-Z]\w*\.)?\w+)")
"""An until test the strategies can end a list with: ``_item[.field] == CONSTANT``."""
_PARENTS = re.compile(r"this((?:\._parent)+)")
"""``this._parent._parent...``: an expression reading that many enclosing records."""


def _int_range(name: str) -> tuple[int, int]:
    prim = PRIMITIVES[name]
    bits = prim.bits or 8 * (prim.size or 8)
    if prim.signed:
        return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    return 0, 2**bits - 1


class StrategyEmitter:
    def __init__(self, spec: Spec, emitter):
        self.spec = spec
        self.e = emitter
        self.selectors = {
            (r.name, f.type.switch_on): f.type.enum
            for r in spec.records.values()
            for f in r.fields
            if f.type.kind == "switch"
        }

    def typ(self, ref: TypeRef, record: str = "", field: Field | None = None) -> str:
        if ref.kind == "bits" and ref.enum:
            flags = self.spec.enums[ref.enum].flags
            return f'{{"kind": "enum", "cls": {camel(ref.enum)}, "flags": {flags}}}'
        if ref.kind == "bits":
            low, high = bit_field_range(ref)
            out = f'{{"kind": "int", "lo": {low}, "hi": {high}'
            enum = self.selectors.get((record, field.name)) if field else None
            if enum:  # an open enum's codes, as an integer selector's
                out += f', "favour": [m.value for m in {camel(enum)}]'
            return out + "}"
        if ref.kind == "choice":
            # past the nesting bound only cases that hold no record: the values stay finite
            leaves = [c for c in ref.cases if not record_dependencies(self.spec.records[c])]
            return f'{{"kind": "choice", "cases": {list(ref.cases)!r}, "leaves": {leaves!r}}}'
        if ref.kind == "prim":
            prim = PRIMITIVES[ref.name]
            if ref.enum:
                flags = self.spec.enums[ref.enum].flags
                return f'{{"kind": "enum", "cls": {camel(ref.enum)}, "flags": {flags}}}'
            if prim.kind == "int":
                lo, hi = _int_range(ref.name)
                out = f'{{"kind": "int", "lo": {lo}, "hi": {hi}'
                enum = self.selectors.get((record, field.name)) if field else None
                if enum:
                    out += f', "favour": [m.value for m in {camel(enum)}]'
                return out + "}"
            if prim.kind == "float":
                return f'{{"kind": "float", "bits": {8 * prim.size}}}'
            return '{"kind": "bool"}'
        if ref.kind in ("str", "bytes"):
            out = f'{{"kind": "{ref.kind}"'
            if ref.kind == "str":
                out += f', "encoding": {ref.encoding!r}'
            if isinstance(ref.size, int) and ref.pad:
                out += f', "padded": {ref.size}'
            elif isinstance(ref.size, int):
                out += f', "exact": {ref.size}'
            elif ref.max_length is not None:
                out += f', "max": {ref.max_length}'
            elif ref.size_is_prefix:
                out += f', "max": {min(_int_range(ref.size)[1], 300)}'
            if ref.nullable:
                out += ', "nullable": True'
            if ref.terminator is not None:
                out += f', "terminator": {ref.terminator}'
            return out + "}"
        if ref.kind == "record":
            return f'{{"kind": "record", "name": {ref.name!r}}}'
        if ref.kind == "switch":
            enum = camel(ref.enum)
            cases = ", ".join(
                f"{enum}.{case}: {self.typ(sub)}"
                for case, sub in ref.cases.items()
                if case != "default"
            )
            out = f'{{"kind": "switch", "on": {ref.switch_on!r}, "cases": {{{cases}}}'
            if "default" in ref.cases:
                out += f', "default": {self.typ(ref.cases["default"])}'
            return out + "}"
        if ref.kind == "map":
            return f'{{"kind": "map", "key": {self.typ(ref.key)}, "value": {self.typ(ref.value)}}}'
        if ref.kind == "runtime":
            out = f'{{"kind": "runtime", "name": {ref.name!r}, "instance": {self.e.runtime_instance(ref)}'
            if "models" in ref.args:  # its models are events: drawn from _STRATEGY_EVENTS
                out += ', "events": _STRATEGY_EVENTS'
            return out + "}"
        return f'{{"kind": "{ref.kind}"}}'

    def solvable(self, expr: str, record) -> tuple[str, tuple] | None:
        """The one earlier integer field an expression depends on, and its range."""
        names = set(re.findall(r"\bthis\.(\w+)", expr)) - {"_parent"}
        if len(names) != 1:
            return None
        (name,) = names
        target = record.field(name)
        if target.type.kind != "prim" or PRIMITIVES[target.type.name].kind != "int":
            return None
        return name, _int_range(target.type.name)

    def field(self, f: Field, record) -> str:
        parts = [f'"name": {f.name!r}']
        if f.computed or f.kept_of:  # kept wire bytes, blocks, terminator: None, built afresh
            parts.append('"computed": True')
            if f.const is not None:
                parts.append(f'"const": {f.const}')
            return "{" + ", ".join(parts) + "}"
        parts.append(f'"type": {self.typ(f.type, record.name, f)}')
        if f.optional:
            parts.append('"optional": True')
        if f.oneof:  # layout: protobuf: at most one member of the group is set
            parts.append(f'"oneof": {f.oneof!r}')
        if f.if_bytes_left:  # present or not, but not after an absent one
            earlier = [g.name for g in record.fields if g.if_bytes_left]
            parts.append(f'"bytes_left": {(earlier[: earlier.index(f.name)] or [""])[-1]!r}')
        elif f.condition:
            parts.append(f'"cond": lambda this: {f.condition}')
        valid = f.valid
        cases = f.process.cases if f.process is not None else None
        if cases and all(isinstance(k, int) for k in cases):  # a codec the field names
            known = f"({f.process.codec}) in {tuple(sorted(cases))!r}"
            valid = f"({valid}) and {known}" if valid else known
        if valid:
            parts.append(f'"valid": lambda this: {valid}')
        if f.repeat == "until":
            parts.append(self.until(f))
        elif f.repeat in (
            "msb_count",
            "blocks",
            "packed",
            "unpacked",
        ):  # a list of any length, like repeat: eos
            parts.append('"repeat": ("eos", None, 0)')
        elif f.repeat == "eos" or f.repeat == "tagged":
            parts.append(f'"repeat": ({f.repeat!r}, None, {f.min_count})')
        elif self.repeat_of_computed(f, record):
            parts.append(self.repeat_of_computed(f, record))
        elif isinstance(f.repeat, dict):
            count = f.repeat["count"]
            if isinstance(count, int):
                parts.append(f'"repeat": ("count", {count})')
            else:
                solved = self.solvable(count, record)
                if solved:
                    parts.append(
                        f'"repeat": ("count", lambda this: {count}, {solved[0]!r}, {solved[1]!r})'
                    )
                else:  # another record's count (a parent's): drawn freely, not solved
                    parts.append(f'"repeat": ("count", lambda this: {count}, None, (0, 0))')
        size = f.type.size
        fresh = isinstance(size, str) and not f.type.size_is_prefix and size != "eos"
        if fresh and not f.process:  # a compressed size is no function of the model
            solved = self.solvable(size, record)
            if solved:
                parts.append(f'"size": (lambda this: {size}, {solved[0]!r}, {solved[1]!r})')
            elif self.computed_int(size, record):  # the builder computes it: any that fits
                typ = self.typ(f.type, record.name, f)[:-1]
                parts[1] = f'"type": {typ}, "max": {self.computed_int(size, record)}}}'
        if f.has_default:
            parts.append(f'"default": ("value", {f.default!r})')
        elif f.default_from:
            parts.append(f'"default": ("from", {f.default_from!r})')
        return "{" + ", ".join(parts) + "}"

    @staticmethod
    def until(f: Field) -> str:
        """``repeat: {until:}``: the test, whether the terminator stays the last element,
        what the drawn terminators start from besides any value (the test's constants and
        the earlier fields it reads: ``_item >= head``), and, for a test that compares the
        element or one field of it with a constant (``_item.type == chunk_type.IEND``), the
        terminator itself: that field set to the constant, so a record ends the list
        without being found by chance."""
        until = f.repeat_until
        tree = ast.parse(until["until"], mode="eval")
        constants = sorted(
            {
                node.value
                for node in ast.walk(tree)
                if isinstance(node, ast.Constant) and type(node.value) in (int, str, bytes)
            },
            key=repr,
        )
        fields = sorted(set(re.findall(r"\bthis\.(\w+)", until["until"])) - {"_item", "_parent"})
        match = _COMPARED.fullmatch(until["until"])
        last = "None" if match is None else f"({match[1]!r}, {match[2]})"
        test = f"lambda this: {until['until']}"
        return (
            f'"repeat": ("until", {test}, {until["include"]}, {tuple(constants)!r}, '
            f"{tuple(fields)!r}, {last})"
        )

    def computed_int(self, expr, record) -> int | None:
        """The largest value of the computed (``value:``) integer field ``expr`` names."""
        target = next((g for g in record.fields if f"this.{g.name}" == expr), None)
        if target is None or not target.value:
            return None
        if target.type.kind == "bits":
            return bit_field_range(target.type)[1]
        if target.type.kind == "prim" and PRIMITIVES[target.type.name].kind == "int":
            return _int_range(target.type.name)[1]
        return None

    def repeat_of_computed(self, f: Field, record) -> str | None:
        """``repeat: {count: n}`` where the builder computes ``n``: any list that fits."""
        count = f.repeat["count"] if isinstance(f.repeat, dict) else None
        if isinstance(count, str) and self.computed_int(count, record):
            return '"repeat": ("eos", None, 0)'
        return None

    def events(self) -> EventStrategies | None:
        """The table of the events the spec's models are (:mod:`generator.emit.strategies_events`)."""
        events = EventStrategies(self.spec)
        return events if events.classes() is not None else None

    def table(self) -> list[tuple[str, str, list[str], bool, str, int | None]]:
        """(record, model class, [field descriptions], needs parent, why there is no
        generic strategy, its known field count when it is a ``layout: serializable``
        message: its header values and unknown fields are drawn too) in dependency
        order."""
        out = []
        layout_driven: set[str] = set()
        reach: dict[str, int] = {}
        """Record -> how many enclosing records its fields (its parts' included) read."""
        for name in self.spec.record_order():
            record = self.spec.records[name]
            if self.layout_driven(record, layout_driven):
                layout_driven.add(name)
                why = (
                    "its sizes and counts come from a computed trailer: draw the record holding it"
                )
                out.append((name, camel(name), [], False, why, None))
                continue
            fields = [self.field(f, record) for f in record.fields]
            message = len(record.fields) if record.layout == "serializable" else None
            # a field computed from the enclosing record (Kafka's absolute offset) reads it too
            texts = fields + [f.derived or "" for f in record.fields]
            own = [m.group(1).count("._parent") for t in texts for m in _PARENTS.finditer(t)]
            # a record whose part reads `_parent._parent` is itself read only inside its own
            # parent (a Kafka batch alone: its records' offsets need the base offset around it)
            held = [reach.get(dep, 0) - 1 for dep in record_dependencies(record)]
            reach[name] = max(own + held, default=0)
            out.append((name, camel(name), fields, reach[name] > 0, "", message))
        return out

    @staticmethod
    def layout_driven(record, layout_driven: set[str]) -> bool:
        """A record whose valid models depend on a trailer's computed tables (Craft's
        frame and its parts): models of it come from the format's own event strategies."""
        return bool(record.trailer) or any(
            (f.value and f.trailer)
            or f.type.kind in ("chunk", "region")
            or (f.type.kind == "record" and f.type.name in layout_driven)
            for f in record.fields
        )
