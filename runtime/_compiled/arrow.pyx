# cython: language_level=3, boundscheck=False, wraparound=False
"""Arrow columns written straight from decoded models: typed builders that fill C buffers
and end in ``pyarrow.Array.from_buffers``, and a writer driven by a generated module's
``SPARK_COLUMNS`` table, so a batch of models becomes its Spark columns without the row
tuples of ``to_rows`` (which cost most of a Spark worker's time).

The writer gives exactly the Arrow that ``pa.array(to_rows columns, type)`` gives, or raises:
on anything it does not take as it is (a value of an unexpected Python type, a value its
column does not take, a None where ``<record>_to_row`` would fail) it raises, and the caller
(``runtime.spark.decode.BatchDecoder``) builds that batch the Python way instead, so results
and errors stay those of the Python path. Index checks (``boundscheck=False``) are safe:
every index below is a position the builder itself grew its buffer to.
"""

import datetime
import decimal

from cpython.bool cimport PyBool_Check
from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_Resize
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_Check, PyBytes_GET_SIZE
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_Check
from cpython.list cimport PyList_Check
from cpython.exc cimport PyErr_Clear, PyErr_ExceptionMatches
from cpython.long cimport (PyLong_AsLongLong, PyLong_AsLongLongAndOverflow,
                           PyLong_AsUnsignedLongLong, PyLong_Check)
from cpython.object cimport PyObject, PyTypeObject, Py_TYPE
from cpython.tuple cimport PyTuple_Check
from cpython.unicode cimport PyUnicode_Check, PyUnicode_DecodeUTF8
from libc.stdint cimport INT32_MAX, INT64_MIN, UINT64_MAX, int8_t, int16_t, int32_t, int64_t
from libc.stdint cimport uint8_t
from libc.string cimport memcpy, memset


cdef extern from "Python.h":
    const char* PyUnicode_AsUTF8AndSize(object text, Py_ssize_t* size)


cdef extern from "structmember.h":
    ctypedef struct PyMemberDef:
        const char* name
        int type
        Py_ssize_t offset
    ctypedef struct PyMemberDescrObject:
        PyMemberDef* d_member
    enum:
        T_OBJECT_EX


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


# -- model slots ------------------------------------------------------------------------


cdef class Slot:
    """Reads one attribute of a model (``a.b``: through an inlined record). A slotted
    dataclass's attribute is read at its offset once the model's type is known."""

    cdef str name
    cdef Slot rest
    cdef object known_type
    cdef Py_ssize_t offset

    def __init__(self, str path):
        name, _, rest = path.partition(".")
        self.name = name
        self.rest = Slot(rest) if rest else None

    cdef object get(self, object model):
        cdef PyObject* value
        if <PyObject*>Py_TYPE(model) == <PyObject*>self.known_type:
            value = (<PyObject**>((<char*><PyObject*>model) + self.offset))[0]
            if value == NULL:
                raise AttributeError(self.name)
            found = <object>value
        else:
            found = self.learn(model)
        return found if self.rest is None else self.rest.get(found)

    cdef object learn(self, object model):
        """The attribute the slow way, and where it is when the model's class has it as a
        slot (a member descriptor)."""
        cdef PyMemberDescrObject* member
        for klass in type(model).__mro__:
            descriptor = klass.__dict__.get(self.name)
            if descriptor is not None:
                if type(descriptor) is _MEMBER_DESCRIPTOR:
                    member = <PyMemberDescrObject*>descriptor
                    if member.d_member.type == T_OBJECT_EX:
                        self.known_type = type(model)
                        self.offset = member.d_member.offset
                break
        return getattr(model, self.name)


class _Slotted:
    __slots__ = ("x",)


_MEMBER_DESCRIPTOR = type(_Slotted.__dict__["x"])


# -- writers: one per column kind of SPARK_COLUMNS ----------------------------------------


cdef class Writer:
    """Appends one model value to ``builder`` as its Spark value (one column kind)."""

    cdef Builder builder
    cdef bint nullable
    """Whether a None is a null (else ``<record>_to_row`` fails on it, and so does this)."""

    cdef int write(self, object value) except -1:
        if value is None:
            if not self.nullable:
                raise TypeError("None where the row conversion needs a value")
            return self.builder.null()
        return does_not_fit(self.builder) if self.put(value) else 0

    cdef int put(self, object value) except -1:
        return self.builder.append_value(value)


cdef class EnumWriter(Writer):
    """An enum member as its name; names are remembered per member (few per column)."""

    cdef list members, names

    def __init__(self):
        self.members, self.names = [], []

    cdef int put(self, object value) except -1:
        cdef Py_ssize_t i
        cdef bytes name
        for i in range(len(self.members)):
            if self.members[i] is value:
                name = <bytes>self.names[i]
                return (<BinaryBuilder>self.builder).append_bytes(
                    PyBytes_AS_STRING(name), PyBytes_GET_SIZE(name)
                )
        text = value.name
        if text is None:  # a flag with no name: pa.array makes it a null
            return self.builder.null()
        if len(self.members) < 64 and PyUnicode_Check(text):
            self.members.append(value)  # kept alive here, so its identity stays its own
            self.names.append(text.encode("utf-8"))
        return self.builder.append_value(text)


cdef class UuidWriter(Writer):
    """16 bytes as UUID text, as ``str(uuid.UUID(bytes=bytes(value)))``."""

    cdef int put(self, object value) except -1:
        raw = bytes(value)
        if len(raw) != 16:
            raise ValueError("bytes is not a 16-char string")
        return put_uuid(self.builder, <const unsigned char*>PyBytes_AS_STRING(raw))


cdef int64_t _int64_or_null(object value, bint *fits) except? -1:
    """``value`` as int64, ``fits`` False (no error) when it is an int outside int64."""
    if not PyLong_Check(value) or PyBool_Check(value):
        raise TypeError(f"{type(value).__name__} as a time")
    fits[0] = -0x8000000000000000 <= value <= 0x7FFFFFFFFFFFFFFF
    return PyLong_AsLongLong(value) if fits[0] else 0


cdef class MicrosWriter(Writer):
    """``timestamp_us``'s number column: the int, null when it does not fit int64."""

    cdef int put(self, object value) except -1:
        cdef bint fits
        cdef int64_t micros = _int64_or_null(value, &fits)
        if not fits:
            return self.builder.null()
        return (<IntBuilder>self.builder).append_int(micros)


_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_MICRO = datetime.timedelta(microseconds=1)
cdef int64_t _FIRST_US = (datetime.datetime.min.replace(tzinfo=datetime.timezone.utc) - _EPOCH) // _MICRO
cdef int64_t _LAST_US = (datetime.datetime.max.replace(tzinfo=datetime.timezone.utc) - _EPOCH) // _MICRO


cdef class TimeWriter(Writer):
    """``timestamp_us``'s timestamp column: null where Python's datetime has no such time."""

    cdef int put(self, object value) except -1:
        cdef bint fits
        cdef int64_t micros = _int64_or_null(value, &fits)
        if not fits or micros < _FIRST_US or micros > _LAST_US:
            return self.builder.null()
        return (<IntBuilder>self.builder).append_int(micros)


cdef class ListWriter(Writer):
    cdef Writer element

    cdef int put(self, object value) except -1:
        if not (PyList_Check(value) or PyTuple_Check(value)):
            raise TypeError(f"{type(value).__name__} as a list")
        for item in value:
            self.element.write(item)
        return (<ListBuilder>self.builder).close_list()


cdef class Column:
    """One column of a record: reads its slot of a model and writes it."""

    cdef Slot slot
    cdef Writer writer

    cdef int write_from(self, object model) except -1:
        return self.writer.write(self.slot.get(model))


cdef class SwitchColumn(Column):
    """A switch: one struct child per case with a payload, only the selected one filled
    (the selector is another slot of the same model), and ``default`` for other codes."""

    cdef Slot selector
    cdef int64_t values[64]
    cdef Py_ssize_t count
    cdef list writers
    """the Writer of each named case, None for a case without payload"""
    cdef Writer default

    cdef int write_from(self, object model) except -1:
        cdef Writer writer
        cdef Py_ssize_t i
        cdef int64_t code = 0
        cdef bint known = False, matched = False, hit
        selected = self.selector.get(model)
        value = self.slot.get(model)
        if selected is not None:
            if not PyLong_Check(selected) or PyBool_Check(selected):
                raise TypeError(f"{type(selected).__name__} as a switch selector")
            code = PyLong_AsLongLong(selected)
            known = True
        for i in range(self.count):
            hit = known and code == self.values[i]
            matched = matched or hit
            writer = <Writer>self.writers[i]
            if writer is None:
                continue
            if hit:
                writer.write(value)
            else:
                writer.builder.null()
        if self.default is not None:
            if matched:
                self.default.builder.null()
            else:
                self.default.write(value)
        return self.writer.builder.valid()


cdef class RecordWriter(Writer):
    cdef list columns

    cdef int put(self, object value) except -1:
        cdef Column column
        for column in self.columns:
            column.write_from(value)
        return self.builder.valid()


# -- compiling a table into writers ------------------------------------------------------

_RAW_KINDS = {"int": "integer", "float": "floating", "bool": "boolean", "string": "string", "binary": "binary"}


cdef bint _raw(kind):
    """Whether ``<record>_to_row`` puts a value of ``kind`` into the row as it is."""
    if isinstance(kind, tuple):
        return kind[0] == "list" and _raw(kind[1])
    return kind in _RAW_KINDS


cdef Writer _writer(kind, Builder builder, bint nullable, dict tables):
    """The writer of ``kind`` into ``builder`` (made from the Arrow type); TypeError when
    the two disagree."""
    cdef Writer writer
    arrow_type = builder.type
    types = _pa().types
    if kind in _RAW_KINDS:
        if not getattr(types, "is_" + _RAW_KINDS[kind])(arrow_type):
            raise TypeError(f"kind {kind} in an Arrow {arrow_type} column")
        writer = Writer()
    elif kind == "decimal" and types.is_decimal128(arrow_type) and arrow_type.precision >= 20:
        writer = Writer()
    elif kind == "enum" and types.is_string(arrow_type):
        writer = EnumWriter()
    elif kind == "uuid" and types.is_string(arrow_type):
        writer = UuidWriter()
    elif kind == "micros" and arrow_type == _pa().int64():
        writer = MicrosWriter()
    elif kind == "time_us" and types.is_timestamp(arrow_type) and arrow_type.unit == "us":
        writer = TimeWriter()
    elif isinstance(kind, tuple) and kind[0] == "list" and types.is_list(arrow_type):
        writer = ListWriter()
        child = (<ListBuilder>builder).child
        (<ListWriter>writer).element = _writer(kind[1], child, _raw(kind[1]), tables)
    elif isinstance(kind, tuple) and kind[0] == "record" and types.is_struct(arrow_type):
        writer = RecordWriter()
        (<RecordWriter>writer).columns = _columns(
            tables[kind[1]], list(arrow_type), (<StructBuilder>builder).children, tables
        )
    else:
        raise TypeError(f"kind {kind!r} in an Arrow {arrow_type} column")
    writer.builder = builder
    writer.nullable = nullable
    return writer


cdef Column _column(tuple entry, field, Builder builder, dict tables):
    cdef Column column
    name, slot, kind, nullable = entry
    if name != field.name:
        raise TypeError(f"column {name} where Arrow has {field.name}")
    if isinstance(kind, tuple) and kind[0] == "switch":
        column = _switch(kind, builder, tables)
    else:
        column = Column()
        column.writer = _writer(kind, builder, nullable, tables)
    column.slot = Slot(slot)
    return column


cdef SwitchColumn _switch(tuple kind, Builder builder, dict tables):
    _, selector, cases, default = kind
    cdef SwitchColumn column = SwitchColumn()
    if not _pa().types.is_struct(builder.type):
        raise TypeError(f"switch {kind!r} in an Arrow {builder.type} column")
    children = (<StructBuilder>builder).children
    with_payload = [k for _, k in cases if k is not None] + ([default] if default else [])
    if len(children) != len(with_payload) or len(cases) > 64:
        raise TypeError(f"switch {kind!r} in an Arrow {builder.type} column")
    column.selector = Slot(selector)
    column.writer = Writer()
    column.writer.builder = builder
    column.writers = []
    column.count = len(cases)
    payload = iter(children)
    for i, (case, case_kind) in enumerate(cases):
        column.values[i] = case
        writer = None
        if case_kind is not None:
            writer = _writer(case_kind, next(payload), _raw(case_kind), tables)
        column.writers.append(writer)
    if default:
        column.default = _writer(default, next(payload), _raw(default), tables)
    return column


cdef list _columns(tuple entries, list fields, list builders, dict tables):
    if len(entries) != len(fields):
        raise TypeError(f"{len(entries)} columns where Arrow has {len(fields)}")
    return [_column(e, f, b, tables) for e, f, b in zip(entries, fields, builders)]


cdef class RowWriter:
    """Spark rows of one record's models, written column by column into Arrow builders.

    ``tables`` is a generated module's ``SPARK_COLUMNS``, ``record`` the record of a row,
    ``fields`` the Arrow fields to build (the record's columns, or some of them in order).
    Raises TypeError when the table and the Arrow fields disagree."""

    cdef list columns
    cdef readonly Py_ssize_t rows

    def __init__(self, dict tables, str record, fields):
        by_name = {entry[0]: entry for entry in tables[record]}
        self.columns = []
        for field in fields:
            if field.name not in by_name:
                raise TypeError(f"{record} has no column {field.name}")
            entry = by_name[field.name]
            self.columns.append(_column(entry, field, builder_for(field.type), tables))

    cdef int _append(self, object model) except -1:
        cdef Column column
        for column in self.columns:
            column.write_from(model)
        self.rows += 1
        return 0

    def append(self, model):
        """One row. If it raises, the columns are left part-written: call reset()."""
        self._append(model)

    def extend(self, items):
        """One row per item (a record whose rows are its elements); returns how many."""
        cdef Py_ssize_t n = 0
        for item in items:
            self._append(item)
            n += 1
        return n

    def write_parsed(self, parse, list values, Py_ssize_t start, Py_ssize_t stop,
                     str record, dict limits, row_field, list counts):
        """``parse(value, record, **limits)`` of ``values[start:stop]`` written as rows (the
        elements named ``row_field`` of each model, or the model itself when it is None),
        each one's number of rows appended to ``counts``: a Spark worker's loop without a
        Python frame a message. Returns where it stopped: ``stop``, or the first value that
        is None or whose parse raises, left to the caller, whose error handling decides it.
        A row the writer does not take raises as :meth:`append` does (``len(counts)`` is then
        that value's index)."""
        cdef Py_ssize_t i, n
        for i in range(start, stop):
            value = values[i]
            if value is None:
                return i
            try:
                model = parse(value, record, **limits) if limits else parse(value, record)
            except Exception:  # any: the caller parses it again and its handling decides
                return i
            if row_field is None:
                self._append(model)
                counts.append(1)
            else:
                n = 0
                for item in getattr(model, row_field):
                    self._append(item)
                    n += 1
                counts.append(n)
        return stop

    def finish(self):
        """One Arrow array per column; the writer is empty again."""
        cdef Column column
        self.rows = 0
        return [column.writer.builder.finish() for column in self.columns]

    def reset(self):
        """Drop what was written (after a row raised)."""
        cdef Column column
        for column in self.columns:
            column.writer.builder.reset()
        self.rows = 0
