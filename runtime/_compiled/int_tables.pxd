# cython: language_level=3
"""A region of counted integer lists (Craft's size tables: ``REGION_TYPES`` whose chunks
are varints) kept beside its Python lists as C arrays, so that the spec expressions that
index it (``len(size_tables[1])``, ``size_tables[2 + _index][_index]``) are read in C.

The arrays hold no more numbers than the region has bytes (every count and every element is
at least one byte of it): a small region uses the space inside the struct, a larger one a
bytes object of 16 bytes per region byte, never a size an untrusted count gives. Inline
functions only: a module that cimports them compiles them in and needs no module of this
name at run time.

Indexing is Python's: a negative index counts from the end; an index out of range sets
``failed`` (where Python raises IndexError, which the readers decline) and gives 0."""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from libc.stdint cimport int64_t

cdef enum:
    INT_TABLES_SPACE = 64  # numbers a region of fewer bytes holds, in the struct itself


cdef struct IntTables:
    int64_t* values
    Py_ssize_t* starts  # list t is values[starts[t]:starts[t + 1]]
    Py_ssize_t count  # lists closed so far
    Py_ssize_t filled  # numbers stored so far
    int64_t space_values[INT_TABLES_SPACE]
    Py_ssize_t space_starts[INT_TABLES_SPACE + 1]


cdef inline object int_tables_start(IntTables* t, Py_ssize_t size):
    """Room for the lists of a region of ``size`` bytes: None when the struct's own space
    holds them, else the bytes object that does (kept alive by the caller)."""
    cdef object memory = None
    if size < INT_TABLES_SPACE:
        t.values = t.space_values
        t.starts = t.space_starts
    else:
        memory = PyBytes_FromStringAndSize(NULL, (size + 1) * (sizeof(int64_t) + sizeof(Py_ssize_t)))
        t.values = <int64_t*>PyBytes_AS_STRING(memory)
        t.starts = <Py_ssize_t*>(t.values + size + 1)
    t.count = 0
    t.filled = 0
    t.starts[0] = 0
    return memory


cdef inline void int_tables_add(IntTables* t, int64_t value) noexcept:
    """The next number of the list being read (each read from a byte of the region)."""
    t.values[t.filled] = value
    t.filled += 1


cdef inline void int_tables_close(IntTables* t) noexcept:
    """The list being read is complete."""
    t.count += 1
    t.starts[t.count] = t.filled


cdef inline Py_ssize_t _python_index(int64_t i, Py_ssize_t n, bint* failed) noexcept:
    """Python's index ``i`` of a sequence of ``n``: its position, or 0 with ``failed`` set."""
    if i < 0:
        i += n
    if i < 0 or i >= n:
        failed[0] = True
        return 0
    return <Py_ssize_t>i


cdef inline int64_t int_tables_len(const IntTables* t, int64_t i, bint* failed) noexcept:
    """``len(tables[i])``."""
    cdef Py_ssize_t at = _python_index(i, t.count, failed)
    if failed[0]:
        return 0
    return t.starts[at + 1] - t.starts[at]


cdef inline int64_t int_tables_item(const IntTables* t, int64_t i, int64_t j,
                                    bint* failed) noexcept:
    """``tables[i][j]``."""
    cdef Py_ssize_t at = _python_index(i, t.count, failed)
    cdef Py_ssize_t start, k
    if failed[0]:
        return 0
    start = t.starts[at]
    k = _python_index(j, t.starts[at + 1] - start, failed)
    if failed[0]:
        return 0
    return t.values[start + k]
