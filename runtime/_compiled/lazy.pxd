# cython: language_level=3
"""Lazy models, shared by the compiled readers that hand them out (runtime/_compiled/lazy.pyx):
a checked record whose model's slots hold one :class:`Pending` until the first access of
any field builds them all through its :class:`Builder`."""


cdef class Builder:
    """What builds a pending model: a reader's tables (protobuf's ``Loop``) or a rendered
    reader's entry (generated/_compiled/<format>.pyx)."""

    cdef int fill(self, Pending span, object model) except -1


cdef class Pending:
    cdef Builder builder
    cdef bytes buf  # immutable: the model cannot change under it
    cdef Py_ssize_t pos
    cdef Py_ssize_t end
    cdef int kind  # which record of the builder's (a message index, an entry)
    cdef int depth


cdef Pending new_pending(Builder builder, bytes buf, Py_ssize_t pos, Py_ssize_t end, int kind,
                        int depth)
cdef dict lazy_slots(cls, list names)
