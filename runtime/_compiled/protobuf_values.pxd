# cython: language_level=3
"""The values of protobuf records in C, for the compiled reader (protobuf.pyx): varints,
fixed-width values (little-endian, as struct's ``<`` formats) and ASCII text. Inline
functions only: compiled into the module that cimports them."""

from cpython.float cimport PyFloat_FromDouble
from cpython.long cimport PyLong_FromLong, PyLong_FromLongLong, PyLong_FromUnsignedLongLong
from libc.stdint cimport int32_t, uint32_t
from libc.string cimport memcpy

from runtime._compiled.float32 cimport float32_widened
from runtime._compiled.protobuf_tables cimport *


cdef extern from "Python.h":
    double PyFloat_Unpack8(const char* p, int le) except? -1.0
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    void* PyUnicode_DATA(object text)


cdef inline int uvarint(const unsigned char* buf, Py_ssize_t* pos, Py_ssize_t end,
                        unsigned long long* out) noexcept:
    """``read_uvarint``: at most 10 bytes, within 64 bits; -1 where it raises."""
    cdef Py_ssize_t p = pos[0]
    cdef Py_ssize_t stop = end if end - p < 10 else p + 10
    cdef unsigned long long u = 0
    cdef unsigned int b
    cdef int shift = 0
    while p < stop:
        b = buf[p]
        p += 1
        if shift == 63 and b > 1:
            return -1
        u |= (<unsigned long long>(b & 0x7F)) << shift
        if b < 0x80:
            out[0] = u
            pos[0] = p
            return 0
        shift += 7
    return -1


cdef inline object from_varint(int kind, unsigned long long u):
    """``protobuf_fields.from_varint``: the value of a varint read for ``kind``."""
    cdef uint32_t x
    if kind == K_UINT64:
        return PyLong_FromUnsignedLongLong(u)
    if kind == K_INT64:
        return PyLong_FromLongLong(<long long>u)
    if kind == K_INT32 or kind == K_ENUM:
        return PyLong_FromLong(<int32_t><uint32_t>u)
    if kind == K_UINT32:
        return PyLong_FromUnsignedLongLong(<uint32_t>u)
    if kind == K_SINT32:
        x = <uint32_t>u
        return PyLong_FromLongLong(<long long>(x >> 1) ^ -<long long>(x & 1))
    if kind == K_SINT64:
        return PyLong_FromLongLong(<long long>(u >> 1) ^ -<long long>(u & 1))
    return u != 0  # bool


cdef inline object from_fixed(int kind, const unsigned char* p):
    """The value of a fixed-width record (little-endian, as struct's ``<`` formats)."""
    cdef uint32_t u32
    cdef unsigned long long u64
    cdef int i
    if kind == K_FLOAT:  # widened on its bits, a NaN's payload kept
        u32 = p[0] | (<uint32_t>p[1] << 8) | (<uint32_t>p[2] << 16) | (<uint32_t>p[3] << 24)
        return PyFloat_FromDouble(float32_widened(u32))
    if kind == K_DOUBLE:
        return PyFloat_FromDouble(PyFloat_Unpack8(<const char*>p, 1))
    if kind == K_FIXED32 or kind == K_SFIXED32:
        u32 = p[0] | (<uint32_t>p[1] << 8) | (<uint32_t>p[2] << 16) | (<uint32_t>p[3] << 24)
        if kind == K_FIXED32:
            return PyLong_FromUnsignedLongLong(u32)
        return PyLong_FromLong(<int32_t>u32)
    u64 = 0
    for i in range(7, -1, -1):
        u64 = (u64 << 8) | p[i]
    if kind == K_FIXED64:
        return PyLong_FromUnsignedLongLong(u64)
    return PyLong_FromLongLong(<long long>u64)


cdef inline bint is_ascii(const unsigned char* p, Py_ssize_t n) noexcept:
    cdef Py_ssize_t i
    for i in range(n):
        if p[i] >= 0x80:
            return False
    return True


cdef inline object ascii_text(const unsigned char* p, Py_ssize_t n):
    """The str of ``n`` ASCII bytes: the one ``PyUnicode_DecodeUTF8`` makes, without its
    decoder's set-up (a quarter of the cost of a short field's text)."""
    text = PyUnicode_New(n, 127)
    memcpy(PyUnicode_DATA(text), p, n)
    return text
