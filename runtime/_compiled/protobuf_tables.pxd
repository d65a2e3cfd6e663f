# cython: language_level=3
"""The C tables of ``layout: protobuf`` messages, shared by the reader (protobuf.pyx) and the
writer (protobuf_write.pyx): one :c:type:`Message` per message and one :c:type:`Field` per
``PbField`` row, filled once by ``protobuf.load``."""

from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.object cimport PyObject, PyTypeObject
from libc.math cimport signbit


# The kinds of runtime.formats.protobuf_fields.SCALARS, then messages and maps.
cdef enum Kind:
    K_INT32, K_INT64, K_UINT32, K_UINT64, K_SINT32, K_SINT64, K_ENUM, K_BOOL,
    K_FIXED32, K_SFIXED32, K_FLOAT, K_FIXED64, K_SFIXED64, K_DOUBLE, K_STRING, K_BYTES,
    K_MESSAGE, K_MAP

cdef enum:
    VARINT = 0
    I64 = 1
    LEN = 2
    SGROUP = 3
    EGROUP = 4
    I32 = 5
    NOT_REPEATED = 0
    PACKED = 1
    UNPACKED = 2
    E_NUMBER = 0  # layout entries: a field number,
    E_PACKED = 1  # (number, count),
    E_BYTES = 2  # a record kept as its bytes
    MAX_C_DEPTH = 200  # nesting past this declines (a user's max_depth may be larger)
    MAX_ONEOFS = 64  # the writer's oneof check is a bit mask


cdef struct Field:
    long long number
    int kind
    int wire_type
    int repeated
    int explicit
    int packable
    int slot  # singular fields: which "last record" slot (oneof members share one); else -1
    int oneof  # index of its oneof in the message, or -1
    int message  # K_MESSAGE, and K_MAP with message values: the message's index
    int key_kind  # K_MAP
    int value_kind  # K_MAP
    Py_ssize_t offset  # of its slot in an instance
    PyObject* default  # a singular field's value when absent (borrowed: Loop.keep)
    PyObject* key_default  # K_MAP: an entry's absent key and value
    PyObject* value_default
    unsigned char key[5]  # the record key written for it, and its LEN key (packed)
    int key_len
    unsigned char len_key[5]
    int len_key_len


cdef struct Message:
    PyTypeObject* cls
    int first  # its fields: Loop.fields[first:first + count]
    int count
    int n_slots
    Py_ssize_t layout_offset



cdef struct Tables:
    Message* messages
    Field* fields
    int* order  # per message, its field indices in number order (the canonical order)


cdef inline int wire_type_of(int kind) noexcept:
    if kind == K_FIXED32 or kind == K_SFIXED32 or kind == K_FLOAT:
        return I32
    if kind == K_FIXED64 or kind == K_SFIXED64 or kind == K_DOUBLE:
        return I64
    if kind == K_STRING or kind == K_BYTES or kind == K_MESSAGE:
        return LEN
    return VARINT


cdef inline bint is_default(int kind, object value):
    """``is_default``: an implicit-presence value that a new message leaves out."""
    cdef double d
    if kind == K_FLOAT or kind == K_DOUBLE:
        d = PyFloat_AS_DOUBLE(value)
        return d == 0 and not signbit(d)
    return not value
