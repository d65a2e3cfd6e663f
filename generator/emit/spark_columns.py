"""The Spark part of a generated module: Spark types, the functions that turn a model into
rows, and the column tables (:meth:`SparkColumns.spark_tables`) the compiled tier's Arrow
writers are rendered from (generator/emit/compiled_arrow.py).

:class:`SparkColumns` is a base of :class:`generator.emit.module_emitter.ModuleEmitter`
(``e`` in ``templates/module.py.j2``); it reads only ``self.spec`` and ``self._user`` (the
record whose field is being emitted, where a recursive record becomes a JSON text column)
and fills ``self._row_members`` (the enum members its rows compare with).
"""

from __future__ import annotations

import dataclasses
import re

from generator.spec.enclosing import shape
from generator.spec.model import TIMESTAMP_US_EPOCHS, Field, Record, TypeRef, camel

TIMESTAMP_TYPES = ("timestamp_ms", "timestamp_us", "timestamp_ns")
"""The ``spark: {type:}`` of an integer time: its number (LongType), then ``<name>_ts``."""
from generator.spec.types import CHUNK_TYPES, PRIMITIVES, REGION_TYPES
from runtime.core.codec import LsnBeside

CUT_COLUMN = "_cut"
"""``on_cut: keep``'s Spark column (for ``<name>_cut``, a field name never starts with
``_``): how many bytes of the input are the element it ends inside, in no row (a LongType,
null when nothing was cut), on every row of a cut input (``wirespec ingest`` counts them)."""


class SparkColumns:
    """Spark types, column tables and row values of one spec's records."""

    def spark_type(self, ref: TypeRef) -> str:
        if ref.kind == "bits" and ref.enum:
            return "StringType()"  # a member's name, as an integer enum's
        if ref.kind == "bits":
            return _bits_spark(ref.bits + (0 if ref.bits_signed else 1))
        if ref.kind == "record" and self.spec.is_back_reference(self._user, ref.name):
            return "StringType()"  # Spark types cannot recurse: the JSON form, as text
        if ref.kind == "choice":  # a column per case; a case with no columns is a flag
            cols = ", ".join(
                f"StructField({case!r}, "
                f"{'BooleanType()' if self.columnless(case) else self.spark_type(sub)}, True)"
                for case, sub in ref.cases.items()
            )
            return f"StructType([{cols}])"
        if ref.kind == "runtime":
            return f"ArrayType({ref.name}_spark_type(), False)"
        if ref.kind == "chunk":
            chunk = CHUNK_TYPES[ref.name]
            element = "StringType()" if ref.enum else chunk.spark
            return f"ArrayType({element}, {chunk.nullable})"
        if ref.kind == "region":
            return REGION_TYPES[ref.name].spark
        if ref.kind == "prim":
            return "StringType()" if ref.enum else PRIMITIVES[ref.name].spark
        if ref.kind == "str":
            return "StringType()"
        if ref.kind == "bytes":
            return "BinaryType()"
        if ref.kind == "presence":
            return "BooleanType()"
        if ref.kind == "record":
            return f"{ref.name}_spark_type()"
        if ref.kind == "switch":
            # Named cases first, then `default` (the order switch rows use).
            ordered = sorted(ref.cases.items(), key=lambda item: item[0] == "default")
            cols = ", ".join(
                f"StructField({case.lower()!r}, {self.spark_type(sub)}, True)"
                for case, sub in ordered
                if sub.kind != "empty"
            )
            return f"StructType([{cols}])"
        if ref.kind == "map":
            return f"MapType({self.spark_type(ref.key)}, {self.spark_type(ref.value)}, False)"
        raise AssertionError(ref.kind)

    def columnless(self, name: str) -> bool:
        """Whether record ``name`` has no Spark column (only constants: MessagePack's nil)."""
        return all(f.spark_skip for f in self.spec.records[name].fields)

    def spark_fields(self, record: Record) -> list[tuple[str, str, bool]]:
        return [(name, dtype, nullable) for name, dtype, nullable, _ in self.spark_columns(record)]

    def spark_columns(self, record: Record, prefix: str = "") -> list[tuple]:
        """Each Spark column of ``record``: ``(name, Spark type, nullable, table entry)``.
        One walk gives both ``<record>_spark_type`` and the table entries the Arrow writers
        are rendered from, so the two cannot disagree. An entry is ``(name, slot, kind, nullable)``:
        ``slot`` the model attribute (``a.b`` through an inlined record), ``kind`` how its
        value becomes the Spark value (:meth:`column_kind`; None: no table), ``nullable``
        whether a None there is a null (else ``<record>_to_row`` would fail on it)."""
        out = []
        for field in record.fields:
            self._user = record.name
            if field.spark_skip:
                continue
            slot = prefix + field.name
            if field.kept_of:  # on_cut: keep's <name>_cut: the cut's size (null: not cut)
                out.append((CUT_COLUMN, "LongType()", True, (CUT_COLUMN, slot, "int", True)))
                continue
            if field.spark_inline:  # the record's columns become this row's columns
                out += self.spark_columns(self.spec.records[field.type.name], slot + ".")
                continue
            dtype, kind = self.spark_type(field.type), self.column_kind(field.type)
            if isinstance(kind, tuple) and kind[0] == "switch":  # its selector is beside it
                kind = ("switch", prefix + kind[1], *kind[2:])
            if field.repeat is not None:
                dtype, kind = f"ArrayType({dtype}, False)", ("list", kind)
            nullable = _may_be_absent(field) or field.type.kind == "switch"
            # what field_row converts without a None guard fails on None
            none_is_null = _may_be_absent(field) or (field.repeat is None and _raw(kind))
            if field.spark_type == "uuid":
                out.append(
                    (field.name, "StringType()", nullable, (field.name, slot, "uuid", False))
                )
            elif field.logical == "fourcc":  # its view's text (FourCC.text)
                out.append(
                    (field.name, "StringType()", nullable, (field.name, slot, "fourcc", False))
                )
            elif field.logical == "pg_lsn":  # the number, then its X/Y text
                out.append((field.name, dtype, nullable, (field.name, slot, kind, none_is_null)))
                text = field.name + LsnBeside.SUFFIX
                out.append((text, "StringType()", nullable, (text, slot, "lsn", False)))
            elif field.spark_type in TIMESTAMP_TYPES:
                absent = _may_be_absent(field)  # both columns null (field_row)
                out.append((field.name, "LongType()", True, (field.name, slot, "micros", absent)))
                ts, kind = f"{field.name}_ts", "time_" + field.spark_type[-2:]
                if field.logical in TIMESTAMP_US_EPOCHS:
                    kind = "time_us_postgres"
                out.append((ts, "TimestampType()", True, (ts, slot, kind, absent)))
            else:
                out.append((field.name, dtype, nullable, (field.name, slot, kind, none_is_null)))
        return out

    def column_kind(self, ref: TypeRef):
        """How a model value of ``ref`` becomes its Spark value, as data: ``int``, ``float``,
        ``bool``, ``string``, ``binary`` (as they are), ``decimal`` (an int as a Decimal),
        ``enum`` (a member's name), ``fourcc`` (``logical: fourcc``: its view's text),
        ``uuid``, ``("list", element)``, ``("record", name)``, ``("switch",
        selector slot, ((case value, kind or None), ...), default kind or None)``; None
        where the Arrow writer has no kind (runtime rows, maps)."""
        if ref.kind == "prim":
            return "enum" if ref.enum else _spark_kind(PRIMITIVES[ref.name].spark)
        if ref.kind == "bits" and ref.enum:
            return "enum"
        if ref.kind == "bits":
            return _spark_kind(_bits_spark(ref.bits + (0 if ref.bits_signed else 1)))
        if ref.kind == "choice" or (
            ref.kind == "record" and self.spec.is_back_reference(self._user, ref.name)
        ):
            return None  # the Arrow writer leaves these to the rows
        if ref.kind == "chunk":
            return ("list", "enum" if ref.enum else _spark_kind(CHUNK_TYPES[ref.name].spark))
        if ref.kind == "region":
            return _spark_kind(REGION_TYPES[ref.name].spark)
        if ref.kind in _FIXED_KINDS:
            return _FIXED_KINDS[ref.kind]
        if ref.kind == "record":
            return ("record", ref.name)
        if ref.kind == "switch":
            values = {v.name: v.value for v in self.spec.enums[ref.enum].values}
            cases = tuple(
                (values[case], None if sub.kind == "empty" else self.column_kind(sub))
                for case, sub in ref.cases.items()
                if case != "default"
            )
            default = ref.cases.get("default")
            kind = None if default is None or default.kind == "empty" else self.column_kind(default)
            return ("switch", ref.switch_on, cases, kind)
        return None

    def spark_tables(self) -> dict[str, tuple]:
        """Each record's table entries (see :meth:`spark_columns`), for the records whose
        every column has a kind, nested records included."""
        tables = {}
        for name in self.spec.record_order():  # a nested record comes before its users
            entries = tuple(entry for *_, entry in self.spark_columns(self.spec.records[name]))
            if all(_has_table(entry[2], tables) for entry in entries):
                tables[name] = entries
        return tables

    def row_value(self, ref: TypeRef, expr: str) -> str:
        if ref.kind == "record" and self.spec.is_back_reference(self._user, ref.name):
            return f"rt_codec.json_text({expr}, JSON_VIEWS)"
        if ref.kind == "choice":
            cols = ", ".join(
                f"{'True' if self.columnless(case) else self.row_value(sub, expr)} "
                f"if type({expr}) is {camel(case)} else None"
                for case, sub in ref.cases.items()
            )
            return f"({cols},)"
        if ref.kind == "runtime":
            return f"[{ref.name}_to_row(item) for item in {expr}]"
        if ref.kind == "chunk":
            element = self.scalar_row(ref.enum, CHUNK_TYPES[ref.name].spark, "x")
            return expr if element == "x" else f"[{element} for x in {expr}]"
        if ref.kind == "prim":
            return self.scalar_row(ref.enum, PRIMITIVES[ref.name].spark, expr)
        if ref.kind == "bits":
            return self.scalar_row(ref.enum, "", expr)
        if ref.kind == "record":
            return f"{ref.name}_to_row({expr})"
        if ref.kind == "switch":
            return f"rt_codec.switch_row({expr}, {self.switch_case_names(ref)})"
        if ref.kind == "map":
            key, value = self.row_value(ref.key, "k"), self.row_value(ref.value, "v")
            return f"{{{key}: {value} for k, v in {expr}.items()}}"
        return expr

    def scalar_row(self, enum: str | None, spark: str, expr: str) -> str:
        """One integer (or other scalar) as its Spark value: an enum's name (``_name_``, the
        member's attribute: ``name`` is a Python property), a Decimal. A flags enum's is its
        set flags' names joined by ``|``, and no flag an empty name (not null: a null cell is
        a missing value), as the compiled Arrow writers' per-byte names are."""
        if enum and self.spec.enums[enum].flags:
            return f"({expr}._name_ or '')"
        if enum:
            return f"{expr}._name_"
        if spark.startswith("Decimal"):
            return f"Decimal({expr})"
        return expr

    def switch_case_names(self, ref: TypeRef) -> str:
        return (
            "("
            + "".join(
                f"{self.row_member(ref.enum, case)}, "
                for case, sub in ref.cases.items()
                if sub.kind != "empty" and case != "default"
            )
            + ")"
        )

    def row_member(self, enum: str, case: str) -> str:
        """The module global a row compares a switch's selector with, bound to ``Enum.CASE``
        once (:meth:`row_members`): reading a member from its enum class costs ~900
        instructions in CPython 3.11, a global ~50, and a row reads one per case."""
        alias = f"_{camel(enum)}_{case}"
        self._row_members[alias] = f"{camel(enum)}.{case}"
        return alias

    def row_members(self) -> list[tuple[str, str]]:
        """``(global, Enum.CASE)`` of every member the rendered rows compare with, sorted."""
        return sorted(self._row_members.items())

    def field_row(self, field: Field, record: Record, m: str = "m") -> str:
        """The expression of ``field``'s Spark value(s) in a row of ``m``, the model (read by
        attribute: the spec's names are the dataclass's, and ``m[name]`` is a Python call)."""
        ref = field.type
        self._user = record.name
        if ref.kind == "switch":
            selector, value = f"{m}.{ref.switch_on}", f"{m}.{field.name}"
            if ref.on_enclosing:  # no parent here: the value's type tells
                types = {"record": None, "bytes": "bytes", "str": "str", "int": "int"}
                types.update({"float": "float", "empty": "type(None)"})
                table = ", ".join(
                    f"{camel(sub.name) if sub.kind == 'record' else types[shape(sub)]}: "
                    f"{self.row_member(ref.enum, case)}"
                    for case, sub in ref.cases.items()
                    if case != "default"
                )
                selector = f"{{{table}}}.get(type({value}))"
            if "default" not in ref.cases and all(s.kind != "record" for s in ref.cases.values()):
                return f"rt_codec.switch_row({selector}, {value}, {self.switch_case_names(ref)})"
            # One column per case with a payload, converted; only the selected one filled.
            named = [c for c, s in ref.cases.items() if c != "default"]
            cols = [
                f"{self.row_value(sub, value)} if {selector} == {self.row_member(ref.enum, case)} "
                "else None"
                for case, sub in ref.cases.items()
                if sub.kind != "empty" and case != "default"
            ]
            if "default" in ref.cases and ref.cases["default"].kind != "empty":  # as its schema
                members = ", ".join(self.row_member(ref.enum, c) for c in named)
                cols.append(f"None if {selector} in ({members},) else {value}")
            return "(" + ", ".join(cols) + ",)"
        value = f"{m}.{field.name}"
        if field.kept_of:  # on_cut: keep's <name>_cut: the cut's size (spark_columns)
            return f"None if {value} is None else len({value})"
        if field.spark_inline:
            return f"*{ref.name}_to_row({value})"
        if field.spark_type == "uuid":
            return f"_uuid_text({value})"
        if field.logical == "fourcc":
            return f"JSON_VIEWS[{camel(record.name)}][{field.name!r}].text({value})"
        if field.logical == "pg_lsn":  # the number, then its X/Y text
            number = self.row_value(ref, value)
            if _may_be_absent(field) and number != value:
                number = f"None if {value} is None else {number}"
            return f"*({number}, rt_codec.lsn_text({value}))"
        if field.spark_type in TIMESTAMP_TYPES:
            columns = f"_{field.spark_type}_columns({value})"
            if field.spark_type == "timestamp_us" and field.logical in TIMESTAMP_US_EPOCHS:
                columns = f"_timestamp_us_columns({value}, {TIMESTAMP_US_EPOCHS[field.logical]})"
            if _may_be_absent(field):  # both columns null
                return f"*((None, None) if {value} is None else {columns})"
            return f"*{columns}"
        if field.repeat is not None:
            items = f"[{self.row_value(ref, 'item')} for item in {value}]"
            return f"None if {value} is None else {items}" if _may_be_absent(field) else items
        converted = self.row_value(ref, value)
        if _may_be_absent(field) and converted != value:
            return f"None if {value} is None else {converted}"
        return converted

    def nested_rows(self, record: Record) -> str:
        """``spark: {row: a.b.c}``: ``<record>_row_spark_type()`` and ``<record>_rows(m)``,
        one row per element at the path's end: the element's columns, then the columns of
        every record on the way (outermost first) but the field the path goes through; a
        name the row already has gets the prefix of the field that leads to that record
        (``batch_attributes``), of the outermost record its own name (``station_id`` beside
        a reading's ``id``)."""
        leaf = self.spec.records[
            self.spec.records[record.spark_path[-1][0]].field(record.spark_path[-1][1]).type.name
        ]
        taken = {name for name, *_ in self.spark_columns(leaf)}
        types, levels = [], []
        prefix = record.name + "_"
        for depth, (owner, through) in enumerate(record.spark_path):
            fields = [
                f for f in self.spec.records[owner].fields if f.name != through and not f.spark_skip
            ]
            shell = dataclasses.replace(self.spec.records[owner], fields=fields)
            for name, dtype, nullable, _ in self.spark_columns(shell):
                shown = prefix + name if name in taken else name
                taken.add(shown)
                types.append(f"StructField({shown!r}, {dtype}, {nullable})")
            levels.append((depth, fields, through, self.spec.records[owner].field(through)))
            prefix = through + "_"
        w = [f"def {record.name}_row_spark_type():"]
        w.append(f'    """The Spark row of ``{record.name}``: one per ``{record.spark_row}``."""')
        names = sorted(set(re.findall(r"\b([A-Z][A-Za-z]*Type)\(", " ".join(types))))
        w.append(
            f"    from pyspark.sql.types import {', '.join(names + ['StructField', 'StructType'])}"
        )
        w.append("")
        absent = _may_be_absent(levels[-1][3])
        if absent:  # a row for an absent list: its element columns are null
            leaf_fields = (
                f"*(StructField(f.name, f.dataType, True) for f in {leaf.name}_spark_type().fields)"
            )
        else:
            leaf_fields = f"*{leaf.name}_spark_type().fields"
        w.append(f"    return StructType([{leaf_fields}, " + ", ".join(types) + "])")
        w += ["", "", f"def {record.name}_rows(m0):"]
        w.append(
            f'    """The rows of one ``{record.name}`` (see ``{record.name}_row_spark_type``)."""'
        )
        self.path_rows(w, record.spark_paths or [record.spark_path], 0, "    ", "()")
        return "\n".join(w)

    def path_rows(self, w: list, paths: list, depth: int, indent: str, outer: str) -> None:
        """The lines of ``<record>_rows`` from step ``depth`` of ``paths`` (which share the
        steps before it): each level's columns, then the next level; where the step is a
        choice, a branch per case record its paths go on in (their columns of one shape,
        checked at load: :mod:`generator.spec.row_choices`)."""
        owner_name, through = paths[0][depth]
        owner = self.spec.records[owner_name]
        step = owner.field(through)
        fields = [f for f in owner.fields if f.name != through and not f.spark_skip]
        m = f"m{depth}"
        columns = "".join(self.field_row(f, owner, m) + ", " for f in fields)
        if columns:
            joined = f"cols{depth}"
            w.append(
                f"{indent}{joined} = " + (f"{outer} + " if outer != "()" else "") + f"({columns})"
            )
            outer = joined
        child = f"{m}.{through}"
        last = depth == len(paths[0]) - 1
        leaf = self.spec.records[step.type.name] if last else None
        if last and _may_be_absent(step):
            # absent (its if: is false): still one row, so every batch is counted
            nulls = len(self.spark_columns(leaf))
            w.append(f"{indent}if {child} is None:")
            w.append(f"{indent}    yield (*(None,) * {nulls}, *{outer})")
        if step.repeat is not None:
            w.append(f"{indent}for m{depth + 1} in {child} or ():")
            indent += "    "
        else:
            w.append(f"{indent}m{depth + 1} = {child}")
        if last:
            w.append(f"{indent}yield (*{leaf.name}_to_row(m{depth + 1}), *{outer})")
            return
        if step.type.kind != "choice":
            self.path_rows(w, paths, depth + 1, indent, outer)
            return
        cases: dict[str, list] = {}
        for path in paths:
            cases.setdefault(path[depth + 1][0], []).append(path)
        for i, (case, case_paths) in enumerate(cases.items()):
            keyword = "if" if i == 0 else "elif"
            w.append(f"{indent}{keyword} type(m{depth + 1}) is {camel(case)}:")
            self.path_rows(w, case_paths, depth + 1, indent + "    ", outer)

    def uses_decimal(self) -> bool:
        def decimal(ref: TypeRef) -> bool:
            if ref.enum:
                return False
            if ref.kind == "prim":
                return PRIMITIVES[ref.name].spark.startswith("Decimal")
            return ref.kind == "chunk" and CHUNK_TYPES[ref.name].spark.startswith("Decimal")

        return any(
            decimal(f.type)
            for r in self.spec.records.values()
            for f in r.fields
            if not f.spark_skip
        )


_FIXED_KINDS = {"str": "string", "bytes": "binary", "presence": "bool"}
_SCALAR_KINDS = {
    "ByteType()": "int",
    "ShortType()": "int",
    "IntegerType()": "int",
    "LongType()": "int",
    "FloatType()": "float",
    "DoubleType()": "float",
    "BooleanType()": "bool",
    "StringType()": "string",
    "BinaryType()": "binary",
    "DecimalType(20, 0)": "decimal",
}


def _bits_spark(bits: int) -> str:
    """The Spark type of a bit field of ``bits`` bits with its sign (one more than an
    unsigned field's width): the smallest signed type that holds it."""
    for limit, spark in (
        (8, "ByteType()"),
        (16, "ShortType()"),
        (32, "IntegerType()"),
        (64, "LongType()"),
    ):
        if bits <= limit:
            return spark
    return "DecimalType(20, 0)"


def _spark_kind(spark: str):
    """The column kind of a Spark type text that the value already is (``ArrayType(...)``
    of scalars: a list)."""
    if spark.startswith("ArrayType("):
        return ("list", _spark_kind(spark[len("ArrayType(") : spark.rindex(",")]))
    return _SCALAR_KINDS[spark]


def _may_be_absent(field: Field) -> bool:
    """Whether a model may hold None for ``field``: optional, or read only ``if:`` its
    condition holds. Its Spark column is then null, not a conversion of None."""
    return field.optional or bool(field.condition) or field.type.nullable


def _raw(kind) -> bool:
    """Whether a value of ``kind`` goes into the row as it is (a None there is a null)."""
    if isinstance(kind, tuple):
        return kind[0] == "list" and _raw(kind[1])
    return kind in ("int", "float", "bool", "string", "binary")


def _has_table(kind, tables: dict) -> bool:
    """Whether the Arrow writer can write ``kind`` (its nested records have tables)."""
    if kind is None:
        return False
    if not isinstance(kind, tuple):
        return True
    if kind[0] == "record":
        return kind[1] in tables
    if kind[0] == "list":
        return _has_table(kind[1], tables)
    cases = [k for _, k in kind[2] if k is not None] + ([kind[3]] if kind[3] else [])
    return all(_has_table(k, tables) for k in cases)
