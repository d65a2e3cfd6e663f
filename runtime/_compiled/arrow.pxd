# The typed Arrow column builders and the table-driven writer of runtime/_compiled/arrow.pyx.
#
# A compiled decoder can cimport this and append values straight from bytes: every builder
# takes C values (append_int, append_double, append_bool, append_bytes), null() appends a
# null, and a struct or list closes its slot with valid() / close_list() after its children.
# finish() gives the pyarrow Array and leaves the builder empty for the next batch.

cimport cython
from libc.stdint cimport int64_t, uint8_t


@cython.final  # called directly, not through a vtable: appends are most of the writer's work
cdef class Buffer:
    """A growable byte buffer that ends as a pyarrow Buffer (no copy)."""
    cdef bytearray data
    cdef char* ptr
    cdef Py_ssize_t size, capacity
    cdef char* grow(self, Py_ssize_t n) except NULL
    cdef object finish(self)


@cython.final
cdef class Bitmap:
    """Bits appended one at a time (validity, or a bool column's values)."""
    cdef Buffer bytes
    cdef Py_ssize_t length
    cdef int append(self, bint bit) except -1
    cdef int append_ones(self, Py_ssize_t n) except -1
    cdef Py_ssize_t zeros(self, Py_ssize_t start) noexcept
    cdef void truncate(self, Py_ssize_t length) noexcept


cdef class Builder:
    """One Arrow array being built: its length, nulls and validity (made at the first null)."""
    cdef readonly object type
    cdef Py_ssize_t length, nulls
    cdef Bitmap validity
    cdef int valid(self) except -1
    cdef int null(self) except -1
    cdef int fill_null(self) except -1
    cdef int append_value(self, object value) except -1
    cdef object validity_buffer(self)
    cdef int truncate(self, Py_ssize_t length) except -1
    cdef int truncate_values(self, Py_ssize_t length) except -1
    cdef void reset(self)
    cpdef object finish(self)


cdef class FixedBuilder(Builder):
    """Columns of ``width`` bytes per value (little-endian), zeros under a null."""
    cdef Buffer values
    cdef int width


cdef class IntBuilder(FixedBuilder):
    """int8/16/32/64 and timestamp columns."""
    cdef int64_t low, high
    cdef int append_int(self, int64_t value) except -1


cdef class FloatBuilder(FixedBuilder):
    cdef bint single
    cdef int append_double(self, double value) except -1


cdef class BoolBuilder(Builder):
    cdef Bitmap values
    cdef int append_bool(self, bint value) except -1


cdef class BinaryBuilder(Builder):
    """string (UTF-8) and binary columns: int32 offsets and the bytes."""
    cdef Buffer offsets, values
    cdef bint text
    cdef int append_bytes(self, const char* data, Py_ssize_t size) except -1


cdef class DecimalBuilder(FixedBuilder):
    """decimal128 columns of integers (scale 0)."""
    cdef int append_int(self, int64_t value) except -1
    cdef int append_uint(self, unsigned long long value) except -1


cdef class ListBuilder(Builder):
    """A list column: append the elements to ``child``, then close_list()."""
    cdef Buffer offsets
    cdef readonly Builder child
    cdef int close_list(self) except -1


cdef class StructBuilder(Builder):
    """A struct column: append one value to every child, then valid()."""
    cdef readonly list children


cpdef Builder builder_for(object arrow_type)


# A value a compiled reader read, in C: what a column gets (put_scalar) without a Python object
cdef enum:
    SCALAR_NONE = 0
    SCALAR_INT = 1
    SCALAR_FLOAT = 2
    SCALAR_BOOL = 3
    SCALAR_TEXT = 4
    SCALAR_BYTES = 5


cdef struct Scalar:
    int kind
    int64_t i
    double d
    const char* p
    Py_ssize_t n


# Each appends to a builder of the matching kind, and raises TypeError into any other
cdef int put_int(Builder builder, int64_t value) except -1
cdef int put_double(Builder builder, double value) except -1
cdef int put_bool(Builder builder, bint value) except -1
cdef int put_bytes(Builder builder, const char* data, Py_ssize_t size, bint text) except -1
cdef int put_scalar(Builder builder, Scalar* value) except -1
cdef int utf8_valid(const unsigned char* data, Py_ssize_t size) except -1
