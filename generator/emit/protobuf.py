"""``layout: protobuf`` records in the emitter: the construct expression of a field
(``runtime.formats.protobuf_fields.PbField``) and the model default of an implicit-presence
scalar. What the loader accepts is :mod:`generator.spec.protobuf`.
"""

from __future__ import annotations

from runtime.formats.protobuf_fields import SCALARS


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
