"""The ``wirespec`` command line.

    wirespec generate [--check]
    wirespec decode FORMAT [--record R] FILE|-
    wirespec encode FORMAT [--record R] JSONFILE|- [-o OUT]
    wirespec schema FORMAT [--record R] [--ddl]
    wirespec ingest FORMAT INPUT... --output DIR [--mode M] [--master URL] [--input-kind K]
        [--limit NAME=VALUE]... [--overwrite]
    wirespec transcode SOURCE TARGET IN OUT [--key KEYFILE] [--key-out KEYFILE]
    wirespec inspect FORMAT FILE [--record R] [--html OUT.html]
    wirespec docs [--check]
    wirespec diff FORMAT A B [--record R]
    wirespec fuzz FORMAT|all [--record R] [--seconds N] [--seed S] [--no-save]

Bad input never shows a traceback: the message (with the offset and field path for
decode errors) goes to stderr and the exit status is non-zero.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

from runtime.errors import DecodeError, EncodeError, SpecError, WirespecError

from . import __version__, thrift_cli
from .generate import ROOT, generate

EXIT_BAD_INPUT = 1
EXIT_USAGE = 2
EXIT_STALE = 3


class CliError(Exception):
    """A user-facing failure: printed as one line, exit status attached."""

    def __init__(self, message: str, status: int = EXIT_BAD_INPUT):
        super().__init__(message)
        self.status = status


def _read_input(name: str) -> bytes:
    if name == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(name).read_bytes()
    except OSError as err:
        raise CliError(f"cannot read {name}: {err.strerror}") from None


def _write_output(name: str | None, data: bytes) -> None:
    if name in (None, "-"):
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    try:
        Path(name).write_bytes(data)
    except OSError as err:
        raise CliError(f"cannot write {name}: {err.strerror}") from None


def load_codec(fmt: str):
    """The generated module of a format (``plainbuffer`` -> ``generated.plainbuffer``)."""
    if not fmt.isidentifier():
        raise CliError(f"unknown format {fmt!r}", EXIT_USAGE)
    try:
        return importlib.import_module(f"generated.{fmt}")
    except ModuleNotFoundError:
        known = sorted(p.stem for p in (ROOT / "generated").glob("*.py") if p.stem != "__init__")
        raise CliError(f"unknown format {fmt!r}; known: {', '.join(known)}", EXIT_USAGE) from None


def _record(codec, name: str | None) -> str:
    name = name or codec.DEFAULT_RECORD
    if name not in codec.RECORDS:
        raise CliError(
            f"{codec.FORMAT} has no record {name!r}; records: {', '.join(codec.RECORDS)}",
            EXIT_USAGE,
        )
    return name


def cmd_generate(args) -> int:
    outcomes = generate(Path(args.specs), Path(args.out), check=args.check)
    problems = [o for o in outcomes if o.status not in ("fresh", "written")]
    for o in outcomes:
        if o.status != "fresh" or args.verbose:
            print(f"{o.status:8} {o.path}", file=sys.stderr if o in problems else sys.stdout)
    if args.check and problems:
        print(
            "generated code is out of date or was edited by hand; run `wirespec generate`",
            file=sys.stderr,
        )
        return EXIT_STALE
    return 0


def _keyed(codec, record: str) -> bool:
    """Is ``record`` a Kafka key + value pair (``kafka_message`` in the spec)?"""
    return getattr(codec, "KAFKA_RECORD", None) == record


def _check_key_option(codec, record: str, given: str | None, option: str) -> None:
    if _keyed(codec, record) and given is None:
        raise CliError(f"{codec.FORMAT} {record} is a Kafka key and value: give {option} KEYFILE")
    if given is not None and not _keyed(codec, record):
        raise CliError(f"{option} is only for formats whose messages have a Kafka key", EXIT_USAGE)


def cmd_decode(args) -> int:
    codec = load_codec(args.format)
    record = _record(codec, args.record)
    _check_key_option(codec, record, args.key, "--key")
    if args.key is not None:
        model = codec.parse_pair(_read_input(args.key), _read_input(args.file))
    else:
        model = codec.parse(_read_input(args.file), record)
    json.dump(codec.to_dict(model), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


def cmd_encode(args) -> int:
    codec = load_codec(args.format)
    record = _record(codec, args.record)
    try:
        document = json.loads(_read_input(args.file))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise CliError(f"{args.file} is not JSON: {err}") from None
    _check_key_option(codec, record, args.key_out, "--key-out")
    if args.key_out is not None:
        key, value = codec.build_pair(codec.from_dict(document, record))
        _write_output(args.key_out, key)
        _write_output(args.output, value)
        return 0
    _write_output(args.output, codec.build(codec.from_dict(document, record), record))
    return 0


def cmd_transcode(args) -> int:
    from .transcode import FORMATS, transcode

    for fmt in (args.source, args.target):
        if fmt not in FORMATS:
            raise CliError(f"transcode knows {', '.join(FORMATS)}, not {fmt!r}", EXIT_USAGE)
    _check_key_option(load_codec(args.source), "message", args.key, "--key")
    if args.key_out is None and getattr(load_codec(args.target), "KAFKA_RECORD", None):
        raise CliError(f"{args.target} messages have a Kafka key: give --key-out KEYFILE")
    if args.key_out is not None and not getattr(load_codec(args.target), "KAFKA_RECORD", None):
        raise CliError("--key-out is only for a target whose messages have a Kafka key", EXIT_USAGE)
    key = _read_input(args.key) if args.key is not None else None
    (out_key, out_value), warnings = transcode(args.source, args.target, key, _read_input(args.input))
    for line in warnings:
        print(f"wirespec: warning: {line}", file=sys.stderr)
    if out_key is not None:
        _write_output(args.key_out, out_key)
    _write_output(args.output, out_value)
    return 0


def cmd_schema(args) -> int:
    codec = load_codec(args.format)
    schema = codec.spark_schema(_record(codec, args.record))
    if args.ddl:
        print(_ddl(schema))
    else:
        print(json.dumps(schema.jsonValue(), indent=2))
    return 0


def _ddl(schema) -> str:
    """A Spark DDL string (```a` BIGINT, `b` ARRAY<STRUCT<`x`: INT>>``) for a StructType,
    without starting a JVM (``StructType.toDDL`` needs one)."""
    return ", ".join(
        f"`{f.name}` {_ddl_type(f.dataType)}{'' if f.nullable else ' NOT NULL'}"
        for f in schema.fields
    )


def _ddl_type(dtype) -> str:
    from pyspark.sql.types import ArrayType, MapType, StructType

    if isinstance(dtype, StructType):
        return "STRUCT<" + ", ".join(f"`{f.name}`: {_ddl_type(f.dataType)}" for f in dtype.fields) + ">"
    if isinstance(dtype, ArrayType):
        return f"ARRAY<{_ddl_type(dtype.elementType)}>"
    if isinstance(dtype, MapType):
        return f"MAP<{_ddl_type(dtype.keyType)}, {_ddl_type(dtype.valueType)}>"
    return dtype.simpleString().upper()


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="wirespec", description="Schema-driven codecs for binary change formats."
    )
    top.add_argument("--version", action="version", version=f"wirespec {__version__}")
    verbs = top.add_subparsers(dest="verb", required=True, metavar="VERB")

    gen = verbs.add_parser("generate", help="render generated/ from specs/")
    gen.add_argument("--check", action="store_true", help="fail if generated/ is stale or edited")
    gen.add_argument("--specs", default=str(ROOT / "specs"), help="spec folder (default: specs/)")
    gen.add_argument("--out", default=str(ROOT / "generated"), help="output folder")
    gen.add_argument("-v", "--verbose", action="store_true", help="list fresh files too")
    gen.set_defaults(run=cmd_generate)

    dec = verbs.add_parser("decode", help="decode a message to JSON on stdout")
    dec.add_argument("format")
    dec.add_argument("file", help="input file, or - for stdin")
    dec.add_argument("--record", help="record to decode (default: the spec's default)")
    dec.add_argument(
        "--key",
        metavar="KEYFILE",
        help="the Kafka key of the message, for formats that need it (ticdc_open_protocol); "
        "FILE is then the Kafka value",
    )
    dec.set_defaults(run=cmd_decode)

    enc = verbs.add_parser("encode", help="encode the JSON form back to bytes")
    enc.add_argument("format")
    enc.add_argument("file", help="JSON file, or - for stdin")
    enc.add_argument("--record", help="record to encode (default: the spec's default)")
    enc.add_argument("-o", "--output", help="output file (default: stdout)")
    enc.add_argument(
        "--key-out",
        metavar="KEYFILE",
        help="where the Kafka key goes, for formats that have one (ticdc_open_protocol); "
        "-o gets the Kafka value",
    )
    enc.set_defaults(run=cmd_encode)

    sch = verbs.add_parser("schema", help="print the Spark schema")
    sch.add_argument("format")
    sch.add_argument("--record", help="record (default: the spec's default)")
    sch.add_argument("--ddl", action="store_true", help="print a DDL string instead of JSON")
    sch.set_defaults(run=cmd_schema)
    thrift_cli.add_to(dec, enc, sch, verbs)

    tra = verbs.add_parser(
        "transcode",
        help="re-encode a TiCDC message in the other TiCDC format",
        description="Decode one message of SOURCE into TiCDC events and encode them as one "
        "message of TARGET (ticdc_open_protocol, ticdc_craft). For Open Protocol, IN and OUT "
        "are the Kafka value; its Kafka key is read from --key and written to --key-out. "
        "Lossless where both formats carry the information; every field the target "
        "cannot carry (rid, ohk, ccl in Craft, say) is named in a warning on stderr.",
    )
    tra.add_argument("source", help="format of IN")
    tra.add_argument("target", help="format of OUT")
    tra.add_argument("input", metavar="IN", help="input message (the Kafka value), or -")
    tra.add_argument("output", metavar="OUT", help="output message (the Kafka value), or -")
    tra.add_argument("--key", metavar="KEYFILE", help="Kafka key of IN (Open Protocol source)")
    tra.add_argument(
        "--key-out", metavar="KEYFILE", help="where the Kafka key of OUT goes (Open Protocol target)"
    )
    tra.set_defaults(run=cmd_transcode)

    from . import diff, docs, inspect  # the tool verbs: inspect, docs, diff

    inspect.add_parser(verbs)
    docs.add_parser(verbs)
    diff.add_parser(verbs)
    from . import fuzz  # robustness: mutation fuzzing of the parsers

    fuzz.add_parser(verbs)
    from . import ingest  # Spark: message files -> Parquet tables

    ingest.add_parser(verbs)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except CliError as err:
        print(f"wirespec: {err}", file=sys.stderr)
        return err.status
    except DecodeError as err:
        offset = "?" if err.offset is None else err.offset
        print(
            f"wirespec: cannot decode: {err.message} (offset {offset}, field "
            f"{err.path or '<message>'})",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    except (EncodeError, SpecError, WirespecError) as err:
        print(f"wirespec: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
