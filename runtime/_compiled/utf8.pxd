"""Strict UTF-8 validation in C, for readers that check text before they make a ``str``
(``cimport``-ed: inline, no call between extension modules)."""

from libc.stdint cimport uint8_t


cdef inline bint utf8_valid(const uint8_t *p, Py_ssize_t n) noexcept:
    """Strict UTF-8, as Python's decoder takes it (no surrogates, overlongs or > U+10FFFF):
    the second byte's range depends on the first, the others are 0x80-0xBF."""
    cdef Py_ssize_t i = 0, size, k
    cdef uint8_t c, lo, hi
    while i < n:
        c = p[i]
        if c < 0x80:
            i += 1
            continue
        if c < 0xC2 or c > 0xF4:
            return False
        size = 2 if c < 0xE0 else 3 if c < 0xF0 else 4
        lo, hi = 0x80, 0xBF
        if c == 0xE0:
            lo = 0xA0  # no overlong three-byte forms
        elif c == 0xED:
            hi = 0x9F  # no surrogates
        elif c == 0xF0:
            lo = 0x90  # no overlong four-byte forms
        elif c == 0xF4:
            hi = 0x8F  # nothing above U+10FFFF
        if n - i < size or not lo <= p[i + 1] <= hi:
            return False
        for k in range(2, size):
            if (p[i + k] & 0xC0) != 0x80:
                return False
        i += size
    return True
