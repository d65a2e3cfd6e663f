"""The primitive types a spec can name, and what each becomes in every target.

    >>> PRIMITIVES["s64"].construct("le"), PRIMITIVES["s64"].spark
    ('Int64sl', 'LongType()')

A runtime primitive (a construct class in ``runtime/``) is registered here by name, so
a spec says ``type: uvarint`` and never imports Python.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Primitive:
    name: str
    kind: str
    """Python value kind: int, float, bool, str, bytes."""
    spark: str
    """pyspark.sql.types expression of the Spark column."""
    size: int | None = None
    """Fixed byte size, when there is one."""
    construct_le: str = ""
    construct_be: str = ""
    signed: bool = True
    bits: int = 0

    def construct(self, endian: str) -> str:
        return self.construct_be if endian == "be" else self.construct_le


def _ints() -> dict[str, Primitive]:
    spark_unsigned = {8: "ShortType()", 16: "IntegerType()", 32: "LongType()", 64: "DecimalType(20, 0)"}
    spark_signed = {8: "ByteType()", 16: "ShortType()", 32: "IntegerType()", 64: "LongType()"}
    out = {}
    for bits in (8, 16, 32, 64):
        for signed in (False, True):
            letter = "s" if signed else "u"
            name = f"{letter}{bits}"
            out[name] = Primitive(
                name,
                "int",
                (spark_signed if signed else spark_unsigned)[bits],
                bits // 8,
                f"Int{bits}{letter}l",
                f"Int{bits}{letter}b",
                signed,
                bits,
            )
    return out


PRIMITIVES: dict[str, Primitive] = {
    **_ints(),
    "f32": Primitive("f32", "float", "FloatType()", 4, "Float32l", "Float32b"),
    "f64": Primitive("f64", "float", "DoubleType()", 8, "Float64l", "Float64b"),
    "bool": Primitive("bool", "bool", "BooleanType()", 1, "rt.Bool8()", "rt.Bool8()"),
}
"""Fixed-width primitives; ``u32`` takes the spec's ``endian``, ``u32be``/``u32le`` force one."""

for _name, _prim in list(PRIMITIVES.items()):
    if _prim.kind == "int" and _prim.bits > 8:
        PRIMITIVES[_name + "le"] = dataclasses.replace(_prim, construct_be=_prim.construct_le)
        PRIMITIVES[_name + "be"] = dataclasses.replace(_prim, construct_le=_prim.construct_be)



def _msb_ints() -> dict[str, Primitive]:
    """MySQL's msb-count varints (``mysql::serialization``): ``msb_uvarint64`` is unsigned,
    ``msb_varint64`` zigzag-signed; the width is the range the value must fit."""
    spark_unsigned = {8: "ShortType()", 16: "IntegerType()", 32: "LongType()", 64: "DecimalType(20, 0)"}
    spark_signed = {8: "ByteType()", 16: "ShortType()", 32: "IntegerType()", 64: "LongType()"}
    out = {}
    for bits in (8, 16, 32, 64):
        for signed, name, cls in ((False, "msb_uvarint", "MsbVarInt"), (True, "msb_varint", "MsbZigZag")):
            construct = f"{cls}({bits})"
            spark = (spark_signed if signed else spark_unsigned)[bits]
            out[f"{name}{bits}"] = Primitive(
                f"{name}{bits}", "int", spark, None, construct, construct, signed, bits
            )
    return out


PRIMITIVES.update(_msb_ints())

RUNTIME_IMPORTS = {"MsbVarInt": "runtime.msbvarint", "MsbZigZag": "runtime.msbvarint"}
"""Runtime classes that construct expressions above name bare: class -> module to import."""

SPECIAL_TYPES = {
    "str": "length-prefixed text (size: a length type, a byte count or an expression)",
    "bytes": "length-prefixed raw bytes",
    "presence": "a tag byte with no content: true when present",
    "empty": "no bytes (a type code without payload)",
}


@dataclasses.dataclass(frozen=True)
class RuntimeType:
    """A runtime primitive that a field names as its type and configures with ``args:``.

    The construct is ``<construct>(<fixed>, <arg>=<value>, ...)``; each argument is taken
    from the spec: ``table`` = an enum attribute (``column_type.craft`` ->
    ``COLUMN_TYPE_CRAFT``), ``enum`` = an enum class. The configured instance is shared by
    the record and by module-level functions bound to its ``exports``.
    """

    construct: str
    doc: str
    args: dict
    """argument -> ``table`` | ``enum``, all required."""
    fixed: str = ""
    python: str = "object"
    """Annotation of the field in the record's model class."""
    rows_spark: str = ""
    """When the value is a list of Spark rows: the Spark type of one row ..."""
    rows_to_row: str = ""
    """... and the function turning one element into a row tuple."""
    exports: tuple = ()
    """Methods of the configured instance the generated module exports as functions."""
    fast: bool = False
    """The instance has ``read(buf, pos, end, limits)`` -> (value, pos): a fast reader."""


RUNTIME_TYPES: dict[str, RuntimeType] = {
    "craft_message": RuntimeType(
        construct="rt_craft.CraftMessage",
        doc="a whole TiCDC Craft message (research/craft.md) as runtime.ticdc events",
        args={"value_encodings": "table", "event_types": "enum", "group_types": "enum"},
        fixed="as_events=True",
        python="list",
        rows_spark="rt_ticdc.spark_schema()",
        rows_to_row="rt_ticdc.to_row",
        exports=("decode_message", "encode_events"),
        fast=True,
    ),
}
"""Runtime primitives a spec names by ``type:`` (see specs/README.md, Runtime primitives)."""
