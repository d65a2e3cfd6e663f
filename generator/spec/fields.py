"""One field of a spec -> a checked :class:`~generator.spec.model.Field`: its type (a
primitive, bit field, bytes, string, record, map, switch, choice or runtime primitive), its
size, repeat and condition, ``process:``, checksums, ``valid:``/``derived:`` and the
expressions it uses, each checked where the spec says it.

:class:`FieldBuilder` is a base of :class:`generator.spec.validate.SpecBuilder`; it uses
the builder's ``error``, ``name``, ``lines``, ``data``, ``endian``, ``enums``,
``record_names`` and ``imports``. A ``layout: protobuf`` record's fields say less and are
built by :meth:`~generator.spec.field_protobuf.ProtobufFields.protobuf_field`. Its parts:
:mod:`~generator.spec.field_switches` (``switch_on:``), :mod:`~generator.spec.field_bits`
(runs of bit fields), :mod:`~generator.spec.field_readable` (how a field reads in the JSON
form) and :mod:`~generator.spec.field_protobuf` (``layout: protobuf``).
"""

from __future__ import annotations

import ast
import codecs
import re

from generator.spec.expressions import BYTES_LEFT, NotEarlier, translate
from generator.spec.field_bits import BitFields
from generator.spec.field_protobuf import ProtobufFields
from generator.spec.field_readable import ReadableFields
from generator.spec.field_switches import SwitchFields
from generator.spec.model import (
    BIT_FIELD,
    SPARK_LOGICAL_TYPES,
    Checksum,
    ChecksumItem,
    Field,
    Process,
    TypeRef,
    camel,
    int_range,
)
from generator.spec.times import check_time, time_field
from generator.spec.types import (
    CHUNK_TYPES,
    PRIMITIVES,
    REGION_TYPES,
    RUNTIME_TYPES,
    spelled_elsewhere,
    unknown_size,
)
from runtime.core.errors import did_you_mean


def _is_literal(value) -> bool:
    """Whether ``value`` (from YAML) is written back exactly by its ``repr``: no NaN or
    infinity, no dates."""
    if not isinstance(value, (int, str, bytes, bool, type(None), float, list)):
        return False
    try:
        return ast.literal_eval(repr(value)) == value
    except (ValueError, SyntaxError):
        return False


_FIELD_ARGS = {
    "dictionary": ("interned", "a dictionary", "DICTIONARIES"),
    "decoder": ("decode_by", "a chunk", "VALUE_DECODERS"),
}
"""Runtime argument kinds that name a field: the key it has, what it is, its constant."""


class FieldBuilder(SwitchFields, BitFields, ReadableFields, ProtobufFields):
    """Builds and checks the fields of one spec's records (see the module docstring)."""

    def field(self, raw: dict, parts, siblings: list[Field]) -> Field:
        self.name("field", raw["name"], parts + ("name",))
        if "time" in raw:  # seconds plus a fraction: a derived value (generator/spec/times.py)
            check_time(self, raw, parts, siblings)
            raw = time_field(raw)
        if "map" in raw:
            extra = [k for k in ("type", "switch_on", "size", "repeat", "enum") if k in raw]
            if extra:
                raise self.error(parts + (extra[0],), f"a map field takes no {extra[0]!r}")
            ref = self.map_type(raw["map"], parts + ("map",), siblings)
        elif "switch_on" in raw:
            ref = self.switch(raw, parts, siblings)
        elif "choice" in raw:
            extra = [
                k for k in ("type", "size", "enum", "tag", "repeat", "if", "optional") if k in raw
            ]
            if extra:
                raise self.error(parts + (extra[0],), f"a choice takes no {extra[0]!r}")
            for i, case in enumerate(raw["choice"]):
                if case not in self.record_names:
                    raise self.error(
                        parts + ("choice", i), f"{case!r} is not a record of this spec"
                    )
            cases = {case: TypeRef("record", case) for case in raw["choice"]}
            ref = TypeRef("choice", "choice", cases=cases)
        elif "type" in raw:
            # an open enum only names values (JSON form): the type stays a plain integer
            keys = ("type", "size", "encoding", "max_length", "count", "nullable", "terminator")
            keys += () if raw.get("open") else ("enum",)
            ref = self.typeref({k: raw[k] for k in keys if k in raw}, parts, siblings)
        else:
            raise self.error(parts, "a field needs a type or a switch_on")
        if ref.kind == "runtime" or "args" in raw:
            ref.args = self.runtime_args(ref, raw.get("args", {}), parts + ("args",))
        tag = raw.get("tag")
        optional = raw.get("optional", False)
        if optional and tag is None:
            raise self.error(
                parts + ("optional",),
                "an optional field needs a tag to announce it; a field present when an "
                'earlier field says so takes if: EXPR instead (if: "flags & 1")',
            )
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
            on_cut=raw.get("on_cut", ""),
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
            hint = did_you_mean(field.spark_type, sorted(SPARK_LOGICAL_TYPES))
            raise self.error(
                parts + ("spark", "type"), f"unknown logical type {field.spark_type!r}{hint}"
            )
        if "if" in raw:
            self.condition(field, raw["if"], parts + ("if",), siblings)
        if "valid" in raw:
            names = [*siblings, field]
            valid, where = raw["valid"], parts + ("valid",)
            on_build_only = isinstance(valid, dict) and valid.get("when") == "build"
            if isinstance(valid, dict):  # {check, message}: the message replaces the quote
                field.valid_message = valid["message"]
                valid, where = valid["check"], where + ("check",)
            check = self.expression(valid, where, names)
            if on_build_only:
                field.build_valid = check
            else:
                field.valid = check
            field.valid_text = valid
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

    def typeref(self, raw: str | dict, parts, siblings) -> TypeRef:
        if isinstance(raw, str):
            raw = {"type": raw}
        name = raw["type"]
        size = raw.get("size")
        if name in ("str", "bytes"):
            if size is None and "terminator" not in raw:
                raise self.error(parts + ("size",), f"{name} needs a size or a terminator")
            if size is not None and "terminator" in raw:
                raise self.error(parts + ("terminator",), f"a {name} takes a size or a terminator")
            ref = TypeRef(name, name, encoding=self.encoding(raw, parts))
            ref.max_length = raw.get("max_length")
            ref.terminator = raw.get("terminator")
            if ref.terminator is not None and name == "str" and len("a".encode(ref.encoding)) != 1:
                raise self.error(
                    parts + ("encoding",),
                    f"a terminator byte goes with an encoding of single bytes, not {ref.encoding!r}",
                )
        elif "terminator" in raw:
            raise self.error(parts + ("terminator",), "terminator: goes with a str or bytes")
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
            known = [*PRIMITIVES, *self.record_names, *RUNTIME_TYPES, *CHUNK_TYPES, *REGION_TYPES]
            meant = spelled_elsewhere(name)
            hint = f" (did you mean {meant!r}?)" if meant else did_you_mean(name, known)
            raise self.error(parts + ("type",), f"unknown type {name!r}{hint}")
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
                hint = did_you_mean(raw["enum"], self.enums)
                raise self.error(parts + ("enum",), f"unknown enum {raw['enum']!r}{hint}")
            if ref.kind not in ("prim", "bits") and not (
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

    def condition(self, field: Field, text, parts, siblings) -> None:
        """``if:``: an expression, or ``bytes_left()`` alone: read while bytes remain
        (construct's test is given the field before it of that kind, which build checks
        is present when this one is)."""
        if str(text).replace(" ", "") != BYTES_LEFT:
            field.condition = self.expression(text, parts, siblings)
            return
        if field.tag is not None:
            raise self.error(parts, "a tagged field is present by its tag: no if: bytes_left()")
        earlier = [f.name for f in siblings if isinstance(f, Field) and f.if_bytes_left]
        field.if_bytes_left = True
        field.condition = f"rt.bytes_left(this, {field.name!r}, {(earlier or [''])[-1]!r})"

    def expression(self, text: str, parts, siblings, build: bool = False) -> str:
        # `_parent` is the enclosing record's context (checked when the data is parsed),
        # `_index` the position in the list being read.
        names = {f if isinstance(f, str) else f.name for f in siblings}
        enums = {name: camel(name) for name in self.enums}
        try:
            return translate(text, names | {"_parent", "_index"}, enums, build=build)
        except NotEarlier as err:
            why = self.not_earlier(err.name, parts, names)
            if parts[-1] == "size" and text == err.name and "not an earlier field" in why:
                why = unknown_size(err.name, names)  # meant as a length type, perhaps
            raise self.error(parts, why) from None
        except ValueError as err:
            raise self.error(parts, str(err)) from None

    def not_earlier(self, name: str, parts, earlier) -> str:
        """Why an expression at ``parts`` cannot read ``name``: it is this field or one
        read after it (expressions read only what is already read), or no field at all."""
        later = []
        if parts[:1] == ("records",) and parts[2:3] == ("fields",):
            later = [f.get("name") for f in self.data["records"][parts[1]]["fields"][parts[3] :]]
        at = later.index(name) if name in later else -1
        if at == 0:
            return f"expression uses {name!r}, the field it belongs to: use an earlier field"
        if at > 0:
            return (
                f"expression uses {name!r}, which is read after this field (fields"
                f"[{parts[3] + at}]): an expression reads only fields before it, so move "
                f"{name!r} in front"
            )
        hint = did_you_mean(name, sorted(earlier | {"_parent", "_index"}))
        return f"expression uses {name!r}, which is not an earlier field{hint}"

    def runtime_args(self, ref: TypeRef, raw: dict, parts) -> dict:
        """A runtime primitive's arguments: records by name, dictionaries and decoders as
        ``RECORD.FIELD``, a mapping by the record with ``map:``."""
        if ref.kind != "runtime":
            raise self.error(parts, "only a runtime primitive type takes args")
        declared = RUNTIME_TYPES[ref.name].args
        for name in set(declared) ^ set(raw):
            what = "needs argument" if name in declared else "takes no argument"
            raise self.error(parts, f"{ref.name} {what} {name!r} (it takes {sorted(declared)})")
        out = {}
        for name, value in raw.items():
            if declared[name] in _FIELD_ARGS:
                out[name] = self.field_arg(declared[name], value, parts + (name,))
                continue
            if declared[name] == "mapping":
                if "map" not in self.data["records"].get(value, {}):
                    raise self.error(parts + (name,), f"{value!r} is not a record with map:")
                out[name] = f"MAPPINGS[{value!r}]"
                continue
            if declared[name] in ("unmapping", "json_form"):  # both read from the way back
                if "batch" not in self.data["records"].get(value, {}).get("map", {}):
                    raise self.error(parts + (name,), f"{value!r} is not a record with map: batch:")
                table = "UNMAPPINGS" if declared[name] == "unmapping" else "JSON_FORMS"
                out[name] = f"{table}[{value!r}]"
                continue
            if declared[name] == "models":  # the module of an imported spec's models:
                if not any(q.startswith(f"{value}.") for q in self.imported_models):
                    raise self.error(parts + (name,), f"{value!r} is no import with models:")
                out[name] = f"rt_{value}"
                continue
            if value not in self.record_names:  # a "record"
                raise self.error(parts + (name,), f"{value!r} is not a record of this spec")
            out[name] = value
        return out

    def field_arg(self, kind: str, value: str, parts) -> str:
        """``RECORD.FIELD`` of a field with the key ``kind`` needs (a dictionary with
        ``interned:``, a chunk with ``decode_by:``) -> the generated constant that
        configures it (``DICTIONARIES["record.field"]``, ``VALUE_DECODERS["record.field"]``)."""
        key, what, constant = _FIELD_ARGS[kind]
        record, _, name = value.partition(".")
        body = self.data["records"].get(record, {})
        fields = body.get("fields", []) + body.get("trailer", [])
        if not any(f["name"] == name and key in f for f in fields):
            raise self.error(parts, f"{value!r} is not RECORD.FIELD of {what} with {key}:")
        return f"{constant}[{value!r}]"

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
        if "on_cut" in raw and (field.repeat != "eos" or field.process or field.condition):
            raise self.error(
                parts + ("on_cut",), "on_cut: keep goes with a repeat: eos (no process:, if:)"
            )
        if ref.terminator is not None and "process" in raw:
            raise self.error(parts + ("process",), "process: goes with a sized str or bytes")
        if field.const is not None and ref.kind in ("str", "bytes"):
            raise self.error(
                parts + ("const",),
                "const: goes with a number type (magic bytes: an integer type of their width, "
                "u8, u16be, u32be or u64be, with the number they make)",
            )
        prim = PRIMITIVES.get(ref.name) if ref.kind == "prim" else None
        if field.const is not None and prim is not None and prim.kind == "int" and prim.bits:
            low, high = int_range(prim.bits, prim.signed)
            if not low <= field.const <= high:
                raise self.error(
                    parts + ("const",),
                    f"{field.const} does not fit {ref.name} ({low} to {high})",
                )
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
