"""``wirespec schema FORMAT [--ddl]``: the Spark schema of a record, as JSON or a DDL string.

>>> from pyspark.sql.types import ArrayType, IntegerType, StructField, StructType
>>> ddl(StructType([StructField("a", ArrayType(IntegerType()), False)]))
'`a` ARRAY<INT> NOT NULL'
"""

from __future__ import annotations

import json

from generator.cli.common import examples
from generator.cli.target import add_record_options, choose, codec_for, format_help


def add_parser(verbs) -> None:
    sch = verbs.add_parser(
        "schema",
        help="print the Spark schema",
        description="Print the Spark schema of a record's rows (what ingest and the data "
        "source give), as JSON or a DDL string.",
        **examples(
            "wirespec schema plainbuffer --ddl",
            "wirespec schema parquet --struct FileMetaData",
        ),
    )
    sch.add_argument("format", metavar="FORMAT", help=format_help())
    add_record_options(
        sch,
        "the spec record whose rows to describe (default: the spec's "
        "default_record; there is no input to recognise)",
    )
    sch.add_argument("--ddl", action="store_true", help="print a DDL string instead of JSON")
    sch.set_defaults(run=run_command)


def run_command(args) -> int:
    target = choose(codec_for(args), args.record, args.struct, None)
    schema = target.codec.spark_schema(target.record, **target.options)
    print(ddl(schema) if args.ddl else json.dumps(schema.jsonValue(), indent=2))
    return 0


def ddl(schema) -> str:
    """A Spark DDL string (```a` BIGINT, `b` ARRAY<STRUCT<`x`: INT>>``) for a StructType,
    without starting a JVM (``StructType.toDDL`` needs one)."""
    return ", ".join(
        f"`{f.name}` {_ddl_type(f.dataType)}{'' if f.nullable else ' NOT NULL'}"
        for f in schema.fields
    )


def _ddl_type(dtype) -> str:
    from pyspark.sql.types import ArrayType, MapType, StructType

    if isinstance(dtype, StructType):
        return (
            "STRUCT<"
            + ", ".join(f"`{f.name}`: {_ddl_type(f.dataType)}" for f in dtype.fields)
            + ">"
        )
    if isinstance(dtype, ArrayType):
        return f"ARRAY<{_ddl_type(dtype.elementType)}>"
    if isinstance(dtype, MapType):
        return f"MAP<{_ddl_type(dtype.keyType)}, {_ddl_type(dtype.valueType)}>"
    return dtype.simpleString().upper()
