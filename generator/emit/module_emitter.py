"""What ``templates/module.py.j2`` needs of one spec, beyond the other targets' functions:
the construct objects (the exact reader and writer, the oracle every tier is held to), the
runtime primitives' instances, the model classes and the JSON form.

The Spark part is :class:`generator.emit.spark_columns.SparkColumns`; the module is put
together by :func:`generator.emit.render.render`.
"""

from __future__ import annotations

import re

from generator.emit import protobuf
from generator.emit.event_json import render_map_json_form
from generator.emit.kafka_classes import render_kafka_classes
from generator.emit.mapping import mapping_modules, render_mapping
from generator.emit.pysource import valid_construct, valid_rule, wide_const
from generator.emit.spark_columns import SparkColumns
from generator.emit.unknown_holders import unknown_holders, unlisted_selectors
from generator.emit.unmapping import render_batch, render_way_back, way_backs
from generator.spec import decode_by as spec_decode_by
from generator.spec import mapping as spec_mapping
from generator.spec import pytext
from generator.spec import refs as spec_refs
from generator.spec.byte_order import order_table, ordered
from generator.spec.enclosing import shape
from generator.spec.model import BESIDE_LOGICALS, TIME_LOGICALS, Field, Record, Spec, TypeRef, camel
from generator.spec.types import (
    CHUNK_TYPES,
    PRIMITIVES,
    REGION_TYPES,
    RUNTIME_IMPORTS,
    RUNTIME_TYPES,
    runtime_module,
)


def switch_from_json(record: str, field: str) -> str:
    """The module's table of a switch field's case readers from JSON: the field's name, then
    ``_In_`` and the record's (no capital in either, so no two records' tables meet: record
    ``a_b``'s field ``c`` and record ``a``'s field ``b_c`` were both ``_a_b_c_from_json``).

    >>> switch_from_json("a_b", "c"), switch_from_json("a", "b_c")
    ('_from_json_c_In_a_b', '_from_json_b_c_In_a')
    """
    return f"_from_json_{field}_In_{record}"


class ModuleEmitter(SparkColumns):
    """Everything the module template needs, computed from one :class:`Spec`."""

    def __init__(self, spec: Spec):
        self.spec = spec
        self._user = ""
        """The record whose field is being emitted (where a recursive record recurses)."""
        self._row_members: dict[str, str] = {}
        """Global -> ``Enum.CASE`` the rendered rows compare with (``row_member``)."""

    # -- construct objects -------------------------------------------------------------

    def prim(self, name: str) -> str:
        record = self.spec.records.get(self._user)
        if record is not None and record.byte_order == "data" and ordered(name):
            # the order an enclosing record's data chose (generator/spec/byte_order.py)
            prim = PRIMITIVES[name]
            return f"rt.ByteOrdered({prim.construct_le}, {prim.construct_be}, {self.spec.endian!r})"
        return PRIMITIVES[name].construct(self.spec.endian)

    # -- runtime primitives (generator/spec/types.py RUNTIME_TYPES) ---------------------------

    def runtime_refs(self) -> list[TypeRef]:
        return [
            f.type for r in self.spec.records.values() for f in r.fields if f.type.kind == "runtime"
        ]

    def runtime_instance(self, ref: TypeRef) -> str:
        """The module-level name of the configured instance of a runtime primitive."""
        configs = []
        for other in self.runtime_refs():
            key = (other.name, tuple(sorted(other.args.items())))
            if key not in configs:
                configs.append(key)
        key = (ref.name, tuple(sorted(ref.args.items())))
        same = [c for c in configs if c[0] == ref.name]
        suffix = f"_{same.index(key)}" if len(same) > 1 else ""
        return f"_{ref.name.upper()}{suffix}"

    def runtime_instances(self) -> list[tuple[str, str, object]]:
        """(name, constructor expression, RuntimeType) of every configured instance."""
        out, seen = [], set()
        for ref in self.runtime_refs():
            name = self.runtime_instance(ref)
            if name in seen:
                continue
            seen.add(name)
            rt = RUNTIME_TYPES[ref.name]
            args = [f"{k}={v}" for k, v in ref.args.items()]
            out.append((name, f"{rt.construct}({', '.join(args)})", rt))
        return out

    def runtime_exports(self, name: str, rt) -> tuple:
        """The functions the module exports of instance ``name`` of ``rt``: its ``exports``
        if it is that primitive's first instance, else none (a spec mapping two records by
        one primitive has one ``decode_message``, its first record's)."""
        first = next(n for n, _, other in self.runtime_instances() if other is rt)
        return rt.exports if name == first else ()

    def runtime_instances_first_used_by(self, record: Record) -> list[tuple[str, str, object]]:
        """The configured instances ``record`` is the first (in dependency order) to use:
        they are defined just before it, after the records they are configured with."""
        seen: set[str] = set()
        for name in self.spec.record_order():
            mine = []
            for field in self.spec.records[name].fields:
                if field.type.kind == "runtime":
                    instance = self.runtime_instance(field.type)
                    if instance not in seen:
                        seen.add(instance)
                        mine.append(instance)
            if name == record.name:
                return [i for i in self.runtime_instances() if i[0] in mine]
        return []

    def runtime_fast_readers(self) -> list[tuple[Record, Field, str]]:
        """Records that are one fast runtime primitive: (record, field, instance)."""
        return [
            (r, r.fields[0], self.runtime_instance(r.fields[0].type))
            for r in self.spec.records.values()
            if len(r.fields) == 1
            and r.fields[0].type.kind == "runtime"
            and RUNTIME_TYPES[r.fields[0].type.name].fast
        ]

    def runtime_row_types(self) -> list[tuple[str, object]]:
        names = sorted({ref.name for ref in self.runtime_refs()})
        return [(n, RUNTIME_TYPES[n]) for n in names if RUNTIME_TYPES[n].rows_spark]

    # -- dictionaries (``ref:`` fields and the ``interned:`` order of what they name) ----------

    def dictionaries(self) -> list:
        """(record, dictionary field) of each dictionary with ``interned:``."""
        return spec_refs.dictionaries(self.spec.records)

    def dictionary_noun(self, field: Field) -> str:
        """What one id into ``field`` is called in errors (a Craft term)."""
        return "term" if field.type.name == "term_dictionary" else "entry"

    def dictionary_refs(self, record: Record, field: Field) -> list:
        """(path, ref field) of every ``interned:`` path of dictionary ``field``."""
        return [(p, spec_refs.walk(self.spec.records, record, p)) for p in field.interned]

    # -- value decoders (``decode_by:`` and the ``kinds:`` of an enum attribute) ----------

    def decoders(self) -> list:
        """(record, field) of each chunk with ``decode_by:``."""
        return spec_decode_by.decoders(self.spec.records)

    def decoder_expression(self, decode_by) -> str:
        """The ``runtime.core.value_kinds.ValueKinds`` of a ``decode_by:``: the kinds of its
        enum attribute over the attribute's generated table."""
        enum = self.spec.enums[decode_by.enum]
        attribute = next(a for a in enum.attributes if a.name == decode_by.attribute)
        kinds = ", ".join(
            f"{kind!r}: rt_value_kinds.Kind({wire!r}"
            + ("" if unsigned is None else f", {unsigned!r}")
            + ")"
            for kind, (wire, unsigned) in attribute.kinds.items()
        )
        table = f"{enum.name.upper()}_{attribute.name.upper()}"
        noun = enum.name.replace("_", " ")
        order = "<" if self.spec.endian == "le" else ">"
        return (
            f"rt_value_kinds.ValueKinds({noun!r}, {{{kinds}}}, {table}, {decode_by.unsigned:#x},"
            f" {order!r})"
        )

    # -- mappings (``map:``: a record's models made from another record) -----------------

    def mappings(self) -> list[tuple[Record, str]]:
        """(record, source of its mapping function) of each record with ``map:``."""
        return [(r, render_mapping(self.spec, r)) for r in spec_mapping.mappings(self.spec.records)]

    def way_backs(self) -> list[tuple[Record, str]]:
        """(record, source of its way back's functions) of each ``map:`` with ``batch:``."""
        return [(r, render_way_back(self.spec, r)) for r in way_backs(self.spec.records)]

    def json_forms(self) -> list[tuple[Record, str]]:
        """(record, source of its events' JSON form) of each ``map:`` with ``batch:``."""
        return [(r, render_map_json_form(self.spec, r)) for r in way_backs(self.spec.records)]

    def kafka_batch(self) -> str:
        """The source of ``_batch_<record>``, a ``kafka_message:``'s ``batch:`` ("": none)."""
        km = self.spec.kafka_message
        if km is None or km.batch is None:
            return ""
        where = f"{self.spec.source.display}:{km.batch.line}"
        return "\n".join(render_batch(km.record, where, km.batch, "part[0]", km.batch_estimate))

    def kafka_classes(self) -> str:
        """The source of a ``kafka_message:``'s classes and ``EVENT_CLASSES``."""
        return render_kafka_classes(self.spec)

    @staticmethod
    def ref_expression(path: str, ref) -> str:
        args = [repr(path)]
        if ref.null is not None:
            args.append(f"null={ref.null}")
        if ref.empty_refused:
            args.append("empty_refused=True")
        return f"rt_refs.Ref({', '.join(args)})"

    def runtime_imports(self) -> dict[str, str]:
        """``rt_x`` -> the runtime module ``x`` that the primitives, chunks and regions name
        (``runtime.core.x``, or ``runtime.formats.x`` for a format's own), or the generated
        module of an imported spec's ``models:`` (``generated.models.ticdc_types``)."""
        text = " ".join(
            f"{rt.construct} {rt.rows_spark} {rt.rows_to_row}"
            for rt in (RUNTIME_TYPES[ref.name] for ref in self.runtime_refs())
        )
        text += " ".join(self.all_construct_expressions())
        text += " rt_refs." if self.dictionaries() else ""
        text += " rt_value_kinds." if self.decoders() else ""
        text += " ".join(f" rt_{m}." for m in mapping_modules(self.spec.records.values()))
        text += " rt_unmap. rt_value_kinds. rt_leb128." if self.way_backs() else ""
        km = self.spec.kafka_message
        text += " ".join(f" rt_{c.module}." for c in (km.classes if km else ()))
        names = sorted(set(re.findall(r"\brt_([a-z_]+)\.", text)) - {"checksum", "serializable"})
        if any(name.startswith("Float32") for name in self.fixed_imports()):
            names = sorted({*names, "float32"})  # the readers' NaN payloads (rt_float32)
        models = {q.partition(".")[0] for q in self.spec.imported_models}  # generated modules
        return {
            name: f"generated.models.{name}" if name in models else runtime_module(name)
            for name in names
        }

    def count_said(self, ref: TypeRef) -> str:
        """A chunk's count as the spec says it where the count is a field of the record
        computed on build (``count = len(names)``), else "": a build's refusal of another
        chunk's length then names the list the count is of."""
        counted = re.fullmatch(r"this\.(\w+)", str(ref.count))
        record = self.spec.records.get(self._user) if counted else None
        field = record and next((f for f in record.fields if f.name == counted[1]), None)
        return f"{field.name} = {field.value_text}" if field and field.value_text else ""

    def type_construct(self, ref: TypeRef, nested: bool = False) -> str:
        """``nested``: inside a serializable message (a message there has no version id)."""
        if ref.kind == "runtime":
            return self.runtime_instance(ref)
        if ref.kind == "prim":
            base = self.prim(ref.name)
            if ref.enum:
                return f"rt.EnumField({base}, {camel(ref.enum)})"
            return base
        if ref.kind in ("str", "bytes"):
            encoding = repr(ref.encoding) if ref.kind == "str" else None
            if ref.terminator is not None:
                return f"rt.TerminatedBytes({ref.terminator}" + (
                    f", {encoding})" if encoding else ")"
                )
            if ref.size_is_prefix:
                args = self.prim(ref.size) + (f", {encoding}" if encoding else "")
                if ref.max_length is not None:
                    args += f", max_length={ref.max_length}"
                if ref.nullable:
                    args += ", nullable=True"
                return f"rt.LengthPrefixedBytes({args})"
            if ref.size == "eos":
                return f"rt.RestText({encoding})" if encoding else "rt.RestBytes()"
            size = ref.size if isinstance(ref.size, int) else f"lambda this: {ref.size}"
            pad = f", pad={ref.pad!r}" if ref.pad else ""
            return f"rt.SizedBytes({size}" + (f", {encoding}" if encoding else "") + pad + ")"
        if ref.kind == "chunk":
            count = str(ref.count) if isinstance(ref.count, int) else f"lambda this: {ref.count}"
            options = [f"enum={camel(ref.enum)}"] if ref.enum else []
            options += [] if ref.checked_on_build else ["check_on_build=False"]
            options += [f"count_said={said!r}"] if (said := self.count_said(ref)) else []
            return self.sized(ref, CHUNK_TYPES[ref.name].construct(count, *options))
        if ref.kind == "region":
            return self.sized(ref, REGION_TYPES[ref.name].construct)
        if ref.kind == "choice":
            cases = ", ".join(
                f"({magic!r}, {mask!r}, {self.record_construct(case)}, {camel(case)})"
                for case, (magic, mask) in zip(ref.cases, ref.detects)
            )
            return f"rt_choice.Choice([{cases}])"
        if ref.kind == "record":
            body = self.record_construct(ref.name)
            if nested and self.spec.records[ref.name].serializable:
                body = f"rt_serializable.SerializableMessage(*{ref.name}.fields, top_level=False, model={ref.name}.model)"
            if ref.size_is_prefix:
                return f"rt.SizePrefixed({self.prim(ref.size)}, {body})"
            return self.sized(ref, body)
        if ref.kind == "switch":
            enum = camel(ref.enum)
            cases = ", ".join(
                f"{enum}.{case}: {self.type_construct(sub)}" for case, sub in ref.cases.items()
            )
            default = ""
            if "default" in ref.cases:
                cases = ", ".join(
                    f"{enum}.{case}: {self.type_construct(sub)}"
                    for case, sub in ref.cases.items()
                    if case != "default"
                )
                default = f", default={self.type_construct(ref.cases['default'])}"
            expr = f"Switch(this.{ref.switch_on}, {{{cases}}}{default})"
            return self.sized(ref, expr)
        if ref.kind == "empty":
            return "rt.Empty()"
        if ref.kind == "map":
            key = self.type_construct(ref.key, nested=True)
            value = self.type_construct(ref.value, nested=True)
            return f"rt_serializable.MsbMap({key}, {value})"
        raise AssertionError(ref.kind)

    def record_construct(self, name: str) -> str:
        """The construct of record ``name`` where the record being emitted uses it: a
        ``LazyBound`` where the record recurses (``name`` is defined later)."""
        if self.spec.is_back_reference(self._user, name):
            return f"LazyBound(lambda: {name})"
        return name

    def sized(self, ref: TypeRef, body: str) -> str:
        """``body`` inside the byte count a ``size:`` number or expression gives."""
        if ref.size is None:
            return body
        size = ref.size if isinstance(ref.size, int) else f"lambda this: {ref.size}"
        unchecked = "" if ref.checked_on_build else ", check_on_build=False"
        return f"rt.Sized({size}, {body}{unchecked})"

    def processed_construct(self, field: Field, body: str = "") -> str:
        """A ``process:`` field: its (sized) wire bytes decoded by the codec, then read
        (``body``: what is read, when not the field's type: a repeated field's list)."""
        ref, process = field.type, field.process
        if not body and ref.kind == "record":
            body = ref.name
        elif not body:
            body = f"GreedyString({ref.encoding!r})" if ref.kind == "str" else "GreedyBytes"
        if process.cases is None:
            codec = repr(process.codec)
        else:
            codec = f"lambda this: {process.codec}, cases={process.cases!r}"
        level = "" if process.level is None else f", level={process.level}"
        rest = ", rest=True" if process.rest else ""
        expr = f"rt_process.Processed({body}, {field.name!r}, codec={codec}{level}{rest})"
        if process.rest:  # the rest of the enclosing (sized) stream
            return expr
        if ref.size_is_prefix:
            return f"rt.SizePrefixed({self.prim(ref.size)}, {expr})"
        return self.sized(ref, expr)

    def field_construct(self, field: Field, record: Record) -> str:
        if record.layout == "protobuf":
            return protobuf.field_construct(field)
        ref = field.type
        self._user = record.name
        if ref.kind == "bits":
            group, shift, first, last = field.bit_group
            flags = (", first=True" if first else "") + (", last=True" if last else "")
            flags += ", order='little'" if ref.bit_order == "little" else ""
            flags += ", signed=True" if ref.bits_signed else ""
            flags += f", enum={camel(ref.enum)}" if ref.enum else ""
            ref_expr = f"rt_bits.BitField({group}, {shift}, {ref.bits}{flags})"
            if field.const is not None:
                ref_expr = f"Const({field.const:#x}, {ref_expr})"
            if field.value:
                ref_expr = f"rt.Computed({ref_expr}, lambda this: {field.value})"
            if valid_rule(field):
                ref_expr = valid_construct(record, field, ref_expr)
            return ref_expr
        if field.kept_of:
            suffix = field.name[len(field.kept_of) :]
            return f"rt_sequences.Kept({'_' + field.kept_of + suffix!r})"
        if field.process is not None and field.repeat is None:
            expr = self.processed_construct(field)
            if field.condition:
                expr = f"If(lambda this: {field.condition}, {expr})"
            return expr
        if ref.kind == "presence":
            return f"rt.Presence(0x{field.tag:02x})"
        if field.derived:
            return f"rt.Derived(lambda this: {field.derived})"
        if wide_const(field):  # a magic number: a mismatch reads in hex
            expr = f"rt.Magic({field.const:#x}, {self.type_construct(ref)}, {field.name!r})"
        elif field.const is not None:
            expr = f"Const({field.const:#x}, {self.type_construct(ref)})"
        elif field.checksum is not None:
            items = ", ".join(self.checksum_item(item, record) for item in field.checksum.items)
            expr = f"rt_checksum.Checksum({self.type_construct(ref)}, {field.checksum.algorithm!r}, {items})"
        else:
            expr = self.type_construct(ref, nested=record.serializable)
        if field.repeat == "eos":
            extra = f", min_count={field.min_count}" if field.min_count else ""
            extra += f", cut={field.name!r}" if field.on_cut else ""
            expr = f"rt.RepeatEos({expr}{extra})"
        elif field.repeat == "tagged":
            tag = self.spec.records[ref.name].tag
            extra = f", min_count={field.min_count}" if field.min_count else ""
            expr = f"rt.RepeatWhileTag({expr}, 0x{tag:02x}{extra})"
        elif field.repeat == "msb_count":
            expr = f"rt_serializable.MsbVector({expr})"
        elif field.repeat == "blocks":
            expr = f"rt_sequences.RepeatBlocks({expr}, {field.name!r})"
        elif field.repeat == "until":
            until = field.repeat_until
            extra = "" if until["include"] else f", include=False, default={until['default']!r}"
            until = f"lambda this: {until['until']}{extra}"
            expr = f"rt_sequences.RepeatUntil({expr}, {field.name!r}, {until})"
        elif isinstance(field.repeat, dict):
            count = field.repeat["count"]
            count = count if isinstance(count, int) else f"lambda this: {count}"
            unchecked = "" if field.repeat_checked_on_build else ", check_on_build=False"
            expr = f"rt.RepeatCount({expr}, {count}{unchecked})"
        if field.process is not None:  # a repeated field's whole list, compressed
            expr = self.processed_construct(field, expr)
        if field.tag is not None:
            optional = ", optional=True" if field.optional else ""
            if field.optional and field.repeat is not None:
                optional += ", absent=list"
            expr = f"rt.Tagged(0x{field.tag:02x}, {expr}{optional})"
        if valid_rule(field) and field.condition:  # checked where the field is, not when absent
            expr = valid_construct(record, field, expr)
        if field.condition:
            expr = f"If(lambda this: {field.condition}, {expr})"
        if field.value:
            expr = f"rt.Computed({expr}, lambda this: {field.value})"
        if valid_rule(field) and not field.condition:
            expr = valid_construct(record, field, expr)
        if record.order_switch is not None and record.order_switch[0] == field.name:
            _, orders, default = record.order_switch
            expr = f"rt.ChoosesByteOrder({expr}, {order_table(orders)}, {default!r})"
        if record.serializable:
            rule = ""
            if field.has_default:
                rule += f", default={field.default!r}"
            if field.default_from:
                rule += f", default_from={field.default_from!r}"
            if field.unknown_field_policy != "ignore":
                rule += f", unknown_field_policy={field.unknown_field_policy!r}"
            return f"rt_serializable.Field({field.id}, {field.name!r}, {expr}{rule})"
        return expr

    def checksum_item(self, item, record: Record) -> str:
        if item.kind == "span":
            return f"rt_checksum.span({item.field!r}, {item.last!r})"
        if item.kind == "raw":
            target = record.field(item.field)
            skip = 1 if target.tag is not None else 0
            if target.type.size_is_prefix:
                skip += PRIMITIVES[target.type.size].size
            return f"rt_checksum.raw({item.field!r}, skip={skip})"
        encoder = self.prim(item.encoder)
        if item.kind == "each":
            return f"rt_checksum.each({item.field!r}, {item.member!r}, {encoder})"
        return f"rt_checksum.value(lambda this: {item.expression}, {encoder})"

    def all_construct_expressions(self) -> list[str]:
        return [self.field_construct(f, r) for r in self.spec.records.values() for f in r.fields]

    def fixed_imports(self) -> list[str]:
        """The runtime.core.fixed integers and floats the records use."""
        text = "\n".join(self.all_construct_expressions())
        return sorted(set(re.findall(r"\b(?:Int\d+[su][lb]|Float\d+[lb])\b", text)))

    def construct_imports(self) -> list[str]:
        """The construct names the records use."""
        text = "\n".join(self.all_construct_expressions())
        names = (
            "Bytes",
            "Const",
            "GreedyBytes",
            "GreedyString",
            "If",
            "LazyBound",
            "Switch",
            "this",
        )
        used = {name for name in names if re.search(rf"\b{name}\b", text)}
        return sorted(used, key=str.lower)

    # -- model classes -----------------------------------------------------------------

    def python_type(self, ref: TypeRef) -> str:
        if ref.kind == "bits":
            return camel(ref.enum) if ref.enum else "int"
        if ref.kind == "choice":
            union = " | ".join(camel(case) for case in ref.cases)
            later = any(self.spec.is_back_reference(self._user, case) for case in ref.cases)
            return repr(union) if later else union
        if ref.kind == "prim":
            return camel(ref.enum) if ref.enum else PRIMITIVES[ref.name].kind
        if ref.kind == "record":
            if self.spec.is_back_reference(self._user, ref.name):
                return repr(camel(ref.name))  # defined later: the annotation names it
            return camel(ref.name)
        if ref.kind == "switch":
            kinds = {self.python_type(sub) for sub in ref.cases.values() if sub.kind != "empty"}
            union = " | ".join(sorted(k.strip("'") for k in kinds) + ["None"])
            return repr(union) if any(k.startswith("'") for k in kinds) else union
        if ref.kind == "runtime":
            return RUNTIME_TYPES[ref.name].python
        if ref.kind == "map":
            return f"dict[{self.python_type(ref.key)}, {self.python_type(ref.value)}]"
        if ref.kind == "chunk":
            chunk = CHUNK_TYPES[ref.name]
            element = camel(ref.enum) if ref.enum else chunk.element
            return f"list[{element}{' | None' if chunk.nullable else ''}]"
        if ref.kind == "region":
            return REGION_TYPES[ref.name].python
        return {"presence": "bool", "empty": "None"}.get(ref.kind, ref.kind)

    def model_field(self, field: Field, record: Record) -> str:
        """``name: type = default`` of the field in its record's dataclass."""
        self._user = record.name
        annotation = self.python_type(field.type)
        if (default := protobuf.model_default(field)) is not None:  # proto3 implicit presence
            return f"{field.name}: {annotation} = {default}"
        if field.type.kind in ("chunk", "region") and field.repeat is None and not field.condition:
            return f"{field.name}: {annotation} = dataclasses.field(default_factory=list)"
        if field.repeat is not None and field.condition:
            return f"{field.name}: list[{annotation}] | None = None"
        if field.repeat is not None:
            return f"{field.name}: list[{annotation}] = dataclasses.field(default_factory=list)"
        if field.type.kind == "presence":
            return f"{field.name}: bool = False"
        if field.type.kind == "map":
            return f"{field.name}: {annotation} = dataclasses.field(default_factory=dict)"
        if annotation.startswith("'"):  # names a class defined later: all of it quoted
            if "None" not in annotation:
                annotation = f"{annotation[:-1]} | None'"
            return f"{field.name}: {annotation} = None"
        if "None" not in annotation:
            annotation += " | None"
        return f"{field.name}: {annotation} = None"

    def runtime_class_imports(self) -> list[tuple[str, str]]:
        """(module, names) of the bare runtime classes the records use (MsbVarInt, ...)."""
        text = "\n".join(self.all_construct_expressions())
        by_module: dict[str, list[str]] = {}
        for name, module in sorted(RUNTIME_IMPORTS.items()):
            if re.search(rf"\b{name}\b", text):
                by_module.setdefault(module, []).append(name)
        return [(module, ", ".join(names)) for module, names in sorted(by_module.items())]

    def uses(self, prefix: str) -> bool:
        """Whether any construct expression names ``prefix`` (e.g. ``rt_serializable.``)."""
        return any(prefix in text for text in self.all_construct_expressions())

    def uses_map(self) -> bool:
        return any(f.type.kind == "map" for r in self.spec.records.values() for f in r.fields)

    def uses_spark_type(self, *logicals: str) -> bool:
        return any(f.spark_type in logicals for r in self.spec.records.values() for f in r.fields)

    # -- readable JSON form: views ----------------------------------------------------

    def json_view(self, field: Field) -> str | None:
        """The ``runtime.core.codec`` view a field reads through in the JSON form, if any."""
        if field.type.kind == "runtime":
            return self.runtime_instance(field.type)  # the primitive renders its value
        if field.type.kind == "choice":
            names = ", ".join(f"{camel(case)}: {case!r}" for case in field.type.cases)
            return f"rt_codec.CaseName({{{names}}})"
        if field.logical == "fourcc":  # before its open enum: the letters of other codes
            return f"rt_codec.FourCC({camel(field.open_enum) if field.open_enum else ''})"
        if field.open_enum:
            return f"rt_codec.OpenEnum({camel(field.open_enum)})"
        if field.logical == "uuid":
            return f"rt_codec.UuidText(as_bytes={field.type.kind == 'bytes'})"
        if field.logical == "pg_lsn":
            return "rt_codec.LsnBeside()"
        if field.logical in TIME_LOGICALS:
            return f"rt_codec.TimeBeside({field.logical!r})"
        if field.display == "hex":
            return f"rt_codec.HexNumber({PRIMITIVES[field.type.name].size or 0})"
        return None

    def json_views(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """(model class, [(field, view)]) of the records with a readable field: the
        module's ``JSON_VIEWS``."""
        out = []
        for name in self.spec.record_order():
            record = self.spec.records[name]
            views = [(f.name, self.json_view(f)) for f in record.fields]
            views = [(n, v) for n, v in views if v is not None]
            if self.spec.keeps_form(record):  # shown only where a model keeps bytes
                views.append(("wire_form", "rt_kept.JSON_VIEW"))
            if views:
                out.append((camel(name), views))
        return out

    def unknown_holders(self) -> list[tuple[str, list[tuple[str, str]] | None]]:
        """The module's ``UNKNOWN_BYTES`` (:func:`generator.emit.unknown_holders.unknown_holders`)."""
        return unknown_holders(self.spec)

    def unlisted_codes_kept(self) -> bool:
        """Whether some switch keeps an unlisted code's bytes (the module imports
        ``runtime.core.unknown_bytes`` for its ``UNKNOWN_BYTES``)."""
        return any(unlisted_selectors(r) for r in self.spec.records.values())

    # -- JSON form -> model ------------------------------------------------------------

    def json_keys(self, record: Record) -> list[str]:
        """Every key ``to_dict`` can give a ``record`` (its dataclass's fields, computed ones
        too, and a time's ``<name>_time`` beside it): the keys its ``from_dict`` takes."""
        keys = [f.name for f in record.fields]
        keys += [
            f.name + BESIDE_LOGICALS[f.logical]
            for f in record.fields
            if f.logical in BESIDE_LOGICALS
        ]
        if record.serializable:
            keys += ["serializable_field_size", "last_non_ignorable_field_id", "unknown_fields"]
        if record.layout == "protobuf":
            keys.append("wire_layout")
        if self.spec.keeps_form(record) or self.kept_by_runtime(record.fields[0]):
            keys.append("wire_form")
        return sorted(set(keys))

    @staticmethod
    def kept_by_runtime(field: Field) -> bool:
        """Whether ``field``'s runtime type keeps the bytes read itself (``kept_as``, Craft's
        message events): its record's JSON form carries them as ``wire_form``."""
        return field.type.kind == "runtime" and bool(RUNTIME_TYPES[field.type.name].kept_as)

    @staticmethod
    def checked_json(expr: str, cls: str, check: str) -> str:
        """``rt_codec.<check>(expr)`` with its common case inline, ``expr`` when its class is
        ``cls`` (a call per value costs a few percent of reading a form)."""
        return f"(_v if (_v := {expr}).__class__ is {cls} else rt_codec.{check}(_v))"

    def from_json(self, ref: TypeRef, expr: str) -> str:
        if ref.kind == "bits" and ref.enum:
            return f"rt_codec.enum_from_json({camel(ref.enum)}, {expr})"
        if ref.kind == "bits":
            return self.checked_json(expr, "int", "int_from_json")
        if ref.kind == "runtime":
            return f"{self.runtime_instance(ref)}.from_json({expr})"
        if ref.kind == "prim":
            if ref.enum:
                return f"rt_codec.enum_from_json({camel(ref.enum)}, {expr})"
            kind = PRIMITIVES[ref.name].kind
            if kind in ("int", "float", "bool"):
                return self.checked_json(expr, kind, f"{kind}_from_json")
            return expr
        if ref.kind == "str":
            return self.checked_json(expr, "str", "str_from_json")
        if ref.kind == "bytes":
            return f"rt_codec.bytes_from_json({expr})"
        if ref.kind == "record":
            return f"{ref.name}_from_dict({expr})"
        if ref.kind == "presence":
            return f"rt_codec.bool_from_json({expr})"
        if ref.kind == "chunk":
            chunk = CHUNK_TYPES[ref.name]
            if ref.enum:
                item = f"rt_codec.enum_from_json({camel(ref.enum)}, x)"
            elif chunk.element == "int":
                item = "rt_codec.int_from_json(x)"
            elif chunk.element == "bytes":
                item = "None if x is None else rt_codec.bytes_from_json(x)"
            elif chunk.element == "str":
                item = "None if x is None else rt_codec.str_from_json(x)"
            else:
                item = "x"
            return f"[{item} for x in {expr}]"
        if ref.kind == "region":
            if REGION_TYPES[ref.name].json == "int_lists":
                return f"[[rt_codec.int_from_json(x) for x in t] for t in {expr}]"
            return f"list({expr})"
        if ref.kind == "map":
            # JSON object keys are text: an integer key comes back from its decimal string.
            key, value = self.from_json(ref.key, "k"), self.from_json(ref.value, "v")
            return f"{{{key}: {value} for k, v in ({expr} or {{}}).items()}}"
        return expr

    def field_from_json(self, field: Field, record: Record) -> str:
        if field.type.kind == "choice":
            readers = ", ".join(f"{case!r}: {case}_from_dict" for case in field.type.cases)
            view = f"JSON_VIEWS[{camel(record.name)}][{field.name!r}]"
            return f"{view}.from_json(d[{field.name!r}], {{{readers}}}, {field.name!r})"
        if self.kept_by_runtime(field):  # the bytes it keeps are the record's wire_form
            key, instance = repr(field.name), self.runtime_instance(field.type)
            return f'{instance}.keeping({instance}.from_json(d[{key}]), d.get("wire_form"))'
        view = None
        if field.type.kind != "runtime" and self.json_view(field) is not None:
            view = f"JSON_VIEWS[{camel(record.name)}][{field.name!r}]"  # the module's table
        if field.logical in BESIDE_LOGICALS:  # a time or an LSN: its number, checked
            return f"{view}.checked(d, {field.name!r}, {self.plain_field_from_json(field, record)})"
        if view is not None:
            key = repr(field.name)
            value = f"{view}.from_json(d[{key}], {key})"
            if field.open_enum and (field.repeat is not None or field.type.kind == "chunk"):
                items = f"rt_codec.list_from_json(d[{key}])"
                value = f"[{view}.from_json(x, {key}) for x in {items}]"  # names element-wise
            if field.optional or field.condition or field.has_default or field.default_from:
                return f"None if d.get({key}) is None else {value}"
            return value
        return self.plain_field_from_json(field, record)

    def plain_field_from_json(self, field: Field, record: Record) -> str:
        ref = field.type
        key = repr(field.name)
        if ref.kind == "switch":
            enum = camel(ref.enum)
            conv = switch_from_json(record.name, field.name)
            if ref.on_enclosing:  # the case told by the value's kind
                by_shape = {}
                for case, sub in ref.cases.items():
                    if case != "default":
                        by_shape.setdefault(shape(sub), f"{enum}.{case}")
                table = ", ".join(f"{k!r}: {v}" for k, v in by_shape.items())
                selector = f"{{{table}}}.get(rt_codec.json_shape(d.get({key})))"
            elif record.field(ref.switch_on).type.enum:
                selector = f"rt_codec.enum_from_json({enum}, d[{ref.switch_on!r}])"
            elif (
                record.field(ref.switch_on).open_enum
                or record.field(ref.switch_on).logical == "fourcc"
            ):
                view = f"JSON_VIEWS[{camel(record.name)}][{ref.switch_on!r}]"
                selector = f"{view}.from_json(d[{ref.switch_on!r}], {ref.switch_on!r})"
            else:
                selector = f"rt_codec.int_from_json(d[{ref.switch_on!r}])"
            if "default" in ref.cases:
                default = self.from_json(ref.cases["default"], "v")
                return f"{conv}.get({selector}, lambda v: {default})(d.get({key}))"
            return f"{conv}[{selector}](d.get({key}))"
        if field.repeat is not None:
            inner = self.from_json(ref, "item")
            # absent (None) when the condition does not hold, or nothing was kept (a new model)
            # a string or an object is not a list: iterated, it would be characters or keys
            # (an empty object, no elements at all)
            items = f"rt_codec.list_from_json(d.get({key}))"
            if field.condition or field.kept_of:
                return f"None if d.get({key}) is None else [{inner} for item in {items}]"
            return f"[{inner} for item in {items}]"
        if field.optional or field.condition or field.has_default or field.default_from:
            return f"None if d.get({key}) is None else {self.from_json(ref, f'd[{key}]')}"
        if field.kept_of:  # None in a model made from values: nothing read to keep
            return f"None if d.get({key}) is None else {self.from_json(ref, f'd[{key}]')}"
        if ref.nullable:  # null is the length -1; the key must be there
            return f"None if d[{key}] is None else {self.from_json(ref, f'd[{key}]')}"
        if ref.kind == "presence":
            return f"rt_codec.bool_from_json(d.get({key}, False))"
        return self.from_json(ref, f"d[{key}]")

    def switch_converters(self, record: Record) -> list[tuple[str, str, list[tuple[str, str]]]]:
        """Module-level tables for switch fields: case -> JSON converter."""
        out = []
        for field in record.fields:
            if field.type.kind == "switch":
                enum = camel(field.type.enum)
                cases = [
                    (
                        f"{enum}.{case}",
                        (
                            f"lambda v: {self.from_json(sub, 'v')}"
                            if sub.kind != "empty"
                            else "lambda v: None"
                        ),
                    )
                    for case, sub in field.type.cases.items()
                    if case != "default"
                ]
                out.append((switch_from_json(record.name, field.name), field.name, cases))
        return out

    def json_key_args(self, key) -> str:
        """Constructor arguments of ``runtime.formats.gojson.JsonKey`` for one ``json:`` key."""
        args = [repr(key.name), repr(key.type), f"field={key.field!r}", f"omit={key.omit!r}"]
        if key.enum:
            args.append(f"enum={camel(key.enum)}")
        if key.open:
            args.append("open=True")
        if key.bit:
            enum, _, member = key.bit.partition(".")
            args.append(f"bit={camel(enum)}.{member}")
        if key.layouts:
            args.append(f"layouts={key.layouts!r}")
        if key.when:
            args.append(f"when={key.when!r}")
        if key.of:
            args.append(f"of={key.of!r}")
        if key.events:
            args.append(f"events={key.events!r}")
        if key.rendering:
            enum, _, attr = key.rendering.partition(".")
            args.append(f"rendering={enum.upper()}_{attr.upper()}")
            attribute = next(a for a in self.spec.enums[enum].attributes if a.name == attr)
            kinds = {
                kind: {"type": type_, **attribute.variants[kind]}
                for kind, (type_, _) in attribute.kinds.items()
            }
            args.append(f"kinds={pytext.literal(kinds)}")
        return ", ".join(args)
