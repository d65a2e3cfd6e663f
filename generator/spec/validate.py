"""A loaded spec -> its format model, checked: :func:`build_model`.

It checks what JSON Schema cannot: unknown types and enums, duplicate names, enum value
clashes, dangling references, fields used before they are read, loops a record cannot
make, the rules of each layout, and the ``json:`` documents and ``kafka_message:``. The
fields themselves are built by :class:`generator.spec.fields.FieldBuilder`.
"""

from __future__ import annotations

import copy
import importlib.util
import re

from generator.spec import names as spec_names
from generator.spec.batching import read_kafka_batch
from generator.spec.byte_order import resolve_byte_orders
from generator.spec.bytes_left import check_bytes_left
from generator.spec.decode_by import check_decode_by
from generator.spec.fields import FieldBuilder
from generator.spec.framing import framed_file
from generator.spec.imports import resolve as resolve_imports
from generator.spec.kafka_classes import read_kafka_classes
from generator.spec.loader import Lines, LoadedSpec, key_path
from generator.spec.mapping import check_maps
from generator.spec.model import (
    JSON_CONDITIONS,
    JSON_VALUE_TYPES,
    ClaimCheck,
    Detect,
    Enum,
    EnumAttribute,
    EnumValue,
    Field,
    JsonDoc,
    JsonKeyDef,
    KafkaMessage,
    Record,
    Spec,
    TypeRef,
    camel,
    field_dependencies,
)
from generator.spec.model_classes import read_models
from generator.spec.refs import check_refs
from generator.spec.row_choices import paths_through_choice
from generator.spec.types import PRIMITIVES, RUNTIME_TYPES
from generator.spec.unmapping import check_way_back
from runtime.core.errors import did_you_mean


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


class SpecBuilder(FieldBuilder):
    """Builds the :class:`Spec` of one loaded spec, checking it as it goes."""

    def __init__(self, loaded: LoadedSpec):
        self.loaded = loaded
        self.lines: Lines = loaded.lines
        resolved = resolve_imports(loaded, check=build_model)
        self.data, self.imports, self.origins = resolved.data, resolved.imports, resolved.origins
        self.imported_models = resolved.models
        self.endian = self.data.get("endian", "le")

    def error(self, parts, message):
        return self.lines.error(parts, message)

    def check_json_names(self) -> None:
        """An imported model's ``json: {names: ENUM}`` names an enum of this spec (the
        format's own, whose member names its JSON form shows)."""
        for qualified, model in self.imported_models.items():
            for f in model.fields:
                if f.json_names and f.json_names not in self.enums:
                    raise self.error(
                        ("imports",),
                        f"{qualified}.{f.name} shows json: names: {f.json_names!r}, an enum"
                        " this spec does not have",
                    )

    def build(self) -> Spec:
        data = self.data
        self.check_type_names()
        enums = {name: self.enum(name, body) for name, body in data.get("enums", {}).items()}
        self.enums = enums
        record_names = set(data.get("records", {}))
        self.record_names = record_names
        models = read_models(self, data.get("models", {}))
        self.check_json_names()
        if not record_names and not enums and not models:
            raise self.error(
                (), "a spec has records (and a default_record), or enums or models to import"
            )
        records = {name: self.record(name, body) for name, body in data.get("records", {}).items()}
        self.check_no_cycle(records)
        check_bytes_left(self, records)
        check_refs(self, records)
        check_decode_by(self, records)
        check_maps(self, records)
        check_way_back(self, records)
        resolve_byte_orders(self, records)
        self.choice_detects(records)
        _mark_late_values(records)
        json_documents = self.json_documents(data.get("json", {}))
        kafka = self.kafka_message(data.get("kafka_message"), records, json_documents)
        if (
            records
            and data["default_record"] not in records
            and not (kafka and kafka.record == data["default_record"])
        ):
            name = data["default_record"]
            hint = did_you_mean(name, records)
            raise self.error(("default_record",), f"no record named {name!r}{hint}")
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
            limits=dict(data.get("limits", {})),  # spec.schema.json checks each
            imports=self.imports,
            models=models,
            imported_models=self.imported_models,
            framed_files={
                name: framed_file(
                    self, records[name], body["framed"], records, ("records", name, "framed")
                )
                for name, body in data.get("records", {}).items()
                if "framed" in body
            },
        )

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
                bits, width, group = (
                    (bits << ref.bits) | field.const,
                    width + ref.bits,
                    field.bit_group[0],
                )
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
                    events=tuple(k.get("events", ())), logical=k.get("logical", ""),
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
                    self.json_kinds(enum, attr, where + ("rendering",))
                if key.logical and (key.type not in ("u64", "s64") or key.enum):
                    raise self.error(where + ("logical",), "a time is an integer key's (no enum)")
                keys.append(key)
            self.json_events(name, keys)
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

    def kafka_message(
        self, raw: dict | None, records: dict, documents: dict
    ) -> KafkaMessage | None:
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
        if claim is not None:
            if claim["record"] in set(records) | {raw["record"]}:
                raise self.error(
                    ("kafka_message", "claim_check", "record"),
                    f"{claim['record']!r} is already a record",
                )
            self.claim_check_document(claim["document"], list(raw["columns"]), documents)
        class_by, classes, enum = read_kafka_classes(self, raw, documents)
        batch, estimate = read_kafka_batch(self, raw, enum) if "batch" in raw else (None, "")
        return KafkaMessage(
            raw["record"],
            raw["doc"],
            dict(raw["columns"]),
            raw["codec"],
            None if claim is None else ClaimCheck(claim["record"], claim["doc"], claim["document"]),
            batch,
            estimate,
            class_by,
            classes,
        )

    def claim_check_document(self, name: str, columns: list[str], documents: dict) -> None:
        """A claim-check object holds the whole Kafka message: one ``bytes`` key, always
        written, per Kafka column (its ``field:``), nothing else."""
        where = ("kafka_message", "claim_check", "document")
        doc = documents.get(name)
        if doc is None:
            raise self.error(where, f"no JSON document {name!r}")
        fields = sorted(k.field for k in doc.keys)
        if fields != sorted(columns) or any(
            k.type != "bytes" or k.omit != "never" for k in doc.keys
        ):
            raise self.error(
                where,
                f"JSON document {name!r} must have one bytes key with omit: never per Kafka "
                f"column ({', '.join(columns)}), its field: the column; it has "
                + (", ".join(f"{k.name} ({k.type}, field {k.field})" for k in doc.keys) or "none"),
            )

    def json_events(self, doc: str, keys: list) -> None:
        """A key's ``events:`` are members of the enum of its document's event-type key."""
        type_key = next((k for k in keys if k.field == "type" and k.enum), None)
        members = {v.name for v in self.enums[type_key.enum].values} if type_key else set()
        for i, key in enumerate(keys):
            for member in key.events:
                if member not in members or key is type_key:
                    raise self.error(
                        ("json", doc, "keys", i, "events"),
                        f"{member!r} is no member of the enum of an event-type key "
                        "(field: type) of this document",
                    )

    def json_kinds(self, enum, attr: str, where) -> None:
        """A ``rendering:`` attribute has kinds of JSON value types (its ``text``, ``legacy``,
        ``flagless``, ``binary`` and ``unsigned`` variants too); ``binary``/``unsigned`` name
        members of the column flags enum (checked where the column document is rendered)."""
        attribute = next(a for a in enum.attributes if a.name == attr)
        if not attribute.kinds:
            raise self.error(where, f"{enum.name}.{attr} has no kinds: of JSON value types")
        for kind, (type_, _) in attribute.kinds.items():
            for condition, name in {"type": type_, **attribute.variants[kind]}.items():
                if condition not in JSON_CONDITIONS or name not in JSON_VALUE_TYPES:
                    raise self.error(
                        ("enums", enum.name, "attributes", attr, "kinds", kind, condition),
                        f"{condition}: {name!r} is no JSON value type (or condition): "
                        f"{', '.join(JSON_VALUE_TYPES)}; conditions {', '.join(JSON_CONDITIONS)}",
                    )

    def enum_attribute(self, name: str, decl: dict, where) -> EnumAttribute:
        """An enum's attribute: its ``values:``, or its ``kinds:`` (the wire type of each)."""
        parts = where + ("attributes", name)
        if ("values" in decl) == ("kinds" in decl):
            raise self.error(parts, "an attribute has values: or kinds:, one of them")
        kinds, variants = {}, {}
        for kind, wire in decl.get("kinds", {}).items():
            if isinstance(wire, dict):
                kinds[kind] = (wire["type"], wire.get("unsigned"))
                variants[kind] = {k: v for k, v in wire.items() if k != "type"}
            else:
                kinds[kind], variants[kind] = (wire, None), {}
        values = decl.get("values") or list(kinds)
        return EnumAttribute(name, decl["doc"], values, kinds, variants)

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
        built = {a: self.enum_attribute(a, d, where) for a, d in declared.items()}
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
                if given not in built[attr].allowed:
                    raise self.error(
                        where + ("values", member, attr),
                        f"{given!r} is not one of {built[attr].allowed}",
                    )
                attributes[attr] = given
            for key in set(spec) - {"value", "doc"} - set(declared):
                raise self.error(where + ("values", member, key), f"undeclared attribute {key!r}")
            values.append(EnumValue(member, value, spec["doc"], attributes))
        attributes = list(built.values())
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
        self.rest_is_last(fields, where, keyed="layout" in body)
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
            paths = self.row_paths(record, spark["row"], where + ("spark", "row"))
            record.spark_path, record.spark_paths = paths[0], paths
            record.spark_row = spark["row"]
        elif "row" in spark:
            target = next((f for f in fields if f.name == spark["row"]), None)
            rows = target is not None and target.type.kind == "runtime"
            if rows and not RUNTIME_TYPES[target.type.name].rows_spark:
                rows = False
            if not rows and (
                target is None or target.repeat is None or target.type.kind != "record"
            ):
                repeated = [
                    f.name for f in fields if f.repeat is not None or f.type.kind == "runtime"
                ]
                hint = did_you_mean(spark["row"], repeated) if target is None else ""
                raise self.error(
                    where + ("spark", "row"), f"must name a repeated record field{hint}"
                )
            record.spark_row = spark["row"]
            if not rows and any(f is not target and not f.spark_skip for f in fields):
                # the record's other columns join each row, as a dotted path's records' do
                record.spark_path = [(record.name, target.name)]
                record.spark_paths = [record.spark_path]
        return record

    def row_paths(self, record: Record, path: str, parts) -> list[list[tuple[str, str]]]:
        """``spark: {row: a.b.c}``: each step a record field of the record before it (a
        list or one record), the last a repeated record field; (record, field) per step.
        A step through a choice goes on in each case record: a path per case
        (:mod:`generator.spec.row_choices`)."""
        steps, current = [], record
        names = path.split(".")
        for i, name in enumerate(names):
            field = next((f for f in current.fields if f.name == name), None)
            last = i == len(names) - 1
            if field is not None and field.type.kind == "choice" and not field.condition:
                return paths_through_choice(self, current, names, i, field, parts, steps)
            absent = field is not None and (field.condition or field.optional) and not last
            if (
                field is None
                or field.type.kind != "record"
                or (last and field.repeat is None)
                or absent
            ):
                known = [f.name for f in current.fields if f.type.kind == "record"]
                hint = did_you_mean(name, known) if field is None else ""
                what = repr(name)
                if field is not None and field.type.kind == "switch":
                    what = f"{name!r} is a {field.type.kind}"
                    hint = (
                        " (give each case record its own spark: {row: ...}, and read with "
                        "--record CASE)"
                    )
                raise self.error(
                    parts,
                    f"{what}: a row path steps through record fields that are always there "
                    f"and ends with a repeated one{hint}",
                )
            steps.append((current.name, name))
            body = self.data["records"][field.type.name]
            current = self.record(field.type.name, body)
        return [steps]

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

    def rest_is_last(self, fields: list[Field], where, keyed: bool = False) -> None:
        """A ``process: {size: eos}`` region, and in a record of fields in order (not
        ``keyed`` by ids or tags) a ``repeat: eos`` and ``size: eos`` bytes or text, run to
        the record's end: nothing after them is on the wire (derived fields may follow),
        else every input would fail at the field after."""
        for i, field in enumerate(fields):
            later = [f.name for f in fields[i + 1 :] if not f.derived]
            if field.on_cut and (later or keyed):
                raise self.error(
                    where + ("fields", i, "on_cut"),
                    "on_cut: keep goes on the record's last field (the cut is where the input ends)",
                )
            if not later:
                continue
            if field.process is not None and field.process.rest:
                raise self.error(
                    where + ("fields", i, "process", "size"),
                    f"the region runs to the record's end, but {', '.join(later)} follow(s)",
                )
            key = "repeat" if field.repeat == "eos" else "size"
            if keyed or (key == "size" and (field.type.size != "eos" or field.process)):
                continue
            raise self.error(
                where + ("fields", i, key),
                f"{key}: eos reads to the end of the record, so {', '.join(later)} after it "
                "would never be read: move them in front, or end this field another way "
                "(repeat: {count: ...} or {until: ...}, a size:, or the rest in a record "
                "of its own given a size:)",
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
            if field.on_cut:
                cut = TypeRef("bytes", "bytes", size="eos")
                kept.append(("cut", cut, None, "bytes of the element the input ends inside"))
            for suffix, ref, repeat, what in kept:
                name = f"{field.name}_{suffix}"
                if any(f.name == name for f in fields):
                    raise self.error(where, f"{name!r} keeps {field.name}'s {what}")
                doc = f"{field.name}'s {what} (kept for an exact rebuild)."
                extra = Field(name, doc, ref, field.line, repeat=repeat)
                extra.kept_of = field.name
                extra.spark_skip = suffix != "cut"  # a cut's column: its size (spark_columns)
                out.append(extra)
        return out

    def check_layout(self, record: Record, where, body: dict) -> None:
        """Id-keyed fields belong to ``layout: serializable`` records, and only there."""
        if record.layout == "protobuf":
            return self.check_protobuf(record, where)
        names = {f.name for f in record.fields}
        for i, (field, raw) in enumerate(zip(record.fields, body["fields"])):
            parts = where + ("fields", i)
            if self.is_protobuf(field.type) and field.type.size is None:
                raise self.error(
                    parts + ("type",), "a protobuf message has no end: give it a size:"
                )
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
        header = ("serializable_field_size", "last_non_ignorable_field_id", "unknown_fields")
        for name in (*header, "wire_form"):
            if name in names:
                raise self.error(where + ("fields",), f"{name!r} is the message header's name")

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

    def is_serializable(self, record_name: str) -> bool:
        return self.data["records"][record_name].get("layout") == "serializable"


def build_model(loaded: LoadedSpec) -> Spec:
    """Check a loaded spec's meaning and return its model (raises SpecError)."""
    return SpecBuilder(loaded).build()
