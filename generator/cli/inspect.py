"""``wirespec inspect``: an annotated hexdump of one message, from the parse itself.

The byte spans come from a :class:`runtime.core.spans.SpanRecorder` that the codec's
constructs report into while they parse (no second walker). A generated module takes
part in one of two ways:

* it exports ``trace(data, record) -> runtime.core.spans.Trace`` (formats whose codec is not a
  tree of constructs: they report from their own primitives), or
* its ``RECORDS`` are constructs built from ``runtime.core.record``, which report by themselves.

The terminal view lists every byte range in reading order, nested as the spec nests, with
its offset, raw bytes, field path and decoded value; ``--html`` writes one self-contained
page with the hex view beside the field tree (hover a field to light up its bytes).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import html
import json
import math
from pathlib import Path

from generator import ROOT
from generator.cli.common import CliError, counted, examples, read_input, stdout_console
from generator.cli.target import (
    add_record_options,
    codec_for,
    format_help,
    key_for,
    target_for_bytes,
)
from runtime.core.codec import OpenEnum, TimeBeside, UuidText, to_jsonable
from runtime.core.codec import trace as trace_construct
from runtime.core.spans import Node, Trace

BYTES_PER_LINE = 16
CONTEXT_BYTES = 16


def trace(codec, data: bytes, record: str) -> Trace:
    """Decode ``data`` with a generated module, recording spans."""
    if hasattr(codec, "trace"):
        result = codec.trace(data, record)
    else:
        result = trace_construct(
            codec.RECORDS[record], data, getattr(codec, "DEFAULT_LIMITS", None)
        )
    result.views = getattr(codec, "JSON_VIEWS", {})
    return result


# -- values as short text ---------------------------------------------------------------


STRUCTURE_ROLES = (
    "tag", "length", "count", "fixed", "field id", "field header", "version",
    "reversed length", "types", "stop", "syntax", "key", "unknown fields (skipped)",
)  # fmt: skip
"""Mark roles that are the format's structure, not a label of the value."""


def show_mark(value, role: str, limit: int = 60) -> str:
    """The value part of a mark (a tag, length, count or what a primitive calls the
    bytes), without the role: the HTML view shows the role as the row's label."""
    if role == "tag" and isinstance(value, int):
        return f"0x{value:02x}"
    if role in ("length", "count") and isinstance(value, int):
        return str(value)
    if role == "fixed" or value is None:
        return ""
    return show_value(value, limit=limit)


def show_value(value, role: str = "value", limit: int = 60, view=None) -> str:
    """A short, exact rendering of a decoded value for one line of the dump, as the JSON
    form shows it (``view``: the field's ``runtime.core.codec`` view, e.g. an enum's name).

    >>> show_value([1]), show_value([]), show_value(300)
    ('[1 item]', '[0 items]', '300 (0x12c)')
    """
    if role == "fixed":
        return "fixed bytes"
    if role != "value":
        return f"{role} {show_mark(value, role, limit)}".rstrip()
    if view is not None and value is not None:
        return _show_viewed(value, view, limit)
    if isinstance(value, enum.Enum):
        return f"{value.name} ({int(value.value)})"
    if isinstance(value, bool) or value is None:
        return str(value).lower() if value is not None else "null"
    if isinstance(value, int):
        return str(value) if -10 < value < 10 else f"{value} (0x{value & (2**64 - 1):x})"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else str(value)
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        return text if len(text) <= limit else text[: limit - 4] + '..."'
    if isinstance(value, (bytes, bytearray, memoryview)):  # the JSON form's {"$hex"}
        hexed = bytes(value).hex()
        return (
            f"0x{hexed}"
            if len(hexed) <= limit
            else f"0x{hexed[:limit - 8]}... ({len(value)} bytes)"
        )
    if isinstance(value, (list, tuple)):
        return f"[{counted(len(value), 'item')}]"
    if isinstance(value, dict) or dataclasses.is_dataclass(value):
        return "{...}"
    try:  # anything else (a UUID, ...) as the JSON form writes it, never a repr
        text = json.dumps(to_jsonable(value), ensure_ascii=False)
    except TypeError:
        text = str(value)
    return text if len(text) <= limit else text[: limit - 4] + '..."'


def _show_viewed(value, view, limit: int) -> str:
    """A value a view shows: an enum name with its number, a UUID, a number and its time."""
    if isinstance(view, TimeBeside):
        time = view.time_of(value) if isinstance(value, int) else None
        return show_value(value, limit=limit) + (f" ({time})" if time else "")
    shown = view.to_json(value)
    if isinstance(view, OpenEnum) and isinstance(value, int):
        if shown in (value, str(value), []):  # no name: the number as it is
            return show_value(value, limit=limit)
        names = shown if isinstance(shown, str) else "|".join(map(str, shown))
        return f"{names} ({value})"
    return show_value(shown, limit=limit)


def view_of(node: Node, views: dict):
    """The view a node's value is shown through: its record's for the field, or the
    list's for an element of a named list (a chunk of type codes)."""
    parent = node.parent
    if not views or parent is None:
        return None
    if isinstance(node.key, str):
        return views.get(type(parent.value), {}).get(node.key)
    owner = view_of(parent, views)
    return owner if isinstance(owner, (OpenEnum, TimeBeside)) else None


def _collapsed(node: Node, views: dict) -> bool:
    """A UUID's 16 elements are one value: one row, not sixteen."""
    return isinstance(view_of(node, views), UuidText)


# -- the rows of the dump -----------------------------------------------------------------


@dataclasses.dataclass
class Row:
    """One line of the dump: a group header (``leaf`` False) or a byte range."""

    start: int
    end: int | None
    depth: int
    path: str
    label: str
    text: str
    role: str = "value"
    leaf: bool = True
    ok: bool = True
    """False for a field that was being read when the parse failed."""


def bit_pattern(value, bits: tuple) -> str:
    """A bit field in its run, as Wireshark shows one: the run's bits most significant
    first (the run read as one integer), the field's as 0/1, the others as dots, in groups
    of four: ``1000 .... = 8``."""
    shift, width, group, _ = bits
    raw = value & ((1 << width) - 1)
    chars = [
        str(raw >> (position - shift) & 1) if shift <= position < shift + width else "."
        for position in reversed(range(8 * group))
    ]
    return " ".join("".join(chars[i : i + 4]) for i in range(0, len(chars), 4))


def _label(node: Node) -> str:
    return node.path or "<message>"


def rows(root: Node, views: dict | None = None) -> list[Row]:
    """The dump in reading order: composite nodes become headers, the rest byte ranges
    (``views``: the module's ``JSON_VIEWS``, to show values as the JSON form does)."""
    out: list[Row] = []
    views = views or {}

    def children_of(node: Node) -> list:
        return [] if _collapsed(node, views) else node.children

    def shown(node: Node, v, role: str = "value") -> str:
        if role in STRUCTURE_ROLES:
            return show_value(v, role)
        text = show_value(v, view=view_of(node, views))
        if node.bits is not None and role == "value" and isinstance(v, int):
            text = f"{bit_pattern(v, node.bits)} = {text}"  # which bits of the run
        return text if role == "value" else f"{role} {text}"  # a primitive's label

    def pieces(node: Node):
        """(start, end, role, value) of the node's own bytes: marks and residual value."""
        items = [(s, e, role, v) for s, e, role, v in node.marks]
        if node.closed:
            covered = sorted(
                [(s, e) for s, e, *_ in items]
                + [(c.start, c.end) for c in children_of(node) if c.closed]
            )
            pos = node.start
            for s, e in covered:
                if s > pos:
                    items.append((pos, s, "value", node.value))
                pos = max(pos, e)
            if node.end > pos:
                items.append((pos, node.end, "value", node.value))
        return items

    def visit(node: Node, depth: int) -> None:
        own = pieces(node)
        if not children_of(node) and node.key is not None:
            for s, e, role, v in sorted(own, key=lambda p: p[0]):
                out.append(Row(s, e, depth, node.path, _label(node), shown(node, v, role), role))
            if not node.closed:
                out.append(
                    Row(
                        node.start,
                        None,
                        depth,
                        node.path,
                        _label(node),
                        "(failed here)",
                        leaf=False,
                        ok=False,
                    )
                )
            return
        if node.key is not None:
            summary = shown(node, node.value) if node.closed else "(unfinished)"
            out.append(
                Row(
                    node.start,
                    node.end,
                    depth,
                    node.path,
                    _label(node),
                    summary,
                    leaf=False,
                    ok=node.closed,
                )
            )
        entries = [(s, 0, (s, e, role, v)) for s, e, role, v in own]
        entries += [(c.start, 1, c) for c in node.children]
        for _, kind, item in sorted(entries, key=lambda x: (x[0], x[1])):
            if kind == 0:
                s, e, role, v = item
                text = shown(node, v, role)
                out.append(Row(s, e, depth + 1, node.path, _label(node), text, role))
            elif item.closed and item.end == item.start and not item.children:
                continue  # an absent optional field: no bytes
            else:
                visit(item, depth + 1)

    visit(root, -1)
    return [r for r in out if not r.leaf or (r.end or 0) > r.start]


# -- terminal ---------------------------------------------------------------------------

_ROLE_STYLE = {"tag": "magenta", "length": "cyan", "count": "cyan", "fixed": "dim"}
_DEPTH_STYLE = ["bold blue", "bold green", "bold yellow", "bold magenta", "bold cyan"]


def render_terminal(result: Trace, console, *, fmt: str = "", record: str = "") -> None:
    """Print the annotated dump (and, on failure, where and why) with ``rich``."""
    from rich.text import Text

    data = result.data
    console.print(Text(f"{fmt} {record}: {len(data)} bytes", style="bold"))
    for row in rows(result.root, result.views):
        indent = "  " * max(row.depth, 0)
        if not row.leaf:
            line = Text(f"{row.start:06x}  " + " " * (BYTES_PER_LINE * 3) + " ")
            style = _DEPTH_STYLE[max(row.depth, 0) % len(_DEPTH_STYLE)] if row.ok else "bold red"
            line.append(indent + row.label, style=style)
            line.append("  " + row.text, style="dim" if row.ok else "red")
            console.print(line, soft_wrap=True)
            continue
        chunk = data[row.start : row.end]
        for i in range(0, max(len(chunk), 1), BYTES_PER_LINE):
            part = chunk[i : i + BYTES_PER_LINE]
            line = Text(f"{row.start + i:06x}  ")
            line.append(
                f"{part.hex(' '):<{BYTES_PER_LINE * 3}} ", style=_ROLE_STYLE.get(row.role, "green")
            )
            if i == 0:
                line.append(indent + row.label)
                line.append(" = " if row.role == "value" else "  ")
                line.append(row.text, style=_ROLE_STYLE.get(row.role, "bold"))
            console.print(line, soft_wrap=True)
    for path in coarse_paths(result):
        console.print(
            Text(
                f"note: {path or '<message>'} is read by a runtime primitive that does not "
                "report its inner byte spans yet",
                style="yellow",
            ),
            soft_wrap=True,
        )
    if result.error is not None:
        render_error(result, console)


def coarse_paths(result: Trace) -> list[str]:
    """Leaves whose value is a whole list or record: a primitive read them in one piece."""
    out = []
    for span in result.leaves():
        value = span.value
        composite = isinstance(value, (list, tuple, dict)) or dataclasses.is_dataclass(value)
        if span.role == "value" and composite and span.path not in out:
            out.append(span.path)
    return out


def render_error(result: Trace, console) -> None:
    from rich.text import Text

    err = result.error
    offset = err.offset
    console.print(Text("decode error", style="bold red"), soft_wrap=True)
    console.print(Text(f"  field:  {err.path or '<message>'}", style="red"), soft_wrap=True)
    console.print(
        Text(f"  offset: {'?' if offset is None else offset}", style="red"), soft_wrap=True
    )
    console.print(Text(f"  reason: {err.message}", style="red"), soft_wrap=True)
    if offset is None:
        return
    data = result.data
    lo = max(0, (offset - CONTEXT_BYTES) // BYTES_PER_LINE * BYTES_PER_LINE)
    hi = min(len(data), offset + CONTEXT_BYTES + 1)
    console.print(Text(f"  bytes around offset {offset}:"), soft_wrap=True)
    for base in range(lo, max(hi, lo + 1), BYTES_PER_LINE):
        line = Text(f"  {base:06x}  ")
        for i in range(base, min(base + BYTES_PER_LINE, hi)):
            line.append(f"{data[i]:02x}", style="bold white on red" if i == offset else "")
            line.append(" ")
        console.print(line, soft_wrap=True)
    if offset >= len(data):
        console.print(
            Text(f"  (the input ends at offset {len(data)})", style="red"), soft_wrap=True
        )


def plain_text(result: Trace, *, fmt: str = "", record: str = "") -> str:
    """The terminal view without colour (what a pipe gets)."""
    import io

    from rich.console import Console

    buf = io.StringIO()
    render_terminal(result, Console(file=buf, no_color=True, width=200), fmt=fmt, record=record)
    return buf.getvalue()


# -- HTML -------------------------------------------------------------------------------


def _tree(node: Node, views: dict) -> dict:
    view = view_of(node, views)
    children = [] if _collapsed(node, views) else node.children
    out = {
        "key": (
            "<message>"
            if node.key is None
            else (f"[{node.key}]" if isinstance(node.key, int) else node.key)
        ),
        "path": node.path,
        "start": node.start,
        "end": node.end,
        "value": show_value(node.value, view=view) if node.closed else "(unfinished)",
        "ok": node.closed,
        "marks": [  # the role is the row's label, the value only its value
            {"start": s, "end": e, "role": _mark_label(role), "value": show_mark(v, role)}
            for s, e, role, v in node.marks
        ],
        "children": [
            _tree(c, views)
            for c in sorted(children, key=lambda c: c.start)
            if not (c.closed and c.end == c.start and not c.children)
        ],
    }
    return out


def _mark_label(role: str) -> str:
    """A mark's role as a label: ``status:`` -> ``status``, ``id: delta +1 ->`` -> ``id: delta +1``."""
    return role.removesuffix("->").strip().removesuffix(":")


def _paths_views(root: Node, views: dict) -> dict:
    """Field path -> the view its value is shown through, for the leaves."""
    out = {}
    for node in root.walk():
        view = view_of(node, views)
        if view is not None:
            out[node.path] = view
    return out


def render_html(result: Trace, *, fmt: str, record: str, source: str = "") -> str:
    """One self-contained page (inline CSS and JS, no network)."""
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(
        loader=FileSystemLoader(str(Path(__file__).parents[1] / "emit" / "templates")),
        autoescape=select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    by_path = _paths_views(result.root, result.views)
    leaves = [
        {
            "start": s.start,
            "end": s.end,
            "path": s.path,
            "role": s.role,
            "value": show_value(s.value, s.role, view=by_path.get(s.path)),
        }
        for s in result.leaves()
    ]
    owner = [-1] * len(result.data)
    for i, leaf in enumerate(leaves):
        for o in range(leaf["start"], leaf["end"]):
            owner[o] = i
    err = result.error
    error = None
    if err is not None:
        error = {"path": err.path or "<message>", "offset": err.offset, "message": err.message}
    lines = []
    for base in range(0, len(result.data), BYTES_PER_LINE):
        lines.append(
            {
                "offset": base,
                "bytes": [
                    (o, f"{result.data[o]:02x}", owner[o], _printable(result.data[o]))
                    for o in range(base, min(base + BYTES_PER_LINE, len(result.data)))
                ],
            }
        )
    payload = {"leaves": leaves, "tree": _tree(result.root, result.views), "error": error}
    return env.get_template("inspect.html.j2").render(
        fmt=fmt,
        record=record,
        source=source,
        size=len(result.data),
        lines=lines,
        error=error,
        data_json=json.dumps(payload, ensure_ascii=False).replace("</", "<\\/"),
        escape=html.escape,
    )


def _printable(b: int) -> str:
    return chr(b) if 0x20 <= b < 0x7F else "."


# -- the command ------------------------------------------------------------------------


def add_parser(verbs) -> None:
    cmd = verbs.add_parser(
        "inspect",
        help="annotated hexdump: every byte with its field path",
        description="Print every byte of one message beside the field it belongs to; a "
        "message that does not decode is shown up to where it fails, and why (exit 1).",
        **examples(
            "wirespec inspect plainbuffer samples/plainbuffer/put_row.bin",
            "wirespec inspect png samples/png/rgba_badge.bin --html badge.html",
        ),
    )
    cmd.add_argument("format", metavar="FORMAT", help=format_help())
    cmd.add_argument("file", metavar="FILE", help="input file, or - for stdin")
    add_record_options(cmd)
    cmd.add_argument("--html", metavar="OUT.html", help="also write a self-contained HTML page")
    cmd.add_argument(
        "--key",
        metavar="KEYFILE",
        help="the Kafka key (ticdc_open_protocol; default: <stem>.key beside FILE)",
    )
    cmd.set_defaults(run=run_command)


def kafka_columns(codec) -> dict[str, str]:
    """Kafka column -> record of a module whose default message is a Kafka key + value
    (its spec's ``kafka_message.columns``): a ``--spec`` module's own spec, else the
    shipped one of ``generated.<format>``.

    >>> import generated.ticdc_open_protocol as op
    >>> kafka_columns(op)
    {'key': 'key_frames', 'value': 'value_frames'}
    """
    module_file = Path(codec.__file__)
    if module_file.suffix in (".yaml", ".yml"):  # rendered in memory from this spec
        return _kafka_columns(str(module_file), str(module_file))
    return _kafka_columns(
        str(ROOT / "specs" / f"{codec.FORMAT}.yaml"), f"specs/{codec.FORMAT}.yaml"
    )


@functools.cache
def _kafka_columns(path: str, display: str) -> dict[str, str]:
    from generator.spec.loader import load
    from generator.spec.validate import build_model

    return dict(build_model(load(Path(path), display)).kafka_message.columns)


def trace_kafka(codec, key: bytes, value: bytes) -> list[tuple[str, str, Trace]]:
    """(column, record, trace) for the key and the value of one Kafka message, the JSON
    members too (a ``kafka_message:``'s codec is :class:`runtime.formats.open_protocol.OpenProtocol`,
    the only runtime module with a ``KafkaCodec``); the whole message's error (JSON level)
    lands on the value's trace."""
    from runtime.formats.open_protocol_inspect import trace_pair

    kafka = codec.RECORDS[codec.KAFKA_RECORD]
    columns = kafka_columns(codec)
    traces = trace_pair(kafka, key, value, **codec.DEFAULT_LIMITS)
    _name_codes(kafka, *traces)
    return [(c, columns[c], t) for c, t in zip(("key", "value"), traces, strict=True)]


def _name_codes(kafka, key: Trace, value: Trace) -> None:
    """Open Protocol codes as the JSON form names them (the spec's enum members, where
    every bit has a name): the key's ``t``, a DDL's ``t`` and a column's ``t`` and ``f``."""

    def enums(doc) -> dict:
        return {k.name: k.enum for k in doc.keys if k.enum is not None}

    images = {k.name for k in kafka.row_doc.keys if k.type == "map"}
    values = {}  # the scalar value documents' enum keys (a DDL's t)
    for event_class in kafka.classes.values():
        if kafka.documents[event_class.document] is not kafka.row_doc:
            values.update(enums(kafka.documents[event_class.document]))
    columns = {kafka.code_key.name: kafka.code_key.enum, kafka.flags_key.name: kafka.flags_key.enum}
    for result, where in (
        (key, {"key": enums(kafka.key_doc)}),
        (value, {"value": values}),
    ):
        for node in result.root.walk():
            parent = node.parent
            if parent is None or not isinstance(node.value, int) or isinstance(node.value, bool):
                continue
            if parent.parent is not None and parent.parent.key in images:
                enum_class = columns.get(node.key)
            else:
                enum_class = where.get(parent.key, {}).get(node.key)
            if enum_class is not None and node.value:
                shown = OpenEnum(enum_class).to_json(node.value)
                named = isinstance(shown, list) and all(isinstance(m, str) for m in shown)
                if isinstance(shown, str) or named:
                    node.value = enum_class(node.value)


def run_command(args) -> int:
    """Print the dump; exit 1 when the message does not decode (after showing why)."""
    codec = codec_for(args)
    data = read_input(args.file)
    target = target_for_bytes(codec, args, data)
    codec, record = target.codec, target.record
    if target.keyed:
        return _run_kafka(args, codec, read_input(key_for(target, args.file, args.key)), data)
    if args.key is not None:
        raise CliError("--key is only for formats whose messages have a Kafka key", 2)
    if target.options:  # a Thrift message with --struct: its body as that struct
        result = codec.trace(data, record, **target.options)
    else:
        result = trace(codec, data, record)
    if args.html:
        page = render_html(result, fmt=codec.FORMAT, record=record, source=args.file)
        try:
            Path(args.html).write_text(page, encoding="utf-8")
        except OSError as err:
            raise CliError(f"cannot write {args.html}: {err.strerror}") from None
    render_terminal(result, stdout_console(), fmt=codec.FORMAT, record=record)
    return 0 if result.error is None else 1


def _run_kafka(args, codec, key: bytes, value: bytes) -> int:
    parts = trace_kafka(codec, key, value)
    console = stdout_console()
    for column, record, result in parts:
        render_terminal(result, console, fmt=f"{codec.FORMAT} {column}", record=record)
    if args.html:
        for column, record, result in parts:
            out = Path(args.html)
            if column != "value":
                out = out.with_name(f"{out.stem}.{column}{out.suffix}")
            page = render_html(
                result, fmt=f"{codec.FORMAT} {column}", record=record, source=args.file
            )
            try:
                out.write_text(page, encoding="utf-8")
            except OSError as err:
                raise CliError(f"cannot write {out}: {err.strerror}") from None
    return 0 if all(t.error is None for _, _, t in parts) else 1
