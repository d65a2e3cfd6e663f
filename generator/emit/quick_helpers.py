"""The helper functions a generated module's quick tier defines once, as source text: the
varint readers its rendered readers call where a varint is longer than the inline cases
(:mod:`generator.emit.quicktier` puts each in a module whose readers use it). Each gives
``rt_fast.Retry`` where the exact reader would raise or keep what the quick tier does not
(a non-minimal msb-count varint, or a LEB128 one where the format keeps them:
``wire_form``), so the exact reader decides. And the runs of fixed-width numbers a reader
reads in one ``unpack_from`` (:func:`fused_runs`).
"""

from __future__ import annotations

from generator.emit.plan import FieldSteps, Length, Number, TagByte
from generator.emit.pysource import struct_format

RETRY = "raise rt_fast.Retry"
"""The line a quick reader gives up with: the exact reader decides."""

QUICK_UVARINT = '''\
def _quick_uvarint(buf, pos):
    """A LEB128 varint of two bytes or more (``read_uvarint``'s checks), else Retry."""
    try:
        return rt_fast.read_uvarint(buf, pos)
    except DecodeError:
        raise rt_fast.Retry from None'''
QUICK_UVARINT_SHORTEST = '''\
def _quick_uvarint(buf, pos):
    """A LEB128 varint of two bytes or more in its shortest form (``read_uvarint``'s
    checks), else Retry (Python keeps a longer one: wire_form)."""
    try:
        read = rt_fast.read_uvarint(buf, pos)
    except DecodeError:
        raise rt_fast.Retry from None
    if buf[read[1] - 1]:
        return read
    raise rt_fast.Retry'''
QUICK_VARINTS = '''\
def _quick_varints(buf, pos, n, zigzag, delta):
    """``n`` LEB128 varints at ``pos`` in their shortest forms (``read_uvarint``'s checks;
    one and two bytes inline: type codes and flags), ZigZag-signed, each the difference
    to the one before (modulo 2**64, int64-wrapped when signed), else Retry (Python keeps
    a longer one: wire_form)."""
    out = []
    acc = 0
    try:
        for _ in range(n):
            v = buf[pos]
            if v < 0x80:
                pos += 1
            elif 0 < buf[pos + 1] < 0x80:
                v = (v & 0x7F) | (buf[pos + 1] << 7)
                pos += 2
            else:
                v, pos = rt_fast.read_uvarint(buf, pos)
                if not buf[pos - 1]:
                    raise rt_fast.Retry
            if zigzag:
                v = (v >> 1) ^ -(v & 1)
            if delta and zigzag:
                acc = v = ((acc + v + 0x8000000000000000) & 0xFFFFFFFFFFFFFFFF) - 0x8000000000000000
            elif delta:
                acc = v = (acc + v) & 0xFFFFFFFFFFFFFFFF
            out.append(v)
    except DecodeError:
        raise rt_fast.Retry from None
    return out, pos'''
QUICK_MSB = '''\
def _quick_msb(buf, pos, end, bits):
    """An msb-count varint in its shortest form, else Retry (Python keeps it: wire_form)."""
    try:
        value, after = rt_fast.msb_uvar(buf, pos, end, bits)
    except DecodeError:
        raise rt_fast.Retry from None
    if value < rt_fast.MSB_SHORTEST[after - pos]:
        raise rt_fast.Retry
    return value, after


def _quick_msb_any(buf, pos, end, bits):
    """An msb-count varint in any form (``rt_fast.msb_uvar``'s checks), else Retry."""
    try:
        return rt_fast.msb_uvar(buf, pos, end, bits)
    except DecodeError:
        raise rt_fast.Retry from None'''


def fused_runs(flat: list, endian: str) -> dict[int, list]:
    """Runs of two or more fixed-width numbers and lengths of one byte order, next to each
    other in ``flat`` (field comments between them), by the index of their first: one
    ``unpack_from`` reads a run. A ``u8`` (a subscript, no call), a ``bool`` or a number whose
    bytes a checksum keeps ends a run. Tag bytes join a run (read as ``B``, then compared):
    two tags and a length in one call cost a quarter less than two subscripts and a call,
    but a run of tags alone stays subscripts.

    >>> from generator.emit.plan import Length
    >>> {i: len(run) for i, run in fused_runs([TagByte(3), TagByte(4), Length("n", "s32")], "le").items()}
    {0: 3}
    >>> fused_runs([TagByte(3), TagByte(4)], "le")
    {}
    """
    runs: dict[int, list] = {}
    first, run = 0, []

    def order(step) -> str | None:
        return None if isinstance(step, TagByte) else struct_format(step.prim, endian)[0]

    def close():
        numbers = [step for step in run if not isinstance(step, TagByte)]
        if len(run) >= 2 and numbers:
            runs[first] = list(run)
        run.clear()

    for i, step in enumerate(flat):
        if isinstance(step, FieldSteps):
            continue
        fusable = isinstance(step, TagByte) or (
            isinstance(step, (Number, Length))
            and step.size is not None
            and step.prim not in ("bool", "u8")
            and not getattr(step, "keep", False)
        )
        if not fusable:
            close()
            continue
        orders = {order(s) for s in run} - {None}
        if orders and order(step) not in (None, *orders):
            close()
        if not run:
            first = i
        run.append(step)
    close()
    return runs


def fused_format(run: list, endian: str) -> tuple[str, str]:
    """The module constant's name and the ``struct`` format that read a run in one call.

    >>> from generator.emit.plan import Length, Number
    >>> fused_format([Number("a", "f64"), Number("b", "f32")], "le")
    ('_UNPACK_LE_df', '<df')
    >>> fused_format([TagByte(3), Length("n", "s32be")], "le")
    ('_UNPACK_BE_Bi', '>Bi')
    """
    formats = [
        "<B" if isinstance(step, TagByte) else struct_format(step.prim, endian) for step in run
    ]
    order = next(
        (f[0] for f, step in zip(formats, run) if not isinstance(step, TagByte)), formats[0][0]
    )
    fmt = order + "".join(f[1:] for f in formats)
    return f"_UNPACK_{'BE' if fmt[0] == '>' else 'LE'}_{fmt[1:]}", fmt
