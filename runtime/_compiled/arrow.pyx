# cython: language_level=3, boundscheck=False, wraparound=False
"""Arrow columns written into C buffers: typed builders that end in
``pyarrow.Array.from_buffers``, filled by the compiled tier's ``write_arrow`` straight from
the bytes (the C values of ``put_*``, arrow.pxd) and, for a message it hands back, by
``StructBuilder.append`` of the message's row tuples (``runtime.spark.decode.BatchDecoder``),
so both land in the same columns.

A value its column does not take is refused (``REFUSED``) by the C puts and raises from
the Python-facing appends; the caller then builds that batch the Python way, so results
and errors stay those of ``pa.array``. Index checks (``boundscheck=False``) are safe: every
index below is a position the builder itself grew its buffer to.
"""

import decimal

from cpython.bool cimport PyBool_Check
from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_Resize
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_Check, PyBytes_GET_SIZE
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_Check
from cpython.list cimport PyList_Check
from cpython.exc cimport PyErr_Clear, PyErr_ExceptionMatches
from cpython.long cimport (PyLong_AsLongLong, PyLong_AsLongLongAndOverflow,
                           PyLong_AsUnsignedLongLong, PyLong_Check)
from cpython.tuple cimport PyTuple_Check
from cpython.unicode cimport PyUnicode_Check, PyUnicode_DecodeUTF8
from libc.stdint cimport INT64_MIN, UINT64_MAX, int32_t, int64_t
from libc.stdint cimport uint8_t
from libc.string cimport memset


cdef extern from "Python.h":
    const char* PyUnicode_AsUTF8AndSize(object text, Py_ssize_t* size)


cdef object _pyarrow = None


cdef object _pa():
    """pyarrow, imported the first time a builder needs it: a generated module cimports
    the builders, and importing it must not import pyarrow."""
    global _pyarrow
    if _pyarrow is None:
        import pyarrow

        _pyarrow = pyarrow
    return _pyarrow


# -- buffers ----------------------------------------------------------------------------


cdef class Buffer:
    def __cinit__(self):
        self.data = bytearray()
        self.ptr = PyByteArray_AS_STRING(self.data)

    cdef int reserve(self, Py_ssize_t need) except -1:
        """Room for ``need`` bytes in all (``grow``'s slow path, inline in arrow.pxd)."""
        cdef Py_ssize_t capacity = max(need, 2 * self.capacity, 64, self.hint)
        PyByteArray_Resize(self.data, capacity)
        self.ptr = PyByteArray_AS_STRING(self.data)
        self.capacity = capacity
        return 0

    cdef object finish(self):
        """The bytes as a pyarrow Buffer (sharing them); this buffer starts empty again."""
        PyByteArray_Resize(self.data, self.size)
        out = _pa().py_buffer(self.data)
        self.hint = self.size
        self.data = bytearray()
        self.ptr = PyByteArray_AS_STRING(self.data)
        self.size = self.capacity = 0
        return out

    cdef void clear(self) noexcept:
        """Empty (its room and hint kept)."""
        self.size = 0


cdef class Bitmap:
    def __cinit__(self):
        self.bytes = Buffer()

    cdef int append_ones(self, Py_ssize_t n) except -1:
        cdef Py_ssize_t i
        for i in range(n):
            self.append(True)
        return 0

    cdef Py_ssize_t zeros(self, Py_ssize_t start) noexcept:
        """How many bits from ``start`` to the end are 0."""
        cdef Py_ssize_t i, n = 0
        for i in range(start, self.length):
            n += not ((<uint8_t*>self.bytes.ptr)[i >> 3] >> (i & 7)) & 1
        return n

    cdef void truncate(self, Py_ssize_t length) noexcept:
        """The first ``length`` bits only (the bits after them in their byte cleared, as
        ``append`` expects them)."""
        self.length = length
        self.bytes.size = (length + 7) >> 3
        if length & 7:
            (<uint8_t*>self.bytes.ptr)[length >> 3] &= <uint8_t>((1 << (length & 7)) - 1)


# -- builders ---------------------------------------------------------------------------


cdef class Builder:
    def __init__(self, arrow_type):
        self.type = arrow_type

    cdef int start_validity(self) except -1:
        """The validity bitmap, at the first null (``null`` is inline in arrow.pxd)."""
        self.validity = Bitmap()
        self.validity.append_ones(self.length)
        return 0

    cdef int fill_null(self) except -1:
        """What a null slot holds in the data buffers (zeros, an empty list)."""
        return 0

    cdef int append_value(self, object value) except -1:
        """A Spark value as ``pa.array`` would take it from a row tuple (the plain types
        only; anything else raises so the caller uses the Python path)."""
        raise TypeError(f"no plain value of {self.type}")

    cdef object validity_buffer(self):
        return None if self.validity is None else self.validity.bytes.finish()

    cdef int truncate(self, Py_ssize_t length) except -1:
        """Back to the first ``length`` slots: what a compiled reader wrote of a record it
        then declined is dropped, so the record can be written the Python way instead."""
        if length < self.length:
            if self.validity is not None:
                self.nulls -= self.validity.zeros(length)
                self.validity.truncate(length)
            self.length = length
        # children too when the length is the same: a list's elements or a struct's fields
        # may be written past it (the record declined before its own slot was closed)
        return self.truncate_values(length)

    cdef int truncate_values(self, Py_ssize_t length) except -1:
        """The data buffers' part of :meth:`truncate`."""
        return 0

    cdef void reset(self):
        self.length = self.nulls = 0
        self.validity = None

    cpdef object finish(self):
        raise NotImplementedError

    def append(self, value):
        """One value as ``pa.array`` takes it from a row (a struct's: the row tuple); a
        value its column does not take raises OverflowError (the builder part-written)."""
        if self.append_value(value):
            does_not_fit(self)

    def clear(self):
        """Drop everything written."""
        self.reset()

    @property
    def size(self):
        """How many values were written."""
        return self.length


cdef class FixedBuilder(Builder):
    def __init__(self, arrow_type, int width):
        Builder.__init__(self, arrow_type)
        self.values = Buffer()
        self.width = width

    cdef int fill_null(self) except -1:
        cdef char* at = self.values.grow(self.width)
        if self.width == 8:  # most: no call for eight zeros
            (<int64_t*>at)[0] = 0
        else:
            memset(at, 0, self.width)
        return 0

    cdef int truncate_values(self, Py_ssize_t length) except -1:
        self.values.size = length * self.width
        return 0

    cdef void reset(self):
        Builder.reset(self)
        self.values.clear()

    cpdef object finish(self):
        out = _pa().Array.from_buffers(
            self.type, self.length, [self.validity_buffer(), self.values.finish()], self.nulls
        )
        self.reset()
        return out


cdef class IntBuilder(FixedBuilder):
    def __init__(self, arrow_type):
        FixedBuilder.__init__(self, arrow_type, arrow_type.bit_width // 8)
        self.high = (1 << (8 * self.width - 1)) - 1 if self.width < 8 else 0x7FFFFFFFFFFFFFFF
        self.low = -self.high - 1

    cdef int append_value(self, object value) except -1:
        cdef int overflow
        if not PyLong_Check(value) or PyBool_Check(value):
            raise TypeError(f"{type(value).__name__} in {self.type} column")
        cdef int64_t number = PyLong_AsLongLongAndOverflow(value, &overflow)
        if overflow:
            return REFUSED
        return self.append_int(number)

cdef class FloatBuilder(FixedBuilder):
    def __init__(self, arrow_type):
        FixedBuilder.__init__(self, arrow_type, arrow_type.bit_width // 8)
        self.single = arrow_type.bit_width == 32

    cdef int append_value(self, object value) except -1:
        if not PyFloat_Check(value):
            raise TypeError(f"{type(value).__name__} in {self.type} column")
        return self.append_double(PyFloat_AS_DOUBLE(value))

cdef class BoolBuilder(Builder):
    def __init__(self, arrow_type):
        Builder.__init__(self, arrow_type)
        self.values = Bitmap()

    cdef int fill_null(self) except -1:
        return self.values.append(False)

    cdef int truncate_values(self, Py_ssize_t length) except -1:
        self.values.truncate(length)
        return 0

    cdef int append_value(self, object value) except -1:
        if not PyBool_Check(value):
            raise TypeError(f"{type(value).__name__} in {self.type} column")
        return self.append_bool(value is True)

    cdef void reset(self):
        Builder.reset(self)
        self.values = Bitmap()

    cpdef object finish(self):
        buffers = [self.validity_buffer(), self.values.bytes.finish()]
        out = _pa().Array.from_buffers(self.type, self.length, buffers, self.nulls)
        self.reset()
        return out


cdef class BinaryBuilder(Builder):
    def __init__(self, arrow_type):
        Builder.__init__(self, arrow_type)
        self.text = _pa().types.is_string(arrow_type)
        self.values, self.offsets = Buffer(), Buffer()
        self.reset()

    cdef int fill_null(self) except -1:
        (<int32_t*>self.offsets.grow(4))[0] = <int32_t>self.values.size
        return 0

    cdef int truncate_values(self, Py_ssize_t length) except -1:
        self.offsets.size = (length + 1) * 4
        self.values.size = (<int32_t*>self.offsets.ptr)[length]
        return 0

    cdef int append_value(self, object value) except -1:
        cdef Py_ssize_t size
        cdef const char* data
        if self.text and PyUnicode_Check(value):
            data = PyUnicode_AsUTF8AndSize(value, &size)
            if data == NULL:  # refused where a lone surrogate has no UTF-8 form
                if not PyErr_ExceptionMatches(UnicodeEncodeError):
                    return -1  # raised as it is
                PyErr_Clear()
                return REFUSED
            return self.append_bytes(data, size)
        if not self.text and PyBytes_Check(value):
            return self.append_bytes(PyBytes_AS_STRING(value), PyBytes_GET_SIZE(value))
        raise TypeError(f"{type(value).__name__} in {self.type} column")

    cdef void reset(self):
        Builder.reset(self)
        self.values.clear()
        self.offsets.clear()
        (<int32_t*>self.offsets.grow(4))[0] = 0

    cpdef object finish(self):
        buffers = [self.validity_buffer(), self.offsets.finish(), self.values.finish()]
        out = _pa().Array.from_buffers(self.type, self.length, buffers, self.nulls)
        self.reset()
        return out


cdef class DecimalBuilder(FixedBuilder):
    def __init__(self, arrow_type):
        FixedBuilder.__init__(self, arrow_type, 16)
        self.most = min(10**arrow_type.precision - 1, UINT64_MAX)
        self.least = max(-(10**arrow_type.precision - 1), INT64_MIN)

    cdef int append_value(self, object value) except -1:
        """An int, or a Decimal of one (a row's: a message the compiled reader declined)."""
        if not PyLong_Check(value) or PyBool_Check(value):
            if type(value) is not decimal.Decimal or value.as_tuple().exponent != 0:
                raise TypeError(f"{type(value).__name__} as a decimal")
            value = int(value)
        if not INT64_MIN <= value <= UINT64_MAX:
            return REFUSED
        if value < 0:
            return self.append_int(PyLong_AsLongLong(value))
        return self.append_uint(PyLong_AsUnsignedLongLong(value))

cdef class ListBuilder(Builder):
    def __init__(self, arrow_type):
        Builder.__init__(self, arrow_type)
        if _pa().types.is_map(arrow_type):  # a map: a list of (key, value) structs
            self.child = StructBuilder(_pa().struct([arrow_type.key_field, arrow_type.item_field]))
        else:
            self.child = builder_for(arrow_type.value_type)
        self.offsets = Buffer()
        self.reset()

    cdef int fill_null(self) except -1:
        (<int32_t*>self.offsets.grow(4))[0] = <int32_t>self.child.length
        return 0

    cdef int truncate_values(self, Py_ssize_t length) except -1:
        self.offsets.size = (length + 1) * 4
        return self.child.truncate((<int32_t*>self.offsets.ptr)[length])

    cdef int append_value(self, object value) except -1:
        if isinstance(value, dict) and _pa().types.is_map(self.type):
            value = list(value.items())
        elif not (PyList_Check(value) or PyTuple_Check(value)):
            raise TypeError(f"{type(value).__name__} in {self.type} column")
        for item in value:
            if item is None:
                self.child.null()
            elif self.child.append_value(item):
                return REFUSED
        return self.close_list()

    cdef void reset(self):
        Builder.reset(self)
        self.child.reset()
        self.offsets.clear()
        (<int32_t*>self.offsets.grow(4))[0] = 0

    cpdef object finish(self):
        buffers = [self.validity_buffer(), self.offsets.finish()]
        children = [self.child.finish()]
        out = _pa().Array.from_buffers(self.type, self.length, buffers, self.nulls, children=children)
        self.reset()
        return out


cdef class StructBuilder(Builder):
    def __init__(self, arrow_type):
        Builder.__init__(self, arrow_type)
        self.children = [builder_for(field.type) for field in arrow_type]

    cdef int fill_null(self) except -1:
        cdef Builder child
        for child in self.children:
            child.null()
        return 0

    cdef int truncate_values(self, Py_ssize_t length) except -1:
        cdef Builder child
        for child in self.children:
            child.truncate(length)
        return 0

    cdef int append_value(self, object value) except -1:
        """A row tuple, one item a child (None: a null)."""
        cdef Builder child
        if not PyTuple_Check(value) or len(value) != len(self.children):
            raise TypeError(f"{type(value).__name__} in {self.type} column")
        for child, item in zip(self.children, value):
            if item is None:
                child.null()
            elif child.append_value(item):
                return REFUSED
        return self.valid()

    cdef void reset(self):
        cdef Builder child
        Builder.reset(self)
        for child in self.children:
            child.reset()

    cpdef object finish(self):
        cdef Builder child
        children = [child.finish() for child in self.children]
        buffers = [self.validity_buffer()]
        out = _pa().Array.from_buffers(self.type, self.length, buffers, self.nulls, children=children)
        self.reset()
        return out


cpdef Builder builder_for(object arrow_type):
    """An empty builder of ``arrow_type`` (the types Spark's Arrow schemas use)."""
    types = _pa().types
    if types.is_integer(arrow_type) or types.is_timestamp(arrow_type):
        return IntBuilder(arrow_type)
    if types.is_floating(arrow_type) and not types.is_float16(arrow_type):
        return FloatBuilder(arrow_type)
    if types.is_boolean(arrow_type):
        return BoolBuilder(arrow_type)
    if types.is_string(arrow_type) or types.is_binary(arrow_type):
        return BinaryBuilder(arrow_type)
    if types.is_decimal128(arrow_type) and arrow_type.scale == 0:
        return DecimalBuilder(arrow_type)
    if types.is_list(arrow_type) or types.is_map(arrow_type):
        return ListBuilder(arrow_type)
    if types.is_struct(arrow_type):
        return StructBuilder(arrow_type)
    raise TypeError(f"no Arrow builder for {arrow_type}")


# -- the input column -------------------------------------------------------------------


cdef const unsigned char* _NO_BYTES = b""  # the data of a column of empty values only


cdef int binary_column(object array, BinaryColumn* out) except -1:
    """``out`` reads ``array`` (a pyarrow binary or large_binary Array, kept alive by the
    caller) where its buffers are. Raises TypeError for any other array, ValueError when
    its offsets buffer is shorter than its length needs (each value's offsets are checked
    against the data buffer as it is read: ``binary_value``)."""
    types = _pa().types
    if not (types.is_binary(array.type) or types.is_large_binary(array.type)):
        raise TypeError(f"a {array.type} column, not binary")
    validity, offsets, data = array.buffers()
    out.wide = types.is_large_binary(array.type)
    out.offset, out.length = array.offset, len(array)
    if out.length == 0:
        out.offsets, out.data, out.data_size, out.validity = NULL, _NO_BYTES, 0, NULL
        return 0
    if offsets is None or offsets.size < (out.offset + out.length + 1) * (8 if out.wide else 4):
        raise ValueError("a binary column's offsets buffer is shorter than its length")
    if validity is not None and validity.size * 8 < out.offset + out.length:
        raise ValueError("a binary column's validity buffer is shorter than its length")
    out.offsets = <const char*><size_t>offsets.address
    out.validity = NULL
    if validity is not None:
        out.validity = <const uint8_t*><size_t>validity.address
    out.data, out.data_size = _NO_BYTES, 0
    if data is not None:
        out.data, out.data_size = <const unsigned char*><size_t>data.address, data.size
    return 0


# -- values a compiled reader read (C values, no Python objects) -------------------------


cdef int wrong_column(Builder builder, str what) except -1:
    raise TypeError(f"{what} in a {builder.type} column")


cdef int does_not_fit(Builder builder) except -1:
    """What a Python-facing append raises where ``builder`` refused the value."""
    raise OverflowError(f"a value {builder.type} does not take")


cdef int utf8_decodes(const unsigned char* data, Py_ssize_t size) except -1:
    """``utf8_valid``'s text that is not ASCII: whether Python's own decoder takes it."""
    try:
        PyUnicode_DecodeUTF8(<const char*>data, size, NULL)
    except UnicodeDecodeError:
        return 0
    return 1
