"""The tables the compiled tier's typed loop reads (``runtime/_compiled/serializable.pyx``).

For every ``layout: serializable`` record whose fields it can read, the generated module
holds a field table, one row per field id::

    (id, slot, kind, bits, count, max_length, encoding, absent)

``kind`` is ``uint``/``sint`` (an msb-count varint within ``bits``, zigzag for ``sint``) or
``text``/``bytes`` (a varint byte length, at most ``max_length``, then the bytes; text in
``encoding``); ``count`` a fixed repeat (0: one value); ``absent`` is ``"required"``,
``("value", v)`` or ``("from", field)``. The loop keeps the message's key decoding apart
from these per-kind readers, so a later tag-keyed layout can share them.

Around the messages, two positional shapes get a small table each, read by the same
module (until ``generator/emit/lowering.py`` renders positional records, see its docs):

* a *frame*: little-endian header integers (slot, bytes, const), a body of ``size field -
  n`` bytes (``m`` fewer when a CRC-32 follows it conditionally), a serializable record or a
  switch on a header field (listed codes -> records, raw bytes otherwise), and an optional
  CRC-32 trailer over header and body, always there or there when ``_parent.<head>.<attr>
  == value`` (a binlog event and its file's format description);
* a *file*: a big-endian magic, a head record (read by the Python fast reader), then frames
  back to back (``repeat: eos``), whose CRC-32 condition names that head.

A record that is one runtime primitive with a compiled reader of whole messages (Craft's
``craft_message``: ``RuntimeType.compiled``) needs no table: the primitive's configured
instance gives its reader (``compiled_reader``), None when the tier is not built.

A record of any other shape gets no table and stays with the Python readers. ``parse`` tries
these readers first, from C (``runtime/_compiled/dispatch.pyx``), when they are built.
"""

from __future__ import annotations

import re

from generator.emit.fastpath import FastPathEmitter
from generator.spec import pytext
from generator.spec.model import Field, Record, Spec, TypeRef, camel
from generator.spec.types import PRIMITIVES, RUNTIME_TYPES

_HEADER_WIDTHS = {"u8": 1, "u16": 2, "u32": 4, "u16le": 2, "u32le": 4}
_SIZE = re.compile(r"this\.(\w+) - (\d+)")
_SIZE_IF = re.compile(
    r"this\.(\w+) - (\d+) - \((\d+) if this\._parent\.(\w+)\.(\w+) == (\d+) else 0\)"
)
_TRAILER_IF = re.compile(r"this\._parent\.(\w+)\.(\w+) == (\d+)")


class CompiledTablesEmitter:
    """The compiled tier's tables of one spec and the code that hands them to the loop."""

    def __init__(self, spec: Spec, runtime_instance=None):
        """``runtime_instance``: the module-level name of a runtime primitive's configured
        instance (``ModuleEmitter.runtime_instance``)."""
        self.spec = spec
        self.fast_readers = FastPathEmitter(spec).supported
        self.messages = {
            name: rows
            for name, record in spec.records.items()
            if record.serializable and (rows := self.message_rows(record)) is not None
        }
        self.frames = {
            name: frame
            for name, record in spec.records.items()
            if not record.serializable and (frame := self.frame(record)) is not None
        }
        self.files = {
            name: framing
            for name, record in spec.records.items()
            if (framing := self.file(record)) is not None
        }
        self.runtime = {
            name: (runtime_instance(record.fields[0].type), record.fields[0].name)
            for name, record in spec.records.items()
            if runtime_instance is not None
            and len(record.fields) == 1
            and record.fields[0].type.kind == "runtime"
            and RUNTIME_TYPES[record.fields[0].type.name].compiled
        }
        """Record -> (the configured runtime primitive whose compiled reader reads it, the
        record's field)."""

    @property
    def entries(self) -> bool:
        """True when any record of the spec has a compiled reader."""
        return bool(self.messages or self.runtime)

    @property
    def readers(self) -> set[str]:
        """The records ``TABLE_READERS`` has a reader for (see ``readers_function``)."""
        if not self.entries:
            return set()
        events = {
            name
            for name, frame in self.frames.items()
            if frame["crc32_if"] is None and name in self.fast_readers
        }
        return set(self.messages) | events | set(self.files)

    # -- messages ----------------------------------------------------------------------

    def message_rows(self, record: Record) -> list[tuple] | None:
        """The field table of a serializable record, or None when a field is of a kind
        the loop does not read (a nested message, a container)."""
        rows = []
        for field in record.fields:
            row = self.message_row(field)
            if row is None:
                return None
            rows.append(row)
        return rows

    def message_row(self, field: Field) -> tuple | None:
        ref = field.type
        count = 0
        if field.repeat is not None:
            if not isinstance(field.repeat, dict) or not isinstance(field.repeat.get("count"), int):
                return None
            count = field.repeat["count"]
        if ref.kind == "prim" and ref.name.startswith("msb_") and not ref.enum:
            prim = PRIMITIVES[ref.name]
            kind, bits, max_length, encoding = (
                ("sint" if prim.signed else "uint"),
                prim.bits,
                None,
                None,
            )
        elif ref.kind in ("str", "bytes") and ref.size_is_prefix and ref.size == "msb_uvarint64":
            if count:
                return None
            kind, bits, max_length = ("text" if ref.kind == "str" else "bytes"), 64, ref.max_length
            encoding = ref.encoding if ref.kind == "str" else None
        else:
            return None
        if field.default_from:
            absent = ("from", field.default_from)
        elif field.has_default:
            absent = ("value", field.default)
        else:
            absent = "required"
        return (field.id, field.name, kind, bits, count, max_length, encoding, absent)

    # -- frames and files --------------------------------------------------------------

    def frame(self, record: Record) -> dict | None:
        """The frame table of a record shaped like a binlog event, or None."""
        fields = list(record.fields)
        header = []
        while fields and self.header_width(fields[0]) is not None:
            field = fields.pop(0)
            header.append((field.name, self.header_width(field), field.const))
        if not header or not fields:
            return None
        body = fields.pop(0)
        if body.condition or body.repeat is not None or body.checksum is not None:
            return None
        record_name, cases = self.body_readers(body.type, [name for name, _, _ in header])
        if record_name is None and cases is None:
            return None
        size = self.body_size(body.type.size, [name for name, _, _ in header])
        if size is None:
            return None
        size_field, minus, minus_if, trailer_if = size
        crc = fields.pop(0) if fields else None
        if fields or (crc is None and trailer_if is not None):
            return None
        if crc is not None:
            covered = [name for name, _, _ in header] + [body.name]
            if (
                self.header_width(crc, conditional=True) != 4
                or crc.checksum is None
                or crc.checksum.algorithm != "crc32"
                or [(i.kind, i.field) for i in crc.checksum.items] != [("raw", n) for n in covered]
                or self.trailer_condition(crc.condition) != trailer_if
            ):
                return None
        return {
            "header": tuple(header),
            "body": body.name,
            "size": (size_field, minus, minus_if),
            "record": record_name,
            "cases": cases,
            "crc32": crc.name if crc is not None else None,
            "crc32_if": trailer_if,
        }

    def header_width(self, field: Field, conditional: bool = False) -> int | None:
        """Bytes of a little-endian integer header field the frame reads, else None."""
        ref = field.type
        little = ref.name.endswith("le") or self.spec.endian == "le" or ref.name == "u8"
        if (
            ref.kind != "prim"
            or ref.name not in _HEADER_WIDTHS
            or not little
            or (field.condition and not conditional)
            or field.repeat is not None
            or (field.checksum is not None and not conditional)
            or field.value
            or field.valid
        ):
            return None
        return _HEADER_WIDTHS[ref.name]

    def body_readers(self, ref: TypeRef, header: list[str]):
        """``(record, None)`` for a message body, ``(None, (field, {code: record}))`` for a
        switch of messages with raw bytes by default, ``(None, None)`` otherwise."""
        if ref.kind == "record":
            return (ref.name, None) if ref.name in self.messages else (None, None)
        if ref.kind != "switch" or ref.switch_on not in header or not ref.enum:
            return None, None
        default = ref.cases.get("default")
        if default is None or default.kind != "bytes" or default.size != "eos":
            return None, None
        values = {v.name: v.value for v in self.spec.enums[ref.enum].values}
        cases = {}
        for case, sub in ref.cases.items():
            if case == "default":
                continue
            if sub.kind != "record" or sub.name not in self.messages or case not in values:
                return None, None
            cases[values[case]] = sub.name
        return None, (ref.switch_on, cases)

    def body_size(self, size, header: list[str]):
        """``(size field, minus, minus_if, trailer condition)`` of a body's size, or None."""
        if not isinstance(size, str):
            return None
        if (m := _SIZE.fullmatch(size)) and m[1] in header:
            return m[1], int(m[2]), 0, None
        if (m := _SIZE_IF.fullmatch(size)) and m[1] in header:
            return m[1], int(m[2]), int(m[3]), (m[4], m[5], int(m[6]))
        return None

    @staticmethod
    def trailer_condition(condition: str):
        if not condition:
            return None
        m = _TRAILER_IF.fullmatch(condition)
        return (m[1], m[2], int(m[3])) if m else ()

    def file(self, record: Record) -> dict | None:
        """The framing of a record shaped like a binlog file, or None."""
        if len(record.fields) != 3:
            return None
        magic, head, events = record.fields
        if (
            magic.type.kind != "prim"
            or magic.type.name != "u32be"
            or magic.const is None
            or magic.condition
            or head.type.kind != "record"
            or head.condition
            or head.repeat is not None
            or head.type.name not in self.fast_readers
            or events.type.kind != "record"
            or events.repeat != "eos"
            or events.condition
        ):
            return None
        frame = self.frames.get(events.type.name)
        if frame is None or frame["crc32_if"] is None or frame["crc32_if"][0] != head.name:
            return None
        return {
            "magic": (magic.name, magic.const),
            "head": (head.name, head.type.name),
            "events": (events.name, events.type.name),
        }

    # -- the module's code -------------------------------------------------------------

    def module_code(self) -> str:
        """The tables, and ``TABLE_READERS`` / ``TABLE_ROW_ITERATORS``: by record,
        the compiled ``parse`` / ``iter_rows`` readers (empty when the tier is absent)."""
        if not self.messages:
            out = ["TABLE_READERS, TABLE_ROW_ITERATORS = {}, {}"]
            out.extend(self.runtime_readers())
            return "\n".join(out) + "\n"
        out = []
        for name, rows in self.messages.items():
            out.append(f"# {name}: (id, slot, kind, bits, count, max_length, encoding, absent)")
            out.append(f"{self.table_name(name, 'FIELDS')} = (")
            out.extend(f"    {row!r}," for row in rows)
            out.append(")")
        for name, frame in self.frames.items():
            out.append(f"# {name}: header (slot, bytes, const), body and its size, CRC-32")
            out.append(f"{self.table_name(name, 'FRAME')} = {pytext.literal(frame)}")
        for name, framing in self.files.items():
            out.append(f"{self.table_name(name, 'FRAMING')} = {pytext.literal(framing)}")
        out.append("")
        out.append("")
        out.extend(self.readers_function())
        out.append("")
        out.append("")
        out.append("TABLE_READERS, TABLE_ROW_ITERATORS = _compiled_readers(")
        out.append('    rt_tier.compiled("runtime._compiled.serializable")')
        out.append(")")
        out.extend(self.runtime_readers())
        return "\n".join(out) + "\n"

    def runtime_readers(self) -> list[str]:
        """The runtime primitives' compiled readers, added to ``TABLE_READERS`` when built."""
        out = []
        for name, (instance, field) in self.runtime.items():
            reader = f"_{name}_compiled_reader"
            out.append(f"{reader} = {instance}.compiled_reader({camel(name)}, {field!r}, _LIMITS)")
            out.append(f"if {reader} is not None:")
            out.append(f"    TABLE_READERS[{name!r}] = {reader}")
        return out

    def readers_function(self) -> list[str]:
        out = [
            "def _compiled_readers(compiled):",
            '    """The compiled tier\'s parse and iter_rows readers by record ({} without it)."""',
            "    if compiled is None:",
            "        return {}, {}",
            "    messages = {",
        ]
        for name in self.messages:
            table = self.table_name(name, "FIELDS")
            out.append(f"        {name!r}: compiled.Message({camel(name)}, {table}, _LIMITS),")
        out.append("    }")
        out.append("    frames = {")
        for name in self.frames:
            table = self.table_name(name, "FRAME")
            out.append(f"        {name!r}: compiled.Frame({camel(name)}, {table}, messages),")
        out.append("    }")
        out.append("    readers = {name: message.parse for name, message in messages.items()}")
        for name, frame in self.frames.items():
            if frame["crc32_if"] is None and name in self.fast_readers:
                crc = frame["crc32"] is not None
                out.append(
                    f"    readers[{name!r}] = compiled.Event(frames[{name!r}], {crc}, _LIMITS).parse"
                )
        out.append("    rows = {}")
        for name, framing in self.files.items():
            head, event = framing["head"][1], framing["events"][1]
            out.append(f"    {name} = compiled.File(")
            out.append(
                f"        {camel(name)}, {self.table_name(name, 'FRAMING')}, frames[{event!r}],"
            )
            out.append(f"        _read_{head}, _read_{event}, rt_fast.Parent, _LIMITS,")
            out.append("    )")
            out.append(f"    readers[{name!r}], rows[{name!r}] = {name}.parse, {name}.rows")
        out.append("    return readers, rows")
        return out

    @staticmethod
    def table_name(record: str, what: str) -> str:
        return f"_{record.upper()}_{what}"
