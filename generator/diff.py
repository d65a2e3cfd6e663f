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

EXIT_SAME, EXIT_DIFFERENT, EXIT_UNDECODABLE = 0, 1, 2


def add_parser(verbs) -> None:
    cmd = verbs.add_parser("diff", help="field paths whose values differ between two messages")
    cmd.add_argument("format")
    cmd.add_argument("a", help="first message file")
    cmd.add_argument("b", help="second message file")
    cmd.add_argument("--record", "--struct", dest="record", help="record (default: the spec's)")
    cmd.add_argument("--all", action="store_true", help="compare checksums and constants too")
    cmd.set_defaults(run=run_command)


def semantic_form(codec, model, record: str, *, computed: bool = False):
    """The JSON form to compare: without computed fields unless ``computed``."""
    form = codec.to_dict(model)
    if computed or not hasattr(codec, "from_dict"):
        return form
    return codec.to_dict(codec.from_dict(form, record))


def run_command(args) -> int:
    """Print ``path: old -> new`` lines; exit 0 if equal, 1 if different, 2 if one of
    the messages does not decode."""
    import sys

    from runtime.errors import DecodeError

    from .cli import _read_input, _record, load_codec

    codec = load_codec(args.format)
    record = _record(codec, args.record)
    forms = []
    for name in (args.a, args.b):
        try:
            model = codec.parse(_read_input(name), record)
            forms.append(semantic_form(codec, model, record, computed=args.all))
        except DecodeError as err:
            offset = "?" if err.offset is None else err.offset
            print(
                f"wirespec: cannot decode {name}: {err.message} (offset {offset}, field "
                f"{err.path or '<message>'})",
                file=sys.stderr,
            )
            return EXIT_UNDECODABLE
    diffs = differences(*forms)
    sys.stdout.write(format_differences(diffs))
    return EXIT_DIFFERENT if diffs else EXIT_SAME
