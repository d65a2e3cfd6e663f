# cython: language_level=3
"""A growing output buffer for the compiled writers: bytes appended with C calls and turned
into one ``bytes`` at the end. Inline functions only: a module that cimports them
(``from runtime._compiled.out cimport Out, put, put_byte, put_uvarint``) compiles them in
and needs no module of this name at run time. The caller frees ``Out.data``."""

from libc.stdlib cimport realloc
from libc.string cimport memcpy


cdef struct Out:
    unsigned char* data
    Py_ssize_t size
    Py_ssize_t cap


cdef inline int grow(Out* o, Py_ssize_t more) except -1:
    cdef Py_ssize_t cap = o.cap
    cdef unsigned char* data
    while cap - o.size < more:
        cap = cap * 2 if cap else 256
    data = <unsigned char*>realloc(o.data, cap)
    if data == NULL:
        raise MemoryError()
    o.data, o.cap = data, cap
    return 0


cdef inline int put(Out* o, const unsigned char* p, Py_ssize_t n) except -1:
    if o.cap - o.size < n:
        grow(o, n)
    memcpy(o.data + o.size, p, n)
    o.size += n
    return 0


cdef inline int put_byte(Out* o, unsigned char b) except -1:
    if o.cap == o.size:
        grow(o, 1)
    o.data[o.size] = b
    o.size += 1
    return 0


cdef inline int put_uvarint(Out* o, unsigned long long u) except -1:
    if o.cap - o.size < 10:
        grow(o, 10)
    while u >= 0x80:
        o.data[o.size] = <unsigned char>(u & 0x7F | 0x80)
        o.size += 1
        u >>= 7
    o.data[o.size] = <unsigned char>u
    o.size += 1
    return 0
