# The typed Arrow column builders and the table-driven writer of runtime/_compiled/arrow.pyx.
#
# A compiled decoder can cimport this and append values straight from bytes: every builder
# takes C values (append_int, append_double, append_bool, append_bytes), null() appends a
# null, and a struct or list closes its slot with valid() / close_list() after its children.
# finish() gives the pyarrow Array and leaves the builder empty for the next batch.
#
# An append returns 0, or REFUSED where its column does not take the value (nothing is then
# appended): a number outside the column's type or decimal precision, a column past Arrow's
# 2 GiB of bytes or 2**31 list elements, text with no UTF-8 form. A compiled reader declines
# the message there (nothing the bytes hold raises: the caller decodes it the Python way);
# the Python-facing ``Builder.append`` raises OverflowError instead.
#
# The appends a compiled reader makes for every value are defined here, inline: a small
# row is ~75 appends (a fifth of them nulls of a switch's other cases), and a call each was
# a third of the Arrow reader's instructions. The classes a reader appends to are final, so
# their methods are called directly, not through a vtable.

cimport cython
from libc.stdint cimport INT32_MAX, int8_t, int16_t, int32_t, int64_t, uint8_t, uint64_t
from libc.string cimport memcpy


cdef enum:
    REFUSED = 1  # what an append returns where its column does not take the value


@cython.final
cdef class Buffer:
    """A growable byte buffer that ends as a pyarrow Buffer (no copy)."""
    cdef bytearray data
    cdef char* ptr
    cdef Py_ssize_t size, capacity
    cdef Py_ssize_t hint
    """the size it had when it last finished: a column's next batch is about as big"""
    cdef int reserve(self, Py_ssize_t need) except -1
    cdef void clear(self) noexcept
    cdef object finish(self)

    cdef inline char* grow(self, Py_ssize_t n) except NULL:
        """Room for ``n`` more bytes at the end; returns where they start."""
        cdef Py_ssize_t need = self.size + n
        if need > self.capacity:
            self.reserve(need)
        cdef char* at = self.ptr + self.size
        self.size = need
        return at


@cython.final
cdef class Bitmap:
    """Bits appended one at a time (validity, or a bool column's values)."""
    cdef Buffer bytes
    cdef Py_ssize_t length
    cdef int append_ones(self, Py_ssize_t n) except -1
    cdef Py_ssize_t zeros(self, Py_ssize_t start) noexcept
    cdef void truncate(self, Py_ssize_t length) noexcept

    cdef inline int append(self, bint bit) except -1:
        cdef Py_ssize_t i = self.length >> 3
        if i == self.bytes.size:
            self.bytes.grow(1)[0] = 0
        if bit:
            (<uint8_t*>self.bytes.ptr)[i] |= <uint8_t>(1 << (self.length & 7))
        self.length += 1
        return 0


cdef class Builder:
    """One Arrow array being built: its length, nulls and validity (made at the first null)."""
    cdef readonly object type
    cdef Py_ssize_t length, nulls
    cdef Bitmap validity
    cdef int start_validity(self) except -1
    cdef int fill_null(self) except -1
    cdef int append_value(self, object value) except -1
    cdef object validity_buffer(self)
    cdef int truncate(self, Py_ssize_t length) except -1
    cdef int truncate_values(self, Py_ssize_t length) except -1
    cdef void reset(self)
    cpdef object finish(self)

    @cython.final
    cdef inline int valid(self) except -1:
        """One more non-null slot (its value already appended)."""
        if self.validity is not None:
            self.validity.append(True)
        self.length += 1
        return 0

    @cython.final
    cdef inline int null(self) except -1:
        """One more null slot."""
        if self.validity is None:
            self.start_validity()
        self.validity.append(False)
        self.fill_null()
        self.nulls += 1
        self.length += 1
        return 0


cdef class FixedBuilder(Builder):
    """Columns of ``width`` bytes per value (little-endian), zeros under a null."""
    cdef Buffer values
    cdef int width


@cython.final
cdef class IntBuilder(FixedBuilder):
    """int8/16/32/64 and timestamp columns."""
    cdef int64_t low, high

    cdef inline int append_int(self, int64_t value) except -1:
        if value < self.low or value > self.high:
            return REFUSED
        cdef char* at = self.values.grow(self.width)
        if self.width == 8:
            (<int64_t*>at)[0] = value
        elif self.width == 4:
            (<int32_t*>at)[0] = <int32_t>value
        elif self.width == 2:
            (<int16_t*>at)[0] = <int16_t>value
        else:
            (<int8_t*>at)[0] = <int8_t>value
        return self.valid()


@cython.final
cdef class FloatBuilder(FixedBuilder):
    cdef bint single

    cdef inline int append_double(self, double value) except -1:
        if self.single:
            (<float*>self.values.grow(4))[0] = <float>value
        else:
            (<double*>self.values.grow(8))[0] = value
        return self.valid()


@cython.final
cdef class BoolBuilder(Builder):
    cdef Bitmap values

    cdef inline int append_bool(self, bint value) except -1:
        self.values.append(value)
        return self.valid()


@cython.final
cdef class BinaryBuilder(Builder):
    """string (UTF-8) and binary columns: int32 offsets and the bytes."""
    cdef Buffer offsets, values
    cdef bint text

    cdef inline int append_bytes(self, const char* data, Py_ssize_t size) except -1:
        cdef Py_ssize_t end = self.values.size + size
        cdef char* at
        cdef Py_ssize_t i
        if end > INT32_MAX:
            return REFUSED
        if size > 16:
            memcpy(self.values.grow(size), data, size)
        elif size:  # most text in a row is short: no call for it
            at = self.values.grow(size)
            for i in range(size):
                at[i] = data[i]
        (<int32_t*>self.offsets.grow(4))[0] = <int32_t>end
        return self.valid()

    cdef inline int append_latin1(self, const unsigned char* data, Py_ssize_t size) except -1:
        """Latin-1 bytes as UTF-8 text, as ``bytes.decode("latin-1")`` reads them (each
        byte is the code point of its value: two bytes from 0x80 on)."""
        cdef Py_ssize_t i, wide = 0
        cdef char* at
        for i in range(size):
            wide += data[i] >> 7
        if self.values.size + size + wide > INT32_MAX:
            return REFUSED
        at = self.values.grow(size + wide)
        for i in range(size):
            if data[i] < 0x80:
                at[0] = <char>data[i]
                at += 1
            else:
                at[0] = <char>(0xc0 | (data[i] >> 6))
                at[1] = <char>(0x80 | (data[i] & 0x3f))
                at += 2
        (<int32_t*>self.offsets.grow(4))[0] = <int32_t>self.values.size
        return self.valid()


@cython.final
cdef class DecimalBuilder(FixedBuilder):
    """decimal128 columns of integers (scale 0)."""
    cdef int64_t least
    cdef uint64_t most
    """the values its precision holds (``least`` of the negative ones)"""

    cdef inline int append_uint(self, uint64_t value) except -1:
        if value > self.most:
            return REFUSED
        cdef uint64_t* at = <uint64_t*>self.values.grow(16)
        at[0] = value
        at[1] = 0
        return self.valid()

    cdef inline int append_int(self, int64_t value) except -1:
        if value >= 0:
            return self.append_uint(<uint64_t>value)
        if value < self.least:
            return REFUSED
        cdef int64_t* at = <int64_t*>self.values.grow(16)
        at[0] = value
        at[1] = -1
        return self.valid()


@cython.final
cdef class ListBuilder(Builder):
    """A list column (a map: its child a struct of key and value): append the elements to
    ``child``, then close_list()."""
    cdef Buffer offsets
    cdef readonly Builder child

    cdef inline int close_list(self) except -1:
        if self.child.length > INT32_MAX:
            return REFUSED
        (<int32_t*>self.offsets.grow(4))[0] = <int32_t>self.child.length
        return self.valid()


@cython.final
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
    SCALAR_LATIN1 = 6  # Latin-1 bytes: UTF-8 text once each byte is a code point


cdef struct Scalar:
    int kind
    int64_t i
    double d
    const char* p
    Py_ssize_t n


# Each appends to a builder of the matching kind (0, or REFUSED: see the top), and raises
# TypeError into any other
cdef int wrong_column(Builder builder, str what) except -1


cdef inline int put_int(Builder builder, int64_t value) except -1:
    if type(builder) is not IntBuilder:
        return wrong_column(builder, "an integer")
    return (<IntBuilder>builder).append_int(value)


cdef inline int put_double(Builder builder, double value) except -1:
    if type(builder) is not FloatBuilder:
        return wrong_column(builder, "a float")
    return (<FloatBuilder>builder).append_double(value)


cdef inline int put_bool(Builder builder, bint value) except -1:
    if type(builder) is not BoolBuilder:
        return wrong_column(builder, "a bool")
    return (<BoolBuilder>builder).append_bool(value)


cdef inline int put_decimal(Builder builder, uint64_t value) except -1:
    if type(builder) is not DecimalBuilder:
        return wrong_column(builder, "a decimal")
    return (<DecimalBuilder>builder).append_uint(value)


cdef inline int put_bytes(Builder builder, const char* data, Py_ssize_t size, bint text) except -1:
    if type(builder) is not BinaryBuilder or (<BinaryBuilder>builder).text != text:
        return wrong_column(builder, "text" if text else "bytes")
    return (<BinaryBuilder>builder).append_bytes(data, size)


cdef inline int put_latin1(Builder builder, const char* data, Py_ssize_t size) except -1:
    if type(builder) is not BinaryBuilder or not (<BinaryBuilder>builder).text:
        return wrong_column(builder, "text")
    return (<BinaryBuilder>builder).append_latin1(<const unsigned char*>data, size)


cdef inline int put_uuid(Builder builder, const unsigned char* raw) except -1:
    """16 bytes as UUID text, as ``str(uuid.UUID(bytes=...))``."""
    cdef char text[36]
    cdef const char* digits = b"0123456789abcdef"
    cdef int i, at = 0
    if type(builder) is not BinaryBuilder or not (<BinaryBuilder>builder).text:
        return wrong_column(builder, "text")
    for i in range(16):
        if i == 4 or i == 6 or i == 8 or i == 10:
            text[at] = b"-"
            at += 1
        text[at] = digits[raw[i] >> 4]
        text[at + 1] = digits[raw[i] & 15]
        at += 2
    return (<BinaryBuilder>builder).append_bytes(text, 36)


cdef inline int put_micros(Builder builder, int64_t value, bint fits) except -1:
    """``timestamp_us``'s number column: ``value``, null where the number read does not
    fit int64 (``fits`` False)."""
    if type(builder) is not IntBuilder:
        return wrong_column(builder, "an integer")
    if not fits:
        return builder.null()
    return (<IntBuilder>builder).append_int(value)


cdef inline int put_time_us(Builder builder, int64_t value, bint fits) except -1:
    """``timestamp_us``'s timestamp column: null where Python's datetime has no such time
    (years 1 to 9999)."""
    if fits and (value < -62135596800000000 or value > 253402300799999999):
        fits = False
    return put_micros(builder, value, fits)


cdef inline object last_int(Builder builder):
    """The last value of an integer column as Python reads it from the model (None where
    it is null): what an expression reads of a list's element written by its own writer."""
    cdef Py_ssize_t i = builder.length - 1
    cdef IntBuilder ints
    cdef const char* at
    if type(builder) is not IntBuilder or i < 0:
        raise TypeError("no integer written")
    if builder.validity is not None and not ((<uint8_t*>builder.validity.bytes.ptr)[i >> 3] >> (i & 7)) & 1:
        return None
    ints = <IntBuilder>builder
    at = ints.values.ptr + i * ints.width
    if ints.width == 8:
        return (<const int64_t*>at)[0]
    if ints.width == 4:
        return (<const int32_t*>at)[0]
    if ints.width == 2:
        return (<const int16_t*>at)[0]
    return (<const int8_t*>at)[0]


cdef inline int put_object(Builder builder, object value) except -1:
    """A Python value (a spec expression's) as ``pa.array`` takes it into the column."""
    return builder.append_value(value)


cdef inline int put_scalar(Builder builder, Scalar* value) except -1:
    if value.kind == SCALAR_INT:
        return put_int(builder, value.i)
    if value.kind == SCALAR_FLOAT:
        return put_double(builder, value.d)
    if value.kind == SCALAR_BOOL:
        return put_bool(builder, value.i != 0)
    if value.kind == SCALAR_TEXT or value.kind == SCALAR_BYTES:
        return put_bytes(builder, value.p, value.n, value.kind == SCALAR_TEXT)
    if value.kind == SCALAR_LATIN1:
        return put_latin1(builder, value.p, value.n)
    return builder.null()


cdef int utf8_decodes(const unsigned char* data, Py_ssize_t size) except -1


cdef inline int utf8_valid(const unsigned char* data, Py_ssize_t size) except -1:
    """1 when ``bytes.decode("utf-8")`` takes these bytes, else 0 (ASCII checked here,
    the rest by Python's own decoder, so exactly the same bytes pass)."""
    cdef Py_ssize_t i
    for i in range(size):
        if data[i] >= 0x80:
            return utf8_decodes(data, size)
    return 1


# A binary (or large_binary) input column, read where Arrow holds it: no bytes object a value
cdef struct BinaryColumn:
    const unsigned char* data
    Py_ssize_t data_size
    const char* offsets
    bint wide
    const uint8_t* validity
    Py_ssize_t offset
    Py_ssize_t length


cdef int binary_column(object array, BinaryColumn* out) except -1


cdef inline bint binary_value(BinaryColumn* column, Py_ssize_t i, const unsigned char** data,
                              Py_ssize_t* size) noexcept:
    """Value ``i`` of ``column`` (``0 <= i < column.length``) as a pointer and a size, or
    False for a null or a value whose offsets do not lie within the data buffer."""
    cdef Py_ssize_t at = column.offset + i
    cdef int64_t start, end
    if column.validity != NULL and not (column.validity[at >> 3] >> (at & 7)) & 1:
        return False
    if column.wide:
        start, end = (<const int64_t*>column.offsets)[at], (<const int64_t*>column.offsets)[at + 1]
    else:
        start, end = (<const int32_t*>column.offsets)[at], (<const int32_t*>column.offsets)[at + 1]
    if start < 0 or start > end or end > column.data_size:
        return False
    data[0] = column.data + start
    size[0] = <Py_ssize_t>(end - start)
    return True
