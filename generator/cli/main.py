"""The ``wirespec`` command line.

    wirespec generate [--check]
    wirespec decode FORMAT [--record R] [--struct S] FILE|-
    wirespec encode FORMAT [--record R] [--struct S] JSONFILE|- [-o OUT]
    wirespec schema FORMAT [--record R] [--struct S] [--ddl]
    wirespec ingest FORMAT INPUT... --output DIR [--mode M] [--master URL] [--input-kind K]
        [--limit NAME=VALUE]... [--overwrite]
    wirespec transcode SOURCE TARGET IN OUT [--key KEYFILE] [--key-out KEYFILE]
    wirespec inspect FORMAT FILE [--record R] [--struct S] [--html OUT.html]
    wirespec docs [--check]
    wirespec diff FORMAT A B [--record R] [--struct S]
    wirespec fuzz FORMAT|all [--record R] [--seconds N] [--seed S] [--no-save]

The options mean one thing on every verb: ``--record`` is the spec record (default: the
record the input is recognised as by the spec's ``detect:``, else the spec's
``default_record``); ``--struct`` is the Thrift struct of the payload (a message's body
when the input is a message envelope, else the whole input); ``--spec`` is your own Thrift
spec, used in memory.

Bad input never shows a traceback: one line goes to stderr (with the offset and field path
for decode errors) and the exit status is non-zero. A closed stdout (``| head``) ends the
command quietly with status 141, as a shell reports a SIGPIPE.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import sys
from pathlib import Path

from generator import ROOT, __version__
from generator.cli import thrift_cli
from runtime.core import tier
from runtime.core.errors import DecodeError, EncodeError, SpecError, WirespecError

EXIT_BAD_INPUT = 1
EXIT_USAGE = 2
EXIT_STALE = 3
EXIT_BROKEN_PIPE = 141
"""128 + SIGPIPE: what a shell shows for a writer whose reader went away."""
EXIT_INTERRUPTED = 130
"""128 + SIGINT."""
EXTRAS = {
    **dict.fromkeys(("jinja2", "yaml", "jsonschema", "black", "lark", "rich"), "generate"),
    **dict.fromkeys(("pyspark", "pandas", "pyarrow"), "spark"),
    "hypothesis": "test",
}
"""A module some verbs need -> the extra of pyproject.toml that installs it: the core install
(what ``import generated.<format>`` needs) runs ``decode`` and ``encode``."""


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


def _read_json(name: str) -> dict:
    """The JSON object in a file (the form ``decode`` prints)."""
    data = _read_input(name)
    try:
        document = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise CliError(f"{name} is not JSON (not UTF-8 text)") from None
    except json.JSONDecodeError as err:
        raise CliError(f"{name} is not JSON: {err}") from None
    if not isinstance(document, dict):
        kind = type(document).__name__.replace("dict", "object").replace("list", "array")
        raise CliError(f"{name}: expected a JSON object (the form decode prints), not {kind}")
    return document


def _write_output(name: str | None, data: bytes) -> None:
    if name in (None, "-"):
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    try:
        Path(name).write_bytes(data)
    except OSError as err:
        raise CliError(f"cannot write {name}: {err.strerror}") from None


def _print_json(document) -> None:
    json.dump(document, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def stdout_console():
    """A rich console on stdout whose closed pipe ends the command like any other
    (rich's own handling exits with status 1)."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError

    return _Console(soft_wrap=True)


def known_formats() -> list[str]:
    """The formats of ``generated/`` (what FORMAT may be)."""
    return sorted(p.stem for p in (ROOT / "generated").glob("*.py") if p.stem != "__init__")


def load_codec(fmt: str):
    """The generated module of a format (``plainbuffer`` -> ``generated.plainbuffer``)."""
    known = known_formats()
    if fmt not in known:
        raise CliError(f"unknown format {fmt!r}; known: {', '.join(known)}", EXIT_USAGE)
    return importlib.import_module(f"generated.{fmt}")


# -- which record: --record, --struct, detect: ----------------------------------------------


@dataclasses.dataclass
class Target:
    """What to decode/encode the input as: a record of a module, and for a Thrift message
    the struct of its body (``options`` = ``{"body": NAME}``)."""

    codec: object
    record: str
    options: dict

    @property
    def keyed(self) -> bool:
        """Is the record a Kafka key + value pair (``kafka_message`` in the spec)?"""
        return getattr(self.codec, "KAFKA_RECORD", None) == self.record


def add_record_options(p: argparse.ArgumentParser) -> None:
    """``--record``, ``--struct`` and ``--spec``: the same words and meaning on every verb."""
    p.add_argument(
        "--record",
        help="the spec record to use (default: the record the input is recognised as, by the "
        "spec's detect:, else the spec's default_record)",
    )
    p.add_argument(
        "--struct",
        help="Thrift: the struct of the payload (the body when the input is a message "
        "envelope, else the whole input)",
    )
    p.add_argument(
        "--spec",
        help="your spec YAML, rendered in memory and used instead of FORMAT's generated "
        "module (try a spec before generating it); FORMAT is the spec's format:, or "
        "thrift_compact for a spec from import-thrift",
    )


def codec_for(args):
    """The module ``args`` name: ``--spec`` rendered in memory, else ``generated.FORMAT``."""
    if getattr(args, "spec", None):
        return thrift_cli.spec_codec(args.spec, args.format)
    return load_codec(args.format)


def _is_thrift(codec) -> bool:
    return hasattr(codec, "parse_raw")


def _check_record(codec, record: str) -> None:
    if record not in codec.RECORDS:
        raise CliError(
            f"{codec.FORMAT} has no record {record!r}; records: {', '.join(codec.RECORDS)}",
            EXIT_USAGE,
        )


def choose(codec, record: str | None, struct: str | None, detected: str | None) -> Target:
    """The target of ``--record``/``--struct``; ``detected`` is what the input looks like
    (``detect_record``), used only when no ``--record`` is given."""
    record = record or detected
    options = {}
    if struct is not None:
        if not _is_thrift(codec):
            raise CliError(
                f"--struct is for Thrift formats; {codec.FORMAT} has --record", EXIT_USAGE
            )
        if struct not in codec.RECORDS or struct == "message":
            structs = [r for r in codec.RECORDS if r != "message"]
            raise CliError(
                f"{codec.FORMAT} has no struct {struct!r}; structs: {', '.join(structs)}",
                EXIT_USAGE,
            )
        if record == "message":
            options = {"body": struct}
        elif record in (None, struct):
            record = struct
        else:
            raise CliError(
                f"--record {record} and --struct {struct} disagree: --struct is the payload's "
                f"struct (a message's body with --record message)",
                EXIT_USAGE,
            )
    record = record or codec.DEFAULT_RECORD
    _check_record(codec, record)
    return Target(codec, record, options)


def detect(codec, data: bytes) -> str | None:
    """The record ``data`` is by the spec's ``detect:`` (modules without it: None)."""
    detect_record = getattr(codec, "detect_record", None)
    return detect_record(data) if detect_record else None


def target_for_bytes(args, data: bytes) -> Target:
    codec = codec_for(args)
    return choose(codec, args.record, args.struct, None if args.record else detect(codec, data))


def sibling_key(name: str) -> str | None:
    """``<stem>.key`` beside ``<stem>.value`` (as the Spark data source pairs them)."""
    if name == "-":
        return None
    key = Path(name).with_suffix(".key")
    return str(key) if key != Path(name) and key.is_file() else None


def key_for(target: Target, value_name: str, given: str | None, option: str = "--key") -> str:
    """The key file of a Kafka key + value record: ``given``, else the sibling ``.key``."""
    key = given or sibling_key(value_name)
    if key is None:
        raise CliError(
            f"{target.codec.FORMAT} {target.record} is a Kafka key and value: give {option} "
            f"KEYFILE (or put <stem>.key beside the value file)"
        )
    return key


def _check_key_option(target: Target, given: str | None, option: str) -> None:
    if given is None or target.keyed:
        return
    kafka = getattr(target.codec, "KAFKA_RECORD", None)
    if kafka is None:
        raise CliError(f"{option} is only for formats whose messages have a Kafka key", EXIT_USAGE)
    raise CliError(
        f"{option} goes with the Kafka record {kafka!r}, not {target.record!r}", EXIT_USAGE
    )


def decode_file(args, name: str, key: str | None = None, key_option: str = "--key"):
    """(target, model) of one input file (a key + value pair when the record is one;
    ``key_option`` is the option that gives the key, for the messages)."""
    data = _read_input(name)
    target = target_for_bytes(args, data)
    _check_key_option(target, key, key_option)
    if target.keyed:
        key_data = _read_input(key_for(target, name, key, key_option))
        return target, target.codec.parse_pair(key_data, data)
    try:
        return target, target.codec.parse(data, target.record, **target.options)
    except DecodeError as err:
        if detect(target.codec, data) is None:
            _hint_struct(args, target, err)
        raise


def _hint_struct(args, target: Target, err: WirespecError) -> None:
    """A Thrift input that is no message, read as one for want of --record/--struct: say so."""
    if args.record is None and args.struct is None and _is_thrift(target.codec):
        raise CliError(f"{error_line(err)}; not a Thrift message: give --struct NAME") from None


# -- the verbs ---------------------------------------------------------------------------------


def cmd_generate(args) -> int:
    from generator.emit.generate import (  # the generate extra: loaded when used
        generate,
        spec_fallbacks,
    )

    specs = Path(args.specs)
    if not specs.is_dir():
        raise CliError(f"no spec folder {args.specs}")
    if not any(specs.glob("*.yaml")):
        raise CliError(f"no specs (*.yaml) in {args.specs}")
    outcomes = generate(specs, Path(args.out), check=args.check)
    problems = [o for o in outcomes if o.status not in ("fresh", "written")]
    for o in outcomes:
        if o.status != "fresh" or args.verbose:
            print(f"{o.status:8} {o.path}", file=sys.stderr if o in problems else sys.stdout)
    if args.verbose:
        from generator.emit import fallbacks  # the emitters: loaded only when asked

        for fmt, tiers in spec_fallbacks(specs).items():
            for line in fallbacks.report(fmt, tiers):
                print(f"fallback {line}")
    if args.check and problems:
        print(
            "generated code is out of date or was edited by hand; run `wirespec generate`",
            file=sys.stderr,
        )
        return EXIT_STALE
    return 0


def cmd_decode(args) -> int:
    if args.raw:
        return thrift_cli.decode_raw(args)
    target, model = decode_file(args, args.file, args.key)
    _print_json(target.codec.to_dict(model))
    return 0


def _encode_target(codec, args, document) -> Target:
    """``--record``/``--struct``, or the record whose ``detect:`` the built bytes match."""
    if args.record is None:
        for record in getattr(codec, "RECORD_DETECTORS", {}):
            target = choose(codec, None, args.struct, record)
            try:
                built = codec.build(codec.from_dict(document, record, **target.options), record)
            except WirespecError:
                continue
            if detect(codec, built) == record:
                return target
    return choose(codec, args.record, args.struct, None)


def cmd_encode(args) -> int:
    if args.raw:
        return thrift_cli.encode_raw(args)
    codec = codec_for(args)
    document = _read_json(args.file)
    target = _encode_target(codec, args, document)
    _check_key_option(target, args.key_out, "--key-out")
    try:
        model = codec.from_dict(document, target.record, **target.options)
    except WirespecError as err:
        _hint_struct(args, target, err)
        raise
    if target.keyed:
        if args.key_out is None:
            raise CliError(
                f"{codec.FORMAT} {target.record} has a Kafka key: give --key-out KEYFILE"
            )
        key, value = codec.build_pair(model)
        _write_output(args.key_out, key)
        _write_output(args.output, value)
        return 0
    _write_output(args.output, codec.build(model, target.record))
    return 0


def cmd_transcode(args) -> int:
    from generator.cli.transcode import FORMATS, transcode

    for fmt in (args.source, args.target):
        if fmt not in FORMATS:
            raise CliError(f"transcode knows {', '.join(FORMATS)}, not {fmt!r}", EXIT_USAGE)
    source = choose(load_codec(args.source), "message", None, None)
    target = choose(load_codec(args.target), "message", None, None)
    _check_key_option(source, args.key, "--key")
    _check_key_option(target, args.key_out, "--key-out")
    if target.keyed and args.key_out is None:
        raise CliError(f"{args.target} messages have a Kafka key: give --key-out KEYFILE")
    key = _read_input(key_for(source, args.input, args.key)) if source.keyed else None
    (out_key, out_value), warnings = transcode(
        args.source, args.target, key, _read_input(args.input)
    )
    for line in warnings:
        print(f"wirespec: warning: {line}", file=sys.stderr)
    if out_key is not None:
        _write_output(args.key_out, out_key)
    _write_output(args.output, out_value)
    return 0


def cmd_schema(args) -> int:
    target = choose(codec_for(args), args.record, args.struct, None)
    schema = target.codec.spark_schema(target.record, **target.options)
    print(_ddl(schema) if args.ddl else json.dumps(schema.jsonValue(), indent=2))
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


# -- the parser ----------------------------------------------------------------------------------


def format_help() -> str:
    return f"one of: {', '.join(known_formats())}"


class _VersionAction(argparse.Action):
    """``--version``: the version and which tier runs (``runtime.core.tier.describe``), then exit."""

    def __init__(self, option_strings, dest, **kwargs):
        kwargs["help"] = "show the version and which tier (compiled or pure Python) runs"
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"wirespec {__version__}\n{tier.describe()}")
        parser.exit()


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="wirespec",
        description="Schema-driven codecs for binary change formats.",
        epilog=f"formats: {', '.join(known_formats())}. Exit status: 0 ok, 1 bad input (diff: "
        "the messages differ), 2 usage (diff: trouble), 3 stale generated code, 141 closed "
        "stdout. `wirespec VERB --help` for a verb's options.",
    )
    top.add_argument("--version", action=_VersionAction)
    verbs = top.add_subparsers(dest="verb", required=True, metavar="VERB")

    gen = verbs.add_parser("generate", help="render generated/ from specs/")
    gen.add_argument("--check", action="store_true", help="fail if generated/ is stale or edited")
    gen.add_argument("--specs", default=str(ROOT / "specs"), help="spec folder (default: specs/)")
    gen.add_argument("--out", default=str(ROOT / "generated"), help="output folder")
    gen.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="list fresh files too, and every fallback: each record that parse() or build() "
        "handles with construct instead of the fast path, or that has no quick-tier or "
        "compiled reader, with why (also in each module's header and FALLBACKS)",
    )
    gen.set_defaults(run=cmd_generate)

    dec = verbs.add_parser(
        "decode",
        help="decode a message to JSON on stdout",
        description="Decode one message to its JSON form on stdout. Without --record the "
        "record is recognised from the bytes where the spec says how (a binlog file by its "
        "magic, a Thrift message by its envelope).",
    )
    dec.add_argument("format", help=format_help())
    dec.add_argument("file", help="input file, or - for stdin")
    add_record_options(dec)
    dec.add_argument(
        "--key",
        metavar="KEYFILE",
        help="the Kafka key of the message, for formats that need it (ticdc_open_protocol); "
        "FILE is then the Kafka value (default: <stem>.key beside FILE)",
    )
    dec.set_defaults(run=cmd_decode)

    enc = verbs.add_parser("encode", help="encode the JSON form back to bytes")
    enc.add_argument("format", help=format_help())
    enc.add_argument("file", help="JSON file, or - for stdin")
    add_record_options(enc)
    enc.add_argument("-o", "--output", help="output file (default: stdout)")
    enc.add_argument(
        "--key-out",
        metavar="KEYFILE",
        help="where the Kafka key goes, for formats that have one (ticdc_open_protocol); "
        "-o gets the Kafka value",
    )
    enc.set_defaults(run=cmd_encode)

    sch = verbs.add_parser("schema", help="print the Spark schema")
    sch.add_argument("format", help=format_help())
    add_record_options(sch)
    sch.add_argument("--ddl", action="store_true", help="print a DDL string instead of JSON")
    sch.set_defaults(run=cmd_schema)
    thrift_cli.add_to(dec, enc, verbs)

    tra = verbs.add_parser(
        "transcode",
        help="re-encode a TiCDC message in the other TiCDC format",
        description="Decode one message of SOURCE into TiCDC events and encode them as one "
        "message of TARGET (ticdc_open_protocol, ticdc_craft). For Open Protocol, IN and OUT "
        "are the Kafka value; its Kafka key is read from --key (default: <stem>.key beside "
        "IN) and written to --key-out. Lossless where both formats carry the information; "
        "every field, flag or type the target cannot carry (rid, ohk, ccl in Craft, say) is "
        "named in a warning on stderr.",
    )
    tra.add_argument("source", help="format of IN: ticdc_open_protocol or ticdc_craft")
    tra.add_argument("target", help="format of OUT: ticdc_open_protocol or ticdc_craft")
    tra.add_argument("input", metavar="IN", help="input message (the Kafka value), or -")
    tra.add_argument("output", metavar="OUT", help="output message (the Kafka value), or -")
    tra.add_argument("--key", metavar="KEYFILE", help="Kafka key of IN (Open Protocol source)")
    tra.add_argument(
        "--key-out",
        metavar="KEYFILE",
        help="where the Kafka key of OUT goes (Open Protocol target)",
    )
    tra.set_defaults(run=cmd_transcode)

    from generator.cli import diff, inspect
    from generator.emit import docs  # the tool verbs: inspect, docs, diff

    inspect.add_parser(verbs)
    docs.add_parser(verbs)
    diff.add_parser(verbs)
    from generator.cli import fuzz  # robustness: mutation fuzzing of the parsers

    fuzz.add_parser(verbs)
    from generator.cli import ingest  # Spark: message files -> Parquet tables

    ingest.add_parser(verbs)
    return top


# -- errors as one line ------------------------------------------------------------------------


def error_line(err: BaseException) -> str:
    """The one line a user sees for an error of ours."""
    if isinstance(err, DecodeError):
        offset = "?" if err.offset is None else err.offset
        return f"cannot decode: {err.message} (offset {offset}, field {err.path or '<message>'})"
    if isinstance(err, OSError):
        where = f" {err.filename}" if err.filename else ""
        return _one_line(f"cannot use{where}: {err.strerror or err}")
    return _one_line(str(err))


def _one_line(text: str) -> str:
    """A file name (a spec's, say) may hold a line break: shown escaped."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


def _quiet_stdout() -> None:
    """After a closed pipe: point stdout at /dev/null, so the interpreter's final flush
    does not complain a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # stdout is not a file (captured in tests): nothing will flush it


def main(argv: list[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
        try:
            return args.run(args)
        except CliError as err:
            status = err.status
            message = str(err)
        except (WirespecError, SpecError, EncodeError, DecodeError) as err:
            status = EXIT_BAD_INPUT
            message = error_line(err)
        except ModuleNotFoundError as err:
            extra = EXTRAS.get((err.name or "").partition(".")[0])
            if extra is None:
                raise
            status = EXIT_BAD_INPUT
            message = (
                f"{args.verb} needs {err.name}, not installed: pip install 'wirespec[{extra}]'"
            )
        except BrokenPipeError:
            raise
        except OSError as err:
            status = EXIT_BAD_INPUT
            message = error_line(err)
        # diff: 1 means "the messages differ", so its trouble is 2 (like diff(1))
        print(f"wirespec: {message}", file=sys.stderr)
        return max(status, getattr(args, "trouble_status", status))
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
