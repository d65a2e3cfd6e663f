"""The Thrift parts of the command line (hooked into :mod:`generator.cli.main` by one call).

    wirespec decode thrift_compact --struct NAME FILE     # a message's body, or a bare struct
    wirespec decode thrift_compact --spec SPEC --struct NAME FILE
    wirespec decode thrift_compact --raw FILE          # no schema, like protoc --decode_raw
    wirespec encode thrift_compact --spec SPEC --struct NAME JSONFILE -o OUT  (or --raw)
    wirespec schema thrift_compact --spec SPEC --struct NAME [--ddl]
    wirespec import-thrift FILE.thrift -o specs/NAME.yaml

``--spec`` renders the spec in memory, so a user's spec works without ``generate``;
``--record`` and ``--struct`` (:func:`generator.cli.main.choose`) mean the same as on every verb.
"""

from __future__ import annotations

import sys
from pathlib import Path


def add_to(dec, enc, verbs) -> None:
    """Add ``--raw`` to decode/encode and the ``import-thrift`` verb."""
    for p in (dec, enc):
        p.add_argument(
            "--raw", action="store_true", help="Thrift: any struct/message, without a schema"
        )
    imp = verbs.add_parser("import-thrift", help="turn a Thrift IDL file into a wirespec spec")
    imp.add_argument("file", help="the .thrift file (its includes are followed)")
    imp.add_argument("-o", "--output", help="spec file to write (default: stdout)")
    imp.add_argument("--format", help="format name (default: from the file name)")
    imp.set_defaults(run=cmd_import_thrift)


def spec_codec(spec: str, fmt: str):
    """The module of a user's spec, rendered and imported in memory. ``fmt`` names it:
    the spec's own ``format:``, or ``thrift_compact`` for a Thrift spec (import-thrift's)."""
    from generator.cli.main import CliError
    from generator.emit.generate import import_spec
    from generator.spec.loader import load

    path = Path(spec)
    if not path.is_file():
        raise CliError(f"no spec file {spec}")
    try:
        loaded = load(path, path.name)
    except UnicodeDecodeError as err:
        raise CliError(f"{spec}: not UTF-8 text (byte {err.start})") from None
    data = loaded.data
    own = data.get("format")
    if fmt != own and not (fmt == "thrift_compact" and "protocol" in data):
        hint = "" if "protocol" in data else " (not a Thrift spec)"
        raise CliError(f"{spec} is the spec of {own!r}, not {fmt!r}{hint}", 2)
    return import_spec(path, loaded)


def _raw_codec(args):
    from generator.cli.main import CliError, codec_for

    codec = codec_for(args)
    if not hasattr(codec, "parse_raw"):
        raise CliError(f"{codec.FORMAT}: --raw is for Thrift formats", 2)
    if args.struct:
        raise CliError("--raw decodes without a schema: leave out --struct", 2)
    return codec


def decode_raw(args) -> int:
    """Any struct or message as field ids and wire types (a message by its envelope)."""
    from generator.cli.main import _print_json, _read_input, detect
    from runtime.core.errors import DecodeError

    codec = _raw_codec(args)
    data = _read_input(args.file)
    if args.record is None and detect(codec, data) == "message":
        try:  # looks like an envelope; a struct can start with the same two bytes
            model = codec.parse_raw(data, message=True)
        except DecodeError:
            model = codec.parse_raw(data)
    else:
        model = codec.parse_raw(data, message=args.record == "message")
    _print_json(codec.to_dict(model))
    return 0


def encode_raw(args) -> int:
    from generator.cli.main import _read_json, _write_output

    codec = _raw_codec(args)
    document = _read_json(args.file)
    if args.record == "message" or {"name", "seqid", "body"} <= set(document):
        model = codec.from_dict(document, "message")
    else:
        model = codec.from_dict(document, raw=True)
    _write_output(args.output, codec.build(model))
    return 0


def cmd_import_thrift(args) -> int:
    from generator.cli.main import CliError, _write_output
    from generator.importers.thrift_idl import import_thrift

    path = Path(args.file)
    if not path.is_file():
        problem = "is a folder" if path.is_dir() else "no such file"
        raise CliError(f"cannot read {args.file}: {problem}")
    try:
        text = import_thrift(path, args.format)
    except OSError as err:  # an include that cannot be read
        name = Path(err.filename).name if err.filename else args.file
        raise CliError(f"{args.file}: cannot read {name}: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise CliError(f"{args.file}: not UTF-8 text (byte {err.start})") from None
    if args.output:
        _write_output(args.output, text.encode("utf-8"))
    else:
        sys.stdout.write(text)
    return 0
