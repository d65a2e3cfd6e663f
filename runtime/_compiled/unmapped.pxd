# cython: language_level=3
"""What a rendered way back of a ``map:`` (generator/emit/compiled_unmapping.py) does beside
its checks: a value encoded by a kind table (``runtime.core.value_kinds.ValueKinds.quick_encode``)
and the names of a frame interned (``runtime.core.refs.Dictionary.intern``), each giving what
the Python one gives or saying it gives up (the caller declines). Inline only: a module
that cimports these compiles them in."""

from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.dict cimport PyDict_GetItem
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.object cimport PyObject
from cpython.unicode cimport PyUnicode_AsUTF8AndSize, PyUnicode_GET_LENGTH
from libc.stdint cimport int64_t, uint64_t
from libc.string cimport memcpy

from runtime._compiled.mapped cimport (
    MAP_BYTES, MAP_F64, MAP_NULL, MAP_SIGNED_UNLESS, MAP_STR, MAP_UVARINT,
)
from runtime._compiled.prelude cimport wirespec_slot_offset
from runtime._compiled.slots cimport get_slot


cdef inline Py_ssize_t slot_or_none(type cls, str name) except -2:
    """The offset of ``cls``'s own slot ``name`` (what ``model.name`` reads for a model of
    exactly that class), or -1 where it has none, or its attribute lookup is its own (then
    :func:`read_field` uses getattr)."""
    import types

    if cls.__getattribute__ is not object.__getattribute__:
        return -1
    descr = cls.__dict__.get(name)
    if type(descr) is not types.MemberDescriptorType:
        return -1
    return wirespec_slot_offset(descr)


cdef inline object read_field(object model, Py_ssize_t offset, str name):
    """``model.name`` of a model of exactly the class :func:`slot_or_none` read ``offset``
    from: the slot read in place (an unset one raises getattr's AttributeError), no lookup."""
    cdef PyObject* value
    if offset < 0:
        return getattr(model, name)
    value = get_slot(model, offset)
    if value == NULL:
        raise AttributeError(name)
    return <object>value


cdef inline object unmap_value(const signed char* kinds, object code, object flags,
                               object value, uint64_t unsigned_flag, bint big_endian,
                               bint* gave_up):
    """The bytes ``ValueKinds.quick_encode`` gives for ``value`` of ``code`` with ``flags``
    (None for None), with ``gave_up`` set where it is UNSURE or would use surrogateescape."""
    cdef unsigned char buf[10]
    cdef Py_ssize_t n = 0, size
    cdef signed char kind
    cdef uint64_t u
    cdef int64_t s
    cdef double d
    cdef int k
    cdef const char* text
    gave_up[0] = True
    if type(code) is not int or not 0 <= code < 256 or kinds[<int>code] < 0:
        return None
    kind = kinds[<int>code]
    if value is None:
        gave_up[0] = False
        return None
    cls = type(value)
    if kind == MAP_BYTES:
        if cls is not bytes:
            return None
        gave_up[0] = False
        return value
    if kind == MAP_STR:
        if cls is not str:
            return None
        try:
            text = PyUnicode_AsUTF8AndSize(value, &size)
        except UnicodeEncodeError:  # a lone surrogate: surrogateescape's bytes
            return None
        gave_up[0] = False
        return PyBytes_FromStringAndSize(text, size)
    if kind == MAP_F64:
        if cls is not float:
            return None
        d = value
        memcpy(&u, &d, 8)  # the host is little-endian (checked where this is bound)
        for k in range(8):
            buf[7 - k if big_endian else k] = <unsigned char>(u >> (8 * k))
        gave_up[0] = False
        return PyBytes_FromStringAndSize(<const char*>buf, 8)
    if kind == MAP_NULL or cls is not int:
        return None
    if kind == MAP_SIGNED_UNLESS and type(flags) is not int:
        return None
    if kind == MAP_UVARINT or (kind == MAP_SIGNED_UNLESS and flags & unsigned_flag):
        if not 0 <= value <= 0xFFFFFFFFFFFFFFFF:
            return None
        u = value
    else:
        if not -(1 << 63) <= value < (1 << 63):
            return None
        s = value
        u = (<uint64_t>s << 1) ^ <uint64_t>(s >> 63)
    while u >= 0x80:
        buf[n] = <unsigned char>(u & 0x7F | 0x80)
        n += 1
        u >>= 7
    buf[n] = <unsigned char>u
    gave_up[0] = False
    return PyBytes_FromStringAndSize(<const char*>buf, n + 1)


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


cdef inline object intern_term(dict ids, object name, object null, bint refused):
    """The id of ``name`` (the next one when first seen), ``null`` for None (and for ""
    where the empty name is ``refused``)."""
    cdef PyObject* found
    if name is None or (refused and type(name) is str and PyUnicode_GET_LENGTH(name) == 0):
        return null
    found = PyDict_GetItem(ids, name)
    if found != NULL:
        return <object>found
    term = len(ids)
    ids[name] = term
    return term


cdef inline list intern_paths(dictionary):
    """``(steps, last, null, refused)`` of each ``interned:`` ref of a runtime Dictionary,
    ``steps`` its path's ``(name, many)`` (``name[*]``: each element of a list)."""
    refs = []
    for ref in dictionary.interned:
        *steps, last = ref.path.split(".")
        steps = [(s[:-3], True) if s.endswith("[*]") else (s, False) for s in steps]
        refs.append((steps, last, ref.null, ref.empty_refused))
    return refs


cdef inline int intern_frame(object model, list refs, object field) except -1:
    """``Dictionary.intern`` of ``model`` (dicts and lists), given :func:`intern_paths`: the
    names in its ref fields replaced by ids in ``interned:`` order (a list of names in
    place: the model is the caller's own, made for this message), the dictionary
    ``model[field]`` the names in id order."""
    cdef dict ids = {}
    cdef Py_ssize_t i
    cdef bint refused
    cdef list holders, reached, names
    for steps, last, null, refused_ in refs:
        refused = refused_
        holders = [model]
        for name, many in steps:
            reached = []
            for holder in holders:
                value = holder[name]
                if value is None:
                    continue
                if not many:
                    reached.append(value)
                    continue
                for element in value:
                    if element is not None:
                        reached.append(element)
            holders = reached
        for holder in holders:
            value = holder[last]
            if type(value) is list:
                names = value
                for i in range(PyList_GET_SIZE(names)):
                    names[i] = intern_term(ids, <object>PyList_GET_ITEM(names, i), null, refused)
            else:
                holder[last] = intern_term(ids, value, null, refused)
    model[field] = list(ids)
    return 0
