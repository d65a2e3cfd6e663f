"""The names a spec gives, checked before any of them becomes a Python name.

Record, enum, field, enum member, enum attribute and Kafka column names are written into
the generated module as they are (a construct object, a class, a dataclass attribute, a
parameter), so each must be a plain ASCII identifier that is not a keyword, does not start
with ``_`` (no dunders, no clash with the module's private names) and shadows nothing the
module needs. A name that breaks the rule is refused, not mangled: the name in the spec is
the name in the model, the JSON form and the Spark columns. specs/README.md ("Names")
states the rule.

    >>> problem("field", "str")
    "'str' is a type the generated model class needs"
    >>> problem("record", "len")
    "'len' is a name the generated module uses (a builtin)"
    >>> problem("member", "A\\nimport os")
    "'A\\\\nimport os' is not a name: ASCII letters, digits and _, starting with a letter"
    >>> problem("field", "payload") is None
    True
"""

from __future__ import annotations

import builtins
import keyword
import re

from generator.spec.types import (
    CHUNK_TYPES,
    PRIMITIVES,
    REGION_TYPES,
    RUNTIME_IMPORTS,
    RUNTIME_TYPES,
    SPECIAL_TYPES,
)

_LOWER = re.compile(r"[a-z][a-z0-9_]*")
_ANY_CASE = re.compile(r"[A-Za-z][A-Za-z0-9_]*")

MODULE_FUNCTIONS = frozenset(
    [
        "parse",
        "parse_construct",
        "parse_pair",
        "parse_kafka",
        "parse_raw",
        "build",
        "build_construct",
        "build_pair",
        "to_dict",
        "from_dict",
        "spark_schema",
        "to_rows",
        "iter_rows",
        "keeps_unknown",
        "strategies",
        "annotations",
        "decode_message",
        "encode_events",
        "encode_event",
        "detect_record",
    ]
)
"""Functions (and the ``__future__`` import) generated modules define."""
MODULE_IMPORTS = frozenset(
    ["dataclasses", "datetime", "enum", "struct", "sys", "uuid", "this", "rt"]
)
"""Modules and construct names the generated module imports under a lower-case name
(``runtime.x`` modules are imported as ``rt_x``: names starting ``rt_`` are reserved)."""
MODULE_CONSTANTS = frozenset(
    [
        "FORMAT",
        "DEFAULT_RECORD",
        "DEFAULT_LIMITS",
        "RECORDS",
        "JSON_DOCUMENTS",
        "JSON_CODE",
        "JSON_VIEWS",
        "KAFKA_RECORD",
        "SPARK_INPUT",
        "FAST_READERS",
        "FAST_WRITERS",
        "QUICK_READERS",
        "FAST_ROW_ITERATORS",
        "COMPILED_PLAN",
        "COMPILED_READERS",
        "COMPILED_WRITERS",
        "COMPILED_WRITERS_PLAN",
        "COMPILED_WAY_BACKS",
        "TABLE_READERS",
        "COMPILED_ROW_ITERATORS",
        "RECORD_DETECTORS",
        "FRAMED_FILES",
        "CLAIM_CHECK_RECORD",
        "EVENT_CLASSES",
        "FALLBACKS",
        "DICTIONARIES",
        "VALUE_DECODERS",
        "MAPPINGS",
        "UNMAPPINGS",
        "JSON_FORMS",
        "UNKNOWN_BYTES",
    ]
)
"""Upper-case module names; an enum attribute table ``ENUM_ATTRIBUTE`` may not be one."""
CLASS_NAMES = frozenset(
    {"Decimal", "DecodeError", "EncodeError", "WirespecError", "Model"}
    | {"Bytes", "Const", "GreedyBytes", "GreedyString", "If", "LazyBound", "Switch"}
    | set(RUNTIME_IMPORTS)
)
"""Classes the generated module imports; a record or enum class (``camel(name)``) may
not be one, nor a ``runtime.core.fixed`` integer or float (``Int32ul``, ``Float64b``), nor
``Message`` in a spec with a ``kafka_message:`` (the codec's message class)."""
_FIXED_CLASS = re.compile(r"(Int\d+[su][lb]|Float\d+[lb])")
MODEL_CLASS_BODY = frozenset(
    ["int", "float", "bool", "str", "bytes", "list", "dict", "dataclasses"]
)
"""What a generated dataclass body reads after its fields (annotations, default
factories): a field with one of these names would hide it."""
RECORD_SUFFIXES = ("_from_dict", "_spark_type", "_to_row", "_rows")
"""Each record ``r`` also defines ``r_from_dict``, ``r_spark_type`` and ``r_to_row``, and
one with ``spark: {row: a.b}`` ``r_rows`` and ``r_row_spark_type``."""
_BUILTINS = frozenset(name for name in dir(builtins) if not name.startswith("_"))
_TYPE_NAMES = frozenset(PRIMITIVES).union(CHUNK_TYPES, REGION_TYPES, RUNTIME_TYPES, SPECIAL_TYPES)
_RUNTIME_EXPORTS = frozenset(x for rt in RUNTIME_TYPES.values() for x in rt.exports)


def _shape(name, pattern: re.Pattern, case: str) -> str | None:
    if not isinstance(name, str) or not pattern.fullmatch(name):
        return f"{name!r} is not a name: {case} letters, digits and _, starting with a letter"
    if keyword.iskeyword(name):
        return f"{name!r} is a Python keyword"
    return None


def _module_level(name: str) -> str | None:
    """Why a lower-case module-level name cannot be ``name``, or None."""
    if name in _BUILTINS:
        return f"{name!r} is a name the generated module uses (a builtin)"
    if name in MODULE_FUNCTIONS or name in MODULE_IMPORTS or name in _RUNTIME_EXPORTS:
        return f"{name!r} is a name the generated module defines"
    if name.startswith("rt_"):
        return f"{name!r}: names starting with rt_ are the generated module's imports"
    if name in _TYPE_NAMES:
        return f"{name!r} is a built-in type"
    return None


def class_name_problem(name: str, class_name: str) -> str | None:
    """Why ``class_name`` (the class of record or enum ``name``) is taken, or None."""
    if class_name in CLASS_NAMES or _FIXED_CLASS.fullmatch(class_name):
        return f"{name!r} would make class {class_name}, which the generated module imports"
    return None


def problem(kind: str, name) -> str | None:
    """Why ``name`` cannot be the name of a ``kind`` (record, enum, field, member,
    attribute, column, format), or None when it can."""
    if kind == "member":
        found = _shape(name, _ANY_CASE, "ASCII")
        if found is None and name == "mro":
            found = f"{name!r} is a method of every enum"
        return found
    found = _shape(name, _LOWER, "lower-case ASCII")
    if found is not None:
        return found
    if kind == "field" and name in MODEL_CLASS_BODY:
        return f"{name!r} is a type the generated model class needs"
    if kind in ("record", "column"):
        found = _module_level(name)
        if found is None and kind == "record" and name.endswith(RECORD_SUFFIXES):
            found = f"{name!r} ends like a function every record has ({', '.join(RECORD_SUFFIXES)})"
        if found is None and name in ("record", "limits", "model") and kind == "column":
            found = f"{name!r} is a parameter of parse_kafka and parse_pair"
        return found
    if kind == "attribute" and name in ("value", "doc"):
        return f"{name!r} is a key of every enum value"
    return None
