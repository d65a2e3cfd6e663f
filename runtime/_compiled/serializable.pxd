# cython: language_level=3
"""What another compiled module cimports to read a ``layout: serializable`` record inside its
own positional code (``from runtime._compiled.serializable cimport CLimits, Message``):
``Message.read(buf, start, end, &limits)`` is the message that is all of ``buf[start:end]``,
or None to decline, exactly as ``Message.parse`` gives it for those bytes alone (written
into ``target``, a model of the class nothing else holds, when one is given)."""

cimport cython
from cpython.ref cimport PyObject
from libc.stdint cimport uint64_t


cdef struct CLimits:
    Py_ssize_t max_message_bytes
    Py_ssize_t max_depth
    Py_ssize_t max_count
    Py_ssize_t max_string


cdef struct SharedInt:
    # The int a field made last and its wire value: a field that has the same value again
    # gives the same (immutable) int, so events in a binlog share their repeated values.
    uint64_t raw
    PyObject* value  # owned; NULL until the first int above the small ones


cdef struct FieldSpec:
    uint64_t id
    int kind
    int bits
    Py_ssize_t count       # a fixed repeat count; 0: one value
    Py_ssize_t max_length  # of a text or bytes; -1: unbounded
    int absent
    Py_ssize_t from_slot   # ABSENT_FROM: the slot whose value an absent field takes
    Py_ssize_t slot
    Py_ssize_t length      # scratch: the byte length of the text or bytes just read
    SharedInt shared       # KIND_UINT, KIND_SINT: the int this field made last


cdef class _Entry:
    cdef object defaults
    cdef CLimits default_limits

    cdef object _limits(self, dict kwargs, CLimits* out)


@cython.final
cdef class Message(_Entry):
    cdef FieldSpec* specs
    cdef Py_ssize_t n
    cdef object model
    cdef tuple absent_values  # ABSENT_VALUE: the value, by field
    cdef tuple encodings      # KIND_TEXT: the encoding's name as bytes, by field
    cdef Py_ssize_t size_slot, lnifid_slot, unknown_slot
    cdef bint untracked  # every field one number or text: its models are not GC-tracked
    cdef SharedInt size_shared
    # The bytes and text a text field had last, by field: a binlog's events mostly share
    # their tag, and the same bytes are the same text (decoding it again makes a new str).
    cdef list last_raw, last_value

    # The model parse returned last: reused when nothing else holds it (see _spare).
    cdef object spare

    cdef object read(self, const unsigned char* buf, Py_ssize_t start, Py_ssize_t end,
                     CLimits* lim, PyObject* target=*)
    cdef object _read_value(self, Py_ssize_t i, FieldSpec* spec, const unsigned char* buf,
                            Py_ssize_t* pos, Py_ssize_t end, CLimits* lim, PyObject* old)
    cdef object _repeated(self, Py_ssize_t i, const unsigned char* buf, Py_ssize_t at,
                          Py_ssize_t end)
    cdef void _remember(self, Py_ssize_t i, const unsigned char* buf, Py_ssize_t at,
                        Py_ssize_t stop, value)
