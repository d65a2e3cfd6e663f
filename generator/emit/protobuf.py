"""``layout: protobuf`` records in the generator: the type names and keys the loader
(``generator/spec/model.py``) accepts, and the construct expression of a field
(``runtime.formats.protobuf.PbField``).

A protobuf field names a protobuf scalar type (``sint32``, ``fixed64``, ``string``, ...)
and is modelled as the wirespec primitive of the same range, so the model classes, the
JSON form, Spark and the strategies treat it like any field; the wire rules are the
runtime's. ``Field.number`` keeps the field number, ``Field.pb_kind`` the protobuf type.
"""

from __future__ import annotations

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


def field_construct(field) -> str:
    """``rt_protobuf.PbField(...)`` of one field."""
    args = [str(field.number), repr(field.name)]
    kind = field.pb_kind
    if kind.startswith("map:"):
        _, key, value = kind.split(":")
        value = field.type.value.name if value == "message" else repr(value)
        args += ['"map"', f"map_key={key!r}", f"map_value={value}"]
    else:
        args.append(repr(kind))
        if kind == "message":
            args.append(f"message={field.type.name}")
    if field.repeat:
        args.append(f"repeated={field.repeat!r}")
    if field.optional and kind != "message" and not field.oneof:
        args.append("explicit=True")
    if field.oneof:
        args.append(f"oneof={field.oneof!r}")
    return f"rt_protobuf.PbField({', '.join(args)})"


def model_default(field) -> str | None:
    """The dataclass default of an implicit-presence scalar (None: the usual rule)."""
    if field.number is None or field.optional or field.repeat or field.type.kind == "map":
        return None
    default = SCALARS[field.pb_kind][2]
    return repr(default)
