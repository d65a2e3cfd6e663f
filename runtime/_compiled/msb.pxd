# cython: language_level=3
"""mysql::serialization's msb-count varints, read in C: the first byte's low one bits
count the bytes after it (``runtime/core/msbvarint.py``). Inline functions only: a module that
cimports them (``from runtime._compiled.msb cimport msb_uvar``) compiles them in and needs
no module of this name at run time."""

from libc.stdint cimport uint64_t


cdef extern from *:
    """
    /* bytes of the varint whose first byte is b: 1 + its trailing one bits, 9 for 0xff */
    static inline int wirespec_msb_length(unsigned char b) {
        return b == 0xff ? 9 : __builtin_ctz(~(unsigned int)b) + 1;
    }
    """
    int wirespec_msb_length(unsigned char b) noexcept nogil


cdef inline bint msb_uvar(const unsigned char* buf, Py_ssize_t* pos, Py_ssize_t end,
                          uint64_t* out) noexcept nogil:
    """One msb-count varint at ``pos[0]`` before ``end`` (any of its forms, as
    ``runtime.core.fast.msb_uvar`` takes them); False where it is truncated."""
    cdef Py_ssize_t p = pos[0]
    cdef unsigned char first
    cdef int n, i
    cdef uint64_t value = 0
    if p >= end:
        return False
    first = buf[p]
    if not first & 1:
        out[0] = first >> 1
        pos[0] = p + 1
        return True
    n = wirespec_msb_length(first)
    if n > end - p:
        return False
    if n == 9:
        for i in range(8, 0, -1):
            value = (value << 8) | buf[p + i]
    else:
        for i in range(n - 1, -1, -1):
            value = (value << 8) | buf[p + i]
        value >>= n
    out[0] = value
    pos[0] = p + n
    return True


cdef inline int msb_size(uint64_t value) noexcept nogil:
    """Bytes of the shortest msb-count varint of ``value`` (``runtime.core.msbvarint.uvar_size``)."""
    cdef int bits = 0
    while value:
        bits += 1
        value >>= 1
    if bits > 56:
        return 9
    return (bits + 6) // 7 if bits else 1
