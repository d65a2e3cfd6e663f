# cython: language_level=3
"""A list of enum members a reader made (a chunk of an ``IntEnum``'s members) read in C
by the spec expressions over it: ``types[_index] == event_type.DDL``, ``event_type.X in
types``, ``min(types)``. Each member is an int of its value (below 256: a chunk's enum).
Inline functions only: a module that cimports them compiles them in and needs no module of
this name at run time.

Where Python would raise (an index out of range, ``min`` of no members), ``failed`` is set
and the value is 0: the reader declines, as it does on the Python error."""

from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.long cimport PyLong_AsLongLong
from libc.stdint cimport int64_t


cdef inline int64_t member_at(list members, int64_t i, bint* failed) noexcept:
    """``members[i]``'s value (a negative ``i`` from the end, as Python's)."""
    cdef Py_ssize_t n = PyList_GET_SIZE(members)
    if i < 0:
        i += n
    if i < 0 or i >= n:
        failed[0] = True
        return 0
    return PyLong_AsLongLong(<object>PyList_GET_ITEM(members, <Py_ssize_t>i))


cdef inline bint member_in(int64_t value, list members) noexcept:
    """``value in members``."""
    cdef Py_ssize_t i
    for i in range(PyList_GET_SIZE(members)):
        if PyLong_AsLongLong(<object>PyList_GET_ITEM(members, i)) == value:
            return True
    return False


cdef inline int64_t member_extreme(list members, bint largest, bint* failed) noexcept:
    """``max(members)`` (``largest``) or ``min(members)``."""
    cdef Py_ssize_t i, n = PyList_GET_SIZE(members)
    cdef int64_t best, value
    if n == 0:
        failed[0] = True
        return 0
    best = PyLong_AsLongLong(<object>PyList_GET_ITEM(members, 0))
    for i in range(1, n):
        value = PyLong_AsLongLong(<object>PyList_GET_ITEM(members, i))
        if (value > best) if largest else (value < best):
            best = value
    return best
