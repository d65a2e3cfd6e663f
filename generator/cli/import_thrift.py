"""``wirespec import-thrift FILE.thrift [-o specs/NAME.yaml]``: a Thrift IDL file (its
includes followed) as a wirespec spec (:mod:`generator.importers.thrift_idl`).

The Thrift options of the other verbs use the spec in memory, without ``generate``:

    wirespec decode thrift_compact --spec SPEC --struct NAME FILE
    wirespec decode thrift_compact --raw FILE          # no schema, like protoc --decode_raw
    wirespec encode thrift_compact --spec SPEC --struct NAME JSONFILE -o OUT  (or --raw)
    wirespec schema thrift_compact --spec SPEC --struct NAME [--ddl]
"""

from __future__ import annotations

import sys
from pathlib import Path

from generator.cli.common import CliError, examples, write_output


def add_parser(verbs) -> None:
    imp = verbs.add_parser(
        "import-thrift",
        help="turn a Thrift IDL file into a wirespec spec",
        **examples(
            "wirespec import-thrift shop.thrift -o myspecs/shop.yaml",
            "wirespec decode thrift_compact order.bin --spec myspecs/shop.yaml --struct Order",
        ),
    )
    imp.add_argument("file", metavar="FILE", help="the .thrift file (its includes are followed)")
    imp.add_argument("-o", "--output", help="spec file to write (default: stdout)")
    imp.add_argument("--format", help="format name (default: from the file name)")
    imp.set_defaults(run=run_command)


def run_command(args) -> int:
    from generator.importers.thrift_idl import import_thrift  # the generate extra (lark)

    path = Path(args.file)
    if not path.is_file():
        problem = "is a folder" if path.is_dir() else "no such file"
        raise CliError(f"cannot read {args.file}: {problem}")
    # a file or include that cannot be read, or is not UTF-8, is the importer's SpecError
    text = import_thrift(path, args.format)
    if args.output:
        write_output(args.output, text.encode("utf-8"))
    else:
        sys.stdout.write(text)
    return 0
