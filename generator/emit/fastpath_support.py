"""Which records the fast path reads: every field's type, size, repeat and expressions
checked against what the fast readers know; why the others have none (``refused``)."""

from __future__ import annotations

from generator.spec.model import Field, Record, TypeRef
from generator.spec.types import PRIMITIVES

FAST_KINDS = (
    "prim", "bits", "record", "str", "bytes", "switch", "choice", "presence", "empty", "chunk",
    "region",
)  # fmt: skip
"""Type kinds the fast path reads (a runtime primitive brings its own reader)."""


class Unsupported(Exception):
    """The record uses something the fast path cannot express; construct handles it."""


class FastPathSupport:
    """Picks the records that get a fast reader (a base of
    :class:`generator.emit.fastpath.FastPathEmitter`, whose state and other parts it uses)."""

    def _supported_records(self) -> set[str]:
        self.needs_parent = {
            name for name, record in self.spec.records.items() if self._uses_parent(record)
        }
        self.refused: dict[str, str] = {}
        """Record -> why it has no fast reader (``parse`` reads it with construct)."""
        # `_parent._parent.x`: the parent passes its own parent on, so it takes one too
        self.needs_parent |= {
            name
            for name, record in self.spec.records.items()
            for field in record.fields
            for ref in [field.type, *field.type.cases.values()]
            if ref.kind == "record"
            and any("_parent._parent" in t for t in self.expressions(self.spec.records[ref.name]))
        }
        self.reads_index = any(
            "_index" in text
            for record in self.spec.records.values()
            for text in self.expressions(record)
        )
        """Some expression reads ``_index``: parents passed on carry the element's index."""
        # Every record is taken to have a reader until one it uses has none: a recursive
        # record's reader calls itself, so its records are supported together or not at all.
        ok = set(self.spec.records)
        changed = True
        while changed:
            changed = False
            for name in self.spec.record_order():
                if name not in ok:
                    continue
                record = self.spec.records[name]
                problem = record.byte_order == "data" and self.order_problem(record)
                if problem:  # else read once per order (generator/emit/fastpath_orders.py)
                    self.refused[name] = problem
                    ok.discard(name)
                    changed = True
                    continue
                try:
                    for field in record.fields:
                        self._check_field(field, record, ok)
                except Unsupported as why:
                    self.refused[name] = f"{field.name}: {why}"
                    ok.discard(name)
                    changed = True
        return ok

    def expressions(self, record: Record) -> list[str]:
        """Every expression of ``record``'s own fields (sizes, counts, conditions, ...)."""
        out = []
        for field in record.fields:
            out += self._type_expressions(field.type)
            out.append(field.condition or "")
            out.append(field.valid)
            out.append(field.derived)
            if isinstance(field.repeat, dict):
                out.append(str(field.repeat["count"]))
            if field.repeat == "until":
                out.append(field.repeat_until["until"])
            if field.process is not None and field.process.cases is not None:
                out.append(field.process.codec)
            if field.checksum is not None:
                out.extend(item.expression for item in field.checksum.items)
        return out

    @staticmethod
    def _type_expressions(ref: TypeRef) -> list[str]:
        out = [ref.size] if isinstance(ref.size, str) and not ref.size_is_prefix else []
        if isinstance(ref.count, str):
            out.append(ref.count)
        if ref.on_enclosing:
            out.append(f"this.{ref.switch_on}")  # an enclosing record's field selects
        for sub in ref.cases.values():
            out += FastPathSupport._type_expressions(sub)
        return out

    def _uses_parent(self, record: Record) -> bool:
        return any("_parent" in text for text in self.expressions(record))

    def _record_refs(self, ref: TypeRef) -> list[str]:
        if ref.kind == "record":
            return [ref.name]
        return [name for sub in ref.cases.values() for name in self._record_refs(sub)]

    def _check_type(
        self, ref: TypeRef, ok: set[str], serializable: bool, bounded: bool = False
    ) -> None:
        """``bounded``: inside a sized switch (a message there ends where the size says)."""
        if ref.kind == "record":
            if ref.name not in ok:
                raise Unsupported(f"record {ref.name} has no fast reader")
            target = self.spec.records[ref.name]
            if serializable and (target.serializable or ref.name in self.needs_parent):
                raise Unsupported("a message or a _parent user nested in a message")
            if target.serializable and ref.size is None and not bounded:
                raise Unsupported("an unsized message inside a record")
        if ref.args:
            raise Unsupported(f"runtime primitive {ref.name} (it brings its own reader)")
        if ref.kind == "prim" and (ref.name not in PRIMITIVES or ref.name == "reversed_uvarint"):
            raise Unsupported(f"{ref.name} outside a trailer")  # read from the end only
        if ref.size_is_prefix and ref.size == "reversed_uvarint":
            raise Unsupported("a reversed length prefix")
        if ref.kind not in FAST_KINDS:
            raise Unsupported(f"a {ref.kind} type")
        if ref.kind in ("chunk", "region") and ref.size_is_prefix:
            raise Unsupported("a length-prefixed chunk or region")
        if ref.kind == "choice" and any(case in self.needs_parent for case in ref.cases):
            raise Unsupported("a choice of records reading `_parent`")
        for sub in ref.cases.values():
            self._check_type(sub, ok, serializable, bounded or ref.size is not None)

    def _check_field(self, field: Field, record: Record, ok: set[str]) -> None:
        if field.repeat == "until" and field.process is not None:
            raise Unsupported("a process:ed repeat until (read by construct)")
        if field.repeat == "until" and "_index" in field.repeat_until["until"]:
            raise Unsupported("a repeat until over `_index` (read by construct)")
        excluded = field.repeat == "until" and not field.repeat_until["include"]
        if excluded and (field.condition or field.optional):  # its terminator may be unread
            raise Unsupported("a conditional repeat until with include: false")
        if (field.process is not None or field.repeat == "blocks") and field.condition:
            raise Unsupported("a conditional process: or repeat: blocks (read by construct)")
        if field.process is not None and field.type.kind != "record" and not field.repeat:
            raise Unsupported("process: on bytes or text (read by construct)")
        if field.trailer and not self.backwards(field.type):
            raise Unsupported("a trailer field the fast path cannot read from the end")
        if field.trailer and field.type.name in self.needs_parent:
            raise Unsupported("a trailer record reading `_parent`")
        if record.serializable and (
            field.tag is not None
            or field.condition
            or field.const is not None
            or field.checksum is not None
            or field.repeat not in (None,)
            and not isinstance(field.repeat, dict)
        ):
            raise Unsupported("tags, conditions, checksums or open repeats in a message")
        if any(
            "_parent._parent._parent" in text or "this._parent" == text
            for text in self.expressions(record)
        ):
            raise Unsupported("expressions over the great-grandparent")
        if not (field.trailer and field.type.kind == "prim"):
            self._check_type(field.type, ok, record.serializable)
        if field.checksum is not None:
            for item in field.checksum.items:
                if item.kind == "raw":
                    target = self.field_of(field, item.field)
                    if target.type.size_is_prefix and PRIMITIVES[target.type.size].size is None:
                        raise Unsupported("a raw checksum item with a varint length")

    @staticmethod
    def backwards(ref: TypeRef) -> bool:
        """A trailer field's type: a reversed uvarint, or a region or record whose
        ``size:`` expression says where it starts."""
        if ref.kind == "prim":
            return ref.name == "reversed_uvarint"
        return (
            ref.kind in ("region", "record")
            and isinstance(ref.size, str)
            and not ref.size_is_prefix
        )
