"""The protobuf package (upb) as the peer of a ``layout: protobuf`` module: a descriptor
made at test time from the module's field tables (no protoc), and models <-> upb messages.

The descriptor is proto3: implicit presence unless ``explicit`` (``optional``), repeated
scalars packed unless the spec says ``repeat: unpacked``, enums open.
"""

from __future__ import annotations

import math

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from runtime.formats.protobuf import ProtobufMessage

_FDP = descriptor_pb2.FieldDescriptorProto
TYPES = {
    "int32": _FDP.TYPE_INT32, "int64": _FDP.TYPE_INT64, "uint32": _FDP.TYPE_UINT32,
    "uint64": _FDP.TYPE_UINT64, "sint32": _FDP.TYPE_SINT32, "sint64": _FDP.TYPE_SINT64,
    "bool": _FDP.TYPE_BOOL, "enum": _FDP.TYPE_ENUM, "fixed32": _FDP.TYPE_FIXED32,
    "fixed64": _FDP.TYPE_FIXED64, "sfixed32": _FDP.TYPE_SFIXED32,
    "sfixed64": _FDP.TYPE_SFIXED64, "float": _FDP.TYPE_FLOAT, "double": _FDP.TYPE_DOUBLE,
    "string": _FDP.TYPE_STRING, "bytes": _FDP.TYPE_BYTES, "message": _FDP.TYPE_MESSAGE,
}  # fmt: skip
PACKAGE = "wirespec.gallery"


def _camel(name: str) -> str:
    return "".join(p.capitalize() for p in name.split("_"))


class Peer:
    """upb message classes for every protobuf record of ``module``."""

    def __init__(self, module):
        self.module = module
        self.names = {
            id(c): name for name, c in module.RECORDS.items() if isinstance(c, ProtobufMessage)
        }
        proto = descriptor_pb2.FileDescriptorProto(
            name="wirespec_gallery.proto", package=PACKAGE, syntax="proto3"
        )
        enum = proto.enum_type.add(name="OpenEnum")  # open: any int32 is kept
        enum.value.add(name="OPEN_ENUM_ZERO", number=0)
        for name in self.names.values():
            self._message(proto.message_type.add(name=_camel(name)), module.RECORDS[name])
        pool = descriptor_pool.DescriptorPool()
        pool.Add(proto)
        self.classes = {
            name: message_factory.GetMessageClass(
                pool.FindMessageTypeByName(f"{PACKAGE}.{_camel(name)}")
            )
            for name in self.names.values()
        }

    def _type(self, field, kind, message):
        field.type = TYPES[kind]
        if kind == "message":
            field.type_name = f".{PACKAGE}.{_camel(self.names[id(message)])}"
        if kind == "enum":
            field.type_name = f".{PACKAGE}.OpenEnum"

    def _message(self, out, codec: ProtobufMessage) -> None:
        oneofs: dict[str, int] = {}
        for f in codec.fields:
            field = out.field.add(name=f.name, number=f.number, json_name=f.name)
            field.label = (
                _FDP.LABEL_REPEATED if f.repeated or f.kind == "map" else _FDP.LABEL_OPTIONAL
            )
            if f.kind == "map":
                entry = out.nested_type.add(name=_camel(f.name) + "Entry")
                entry.options.map_entry = True
                key_field, value_field = codec.entries[f.number]
                for part in (key_field, value_field):
                    sub = entry.field.add(name=part.name, number=part.number, json_name=part.name)
                    sub.label = _FDP.LABEL_OPTIONAL
                    self._type(sub, part.kind, part.message)
                field.type = _FDP.TYPE_MESSAGE
                field.type_name = f".{PACKAGE}.{out.name}.{entry.name}"
                continue
            self._type(field, f.kind, f.message)
            if f.repeated == "unpacked" and f.wire_type != 2:
                field.options.packed = False
            oneof = f.oneof or ("_" + f.name if f.explicit and f.kind != "message" else None)
            if oneof is not None:
                if oneof not in oneofs:
                    oneofs[oneof] = len(out.oneof_decl)
                    out.oneof_decl.add(name=oneof)
                field.oneof_index = oneofs[oneof]
                field.proto3_optional = f.oneof is None
        # proto3 puts synthetic oneofs after the real ones
        real = [d for d in out.oneof_decl if not d.name.startswith("_")]
        if len(real) != len(out.oneof_decl) and out.oneof_decl[0].name.startswith("_"):
            order = real + [d for d in out.oneof_decl if d.name.startswith("_")]
            index = {d.name: i for i, d in enumerate(order)}
            names = [d.name for d in out.oneof_decl]
            for field in out.field:
                if field.HasField("oneof_index"):
                    field.oneof_index = index[names[field.oneof_index]]
            del out.oneof_decl[:]
            for d in order:
                out.oneof_decl.add(name=d.name)

    # -- values --------------------------------------------------------------------------

    def to_pb(self, record: str, model):
        """The upb message of a model."""
        codec = self.module.RECORDS[record]
        msg = self.classes[record]()
        self._fill(msg, codec, model)
        return msg

    def _fill(self, msg, codec, model) -> None:
        for f in codec.fields:
            value = model[f.name]
            if f.kind == "map":
                target = getattr(msg, f.name)
                for k, v in value.items():
                    if f.map_value.__class__ is ProtobufMessage:
                        self._fill(target[k], f.map_value, v)
                    else:
                        target[k] = v
            elif f.repeated:
                target = getattr(msg, f.name)
                for v in value:
                    if f.kind == "message":
                        self._fill(target.add(), f.message, v)
                    else:
                        target.append(v)
            elif value is None:
                continue
            elif f.kind == "message":
                sub = getattr(msg, f.name)
                sub.SetInParent()
                self._fill(sub, f.message, value)
            else:
                setattr(msg, f.name, value)

    def values(self, codec, msg) -> dict:
        """The field values of a upb message, as plain data (our models' shape)."""
        out = {}
        for f in codec.fields:
            value = getattr(msg, f.name)
            if f.kind == "map":
                is_message = f.map_value.__class__ is ProtobufMessage
                out[f.name] = {
                    k: self.values(f.map_value, v) if is_message else v for k, v in value.items()
                }
            elif f.repeated:
                out[f.name] = [
                    self.values(f.message, v) if f.kind == "message" else v for v in value
                ]
            elif f.explicit and not msg.HasField(f.name):
                out[f.name] = None
            elif f.kind == "message":
                out[f.name] = self.values(f.message, value)
            else:
                out[f.name] = value
        return out


def plain(codec, model) -> dict:
    """A model's field values as plain data (no ``wire_layout``), floats by their bits."""
    out = {}
    for f in codec.fields:
        value = model[f.name]
        nested = f.message if f.kind == "message" else None
        if f.kind == "map":
            nested = f.map_value if f.map_value.__class__ is ProtobufMessage else None
            out[f.name] = {k: plain(nested, v) if nested else _bits(v) for k, v in value.items()}
        elif f.repeated:
            out[f.name] = [plain(nested, v) if nested else _bits(v) for v in value]
        elif value is not None and nested is not None:
            out[f.name] = plain(nested, value)
        else:
            out[f.name] = _bits(value)
    return out


def plain_values(codec, values: dict) -> dict:
    """:func:`plain` of :meth:`Peer.values` (floats by their bits)."""
    return plain(codec, values)


def _bits(value):
    if isinstance(value, float):
        return ("float", math.copysign(1.0, value), "nan" if math.isnan(value) else value.hex())
    return value
