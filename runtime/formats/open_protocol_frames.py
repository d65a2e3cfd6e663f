"""TiCDC Open Protocol's Kafka message: the framing of its events
(``specs/ticdc_open_protocol.yaml``, records ``key_frames``/``value_frames``; the compiled
tier reads them by their plans, this is the Python tier's exact reader; how events are
batched into messages is the spec's ``kafka_message: batch:``).

The key is a u64 batch version, then per event a u64 length and its key JSON document; the
value has a u64 length and a value JSON document per event. The two are walked in
lock-step:

    >>> key, value = join_frames([(b'{"t":3}', b"")])
    >>> split_frames(key, value, Limits())
    [(16, 23, 8, 8)]
"""

from __future__ import annotations

import struct

from runtime.core.errors import DecodeError, LimitError
from runtime.core.limits import Limits
from runtime.formats import gojson

BATCH_VERSION = 1

ESCAPES = ("short", "unicode")
"""How a message writes U+0008 and U+000C in JSON strings: ``short`` (``\\b``, ``\\f``: TiCDC
built with Go >= 1.22) or ``unicode`` (``\\u0008``, ``\\u000c``: older Go)."""


# ---------------------------------------------------------------------------- framing

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


def _whole_frames(key: bytes, value: bytes, limits: Limits) -> list[tuple[int, int, int, int]]:
    """The frames :func:`split_frames` returns, up to the first that is short, too long
    or over a limit (that one, the checked loop there reads and names)."""
    frames = []
    kpos, vpos = 8, 0
    klen, vlen, max_count, max_string = len(key), len(value), limits.max_count, limits.max_string
    while kpos + 8 <= klen and vpos + 8 <= vlen and len(frames) < max_count:
        (kn,) = _U64.unpack_from(key, kpos)
        (vn,) = _U64.unpack_from(value, vpos)
        ks, vs = kpos + 8, vpos + 8
        if kn > max_string or vn > max_string or ks + kn > klen or vs + vn > vlen:
            break
        kpos, vpos = ks + kn, vs + vn
        frames.append((ks, kpos, vs, vpos))
    return frames


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
    frames = _whole_frames(key, value, limits)
    kpos, vpos = (frames[-1][1], frames[-1][3]) if frames else (8, 0)
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
        for stream, start, end in (("key", ks, kpos), ("value", vs, vpos)):
            if end - start > limits.max_string:  # a document is one string
                err = LimitError(
                    f"{end - start} exceeds the limit max_string={limits.max_string}",
                    offset=start - 8,
                )
                err.add_path(stream)
                err.add_path("events", index=index)
                raise err
        frames.append((ks, kpos, vs, vpos))
    return frames


def join_frames(pairs: list[tuple]) -> tuple[bytes, bytes]:
    """The Kafka key and value for events' (key JSON, value JSON) pairs, or any tuples that
    end with them (the codec's parts of an event, its type code first).

    >>> join_frames([(b"{}", b"")])
    (b'\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02{}', b'\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00')
    """
    key = [_U64.pack(BATCH_VERSION)]
    value = []
    for *_, k, v in pairs:
        key += (_U64.pack(len(k)), k)
        value += (_U64.pack(len(v)), v)
    return b"".join(key), b"".join(value)


def _escapes(key: bytes, value: bytes, frames) -> str | None:
    """The :data:`ESCAPES` member a message's U+0008/U+000C escapes are written in, or
    None when it has none. One Go program writes a message, so both kinds in one is a
    :class:`DecodeError` (no writer makes it, and it could not be written back)."""
    if not (gojson.may_hold_control_escape(key) or gojson.may_hold_control_escape(value)):
        return None
    found = None
    for index, (ks, ke, vs, ve) in enumerate(frames):
        for stream, data, start in (("key", key[ks:ke], ks), ("value", value[vs:ve], vs)):
            for offset, short in gojson.control_escapes(data):
                style = ESCAPES[0] if short else ESCAPES[1]
                if found is None:
                    found = style, f"events[{index}].{stream}", start + offset
                elif style != found[0]:
                    raise DecodeError(
                        f"{style} control escape, but {found[1]} at offset {found[2]} has a "
                        f"{found[0]} one: one Go version writes a message",
                        offset=start + offset,
                        path=f"events[{index}].{stream}",
                    )
    return None if found is None else found[0]
