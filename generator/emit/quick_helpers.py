"""The helper functions a generated module's quick tier defines once, as source text: the
varint readers its rendered readers call where a varint is longer than the inline cases
(:mod:`generator.emit.quicktier` puts each in a module whose readers use it). Each gives
``rt_fast.Retry`` where the exact reader would raise or keep what the quick tier does not
(a non-minimal msb-count varint, or a LEB128 one where the format keeps them:
``wire_form``), so the exact reader decides.
"""

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
