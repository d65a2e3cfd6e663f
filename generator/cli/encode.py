"""``wirespec encode FORMAT JSONFILE [-o OUT]``: the JSON form back to the message's bytes;
``--raw`` builds a schema-less Thrift struct or message (what ``decode --raw`` prints)."""

from __future__ import annotations

import sys

from generator.cli.common import EXIT_USAGE, CliError, examples, read_json, write_output
from generator.cli.target import (
    Target,
    add_raw_option,
    add_record_options,
    check_key_option,
    choose,
    codec_for,
    detect,
    format_help,
    hint_struct,
    raw_codec,
)
from runtime.core.errors import WirespecError


def add_parser(verbs) -> None:
    enc = verbs.add_parser(
        "encode",
        help="encode the JSON form back to bytes",
        description="Encode the JSON form decode prints (edited or not) back to the bytes of "
        "one message; what decode read, encode writes byte for byte.",
        **examples(
            "wirespec decode plainbuffer samples/plainbuffer/put_row.bin > row.json",
            "wirespec encode plainbuffer row.json -o row.bin   # put_row.bin again",
            "wirespec encode ticdc_open_protocol update.json -o update.value --key-out update.key",
        ),
    )
    enc.add_argument("format", metavar="FORMAT", help=format_help())
    enc.add_argument("file", metavar="FILE", help="JSON file, or - for stdin")
    add_record_options(enc)
    enc.add_argument(
        "-o", "--output", help="output file (default: stdout, when it is not a terminal)"
    )
    enc.add_argument(
        "--key-out",
        metavar="KEYFILE",
        help="where the Kafka key goes, for formats that have one (ticdc_open_protocol); "
        "-o gets the Kafka value",
    )
    add_raw_option(enc)
    enc.set_defaults(run=run_command)


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


def run_command(args) -> int:
    if args.output in (None, "-") and sys.stdout.isatty():
        raise CliError("encode writes bytes: give -o OUT, or redirect stdout", EXIT_USAGE)
    if args.raw:
        return encode_raw(args)
    codec = codec_for(args)
    document = read_json(args.file)
    target = _encode_target(codec, args, document)
    check_key_option(target, args.key_out, "--key-out")
    try:
        model = codec.from_dict(document, target.record, **target.options)
    except WirespecError as err:
        hint_struct(args, target, err)
        raise
    if target.keyed:
        if args.key_out is None:
            raise CliError(
                f"{codec.FORMAT} {target.record} has a Kafka key: give --key-out KEYFILE"
            )
        key, value = codec.build_pair(model)
        write_output(args.key_out, key)
        write_output(args.output, value)
        return 0
    write_output(args.output, codec.build(model, target.record))
    return 0


def encode_raw(args) -> int:
    codec = raw_codec(args)
    document = read_json(args.file)
    if args.record == "message" or {"name", "seqid", "body"} <= set(document):
        model = codec.from_dict(document, "message")
    else:
        model = codec.from_dict(document, raw=True)
    write_output(args.output, codec.build(model))
    return 0
