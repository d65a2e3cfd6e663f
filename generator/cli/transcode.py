"""``wirespec transcode``: one TiCDC message from one format to the other, via the events.

Both TiCDC formats decode into the shared event model of ``generated.models.ticdc_types``, so a
transcode is ``decode(source) -> events -> encode(target)``. It is lossless wherever both
formats carry the information; where the target cannot, the event is still written and
:func:`transcode` returns a warning naming the event and the field:

* Open Protocol -> Craft: ``rid`` (row id), ``ohk`` (handle-key-only) and ``ccl``
  (claim-check location) have no Craft field; ``h`` is the HANDLE_KEY flag, which Craft
  keeps; values of types Craft never carries (NULL, GEOMETRY) are written as NULL.
* Craft -> Open Protocol: a FLOAT that is not a float32 value is rounded to one; text in
  a non-binary string column that is not UTF-8 becomes U+FFFD (Go's JSON writer).
* Either way ``partition`` is the physical partition id in both (Craft's partition
  column, Open Protocol's ``ptn``).

After encoding, the output is decoded again and compared with the input events, so any
difference the notes above do not explain is reported too, by field (a column's type, each
flag lost or added by name, its value; a column dropped or added). Row images are compared
column by column by name: Open Protocol writes columns in name order, Craft in table order,
and that is no loss.

    >>> out, warnings = transcode("ticdc_craft", "ticdc_open_protocol", None,
    ...     bytes.fromhex("018180e0bb9bb6def10503010101021a19010005"))
    >>> out[0][16:], warnings
    (b'{"ts":424316594097225729,"t":3}', [])
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import struct
import sys

from generator.cli.common import (
    EXIT_USAGE,
    CliError,
    counted,
    examples,
    read_input,
    write_output,
)
from generator.cli.target import check_key_option, choose, key_for, load_codec
from runtime.core.errors import EncodeError, did_you_mean

OPEN_PROTOCOL = "ticdc_open_protocol"
CRAFT = "ticdc_craft"
FORMATS = (OPEN_PROTOCOL, CRAFT)
UNBATCHED = {"max_batch_size": 1 << 62, "max_message_bytes": 1 << 62}
_NO_CRAFT_VALUE = {0, 6, 255}  # Craft writes these type codes as NULL
_STRING_CODES = {15, 253, 254}
_FLAG_BINARY = 0x01


def craft_codec():
    """``generated.ticdc_craft`` once it exists, else the runtime codec it wraps."""
    try:
        module = importlib.import_module("generated.ticdc_craft")
    except ModuleNotFoundError as err:
        if err.name != "generated.ticdc_craft":
            raise
        module = None
    if (
        module is not None
        and hasattr(module, "decode_message")
        and hasattr(module, "encode_events")
    ):
        return module
    return importlib.import_module("runtime.formats.craft")


def _open_protocol():
    return importlib.import_module("generated.ticdc_open_protocol")


def _row_changed_event() -> type:
    """The row event class of both formats (specs/ticdc_types.yaml's ``models:``)."""
    return importlib.import_module("generated.models.ticdc_types").RowChangedEvent


def decode(fmt: str, key: bytes | None, value: bytes) -> list:
    """The events of one message of ``fmt`` (the key only for Open Protocol)."""
    if fmt == OPEN_PROTOCOL:
        return _open_protocol().parse_pair(key, value).events
    return list(craft_codec().decode_message(value))


def encode(fmt: str, events: list) -> tuple[bytes | None, bytes]:
    """One message of ``fmt`` holding all ``events``: (key or None, value)."""
    if fmt == OPEN_PROTOCOL:
        op = _open_protocol()
        return op.build_pair(op.Message(list(events), "tiflow"))
    messages = list(craft_codec().encode_events(events, **UNBATCHED))
    if len(messages) != 1:
        raise EncodeError(
            f"Craft puts DDL and resolved events in messages of their own: these "
            f"{len(events)} events make {len(messages)} Craft messages, not one"
        )
    return None, messages[0]


def _float32(x: float) -> float:
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.inf


def _where(i: int, ev) -> str:
    return f"event {i} (ts {ev.commit_ts})"


def _type_name(code: int) -> str:
    """A type code by Open Protocol's column_type name (it has no DECIMAL 0: TiCDC never
    sends it).

    >>> _type_name(255), _type_name(0)
    ('GEOMETRY (255)', '0')
    """
    try:
        return f"{_open_protocol().ColumnType(code).name} ({code})"
    except ValueError:
        return str(code)


def _event_notes(ev, target: str) -> list[tuple[str, str]]:
    """``(field path, what is lost)`` of one row event in ``target``."""
    out = []
    columns = [(f"new.{c.name}", c) for c in ev.new or []]
    columns += [(f"old.{c.name}", c) for c in ev.old or []]
    if target == CRAFT:
        if ev.row_id is not None:
            out.append(("row_id", f"rid={ev.row_id} has no Craft field; dropped"))
        if ev.handle_key_only:
            out.append(("handle_key_only", "ohk (handle-key-only) has no Craft field; dropped"))
        if ev.claim_check_location is not None:
            ccl = ev.claim_check_location
            out.append(("claim_check_location", f"ccl={ccl!r} has no Craft field; dropped"))
        for path, c in columns:
            if c.type in _NO_CRAFT_VALUE and c.value is not None:
                type_name = _type_name(c.type)
                out.append(
                    (path, f"{path}: Craft has no value of type {type_name}; written as NULL")
                )
        return out
    for path, c in columns:
        v = c.value
        if c.type == 4 and isinstance(v, float) and not math.isnan(v) and _float32(v) != v:
            out.append((path, f"{path}: FLOAT {v!r} is rounded to float32"))
        if c.type in _STRING_CODES and isinstance(v, bytes) and not c.flags & _FLAG_BINARY:
            try:
                v.decode()
            except UnicodeDecodeError:
                out.append((path, f"{path}: text that is not UTF-8 becomes U+FFFD"))
    return out


def _notes(events: list, target: str) -> list[tuple[int, str, str]]:
    """``(event index, field path, warning)`` for what ``target`` cannot carry."""
    row = _row_changed_event()
    return [
        (i, path, f"{_where(i, ev)}: {what}")
        for i, ev in enumerate(events)
        if isinstance(ev, row)
        for path, what in _event_notes(ev, target)
    ]


def notes(events: list, target: str) -> list[str]:
    """What ``target`` cannot carry of ``events``, one line per event and field."""
    return [line for _, _, line in _notes(events, target)]


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return struct.pack("<d", a) == struct.pack("<d", b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if dataclasses.is_dataclass(a) and type(a) is type(b):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    return a == b


def _flag_names(bits: int) -> str:
    """``0x41`` -> ``BINARY|NULLABLE`` (Open Protocol's column_flag names)."""
    members = [m for m in _open_protocol().ColumnFlag if m & bits]  # the one-bit flags
    rest = bits & ~sum(m.value for m in members)
    names = [m.name for m in members]
    return "|".join(names + ([f"0x{rest:x}"] if rest else []))


def _column_changes(image: str, before: list, after: list) -> list[tuple[str, str]]:
    """``(path, what changed)`` between two row images, matching columns by name (a
    format that writes them in another order loses nothing)."""
    old, new = {c.name: c for c in before}, {c.name: c for c in after}
    out = []
    for name, a in old.items():
        path = f"{image}.{name}"
        b = new.get(name)
        if b is None:
            out.append((path, "column dropped"))
            continue
        if a.type != b.type:
            out.append((path, f"type {a.type} became {b.type}"))
        if a.flags & ~b.flags:
            out.append((path, f"flag {_flag_names(a.flags & ~b.flags)} lost"))
        if b.flags & ~a.flags:
            out.append((path, f"flag {_flag_names(b.flags & ~a.flags)} added"))
        if not _same(a.value, b.value):
            out.append((path, f"value {a.value!r} became {b.value!r}"))
    out += [(f"{image}.{name}", "column added") for name in new if name not in old]
    return out


def _differences(before: list, after: list) -> list[tuple[int | None, str, str]]:
    """``(event index, field path, warning)`` for every field that changed on the way."""
    if len(before) != len(after):
        return [(None, "", f"{counted(len(before), 'event')} became {len(after)}")]
    out = []
    for i, (a, b) in enumerate(zip(before, after)):
        if type(a) is not type(b):
            out.append((i, "", f"event {i}: {type(a).__name__} became {type(b).__name__}"))
            continue
        for f in dataclasses.fields(a):
            x, y = getattr(a, f.name), getattr(b, f.name)
            if _same(x, y):
                continue
            if f.name in ("new", "old") and isinstance(x, list) and isinstance(y, list):
                for path, change in _column_changes(f.name, x, y):
                    out.append((i, path, f"{_where(i, a)}: {path}: {change}"))
            else:
                out.append((i, f.name, f"{_where(i, a)}: {f.name}: {x!r} became {y!r}"))
    return out


def differences(before: list, after: list) -> list[str]:
    """Fields that changed on the way, per event (column order is no change)."""
    return [line for _, _, line in _differences(before, after)]


def transcode(source: str, target: str, key: bytes | None, value: bytes):
    """``((key or None, value), warnings)``: the message in ``target``'s format."""
    for fmt in (source, target):
        if fmt not in FORMATS:
            raise ValueError(f"transcode knows {', '.join(FORMATS)}, not {fmt!r}")
    events = decode(source, key, value)
    noted = _notes(events, target)
    out = encode(target, events)
    explained = {(i, path) for i, path, _ in noted}
    warnings = [line for _, _, line in noted]
    for i, path, line in _differences(events, decode(target, *out)):
        if (i, path) not in explained:
            warnings.append(line)
    return out, warnings


# -- the command ------------------------------------------------------------------------


def add_parser(verbs) -> None:
    tra = verbs.add_parser(
        "transcode",
        help="re-encode a TiCDC message in the other TiCDC format",
        description="Decode one message of SOURCE into TiCDC events and encode them as one "
        "message of TARGET (ticdc_open_protocol, ticdc_craft). For Open Protocol, IN and OUT "
        "are the Kafka value; its Kafka key is read from --key (default: <stem>.key beside "
        "IN) and written to --key-out. Lossless where both formats carry the information; "
        "every field, flag or type the target cannot carry (rid, ohk, ccl in Craft, say) is "
        "named in a warning on stderr.",
        **examples(
            "wirespec transcode ticdc_craft ticdc_open_protocol samples/ticdc_craft/row_batch.bin"
            " rows.value --key-out rows.key",
            "wirespec transcode ticdc_open_protocol ticdc_craft"
            " samples/ticdc_open_protocol/update.value update.craft",
        ),
    )
    tra.add_argument(
        "source", metavar="SOURCE", help="format of IN: ticdc_open_protocol or ticdc_craft"
    )
    tra.add_argument(
        "target", metavar="TARGET", help="format of OUT: ticdc_open_protocol or ticdc_craft"
    )
    tra.add_argument("input", metavar="IN", help="input message (the Kafka value), or -")
    tra.add_argument("output", metavar="OUT", help="output message (the Kafka value), or -")
    tra.add_argument("--key", metavar="KEYFILE", help="Kafka key of IN (Open Protocol source)")
    tra.add_argument(
        "--key-out",
        metavar="KEYFILE",
        help="where the Kafka key of OUT goes (Open Protocol target)",
    )
    tra.set_defaults(run=run_command)


def run_command(args) -> int:
    for fmt in (args.source, args.target):
        if fmt not in FORMATS:
            raise CliError(
                f"transcode knows {', '.join(FORMATS)}, not {fmt!r}{did_you_mean(fmt, FORMATS)}",
                EXIT_USAGE,
            )
    source = choose(load_codec(args.source), "message", None, None)
    target = choose(load_codec(args.target), "message", None, None)
    check_key_option(source, args.key, "--key")
    check_key_option(target, args.key_out, "--key-out")
    if target.keyed and args.key_out is None:
        raise CliError(f"{args.target} messages have a Kafka key: give --key-out KEYFILE")
    key = read_input(key_for(source, args.input, args.key)) if source.keyed else None
    (out_key, out_value), warnings = transcode(
        args.source, args.target, key, read_input(args.input)
    )
    for line in warnings:
        print(f"wirespec: warning: {line}", file=sys.stderr)
    if out_key is not None:
        write_output(args.key_out, out_key)
    write_output(args.output, out_value)
    return 0
