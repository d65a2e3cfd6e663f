"""The input kind of one file: one raw message, length-delimited frames, a framed file, or
Parquet; and the rule for a file that reads both as one message and as frames.

A file of ``u32 big-endian length + message`` frames back to back (a keyed format: ``u32
len + key`` then ``u32 len + value`` per record) can also be one raw message whose bytes
happen to split so. When the frames tile the file exactly (and neither its name, a
``<stem>.key`` sibling, nor the spec's ``detect:`` settles it), the file's bytes decide:

* the whole file does not decode as one message: ``delimited`` (a bad frame is then one
  corrupt record, the others still land);
* it decodes whole, keeping no bytes it does not know (no unknown fields, no unknown
  records: the format's generated module says, ``keeps_unknown(model)``, from its spec),
  and some frame does not decode: ``raw``, the only reading in which everything decodes;
* otherwise (it decodes whole and every frame decodes, or it decodes whole only by keeping
  unknown bytes): ambiguous. Detection refuses it with :class:`AmbiguousInputKind`, one
  line naming the file and asking for the input kind (``--input-kind raw|delimited`` in
  ``wirespec ingest``, option ``inputKind`` in the data source) rather than guess.

    >>> split_frames(bytes.fromhex("00000001aa00000000"), keyed=False)
    ([(0, None, b'\\xaa'), (5, None, b'')], None)
"""

from __future__ import annotations

import struct
from pathlib import Path

from runtime.core.errors import OptionError, WirespecError

KINDS = ("raw", "delimited", "binlog", "parquet")
DELIMITED_SUFFIXES = (".ldr", ".delimited", ".records")
NULL_LEN = 0xFFFFFFFF

_U32 = struct.Struct(">I")


class AmbiguousInputKind(OptionError):
    """A file that reads as one raw message and as length-delimited frames alike: the
    caller must say which (``asked_with``: how, e.g. ``--input-kind``)."""

    def __init__(self, path: str, frames: int, asked_with: str = "option inputKind"):
        self.path, self.frames = path, frames
        super().__init__(
            f"{path}: ambiguous input kind: it decodes whole as one message and splits exactly "
            f"into {frames} length-delimited frame(s) that each decode; give {asked_with} raw "
            f"or delimited"
        )

    def asking_with(self, asked_with: str) -> AmbiguousInputKind:
        """The same refusal, asking for the kind as ``asked_with`` (a CLI flag)."""
        return AmbiguousInputKind(self.path, self.frames, asked_with)


def split_frames(data: bytes, keyed: bool):
    """``(position, key, value)`` of each length-delimited record, and the position of a
    trailing frame that runs past the end (``None`` when the frames tile the data)."""
    records, pos, n = [], 0, len(data)
    per = 2 if keyed else 1
    while pos < n:
        start, parts = pos, []
        for _ in range(per):
            if pos + 4 > n:
                return records, start
            (length,) = _U32.unpack_from(data, pos)
            pos += 4
            if length == NULL_LEN and keyed and not parts:
                parts.append(None)
                continue
            if pos + length > n:
                return records, start
            parts.append(data[pos : pos + length])
            pos += length
        records.append((start, parts[0] if keyed else None, parts[-1]))
    return records, None


def detect_kind(
    path: str, keyed: bool = False, recognise=None, magics=(), decode=None, keeps_unknown=None
) -> str:
    """The input kind of one file (see the module doc and :mod:`runtime.spark.source`).

    ``recognise``: the format's ``detect_record`` (its spec's ``detect:``); a file whose
    leading bytes it recognises is one message (raw), never split as frames that happen to
    tile it (a Kafka batch with base offset 0 reads as two empty frames and one more).
    ``magics``: how the format's framed files start (a file starting so is one, kind
    ``binlog``). ``decode(key, value)``: the parsed message (raising
    :class:`WirespecError` on bad bytes); with it a file whose frames tile it is decided
    by the rule of the module doc (without it, such a file is ``delimited``).
    ``keeps_unknown(model)``: whether a parsed message keeps bytes its spec does not know
    (the generated module's; None: a format that keeps none)."""
    if path.endswith(".parquet"):
        return "parquet"
    if Path(path).with_suffix(".key").exists():
        return "raw"
    with open(path, "rb") as f:
        head = f.read(max([4, *map(len, magics)]))
        if any(magic and head.startswith(magic) for magic in magics):
            return "binlog"
        if head.startswith(b"PAR1"):
            return "parquet"
        if path.endswith(DELIMITED_SUFFIXES):
            return "delimited"
        data = head + f.read()
    if recognise is not None and recognise(data) is not None:
        return "raw"
    records, tail = split_frames(data, keyed)
    if not records or tail is not None:
        return "raw"
    if decode is None:
        return "delimited"
    whole = _decoded(decode, None, data)
    if whole is None:
        return "delimited"
    if keeps_unknown is None or not keeps_unknown(whole[0]):
        for _, key, value in records:
            if _decoded(decode, key, value) is None:
                return "raw"
    raise AmbiguousInputKind(path, len(records))


def _decoded(decode, key, value):
    """``(model,)`` of one message, or None when it does not decode."""
    try:
        return (decode(key, value),)
    except WirespecError:
        return None
