"""What every verb of the command line shares: its one error type and exit statuses, reading
and writing the user's files, and turning an error into the one line a user sees.

    >>> error_line(DecodeError("bad tag", offset=3, path="body.tag"))
    'cannot decode: bad tag (offset 3, field body.tag)'
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from generator import ROOT
from runtime.core.errors import DecodeError

EXIT_BAD_INPUT = 1
EXIT_USAGE = 2
EXIT_STALE = 3
EXIT_BROKEN_PIPE = 141
"""128 + SIGPIPE: what a shell shows for a writer whose reader went away."""
EXIT_INTERRUPTED = 130
"""128 + SIGINT."""


class CliError(Exception):
    """A user-facing failure: printed as one line, exit status attached."""

    def __init__(self, message: str, status: int = EXIT_BAD_INPUT):
        super().__init__(message)
        self.status = status


class _ExamplesFormatter(argparse.HelpFormatter):
    """Argparse's help, with the description wrapped as usual and the examples (the epilog)
    kept line by line, as a shell would run them."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith(EXAMPLES_HEAD):
            return "\n".join(indent + line for line in text.splitlines())
        return super()._fill_text(text, width, indent)


EXAMPLES_HEAD = "examples (from the repository's root):"


def examples(*commands: str) -> dict:
    """The keywords of ``add_parser`` that end a verb's ``--help`` with ``commands``, one a
    line (tests/test_cli.py runs those on the shipped samples).

    >>> print(examples("wirespec schema png --ddl")["epilog"])
    examples (from the repository's root):
      wirespec schema png --ddl
    """
    lines = "\n".join(f"  {command}" for command in commands)
    return {"epilog": f"{EXAMPLES_HEAD}\n{lines}", "formatter_class": _ExamplesFormatter}


def add_spec_folder_options(cmd, out_help: str) -> None:
    """``--specs`` and ``--out`` of a verb that renders a spec folder (``generate``,
    ``docs``); :func:`output_folder` reads them. ``out_help``: what ``--out`` holds and its
    default for the shipped specs."""
    cmd.add_argument(
        "--specs",
        default=str(ROOT / "specs"),
        help="spec folder (default: specs/, the shipped formats'); a folder of your own "
        "needs --out",
    )
    cmd.add_argument("--out", help=f"{out_help}; required with --specs of your own")


def rerun(verb: str, args) -> str:
    """The command that brings a stale ``generate``/``docs`` output up to date: the verb
    alone for the shipped specs, with the ``--specs``/``--out`` given for a folder of your own.

    >>> from argparse import Namespace
    >>> rerun("docs", Namespace(specs=str(ROOT / "specs"), out=None))
    'wirespec docs'
    >>> rerun("generate", Namespace(specs="myspecs", out="mypkg"))
    'wirespec generate --specs myspecs --out mypkg'
    """
    if Path(args.specs).resolve() == (ROOT / "specs").resolve():
        return f"wirespec {verb}" + (f" --out {args.out}" if args.out else "")
    return f"wirespec {verb} --specs {args.specs} --out {args.out}"


def output_folder(specs: Path, out: str | None, shipped_specs: Path, shipped_out: Path) -> Path:
    """Where ``generate``/``docs`` write: ``--out``, which defaults to the shipped folder
    (``generated/``, ``docs/formats/``) only for the shipped specs (``specs/``). A spec folder
    of your own must say where its output goes, and never into the shipped folder, whose
    files would all be orphans of it (and it an orphan at the next ``--check``).

    >>> output_folder(Path("specs"), None, Path("specs"), Path("generated"))
    PosixPath('generated')
    >>> output_folder(Path("mine"), "mypkg", Path("specs"), Path("generated"))
    PosixPath('mypkg')
    >>> output_folder(Path("mine"), None, Path("specs"), Path("generated"))
    Traceback (most recent call last):
    ...
    generator.cli.common.CliError: --specs mine is a spec folder of your own: give --out DIR, \
the folder (your package) its files go to; generated/ holds the shipped formats', made from specs/
    """
    own = specs.resolve() != shipped_specs.resolve()
    if not own:
        return shipped_out if out is None else Path(out)
    root = shipped_specs.parent
    shipped = f"{shipped_out.relative_to(root).as_posix()}/"
    made_from = f"{shipped_specs.relative_to(root).as_posix()}/"
    if out is None:
        raise CliError(
            f"--specs {specs} is a spec folder of your own: give --out DIR, the folder (your "
            f"package) its files go to; {shipped} holds the shipped formats', made from "
            f"{made_from}",
            EXIT_USAGE,
        )
    if Path(out).resolve() == shipped_out.resolve():
        raise CliError(
            f"--out {out} holds the shipped formats' files, made from {made_from} alone: give "
            f"your own --out DIR (or put your spec in {made_from} and leave out --specs and "
            f"--out)",
            EXIT_USAGE,
        )
    return Path(out)


def read_input(name: str) -> bytes:
    """The bytes of file ``name``, or of stdin for ``-``."""
    if name == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(name).read_bytes()
    except OSError as err:
        raise CliError(f"cannot read {name}: {err.strerror}") from None


def read_json(name: str) -> dict:
    """The JSON object in a file (the form ``decode`` prints)."""
    data = read_input(name)
    try:
        document = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise CliError(f"{name} is not JSON (not UTF-8 text)") from None
    except json.JSONDecodeError as err:
        raise CliError(f"{name} is not JSON: {err}") from None
    except ValueError as err:  # an integer of more digits than Python converts
        raise CliError(f"{name}: {err}") from None
    except RecursionError:
        raise CliError(f"{name}: JSON nested too deep for this Python stack") from None
    if not isinstance(document, dict):
        kind = type(document).__name__.replace("dict", "object").replace("list", "array")
        raise CliError(f"{name}: expected a JSON object (the form decode prints), not {kind}")
    return document


def write_output(name: str | None, data: bytes) -> None:
    """``data`` into file ``name``, or to stdout for None or ``-``."""
    if name in (None, "-"):
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    try:
        Path(name).write_bytes(data)
    except OSError as err:
        raise CliError(f"cannot write {name}: {err.strerror}") from None


def print_json(document) -> None:
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


def error_line(err: BaseException) -> str:
    """The one line a user sees for an error of ours; one of no field (trailing bytes)
    names none.

    >>> error_line(DecodeError("2 trailing byte(s) after the message", offset=44))
    'cannot decode: 2 trailing byte(s) after the message (offset 44)'
    """
    if isinstance(err, DecodeError):
        offset = "?" if err.offset is None else err.offset
        field = f", field {err.path}" if err.path else ""
        return f"cannot decode: {err.message} (offset {offset}{field})"
    if isinstance(err, OSError):
        where = f" {err.filename}" if err.filename else ""
        return _one_line(f"cannot use{where}: {err.strerror or err}")
    return _one_line(str(err))


def counted(n: int, noun: str) -> str:
    """``n`` things, in words.

    >>> counted(1, "file"), counted(0, "record"), counted(12_345, "event")
    ('1 file', '0 records', '12,345 events')
    """
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _one_line(text: str) -> str:
    """A file name (a spec's, say) may hold a line break: shown escaped."""
    return text.replace("\r", "\\r").replace("\n", "\\n")
