"""The format model: a validated spec as typed objects, independent of any target.

:func:`build_model` turns a :class:`~generator.spec.loader.LoadedSpec` into a :class:`Spec`
and checks what JSON Schema cannot: unknown types and enums, duplicate names, enum
value clashes, dangling references and fields used before they are read.
"""

from __future__ import annotations

import ast
import codecs
import copy
import dataclasses
import importlib.util
import re

from generator.spec import names as spec_names
from generator.spec import protobuf
from generator.spec.expressions import translate
from generator.spec.imports import resolve as resolve_imports
from generator.spec.loader import Lines, LoadedSpec, key_path
from generator.spec.types import CHUNK_TYPES, PRIMITIVES, REGION_TYPES, RUNTIME_TYPES
from runtime.core.limits import Limits

BIT_FIELD = re.compile(r"(s?)b([1-9][0-9]?)(le)?")
"""``b1``..``b64``: an unsigned integer of that many bits, its run read most significant
bit first; ``sb12`` signed (two's complement); ``b12le``/``sb12le``: its run read least
significant bit first (Kaitai's ``b12le``)."""

SPARK_LOGICAL_TYPES = {
    "uuid": "16 byte values (a list or bytes) as the text form of a UUID",
    "timestamp_us": "microseconds since the epoch: the number, plus a `<name>_ts` TimestampType",
}


def spec_limits(raw, error) -> dict[str, int]:
    """``limits:``: known :class:`runtime.core.limits.Limits` names, each a positive int
    (``error(parts, message)`` makes the spec error)."""
    known = [f.name for f in dataclasses.fields(Limits)]
    if not isinstance(raw, dict):
        raise error(("limits",), "limits must be a mapping of limit name -> int")
    for name, value in raw.items():
        if name not in known:
            raise error(("limits", name), f"unknown limit {name!r}; known: {known}")
        if type(value) is not int or value < 1:
            raise error(("limits", name), f"{name} must be a positive int, got {value!r}")
    return dict(raw)


@dataclasses.dataclass
class EnumValue:
    name: str
    value: int
    doc: str
    attributes: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class EnumAttribute:
    """A fact every value of an enum states (how a type code's value is encoded, say)."""

    name: str
    doc: str
    allowed: list


@dataclasses.dataclass
class Enum:
    name: str
    doc: str
    type: str
    values: list[EnumValue]
    flags: bool = False
    attributes: list[EnumAttribute] = dataclasses.field(default_factory=list)
    origin: str = ""
    """``SPEC.ENUM`` when the enum comes from an imported spec (a copy, or ``extends:``)."""

    @property
    def class_name(self) -> str:
        return camel(self.name)


def bit_field_range(ref) -> tuple[int, int]:
    """The smallest and largest value a bit field holds."""
    if ref.bits_signed:
        return -(1 << (ref.bits - 1)), (1 << (ref.bits - 1)) - 1
    return 0, (1 << ref.bits) - 1


@dataclasses.dataclass
class TypeRef:
    """What a field (or a switch case) holds on the wire."""

    kind: str
    """prim | bits | record | str | bytes | switch | choice | presence | empty | runtime | map |
    chunk | region"""
    name: str = ""
    size: None | int | str = None
    """For str/bytes/record/switch: a length-prefix primitive name, a byte count, an
    expression, or ``"eos"`` (str/bytes: the rest of the enclosing (sub)stream)."""
    size_is_prefix: bool = False
    max_length: int | None = None
    """For length-prefixed str/bytes: the largest byte length the format allows."""
    nullable: bool = False
    """``nullable: true`` on length-prefixed str/bytes: the length -1 is None."""
    enum: str | None = None
    encoding: str = "utf8"
    pad: bytes = b""
    """``pad: nul`` on a fixed-size str: the byte its trailing padding is made of; the
    model holds the text without it, building pads back to the size."""
    switch_on: str = ""
    cases: dict[str, TypeRef] = dataclasses.field(default_factory=dict)
    args: dict = dataclasses.field(default_factory=dict)
    """For a runtime primitive (kind ``runtime``): argument -> enum class or table name."""
    key: TypeRef | None = None
    """For a map (``map: {key: ..., value: ...}``, kind ``map``): the key's type ..."""
    value: TypeRef | None = None
    """... and the value's type."""
    count: None | int | str = None
    """For a chunk: its element count, a number or an expression."""
    checked_on_build: bool = True
    """False when a size or count expression reads a value the builder computes after
    this field (a trailer's size table): then the builder writes what it is given."""
    bits: int = 0
    """For a bit field (kind ``bits``, ``b1``..``b64``): its width in bits."""
    bits_signed: bool = False
    """For a bit field: ``sb<n>``, two's complement."""
    bit_order: str = "big"
    """For a bit field: ``little`` (``b<n>le``) when its run is read least significant bit
    first (the run's bytes a little-endian integer, the first field its lowest bits)."""
    detects: list = dataclasses.field(default_factory=list)
    """For a choice (kind ``choice``): ``(magic, mask)`` of each case in ``cases`` order,
    the bytes that pick it (its ``detect:``, else its leading constants)."""

    def payload_cases(self) -> tuple[list[tuple[str, TypeRef]], TypeRef | None]:
        """A switch's cases that hold something, and its default unless that is absent or
        empty: a case without payload takes the same branch as every value not listed."""
        default = self.cases.get("default")
        if default is not None and default.kind == "empty":
            default = None
        cases = [
            (case, sub)
            for case, sub in self.cases.items()
            if case != "default" and not (sub.kind == "empty" and default is None)
        ]
        return cases, default


@dataclasses.dataclass
class ChecksumItem:
    kind: str
    """raw | each | value | span (``field`` to ``last``, which may follow the checksum)"""
    field: str = ""
    last: str = ""
    member: str = ""
    expression: str = ""
    encoder: str = ""


@dataclasses.dataclass
class Checksum:
    algorithm: str
    items: list[ChecksumItem]


@dataclasses.dataclass
class Process:
    """``process:`` on a sized field: the codec its bytes are transformed by."""

    codec: str
    """A codec name (runtime/core/process.py CODECS), or with ``cases`` an expression."""
    cases: dict | None = None
    """Value of the ``codec`` expression -> codec name."""
    level: int | None = None
    codec_text: str = ""
    rest: bool = False
    """``size: eos``: the compressed region is the rest of the enclosing record (the
    field's own ``size:``, if any, is each element's); the field is the last on the wire."""


@dataclasses.dataclass
class Field:
    name: str
    doc: str
    type: TypeRef
    line: int | None
    tag: int | None = None
    optional: bool = False
    repeat: None | str | dict = None
    min_count: int = 0
    const: int | None = None
    checksum: Checksum | None = None
    spark_skip: bool = False
    spark_type: str = ""
    spark_inline: bool = False
    condition: str = ""
    """``if:``: an expression; the field is on the wire only when it is true (else None)."""
    id: int | None = None
    """``layout: serializable``: the field id (its position, 0, 1, 2, ...)."""
    default: object = None
    has_default: bool = False
    default_from: str = ""
    unknown_field_policy: str = "ignore"
    value: str = ""
    """``value:``: an expression the builder computes the field from (read as stored)."""
    value_text: str = ""
    """``value:`` as the spec writes it."""
    valid: str = ""
    """``valid:``: an expression that must hold once the field is read."""
    valid_text: str = ""
    trailer: bool = False
    """Read from the end of the record (its ``trailer:``), before the fields in front."""
    repeat_checked_on_build: bool = True
    """False when ``repeat: {count:}`` reads a value the builder computes later."""
    open_enum: str = ""
    """``enum:`` with ``open: true``: any integer is kept; the JSON form names members."""
    logical: str = ""
    """``logical:``: how the JSON form shows it (``uuid``, or an integer time kind)."""
    derived: str = ""
    """``derived:``: an expression computed on parse; the field is not on the wire."""
    derived_text: str = ""
    repeat_until: dict = dataclasses.field(default_factory=dict)
    """``repeat: {until: EXPR, include, terminator}`` (``repeat`` is then ``"until"``):
    ``until`` translated, ``text`` as written, ``include``, ``default`` terminator."""
    process: Process | None = None
    """``process:``: the field's sized bytes are transformed (compressed) on the wire."""
    kept_of: str = ""
    """A model field the loader adds (``Kept``) for field ``kept_of``: what its reading
    saw beside the value, so build writes the same bytes: ``<name>_wire`` (a ``process:``
    field's bytes as read), ``<name>_blocks`` (``repeat: blocks``: the block counts),
    ``<name>_terminator`` (``repeat: {until:, include: false}``: the terminator)."""
    bit_group: tuple | None = None
    """A bit field's place in its run of bit fields: ``(group bytes, shift, first, last)``;
    the run is read as one big-endian integer and the field is ``value >> shift``."""
    number: int | None = None
    """``layout: protobuf``: the field number of its records' keys."""
    pb_kind: str = ""
    """``layout: protobuf``: its protobuf type (``sint32``, ``message``, ``map:K:V``, ...)."""
    oneof: str = ""
    """``layout: protobuf``: the oneof group it belongs to."""

    @property
    def computed(self) -> bool:
        """Written (or, when derived, computed) by the codec itself, so models need not
        carry it."""
        return (
            self.const is not None or self.checksum is not None or bool(self.value or self.derived)
        )


@dataclasses.dataclass(frozen=True)
class Detect:
    """A record's ``detect:``: ``magic`` at ``offset``, compared in the bits of ``mask``."""

    magic: bytes
    offset: int = 0
    mask: bytes | None = None


@dataclasses.dataclass
class Record:
    name: str
    doc: str
    fields: list[Field]
    """Every field in wire order (a trailer's fields last, the last one read first)."""
    line: int | None
    tag: int | None = None
    spark_row: str = ""
    spark_path: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    """``spark: {row: a.b.c}`` (a nested row path): (record, field) of each step; empty
    when ``spark_row`` names a field of the record itself."""
    layout: str = "sequence"
    """``sequence`` (fields back to back), ``serializable`` (mysql::serialization message)
    or ``protobuf`` (tag-keyed records in any order)."""
    detect: Detect | None = None
    """``detect:``: how to recognise a message of this record by its leading bytes."""

    @property
    def serializable(self) -> bool:
        return self.layout == "serializable"

    @property
    def front(self) -> list[Field]:
        """The fields read front to back."""
        return [f for f in self.fields if not f.trailer]

    @property
    def trailer(self) -> list[Field]:
        """The ``trailer:`` fields in reading order (the last bytes first)."""
        return [f for f in self.fields if f.trailer][::-1]

    def field(self, name: str) -> Field:
        return next(f for f in self.fields if f.name == name)

    @property
    def checksummed(self) -> set[str]:
        """The fields whose bytes a ``raw`` or ``span`` item of one of the record's
        checksums covers (a span: its first and its last field)."""
        return {
            name
            for f in self.fields
            if f.checksum is not None
            for item in f.checksum.items
            if item.kind in ("raw", "span")
            for name in (item.field, item.last)
            if name
        }

    @property
    def on_wire(self) -> list[Field]:
        """The fields that occupy bytes: all but the ``derived:`` ones."""
        return [f for f in self.fields if not f.derived]


@dataclasses.dataclass
class Spec:
    format: str
    title: str
    doc: str
    endian: str
    default_record: str
    enums: dict[str, Enum]
    records: dict[str, Record]
    source: LoadedSpec
    json_documents: dict[str, JsonDoc] = dataclasses.field(default_factory=dict)
    """``json:``: JSON documents inside the frames (Open Protocol)."""
    kafka_message: KafkaMessage | None = None
    """``kafka_message:``: a message made of several Kafka columns (key + value)."""
    limits: dict[str, int] = dataclasses.field(default_factory=dict)
    """``limits:``: this format's defaults for :class:`runtime.core.limits.Limits` (by name)."""
    imports: list[str] = dataclasses.field(default_factory=list)
    """``imports:``: the specs whose enums this one uses (:mod:`generator.spec.imports`)."""

    @property
    def is_library(self) -> bool:
        """A spec of enums only, for other specs to import: it has no module of its own."""
        return not self.records

    def is_back_reference(self, user: str, dep: str) -> bool:
        """Whether ``user`` refers to ``dep`` before ``dep`` is defined (:meth:`record_order`):
        the points where recursive records recurse (construct's ``LazyBound``, a JSON text
        column in Spark)."""
        order = self.record_order()
        return order.index(dep) >= order.index(user)

    @property
    def recursive(self) -> bool:
        """Whether any record contains itself, directly or through others."""
        return any(
            self.is_back_reference(name, dep)
            for name, record in self.records.items()
            for dep in record_dependencies(record)
        )

    def record_order(self) -> list[str]:
        """Records with every dependency before its user (leaves first)."""
        order: list[str] = []
        seen: set[str] = set()

        def visit(name: str) -> None:
            if name in seen:
                return
            seen.add(name)
            for dep in record_dependencies(self.records[name]):
                visit(dep)
            order.append(name)

        for name in self.records:
            visit(name)
        return order


@dataclasses.dataclass
class JsonKeyDef:
    """One key of a JSON document, in wire order (see ``runtime.formats.gojson.JsonKey``)."""

    name: str
    type: str
    doc: str
    line: int | None
    field: str
    omit: str = "never"
    enum: str | None = None
    open: bool = False
    bit: str = ""
    """``ENUM.MEMBER`` of a flags enum."""
    layouts: tuple = ()
    when: tuple = ()
    of: str | None = None
    rendering: str = ""
    """``ENUM.ATTRIBUTE``: the table saying how each code renders."""


@dataclasses.dataclass
class JsonDoc:
    name: str
    doc: str
    keys: list[JsonKeyDef]


@dataclasses.dataclass
class KafkaMessage:
    """A record made of several Kafka columns, decoded together by ``runtime.formats.<codec>``."""

    record: str
    doc: str
    columns: dict[str, str]
    codec: str
    claim_check: ClaimCheck | None = None
    """``claim_check:``: a record holding one message as kept in external storage."""


@dataclasses.dataclass
class ClaimCheck:
    """A record whose bytes are one Kafka message in the codec's claim-check object."""

    record: str
    doc: str


def camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def record_dependencies(record: Record) -> list[str]:
    return [dep for field in record.fields for dep in field_dependencies(field)]


def field_dependencies(field: Field) -> list[str]:
    """The records a field holds (or configures its runtime primitive with)."""
    refs = [field.type] + list(field.type.cases.values())
    refs += [t for t in (field.type.key, field.type.value) if t is not None]
    deps = [t.name for t in refs if t.kind == "record"]
    if field.type.kind == "runtime":  # records a runtime primitive is configured with
        kinds = RUNTIME_TYPES[field.type.name].args
        deps += [v for k, v in field.type.args.items() if kinds[k] == "record"]
    return deps


def _is_literal(value) -> bool:
    """Whether ``value`` (from YAML) is written back exactly by its ``repr``: no NaN or
    infinity, no dates."""
    if not isinstance(value, (int, str, bytes, bool, type(None), float, list)):
        return False
    try:
        return ast.literal_eval(repr(value)) == value
    except (ValueError, SyntaxError):
        return False


def _mark_late_values(records: dict[str, Record]) -> None:
    """Sizes and counts that read a computed trailer field (a size table written after
    what it measures) cannot be checked while building: mark them."""
    late = {f.name for r in records.values() for f in r.fields if f.trailer and f.value}
    if not late:
        return

    def reads_late(expr) -> bool:
        return isinstance(expr, str) and any(
            re.search(rf"\.{re.escape(name)}\b", expr) for name in late
        )

    for record in records.values():
        for field in record.fields:
            for ref in [field.type, *field.type.cases.values()]:
                size = ref.size if not ref.size_is_prefix else None
                if reads_late(size) or reads_late(ref.count):
                    ref.checked_on_build = False
            if isinstance(field.repeat, dict) and reads_late(field.repeat["count"]):
                field.repeat_checked_on_build = False


class _Builder:
    def __init__(self, loaded: LoadedSpec):
        self.loaded = loaded
        self.lines: Lines = loaded.lines
        resolved = resolve_imports(loaded, check=build_model)
        self.data, self.imports, self.origins = resolved.data, resolved.imports, resolved.origins
        self.endian = self.data.get("endian", "le")

    def error(self, parts, message):
        return self.lines.error(parts, message)

    def build(self) -> Spec:
        data = self.data
        self.check_type_names()
        enums = {name: self.enum(name, body) for name, body in data.get("enums", {}).items()}
        self.enums = enums
        record_names = set(data.get("records", {}))
        self.record_names = record_names
        if not record_names and not enums:
            raise self.error((), "a spec has records (and a default_record), or enums to import")
        records = {name: self.record(name, body) for name, body in data.get("records", {}).items()}
        self.check_no_cycle(records)
        self.choice_detects(records)
        _mark_late_values(records)
        json_documents = self.json_documents(data.get("json", {}))
        kafka = self.kafka_message(data.get("kafka_message"), records)
        if records and data["default_record"] not in records and not (
            kafka and kafka.record == data["default_record"]
        ):
            raise self.error(("default_record",), f"no record named {data['default_record']!r}")
        return Spec(
            format=data["format"],
            title=data.get("title", data["format"]),
            doc=data["doc"],
            endian=self.endian,
            default_record=data.get("default_record", ""),
            enums=enums,
            records=records,
            source=self.loaded,
            json_documents=json_documents,
            kafka_message=kafka,
            limits=self.limits(data.get("limits", {})),
            imports=self.imports,
        )

    def limits(self, raw: dict) -> dict[str, int]:
        return spec_limits(raw, self.error)

    def name(self, kind: str, name, parts) -> None:
        """Refuse a name that cannot become a Python name (:mod:`generator.spec.names`)."""
        found = spec_names.problem(kind, name)
        if found is not None:
            raise self.error(parts, found)

    def check_type_names(self) -> None:
        """Record and enum names, and the distinct classes (``camel(name)``) they make."""
        classes: dict[str, tuple] = {}
        for section, kind in (("enums", "enum"), ("records", "record")):
            for name in self.data.get(section, {}):
                parts = (section, name)
                self.name(kind, name, parts)
                class_name = camel(name)
                found = spec_names.class_name_problem(name, class_name)
                if found is None and class_name in classes:
                    other = key_path(classes[class_name])
                    found = f"{name!r} makes class {class_name}, as {other} does"
                if found is not None:
                    raise self.error(parts, found)
                classes[class_name] = parts

    def check_no_cycle(self, records: dict[str, Record]) -> None:
        """A record may contain itself, directly or through others (``max_depth`` bounds
        the nesting), but not through what cannot recurse: a runtime primitive's record
        argument or a ``layout: serializable`` message. Refuse the field closing such a loop."""
        done: set[str] = set()

        def visit(path: list[str]) -> None:  # path: the records being entered, outermost first
            name = path[-1]
            for field in records[name].fields:
                for dep in field_dependencies(field):
                    if dep in path:
                        loop = [*path[path.index(dep) :], dep]
                        if field.type.kind == "runtime" or any(
                            records[r].serializable for r in loop
                        ):
                            raise self.error(
                                self.field_parts(name, field) + ("type",),
                                f"{' -> '.join(loop)}: a record cannot contain itself through "
                                "a runtime primitive or a layout: serializable message",
                            )
                        continue
                    if dep not in done:
                        visit([*path, dep])
            done.add(name)

        for name in records:
            if name not in done:
                visit([name])

    def choice_detects(self, records: dict[str, Record]) -> None:
        """Each choice case's ``(magic, mask)``: its ``detect:`` (at offset 0), else the
        bytes its leading ``const:`` fields fix."""
        for rname, record in records.items():
            for field in record.fields:
                if field.type.kind != "choice":
                    continue
                parts = self.field_parts(rname, field) + ("choice",)
                for case in field.type.cases:
                    found = self.leading_bytes(records[case])
                    if found is None:
                        raise self.error(
                            parts,
                            f"{case!r} has no detect: (at offset 0) and does not start with a "
                            "const: field, so nothing tells it from the other cases",
                        )
                    field.type.detects.append(found)

    def leading_bytes(self, record: Record) -> tuple[bytes, bytes] | None:
        if record.detect is not None:
            if record.detect.offset:
                return None
            mask = record.detect.mask or b"\xff" * len(record.detect.magic)
            return record.detect.magic, mask
        magic, mask, bits, width, group = b"", b"", 0, 0, 0  # a run of bit fields so far
        for field in record.front:
            ref = field.type
            if field.const is None or field.tag is not None or field.condition:
                break
            if ref.kind == "bits" and (ref.bits_signed or ref.bit_order == "little"):
                break  # only a big-endian run of unsigned constants is leading bytes here
            if ref.kind == "bits":
                bits, width, group = (bits << ref.bits) | field.const, width + ref.bits, field.bit_group[0]
                if field.bit_group[3]:  # the run's last field: its bytes are all fixed
                    magic, mask = magic + bits.to_bytes(group, "big"), mask + b"\xff" * group
                    bits, width = 0, 0
                continue
            if ref.kind != "prim" or PRIMITIVES[ref.name].size is None:
                break
            size = PRIMITIVES[ref.name].size
            order = "little" if PRIMITIVES[ref.name].construct(self.endian).endswith("l") else "big"
            magic += (field.const % (1 << (8 * size))).to_bytes(size, order)
            mask += b"\xff" * size
        if width:  # the leading bits of a run (the rest of its bytes are free)
            pad = 8 * group - width
            magic += (bits << pad).to_bytes(group, "big")
            mask += (((1 << width) - 1) << pad).to_bytes(group, "big")
        return (magic, mask) if magic else None

    def field_parts(self, record: str, field: Field) -> tuple:
        """The key path of a field of ``record`` (front fields, then the trailer)."""
        body = self.data["records"][record]
        for section in ("fields", "trailer"):
            for i, raw in enumerate(body.get(section, [])):
                if raw["name"] == field.name:
                    return ("records", record, section, i)
        return ("records", record)

    def json_documents(self, raw: dict) -> dict[str, JsonDoc]:
        """``json:``: check every key's enum, flag bit, rendering table and map target."""
        docs = {}
        for name, body in raw.items():
            keys = []
            for i, k in enumerate(body["keys"]):
                where = ("json", name, "keys", i)
                if any(other.name == k["name"] for other in keys):
                    raise self.error(where + ("name",), f"duplicate key {k['name']!r}")
                key = JsonKeyDef(
                    name=k["name"], type=k["type"], doc=k["doc"], line=self.lines.line(where),
                    field=k.get("field", k["name"]), omit=k.get("omit", "never"),
                    enum=k.get("enum"), open=k.get("open", False), bit=k.get("bit", ""),
                    layouts=tuple(k.get("layouts", ())), when=tuple(k.get("when", ())),
                    of=k.get("of"), rendering=k.get("rendering", ""),
                )  # fmt: skip
                if key.enum is not None and key.enum not in self.enums:
                    raise self.error(where + ("enum",), f"unknown enum {key.enum!r}")
                if key.bit:
                    enum_name, _, member = key.bit.partition(".")
                    enum = self.enums.get(enum_name)
                    if (
                        enum is None
                        or not enum.flags
                        or member not in {v.name for v in enum.values}
                    ):
                        raise self.error(where + ("bit",), f"{key.bit!r} is not FLAGS_ENUM.MEMBER")
                if (key.type == "map") != (key.of is not None):
                    raise self.error(
                        where + ("of",),
                        "a map names the document of its values (of:), and only a map",
                    )
                if (key.type == "any") != bool(key.rendering):
                    raise self.error(
                        where + ("rendering",),
                        "an any value names its rendering table, and only it",
                    )
                if key.rendering:
                    enum_name, _, attr = key.rendering.partition(".")
                    enum = self.enums.get(enum_name)
                    if enum is None or attr not in {a.name for a in enum.attributes}:
                        raise self.error(
                            where + ("rendering",), f"{key.rendering!r} is not ENUM.ATTRIBUTE"
                        )
                keys.append(key)
            docs[name] = JsonDoc(name, body["doc"], keys)
        for name, doc in docs.items():
            for i, key in enumerate(doc.keys):
                if key.of is not None and key.of not in docs:
                    raise self.error(
                        ("json", name, "keys", i, "of"), f"no JSON document {key.of!r}"
                    )
        return docs

    def detect(self, raw: dict | None, where: tuple) -> Detect | None:
        if raw is None:
            return None
        magic = bytes.fromhex(raw["magic"])
        mask = bytes.fromhex(raw["mask"]) if "mask" in raw else None
        if mask is not None and len(mask) != len(magic):
            raise self.error(where + ("mask",), "mask and magic must be the same length")
        return Detect(magic, raw.get("offset", 0), mask)

    def kafka_message(self, raw: dict | None, records: dict) -> KafkaMessage | None:
        if raw is None:
            return None
        if raw["record"] in records:
            raise self.error(("kafka_message", "record"), f"{raw['record']!r} is already a record")
        self.name("record", raw["record"], ("kafka_message", "record"))
        for section in ("records", "enums"):
            if "Message" in {camel(name) for name in self.data.get(section, {})}:
                raise self.error(
                    ("kafka_message",), f"Message is the codec's class: rename the {section[:-1]}"
                )
        codec = raw["codec"]
        self.name("format", codec, ("kafka_message", "codec"))
        if importlib.util.find_spec(f"runtime.formats.{codec}") is None:
            raise self.error(("kafka_message", "codec"), f"no runtime module {codec!r}")
        for column, record in raw["columns"].items():
            self.name("column", column, ("kafka_message", "columns", column))
            if record not in records:
                raise self.error(
                    ("kafka_message", "columns", column), f"no record named {record!r}"
                )
        claim = raw.get("claim_check")
        if claim is not None and claim["record"] in set(records) | {raw["record"]}:
            raise self.error(
                ("kafka_message", "claim_check", "record"),
                f"{claim['record']!r} is already a record",
            )
        return KafkaMessage(
            raw["record"],
            raw["doc"],
            dict(raw["columns"]),
            raw["codec"],
            None if claim is None else ClaimCheck(claim["record"], claim["doc"]),
        )

    def enum(self, name: str, body: dict) -> Enum:
        where = ("enums", name)
        if body["type"] not in PRIMITIVES or PRIMITIVES[body["type"]].kind != "int":
            raise self.error(
                where + ("type",), f"enum type must be an integer, not {body['type']!r}"
            )
        declared = body.get("attributes", {})
        for attr in declared:
            self.name("attribute", attr, where + ("attributes", attr))
            table = f"{name.upper()}_{attr.upper()}"
            if table in spec_names.MODULE_CONSTANTS:
                raise self.error(
                    where + ("attributes", attr), f"its table {table} is a module name"
                )
        values, seen = [], {}
        for member, spec in body["values"].items():
            self.name("member", member, where + ("values", member))
            value = spec["value"]
            if value in seen:
                raise self.error(
                    where + ("values", member),
                    f"value {value} of {member!r} clashes with {seen[value]!r}",
                )
            seen[value] = member
            attributes = {}
            for attr, decl in declared.items():
                given = spec.get(attr, decl.get("default"))
                if given is None:
                    raise self.error(where + ("values", member), f"needs attribute {attr!r}")
                if given not in decl["values"]:
                    raise self.error(
                        where + ("values", member, attr),
                        f"{given!r} is not one of {decl['values']}",
                    )
                attributes[attr] = given
            for key in set(spec) - {"value", "doc"} - set(declared):
                raise self.error(where + ("values", member, key), f"undeclared attribute {key!r}")
            values.append(EnumValue(member, value, spec["doc"], attributes))
        attributes = [EnumAttribute(a, d["doc"], d["values"]) for a, d in declared.items()]
        flags = body.get("flags", False)
        origin = self.origins.get(name, "")
        return Enum(name, body["doc"], body["type"], values, flags, attributes, origin)

    def record(self, name: str, body: dict) -> Record:
        where = ("records", name)
        fields: list[Field] = []
        # The trailer is read first, so the fields in front may use it.
        trailer_fields: list[Field] = []
        for i, raw in enumerate(body.get("trailer", [])):
            parts = where + ("trailer", i)
            if any(f.name == raw["name"] for f in trailer_fields):
                raise self.error(parts + ("name",), f"duplicate field name {raw['name']!r}")
            field = self.field(raw, parts, trailer_fields)
            field.trailer = True
            self.check_trailing(field, raw, parts)
            trailer_fields.append(field)
        for i, raw in enumerate(body["fields"]):
            parts = where + ("fields", i)
            if any(f.name == raw["name"] for f in fields + trailer_fields):
                raise self.error(parts + ("name",), f"duplicate field name {raw['name']!r}")
            if body.get("layout") == "protobuf":
                field = self.protobuf_field(raw, parts)
            else:
                field = self.field(raw, parts, trailer_fields + fields)
            if field.type.kind == "prim" and field.type.name == "reversed_uvarint":
                raise self.error(
                    parts + ("type",), "reversed_uvarint is read from the end: put it in trailer:"
                )
            fields.append(field)
        self.bit_groups(fields, body["fields"], where)
        self.rest_is_last(fields, where)
        fields += trailer_fields[::-1]
        fields += self.kept_fields(fields, where)
        everything = {f.name for f in fields}
        for section, raws in (("fields", body["fields"]), ("trailer", body.get("trailer", []))):
            for i, raw in enumerate(raws):
                if "value" in raw:
                    field = next(f for f in fields if f.name == raw["name"])
                    field.value = self.expression(
                        raw["value"], where + (section, i, "value"), everything, build=True
                    )
                    field.value_text = raw["value"]
        record = Record(name, body["doc"], fields, self.lines.line(where), body.get("tag"))
        self.check_spans(record, where)
        record.layout = body.get("layout", "sequence")
        record.detect = self.detect(body.get("detect"), where + ("detect",))
        self.check_layout(record, where, body)
        spark = body.get("spark", {})
        if "row" in spark and "." in spark["row"]:
            record.spark_path = self.row_path(record, spark["row"], where + ("spark", "row"))
            record.spark_row = spark["row"]
        elif "row" in spark:
            target = next((f for f in fields if f.name == spark["row"]), None)
            rows = target is not None and target.type.kind == "runtime"
            if rows and not RUNTIME_TYPES[target.type.name].rows_spark:
                rows = False
            if not rows and (
                target is None or target.repeat is None or target.type.kind != "record"
            ):
                raise self.error(where + ("spark", "row"), "must name a repeated record field")
            record.spark_row = spark["row"]
        return record

    def row_path(self, record: Record, path: str, parts) -> list[tuple[str, str]]:
        """``spark: {row: a.b.c}``: each step a record field of the record before it (a
        list or one record), the last a repeated record field; (record, field) per step."""
        steps, current = [], record
        names = path.split(".")
        for i, name in enumerate(names):
            field = next((f for f in current.fields if f.name == name), None)
            last = i == len(names) - 1
            absent = field is not None and (field.condition or field.optional) and not last
            if (
                field is None
                or field.type.kind != "record"
                or (last and field.repeat is None)
                or absent
            ):
                raise self.error(
                    parts,
                    f"{name!r}: a row path steps through record fields that are always there "
                    "and ends with a repeated one",
                )
            steps.append((current.name, name))
            body = self.data["records"][field.type.name]
            current = self.record(field.type.name, body)
        return steps

    def check_spans(self, record: Record, where) -> None:
        """A checksum's ``span: [first, last]`` names fields after it, in order, on the wire:
        the record verifies it once ``last`` is read and writes it once ``last`` is built."""
        names = [f.name for f in record.fields]
        for i, field in enumerate(record.fields):
            spans = [
                k
                for k, item in enumerate(field.checksum.items if field.checksum else [])
                if item.kind == "span"
            ]
            if not spans:
                continue
            parts = where + (("trailer",) if field.trailer else ("fields",))
            parts += (names.index(field.name) if not field.trailer else 0, "checksum", "over")
            if len(spans) > 1 or field.trailer or field.condition or field.repeat is not None:
                raise self.error(
                    parts + (spans[-1],),
                    "one span: per checksum, on a field read once in front (no if:, repeat:)",
                )
            item = field.checksum.items[spans[0]]
            for name in (item.field, item.last):
                target = next((f for f in record.fields if f.name == name), None)
                if target is None or names.index(name) <= i or target.trailer or target.derived:
                    raise self.error(
                        parts + (spans[0], "span"),
                        f"{name!r} is not a field on the wire after {field.name!r}",
                    )
            if names.index(item.last) < names.index(item.field):
                raise self.error(parts + (spans[0], "span"), "span: [first, last] in wire order")

    def rest_is_last(self, fields: list[Field], where) -> None:
        """A ``process: {size: eos}`` region runs to the record's end: nothing after it
        is on the wire (derived fields may follow)."""
        for i, field in enumerate(fields):
            if field.process is None or not field.process.rest:
                continue
            later = [f.name for f in fields[i + 1 :] if not f.derived]
            if later:
                raise self.error(
                    where + ("fields", i, "process", "size"),
                    f"the region runs to the record's end, but {', '.join(later)} follow(s)",
                )

    def kept_fields(self, fields: list[Field], where) -> list[Field]:
        """The model fields that keep what a field's reading saw beside its value (after
        every field, so the spec's field indexes stay as written)."""
        out = []
        for field in fields:
            kept = []
            if field.process is not None:
                kept.append(("wire", TypeRef("bytes", "bytes", size="eos"), None, "bytes as read"))
            if field.repeat == "blocks":
                kept.append(("blocks", TypeRef("prim", "varint"), "eos", "block counts as read"))
            if field.repeat == "until" and not field.repeat_until["include"]:
                kept.append(("terminator", copy.copy(field.type), None, "terminator as read"))
            for suffix, ref, repeat, what in kept:
                name = f"{field.name}_{suffix}"
                if any(f.name == name for f in fields):
                    raise self.error(where, f"{name!r} keeps {field.name}'s {what}")
                doc = f"{field.name}'s {what} (kept for an exact rebuild)."
                extra = Field(name, doc, ref, field.line, repeat=repeat)
                extra.kept_of = field.name
                extra.spark_skip = True
                out.append(extra)
        return out

    def process(self, field: Field, raw, parts, siblings) -> Process:
        """``process:``: a codec name, or ``{codec: EXPR, cases: {VALUE: CODEC}, level}``."""
        from runtime.core.process import CODECS

        ref = field.type
        if isinstance(raw, str):
            raw = {"codec": raw}
        rest = raw.get("size") == "eos"
        if rest:
            repeats = field.repeat == "eos" or isinstance(field.repeat, dict)
            if not (repeats or field.repeat is None and ref.kind in ("record", "bytes", "str")):
                raise self.error(
                    parts + ("size",),
                    "process: {size: eos} goes on a record, bytes or str, or a field repeated "
                    "by count or to the end",
                )
            if field.repeat is None and ref.size is not None:
                raise self.error(parts + ("size",), "the region has one size: eos or the field's")
            if field.tag is not None or field.trailer:
                raise self.error(parts, "process: {size: eos} goes on an untagged field")
        else:
            if ref.size is None or ref.kind not in ("record", "bytes", "str") or ref.size == "eos":
                raise self.error(
                    parts, "process: goes on a record, bytes or str with a size: (or size: eos)"
                )
            if field.repeat is not None or field.tag is not None or field.trailer:
                raise self.error(
                    parts, "process: goes on a single field (no repeat, tag or trailer)"
                )
        codec, cases = raw["codec"], raw.get("cases")
        out = Process(codec, level=raw.get("level"), codec_text=codec, rest=rest)
        if cases is None:
            if codec not in CODECS:
                raise self.error(
                    parts + ("codec",), f"unknown codec {codec!r} (an expression needs cases:)"
                )
            return out
        out.codec = self.expression(codec, parts + ("codec",), siblings)
        out.cases = dict(cases)
        return out

    def bit_groups(self, fields: list[Field], raws: list[dict], where) -> None:
        """Consecutive bit fields make a run that fills whole bytes; give each its place."""
        run: list[int] = []  # indices of the run being read

        def close(end: int) -> None:
            width = sum(fields[i].type.bits for i in run)
            if width % 8:
                raise self.error(
                    where + ("fields", run[-1], "type"),
                    f"bit fields {', '.join(fields[i].name for i in run)} make {width} bits: "
                    "a run of bit fields fills whole bytes",
                )
            little = fields[run[0]].type.bit_order == "little"
            shift = 0 if little else width
            for i in run:
                if not little:
                    shift -= fields[i].type.bits
                fields[i].bit_group = (width // 8, shift, i == run[0], i == run[-1])
                if little:
                    shift += fields[i].type.bits
            run.clear()

        for i, (field, raw) in enumerate(zip(fields, raws)):
            if field.type.kind != "bits":
                if run:
                    close(i)
                continue
            parts = where + ("fields", i)
            refused = [k for k in ("tag", "repeat", "size", "if", "checksum", "optional") if k in raw]
            if refused:
                raise self.error(parts + (refused[0],), f"a bit field takes no {refused[0]!r}")
            low, high = bit_field_range(field.type)
            if field.const is not None and not low <= field.const <= high:
                raise self.error(parts + ("const",), f"{field.const} does not fit {field.type.name}")
            if run and field.type.bit_order != fields[run[0]].type.bit_order:
                if sum(fields[j].type.bits for j in run) % 8:
                    raise self.error(
                        parts + ("type",),
                        f"bit fields {', '.join(fields[j].name for j in run)} and {field.name} "
                        "mix bit orders (b<n> and b<n>le) inside a byte",
                    )
                close(i)  # a new run, in the other bit order
            run.append(i)
        if run:
            close(len(fields))

    def check_layout(self, record: Record, where, body: dict) -> None:
        """Id-keyed fields belong to ``layout: serializable`` records, and only there."""
        if record.layout == "protobuf":
            return self.check_protobuf(record, where)
        names = {f.name for f in record.fields}
        for i, (field, raw) in enumerate(zip(record.fields, body["fields"])):
            parts = where + ("fields", i)
            if self.is_protobuf(field.type) and field.type.size is None:
                raise self.error(parts + ("type",), "a protobuf message has no end: give it a size:")
            extras = [
                k for k in ("id", "default", "default_from", "unknown_field_policy") if k in raw
            ]
            if not record.serializable:
                extras += ["map"] if "map" in raw else []
                extras += ["repeat"] if field.repeat == "msb_count" else []
                if extras:
                    raise self.error(
                        parts + (extras[0],), f"{extras[0]!r} needs layout: serializable"
                    )
                continue
            if raw.get("id") != i:
                raise self.error(parts + ("id",), f"field ids are positions: expected id: {i}")
            refused = [k for k in ("tag", "optional", "const", "checksum", "if") if k in raw]
            if refused or field.repeat in ("eos", "tagged"):
                key = refused[0] if refused else "repeat"
                raise self.error(
                    parts + (key,), f"{key!r} is not possible in a serializable message"
                )
            if field.default_from:
                target = next((f for f in record.fields if f.name == field.default_from), None)
                if target is None or target is field or target.has_default or target.default_from:
                    raise self.error(
                        parts + ("default_from",), f"{field.default_from!r} is not a required field"
                    )
            if field.has_default and field.default_from:
                raise self.error(parts + ("default",), "give default or default_from, not both")
            if field.type.kind == "record" and not self.is_serializable(field.type.name):
                raise self.error(parts + ("type",), "a nested message must be layout: serializable")
            if field.repeat not in (None, "msb_count") and field.type.kind == "record":
                raise self.error(parts + ("repeat",), "messages repeat only as repeat: msb_count")
            if field.type.kind == "map":
                for part in ("key", "value"):
                    sub = getattr(field.type, part)
                    if sub.kind == "record" and not self.is_serializable(sub.name):
                        raise self.error(
                            parts + ("map", part), "a message in a map must be layout: serializable"
                        )
        for name in ("serializable_field_size", "last_non_ignorable_field_id", "unknown_fields"):
            if name in names:
                raise self.error(where + ("fields",), f"{name!r} is the message header's name")

    def protobuf_typeref(self, name: str, parts) -> tuple[TypeRef, str]:
        """(the model's type, the protobuf kind) of a protobuf type name or record."""
        if name in protobuf.MODELLED_AS:
            return TypeRef("prim", protobuf.MODELLED_AS[name]), name
        if name in ("string", "bytes"):
            kind = "str" if name == "string" else "bytes"
            return TypeRef(kind, kind, size="eos"), name
        if name in self.record_names:
            if self.data["records"][name].get("layout") != "protobuf":
                raise self.error(parts, f"{name!r} is not a layout: protobuf record")
            return TypeRef("record", name), "message"
        raise self.error(
            parts,
            f"unknown protobuf type {name!r} (one of {sorted(protobuf.SCALARS)} or a message)",
        )

    def protobuf_field(self, raw: dict, parts) -> Field:
        """A field of a ``layout: protobuf`` record."""
        self.name("field", raw["name"], parts + ("name",))
        for key in raw:
            if key not in protobuf.ALLOWED_KEYS:
                raise self.error(parts + (key,), f"{key!r} is not possible in a protobuf message")
        if "number" not in raw:
            raise self.error(parts, "a protobuf field needs its number:")
        repeat = raw.get("repeat")
        if "map" in raw:
            for key in ("type", "repeat", "optional", "oneof", "enum"):
                if key in raw:
                    raise self.error(parts + (key,), f"a map field takes no {key!r}")
            spec = raw["map"]
            if not isinstance(spec, dict) or set(spec) != {"key", "value"}:
                raise self.error(parts + ("map",), "a map is {key: TYPE, value: TYPE}")
            key, key_kind = self.protobuf_typeref(spec["key"], parts + ("map", "key"))
            if key_kind in ("float", "double", "bytes", "message", "enum"):
                raise self.error(parts + ("map", "key"), "a map key is an integer, bool or string")
            value, value_kind = self.protobuf_typeref(spec["value"], parts + ("map", "value"))
            ref = TypeRef("map", "map", key=key, value=value)
            kind = f"map:{key_kind}:{value_kind}"
        elif "type" in raw:
            ref, kind = self.protobuf_typeref(raw["type"], parts + ("type",))
        else:
            raise self.error(parts, "a protobuf field needs a type: or a map:")
        if repeat not in (None, "packed", "unpacked"):
            raise self.error(parts + ("repeat",), "a protobuf field repeats as packed or unpacked")
        if repeat == "packed" and protobuf.SCALARS.get(kind, (2,))[0] == 2:
            raise self.error(parts + ("repeat",), "only numeric scalars pack: use repeat: unpacked")
        if repeat and (raw.get("optional") or raw.get("oneof")):
            raise self.error(parts + ("repeat",), "a repeated field is not optional or in a oneof")
        if ("enum" in raw) != (kind == "enum"):
            raise self.error(
                parts + ("enum",), "type: enum goes with enum: NAME (open, as proto3's)"
            )
        f = Field(
            name=raw["name"],
            doc=raw["doc"],
            type=ref,
            line=self.lines.line(parts),
            optional=bool(raw.get("optional") or raw.get("oneof") or kind == "message"),
            repeat=repeat,
        )
        f.number, f.pb_kind, f.oneof = raw["number"], kind, raw.get("oneof", "")
        if kind == "enum":
            if raw["enum"] not in self.enums:
                raise self.error(parts + ("enum",), f"unknown enum {raw['enum']!r}")
            f.open_enum = raw["enum"]
        spark = raw.get("spark", {})
        f.spark_skip = spark.get("skip", False)
        return f

    def check_protobuf(self, record: Record, where) -> None:
        """Numbers unique, oneof names not field names, no ``wire_layout`` field."""
        seen: dict[int, str] = {}
        names = {f.name for f in record.fields}
        for i, f in enumerate(record.fields):
            if f.number in seen:
                raise self.error(
                    where + ("fields", i, "number"),
                    f"number {f.number} is taken by {seen[f.number]!r}",
                )
            seen[f.number] = f.name
            if f.oneof and f.oneof in names:
                raise self.error(where + ("fields", i, "oneof"), f"{f.oneof!r} is a field's name")
        if "wire_layout" in names:
            raise self.error(where + ("fields",), "'wire_layout' is the model's own attribute")

    def check_trailing(self, field: Field, raw: dict, parts) -> None:
        """A trailer field must know where it starts before it is read."""
        backwards = field.type.kind == "prim" and field.type.name == "reversed_uvarint"
        sized = isinstance(field.type.size, (int, str)) and not field.type.size_is_prefix
        if not (backwards or sized) or field.repeat is not None or field.tag is not None:
            raise self.error(
                parts,
                "a trailer field is a type read backwards (reversed_uvarint) or has a "
                "size: expression, without tag or repeat",
            )

    def is_protobuf(self, ref: TypeRef) -> bool:
        return ref.kind == "record" and self.data["records"][ref.name].get("layout") == "protobuf"

    def is_serializable(self, record_name: str) -> bool:
        return self.data["records"][record_name].get("layout") == "serializable"

    def typeref(self, raw: str | dict, parts, siblings) -> TypeRef:
        if isinstance(raw, str):
            raw = {"type": raw}
        name = raw["type"]
        size = raw.get("size")
        if name in ("str", "bytes"):
            if size is None:
                raise self.error(parts + ("size",), f"{name} needs a size")
            ref = TypeRef(name, name, encoding=self.encoding(raw, parts))
            ref.max_length = raw.get("max_length")
        elif name in ("presence", "empty"):
            ref = TypeRef(name, name)
        elif name in PRIMITIVES:
            ref = TypeRef("prim", name)
        elif (bit := BIT_FIELD.fullmatch(name)) and 1 <= int(bit[2]) <= 64:
            ref = TypeRef("bits", name, bits=int(bit[2]), bits_signed=bool(bit[1]))
            ref.bit_order = "little" if bit[3] else "big"
        elif name in self.record_names:
            ref = TypeRef("record", name)
        elif name in RUNTIME_TYPES:
            ref = TypeRef("runtime", name)
        elif name in CHUNK_TYPES:
            if "count" not in raw:
                raise self.error(parts, f"{name} needs a count: (a chunk never stores it)")
            count = raw["count"]
            ref = TypeRef("chunk", name)
            ref.count = (
                count
                if isinstance(count, int)
                else self.expression(count, parts + ("count",), siblings)
            )
        elif name in REGION_TYPES:
            if not isinstance(size, str) or size in PRIMITIVES or size == "eos":
                raise self.error(
                    parts + ("size",), f"{name} takes the bytes a size: expression gives"
                )
            ref = TypeRef("region", name)
        else:
            raise self.error(parts + ("type",), f"unknown type {name!r}")
        if "count" in raw and ref.kind != "chunk":
            raise self.error(parts + ("count",), "only a chunk type takes count:")
        if size is not None:
            if isinstance(size, str) and size in PRIMITIVES:
                if PRIMITIVES[size].kind != "int":
                    raise self.error(parts + ("size",), f"length prefix {size!r} is not an integer")
                ref.size, ref.size_is_prefix = size, True
            elif isinstance(size, int):
                ref.size = size
            elif size == "eos" and ref.kind in ("str", "bytes"):
                ref.size = "eos"
            else:
                ref.size = self.expression(size, parts + ("size",), siblings)
        if ref.max_length is not None and not ref.size_is_prefix:
            raise self.error(parts + ("max_length",), "max_length needs a length-prefix size")
        if raw.get("nullable"):
            signed = ref.size_is_prefix and PRIMITIVES[ref.size].signed
            if ref.kind not in ("str", "bytes") or not signed:
                raise self.error(
                    parts + ("nullable",), "nullable: goes with str/bytes of a signed length prefix"
                )
            ref.nullable = True
        if raw.get("enum"):
            if raw["enum"] not in self.enums:
                raise self.error(parts + ("enum",), f"unknown enum {raw['enum']!r}")
            if ref.kind != "prim" and not (
                ref.kind == "chunk" and CHUNK_TYPES[ref.name].element == "int"
            ):
                raise self.error(parts + ("enum",), "only integers can be enums")
            ref.enum = raw["enum"]
        return ref

    def encoding(self, raw: dict, parts) -> str:
        """A str's ``encoding:``: the name of a codec Python knows."""
        encoding = raw.get("encoding", "utf8")
        try:
            known = re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", encoding) and codecs.lookup(encoding)
        except LookupError:
            known = None
        if not known:
            raise self.error(parts + ("encoding",), f"unknown encoding {encoding!r}")
        return encoding

    def expression(self, text: str, parts, siblings, build: bool = False) -> str:
        # `_parent` is the enclosing record's context (checked when the data is parsed),
        # `_index` the position in the list being read.
        names = {f if isinstance(f, str) else f.name for f in siblings}
        enums = {name: camel(name) for name in self.enums}
        try:
            return translate(text, names | {"_parent", "_index"}, enums, build=build)
        except ValueError as err:
            raise self.error(parts, str(err)) from None

    def runtime_args(self, ref: TypeRef, raw: dict, parts) -> dict:
        """A runtime primitive's arguments: enums by name, tables as ``ENUM.ATTRIBUTE``."""
        if ref.kind != "runtime":
            raise self.error(parts, "only a runtime primitive type takes args")
        declared = RUNTIME_TYPES[ref.name].args
        for name in set(declared) ^ set(raw):
            what = "needs argument" if name in declared else "takes no argument"
            raise self.error(parts, f"{ref.name} {what} {name!r} (it takes {sorted(declared)})")
        out = {}
        for name, value in raw.items():
            if declared[name] == "record":
                if value not in self.record_names:
                    raise self.error(parts + (name,), f"{value!r} is not a record of this spec")
                out[name] = value
                continue
            enum_name, _, attr = value.partition(".")
            enum = self.enums.get(enum_name)
            if declared[name] == "enum" and (enum is None or attr):
                raise self.error(parts + (name,), f"{value!r} is not an enum of this spec")
            if declared[name] == "table" and (
                enum is None or attr not in {a.name for a in enum.attributes}
            ):
                raise self.error(parts + (name,), f"{value!r} is not ENUM.ATTRIBUTE of this spec")
            out[name] = f"{enum_name.upper()}_{attr.upper()}" if attr else camel(enum_name)
        return out

    def map_type(self, raw, parts, siblings) -> TypeRef:
        """``map: {key: TYPE, value: TYPE}``: integer or string keys, any element values."""
        if not isinstance(raw, dict) or set(raw) != {"key", "value"}:
            raise self.error(parts, "a map is {key: TYPE, value: TYPE}")
        ref = TypeRef("map", "map")
        for part in ("key", "value"):
            sub = raw[part]
            if not isinstance(sub, (str, dict)) or (isinstance(sub, dict) and "type" not in sub):
                raise self.error(parts + (part,), "a type name or {type: ..., size: ...}")
            sub = self.typeref(sub, parts + (part,), siblings)
            if sub.kind not in ("prim", "str", "bytes", "record") or sub.enum:
                raise self.error(parts + (part,), f"{sub.kind} cannot be in a map")
            setattr(ref, part, sub)
        key = ref.key
        if key.kind == "bytes" or (
            key.kind != "str" and (key.kind != "prim" or PRIMITIVES[key.name].kind != "int")
        ):
            raise self.error(parts + ("key",), "a map key is an integer or a str")
        return ref

    def field(self, raw: dict, parts, siblings: list[Field]) -> Field:
        self.name("field", raw["name"], parts + ("name",))
        if "map" in raw:
            extra = [k for k in ("type", "switch_on", "size", "repeat", "enum") if k in raw]
            if extra:
                raise self.error(parts + (extra[0],), f"a map field takes no {extra[0]!r}")
            ref = self.map_type(raw["map"], parts + ("map",), siblings)
        elif "switch_on" in raw:
            ref = self.switch(raw, parts, siblings)
        elif "choice" in raw:
            extra = [k for k in ("type", "size", "enum", "tag", "repeat", "if", "optional") if k in raw]
            if extra:
                raise self.error(parts + (extra[0],), f"a choice takes no {extra[0]!r}")
            for i, case in enumerate(raw["choice"]):
                if case not in self.record_names:
                    raise self.error(parts + ("choice", i), f"{case!r} is not a record of this spec")
            cases = {case: TypeRef("record", case) for case in raw["choice"]}
            ref = TypeRef("choice", "choice", cases=cases)
        elif "type" in raw:
            # an open enum only names values (JSON form): the type stays a plain integer
            keys = ("type", "size", "encoding", "max_length", "count", "nullable")
            keys += () if raw.get("open") else ("enum",)
            ref = self.typeref({k: raw[k] for k in keys if k in raw}, parts, siblings)
        else:
            raise self.error(parts, "a field needs a type or a switch_on")
        if ref.kind == "runtime" or "args" in raw:
            ref.args = self.runtime_args(ref, raw.get("args", {}), parts + ("args",))
        tag = raw.get("tag")
        optional = raw.get("optional", False)
        if optional and tag is None:
            raise self.error(parts + ("optional",), "an optional field needs a tag to announce it")
        if ref.kind == "presence" and tag is None:
            raise self.error(parts + ("type",), "presence needs a tag")
        repeat = raw.get("repeat")
        if repeat == "tagged":
            target = self.data["records"].get(ref.name, {}) if ref.kind == "record" else {}
            if "tag" not in target:
                raise self.error(
                    parts + ("repeat",), "repeat: tagged needs a record type with a tag"
                )
        repeat_until = {}
        if isinstance(repeat, dict) and "until" in repeat:
            item = Field("_item", "the element just read", ref, None)
            repeat_until = {
                "until": self.expression(
                    repeat["until"], parts + ("repeat", "until"), [*siblings, item]
                ),
                "text": repeat["until"],
                "include": repeat.get("include", True),
                "default": repeat.get("terminator"),
            }
            repeat = "until"
        elif isinstance(repeat, dict):
            count = repeat["count"]
            repeat = {
                "count": (
                    count
                    if isinstance(count, int)
                    else self.expression(count, parts + ("repeat", "count"), siblings)
                )
            }
        field = Field(
            name=raw["name"],
            doc=raw["doc"],
            type=ref,
            line=self.lines.line(parts),
            tag=tag,
            optional=optional,
            repeat=repeat,
            repeat_until=repeat_until,
            min_count=raw.get("min_count", 0),
            const=raw.get("const"),
        )
        if "checksum" in raw:
            field.checksum = self.checksum(raw["checksum"], parts + ("checksum",), siblings)
            if ref.kind != "prim" or PRIMITIVES[ref.name].kind != "int":
                raise self.error(parts + ("type",), "a checksum is stored as an integer")
        if "derived" in raw:
            self.derived(field, raw, parts, siblings)
        spark = raw.get("spark", {})
        field.spark_skip = spark.get("skip", field.computed and not field.derived)
        field.spark_type = spark.get("type", "")
        field.spark_inline = spark.get("inline", False)
        if field.spark_inline and (ref.kind != "record" or field.repeat is not None):
            raise self.error(
                parts + ("spark", "inline"), "only a single record field can be inlined"
            )
        if field.spark_type and field.spark_type not in SPARK_LOGICAL_TYPES:
            raise self.error(
                parts + ("spark", "type"), f"unknown logical type {field.spark_type!r}"
            )
        if "if" in raw:
            field.condition = self.expression(raw["if"], parts + ("if",), siblings)
        if "valid" in raw:
            names = [*siblings, field]
            field.valid = self.expression(raw["valid"], parts + ("valid",), names)
            field.valid_text = raw["valid"]
        field.id = raw.get("id")
        field.has_default = "default" in raw
        field.default = raw.get("default")
        if field.has_default and not _is_literal(field.default):
            raise self.error(
                parts + ("default",), f"default {field.default!r} is not a plain value"
            )
        field.default_from = raw.get("default_from", "")
        field.unknown_field_policy = raw.get("unknown_field_policy", "ignore")
        self.readable(field, raw, parts)
        self.no_ignored_keys(field, raw, parts)
        if "process" in raw:
            field.process = self.process(field, raw["process"], parts + ("process",), siblings)
        return field

    def no_ignored_keys(self, field: Field, raw: dict, parts) -> None:
        """Keys that no emitter would act on for this field are refused, not ignored (only
        for the kinds known to ignore them: a new kind decides its own keys)."""
        ref = field.type
        if "encoding" in raw and ref.kind in ("prim", "bytes"):
            raise self.error(parts + ("encoding",), "encoding: goes with a str")
        if "max_length" in raw and ref.kind == "prim":
            raise self.error(parts + ("max_length",), "max_length goes with a str or bytes")
        if "size" in raw and ref.kind in ("prim", "presence", "empty"):
            raise self.error(parts + ("size",), f"a {ref.name} has a size of its own")
        counted = isinstance(field.repeat, dict) and "count" in field.repeat
        if "min_count" in raw and (field.repeat in (None, "msb_count") or counted):
            raise self.error(parts + ("min_count",), "min_count goes with repeat: eos or tagged")
        if field.const is not None and ref.kind in ("str", "bytes"):
            raise self.error(parts + ("const",), "const: goes with a number type")
        if field.checksum is not None and "value" in raw:
            raise self.error(parts + ("value",), "a checksum is computed: no value: with it")
    def derived(self, field: Field, raw: dict, parts, siblings) -> None:
        """``derived: EXPR``: a value of the model computed on parse, never on the wire."""
        wire = [
            k for k in ("size", "tag", "const", "checksum", "repeat", "if", "value") if k in raw
        ]
        wire += ["enum"] if field.type.enum else []
        if wire or field.type.kind != "prim" or PRIMITIVES[field.type.name].size is None:
            key = wire[0] if wire else "type"
            raise self.error(
                parts + (key,), "a derived value takes a fixed-width type and nothing of the wire"
            )
        field.derived = self.expression(raw["derived"], parts + ("derived",), siblings)
        field.derived_text = raw["derived"]

    def readable(self, field: Field, raw: dict, parts) -> None:
        """``open:``, ``logical:`` and ``pad:``: how a field reads in the JSON form."""
        ref = field.type
        is_int = (ref.kind == "prim" and PRIMITIVES[ref.name].kind == "int") or (
            ref.kind == "chunk" and CHUNK_TYPES[ref.name].element == "int"
        )
        if raw.get("open") and ref.kind == "bits":
            raise self.error(parts + ("enum",), "a bit field takes no enum")
        is_int = is_int or ref.kind == "bits"
        if raw.get("open"):
            if "enum" not in raw or "switch_on" in raw:
                raise self.error(parts + ("open",), "open: true goes with enum: on an integer")
            if raw["enum"] not in self.enums:
                raise self.error(parts + ("enum",), f"unknown enum {raw['enum']!r}")
            if not is_int:
                raise self.error(parts + ("enum",), "only integers can be enums")
            field.open_enum = raw["enum"]
        logical = raw.get("logical", "")
        if logical == "uuid":
            sixteen_ints = (
                is_int and ref.kind == "prim" and field.repeat == {"count": 16}
            )
            if not (sixteen_ints or (ref.kind == "bytes" and ref.size == 16)):
                raise self.error(
                    parts + ("logical",),
                    "logical: uuid is 16 bytes (bytes of size 16, or repeat: {count: 16} integers)",
                )
        elif logical and not is_int:
            raise self.error(parts + ("logical",), f"logical: {logical} is an integer time")
        field.logical = logical
        if raw.get("pad"):
            if ref.kind != "str" or not isinstance(ref.size, int) or ref.size_is_prefix:
                raise self.error(parts + ("pad",), "pad: goes with a str of a fixed size: N")
            ref.pad = {"nul": b"\0"}[raw["pad"]]

    def switch(self, raw: dict, parts, siblings) -> TypeRef:
        # The selector is an earlier enum field, or an integer field whose case names come
        # from the switch's own `enum:`; a `default` case takes every other value.
        on = raw["switch_on"]
        selector = next((f for f in siblings if f.name == on), None)
        enum_name = selector.type.enum if selector is not None else None
        if selector is not None and enum_name is None and selector.type.kind == "prim":
            enum_name = raw.get("enum")
        if enum_name is None or enum_name not in self.enums:
            raise self.error(
                parts + ("switch_on",), f"{on!r} is not an earlier enum field (or give enum:)"
            )
        enum = self.enums[enum_name]
        members = {v.name for v in enum.values}
        cases = {}
        for case, case_raw in raw.get("cases", {}).items():
            if case not in members and case != "default":
                raise self.error(
                    parts + ("cases", case), f"{case!r} is not a member of {enum.name}"
                )
            cases[case] = self.typeref(case_raw, parts + ("cases", case), siblings)
        missing = members - set(cases)
        if missing and "default" not in cases:
            raise self.error(parts + ("cases",), f"no case for {sorted(missing)}")
        ref = TypeRef("switch", switch_on=on, cases=cases, enum=enum_name)
        if "size" in raw:
            size = raw["size"]
            ref.size = (
                size
                if isinstance(size, int)
                else self.expression(size, parts + ("size",), siblings)
            )
        return ref

    def checksum(self, raw: dict, parts, siblings) -> Checksum:
        names = {f.name for f in siblings}
        items = []
        for i, item in enumerate(raw["over"]):
            where = parts + ("over", i)
            if isinstance(item, str):
                if item not in names:
                    raise self.error(where, f"{item!r} is not an earlier field")
                items.append(ChecksumItem("raw", field=item))
                continue
            if "span" in item:
                # checked against the whole record in check_spans, once every field is known
                first, last = item["span"]
                items.append(ChecksumItem("span", field=first, last=last))
                continue
            encoder = item["as"]
            if encoder not in PRIMITIVES:
                raise self.error(where + ("as",), f"unknown type {encoder!r}")
            if "each" in item:
                if item["each"] not in names:
                    raise self.error(where + ("each",), f"{item['each']!r} is not an earlier field")
                each = next(f for f in siblings if f.name == item["each"])
                members = (
                    self.data["records"].get(each.type.name, {})
                    if each.type.kind == "record"
                    else {}
                )
                if item["member"] not in {f["name"] for f in members.get("fields", [])}:
                    raise self.error(
                        where + ("member",),
                        f"{item['member']!r} is not a field of {each.name}'s records",
                    )
                items.append(
                    ChecksumItem("each", field=item["each"], member=item["member"], encoder=encoder)
                )
            else:
                expr = self.expression(item["value"], where + ("value",), siblings)
                items.append(ChecksumItem("value", expression=expr, encoder=encoder))
        return Checksum(raw["algorithm"], items)


def build_model(loaded: LoadedSpec) -> Spec:
    """Check a loaded spec's meaning and return its model (raises SpecError)."""
    return _Builder(loaded).build()
