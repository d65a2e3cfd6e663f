"""A ``layout: protobuf`` record's fields: a number, a protobuf type or a map, packed or
unpacked, optional or in a oneof (what they may say: :mod:`generator.spec.protobuf`), as a
:class:`~generator.spec.model.Field`.

:class:`ProtobufFields` is a base of :class:`generator.spec.fields.FieldBuilder`, and uses
its builder's ``error``, ``name``, ``lines``, ``data``, ``enums`` and ``record_names``.
"""

from __future__ import annotations

from generator.spec import protobuf
from generator.spec.model import Field, TypeRef
from runtime.core.errors import did_you_mean


class ProtobufFields:
    """The fields of ``layout: protobuf`` records (see the module docstring)."""

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
