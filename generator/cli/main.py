"""The ``wirespec`` command line: the argument parser and the dispatch to one module per verb.

    wirespec generate [--check] [--specs DIR --out PKG] [--compiled]
    wirespec decode FORMAT [--record R] [--struct S] [--spec SPEC] FILE|-
    wirespec encode FORMAT [--record R] [--struct S] JSONFILE|- [-o OUT]
    wirespec schema FORMAT [--record R] [--struct S] [--ddl]
    wirespec import-thrift FILE.thrift [-o specs/NAME.yaml]
    wirespec transcode SOURCE TARGET IN OUT [--key KEYFILE] [--key-out KEYFILE]
    wirespec inspect FORMAT FILE [--record R] [--struct S] [--html OUT.html]
    wirespec docs [--check] [--specs DIR --out DIR]
    wirespec diff FORMAT A B [--record R] [--struct S]
    wirespec fuzz FORMAT|all [--record R] [--spec SPEC] [--seconds N] [--seed S] [--no-save]
    wirespec ingest FORMAT INPUT... --output DIR [--mode M] [--master URL] [--input-kind K]
        [--limit NAME=VALUE]... [--overwrite]

The options mean one thing on every verb (:mod:`generator.cli.target`). A verb is a module
of this package with ``add_parser(verbs)``, which sets ``run`` (and, for ``diff``,
``trouble_status``); it imports what an extra installs only when it runs.

Bad input never shows a traceback: one line goes to stderr (with the offset and field path
for decode errors) and the exit status is non-zero; a verb whose extra is not installed
names the extra. A closed stdout (``| head``) ends the command quietly with status 141, as
a shell reports a SIGPIPE.
"""

from __future__ import annotations

import argparse
import os
import sys

from generator import __version__
from generator.cli import (
    decode,
    diff,
    docs,
    encode,
    fuzz,
    generate,
    import_thrift,
    ingest,
    inspect,
    schema,
    transcode,
)
from generator.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    CliError,
    error_line,
)
from generator.cli.target import known_formats
from runtime.core import tier
from runtime.core.errors import DecodeError, EncodeError, SpecError, WirespecError

VERBS = (
    generate,
    decode,
    encode,
    schema,
    import_thrift,
    transcode,
    inspect,
    docs,
    diff,
    fuzz,
    ingest,
)
"""The verbs, in the order ``wirespec --help`` lists them."""
EXTRAS = {
    **dict.fromkeys(("jinja2", "yaml", "jsonschema", "black", "lark", "rich"), "generate"),
    **dict.fromkeys(("pyspark", "pandas", "pyarrow"), "spark"),
    "hypothesis": "test",
}
"""A module some verbs need -> the extra of pyproject.toml that installs it: the core install
(what ``import generated.<format>`` needs) runs ``decode`` and ``encode``."""


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
        epilog=f"formats: {', '.join(known_formats())}; your own: --spec YOUR_SPEC.yaml. "
        "Exit status: 0 ok, 1 bad input (diff: the messages differ), 2 usage (diff: trouble), "
        "3 stale generated code, 141 closed stdout. `wirespec VERB --help` for a verb's options.",
    )
    top.add_argument("--version", action=_VersionAction)
    verbs = top.add_subparsers(dest="verb", required=True, metavar="VERB")
    for verb in VERBS:
        verb.add_parser(verbs)
    return top


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
