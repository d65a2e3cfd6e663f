# cython: language_level=3
"""A float32 as a double and back on its bits, a NaN's sign and payload kept: the compiled
twin of runtime/core/float32.py (its module docstring says why: a C cast between float and
double sets the quiet bit of a signalling NaN on x86). Inline only: a module that cimports
these compiles them in.

    float32_widened(0x7F8F0004) is the double of bits 0x7FF1E00080000000 (a cast would give
    0x7FF9E00080000000); float32_narrowed of that double gives 0x7F8F0004 back.
"""

from libc.stdint cimport uint32_t, uint64_t
from libc.string cimport memcpy


cdef enum:
    FLOAT32_PAYLOAD_SHIFT = 29  # a float32 payload's place in a double's mantissa: 52 - 23


cdef inline double float32_widened(uint32_t bits) noexcept:
    """The float32 of ``bits`` as a double, exactly (runtime.core.float32.widen)."""
    cdef float value
    cdef uint64_t wide
    cdef double widened
    if (bits & 0x7F800000) == 0x7F800000 and (bits & 0x7FFFFF) != 0:  # a NaN
        wide = (<uint64_t>(bits >> 31) << 63) | (<uint64_t>0x7FF << 52)
        wide |= <uint64_t>(bits & 0x7FFFFF) << FLOAT32_PAYLOAD_SHIFT
        memcpy(&widened, &wide, 8)
        return widened
    memcpy(&value, &bits, 4)
    return value


cdef inline bint float32_narrowed(double value, uint32_t* bits) noexcept:
    """The float32 bits of the NaN ``value`` into ``bits`` when a float32 holds it exactly
    (no payload bit below a float32's); False where it does not (runtime.core.float32.narrow)."""
    cdef uint64_t wide
    memcpy(&wide, &value, 8)
    if wide & ((<uint64_t>1 << FLOAT32_PAYLOAD_SHIFT) - 1):
        return False
    bits[0] = (<uint32_t>(wide >> 63) << 31) | 0x7F800000
    bits[0] |= <uint32_t>(wide >> FLOAT32_PAYLOAD_SHIFT) & 0x7FFFFF
    return True
