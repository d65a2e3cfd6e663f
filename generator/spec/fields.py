"""One field of a spec -> a checked :class:`~generator.spec.model.Field`: its type (a
primitive, bit field, bytes, string, record, map, switch, choice or runtime primitive), its
size, repeat and condition, ``process:``, checksums, ``valid:``/``derived:`` and the
expressions it uses, each checked where the spec says it.

:class:`FieldBuilder` is a base of :class:`generator.spec.validate.SpecBuilder`; it uses
the builder's ``error``, ``name``, ``lines``, ``data``, ``endian``, ``enums``,
``record_names`` and ``imports``. A ``layout: protobuf`` record's fields say less and are
built by :meth:`FieldBuilder.protobuf_field` (what they may say: :mod:`generator.spec.protobuf`).
"""

from __future__ import annotations

import ast
import codecs
import re

from generator.spec import protobuf
from generator.spec.enclosing import check_cases, enclosing_enum
from generator.spec.expressions import BYTES_LEFT, NotEarlier, translate
from generator.spec.model import (
    BIT_FIELD,
    SPARK_LOGICAL_TYPES,
    SPARK_TIMES,
    Checksum,
    ChecksumItem,
    Field,
    Process,
    TypeRef,
    bit_field_range,
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

_U64 = ("u64", "u64le", "u64be")
"""What ``logical: pg_lsn`` goes on: a WAL position is an unsigned 64-bit number."""


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


class FieldBuilder:
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

    @staticmethod
    def no_selector(on, selector, siblings, later=()) -> str:
        """Why ``switch_on: on`` names no selector: no such earlier field (or one ``later``
        in the record), a field of another kind (text cannot select: a four-letter code is
        an integer with an enum), or an integer with no enum (the field's own or the
        switch's ``enum:``)."""
        if selector is None and "." in on:
            return (
                f"{on!r} is not a field of this record: a switch is on an earlier field of "
                "its own record, or on an enclosing record's (_parent.header.linktype)"
            )
        if selector is not None and selector.derived:
            return (
                f"{on!r} is a derived value: a switch is on a field read from the wire "
                "(building, derived values are not computed, so no case could be chosen)"
            )
        if selector is None and on in later:
            return f"{on!r} is read after the switch: move it in front (a switch is on an earlier field)"
        if selector is None:
            earlier = [f.name for f in siblings]
            return f"{on!r} is not an earlier field" + did_you_mean(on, earlier)
        kind = selector.type.kind
        is_int = kind == "bits" or (kind == "prim" and PRIMITIVES[selector.type.name].kind == "int")
        if not is_int:
            what = selector.type.name if kind == "prim" else kind
            code = " (four ASCII letters: a u32be with enum:)" if kind in ("str", "bytes") else ""
            return (
                f"{on!r} is a {what} field: a switch is on an earlier integer field with an "
                f"enum{code}"
            )
        return (
            f"{on!r} has no enum: give the field enum: NAME, or the switch enum: NAME "
            "(its members name the cases)"
        )

    def switch(self, raw: dict, parts, siblings) -> TypeRef:
        # The selector is an earlier enum field, or an integer field whose case names come
        # from the switch's own `enum:`; a `default` case takes every other value.
        on = raw["switch_on"]
        selector = next((f for f in siblings if f.name == on), None)
        enum_name = selector.type.enum if selector is not None else None
        if selector is not None and enum_name is None and selector.type.kind in ("prim", "bits"):
            # an open enum's field is a plain integer; its enum names the cases all the same
            enum_name = raw.get("enum") or selector.open_enum
        if on.startswith("_parent.") and parts[:1] == ("records",):
            enum_name = enclosing_enum(self, parts, on, raw)  # generator/spec/enclosing.py
        elif enum_name is None or enum_name not in self.enums or selector.derived:
            if raw.get("enum") is not None and raw["enum"] not in self.enums:
                hint = did_you_mean(raw["enum"], self.enums)
                raise self.error(parts + ("enum",), f"unknown enum {raw['enum']!r}{hint}")
            later = []
            if parts[:1] == ("records",) and parts[2:3] == ("fields",):
                later = [f.get("name") for f in self.data["records"][parts[1]]["fields"]]
            why = self.no_selector(on, selector, siblings, later)
            raise self.error(parts + ("switch_on",), why)
        enum = self.enums[enum_name]
        members = {v.name for v in enum.values}
        cases = {}
        for case, case_raw in raw.get("cases", {}).items():
            if case not in members and case != "default":
                same = sorted(m for m in members if str(case).lower() == m.lower())
                hint = did_you_mean(same[0] if same else case, sorted(members | {"default"}))
                raise self.error(
                    parts + ("cases", case),
                    f"{case!r} is not a member of {enum.name}{hint}: add it to the enum's "
                    "values: or name the case by a member (default: takes every other value)",
                )
            cases[case] = self.typeref(case_raw, parts + ("cases", case), siblings)
        missing = members - set(cases)
        if missing and "default" not in cases:
            raise self.error(
                parts + ("cases",),
                f"no case for {sorted(missing)}: every member of {enum.name} needs a case "
                "(`MEMBER: empty` for no payload), or add a default: case",
            )
        if on.startswith("_parent."):
            check_cases(self, parts, cases)
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
            refused = [
                k for k in ("tag", "repeat", "size", "if", "checksum", "optional") if k in raw
            ]
            if refused:
                raise self.error(parts + (refused[0],), f"a bit field takes no {refused[0]!r}")
            low, high = bit_field_range(field.type)
            if field.const is not None and not low <= field.const <= high:
                raise self.error(
                    parts + ("const",), f"{field.const} does not fit {field.type.name}"
                )
            enum = self.enums.get(field.type.enum or field.open_enum)
            wide = [v for v in enum.values if not low <= v.value <= high] if enum else []
            if enum and enum.flags and not field.open_enum:
                raise self.error(
                    parts + ("enum",), "a flags enum on a bit field is open: true (any set)"
                )
            if wide:
                raise self.error(
                    parts + ("enum",),
                    f"{enum.name}.{wide[0].name} ({wide[0].value}) does not fit "
                    f"{field.type.name} ({low} to {high})",
                )
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

    def readable(self, field: Field, raw: dict, parts) -> None:
        """``open:``, ``logical:`` and ``pad:``: how a field reads in the JSON form."""
        ref = field.type
        is_int = (ref.kind == "prim" and PRIMITIVES[ref.name].kind == "int") or (
            ref.kind == "chunk" and CHUNK_TYPES[ref.name].element == "int"
        )
        is_int = is_int or ref.kind == "bits"
        if raw.get("open"):
            if "enum" not in raw or "switch_on" in raw:
                raise self.error(parts + ("open",), "open: true goes with enum: on an integer")
            if raw["enum"] not in self.enums:
                hint = did_you_mean(raw["enum"], self.enums)
                raise self.error(parts + ("enum",), f"unknown enum {raw['enum']!r}{hint}")
            if not is_int:
                raise self.error(parts + ("enum",), "only integers can be enums")
            field.open_enum = raw["enum"]
        logical = raw.get("logical", "")
        if logical == "uuid":
            sixteen_ints = is_int and ref.kind == "prim" and field.repeat == {"count": 16}
            if not (sixteen_ints or (ref.kind == "bytes" and ref.size == 16)):
                raise self.error(
                    parts + ("logical",),
                    "logical: uuid is 16 bytes (bytes of size 16, or repeat: {count: 16} integers)",
                )
        elif logical == "fourcc":
            self.fourcc(field, raw, parts)
        elif logical == "pg_lsn" and (
            ref.kind != "prim" or ref.name not in _U64 or field.repeat is not None or "enum" in raw
        ):
            raise self.error(
                parts + ("logical",), "logical: pg_lsn is one u64, no enum (a WAL position)"
            )
        elif logical and not is_int:
            raise self.error(parts + ("logical",), f"logical: {logical} is an integer time")
        field.logical = logical
        if not field.spark_type and field.repeat is None:  # a time: a timestamp column too
            field.spark_type = SPARK_TIMES.get(logical, "")
        if raw.get("display"):
            if not is_int or ref.kind != "prim" or raw.get("enum") or logical:
                raise self.error(
                    parts + ("display",),
                    "display: hex goes with a plain integer (no enum: or logical:, which "
                    "already say how it reads)",
                )
            field.display = raw["display"]
        if raw.get("pad"):
            if ref.kind != "str" or not isinstance(ref.size, int) or ref.size_is_prefix:
                raise self.error(parts + ("pad",), "pad: goes with a str of a fixed size: N")
            ref.pad = {"nul": b"\0"}[raw["pad"]]

    def fourcc(self, field: Field, raw: dict, parts) -> None:
        """``logical: fourcc``: a big-endian u32 whose bytes are four letters (a PNG chunk
        type, a RIFF chunk id), one value a field (a switch may select on it); its codes an
        open enum names, or none (a strict enum leaves no code to show as text)."""
        ref = field.type
        big = ref.name == "u32be" or (ref.name == "u32" and self.endian == "be")
        if ref.kind != "prim" or not big or field.repeat is not None:
            raise self.error(
                parts + ("logical",),
                "logical: fourcc is one u32be (its four bytes the letters, as const: "
                "0x52494646 is RIFF)",
            )
        if raw.get("enum") and not field.open_enum:
            raise self.error(
                parts + ("logical",),
                "logical: fourcc shows the codes an enum leaves unnamed: give it open: true",
            )
        if field.open_enum and self.enums[field.open_enum].flags:
            raise self.error(parts + ("enum",), "a fourcc's enum names codes, not flags")

    # -- layout: protobuf ------------------------------------------------------------

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
                hint = did_you_mean(raw["enum"], self.enums)
                raise self.error(parts + ("enum",), f"unknown enum {raw['enum']!r}{hint}")
            f.open_enum = raw["enum"]
        spark = raw.get("spark", {})
        f.spark_skip = spark.get("skip", False)
        return f

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

    def is_protobuf(self, ref: TypeRef) -> bool:
        return ref.kind == "record" and self.data["records"][ref.name].get("layout") == "protobuf"
