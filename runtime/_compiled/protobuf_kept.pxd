# cython: language_level=3
"""The forms upb reads and encode does not write, told in C for the compiled reader
(protobuf.pyx): a varint longer than it needs (in a key, a length, a value, a packed
element), a narrow varint past its type's bits (an int32 past 32 bits, a bool of 2). The
reader keeps such a record's bytes in ``wire_layout`` as ``ProtobufMessage.read_exact``
does (its ``odd`` records). Inline functions only: compiled into the module that cimports
them."""

from runtime._compiled.protobuf_tables cimport *
from runtime._compiled.protobuf_records cimport kept_uvarint


cdef enum:
    E_KEPT = 3  # layout entries (after protobuf_tables' E_BYTES): (number, bytes),
    E_PACKED_KEPT = 4  # (number, count, bytes)
    KEPT_SPAN = 0x40000000  # a Pending's kind with this bit: a message read with kept forms


cdef inline bint exact_varint(int kind, unsigned long long u) noexcept:
    """Whether encode writes the value of ``u`` read for ``kind`` back as ``u`` (an int32
    past 32 bits, or a bool of 2, is kept as its record's bytes by the Python reader)."""
    if kind == K_INT32 or kind == K_ENUM:
        return u < 0x80000000ULL or u >= 0xFFFFFFFF80000000ULL
    if kind == K_UINT32 or kind == K_SINT32:
        return u <= 0xFFFFFFFFULL
    if kind == K_BOOL:
        return u <= 1
    return True


cdef inline bint narrow_kept(int kind, int wire_type, unsigned long long u) noexcept:
    """Whether a record's varint (``u``, of a VARINT record) is past its type's bits."""
    return wire_type == VARINT and not exact_varint(kind, u)


cdef inline bint packed_kept(const unsigned char* buf, int kind, int wire_type, Py_ssize_t pos,
                             Py_ssize_t stop) noexcept:
    """Whether a packed record's elements in ``buf[pos:stop]`` (checked: they read) hold one
    encode writes otherwise (``_read_packed``'s odd)."""
    cdef unsigned long long u
    if wire_type != VARINT:
        return False
    while pos < stop:
        if kept_uvarint(buf, &pos, stop, &u) != 0 or not exact_varint(kind, u):
            return True
    return False
