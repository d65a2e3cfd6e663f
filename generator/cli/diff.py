"""``wirespec diff FORMAT A B``: which field paths of two messages have different values.

Both messages are decoded with the format's module and their JSON forms (``to_dict``)
are compared recursively, so a changed length prefix that only follows from a changed value
does not show up: only the fields whose decoded values differ do. Computed fields
(checksums, constants) are left out the way ``from_dict`` leaves them out: both messages
decoded, so their checksums are right, and they follow from the values (``--all`` keeps
them).

    >>> differences({"rows": [{"a": 1, "b": "x"}]}, {"rows": [{"a": 2, "b": "x"}]})
    [('rows[0].a', 1, 2)]
    >>> differences({"xs": [1]}, {"xs": [1, 5]})
    [('xs[1]', <absent>, 5)]
"""

from __future__ import annotations

import json
import sys

from generator.cli.common import CliError, counted, error_line, examples
from generator.cli.target import add_record_options, decode_file, format_help
from runtime.core.errors import DecodeError


class _Absent:
    def __repr__(self) -> str:
        return "<absent>"


ABSENT = _Absent()
"""Stands for a key or list element one side does not have."""


def _join(path: str, key) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def differences(a, b, path: str = "") -> list[tuple[str, object, object]]:
    """``(path, old, new)`` for every leaf of two JSON forms that differs, in order."""
    if isinstance(a, dict) and isinstance(b, dict) and not _is_scalar(a) and not _is_scalar(b):
        out = []
        for key in list(a) + [k for k in b if k not in a]:
            out += differences(a.get(key, ABSENT), b.get(key, ABSENT), _join(path, key))
        return out
    if isinstance(a, list) and isinstance(b, list):
        out = []
        for i in range(max(len(a), len(b))):
            out += differences(
                a[i] if i < len(a) else ABSENT, b[i] if i < len(b) else ABSENT, _join(path, i)
            )
        return out
    if a == b and type(a) is type(b):
        return []
    return [(path or "<message>", a, b)]


def _is_scalar(d: dict) -> bool:
    """``{"$hex": ...}`` and ``{"$f64": ...}`` are values, not records."""
    return len(d) == 1 and next(iter(d)).startswith("$")


def show(value) -> str:
    if value is ABSENT:
        return "<absent>"
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def format_differences(diffs) -> str:
    return "".join(f"{path}: {show(old)} -> {show(new)}\n" for path, old, new in diffs)


# -- the command ------------------------------------------------------------------------

EXIT_SAME, EXIT_DIFFERENT, EXIT_TROUBLE = 0, 1, 2
"""As diff(1): 0 the same, 1 different, 2 trouble (a file missing or not decodable, a bad
option)."""


def add_parser(verbs) -> None:
    cmd = verbs.add_parser(
        "diff",
        help="field paths whose values differ between two messages",
        description="Decode two messages and print `path: old -> new` for every field whose "
        "value differs, or `no differences`. For a Kafka key + value format "
        "(ticdc_open_protocol) give A.key A.value B.key B.value, or A.value B.value with "
        "<stem>.key beside each (or --key-a/--key-b). Exit status as diff(1): 0 the same, "
        "1 different, 2 trouble.",
        **examples(
            "wirespec diff plainbuffer samples/plainbuffer/put_row.bin "
            "samples/plainbuffer/update_row_ops.bin",
            "wirespec diff ticdc_open_protocol samples/ticdc_open_protocol/update.value "
            "samples/ticdc_open_protocol/delete.value",
        ),
    )
    cmd.add_argument("format", metavar="FORMAT", help=format_help())
    cmd.add_argument("files", nargs="+", metavar="FILE", help="A B, or A.key A.value B.key B.value")
    add_record_options(cmd)
    cmd.add_argument("--key-a", metavar="KEYFILE", help="the Kafka key of A")
    cmd.add_argument("--key-b", metavar="KEYFILE", help="the Kafka key of B")
    cmd.add_argument("--all", action="store_true", help="compare checksums and constants too")
    cmd.set_defaults(run=run_command, trouble_status=EXIT_TROUBLE)


def semantic_form(codec, model, record: str, *, computed: bool = False, options=None):
    """The JSON form to compare: without computed fields unless ``computed``."""
    form = codec.to_dict(model)
    if computed or not hasattr(codec, "from_dict"):
        return form
    return codec.to_dict(codec.from_dict(form, record, **(options or {})))


def _sides(args) -> list[tuple[str, str | None, str]]:
    """(value file, key file or None, the option that gives the key) of A and B."""
    if len(args.files) == 4:
        if args.key_a or args.key_b:
            raise CliError("give the keys either as files or as --key-a/--key-b", EXIT_TROUBLE)
        key_a, a, key_b, b = args.files
        return [(a, key_a, "A.key"), (b, key_b, "B.key")]
    if len(args.files) != 2:
        raise CliError(
            f"diff takes two messages (A B) or two Kafka pairs (A.key A.value B.key B.value), "
            f"not {counted(len(args.files), 'file')}",
            EXIT_TROUBLE,
        )
    return [(args.files[0], args.key_a, "--key-a"), (args.files[1], args.key_b, "--key-b")]


def run_command(args) -> int:
    """Print ``path: old -> new`` lines (or ``no differences``); exit 0 if equal, 1 if
    different, 2 on trouble (main() turns every error into 2 for this verb)."""
    forms = []
    for name, key, key_option in _sides(args):
        try:
            target, model = decode_file(args, name, key, key_option)
        except DecodeError as err:
            raise CliError(f"{name}: {error_line(err)}", EXIT_TROUBLE) from None
        forms.append(
            semantic_form(
                target.codec, model, target.record, computed=args.all, options=target.options
            )
        )
    diffs = differences(*forms)
    sys.stdout.write(format_differences(diffs) if diffs else "no differences\n")
    return EXIT_DIFFERENT if diffs else EXIT_SAME
