"""``wirespec transcode``: one TiCDC message from one format to the other, via the events.

Both TiCDC formats decode into the shared event model of :mod:`runtime.ticdc`, so a
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
difference the notes above do not explain is reported too.

    >>> from runtime.ticdc import ResolvedEvent
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

from runtime.errors import EncodeError
from runtime.ticdc import RowChangedEvent

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
    return importlib.import_module("runtime.craft")


def _open_protocol():
    return importlib.import_module("generated.ticdc_open_protocol")


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


def notes(events: list, target: str) -> list[str]:
    """What ``target`` cannot carry of ``events``, one line per event and field."""
    out = []
    for i, ev in enumerate(events):
        where = f"event {i} (ts {ev.commit_ts})"
        if not isinstance(ev, RowChangedEvent):
            continue
        columns = [("new", c) for c in ev.new or []] + [("old", c) for c in ev.old or []]
        if target == CRAFT:
            if ev.row_id is not None:
                out.append(f"{where}: rid={ev.row_id} has no Craft field; dropped")
            if ev.handle_key_only:
                out.append(f"{where}: ohk (handle-key-only) has no Craft field; dropped")
            if ev.claim_check_location is not None:
                out.append(f"{where}: ccl={ev.claim_check_location!r} has no Craft field; dropped")
            for image, c in columns:
                if c.type in _NO_CRAFT_VALUE and c.value is not None:
                    out.append(f"{where}: {image}.{c.name}: Craft writes type {c.type} as NULL")
        else:
            for image, c in columns:
                v = c.value
                if c.type == 4 and isinstance(v, float) and not math.isnan(v) and _float32(v) != v:
                    out.append(f"{where}: {image}.{c.name}: FLOAT {v!r} is rounded to float32")
                if c.type in _STRING_CODES and isinstance(v, bytes) and not c.flags & _FLAG_BINARY:
                    try:
                        v.decode()
                    except UnicodeDecodeError:
                        out.append(
                            f"{where}: {image}.{c.name}: text that is not UTF-8 becomes U+FFFD"
                        )
    return out


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return struct.pack("<d", a) == struct.pack("<d", b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if dataclasses.is_dataclass(a) and type(a) is type(b):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    return a == b


def differences(before: list, after: list) -> list[str]:
    """Fields that changed on the way, per event."""
    if len(before) != len(after):
        return [f"{len(before)} events became {len(after)}"]
    out = []
    for i, (a, b) in enumerate(zip(before, after)):
        if type(a) is not type(b):
            out.append(f"event {i}: {type(a).__name__} became {type(b).__name__}")
            continue
        for f in dataclasses.fields(a):
            x, y = getattr(a, f.name), getattr(b, f.name)
            if not _same(x, y):
                out.append(f"event {i} (ts {a.commit_ts}): {f.name} changed")
    return out


def transcode(source: str, target: str, key: bytes | None, value: bytes):
    """``((key or None, value), warnings)``: the message in ``target``'s format."""
    for fmt in (source, target):
        if fmt not in FORMATS:
            raise ValueError(f"transcode knows {', '.join(FORMATS)}, not {fmt!r}")
    events = decode(source, key, value)
    warnings = notes(events, target)
    out = encode(target, events)
    explained = {w.split(": ")[0] for w in warnings}
    for line in differences(events, decode(target, *out)):
        if line.split(": ")[0] not in explained:
            warnings.append(line)
    return out, warnings
