"""The primitive types a spec can name, and what each becomes in every target.

    >>> PRIMITIVES["s64"].construct("le"), PRIMITIVES["s64"].spark
    ('Int64sl', 'LongType()')

A runtime primitive (a construct class in ``runtime/``) is registered here by name, so
a spec says ``type: uvarint`` and never imports Python.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import re

from runtime.core.errors import did_you_mean


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
    spark_unsigned = {
        8: "ShortType()",
        16: "IntegerType()",
        32: "LongType()",
        64: "DecimalType(20, 0)",
    }
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
    spark_unsigned = {
        8: "ShortType()",
        16: "IntegerType()",
        32: "LongType()",
        64: "DecimalType(20, 0)",
    }
    spark_signed = {8: "ByteType()", 16: "ShortType()", 32: "IntegerType()", 64: "LongType()"}
    out = {}
    for bits in (8, 16, 32, 64):
        for signed, name, cls in (
            (False, "msb_uvarint", "MsbVarInt"),
            (True, "msb_varint", "MsbZigZag"),
        ):
            construct = f"{cls}({bits})"
            spark = (spark_signed if signed else spark_unsigned)[bits]
            out[f"{name}{bits}"] = Primitive(
                f"{name}{bits}", "int", spark, None, construct, construct, signed, bits
            )
    return out


PRIMITIVES.update(_msb_ints())

PRIMITIVES.update(
    {
        # LEB128 as the Go reference limits it: at most 10 bytes, overflow refused.
        "uvarint": Primitive(
            "uvarint", "int", "DecimalType(20, 0)", None, "UVarInt()", "UVarInt()", False, 64
        ),
        "varint": Primitive(
            "varint", "int", "LongType()", None, "ZigZagVarInt()", "ZigZagVarInt()", True, 64
        ),
        # A uvarint whose bytes are stored reversed, read from the end: only in a trailer.
        "reversed_uvarint": Primitive(
            "reversed_uvarint",
            "int",
            "DecimalType(20, 0)",
            None,
            "ReversedUVarInt()",
            "ReversedUVarInt()",
            False,
            64,
        ),
    }
)
LEB128 = ("uvarint", "varint", "reversed_uvarint")
"""The variable-length LEB128 primitives (construct path only)."""


_OTHER_SPELLINGS = {
    "float": "f32",
    "float32": "f32",
    "single": "f32",
    "double": "f64",
    "float64": "f64",
    "boolean": "bool",
    "string": "str",
    "text": "str",
    "utf8": "str",
    "binary": "bytes",
    "blob": "bytes",
    "bytearray": "bytes",
    "byte[]": "bytes",
}


def spelled_elsewhere(name: str) -> str | None:
    """The primitive another language's name for a type means here (C's ``uint32_t``,
    Kafka's ``int8``, Rust's ``i64``, Java's ``double``), or None: a hint for a spec's
    author, since ``uint8`` is nearer ``uvarint`` than ``u8`` letter for letter.

    >>> spelled_elsewhere("uint8"), spelled_elsewhere("int32_t"), spelled_elsewhere("i64be")
    ('u8', 's32', 's64be')
    >>> spelled_elsewhere("double"), spelled_elsewhere("String"), spelled_elsewhere("int33")
    ('f64', 'str', None)
    """
    lowered = name.lower()
    if lowered in _OTHER_SPELLINGS:
        return _OTHER_SPELLINGS[lowered]
    match = re.fullmatch(r"(u?)(?:int|i)(8|16|32|64)(?:_t)?(le|be)?", lowered)
    if match is None:
        return None
    unsigned, bits, order = match.groups()
    spelled = f"{'u' if unsigned else 's'}{bits}{order or ''}"
    return spelled if spelled in PRIMITIVES else None


def unknown_size(name: str, fields=()) -> str:
    """Why ``size: NAME`` names nothing: no earlier field (of ``fields``) and no integer
    type of a length before the value, with the nearest of either.

    >>> unknown_size("u9")
    "'u9' is no earlier field and no length type (an integer type: u8, u16, s32, varint, ...)"
    >>> unknown_size("uint16")
    "'uint16' is no earlier field and no length type (did you mean 'u16'?)"
    >>> unknown_size("lenght", ["length"])
    "'lenght' is no earlier field and no length type (did you mean 'length'?)"
    """
    meant = spelled_elsewhere(name)
    if meant is not None and PRIMITIVES[meant].kind == "int":
        hint = f" (did you mean {meant!r}?)"
    else:
        ints = [n for n, p in PRIMITIVES.items() if p.kind == "int"]
        hint = did_you_mean(name, [*sorted(fields), *ints])
    hint = hint or " (an integer type: u8, u16, s32, varint, ...)"
    return f"{name!r} is no earlier field and no length type{hint}"


def ordered(name: str) -> bool:
    """Whether primitive ``name`` takes the byte order around it (a multi-byte number
    without a suffix)."""
    prim = PRIMITIVES.get(name)
    return (
        prim is not None
        and prim.kind in ("int", "float")
        and (prim.size or 0) > 1
        and not name.endswith(("le", "be"))
    )


def runtime_module(name: str) -> str:
    """The dotted path of a runtime module an emitted expression names bare:

    >>> runtime_module("craft"), runtime_module("choice")
    ('runtime.formats.craft', 'runtime.core.choice')
    """
    for package in ("runtime.core", "runtime.formats"):
        if importlib.util.find_spec(f"{package}.{name}") is not None:
            return f"{package}.{name}"
    raise LookupError(f"no runtime module {name!r}")


RUNTIME_IMPORTS = {
    "MsbVarInt": "runtime.core.msbvarint",
    "MsbZigZag": "runtime.core.msbvarint",
    "UVarInt": "runtime.core.leb128",
    "ZigZagVarInt": "runtime.core.leb128",
    "ReversedUVarInt": "runtime.core.reversed_uvarint",
}
"""Runtime classes that construct expressions above name bare: class -> module to import."""


@dataclasses.dataclass(frozen=True)
class ChunkType:
    """A columnar chunk: n elements back to back, n from ``count:`` (never stored); one
    ``runtime.core.chunks.Chunk`` configured by these attributes (:meth:`construct`)."""

    element: str
    """Python kind of one element: int, str or bytes."""
    spark: str
    """Spark type of one element."""
    doc: str
    nullable: bool = False
    encoding: str | None = None
    zigzag: bool = False
    """Varint elements: ZigZag-mapped signed values."""
    delta: bool = False
    """Varint elements: each the difference to the one before (the first one itself)."""

    def construct(self, count: str, *options: str) -> str:
        """The expression of this chunk's construct with ``count`` and more ``options``:

        >>> CHUNK_TYPES["delta_varint_chunk"].construct("0")
        'rt_chunks.Chunk(0, zigzag=True, delta=True)'
        """
        flags = {
            "zigzag": self.zigzag or self.nullable,  # a nullable payload's length -1: ZigZag
            "delta": self.delta,
            "payload": self.element != "int",
        }
        args = [count, *(f"{name}=True" for name, on in flags.items() if on)]
        args += [f"encoding={self.encoding!r}"] if self.encoding else []
        return f"rt_chunks.Chunk({', '.join(args + list(options))})"


CHUNK_TYPES: dict[str, ChunkType] = {
    "uvarint_chunk": ChunkType("int", "DecimalType(20, 0)", "n uvarints back to back"),
    "varint_chunk": ChunkType("int", "LongType()", "n zigzag varints", zigzag=True),
    "delta_uvarint_chunk": ChunkType(
        "int",
        "DecimalType(20, 0)",
        "a uvarint base, then n-1 uvarint deltas modulo 2**64",
        delta=True,
    ),
    "delta_varint_chunk": ChunkType(
        "int",
        "LongType()",
        "a zigzag base, then n-1 zigzag deltas",
        zigzag=True,
        delta=True,
    ),
    "string_chunk": ChunkType(
        "str",
        "StringType()",
        "n uvarint lengths, then the n UTF-8 strings",
        encoding="utf-8",
    ),
    "nullable_bytes_chunk": ChunkType(
        "bytes",
        "BinaryType()",
        "n zigzag lengths (-1 = NULL), then the bytes of the non-NULL elements",
        nullable=True,
    ),
}
"""Chunk types a spec names by ``type:`` with a ``count:`` (Craft's columnar chunks)."""


@dataclasses.dataclass(frozen=True)
class RegionType:
    """A runtime primitive that reads all the bytes a ``size:`` expression gives it: a
    ``runtime.core.chunks.CountedChunks`` (:attr:`construct`)."""

    python: str
    spark: str
    doc: str
    json: str
    """How the JSON form converts back: ``int_lists`` or ``strings``."""
    chunk: str
    """Its layout, for the plans that read it (generator/emit/lowering.py): counted chunks
    of this ``CHUNK_TYPES`` kind, each a uvarint count and then the chunk."""
    repeated: bool
    """Counted chunks to the end of the region (a list of lists); else one, whose count is
    not 0, filling the region, or no bytes at all (an empty list)."""
    name: str = ""
    noun: str = ""
    """What the region and one element are called in errors and ``wirespec inspect`` (a
    single chunk's)."""

    @property
    def construct(self) -> str:
        """The expression of its construct:

        >>> REGION_TYPES["size_tables"].construct
        'rt_chunks.CountedChunks(rt_chunks.Chunk(0, zigzag=True, delta=True), repeated=True)'
        """
        chunk = CHUNK_TYPES[self.chunk].construct("0")
        if self.repeated:
            return f"rt_chunks.CountedChunks({chunk}, repeated=True)"
        return f"rt_chunks.CountedChunks({chunk}, name={self.name!r}, noun={self.noun!r})"


REGION_TYPES: dict[str, RegionType] = {
    "size_tables": RegionType(
        "list[list[int]]",
        "ArrayType(ArrayType(LongType(), False), False)",
        "size tables to the end of the region: each a uvarint count + a delta varint chunk",
        "int_lists",
        "delta_varint_chunk",
        repeated=True,
    ),
    "term_dictionary": RegionType(
        "list[str]",
        "ArrayType(StringType(), False)",
        "a uvarint count + a string chunk, or no bytes at all when there are no terms",
        "strings",
        "string_chunk",
        repeated=False,
        name="term dictionary",
        noun="term",
    ),
}
"""Region types a spec names by ``type:`` with a ``size:`` expression."""

SPECIAL_TYPES = {
    "str": "length-prefixed text (size: a length type, a byte count or an expression)",
    "bytes": "length-prefixed raw bytes",
    "presence": "a tag byte with no content: true when present",
    "empty": "no bytes (a type code without payload)",
}


@dataclasses.dataclass(frozen=True)
class RuntimeType:
    """A runtime primitive that a field names as its type and configures with ``args:``.

    The construct is ``<construct>(<arg>=<value>, ...)``; each argument is taken
    from the spec: ``record`` = the construct of a record of the spec (Craft's ``frame``: the layout the primitive maps to events). The
    configured instance is shared by the record and by module-level functions bound to
    its ``exports``, and its ``strategy()`` gives the hypothesis strategy of the field's
    values (:mod:`runtime.core.strategies`).
    """

    construct: str
    doc: str
    args: dict
    """argument -> ``record`` (its construct) | ``dictionary`` (the
    ``runtime.core.refs.Dictionary`` of a field with ``interned:``) | ``decoder`` (the
    ``runtime.core.value_kinds.ValueKinds`` of a chunk with ``decode_by:``) | ``mapping``
    (the generated function of a record's ``map:``) | ``unmapping`` (its way back,
    ``runtime.core.unmap.WayBack``, when the ``map:`` has ``batch:``) | ``json_form`` (the
    JSON form of its events, ``JSON_FORMS[record]``: :mod:`generator.emit.event_json`) |
    ``models`` (the generated module of an imported spec's ``models:``), all required."""
    python: str = "object"
    """Annotation of the field in the record's model class."""
    rows_spark: str = ""
    """When the value is a list of Spark rows: the Spark type of one row ..."""
    rows_to_row: str = ""
    """... and the function turning one element into a row tuple."""
    exports: tuple = ()
    """Methods of the configured instance the generated module exports as functions."""
    fast: bool = False
    """The instance has ``read(buf, pos, end, limits)`` -> (value, pos): a fast reader;
    with ``record`` arguments also ``use_fast_readers(arg=...)``, which the generated
    module calls with the fast-path readers of those records."""
    compiled: bool = False
    """The instance has ``use_compiled_reader(reader, field)``, which the generated module
    calls with the compiled reader of a record with ``map:`` that is this one field
    (``(data, limits) -> model or None``; None when the tier is not built)."""
    kept_as: str = ""
    """The class the primitive's readers give a value as to keep the bytes it was read
    from (a ``list`` subclass adding only the slot ``wire_form``, as the generated module
    names it); the compiled reader of a record with ``map:`` that is this one field makes
    its list of this class and keeps its input there too."""


RUNTIME_TYPES: dict[str, RuntimeType] = {
    "craft_message": RuntimeType(
        construct="rt_craft.CraftMessage",
        doc="a whole TiCDC Craft message (research/craft.md) as ticdc_types events",
        args={
            "frame": "record",
            "values": "decoder",
            "terms": "dictionary",
            "mapping": "mapping",
            "unmapping": "unmapping",
            "json_form": "json_form",
            "models": "models",
        },
        python="list",
        rows_spark="rt_ticdc_rows.spark_schema()",
        rows_to_row="rt_ticdc_rows.to_row",
        exports=("decode_message", "encode_events"),
        fast=True,
        compiled=True,
        kept_as="rt_craft.ReadEvents",
    ),
}
"""Runtime primitives a spec names by ``type:`` (see specs/README.md, Runtime primitives)."""
