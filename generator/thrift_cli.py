"""The Thrift parts of the command line (hooked into :mod:`generator.cli` by one call).

    wirespec decode thrift_compact --spec SPEC --struct NAME FILE
    wirespec decode thrift_compact --record message [--spec SPEC --struct ARGS] FILE
    wirespec decode thrift_compact --raw FILE          # no schema, like protoc --decode_raw
    wirespec encode thrift_compact --spec SPEC --struct NAME JSONFILE -o OUT  (or --raw)
    wirespec schema thrift_compact --spec SPEC --struct NAME [--ddl]
    wirespec import-thrift FILE.thrift -o specs/NAME.yaml

``--spec`` renders the spec in memory, so a user's spec works without ``generate``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def add_to(dec, enc, sch, verbs) -> None:
    """Add ``--spec/--struct/--raw`` to decode/encode/schema and the ``import-thrift`` verb."""
    for p in (dec, enc, sch):
        p.add_argument("--spec", help="Thrift: a spec YAML with your structs (used in memory)")
        p.add_argument(
            "--struct", help="Thrift: the struct (with --record message: the body's struct)"
        )
    for p in (dec, enc):
        p.add_argument(
            "--raw", action="store_true", help="Thrift: any struct/message, without a schema"
        )
    for p, verb in ((dec, "decode"), (enc, "encode"), (sch, "schema")):
        p.set_defaults(run=_wrap(p.get_default("run"), verb))
    imp = verbs.add_parser("import-thrift", help="turn a Thrift IDL file into a wirespec spec")
    imp.add_argument("file", help="the .thrift file (its includes are followed)")
    imp.add_argument("-o", "--output", help="spec file to write (default: stdout)")
    imp.add_argument("--format", help="format name (default: from the file name)")
    imp.set_defaults(run=cmd_import_thrift)


def _wrap(default, verb):
    def run(args):
        if not (args.spec or args.struct or getattr(args, "raw", False)):
            return default(args)
        return {"decode": _decode, "encode": _encode, "schema": _schema}[verb](args)

    return run


def _codec(args):
    from .cli import CliError, load_codec

    if args.spec:
        from .thrift import import_spec

        if not Path(args.spec).exists():
            raise CliError(f"no spec file {args.spec}")
        codec = import_spec(Path(args.spec))
    else:
        codec = load_codec(args.format)
    if not hasattr(codec, "parse_raw"):
        raise CliError(f"{args.format}: --spec/--struct/--raw are for Thrift formats", 2)
    return codec


def _record(codec, args):
    from .cli import CliError

    if args.record == "message":
        record, body = "message", args.struct
    else:
        record, body = args.struct or args.record or codec.DEFAULT_RECORD, None
    if record not in codec.RECORDS or (body and body not in codec.RECORDS):
        raise CliError(
            f"{codec.FORMAT} has no struct {body or record!r}; structs: {', '.join(codec.RECORDS)}",
            2,
        )
    return record, body


def _decode(args) -> int:
    from .cli import _read_input

    codec = _codec(args)
    data = _read_input(args.file)
    if args.raw:
        message = args.record == "message"
        if args.record is None and len(data) > 1 and data[0] == codec.PROTOCOL_ID:
            try:  # looks like an envelope; a struct can start with 0x82 too
                model = codec.parse_raw(data, message=True)
                message = True
            except Exception:  # noqa: BLE001 - fall back to a bare struct
                message = False
        model = codec.parse_raw(data, message=message)
    else:
        record, body = _record(codec, args)
        model = codec.parse(data, record, body=body)
    json.dump(codec.to_dict(model), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


def _encode(args) -> int:
    from .cli import CliError, _read_input, _write_output

    codec = _codec(args)
    try:
        document = json.loads(_read_input(args.file))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise CliError(f"{args.file} is not JSON: {err}") from None
    if args.raw:
        if args.record == "message" or {"name", "seqid", "body"} <= set(document):
            model = codec.from_dict(document, "message")
        else:
            model = codec.from_dict(document, raw=True)
    else:
        record, body = _record(codec, args)
        model = codec.from_dict(document, record, body=body)
    _write_output(args.output, codec.build(model))
    return 0


def _schema(args) -> int:
    from .cli import _ddl

    codec = _codec(args)
    record, body = _record(codec, args)
    schema = codec.spark_schema(record, body=body)
    print(_ddl(schema) if args.ddl else json.dumps(schema.jsonValue(), indent=2))
    return 0


def cmd_import_thrift(args) -> int:
    from .thrift_idl import import_thrift

    text = import_thrift(Path(args.file), args.format)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0
