"""Which module and record a verb reads or writes: ``FORMAT``, ``--record``, ``--struct``,
``--spec`` and the spec's ``detect:``, the same words and meaning on every verb.

``--record`` is the spec record (default: the record the input is recognised as by the
spec's ``detect:``, else the spec's ``default_record``); ``--struct`` is the Thrift struct
of the payload (a message's body when the input is a message envelope, else the whole
input); ``--spec`` is your own spec, rendered and used in memory.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import re
from pathlib import Path

from generator import ROOT
from generator.cli.common import EXIT_USAGE, CliError, error_line, read_input
from runtime.core.errors import DecodeError, WirespecError, did_you_mean


def known_formats() -> list[str]:
    """The formats of ``generated/`` (what FORMAT may be)."""
    return sorted(p.stem for p in (ROOT / "generated").glob("*.py") if p.stem != "__init__")


def format_help(more: str = "") -> str:
    """FORMAT's help: the shipped formats, ``more`` (another choice), and a spec's own.

    >>> format_help().endswith("; or your spec's format: with --spec")
    True
    """
    return f"one of: {', '.join(known_formats())}{more}; or your spec's format: with --spec"


def spec_as_format(fmt: str) -> str | None:
    """What to type instead when FORMAT is a spec file (``decode myspecs/log.yaml x.bin``),
    else None: FORMAT is the spec's ``format:`` (read from its text: the core install has
    no YAML parser) and the file goes to ``--spec``.

    >>> spec_as_format("plainbuffer") is None
    True
    >>> spec_as_format("nowhere/log.yaml")
    'nowhere/log.yaml is a spec file, not a format: give it as --spec nowhere/log.yaml, with FORMAT its format:'
    """
    if not fmt.endswith((".yaml", ".yml")):
        return None
    try:
        named = re.search(r"^format:\s*([a-z][a-z0-9_]*)\s*$", Path(fmt).read_text(), re.MULTILINE)
    except (OSError, UnicodeDecodeError):
        named = None
    its = f", {named.group(1)}" if named else ""
    return (
        f"{fmt} is a spec file, not a format: give it as --spec {fmt}, with FORMAT its format:{its}"
    )


def load_codec(fmt: str):
    """The generated module of a format (``plainbuffer`` -> ``generated.plainbuffer``)."""
    known = known_formats()
    if (misplaced := spec_as_format(fmt)) is not None:
        raise CliError(misplaced, EXIT_USAGE)
    if fmt not in known:
        raise CliError(
            f"unknown format {fmt!r}{did_you_mean(fmt, known)}; known: {', '.join(known)} "
            f"(a format of your own: --spec YOUR_SPEC.yaml)",
            EXIT_USAGE,
        )
    return importlib.import_module(f"generated.{fmt}")


def spec_codec(spec: str, fmt: str):
    """The module of a user's spec, rendered and imported in memory. ``fmt`` names it:
    the spec's own ``format:``, or ``thrift_compact`` for a Thrift spec (import-thrift's, or
    a ``.thrift`` IDL imported here, as ingest's ``--spec`` takes it)."""
    # the generate extra: loaded when used
    from generator.emit.user_spec import import_spec, spec_text
    from generator.spec.loader import load, load_text

    path = Path(spec)
    if path.is_dir():
        raise CliError(
            f"--spec {spec} is a folder: give one spec file (generate and docs take a folder, "
            f"--specs {spec})",
            EXIT_USAGE,
        )
    if not path.is_file():
        raise CliError(f"no spec file {spec}")
    if path.suffix == ".thrift":
        if fmt != "thrift_compact":
            raise CliError(
                f"--spec {spec}: a .thrift IDL is for thrift_compact, not {fmt}", EXIT_USAGE
            )
        loaded = load_text(spec_text(path), path, spec)
    else:
        loaded = load(path, spec)  # its errors name the path as typed, as --specs DIR's do
    data = loaded.data
    own = data.get("format")
    if fmt != own and not (fmt == "thrift_compact" and "protocol" in data):
        hint = "" if fmt != "thrift_compact" or "protocol" in data else " (not a Thrift spec)"
        raise CliError(f"{spec} is the spec of {own!r}, not {fmt!r}{hint}", EXIT_USAGE)
    return import_spec(path, loaded=loaded)


def codec_for(args):
    """The module ``args`` name: ``--spec`` rendered in memory, else ``generated.FORMAT``."""
    if getattr(args, "spec", None):
        return spec_codec(args.spec, args.format)
    return load_codec(args.format)


def raw_codec(args):
    """The module of ``--raw`` (Thrift: any struct or message, without a schema)."""
    codec = codec_for(args)
    if not is_thrift(codec):
        raise CliError(f"{codec.FORMAT}: --raw is for Thrift formats", EXIT_USAGE)
    if args.struct:
        raise CliError("--raw decodes without a schema: leave out --struct", EXIT_USAGE)
    return codec


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


RECORD_HELP = (
    "the spec record to use (default: the record the input is recognised as, by the spec's "
    "detect:, else the spec's default_record)"
)
"""``--record`` of a verb that reads an input; a verb without one says its own default."""


def add_record_options(p: argparse.ArgumentParser, record_help: str = RECORD_HELP) -> None:
    """``--record``, ``--struct`` and ``--spec``: the same words and meaning on every verb."""
    p.add_argument("--record", help=record_help)
    p.add_argument(
        "--struct",
        help="Thrift: the struct of the payload (the body when the input is a message "
        "envelope, else the whole input)",
    )
    p.add_argument(
        "--spec",
        help="your spec YAML, rendered in memory and used instead of FORMAT's generated "
        "module (try a spec before generating it); FORMAT is the spec's format:, or "
        "thrift_compact for a spec from import-thrift or a .thrift IDL (imported in memory)",
    )


def add_raw_option(p: argparse.ArgumentParser) -> None:
    """``--raw`` of decode and encode (:func:`raw_codec`)."""
    p.add_argument(
        "--raw", action="store_true", help="Thrift: any struct/message, without a schema"
    )


def is_thrift(codec) -> bool:
    return hasattr(codec, "parse_raw")


def _check_record(codec, record: str) -> None:
    if record not in codec.RECORDS:
        raise CliError(
            f"{codec.FORMAT} has no record {record!r}{did_you_mean(record, codec.RECORDS)}; "
            f"records: {', '.join(codec.RECORDS)}",
            EXIT_USAGE,
        )


def choose(codec, record: str | None, struct: str | None, detected: str | None) -> Target:
    """The target of ``--record``/``--struct``; ``detected`` is what the input looks like
    (``detect_record``), used only when no ``--record`` is given."""
    record = record or detected
    options = {}
    if struct is not None:
        if not is_thrift(codec):
            raise CliError(
                f"--struct is for Thrift formats; {codec.FORMAT} has --record", EXIT_USAGE
            )
        if struct not in codec.RECORDS or struct == "message":
            structs = [r for r in codec.RECORDS if r != "message"]
            raise CliError(
                f"{codec.FORMAT} has no struct {struct!r}{did_you_mean(struct, structs)}; "
                f"structs: {', '.join(structs)}",
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


def target_for_bytes(codec, args, data: bytes) -> Target:
    """The target of ``args`` for the input ``data`` in ``codec`` (:func:`codec_for`, loaded
    before the input is read, so an unknown format is named before a missing file)."""
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
    value = Path(value_name).with_suffix(".value")
    if key is None and value_name.endswith(".key") and value.is_file():
        raise CliError(
            f"{value_name} is the Kafka key of {target.codec.FORMAT} {target.record}: give its "
            f"value, {value} (the key beside it is read too)"
        )
    if key is None:
        raise CliError(
            f"{target.codec.FORMAT} {target.record} is a Kafka key and value: give {option} "
            f"KEYFILE (or put <stem>.key beside the value file)"
        )
    return key


def check_key_option(target: Target, given: str | None, option: str) -> None:
    """A key option (``--key``, ``--key-out``) given for a record that has no Kafka key:
    refused, naming the record that has one."""
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
    codec = codec_for(args)
    data = read_input(name)
    target = target_for_bytes(codec, args, data)
    check_key_option(target, key, key_option)
    if target.keyed:
        key_data = read_input(key_for(target, name, key, key_option))
        return target, target.codec.parse_pair(key_data, data)
    try:
        return target, target.codec.parse(data, target.record, **target.options)
    except DecodeError as err:
        if detect(target.codec, data) is None:
            hint_struct(args, target, err)
        raise


def hint_struct(args, target: Target, err: WirespecError) -> None:
    """A Thrift input that is no message, read as one for want of --record/--struct: say so."""
    if args.record is None and args.struct is None and is_thrift(target.codec):
        raise CliError(f"{error_line(err)}; not a Thrift message: give --struct NAME") from None
