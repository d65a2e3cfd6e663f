"""``layout: protobuf`` records in the spec: the type names and keys the loader
(:mod:`generator.spec.model`) accepts.

A protobuf field names a protobuf scalar type (``sint32``, ``fixed64``, ``string``, ...)
and is modelled as the wirespec primitive of the same range, so the model classes, the
JSON form, Spark and the strategies treat it like any field; the wire rules are the
runtime's (:data:`runtime.formats.protobuf_fields.SCALARS`). ``Field.number`` keeps the field
number, ``Field.pb_kind`` the protobuf type; the emitter's part is
:mod:`generator.emit.protobuf`.

    >>> MODELLED_AS["sint64"], "oneof" in ALLOWED_KEYS
    ('s64', True)
"""

from __future__ import annotations

from runtime.formats.protobuf_fields import SCALARS  # noqa: F401 - the loader's scalar names

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
