"""``layout: protobuf`` records in the spec: the protobuf type names a field may name, the
keys a field takes, and the checks of a record's fields (numbers, oneofs, maps).

A protobuf field names a protobuf scalar type (``sint32``, ``fixed64``, ``string``, ...)
and is modelled as the wirespec primitive of the same range, so the model classes, the
JSON form, Spark and the strategies treat it like any field; the wire rules are the
runtime's (``runtime.formats.protobuf``). ``Field.number`` keeps the field number,
``Field.pb_kind`` the protobuf type. The construct expression of a field is the emitter's
(``generator/emit/protobuf.py``).
"""

from __future__ import annotations

from generator.spec.model import Field, Record, TypeRef
from runtime.formats.protobuf import SCALARS

MODELLED_AS = {
    "int32": "s32", "sint32": "s32", "sfixed32": "s32", "enum": "s32",
    "int64": "s64", "sint64": "s64", "sfixed64": "s64",
    "uint32": "u32", "fixed32": "u32", "uint64": "u64", "fixed64": "u64",
    "float": "f32", "double": "f64", "bool": "bool",
}  # fmt: skip
"""Protobuf scalar -> the primitive whose range, Python type and Spark type it has."""
ALLOWED_KEYS = {
    "name", "doc", "number", "type", "enum", "open", "repeat", "optional", "oneof", "map", "spark",
}  # fmt: skip


class ProtobufFields:
    """The ``layout: protobuf`` part of :class:`generator.spec.validate.SpecBuilder` (a base
    of it: it uses the builder's ``error``, ``name``, ``lines``, ``data``, ``enums`` and
    ``record_names``)."""

    def protobuf_typeref(self, name: str, parts) -> tuple[TypeRef, str]:
        """(the model's type, the protobuf kind) of a protobuf type name or record."""
        if name in MODELLED_AS:
            return TypeRef("prim", MODELLED_AS[name]), name
        if name in ("string", "bytes"):
            kind = "str" if name == "string" else "bytes"
            return TypeRef(kind, kind, size="eos"), name
        if name in self.record_names:
            if self.data["records"][name].get("layout") != "protobuf":
                raise self.error(parts, f"{name!r} is not a layout: protobuf record")
            return TypeRef("record", name), "message"
        raise self.error(
            parts,
            f"unknown protobuf type {name!r} (one of {sorted(SCALARS)} or a message)",
        )

    def protobuf_field(self, raw: dict, parts) -> Field:
        """A field of a ``layout: protobuf`` record."""
        self.name("field", raw["name"], parts + ("name",))
        for key in raw:
            if key not in ALLOWED_KEYS:
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
        if repeat == "packed" and SCALARS.get(kind, (2,))[0] == 2:
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

    def is_protobuf(self, ref: TypeRef) -> bool:
        return ref.kind == "record" and self.data["records"][ref.name].get("layout") == "protobuf"
