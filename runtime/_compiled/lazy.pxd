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


cdef class PendingElement


cdef class Elements:
    """The elements of one list read lazily: the input they are read from, where the list
    ends, and their model class's slots. A generated reader's subclass reads one element
    (``read``, with the limits and the earlier fields the element's steps read)."""

    cdef bytes data  # immutable: the elements cannot change under them
    cdef Py_ssize_t end
    cdef type cls
    cdef Py_ssize_t* slots  # the offsets of every slot of ``cls`` (a generated module's table)
    cdef Py_ssize_t n_slots
    cdef object read(self, Py_ssize_t pos)
    cdef int fill(self, PendingElement span, object model) except -1


cdef class PendingElement:
    cdef Elements elements
    cdef Py_ssize_t pos


cdef Pending new_pending(Builder builder, bytes buf, Py_ssize_t pos, Py_ssize_t end, int kind,
                        int depth)
cdef object pending_element(Elements elements, Py_ssize_t pos)
cdef dict slot_offsets(cls, list names)
cdef dict lazy_slots(cls, list names)
