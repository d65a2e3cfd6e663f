# cython: language_level=3
"""What a rendered ``map:`` (generator/emit/compiled_mapping.py) does beside reading: an id
looked up in a list of names (a ``ref:``), a value decoded by a kind table (a
``decode_by:``: ``runtime.core.value_kinds.ValueKinds.quick``, 256 entries), both giving
what the Python mapping gives or saying where it fails or gives up (the caller declines),
and a model's defaults. Inline only: a module that cimports these compiles them in."""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.float cimport PyFloat_FromDouble
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.long cimport PyLong_FromUnsignedLongLong
from cpython.object cimport PyObject
from cpython.unicode cimport PyUnicode_GET_LENGTH
from libc.stdint cimport int64_t, uint64_t
from libc.string cimport memcpy

from runtime._compiled.prelude cimport _int64, _slot, _unzigzag, _utf8, _uvarint, wirespec_put

cdef extern from "Python.h":
    bint _is_bytes "PyBytes_CheckExact" (object obj)


cdef enum:
    # runtime.core.value_kinds' Q_* codes (bind checks them): a varint that is a uvarint
    # where the unsigned flag is set, then the wire types
    MAP_SIGNED_UNLESS = 0
    MAP_VARINT = 1
    MAP_UVARINT = 2
    MAP_F64 = 3
    MAP_STR = 4
    MAP_BYTES = 5
    MAP_NULL = 6


cdef inline PyObject* map_lookup(list names, object id_, bint has_null, int64_t null,
                                 bint empty_refused) except? NULL:
    """The name (borrowed) that ``id_`` (an int) stands for in ``names``, ``None`` for the
    null id, or NULL where the ref fails (out of range, the empty name refused)."""
    cdef int64_t n = PyList_GET_SIZE(names)
    cdef int64_t i = id_
    cdef PyObject* name
    if 0 <= i < n:
        name = PyList_GET_ITEM(names, i)
        if not empty_refused or PyUnicode_GET_LENGTH(<object>name) != 0:
            return name
    if has_null and i == null:
        return <PyObject*>None
    return NULL


cdef inline int map_kinds(signed char* table, quick) except -1:
    """``table[code]``: ``quick[code]`` (a ValueKinds' ``quick``), -1 for None."""
    cdef int code
    for code in range(256):
        kind = quick[code]
        table[code] = -1 if kind is None else kind
    return 0


cdef inline object map_value(const signed char* kinds, object code, object flags, object raw,
                             uint64_t unsigned_flag, bint big_endian, bint* gave_up):
    """The value ``ValueKinds.quick_values`` gives for the bytes ``raw`` (None: NULL) of a
    ``code`` with ``flags``; ``gave_up`` set where it gives up (a code with no kind, a
    varint that does not fill the bytes, text that is not UTF-8, a double not of 8 bytes,
    a NULL kind with a value)."""
    cdef uint64_t c = code
    cdef uint64_t u = 0
    cdef Py_ssize_t used = 0, n
    cdef signed char kind
    cdef unsigned char swapped[8]
    cdef const unsigned char* p
    cdef double d
    cdef int k
    gave_up[0] = True
    if c > 255 or kinds[c] < 0:
        return None
    kind = kinds[c]
    if raw is None:
        gave_up[0] = False
        return None
    if not _is_bytes(raw):
        return None
    gave_up[0] = False
    p = <const unsigned char*>PyBytes_AS_STRING(raw)
    n = PyBytes_GET_SIZE(raw)
    if kind == MAP_BYTES:
        return raw
    if kind == MAP_STR:
        try:
            return _utf8(p, n)
        except ValueError:
            gave_up[0] = True
            return None
    if kind == MAP_SIGNED_UNLESS or kind == MAP_VARINT or kind == MAP_UVARINT:
        if not _uvarint(p, &used, n, &u) or used != n:
            gave_up[0] = True
            return None
        if kind == MAP_VARINT or (kind == MAP_SIGNED_UNLESS and not (<uint64_t>flags) & unsigned_flag):
            return _int64(_unzigzag(u))
        if u >> 63:
            return PyLong_FromUnsignedLongLong(u)
        return _int64(<int64_t>u)
    if kind == MAP_F64 and n == 8:
        if big_endian:
            for k in range(8):
                swapped[k] = p[7 - k]
            p = swapped
        memcpy(&d, p, 8)  # the host is little-endian (checked where this is bound)
        return PyFloat_FromDouble(d)
    gave_up[0] = True
    return None


cdef inline object map_defaults(cls, fields):
    """The (offset, default) of each field of the slots dataclass ``cls`` the mapping does
    not set (``fields``: those it sets), or None where one has no atomic default (or the
    class has a ``__post_init__``): then the mapping is not bound."""
    import dataclasses

    if getattr(cls, "__post_init__", None) is not None:
        return None
    out = []
    for f in dataclasses.fields(cls):
        if f.name in fields:
            continue
        if type(f.default) not in (type(None), bool, int, float, str, bytes):
            return None
        out.append((_slot(cls, f.name), f.default))
    return tuple(out)


cdef inline void map_put_defaults(object model, tuple defaults):
    """A new model's fields the mapping does not set: their defaults (:func:`map_defaults`)."""
    cdef Py_ssize_t k
    for k in range(len(defaults)):
        slot = <tuple>defaults[k]
        wirespec_put(model, <Py_ssize_t>slot[0], slot[1])


cdef inline bint map_kinds_ok(kinds) except -1:
    """Whether ``kinds`` (a ValueKinds) has the codes, byte orders and flags
    :func:`map_value` reads (on a little-endian host)."""
    import sys

    from runtime.core import value_kinds as vk

    codes = (vk.Q_SIGNED_UNLESS, vk.Q_VARINT, vk.Q_UVARINT, vk.Q_F64, vk.Q_STR, vk.Q_BYTES,
             vk.Q_NULL)
    ours = (MAP_SIGNED_UNLESS, MAP_VARINT, MAP_UVARINT, MAP_F64, MAP_STR, MAP_BYTES, MAP_NULL)
    return (codes == ours and kinds.byte_order in ("<", ">") and len(kinds.quick) == 256
            and sys.byteorder == "little" and 0 <= kinds.unsigned < 1 << 64)
