# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The writer of the compiled protobuf loop (runtime/_compiled/protobuf.pyx): ``write_exact``
over the C tables of protobuf_tables.pxd. A model still lazy (its slots holding the reader's
pending span) is built first, through the ``force`` method of that span. A model that keeps
its wire layout is written by it, a kept record of a scalar, string, bytes, packed or
scalar-valued map field checked here (``kept_reads_as``, the Python writer's ``_reads_as``);
a kept record of a message goes to the Python writer with its whole message."""

from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.long cimport PyLong_AsLongLongAndOverflow, PyLong_AsUnsignedLongLong
from cpython.object cimport PyObject
from cpython.unicode cimport PyUnicode_AsUTF8AndSize
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.dict cimport PyDict_Next
from libc.limits cimport LLONG_MAX, LLONG_MIN
from libc.stdint cimport int32_t, uint32_t
from libc.stdlib cimport calloc, free
from libc.string cimport memcmp, memmove

from runtime._compiled.float32 cimport float32_narrowed
from runtime._compiled.lazy cimport Pending
from runtime._compiled.out cimport Out, grow, put, put_byte, put_uvarint
from runtime._compiled.protobuf_records cimport Record, group_end, read_key, read_record, value_span
from runtime._compiled.protobuf_tables cimport *
from runtime._compiled.protobuf_values cimport uvarint
from runtime._compiled.slots cimport get_slot


cdef extern from "Python.h":
    int PyFloat_Pack4(double x, char* p, int le) except -1
    int PyFloat_Pack8(double x, char* p, int le) except -1


class _Decline(Exception):
    """Not mine: the Python writer decides."""


cdef object DECLINE = _Decline()

# -- writing -------------------------------------------------------------------------------
# ``write_exact`` in C: a model's wire layout first (kept bytes in place, each field's next
# values), then in number order what it does not cover: implicit-presence fields only when
# not their default, repeats in the schema's packing, map entries as key then value. A value
# of another type than the reader makes (an IntEnum, a tuple, a dict for a message, a
# bytearray in a layout), two members of a oneof, a value out of range or a layout entry
# that names no field of its kind: not mine. A record kept as read (``(number, bytes)``,
# ``(number, count, bytes)``) is written back while it reads as what the model's values
# write (``kept_reads_as``, ``_reads_as`` in C), else as they write.


cdef inline int uvarint_size(unsigned long long u) noexcept:
    cdef int n = 1
    while u >= 0x80:
        u >>= 7
        n += 1
    return n


cdef int prefix_length(Out* o, Py_ssize_t start) except -1:
    """Insert the varint length of ``o.data[start:]`` before it."""
    cdef Py_ssize_t n = o.size - start
    cdef int width = uvarint_size(<unsigned long long>n)
    if o.cap - o.size < width:
        grow(o, width)
    memmove(o.data + start + width, o.data + start, n)
    cdef Py_ssize_t end = o.size + width
    o.size = start
    put_uvarint(o, <unsigned long long>n)
    o.size = end
    return 0


cdef inline long long signed_value(object v, long long lo, long long hi) except? -1:
    """An int in ``lo..hi`` (type int exactly: bool, IntEnum and the rest are not mine)."""
    cdef int overflow = 0
    if type(v) is not int:
        raise DECLINE
    cdef long long x = PyLong_AsLongLongAndOverflow(v, &overflow)
    if overflow or not lo <= x <= hi:
        raise DECLINE
    return x


cdef inline unsigned long long unsigned_value(object v, unsigned long long hi) except? 0xFFFFFFFFFFFFFFFF:
    if type(v) is not int or v < 0:
        raise DECLINE
    cdef unsigned long long x = PyLong_AsUnsignedLongLong(v)  # > 64 bits: OverflowError
    if x > hi:
        raise DECLINE
    return x


cdef int write_payload(Tables* t, Out* o, int kind, int message, object v, int depth) except -1:
    """``_write_payload``: a value without its key (a LEN value without its length)."""
    cdef long long x
    cdef unsigned long long u
    cdef Py_ssize_t n
    cdef const char* s
    cdef char raw[8]
    cdef int i
    if kind == K_STRING:
        if type(v) is not str:
            raise DECLINE
        s = PyUnicode_AsUTF8AndSize(v, &n)  # a lone surrogate raises: declined
        return put(o, <const unsigned char*>s, n)
    if kind == K_BYTES:
        if type(v) is not bytes:
            raise DECLINE
        return put(o, <const unsigned char*>PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v))
    if kind == K_MESSAGE:
        return write_message(t, o, message, v, depth + 1)
    if kind == K_BOOL:
        if v is not True and v is not False:
            raise DECLINE
        return put_uvarint(o, 1 if v is True else 0)
    if kind == K_FLOAT or kind == K_DOUBLE:
        if type(v) is not float:
            raise DECLINE
        if kind == K_FLOAT:
            if PyFloat_AS_DOUBLE(v) != PyFloat_AS_DOUBLE(v):
                return put_nan32(o, PyFloat_AS_DOUBLE(v))
            PyFloat_Pack4(PyFloat_AS_DOUBLE(v), raw, 1)  # too large: OverflowError
            return put(o, <const unsigned char*>raw, 4)
        PyFloat_Pack8(PyFloat_AS_DOUBLE(v), raw, 1)
        return put(o, <const unsigned char*>raw, 8)
    if kind == K_INT32 or kind == K_ENUM:
        return put_uvarint(o, <unsigned long long>signed_value(v, -2147483648LL, 2147483647LL))
    if kind == K_INT64:
        return put_uvarint(o, <unsigned long long>signed_value(v, LLONG_MIN, LLONG_MAX))
    if kind == K_SINT32:
        x = signed_value(v, -2147483648LL, 2147483647LL)
        return put_uvarint(o, ((<uint32_t>x) << 1) ^ <uint32_t>(x >> 31))
    if kind == K_SINT64:
        x = signed_value(v, LLONG_MIN, LLONG_MAX)
        return put_uvarint(o, ((<unsigned long long>x) << 1) ^ <unsigned long long>(x >> 63))
    if kind == K_UINT32:
        return put_uvarint(o, unsigned_value(v, 0xFFFFFFFFULL))
    if kind == K_UINT64:
        return put_uvarint(o, unsigned_value(v, 0xFFFFFFFFFFFFFFFFULL))
    if kind == K_FIXED32 or kind == K_SFIXED32:
        if kind == K_FIXED32:
            u = unsigned_value(v, 0xFFFFFFFFULL)
        else:
            u = <uint32_t>signed_value(v, -2147483648LL, 2147483647LL)
        for i in range(4):
            raw[i] = <char>((u >> (8 * i)) & 0xFF)
        return put(o, <const unsigned char*>raw, 4)
    if kind == K_FIXED64:
        u = unsigned_value(v, 0xFFFFFFFFFFFFFFFFULL)
    else:
        u = <unsigned long long>signed_value(v, LLONG_MIN, LLONG_MAX)
    for i in range(8):
        raw[i] = <char>((u >> (8 * i)) & 0xFF)
    return put(o, <const unsigned char*>raw, 8)


cdef int write_one(Tables* t, Out* o, Field* f, int kind, object v, int depth) except -1:
    """``_write_one``: the record of one value: ``f``'s key, then the value."""
    cdef Py_ssize_t start
    put(o, f.key, f.key_len)
    if wire_type_of(kind) != LEN:
        return write_payload(t, o, kind, f.message, v, depth)
    start = o.size
    write_payload(t, o, kind, f.message, v, depth)
    return prefix_length(o, start)


cdef int write_entry(Tables* t, Out* o, Field* f, object key, object value, int depth) except -1:
    """``_write_map_entry``: key (number 1) and value (number 2), both always written."""
    cdef unsigned char head
    cdef Py_ssize_t start
    if value is None:
        raise DECLINE
    put(o, f.key, f.key_len)
    start = o.size
    head = <unsigned char>(1 << 3 | wire_type_of(f.key_kind))
    put(o, &head, 1)
    if wire_type_of(f.key_kind) == LEN:
        write_payload(t, o, f.key_kind, -1, key, depth)
        prefix_length(o, start + 1)
    else:
        write_payload(t, o, f.key_kind, -1, key, depth)
    head = <unsigned char>(2 << 3 | wire_type_of(f.value_kind))
    put(o, &head, 1)
    cdef Py_ssize_t value_start = o.size
    write_payload(t, o, f.value_kind, f.message, value, depth)
    if wire_type_of(f.value_kind) == LEN:
        prefix_length(o, value_start)
    return prefix_length(o, start)


cdef object field_value(object m, Field* f):
    """``write``'s value of a field: an implicit-presence scalar's None is its default; a
    container that is not the reader's type (None, a tuple) is not mine."""
    value = <object>get_slot(m, f.offset)
    if f.kind == K_MAP:
        if type(value) is not dict:
            raise DECLINE
    elif f.repeated != NOT_REPEATED:
        if type(value) is not list:
            raise DECLINE
    elif value is None and not f.explicit:
        return <object>f.default
    return value


cdef int write_elements(Tables* t, Out* o, Field* f, object value, Py_ssize_t first,
                        Py_ssize_t stop, bint packed, int depth) except -1:
    """Elements ``first:stop`` of a repeated field: one packed record, or one record each."""
    cdef Py_ssize_t start, i
    if packed:
        put(o, f.len_key, f.len_key_len)
        start = o.size
        for i in range(first, stop):
            write_payload(t, o, f.kind, f.message, (<list>value)[i], depth)
        return prefix_length(o, start)
    for i in range(first, stop):
        x = (<list>value)[i]
        if x is None:
            raise DECLINE
        write_one(t, o, f, f.kind, x, depth)
    return 0


cdef int field_index(Field* fields, int count, object number) except -2:
    """The index of the field numbered ``number`` (an int), or -1."""
    cdef int overflow = 0
    cdef long long n = PyLong_AsLongLongAndOverflow(number, &overflow)
    if overflow:
        return -1
    if 0 < n <= count and fields[n - 1].number == n:  # fields 1..count declared in order
        return <int>(n - 1)
    for j in range(count):
        if fields[j].number == n:
            return j
    return -1


cdef int write_message(Tables* t, Out* o, int mi, object m, int depth) except -1:
    """``write_exact``: the records of a layout (kept bytes, then each field's next
    values), then what it does not cover in the canonical order; with no layout, all of
    them canonically."""
    cdef Message* s = &t.messages[mi]
    if type(m) is not <object>s.cls or depth > MAX_C_DEPTH:
        raise DECLINE
    cdef Field* fields = t.fields + s.first
    cdef int* order = t.order + s.first
    cdef unsigned long long oneofs = 0
    cdef int j
    cdef PyObject* v = get_slot(m, s.layout_offset)
    if v == NULL:
        raise DECLINE
    if type(<object>v) is Pending:  # a model not looked at yet: build it first
        (<Pending>v).builder.fill(<Pending>v, m)
    for j in range(s.count):
        v = get_slot(m, fields[j].offset)
        if v == NULL:
            raise DECLINE
        if fields[j].oneof >= 0 and v != <PyObject*>None:
            if oneofs >> fields[j].oneof & 1:  # two members set: the Python writer's error
                raise DECLINE
            oneofs |= 1ULL << fields[j].oneof
    layout = <object>get_slot(m, s.layout_offset)
    # with a layout, each map's position in its dict (PyDict_Next's) follows its counts
    cdef Py_ssize_t* used = <Py_ssize_t*>calloc(max(s.count, 1) * (1 if layout is None else 2),
                                                sizeof(Py_ssize_t))
    if used == NULL:
        raise MemoryError()
    try:
        if layout is not None:
            write_layout(t, o, s, m, layout, used, depth)
        for j in range(s.count):
            write_rest(t, o, &fields[order[j]], m, used[order[j]], depth)
    finally:
        free(used)
    return 0


cdef int write_layout(Tables* t, Out* o, Message* s, object m, object layout, Py_ssize_t* used,
                      int depth) except -1:
    """``_entries_with_rest``'s walk of a layout, writing as it goes; ``used`` counts the
    values of each field it wrote (and, after the counts, where each map's next entry is)."""
    cdef Field* fields = t.fields + s.first
    cdef Field* f
    cdef Py_ssize_t count, have, take, start
    cdef int fi
    cdef bint packed_entry
    if type(layout) is not tuple:
        raise DECLINE
    cdef Py_ssize_t* at = used + s.count
    cdef PyObject* key
    cdef PyObject* x
    cdef Record r
    for entry in <tuple>layout:
        if type(entry) is bytes:
            if not one_record(<bytes>entry, &r):
                raise DECLINE  # the Python writer says what is wrong with it
            fi = field_index(fields, s.count, r.number)
            if fi >= 0 and (r.wire_type == fields[fi].wire_type
                            or r.wire_type == LEN and fields[fi].packable):
                raise DECLINE  # read back as a known field: the Python writer checks it
            put(o, <const unsigned char*>PyBytes_AS_STRING(entry), PyBytes_GET_SIZE(entry))
            continue
        kept = None
        if type(entry) is int:
            number, count, packed_entry = entry, 1, False
        elif (type(entry) is not tuple or not 2 <= len(<tuple>entry) <= 3
              or type(entry[0]) is not int):
            raise DECLINE
        elif len(<tuple>entry) == 2 and type(entry[1]) is bytes:  # (number, its record kept)
            number, count, packed_entry, kept = entry[0], 1, False, entry[1]
        elif type(entry[1]) is int and 0 <= entry[1] < (1 << 62):
            number, count, packed_entry = entry[0], entry[1], True
            if len(<tuple>entry) == 3:  # (number, count, its packed record kept)
                kept = entry[2]
                if type(kept) is not bytes:
                    raise DECLINE
        else:
            raise DECLINE
        fi = field_index(fields, s.count, number)
        if fi < 0:
            raise DECLINE
        f = &fields[fi]
        if (count != 1 or packed_entry) and not f.packable:
            raise DECLINE
        value = field_value(m, f)
        if f.kind == K_MAP or f.repeated != NOT_REPEATED:
            have = len(value)
        else:
            have = value is not None
        take = min(count, have - used[fi])
        if f.kind != K_MAP and f.repeated == NOT_REPEATED and used[fi]:
            take = 0  # a singular field is written once
        if take <= 0 and not (packed_entry and count == 0):
            continue  # (an empty packed record read is written back empty)
        if take != count:
            kept = None  # elements gone: the rest are written anew
        start = o.size
        if f.kind == K_MAP:
            if not PyDict_Next(value, &at[fi], &key, &x):  # (take: an entry is left)
                raise DECLINE
            write_entry(t, o, f, <object>key, <object>x, depth)
        elif f.repeated != NOT_REPEATED:
            write_elements(t, o, f, value, used[fi], used[fi] + take, packed_entry, depth)
        else:
            write_one(t, o, f, f.kind, value, depth)
        used[fi] += take
        if kept is not None and kept_reads_as(f, packed_entry, <bytes>kept, o.data + start,
                                              o.size - start):
            o.size = start
            put(o, <const unsigned char*>PyBytes_AS_STRING(kept), PyBytes_GET_SIZE(kept))
    return 0


cdef int write_rest(Tables* t, Out* o, Field* f, object m, Py_ssize_t done, int depth) except -1:
    """A field's values a layout did not cover (all of them without a layout), written
    canonically."""
    cdef Py_ssize_t i = 0
    value = field_value(m, f)
    if f.kind == K_MAP:
        for a, b in (<dict>value).items():
            if i >= done:
                write_entry(t, o, f, a, b, depth)
            i += 1
    elif f.repeated != NOT_REPEATED:
        if len(value) > done:
            write_elements(t, o, f, value, done, len(value), f.repeated == PACKED, depth)
    elif done or value is None:
        return 0  # written by the layout, or absent
    elif f.explicit or not write_default_check(f.kind, value):
        write_one(t, o, f, f.kind, value, depth)
    return 0


cdef int put_nan32(Out* o, double d) except -1:
    """A float NaN narrowed on its bits when a float32 holds it (runtime.core.float32.pack:
    a C cast quiets a signalling NaN), else as PyFloat_Pack4 writes it."""
    cdef uint32_t u32
    cdef unsigned char raw[4]
    if not float32_narrowed(d, &u32):
        PyFloat_Pack4(d, <char*>raw, 1)
        return put(o, raw, 4)
    raw[0], raw[1], raw[2], raw[3] = u32 & 0xFF, (u32 >> 8) & 0xFF, (u32 >> 16) & 0xFF, u32 >> 24
    return put(o, raw, 4)


cdef inline bint write_default_check(int kind, object value) except -1:
    """Whether an implicit-presence value is its default (left out); a value of another
    type than the reader makes is not mine."""
    if kind == K_FLOAT or kind == K_DOUBLE:
        if type(value) is not float:
            raise DECLINE
    elif kind == K_STRING:
        if type(value) is not str:
            raise DECLINE
    elif kind == K_BYTES:
        if type(value) is not bytes:
            raise DECLINE
    elif kind == K_BOOL:
        if value is not True and value is not False:
            raise DECLINE
    elif type(value) is not int:
        raise DECLINE
    return is_default(kind, value)



# -- kept records ----------------------------------------------------------------------------
# ``_reads_as`` on one kept record: read again and written as encode writes it, do its bytes
# give the record the model's values wrote? Read as one record of its entry's field and form
# (the reading the Python writer's re-read takes unless the bytes were edited), what encode
# writes of it is its key, then each value as the reader takes it: a varint shortest and
# within its type's bits, the rest as read (a float32's bits are its value's:
# runtime.core.float32), a map entry as key then value (its other records, groups too, are
# its unknown fields, passed over). Any other reading (no record, more than one, another
# field or form, a group, a message, a map entry's part read twice) is the general walk of
# ``_reads_as``: not mine.


cdef inline unsigned long long canonical_varint(int kind, unsigned long long u) noexcept:
    """``to_varint(from_varint(u))``: the varint encode writes for a varint read."""
    if kind == K_INT32 or kind == K_ENUM:
        return <unsigned long long><long long><int32_t><uint32_t>u  # negatives: ten bytes
    if kind == K_UINT32 or kind == K_SINT32:
        return <uint32_t>u
    if kind == K_BOOL:
        return u != 0
    return u


cdef int kept_value(Out* a, int kind, const unsigned char* p, Py_ssize_t* pos,
                    Py_ssize_t end) except -1:
    """The value of ``kind`` at ``p[pos]`` (a LEN one with its length) as encode writes it."""
    cdef unsigned long long u
    cdef Py_ssize_t width = wire_type_of(kind)
    if width == VARINT or width == LEN:
        if uvarint(p, pos, end, &u) < 0:
            raise DECLINE
        if width == VARINT:
            return put_uvarint(a, canonical_varint(kind, u))
        if u > <unsigned long long>(end - pos[0]):
            raise DECLINE
        put_uvarint(a, u)
        width = <Py_ssize_t>u
    else:
        width = 8 if width == I64 else 4
        if end - pos[0] < width:
            raise DECLINE
    put(a, p + pos[0], width)
    pos[0] += width
    return 0


cdef int kept_entry(Out* a, Field* f, const unsigned char* p, Py_ssize_t pos,
                    Py_ssize_t end) except -1:
    """The payload ``p[pos:end]`` of a map entry record as ``_write_map_entry`` writes what
    it reads as: key then value, each its record of its wire type or else its default;
    other records are unknown fields of the entry, passed over."""
    cdef Py_ssize_t at[3]
    cdef int kinds[3]
    cdef Py_ssize_t start, width
    cdef int number, wt
    cdef Record r
    if f.value_kind == K_MESSAGE:
        raise DECLINE
    kinds[1], kinds[2] = f.key_kind, f.value_kind
    at[1], at[2] = -1, -1
    while pos < end:  # protobuf_records.pxd's read_record, the key's end kept
        if read_key(p, &pos, end, &r) < 0:
            raise DECLINE
        if r.number <= 2 and r.wire_type == wire_type_of(kinds[r.number]):
            if at[r.number] >= 0:  # read twice (the earlier one still read: a string checked)
                raise DECLINE
            at[r.number] = pos
        if value_span(p, pos, end, &r) >= 0:
            pos = r.stop
        elif r.wire_type == SGROUP:  # an unknown group of the entry, passed over
            pos = group_end(p, pos, end, r.number, 2, MAX_C_DEPTH)
            if pos < 0:
                raise DECLINE
        else:
            raise DECLINE
    start = a.size
    for number in range(1, 3):
        wt = wire_type_of(kinds[number])
        put_byte(a, <unsigned char>(number << 3 | wt))
        if at[number] >= 0:
            pos = at[number]
            kept_value(a, kinds[number], p, &pos, end)
        elif wt == VARINT or wt == LEN:
            put_byte(a, 0)  # the default: 0, false, an empty string
        else:
            for width in range(8 if wt == I64 else 4):
                put_byte(a, 0)
    return prefix_length(a, start)


cdef inline bint one_record(bytes entry, Record* r) noexcept:
    """Whether a layout's bytes entry is one record, all of its bytes (``check_record``);
    ``r``: its number and wire type."""
    cdef Py_ssize_t end = PyBytes_GET_SIZE(entry)
    cdef const unsigned char* p = <const unsigned char*>PyBytes_AS_STRING(entry)
    return read_record(p, 0, end, r, 1, MAX_C_DEPTH) >= 0 and r.stop == end


cdef bint kept_reads_as(Field* f, bint packed, bytes kept, const unsigned char* written,
                        Py_ssize_t n) except -1:
    """Whether ``kept``, a record of ``f`` kept as read (a packed one when ``packed``), is
    ``written[:n]`` (the model's record of the entry) once encode writes what it reads as."""
    cdef const unsigned char* p = <const unsigned char*>PyBytes_AS_STRING(kept)
    cdef Py_ssize_t end = PyBytes_GET_SIZE(kept), pos = 0, start
    cdef unsigned long long key, u
    cdef Out a
    if (uvarint(p, &pos, end, &key) < 0 or key >> 3 != <unsigned long long>f.number
            or <int>(key & 7) != (LEN if packed else f.wire_type)
            or f.kind == K_MESSAGE):
        raise DECLINE
    a.data, a.size, a.cap = NULL, 0, 0
    try:
        if packed or f.kind == K_MAP:
            if uvarint(p, &pos, end, &u) < 0 or u != <unsigned long long>(end - pos):
                raise DECLINE  # not one record, all of the bytes
            if f.kind == K_MAP:
                put(&a, f.key, f.key_len)
                kept_entry(&a, f, p, pos, end)
            else:
                put(&a, f.len_key, f.len_key_len)
                start = a.size
                while pos < end:
                    kept_value(&a, f.kind, p, &pos, end)
                prefix_length(&a, start)
        else:
            put(&a, f.key, f.key_len)
            kept_value(&a, f.kind, p, &pos, end)
            if pos != end:
                raise DECLINE  # another record after it
        return a.size == n and memcmp(a.data, written, n) == 0
    finally:
        free(a.data)
