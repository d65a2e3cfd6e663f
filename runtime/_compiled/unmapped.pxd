# cython: language_level=3
"""What a rendered way back of a ``map:`` (generator/emit/compiled_unmapping.py) does beside
its checks: a value encoded by a kind table (``runtime.core.value_kinds.ValueKinds.quick_encode``)
straight into the scratch buffer, names held from a model's check to its message and
interned (``runtime.core.refs.Dictionary.intern``), the C arrays of a batch grown, each
giving what the Python one gives or saying it gives up (the caller declines). Inline only:
a module that cimports these compiles them in."""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.dict cimport PyDict_GetItem
from cpython.list cimport PyList_GET_SIZE
from cpython.long cimport PyLong_AsLongLong
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF, Py_XDECREF
from cpython.unicode cimport PyUnicode_AsUTF8AndSize, PyUnicode_GET_LENGTH
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport realloc
from libc.string cimport memcpy

from runtime._compiled.out cimport Out, put

from runtime._compiled.mapped cimport (
    MAP_BYTES, MAP_F64, MAP_NULL, MAP_SIGNED_UNLESS, MAP_STR, MAP_UVARINT,
)
from runtime._compiled.slots cimport get_slot, slot_offset


cdef inline Py_ssize_t slot_or_none(type cls, str name) except -2:
    """:func:`slot_offset` of ``cls``'s slot ``name`` (what ``model.name`` reads for a model of
    exactly that class), or -1 where it has none, or its attribute lookup is its own (then
    :func:`field_at` uses getattr)."""
    if cls.__getattribute__ is not object.__getattribute__:
        return -1
    try:
        return slot_offset(cls, name)
    except TypeError:
        return -1


cdef inline object field_at(object model, Py_ssize_t offset, str name):
    """``model.name`` of a model of exactly the class :func:`slot_or_none` read ``offset``
    from: the slot read in place (an unset one raises getattr's AttributeError), no lookup."""
    cdef PyObject* value
    if offset < 0:
        return getattr(model, name)
    value = get_slot(model, offset)
    if value == NULL:
        raise AttributeError(name)
    return <object>value


cdef inline int64_t put_unmapped_value(Out* o, const signed char* kinds, object code,
                                      object flags, object value, uint64_t unsigned_flag,
                                      bint big_endian) except -3:
    """The bytes ``ValueKinds.quick_encode`` gives for ``value`` of ``code`` with ``flags``
    put into ``o``: their count, -1 for None (nothing put), -2 where it is UNSURE or would
    use surrogateescape (nothing put: the caller declines).

    >>> # put_unmapped_value(&o, kinds, 3, 0, 2000, ...) puts a0 1f (a ZigZag int) and gives 2
    """
    cdef unsigned char buf[10]
    cdef Py_ssize_t n = 0, size
    cdef signed char kind
    cdef uint64_t u
    cdef int64_t s
    cdef double d
    cdef int k
    cdef const char* text
    if type(code) is not int or not 0 <= code < 256 or kinds[<int>code] < 0:
        return -2
    kind = kinds[<int>code]
    if value is None:
        return -1
    cls = type(value)
    if kind == MAP_BYTES:
        if cls is not bytes:
            return -2
        put(o, <const unsigned char*>PyBytes_AS_STRING(value), PyBytes_GET_SIZE(value))
        return PyBytes_GET_SIZE(value)
    if kind == MAP_STR:
        if cls is not str:
            return -2
        try:
            text = PyUnicode_AsUTF8AndSize(value, &size)
        except UnicodeEncodeError:  # a lone surrogate: surrogateescape's bytes
            return -2
        put(o, <const unsigned char*>text, size)
        return size
    if kind == MAP_F64:
        if cls is not float:
            return -2
        d = value
        memcpy(&u, &d, 8)  # the host is little-endian (checked where this is bound)
        for k in range(8):
            buf[7 - k if big_endian else k] = <unsigned char>(u >> (8 * k))
        put(o, buf, 8)
        return 8
    if kind == MAP_NULL or cls is not int:
        return -2
    if kind == MAP_SIGNED_UNLESS and type(flags) is not int:
        return -2
    if kind == MAP_UVARINT or (kind == MAP_SIGNED_UNLESS and flags & unsigned_flag):
        if not 0 <= value <= 0xFFFFFFFFFFFFFFFF:
            return -2
        u = value
    else:
        if not -(1 << 63) <= value < (1 << 63):
            return -2
        s = value
        u = (<uint64_t>s << 1) ^ <uint64_t>(s >> 63)
    while u >= 0x80:
        buf[n] = <unsigned char>(u & 0x7F | 0x80)
        n += 1
        u >>= 7
    buf[n] = <unsigned char>u
    put(o, buf, n + 1)
    return n + 1


cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object)


cdef inline Py_ssize_t text_size(object text) except -1:
    """``sizeof`` of a name in an estimate: the bytes of its UTF-8 (surrogateescape, as
    the Python way back measures it), 0 for None or ""."""
    cdef Py_ssize_t size
    if text is None:
        return 0
    if PyUnicode_IS_ASCII(text):
        return PyUnicode_GET_LENGTH(text)
    try:
        PyUnicode_AsUTF8AndSize(text, &size)
    except UnicodeEncodeError:
        return len(text.encode("utf-8", "surrogateescape"))
    return size


cdef inline int64_t intern_name(dict ids, list names, PyObject* name, int64_t null,
                                bint refused) except? -3:
    """The id of ``name`` (the next one when first seen, appended to ``names``), ``null`` for
    NULL (None; and for "" where the empty name is ``refused``): ``Dictionary.intern``'s
    ``intern_term``."""
    cdef PyObject* found
    cdef int64_t term
    if name == NULL or (refused and PyUnicode_GET_LENGTH(<object>name) == 0):
        return null
    found = PyDict_GetItem(ids, <object>name)
    if found != NULL:
        return PyLong_AsLongLong(<object>found)
    term = PyList_GET_SIZE(names)
    ids[<object>name] = term
    names.append(<object>name)
    return term


cdef inline PyObject* held(object name):
    """A new reference to ``name`` (NULL for None), let go by :func:`let_go`: a name kept
    from one model's check to its message's writing."""
    if name is None:
        return NULL
    Py_INCREF(name)
    return <PyObject*>name


cdef inline void let_go(PyObject* name) noexcept:
    Py_XDECREF(name)


cdef inline void* room(void** data, Py_ssize_t* cap, Py_ssize_t n, size_t item) except NULL:
    """Element ``n`` of the array ``data[0]`` of ``cap[0]`` elements of ``item`` bytes,
    grown (doubled) where it has no room for it."""
    cdef Py_ssize_t more
    cdef void* grown
    if n >= cap[0]:
        more = cap[0] * 2 if cap[0] else 16
        grown = realloc(data[0], more * item)
        if grown == NULL:
            raise MemoryError()
        data[0], cap[0] = grown, more
    return <char*>data[0] + n * item


cdef inline int put_text_strict(Out* o, object text) except -1:
    """The UTF-8 of a str (a lone surrogate raises: the Python writers' surrogateescape
    decides)."""
    cdef Py_ssize_t size
    cdef const char* data = PyUnicode_AsUTF8AndSize(text, &size)
    return put(o, <const unsigned char*>data, size)


cdef inline Py_ssize_t text_bytes(object text) except -1:
    """The length of a str's strict UTF-8 (a lone surrogate raises)."""
    cdef Py_ssize_t size
    if PyUnicode_IS_ASCII(text):
        return PyUnicode_GET_LENGTH(text)
    PyUnicode_AsUTF8AndSize(text, &size)
    return size
