"""``wirespec decode FORMAT FILE``: one message to its JSON form on stdout; ``--raw`` reads
any Thrift struct or message without a schema (like ``protoc --decode_raw``)."""

from __future__ import annotations

from generator.cli.common import examples, print_json, read_input
from generator.cli.target import (
    add_raw_option,
    add_record_options,
    decode_file,
    detect,
    format_help,
    raw_codec,
)
from runtime.core.errors import DecodeError


def add_parser(verbs) -> None:
    dec = verbs.add_parser(
        "decode",
        help="decode a message to JSON on stdout",
        description="Decode one message to its JSON form on stdout. Without --record the "
        "record is recognised from the bytes where the spec says how (a binlog file by its "
        "magic, a Thrift message by its envelope).",
        **examples(
            "wirespec decode plainbuffer samples/plainbuffer/put_row.bin",
            "wirespec decode ticdc_open_protocol samples/ticdc_open_protocol/update.value"
            "   # update.key beside it",
            "wirespec decode thrift_compact samples/thrift_compact/get_user_reply.bin",
            "wirespec decode sensorlog readings.bin --spec myspecs/sensorlog.yaml",
        ),
    )
    dec.add_argument("format", metavar="FORMAT", help=format_help())
    dec.add_argument("file", metavar="FILE", help="input file, or - for stdin")
    add_record_options(dec)
    dec.add_argument(
        "--key",
        metavar="KEYFILE",
        help="the Kafka key of the message, for formats that need it (ticdc_open_protocol); "
        "FILE is then the Kafka value (default: <stem>.key beside FILE)",
    )
    add_raw_option(dec)
    dec.set_defaults(run=run_command)


def run_command(args) -> int:
    if args.raw:
        return decode_raw(args)
    target, model = decode_file(args, args.file, args.key)
    print_json(target.codec.to_dict(model))
    return 0


def decode_raw(args) -> int:
    """Any struct or message as field ids and wire types (a message by its envelope)."""
    codec = raw_codec(args)
    data = read_input(args.file)
    if args.record is None and detect(codec, data) == "message":
        try:  # looks like an envelope; a struct can start with the same two bytes
            model = codec.parse_raw(data, message=True)
        except DecodeError:
            model = codec.parse_raw(data)
    else:
        model = codec.parse_raw(data, message=args.record == "message")
    print_json(codec.to_dict(model))
    return 0
