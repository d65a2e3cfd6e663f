# cython: language_level=3
"""Thrift Compact's wire constants and writers for the typed loop (thrift_compact.pyx), and
the writer of schemaless structs: ``_w_raw_struct`` of the RawStructs parse() makes (a body
without ``body=``, its Spark row). Inline functions only: compiled into the module that
cimports them.

What the Python writer must judge (a value of another type, a bool or an IntEnum member
where a raw int goes, out of range, a wire form kept from parsing, nesting past
``MAX_C_DEPTH``) declines: :func:`decline` raises, :func:`build_raw_model` gives None and
the Python writer writes the model or refuses it.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.long cimport PyLong_AsLongLongAndOverflow, PyLong_Check
from cpython.unicode cimport PyUnicode_AsUTF8AndSize
from libc.stdlib cimport free

from runtime._compiled.out cimport Out, put, put_byte, put_uvarint


cdef enum:
    MAX_C_DEPTH = 400  # nesting past this declines (a user's max_depth may be larger)
    # The protocol's own constants the loop branches on (as in specs/thrift_compact.yaml).
    CT_STOP = 0
    CT_TRUE = 1
    CT_FALSE = 2
    LONG_SIZE = 15  # a list header's size nibble when the size follows as a varint
    SHORT_DELTA_MAX = 15


cdef inline int decline() except -1:
    """Not mine: the Python writer decides (the callers catch every exception, so a
    ValueError is as good as a class of its own)."""
    raise ValueError


cdef inline int put_zigzag(Out* o, long long v) except -1:
    return put_uvarint(o, (<unsigned long long>v << 1) ^ <unsigned long long>(v >> 63))


cdef inline long long int_value(object v, int bits) except? -1:
    """An int of a ``bits``-bit field (bool and IntEnum members count as ints, as in the
    Python writer); anything else or out of range declines."""
    cdef int overflow = 0
    if not PyLong_Check(v):
        decline()
    cdef long long x = PyLong_AsLongLongAndOverflow(v, &overflow)
    if overflow or bits < 64 and not -(1LL << (bits - 1)) <= x < (1LL << (bits - 1)):
        decline()
    return x



cdef inline long long raw_int(object v, int bits) except? -1:
    if type(v) is not int:  # a bool or an IntEnum member: the Python writer's to judge
        decline()
    return int_value(v, bits)


cdef inline int raw_type(object v) except -1:
    """A compact type that carries a value (1..13) as a plain int or a CompactType member."""
    if not PyLong_Check(v) or type(v) is bool:
        decline()
    cdef long long ct = int_value(v, 64)
    if not CT_TRUE <= ct <= 13:
        decline()
    return <int>ct


cdef inline int write_raw_value(Out* o, int ct, object v, tuple classes, int depth) except -1:
    cdef Py_ssize_t n
    cdef const char* s
    cdef double d
    cdef int et, kt
    if ct == 8:  # BINARY: text or bytes
        if type(v) is bytes:
            s, n = PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v)
        elif type(v) is str:
            s = PyUnicode_AsUTF8AndSize(v, &n)  # a lone surrogate raises: declined
        else:
            decline()
        if n >> 32:  # the Python writer's uvarint refuses it
            decline()
        put_uvarint(o, <unsigned long long>n)
        return put(o, <const unsigned char*>s, n)
    if ct == 5:
        return put_zigzag(o, raw_int(v, 32))
    if ct == 6:
        return put_zigzag(o, raw_int(v, 64))
    if ct == 4:
        return put_zigzag(o, raw_int(v, 16))
    if ct == 3:
        return put_byte(o, <unsigned char>(raw_int(v, 8) & 0xFF))
    if ct == CT_TRUE or ct == CT_FALSE:
        if v is not True and v is not False:
            decline()
        return put_byte(o, CT_TRUE if v is True else CT_FALSE)
    if ct == 7:
        if type(v) is not float:
            decline()
        d = PyFloat_AS_DOUBLE(v)
        return put(o, <const unsigned char*>&d, 8)
    if ct == 13:
        import uuid  # a .pxd has no module globals; a UUID in a raw struct is rare
        if type(v) is not uuid.UUID:
            decline()
        raw = v.bytes
        return put(o, <const unsigned char*>PyBytes_AS_STRING(raw), 16)
    if ct == 12:
        return write_raw_struct(o, v, classes, depth + 1)
    if ct == 9 or ct == 10:
        if type(v) is not classes[2]:
            decline()
        et = raw_type(v.element_type)
        items = v.items
        if type(items) is not list:
            decline()
        n = len(items)
        if n <= LONG_SIZE - 1:
            put_byte(o, <unsigned char>(n << 4 | et))
        else:
            put_byte(o, <unsigned char>(LONG_SIZE << 4 | et))
            put_uvarint(o, <unsigned long long>n)
        for x in <list>items:
            write_raw_value(o, et, x, classes, depth)
        return 0
    # 11, MAP
    if type(v) is not classes[3]:
        decline()
    items = v.items
    if type(items) is not list:
        decline()
    if not len(items):
        return put_byte(o, 0)
    n = len(items)
    kt, et = raw_type(v.key_type), raw_type(v.value_type)
    put_uvarint(o, <unsigned long long>n)
    put_byte(o, <unsigned char>(kt << 4 | et))
    for e in <list>items:
        if type(e) is not tuple or len(<tuple>e) != 2:
            decline()
        write_raw_value(o, kt, (<tuple>e)[0], classes, depth)
        write_raw_value(o, et, (<tuple>e)[1], classes, depth)
    return 0


cdef inline int write_raw_struct(Out* o, object m, tuple classes, int depth) except -1:
    if type(m) is not classes[0] or depth > MAX_C_DEPTH or m.wire_form is not None:
        decline()
    fields = m.fields
    if type(fields) is not list:
        decline()
    cdef long long last = 0, fid, delta
    cdef int ct
    for f in <list>fields:
        if type(f) is not classes[1]:
            decline()
        fid, ct, v = raw_int(f.id, 16), raw_type(f.type), f.value
        if ct == CT_TRUE or ct == CT_FALSE:
            if v is not True and v is not False:
                decline()
            ct = CT_TRUE if v is True else CT_FALSE
        delta = fid - last
        if 0 < delta <= SHORT_DELTA_MAX:
            put_byte(o, <unsigned char>(delta << 4 | ct))
        else:
            put_byte(o, <unsigned char>ct)
            put_zigzag(o, fid)
        if ct != CT_TRUE and ct != CT_FALSE:
            write_raw_value(o, ct, v, classes, depth)
        last = fid
    return put_byte(o, CT_STOP)


cdef inline object build_raw_model(model, tuple classes):
    cdef Out o
    o.data, o.size, o.cap = NULL, 0, 0
    try:
        write_raw_struct(&o, model, classes, 1)
        return PyBytes_FromStringAndSize(<const char*>o.data, o.size)
    except Exception:
        return None
    finally:
        free(o.data)
