"""TiCDC Open Protocol: Kafka key/value pairs <-> :mod:`runtime.ticdc` events.

One Kafka message is one batch. The wire framing (big-endian lengths around JSON
documents) is kept apart from the JSON semantics, so the framing can later come from a
spec; ``KEY_FRAME`` and ``VALUE_FRAME`` describe it as construct objects.

    >>> key = bytes.fromhex("0000000000000001" "000000000000001f") + b'{"ts":415508856908021766,"t":3}'
    >>> decode_message(key, bytes(8))
    [ResolvedEvent(commit_ts=415508856908021766)]
    >>> [(k == key, v) for k, v in encode_events(decode_message(key, bytes(8)))]
    [(True, b'\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00')]

Decoding accepts every layout TiCDC has written: tiflow's (HTML-escaped Go
``encoding/json``, columns sorted bytewise), the 2020 legacy layout (no ``f``; VARCHAR
and CHAR bytes in base64), and the pingcap/ticdc rewrite (other key order, no HTML
escaping, columns in table order). Encoding writes tiflow's bytes (``layout="tiflow"``,
Go >= 1.22) or the 2020 ones (``layout="legacy"``).

Errors name the stream offset where the failing frame or JSON document starts (or the
byte where JSON parsing stopped) and a path such as ``events[1].value.u.id.v``.
"""

from __future__ import annotations

import base64
import binascii
import struct
from collections.abc import Iterable, Iterator

from construct import Const, GreedyBytes, GreedyRange, Int64ub, Prefixed, Struct, Terminated

from . import gojson
from .errors import DecodeError, EncodeError
from .limits import DEFAULT as DEFAULT_LIMITS
from .limits import Limits
from .ticdc import (
    FLAG_BINARY,
    FLAG_HANDLE_KEY,
    FLAG_UNSIGNED,
    Column,
    DdlEvent,
    Event,
    ResolvedEvent,
    RowChangedEvent,
)

# ---------------------------------------------------------------------------- type table
#
# MySQL type code -> (name, how ``v`` is rendered). This table moves to the YAML spec.
#
#   int     JSON integer: int64, or uint64 when the column flag has UNSIGNED (0x80).
#           A JSON string is also kept (as ``str``): Go passes an interface{} through,
#           and upstream's own fixtures put strings in TINYINT columns.
#   uint    JSON integer, always uint64 (BIT, ENUM index, SET bitmask).
#   float32 Go float32 shortest digits; the model holds the float32 value.
#   float64 Go float64 shortest digits; ``1.0`` is written ``1``.
#   text    JSON string, model ``str`` (DECIMAL with full scale, dates, times, JSON text).
#   string  model ``bytes``: UTF-8 text as-is; with BINARY (0x01) strconv.Quote'd;
#           base64 in the 2020 legacy layout (no ``f`` in the column).
#   base64  model ``bytes``, standard base64 with padding (BLOB codes, also TEXT kinds).
#   raw     whatever JSON scalar is there (NULL type, GEOMETRY, codes TiCDC never sends).
COLUMN_TYPES: dict[int, tuple[str, str]] = {
    1: ("TINYINT", "int"),
    2: ("SMALLINT", "int"),
    3: ("INT", "int"),
    4: ("FLOAT", "float32"),
    5: ("DOUBLE", "float64"),
    6: ("NULL", "raw"),
    7: ("TIMESTAMP", "text"),
    8: ("BIGINT", "int"),
    9: ("MEDIUMINT", "int"),
    10: ("DATE", "text"),
    11: ("TIME", "text"),
    12: ("DATETIME", "text"),
    13: ("YEAR", "int"),
    14: ("NEWDATE", "text"),
    15: ("VARCHAR", "string"),
    16: ("BIT", "uint"),
    225: ("VECTOR_FLOAT32", "text"),
    245: ("JSON", "text"),
    246: ("DECIMAL", "text"),
    247: ("ENUM", "uint"),
    248: ("SET", "uint"),
    249: ("TINYBLOB", "base64"),
    250: ("MEDIUMBLOB", "base64"),
    251: ("LONGBLOB", "base64"),
    252: ("BLOB", "base64"),
    253: ("VAR_STRING", "string"),
    254: ("STRING", "string"),
    255: ("GEOMETRY", "raw"),
}

MESSAGE_ROW, MESSAGE_DDL, MESSAGE_RESOLVED = 1, 2, 3
"""Key ``t``: the event kind."""

BATCH_VERSION = 1
MAX_BATCH_SIZE = 16
"""tiflow's default ``max-batch-size``: events per Kafka message."""
MAX_MESSAGE_BYTES = 10 * 1024 * 1024
"""tiflow's ``DefaultMaxMessageBytes``."""
RECORD_OVERHEAD = 36
"""sarama's per-record bound (5 * MaxVarintLen32 + MaxVarintLen64 + 1) tiflow adds."""
EVENT_OVERHEAD = 16
"""The two u64 lengths each event adds to a message."""
LAYOUTS = ("tiflow", "legacy")

INT64 = (-(1 << 63), (1 << 63) - 1)
UINT64 = (0, (1 << 64) - 1)
_WIDE = (INT64[0], UINT64[1])  # legacy columns carry no flags, so no signedness either

# ---------------------------------------------------------------------------- framing

EVENT_FRAME = Prefixed(Int64ub, GreedyBytes)
"""One event's key or value: u64 big-endian length, then that many bytes of JSON."""
KEY_FRAME = Struct(
    "version" / Const(BATCH_VERSION, Int64ub), "events" / GreedyRange(EVENT_FRAME), Terminated
)
"""The Kafka key: batch version 1, then the events' keys."""
VALUE_FRAME = Struct("events" / GreedyRange(EVENT_FRAME), Terminated)
"""The Kafka value: the events' values, in the keys' order (resolved: length 0)."""

_U64 = struct.Struct(">Q")


def _read_frame(data: bytes, pos: int, stream: str, index: int) -> tuple[int, int]:
    """Bounds of the length-prefixed document at ``pos``: (start, end)."""
    if len(data) - pos < 8:
        err = DecodeError(f"truncated length: needs 8 bytes, {len(data) - pos} remain", offset=pos)
    else:
        (length,) = _U64.unpack_from(data, pos)
        if length <= len(data) - pos - 8:
            return pos + 8, pos + 8 + length
        err = DecodeError(
            f"length {length} goes beyond the data: {len(data) - pos - 8} bytes remain",
            offset=pos,
        )
    err.add_path(stream)
    err.add_path("events", index=index)
    raise err


def split_frames(key: bytes, value: bytes, limits: Limits) -> list[tuple[int, int, int, int]]:
    """Walk key and value in lock-step: (key start, key end, value start, value end) per event.

    >>> split_frames(bytes.fromhex("0000000000000001 0000000000000002") + b"{}",
    ...              bytes.fromhex("0000000000000000"), Limits())
    [(16, 18, 8, 8)]
    """
    limits.check("max_message_bytes", max(len(key), len(value)), offset=0)
    if len(key) < 8:
        raise DecodeError(f"truncated batch version: {len(key)} bytes", offset=0, path="version")
    (version,) = _U64.unpack_from(key, 0)
    if version != BATCH_VERSION:
        raise DecodeError(f"batch version {version}, expected 1", offset=0, path="version")
    frames = []
    kpos, vpos = 8, 0
    while kpos < len(key) or vpos < len(value):
        index = len(frames)
        limits.check("max_count", index + 1, offset=kpos)
        if kpos == len(key):
            raise DecodeError(
                "the key has no more events", offset=kpos, path=f"events[{index}].key"
            )
        if vpos == len(value):
            msg = "the value has no more events"
            raise DecodeError(msg, offset=vpos, path=f"events[{index}].value")
        ks, kpos = _read_frame(key, kpos, "key", index)
        vs, vpos = _read_frame(value, vpos, "value", index)
        frames.append((ks, kpos, vs, vpos))
    return frames


def join_frames(pairs: list[tuple[bytes, bytes]]) -> tuple[bytes, bytes]:
    """The Kafka key and value for events' (key JSON, value JSON) pairs.

    >>> join_frames([(b"{}", b"")])
    (b'\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02{}', b'\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00')
    """
    key = [_U64.pack(BATCH_VERSION)]
    value = []
    for k, v in pairs:
        key += (_U64.pack(len(k)), k)
        value += (_U64.pack(len(v)), v)
    return b"".join(key), b"".join(value)


# ---------------------------------------------------------------------------- JSON reading


def _fail(message: str, path: str) -> DecodeError:
    return DecodeError(message, offset=0, path=path)


def _object(doc, path: str) -> dict:
    if type(doc) is not dict:
        raise _fail(f"expected a JSON object, got {_json_kind(doc)}", path)
    return doc


_JSON_KINDS = {dict: "object", list: "array", str: "string", bool: "boolean", float: "number"}


def _json_kind(v) -> str:
    return "null" if v is None else _JSON_KINDS.get(type(v), "integer")


def _int_in(v, bounds: tuple[int, int], path: str) -> int:
    if type(v) is not int:
        raise _fail(f"expected an integer, got {_json_kind(v)}", path)
    if not bounds[0] <= v <= bounds[1]:
        raise _fail(f"{v} is outside [{bounds[0]}, {bounds[1]}]", path)
    return v


def _opt(obj: dict, name: str, kind: type, path: str):
    """``obj[name]`` if present and of JSON type ``kind``; None when absent."""
    v = obj.get(name)
    if v is None or type(v) is kind:
        return v
    raise _fail(f"expected a {_JSON_KINDS[kind]}, got {_json_kind(v)}", f"{path}{name}")


def _opt_int64(obj: dict, name: str) -> int | None:
    v = obj.get(name)
    return None if v is None else _int_in(v, INT64, name)


def _decode_key(obj: dict) -> dict:
    """The key fields, checked: ts, t, scm, tbl, rid, ptn, ohk, ccl (absent -> None)."""
    if "ts" not in obj:
        raise _fail("missing commit ts", "ts")
    return {
        "ts": _int_in(obj["ts"], UINT64, "ts"),
        "t": _int_in(obj.get("t"), (MESSAGE_ROW, MESSAGE_RESOLVED), "t"),
        "scm": _opt(obj, "scm", str, ""),
        "tbl": _opt(obj, "tbl", str, ""),
        "rid": _opt_int64(obj, "rid"),
        "ptn": _opt_int64(obj, "ptn"),
        "ohk": _opt(obj, "ohk", bool, "") or False,
        "ccl": _opt(obj, "ccl", str, ""),
    }


def _value_int(v, flags: int, legacy: bool, path: str):
    if type(v) is str:
        return v
    bounds = _WIDE if legacy else (UINT64 if flags & FLAG_UNSIGNED else INT64)
    return _int_in(v, bounds, path)


def _value_float(v, path: str) -> float:
    if type(v) not in (int, float):
        raise _fail(f"expected a number, got {_json_kind(v)}", path)
    try:
        x = float(v)
    except OverflowError:
        x = float("inf")
    if x in (float("inf"), float("-inf")):
        raise _fail(f"{v} is out of float64 range", path)
    return x


def _value_float32(v, path: str) -> float:
    try:
        return gojson.to_float32(_value_float(v, path))
    except OverflowError:
        raise _fail(f"{v} is out of float32 range", path) from None


def _value_str(v, path: str) -> str:
    if type(v) is not str:
        raise _fail(f"expected a string, got {_json_kind(v)}", path)
    return v


def _b64(v, path: str) -> bytes:
    text = _value_str(v, path)
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise _fail("invalid base64", path) from None
    if base64.b64encode(data).decode() != text:  # Go's StdEncoding is strict about padding
        raise _fail("non-canonical base64", path)
    return data


def _value_string(v, flags: int, legacy: bool, path: str) -> bytes:
    if legacy:
        return _b64(v, path)
    text = _value_str(v, path)
    if flags & FLAG_BINARY:
        try:
            return gojson.go_unquote(text)
        except DecodeError as err:
            raise _fail(f"bad strconv.Quote text: {err.message}", path) from None
    return text.encode()  # gojson.loads leaves no lone surrogates


def _value_raw(v, path: str):
    if v is not None and type(v) not in (int, float, str):
        raise _fail(f"expected a JSON scalar, got {_json_kind(v)}", path)
    return v


def _decode_value(kind: str, v, flags: int, legacy: bool, path: str):
    if v is None:
        return None
    if kind == "int":
        return _value_int(v, flags, legacy, path)
    if kind == "uint":
        return _int_in(v, UINT64, path)
    if kind == "float32":
        return _value_float32(v, path)
    if kind == "float64":
        return _value_float(v, path)
    if kind == "text":
        return _value_str(v, path)
    if kind == "string":
        return _value_string(v, flags, legacy, path)
    if kind == "base64":
        return _b64(v, path)
    return _value_raw(v, path)


def _decode_column(name: str, obj, path: str) -> Column:
    obj = _object(obj, path)
    code = _int_in(obj.get("t"), (0, 255), path + ".t")
    flags = obj.get("f")
    legacy = flags is None
    handle = _opt(obj, "h", bool, path + ".")
    if legacy:
        flags = FLAG_HANDLE_KEY if handle else 0
    else:
        _int_in(flags, UINT64, path + ".f")
        if handle is not None and handle != bool(flags & FLAG_HANDLE_KEY):
            raise _fail(f"h={str(handle).lower()} disagrees with f={flags}", path + ".h")
    if "v" not in obj:
        raise _fail("missing column value", path + ".v")
    kind = COLUMN_TYPES.get(code, ("", "raw"))[1]
    return Column(name, code, flags, _decode_value(kind, obj["v"], flags, legacy, path + ".v"))


def _decode_columns(obj: dict, section: str) -> list[Column] | None:
    cols = obj.get(section)
    if cols is None:
        return None
    cols = _object(cols, section)
    return [_decode_column(name, c, f"{section}.{name}") for name, c in cols.items()]


def _decode_row(key: dict, obj: dict) -> RowChangedEvent:
    new, old, deleted = (_decode_columns(obj, s) for s in ("u", "p", "d"))
    if deleted is not None and (new is not None or old is not None):
        raise _fail("a delete ('d') carries no 'u' or 'p'", "d")
    if old is not None and new is None:
        raise _fail("an update's old row ('p') comes with its new row ('u')", "p")
    if deleted is None and new is None:
        new = []
    return RowChangedEvent(
        commit_ts=key["ts"],
        schema=key["scm"],
        table=key["tbl"],
        partition=key["ptn"],
        new=new,
        old=deleted if deleted is not None else old,
        row_id=key["rid"],
        handle_key_only=key["ohk"],
        claim_check_location=key["ccl"],
    )


def _decode_ddl(key: dict, obj: dict) -> DdlEvent:
    query = obj.get("q")
    if query is None:
        raise _fail("missing DDL query", "q")
    return DdlEvent(
        commit_ts=key["ts"],
        schema=key["scm"],
        table=key["tbl"],
        ddl_type=_int_in(obj.get("t"), INT64, "t"),
        query=_value_str(query, "q"),
    )


def _load(data: bytes, start: int, end: int, stream: str) -> dict:
    """Parse and type-check one JSON document; errors carry its absolute offset."""
    try:
        return _object(gojson.loads(data[start:end]), "")
    except DecodeError as err:
        err.shift(start)
        err.add_path(stream)
        raise


def _decode_event(key: bytes, value: bytes, frame: tuple[int, int, int, int]) -> Event:
    ks, ke, vs, ve = frame
    kobj = _load(key, ks, ke, "key")
    try:
        fields = _decode_key(kobj)
    except DecodeError as err:
        err.shift(ks)
        err.add_path("key")
        raise
    if fields["t"] == MESSAGE_RESOLVED:
        if ve != vs:
            raise DecodeError("a resolved event has no value", offset=vs, path="value")
        return ResolvedEvent(fields["ts"])
    vobj = _load(value, vs, ve, "value")
    try:
        if fields["t"] == MESSAGE_DDL:
            return _decode_ddl(fields, vobj)
        return _decode_row(fields, vobj)
    except DecodeError as err:
        err.shift(vs)
        err.add_path("value")
        raise


def decode_message(key: bytes, value: bytes, **limits) -> list[Event]:
    """All events of one Kafka message, in order.

    ``limits`` are :class:`runtime.limits.Limits` fields (``max_count`` caps the events,
    ``max_message_bytes`` each of key and value). Bad input raises only
    :class:`DecodeError` (or its :class:`LimitError`), with offset and path:

        >>> decode_message(bytes(8), b"")
        Traceback (most recent call last):
        ...
        runtime.errors.DecodeError: version at offset 0: batch version 0, expected 1
    """
    key, value = bytes(key), bytes(value)
    frames = split_frames(key, value, Limits.from_kwargs(limits) if limits else DEFAULT_LIMITS)
    events = []
    for index, frame in enumerate(frames):
        try:
            events.append(_decode_event(key, value, frame))
        except DecodeError as err:
            err.add_path("events", index=index)
            raise
    return events


# ---------------------------------------------------------------------------- JSON writing


def _check_int(v, bounds: tuple[int, int], path: str) -> int:
    if type(v) is not int or not bounds[0] <= v <= bounds[1]:
        raise EncodeError(
            f"expected an integer in [{bounds[0]}, {bounds[1]}], got {v!r}", path=path
        )
    return v


def _check_str(v, path: str) -> str:
    if type(v) is not str:
        raise EncodeError(f"expected str, got {type(v).__name__}", path=path)
    return v


def _encode_key(ts, t: int, schema=None, table=None, **extra) -> bytes:
    """tiflow's key: ts, scm, tbl, rid, ptn, t, ohk, ccl; empty ones left out (omitempty)."""
    parts = ['{"ts":', str(_check_int(ts, UINT64, "commit_ts"))]
    if schema:
        parts += (',"scm":', gojson.quote_str(_check_str(schema, "schema")))
    if table:
        parts += (',"tbl":', gojson.quote_str(_check_str(table, "table")))
    if extra.get("row_id"):
        parts += (',"rid":', str(_check_int(extra["row_id"], INT64, "row_id")))
    if extra.get("partition") is not None:  # a *int64: present even when 0
        parts += (',"ptn":', str(_check_int(extra["partition"], INT64, "partition")))
    parts += (',"t":', str(t))
    if extra.get("handle_key_only"):
        parts.append(',"ohk":true')
    if extra.get("claim_check_location"):
        ccl = _check_str(extra["claim_check_location"], "claim_check_location")
        parts += (',"ccl":', gojson.quote_str(ccl))
    parts.append("}")
    return "".join(parts).encode()


def _render_float(v, fmt, path: str) -> str:
    if type(v) not in (int, float):
        raise EncodeError(f"expected float, got {type(v).__name__}", path=path)
    try:
        return fmt(float(v))
    except (ValueError, OverflowError) as err:
        raise EncodeError(str(err), path=path) from None


def _render_bytes(v, path: str) -> bytes:
    if type(v) is not bytes:
        raise EncodeError(f"expected bytes, got {type(v).__name__}", path=path)
    return v


def _render_value(kind: str, v, flags: int, layout: str, path: str) -> str:
    """``v`` of a column whose type renders as ``kind``, as JSON text."""
    go122 = layout == "tiflow"
    if v is None:
        return "null"
    if type(v) is str and kind in ("int", "text", "raw"):
        return gojson.quote_str(v, go122=go122)
    if kind == "int":
        return str(_check_int(v, UINT64 if flags & FLAG_UNSIGNED else INT64, path))
    if kind == "uint":
        return str(_check_int(v, UINT64, path))
    if kind == "float32":
        return _render_float(v, gojson.format_float32, path)
    if kind == "float64":
        return _render_float(v, gojson.format_float64, path)
    if kind == "text":
        raise EncodeError(f"expected str, got {type(v).__name__}", path=path)
    if kind == "base64" or (kind == "string" and layout == "legacy"):
        return '"' + base64.b64encode(_render_bytes(v, path)).decode() + '"'
    if kind == "string":
        if flags & FLAG_BINARY:
            return gojson.quote_str(gojson.go_quote(_render_bytes(v, path)), go122=go122)
        return gojson.quote_utf8(_render_bytes(v, path), go122=go122)
    if type(v) is int:
        return str(_check_int(v, _WIDE, path))
    if type(v) is float:
        return _render_float(v, gojson.format_float64, path)
    raise EncodeError(f"expected int, float, str or None, got {type(v).__name__}", path=path)


def _encode_column(c: Column, layout: str, path: str) -> str:
    code = _check_int(c.type, (0, 255), path + ".type")
    flags = _check_int(c.flags, UINT64, path + ".flags")
    parts = [gojson.quote_str(_check_str(c.name, path + ".name")), ':{"t":', str(code)]
    if flags & FLAG_HANDLE_KEY:
        parts.append(',"h":true')
    if layout != "legacy":
        parts += (',"f":', str(flags))
    kind = COLUMN_TYPES.get(code, ("", "raw"))[1]
    parts += (',"v":', _render_value(kind, c.value, flags, layout, path + ".value"), "}")
    return "".join(parts)


def _encode_columns(section: str, cols: list[Column], layout: str, path: str) -> str:
    """``"u":{...}`` with columns sorted bytewise by name, as Go marshals a map."""
    if type(cols) is not list:
        raise EncodeError(f"expected a list of Column, got {type(cols).__name__}", path=path)
    rendered = {}
    for i, c in enumerate(cols):
        if not isinstance(c, Column):
            raise EncodeError(f"expected Column, got {type(c).__name__}", path=f"{path}[{i}]")
        name = _check_str(c.name, f"{path}[{i}].name").encode("utf-8", "surrogatepass")
        if name in rendered:
            raise EncodeError(f"duplicate column {c.name!r}", path=f"{path}[{i}].name")
        rendered[name] = _encode_column(c, layout, f"{path}[{i}]")
    return f'"{section}":{{' + ",".join(rendered[n] for n in sorted(rendered)) + "}"


def _encode_row_value(ev: RowChangedEvent, layout: str) -> bytes:
    """``{"u":..,"p":..}`` for inserts and updates, ``{"d":..}`` for deletes; empty
    sections are left out (omitempty)."""
    if ev.op == "delete":
        sections = [("d", ev.old, "old")]
    else:
        sections = [("u", ev.new, "new"), ("p", ev.old, "old")]
    parts = [_encode_columns(name, cols, layout, path) for name, cols, path in sections if cols]
    return ("{" + ",".join(parts) + "}").encode()


def encode_event(ev: Event, layout: str = "tiflow") -> tuple[bytes, bytes]:
    """One event's key JSON and value JSON, byte for byte as TiCDC writes them.

    >>> encode_event(DdlEvent(7, "s", None, 1, "CREATE DATABASE s"))
    (b'{"ts":7,"scm":"s","t":2}', b'{"q":"CREATE DATABASE s","t":1}')
    """
    if isinstance(ev, ResolvedEvent):
        return _encode_key(ev.commit_ts, MESSAGE_RESOLVED), b""
    if isinstance(ev, DdlEvent):
        key = _encode_key(ev.commit_ts, MESSAGE_DDL, ev.schema, ev.table)
        query = gojson.quote_str(_check_str(ev.query, "query"), go122=layout == "tiflow")
        ddl_type = _check_int(ev.ddl_type, INT64, "ddl_type")
        return key, f'{{"q":{query},"t":{ddl_type}}}'.encode()
    if isinstance(ev, RowChangedEvent):
        key = _encode_key(
            ev.commit_ts,
            MESSAGE_ROW,
            ev.schema,
            ev.table,
            row_id=ev.row_id,
            partition=ev.partition,
            handle_key_only=ev.handle_key_only,
            claim_check_location=ev.claim_check_location,
        )
        return key, _encode_row_value(ev, layout)
    raise EncodeError(f"expected a TiCDC event, got {type(ev).__name__}")


class _Batch:
    """The open Kafka message and its size as tiflow counts it (``Message.Length()``)."""

    def __init__(self):
        self.pairs: list[tuple[bytes, bytes]] = []
        self.length = 8 + RECORD_OVERHEAD  # the version header and sarama's overhead

    def add(self, key: bytes, value: bytes) -> None:
        self.pairs.append((key, value))
        self.length += EVENT_OVERHEAD + len(key) + len(value)


def encode_events(
    events: Iterable[Event],
    *,
    max_batch_size: int = MAX_BATCH_SIZE,
    max_message_bytes: int = MAX_MESSAGE_BYTES,
    layout: str = "tiflow",
) -> Iterator[tuple[bytes, bytes]]:
    """Kafka (key, value) messages for ``events``, batched exactly as tiflow batches them.

    Rows share a message until it holds ``max_batch_size`` events or the next row would
    push its ``Length()`` past ``max_message_bytes``. DDL and resolved events close the
    open message and go alone. A row that cannot fit even alone raises
    :class:`EncodeError`.

        >>> rows = [RowChangedEvent(i, "a", "b", new=[]) for i in range(3)]
        >>> len(list(encode_events(rows, max_batch_size=2)))
        2
    """
    if layout not in LAYOUTS:
        raise EncodeError(f"unknown layout {layout!r}; known: {LAYOUTS}")
    batch = _Batch()
    for index, ev in enumerate(events):
        try:
            key, value = encode_event(ev, layout)
        except EncodeError as err:
            err.add_path("events", index=index)
            raise
        if not isinstance(ev, RowChangedEvent):
            if batch.pairs:
                yield join_frames(batch.pairs)
                batch = _Batch()
            yield join_frames([(key, value)])
            continue
        size = len(key) + len(value) + RECORD_OVERHEAD + 2 * 8 + 8
        if size > max_message_bytes:
            msg = f"message of {size} bytes exceeds max_message_bytes={max_message_bytes}"
            raise EncodeError(msg, path=f"events[{index}]")
        full = len(batch.pairs) >= max_batch_size
        if batch.pairs and (full or batch.length + len(key) + len(value) + 16 > max_message_bytes):
            yield join_frames(batch.pairs)
            batch = _Batch()
        batch.add(key, value)
    if batch.pairs:
        yield join_frames(batch.pairs)
