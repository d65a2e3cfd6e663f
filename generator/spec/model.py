"""The format model: a validated spec as typed objects, independent of any target.

:class:`Spec` holds a format's :class:`Enum` s and :class:`Record` s, a record its
:class:`Field` s, a field the :class:`TypeRef` of what it holds on the wire (a primitive,
bytes, a nested record, a switch, a choice, a runtime primitive...). The objects are made
and checked by :func:`generator.spec.validate.build_model`; every emitter reads them.
"""

from __future__ import annotations

import dataclasses
import re

from generator.spec.loader import LoadedSpec
from generator.spec.types import LEB128, RUNTIME_TYPES
from runtime.core.codec import POSTGRES_EPOCH_MICROS, LsnBeside, TimeBeside
from runtime.core.value_kinds import WIRE_TYPES

BIT_FIELD = re.compile(r"(s?)b([1-9][0-9]?)(le)?")
"""``b1``..``b64``: an unsigned integer of that many bits, its run read most significant
bit first; ``sb12`` signed (two's complement); ``b12le``/``sb12le``: its run read least
significant bit first (Kaitai's ``b12le``)."""

TIME_LOGICALS = (
    "unix_seconds",
    "unix_millis",
    "unix_micros",
    "unix_nanos",
    "tidb_tso",
    "postgres_micros",
)
"""The ``logical:`` integer times: the number stays, ``<name>_time`` beside it in JSON."""

BESIDE_LOGICALS = {**dict.fromkeys(TIME_LOGICALS, TimeBeside.SUFFIX), "pg_lsn": LsnBeside.SUFFIX}
"""The ``logical:`` integers whose number stays with a text beside it in JSON: kind -> the
text's key suffix (``<name>_time``; a PostgreSQL LSN's ``X/Y`` as ``<name>_text``)."""

SPARK_LOGICAL_TYPES = {
    "uuid": "16 byte values (a list or bytes) as the text form of a UUID",
    "timestamp_ms": "milliseconds since the epoch: the number, plus a `<name>_ts` TimestampType",
    "timestamp_us": "microseconds since the epoch: the number, plus a `<name>_ts` TimestampType",
    "timestamp_ns": (
        "nanoseconds since the epoch: the number, plus a `<name>_ts` TimestampType (which "
        "holds microseconds: the number keeps the nanoseconds)"
    ),
}

SPARK_TIMES = {
    "unix_millis": "timestamp_ms",
    "unix_micros": "timestamp_us",
    "unix_nanos": "timestamp_ns",
    "postgres_micros": "timestamp_us",
}
"""The Spark type of a ``logical:`` time with no ``spark: {type:}`` of its own: the number and
a ``<name>_ts`` TimestampType (a time in seconds or a TSO stays its number)."""

TIMESTAMP_US_EPOCHS = {"postgres_micros": POSTGRES_EPOCH_MICROS}
"""``logical:`` times whose microseconds count from another epoch than Unix's: where
``spark: {type: timestamp_us}`` is on such a field, its ``<name>_ts`` column adds this many
microseconds (PostgreSQL's epoch, 2000-01-01 UTC, for ``postgres_micros``)."""


@dataclasses.dataclass
class EnumValue:
    name: str
    value: int
    doc: str
    attributes: dict = dataclasses.field(default_factory=dict)


JSON_VALUE_TYPES = ("s64", "u64", "wide", "f32", "f64", "str", "utf8", "quoted", "base64", "scalar")
"""The JSON value types a ``rendering:`` attribute's kinds name: each a reader and a writer
in ``runtime.formats.open_protocol_json`` (``s64``/``u64``/``wide``: an integer in int64,
uint64 or either range; ``f32``/``f64``: a number as Go renders that float; ``str``: a
string, model str; ``utf8``: a string, model its UTF-8 bytes; ``quoted``: a strconv.Quote'd
string, model bytes; ``base64``: standard base64, model bytes; ``scalar``: any scalar)."""
JSON_CONDITIONS = ("type", "text", "legacy", "flagless", "binary", "unsigned")
"""What a JSON kind's variants hold under, checked in this order (``type``: otherwise)."""


@dataclasses.dataclass
class EnumAttribute:
    """A fact every value of an enum states (how a type code's value is encoded, say)."""

    name: str
    doc: str
    allowed: list
    kinds: dict = dataclasses.field(default_factory=dict)
    """``kinds:``: value kind -> (wire type, wire type where unsigned, or None), for the
    ``decode_by:`` of a bytes chunk (empty: the attribute's values are plain ``values:``)."""
    variants: dict = dataclasses.field(default_factory=dict)
    """``kinds:`` in full: value kind -> {condition: the type that holds where it does}
    (``unsigned``; for a JSON ``rendering:`` also ``text``, ``legacy``, ``flagless``,
    ``binary``): what :attr:`kinds` keeps of it and more."""

    @property
    def wire_kinds(self) -> bool:
        """Its kinds are wire types (a ``decode_by:``'s), not JSON value types."""
        types = {t for pair in self.kinds.values() for t in pair if t}
        return types <= set(WIRE_TYPES) and all(
            set(v) <= {"unsigned"} for v in self.variants.values()
        )


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

    @property
    def member_of(self) -> str:
        """What a generated writer calls to take a value to its member, refusing what is none:
        the class, but a strict flags enum's ``FlagMembers`` lookup (``IntFlag(4)`` keeps a bit
        no flag names; ``_X_BY_VALUE[4]`` is a KeyError, so construct builds and says why).

        >>> Enum("tcp_flag", "", "u8", [], flags=True).member_of
        '_TCP_FLAG_BY_VALUE.__getitem__'
        """
        return f"_{self.name.upper()}_BY_VALUE.__getitem__" if self.flags else self.class_name


def int_range(bits: int, signed: bool) -> tuple[int, int]:
    """The smallest and largest integer of ``bits`` bits.

    >>> int_range(8, True), int_range(32, False)
    ((-128, 127), (0, 4294967295))
    """
    if signed:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def bit_field_range(ref) -> tuple[int, int]:
    """The smallest and largest value a bit field holds."""
    return int_range(ref.bits, ref.bits_signed)


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
    terminator: int | None = None
    """``terminator: N`` on a str/bytes (instead of ``size:``): the value runs to that byte,
    which is consumed and written but never part of the value."""
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

    @property
    def on_enclosing(self) -> bool:
        """A switch on an enclosing record's field (``switch_on: _parent...``;
        generator/spec/enclosing.py): its case is told by the value where no parent is at
        hand (a JSON form, a row)."""
        return self.kind == "switch" and self.switch_on.startswith("_parent.")

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


@dataclasses.dataclass(frozen=True)
class Ref:
    """``ref:``: a field's integers are ids into a dictionary (a list of names read elsewhere
    in the message); the wire keeps the ids, the mapping resolves and checks them."""

    to: str
    """The dictionary field as the spec writes it (``_parent.term_dictionary``)."""
    record: str
    """The record that holds the dictionary field ..."""
    dictionary: str
    """... and its name."""
    null: int | None = None
    """The id of no name (None), or None when every id names an entry."""
    empty_refused: bool = False
    """``empty: refused``: an id of the empty name is an error (written as ``null``)."""


@dataclasses.dataclass(frozen=True)
class DecodeBy:
    """``decode_by:``: each element of a bytes chunk is a value of the kind its code has
    (an enum attribute with ``kinds:``), read unsigned where a flag bit is set."""

    code: str
    """The sibling chunk of codes."""
    enum: str
    """The enum of the codes ..."""
    attribute: str
    """... and its attribute with ``kinds:``."""
    flags: str = ""
    """``signed_unless:``: the sibling chunk of flags (empty: always signed) ..."""
    unsigned: int = 0
    """... and the bit of it that makes a value unsigned."""


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
    on_cut: str = ""
    """``keep``: a ``repeat: eos`` that keeps the whole elements of a cut input (and the cut
    one's bytes as ``<name>_cut``); else a cut element fails the parse."""
    const: int | None = None
    checksum: Checksum | None = None
    spark_skip: bool = False
    spark_type: str = ""
    spark_inline: bool = False
    condition: str = ""
    """``if:``: an expression; the field is on the wire only when it is true (else None)."""
    if_bytes_left: bool = False
    """``if: bytes_left()``: read only while bytes remain in the sized region around the
    record (``condition`` is then construct's test); written when the model has it."""
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
    valid_message: str = ""
    """``valid: {check, message}``: the DecodeError's message (else it quotes the check)."""
    build_valid: str = ""
    """``valid: {check, message, when: build}``: an expression checked on build only, where
    it is ``valid``'s place (``valid_text``, ``valid_message``): the layout keeps the rule
    whenever the bytes are read, and a model made by hand can break it."""
    trailer: bool = False
    """Read from the end of the record (its ``trailer:``), before the fields in front."""
    repeat_checked_on_build: bool = True
    """False when ``repeat: {count:}`` reads a value the builder computes later."""
    open_enum: str = ""
    """``enum:`` with ``open: true``: any integer is kept; the JSON form names members."""
    logical: str = ""
    """``logical:``: how the JSON form shows it (``uuid``, or an integer time kind)."""
    display: str = ""
    """``display: hex``: the JSON form shows the integer as hex text (the model keeps it)."""
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
    ref: Ref | None = None
    """``ref:``: its integers are ids into a dictionary field (:class:`Ref`)."""
    interned: tuple[str, ...] = ()
    decode_by: DecodeBy | None = None
    """``decode_by:``: its bytes elements are values of their code's kind (:class:`DecodeBy`)."""
    """``interned:`` on a dictionary: the paths of the ``ref:`` fields that name its
    entries (from its record, ``[*]`` over list elements), in the order a writer interns."""

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
class MapRule:
    """A rule of a ``map:`` class: ``check`` (Python over the source) must hold, else the
    error is ``message`` (``{value}``: the element at ``at``) at element ``i`` of the chunk
    ``at`` (``(record field, chunk)`` of the source)."""

    check: str
    at: tuple[str, str]
    message: str
    line: int | None


@dataclasses.dataclass
class MapValue:
    """A model field of a ``map:`` class: ``python`` over the source, or (``ref`` set) the
    name that the id at element ``i`` of the chunk ``at`` stands for, checked by its ref."""

    name: str
    python: str
    at: tuple[str, str] | None = None
    ref: Ref | None = None


@dataclasses.dataclass
class MapGroups:
    """``groups:`` of a ``map:`` class: each element of the element's repeated record field
    ``each`` fills the model field ``into[member]`` (``by``: the group's enum field, each
    member at most once, else ``once``) with one ``model`` per column: model field ->
    chunk of the group, a ``ref:`` chunk (``ref``) resolved, the ``decode_by:`` chunk
    (``values``, with its ``codes`` and ``flags`` chunks) decoded."""

    each: str
    by: str
    once: str
    into: dict[int, str]
    module: str
    model: str
    columns: dict[str, str]
    names: str
    ref: Ref
    values: str
    codes: str
    flags: str
    line: int | None


@dataclasses.dataclass
class MapClass:
    """One class of a ``map:``: the enum member (``value``) that selects it, the runtime
    model it makes (``module``, ``model``), its rules in declared order, its fields and
    its ``groups:`` (None: none)."""

    member: str
    value: int
    module: str
    model: str
    rules: list[MapRule]
    fields: list[MapValue]
    line: int | None
    groups: MapGroups | None = None


@dataclasses.dataclass
class Mapping:
    """``map:``: one model per element of ``source.each``, its class by the member at
    element ``i`` of the chunk ``class_by`` (``(record field, chunk)``), run after the
    source record is read (its layout and rules first, then the classes' rules)."""

    source: str
    each: str
    class_by: tuple[str, str]
    classes: list[MapClass]
    line: int | None
    way_back: object = None
    """The way back (``generator.spec.unmapping.WayBack``) when the mapping has ``batch:``."""


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
    spark_paths: list[list[tuple[str, str]]] = dataclasses.field(default_factory=list)
    """Every row path: ``spark_path`` alone, or one per case of each choice the path goes
    through (their rows of one shape, checked at load; ``spark_path`` is the first)."""
    layout: str = "sequence"
    """``sequence`` (fields back to back), ``serializable`` (mysql::serialization message)
    or ``protobuf`` (tag-keyed records in any order)."""
    detect: Detect | None = None
    """``detect:``: how to recognise a message of this record by its leading bytes."""
    mapping: Mapping | None = None
    """``map:``: the record's models are mapped from another record (:class:`Mapping`)."""
    byte_order: str = ""
    """``le``/``be`` when its own ``endian:`` or its holder's says one (its numbers then
    carry the suffix), ``data`` when the data chooses it (:mod:`generator.spec.byte_order`),
    else empty: the spec's ``endian:``."""
    order_switch: tuple | None = None
    """``endian: {switch_on:, cases:}``: (the field, {its value: order}, default order)."""

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
    """``imports:``: the specs whose enums and models this one uses (:mod:`generator.spec.imports`)."""
    models: dict = dataclasses.field(default_factory=dict)
    """``models:``: class name -> :class:`generator.spec.model_classes.ModelClass`."""
    imported_models: dict = dataclasses.field(default_factory=dict)
    """``IMPORT.CLASS`` -> its ``ModelClass``: the classes of imported specs' ``models:``."""
    framed_files: dict = dataclasses.field(default_factory=dict)
    """``framed:``: file record -> how it is read record by record
    (:class:`generator.spec.framing.FramedFile`)."""

    @property
    def kept_varints(self) -> bool:
        """Whether a message read from a LEB128 varint longer than it needs keeps its bytes
        (``wire_form``, runtime/core/kept.py): where the generated readers and the runtime
        ones they call (chunks, counted chunks, a reversed trailer) note every LEB128
        varint of the format, records of fields in sequence, and a runtime type keeps its
        own bytes (``kept_as``: Craft's message, :meth:`keeps_form`)."""
        refs = []
        for record in self.records.values():
            if record.layout != "sequence" or record.serializable:
                return False
            for field in record.fields:
                refs += [field.type, *field.type.cases.values()]
        if any(ref.kind == "runtime" and not RUNTIME_TYPES[ref.name].kept_as for ref in refs):
            return False
        names = {ref.name for ref in refs if ref.kind == "prim"}
        names |= {ref.size for ref in refs if ref.size_is_prefix}
        # every chunk and region is LEB128 varints (generator/spec/types.py CHUNK_TYPES)
        return bool(names & set(LEB128)) or any(ref.kind in ("chunk", "region") for ref in refs)

    def keeps_form(self, record: Record) -> bool:
        """Whether ``record``'s model has a ``wire_form`` (:attr:`kept_forms`): every
        record of such a format but one whose runtime type keeps the bytes itself (its
        ``kept_as``, as Craft's message keeps them in its events)."""
        return self.kept_forms and not any(
            f.type.kind == "runtime" and RUNTIME_TYPES[f.type.name].kept_as for f in record.fields
        )

    @property
    def kept_forms(self) -> bool:
        """Whether a message read from forms build writes otherwise keeps its bytes in the
        model ``parse`` returns (``wire_form``, runtime/core/kept.py): LEB128 varints longer
        than they need (:attr:`kept_varints`), or a ``layout: serializable`` message not in
        MySQL's form (its readers note what MySQL's writer does not write)."""
        return self.kept_varints or any(r.serializable for r in self.records.values())

    @property
    def is_library(self) -> bool:
        """A spec of enums (and models) only, for other specs to import: no records, so no
        codec module of its own (its ``models:`` are a module of classes)."""
        return not self.records

    def is_back_reference(self, user: str, dep: str) -> bool:
        """Whether ``user`` refers to ``dep`` before ``dep`` is defined (:meth:`record_order`):
        the points where recursive records recurse (construct's ``LazyBound``, a JSON text
        column in Spark)."""
        order = self.record_order()
        return order.index(dep) >= order.index(user)

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
    events: tuple = ()
    """Members of the event-type key's enum: the only event types that carry it (empty: all)."""
    logical: str = ""
    """``logical:``: how the JSON form shows the field (an integer time kind: a time beside)."""


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
    batch: object = None
    """``batch:``: ``encode_events``' batching (a :class:`generator.spec.batching.Batch`)."""
    batch_estimate: str = ""
    """The batch's model estimate, Python over the codec's ``part`` of a model."""
    class_by: tuple[str, str] = ("", "")
    """``class_by: DOCUMENT.KEY``: the key of the key document whose closed enum says an
    event's class."""
    classes: list[KafkaClass] = dataclasses.field(default_factory=list)
    """``classes:``: per member of that enum, in the spec's order."""


@dataclasses.dataclass
class KafkaClass:
    """One of a ``kafka_message:``'s ``classes:``: the model an event of ``member`` is, made
    of the fields its key document carries and those of its ``document`` (the value)."""

    member: str
    value: int
    module: str
    model: str
    document: str
    """The ``json:`` document of its Kafka value (one with no keys: the value is empty)."""
    fields: tuple[tuple[str, str], ...]
    """(model field, the document it comes from), in the model's order."""
    write_first: str
    """``key`` or ``value``: the document written (and so refused) first."""
    line: int | None


@dataclasses.dataclass
class ClaimCheck:
    """A record whose bytes are one Kafka message in the codec's claim-check object."""

    record: str
    doc: str
    document: str
    """The ``json:`` document of the object: a ``bytes`` key per Kafka column."""


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
