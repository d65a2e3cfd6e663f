# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""One typed loop that reads and writes any ``layout: protobuf`` message from its tables.

The tables are the ones the generated module already builds for the Python reader: a
``runtime.formats.protobuf.ProtobufMessage`` of ``PbField`` rows per message. :func:`load` turns a
message and every message it reaches into C arrays once (at the module's import);
:meth:`Loop.read` then reads records with C integers over ``const unsigned char*``, checks
every length against the bytes left before reading or allocating, and writes the slots of
the ``slots=True`` model classes directly (runtime/_compiled/slots.pxd).

It gives exactly the model ``ProtobufMessage.read_exact`` gives (the same values, the same
``wire_layout``: unknown fields and groups kept raw in place, packed and unpacked repeats,
last-wins singular fields, oneofs and map keys, the canonical-order test) or declines with
``None``: on bad bytes, a limit, nesting past what the C stack is given, the Python reader
runs and gives the model or the exact ``DecodeError``.

The layout of a message is kept as C entries while it is read (a stack shared by the
nested messages: a message's entries are popped when it ends) and becomes a tuple only
when the records were not in the canonical order.

:meth:`Loop.write` writes a model as ``write_exact`` does, its ``wire_layout`` included,
when every value has the Python type the reader makes, and declines anything else, so that
the Python writer writes it or raises its ``EncodeError``.
"""

from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_GET_SIZE, PyByteArray_Resize
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.dict cimport PyDict_Contains, PyDict_SetItem
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_FromDouble
from cpython.list cimport PyList_Append
from cpython.long cimport (
    PyLong_AsLongLongAndOverflow,
    PyLong_AsUnsignedLongLong,
    PyLong_FromLong,
    PyLong_FromLongLong,
    PyLong_FromUnsignedLongLong,
)
from cpython.object cimport PyObject, PyTypeObject
from cpython.unicode cimport PyUnicode_AsUTF8AndSize, PyUnicode_DecodeUTF8
from libc.limits cimport LLONG_MAX, LLONG_MIN
from libc.math cimport signbit
from libc.stdint cimport int32_t, uint32_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memmove

from runtime._compiled.out cimport Out, grow, put, put_uvarint
from runtime._compiled.slots cimport get_slot, new_model, put_slot, slots_of


cdef extern from "Python.h":
    double PyFloat_Unpack4(const char* p, int le) except? -1.0
    double PyFloat_Unpack8(const char* p, int le) except? -1.0
    int PyFloat_Pack4(double x, char* p, int le) except -1
    int PyFloat_Pack8(double x, char* p, int le) except -1
    int PyGC_Disable()
    int PyGC_Enable()
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    void* PyUnicode_DATA(object text)


# The kinds of runtime.formats.protobuf.SCALARS, then messages and maps.
cdef enum Kind:
    K_INT32, K_INT64, K_UINT32, K_UINT64, K_SINT32, K_SINT64, K_ENUM, K_BOOL,
    K_FIXED32, K_SFIXED32, K_FLOAT, K_FIXED64, K_SFIXED64, K_DOUBLE, K_STRING, K_BYTES,
    K_MESSAGE, K_MAP

_KINDS = {
    "int32": K_INT32, "int64": K_INT64, "uint32": K_UINT32, "uint64": K_UINT64,
    "sint32": K_SINT32, "sint64": K_SINT64, "enum": K_ENUM, "bool": K_BOOL,
    "fixed32": K_FIXED32, "sfixed32": K_SFIXED32, "float": K_FLOAT,
    "fixed64": K_FIXED64, "sfixed64": K_SFIXED64, "double": K_DOUBLE,
    "string": K_STRING, "bytes": K_BYTES, "message": K_MESSAGE, "map": K_MAP,
}

cdef enum:
    VARINT = 0
    I64 = 1
    LEN = 2
    SGROUP = 3
    EGROUP = 4
    I32 = 5
    NOT_REPEATED = 0
    PACKED = 1
    UNPACKED = 2
    E_NUMBER = 0  # layout entries: a field number,
    E_PACKED = 1  # (number, count),
    E_BYTES = 2  # a record kept as its bytes
    MAX_C_DEPTH = 200  # nesting past this declines (a user's max_depth may be larger)
    MAX_ONEOFS = 64  # the writer's oneof check is a bit mask


cdef struct Field:
    long long number
    int kind
    int wire_type
    int repeated
    int explicit
    int packable
    int slot  # singular fields: which "last record" slot (oneof members share one); else -1
    int oneof  # index of its oneof in the message, or -1
    int message  # K_MESSAGE, and K_MAP with message values: the message's index
    int key_kind  # K_MAP
    int value_kind  # K_MAP
    Py_ssize_t offset  # of its slot in an instance
    PyObject* default  # a singular field's value when absent (borrowed: Loop.keep)
    PyObject* key_default  # K_MAP: an entry's absent key and value
    PyObject* value_default
    unsigned char key[5]  # the record key written for it, and its LEN key (packed)
    int key_len
    unsigned char len_key[5]
    int len_key_len


cdef struct Message:
    PyTypeObject* cls
    int first  # its fields: Loop.fields[first:first + count]
    int count
    int n_slots
    Py_ssize_t layout_offset


cdef struct Entry:
    int kind
    int field  # index in its message's fields
    long long number
    Py_ssize_t count
    Py_ssize_t start
    Py_ssize_t stop


cdef struct Ctx:
    const unsigned char* buf
    long long max_depth
    long long max_string
    Entry* entries  # the layout entries of the messages being read, innermost last
    Py_ssize_t n_entries
    Py_ssize_t cap_entries
    int* last  # per message being read: entry index of each slot's last record, or -1
    Py_ssize_t n_last
    Py_ssize_t cap_last


class _Decline(Exception):
    """Not mine: the Python reader or writer decides."""


cdef object DECLINE = _Decline()


cdef class Loop:
    """The tables of one message and the messages it reaches, as C arrays, with the
    reader and the writer over them."""

    cdef Message* messages
    cdef int n_messages
    cdef Field* fields
    cdef int* order  # per message, its field indices in number order (the canonical order)
    cdef list keep  # Python objects the arrays point to
    cdef object last_limits
    cdef long long max_depth
    cdef long long max_string
    cdef Entry* entries  # reused between reads (a read holds the GIL throughout)
    cdef Py_ssize_t cap_entries
    cdef int* last
    cdef Py_ssize_t cap_last
    cdef bint busy
    cdef object exact_read
    cdef object exact_write

    def __dealloc__(self):
        free(self.messages)
        free(self.fields)
        free(self.order)
        free(self.entries)
        free(self.last)

    def read(self, buf, Py_ssize_t pos, Py_ssize_t end, limits, int depth, spans=None):
        """``ProtobufMessage.read``: the root message's ``(model, end)``, compiled when it
        is mine, else ``read_exact``'s (the same model, or the exact ``DecodeError``)."""
        if spans is None:
            got = self.try_read(buf, pos, end, limits, depth)
            if got is not None:
                return got
        return self.exact_read(buf, pos, end, limits, depth, spans)

    def write(self, model, out):
        """``ProtobufMessage.write``: append the bytes of ``model`` to ``out``, compiled
        when it is mine, else by ``write_exact`` (the same bytes, or its ``EncodeError``)."""
        if type(out) is not bytearray or not self.try_write(model, out):
            self.exact_write(model, out)

    cpdef object try_read(self, buf, Py_ssize_t pos, Py_ssize_t end, limits, int depth):
        """The root message's ``(model, end)``, or None: not mine."""
        if type(buf) is not bytes or not 0 <= pos <= end <= PyBytes_GET_SIZE(buf):
            return None
        if limits is not self.last_limits:  # Limits is frozen: read once per object
            try:
                self.max_depth = limits.max_depth
                self.max_string = limits.max_string
            except (AttributeError, TypeError, OverflowError):  # beyond C's range: not mine
                self.last_limits = None
                return None
            self.last_limits = limits
        if self.busy:
            return None
        cdef Ctx c
        c.buf = <const unsigned char*>PyBytes_AS_STRING(buf)
        c.max_depth = self.max_depth
        c.max_string = self.max_string
        c.entries, c.n_entries, c.cap_entries = self.entries, 0, self.cap_entries
        c.last, c.n_last, c.cap_last = self.last, 0, self.cap_last
        self.busy = True
        # A model is a tree of new objects the garbage collector can find no cycle in:
        # it is paused while the tree grows.
        cdef int collecting = PyGC_Disable()
        try:
            return read_message(self, &c, 0, pos, end, depth), end
        except Exception:
            return None
        finally:
            if collecting:
                PyGC_Enable()
            self.entries, self.cap_entries = c.entries, c.cap_entries
            self.last, self.cap_last = c.last, c.cap_last
            self.busy = False

    cpdef bint try_write(self, model, bytearray out):
        """Append the bytes of ``model`` to ``out``; False (``out`` unchanged): not mine."""
        cdef Out o
        cdef Py_ssize_t had
        o.data, o.size, o.cap = NULL, 0, 0
        try:
            write_message(self, &o, 0, model, 1)
            had = PyByteArray_GET_SIZE(out)
            PyByteArray_Resize(out, had + o.size)
            memcpy(PyByteArray_AS_STRING(out) + had, o.data, o.size)
            return True
        except Exception:
            return False
        finally:
            free(o.data)


def load(root):
    """A :class:`Loop` over ``root`` (a ``ProtobufMessage``) and the messages it reaches,
    handing what is not its own to ``root.read_exact`` and ``root.write_exact``.

    Raises TypeError or ValueError when a message has no model class laid out as a slots
    dataclass of its fields and ``wire_layout`` (the message then keeps to its Python
    reader and writer)."""
    from runtime.formats import protobuf as rt

    index = {}
    found = []
    pending = [root]
    while pending:  # every message reachable, the root first
        message = pending.pop()
        if id(message) in index:
            continue
        if not isinstance(message, rt.ProtobufMessage) or message.model is None:
            raise TypeError(f"{message!r} has no model class")
        index[id(message)] = len(found)
        found.append(message)
        for pf in message.fields:
            if pf.kind == "message":
                pending.append(pf.message)
            elif pf.kind == "map" and isinstance(pf.map_value, rt.ProtobufMessage):
                pending.append(pf.map_value)
    cdef Loop loop = Loop.__new__(Loop)
    loop.exact_read, loop.exact_write = root.read_exact, root.write_exact
    loop.keep = []
    loop.n_messages = len(found)
    n_fields = sum(len(m.fields) for m in found)
    loop.messages = <Message*>malloc(max(loop.n_messages, 1) * sizeof(Message))
    loop.fields = <Field*>malloc(max(n_fields, 1) * sizeof(Field))
    loop.order = <int*>malloc(max(n_fields, 1) * sizeof(int))
    if loop.messages == NULL or loop.fields == NULL or loop.order == NULL:
        raise MemoryError()
    cdef int first = 0, j
    cdef Message* m
    cdef Field* f
    for mi, message in enumerate(found):
        names = [pf.name for pf in message.fields]
        offsets = slots_of(message.model, names + [rt.LAYOUT_KEY])
        m = &loop.messages[mi]
        m.cls = <PyTypeObject*>message.model
        m.first, m.count = first, len(message.fields)
        m.layout_offset = offsets[rt.LAYOUT_KEY]
        loop.keep.append(message.model)
        slots, oneofs = {}, {}
        for j, pf in enumerate(message.fields):
            f = &loop.fields[first + j]
            f.number = pf.number
            f.kind = _KINDS[pf.kind]
            f.wire_type = pf.wire_type
            f.repeated = {None: NOT_REPEATED, "packed": PACKED, "unpacked": UNPACKED}[pf.repeated]
            f.explicit = pf.explicit
            f.packable = pf.packable
            f.slot = -1
            if pf.repeated is None and pf.kind != "map":
                f.slot = slots.setdefault(pf.oneof or pf.number, len(slots))
            f.oneof = -1 if pf.oneof is None else oneofs.setdefault(pf.oneof, len(oneofs))
            f.message = -1
            f.offset = offsets[pf.name]
            default = None if pf.explicit else pf.default
            key_default = value_default = None
            if pf.kind == "message":
                f.message = index[id(pf.message)]
            elif pf.kind == "map":
                key_field, value_field = rt._map_entry_fields(pf)
                f.key_kind, f.value_kind = _KINDS[key_field.kind], _KINDS[value_field.kind]
                if value_field.kind == "message":
                    f.message = index[id(value_field.message)]
                key_default, value_default = key_field.default, value_field.default
            loop.keep += [default, key_default, value_default]
            f.default = <PyObject*>default
            f.key_default = <PyObject*>key_default
            f.value_default = <PyObject*>value_default
            f.key_len = _put_key(f.key, pf.key)
            f.len_key_len = _put_key(f.len_key, pf.len_key)
        if len(oneofs) > MAX_ONEOFS:
            raise ValueError(f"{message!r} has more than {MAX_ONEOFS} oneofs")
        m.n_slots = len(slots)
        by_number = sorted(range(m.count), key=lambda i: message.fields[i].number)
        for j, i in enumerate(by_number):
            loop.order[first + j] = i
        first += m.count
    return loop


cdef int _put_key(unsigned char* out, bytes key) except -1:
    if len(key) > 5:
        raise ValueError("a record key is at most 5 bytes")
    memcpy(out, PyBytes_AS_STRING(key), len(key))
    return len(key)


# -- reading -------------------------------------------------------------------------------


cdef inline int uvarint(const unsigned char* buf, Py_ssize_t* pos, Py_ssize_t end,
                        unsigned long long* out) noexcept:
    """``read_uvarint``: at most 10 bytes, within 64 bits; -1 where it raises."""
    cdef Py_ssize_t p = pos[0]
    cdef Py_ssize_t stop = end if end - p < 10 else p + 10
    cdef unsigned long long u = 0
    cdef unsigned int b
    cdef int shift = 0
    while p < stop:
        b = buf[p]
        p += 1
        if shift == 63 and b > 1:
            return -1
        u |= (<unsigned long long>(b & 0x7F)) << shift
        if b < 0x80:
            out[0] = u
            pos[0] = p
            return 0
        shift += 7
    return -1


cdef struct Record:
    long long number
    int wire_type
    unsigned long long varint  # VARINT: its value
    Py_ssize_t at  # where its value starts (LEN: after the length)
    Py_ssize_t stop  # where the record ends


cdef inline int read_key(Ctx* c, Py_ssize_t* pos, Py_ssize_t end, Record* r) except -1:
    """A record's key: its field number (not 0) and wire type."""
    cdef unsigned long long key
    if pos[0] < end and c.buf[pos[0]] < 0x80:
        key = c.buf[pos[0]]
        pos[0] += 1
    elif uvarint(c.buf, pos, end, &key) < 0 or key >> 32:
        raise DECLINE
    r.number = <long long>(key >> 3)
    r.wire_type = <int>(key & 7)
    if r.number == 0:
        raise DECLINE
    return 0


cdef Py_ssize_t group_end(Ctx* c, Py_ssize_t pos, Py_ssize_t end, long long number,
                          int depth) except -1:
    """``_group_end``: where the group of field ``number`` starting at ``pos`` ends."""
    if depth > c.max_depth or depth > MAX_C_DEPTH:
        raise DECLINE
    cdef Record r
    cdef Py_ssize_t start
    while True:
        if pos >= end:
            raise DECLINE
        start = pos
        read_key(c, &pos, end, &r)
        if r.wire_type == EGROUP:
            if r.number != number:
                raise DECLINE
            return pos
        read_record(c, start, end, &r, depth)
        pos = r.stop


cdef inline int read_record(Ctx* c, Py_ssize_t pos, Py_ssize_t end, Record* r,
                            int depth) except -1:
    """The record at ``pos`` of a message at ``depth``: its key and where its value lies
    (``read``'s checks); a group is passed over whole."""
    cdef unsigned long long n
    read_key(c, &pos, end, r)
    if r.wire_type == VARINT:
        r.at = pos
        if pos < end and c.buf[pos] < 0x80:
            r.varint = c.buf[pos]
            pos += 1
        elif uvarint(c.buf, &pos, end, &r.varint) < 0:
            raise DECLINE
    elif r.wire_type == LEN:
        if pos < end and c.buf[pos] < 0x80:
            n = c.buf[pos]
            pos += 1
        elif uvarint(c.buf, &pos, end, &n) < 0:
            raise DECLINE
        if n > <unsigned long long>(end - pos):
            raise DECLINE
        r.at = pos
        pos += <Py_ssize_t>n
    elif r.wire_type == I64 or r.wire_type == I32:
        r.at = pos
        pos += 8 if r.wire_type == I64 else 4
        if pos > end:
            raise DECLINE
    elif r.wire_type == SGROUP:
        r.at = pos
        pos = group_end(c, pos, end, r.number, depth + 1)
    else:  # an end of group without its start, and wire types that do not exist
        raise DECLINE
    r.stop = pos
    return 0


cdef inline object from_varint(int kind, unsigned long long u):
    """``_from_varint``: the value of a varint read for ``kind``."""
    cdef uint32_t x
    if kind == K_UINT64:
        return PyLong_FromUnsignedLongLong(u)
    if kind == K_INT64:
        return PyLong_FromLongLong(<long long>u)
    if kind == K_INT32 or kind == K_ENUM:
        return PyLong_FromLong(<int32_t><uint32_t>u)
    if kind == K_UINT32:
        return PyLong_FromUnsignedLongLong(<uint32_t>u)
    if kind == K_SINT32:
        x = <uint32_t>u
        return PyLong_FromLongLong(<long long>(x >> 1) ^ -<long long>(x & 1))
    if kind == K_SINT64:
        return PyLong_FromLongLong(<long long>(u >> 1) ^ -<long long>(u & 1))
    return u != 0  # bool


cdef inline object from_fixed(int kind, const unsigned char* p):
    """The value of a fixed-width record (little-endian, as struct's ``<`` formats)."""
    cdef uint32_t u32
    cdef unsigned long long u64
    cdef int i
    if kind == K_FLOAT:
        return PyFloat_FromDouble(PyFloat_Unpack4(<const char*>p, 1))
    if kind == K_DOUBLE:
        return PyFloat_FromDouble(PyFloat_Unpack8(<const char*>p, 1))
    if kind == K_FIXED32 or kind == K_SFIXED32:
        u32 = p[0] | (<uint32_t>p[1] << 8) | (<uint32_t>p[2] << 16) | (<uint32_t>p[3] << 24)
        if kind == K_FIXED32:
            return PyLong_FromUnsignedLongLong(u32)
        return PyLong_FromLong(<int32_t>u32)
    u64 = 0
    for i in range(7, -1, -1):
        u64 = (u64 << 8) | p[i]
    if kind == K_FIXED64:
        return PyLong_FromUnsignedLongLong(u64)
    return PyLong_FromLongLong(<long long>u64)


cdef inline bint is_ascii(const unsigned char* p, Py_ssize_t n) noexcept:
    cdef Py_ssize_t i
    for i in range(n):
        if p[i] >= 0x80:
            return False
    return True


cdef inline object ascii_text(const unsigned char* p, Py_ssize_t n):
    """The str of ``n`` ASCII bytes: the one ``PyUnicode_DecodeUTF8`` makes, without its
    decoder's set-up (a quarter of the cost of a short field's text)."""
    text = PyUnicode_New(n, 127)
    memcpy(PyUnicode_DATA(text), p, n)
    return text


cdef object read_value(Loop p, Ctx* c, int kind, int message, Record* r, int depth):
    """``_value``: the value of one record of a field of ``kind`` (wire type checked)."""
    cdef Py_ssize_t n
    if r.wire_type == VARINT:
        return from_varint(kind, r.varint)
    if r.wire_type != LEN:
        return from_fixed(kind, c.buf + r.at)
    n = r.stop - r.at
    if n > c.max_string:
        raise DECLINE
    if kind == K_STRING:
        if is_ascii(c.buf + r.at, n):
            return ascii_text(c.buf + r.at, n)
        try:
            return PyUnicode_DecodeUTF8(<const char*>(c.buf + r.at), n, NULL)
        except UnicodeDecodeError:
            raise DECLINE
    if kind == K_BYTES:
        return PyBytes_FromStringAndSize(<const char*>(c.buf + r.at), n)
    return read_message(p, c, message, r.at, r.stop, depth + 1)


cdef int read_packed(Ctx* c, int kind, int wire_type, Py_ssize_t pos, Py_ssize_t stop,
                     list items) except -1:
    """``_read_packed``: the elements of one packed record appended to ``items``."""
    cdef unsigned long long u
    cdef int width
    if wire_type != VARINT:
        width = 8 if wire_type == I64 else 4
        if (stop - pos) % width:
            raise DECLINE
        while pos < stop:
            PyList_Append(items, from_fixed(kind, c.buf + pos))
            pos += width
        return 0
    while pos < stop:
        if c.buf[pos] < 0x80:
            u = c.buf[pos]
            pos += 1
        elif uvarint(c.buf, &pos, stop, &u) < 0:
            raise DECLINE
        PyList_Append(items, from_varint(kind, u))
    return 0


cdef inline int wire_type_of(int kind) noexcept:
    if kind == K_FIXED32 or kind == K_SFIXED32 or kind == K_FLOAT:
        return I32
    if kind == K_FIXED64 or kind == K_SFIXED64 or kind == K_DOUBLE:
        return I64
    if kind == K_STRING or kind == K_BYTES or kind == K_MESSAGE:
        return LEN
    return VARINT


cdef Py_ssize_t read_entry(Loop p, Ctx* c, Field* f, Record* outer, int depth,
                          dict held) except -2:
    """``_map_entry``: one map entry message read at ``depth + 1``, its key and value put
    in ``held``. Records other than a key or value of their wire type are passed over;
    absent ones are their defaults (a message value: an empty message). A key read again
    moves to the end, as in the Python reader: returns where it was among the keys, or -1
    for a new key."""
    if depth + 1 > c.max_depth:
        raise DECLINE
    cdef Record r
    cdef Py_ssize_t pos = outer.at
    key = <object>f.key_default
    value = <object>f.value_default
    while pos < outer.stop:
        read_record(c, pos, outer.stop, &r, depth + 1)
        pos = r.stop
        if r.number == 1 and r.wire_type == wire_type_of(f.key_kind):
            key = read_value(p, c, f.key_kind, -1, &r, depth + 1)
        elif r.number == 2 and r.wire_type == wire_type_of(f.value_kind):
            value = read_value(p, c, f.value_kind, f.message, &r, depth + 1)
    if value is None:  # a message value left out
        value = read_message(p, c, f.message, outer.stop, outer.stop, depth + 2)
    cdef Py_ssize_t where = -1
    if PyDict_Contains(held, key):
        where = list(held).index(key)
        del held[key]
    PyDict_SetItem(held, key, value)
    return where


cdef inline int push_entry(Ctx* c, int kind, int field, long long number, Py_ssize_t count,
                           Py_ssize_t start, Py_ssize_t stop) except -1:
    cdef Entry* grown
    cdef Py_ssize_t cap
    if c.n_entries == c.cap_entries:
        cap = c.cap_entries * 2 if c.cap_entries else 64
        grown = <Entry*>realloc(c.entries, cap * sizeof(Entry))
        if grown == NULL:
            raise MemoryError()
        c.entries, c.cap_entries = grown, cap
    cdef Entry* e = &c.entries[c.n_entries]
    e.kind, e.field, e.number, e.count, e.start, e.stop = kind, field, number, count, start, stop
    c.n_entries += 1
    return 0


cdef inline Py_ssize_t push_slots(Ctx* c, int n) except -1:
    """``n`` "last record" slots for a message, each -1; the index of the first."""
    cdef int* grown
    cdef Py_ssize_t cap, first = c.n_last
    cdef int i
    if c.cap_last - c.n_last < n:
        cap = c.cap_last * 2 if c.cap_last else 64
        while cap - c.n_last < n:
            cap *= 2
        grown = <int*>realloc(c.last, cap * sizeof(int))
        if grown == NULL:
            raise MemoryError()
        c.last, c.cap_last = grown, cap
    for i in range(n):
        c.last[first + i] = -1
    c.n_last += n
    return first


cdef inline bint is_default(int kind, object value):
    """``is_default``: an implicit-presence value that a new message leaves out."""
    cdef double d
    if kind == K_FLOAT or kind == K_DOUBLE:
        d = PyFloat_AS_DOUBLE(value)
        return d == 0 and not signbit(d)
    return not value


cdef object read_message(Loop p, Ctx* c, int mi, Py_ssize_t pos, Py_ssize_t end, int depth):
    """``read_exact``'s loop: the model of the records in ``buf[pos:end]``."""
    if depth > c.max_depth or depth > MAX_C_DEPTH:
        raise DECLINE
    cdef Message* m = &p.messages[mi]
    cdef Field* fields = p.fields + m.first
    cdef int* order = p.order + m.first
    cdef int count = m.count
    cdef Py_ssize_t base = c.n_entries
    cdef Py_ssize_t slots = push_slots(c, m.n_slots)
    cdef bint canonical = True
    cdef long long previous = 0
    cdef int guess = 0  # where in number order the next record's field usually is
    cdef int fi, j
    cdef Py_ssize_t had, earlier
    cdef Record r
    cdef Field* f
    obj = new_model(<type>m.cls)
    for j in range(count):
        f = &fields[j]
        if f.repeated != NOT_REPEATED:
            put_slot(obj, f.offset, [])
        elif f.kind == K_MAP:
            put_slot(obj, f.offset, {})
        else:
            put_slot(obj, f.offset, <object>f.default)
    while pos < end:
        read_record(c, pos, end, &r, depth)
        fi = -1
        if guess < count and fields[order[guess]].number == r.number:
            fi = order[guess]
        elif guess + 1 < count and fields[order[guess + 1]].number == r.number:
            guess += 1
            fi = order[guess]
        else:
            for j in range(count):
                if fields[order[j]].number == r.number:
                    fi = order[j]
                    guess = j
                    break
        if r.number < previous:
            canonical = False
        previous = r.number
        if fi >= 0:
            f = &fields[fi]
        if fi < 0 or f.wire_type != r.wire_type and not (r.wire_type == LEN and f.packable):
            canonical = False
            push_entry(c, E_BYTES, -1, r.number, 0, pos, r.stop)
            pos = r.stop
            continue
        if f.repeated != NOT_REPEATED:
            items = <list>get_slot(obj, f.offset)
            if r.wire_type == LEN and f.wire_type != LEN:
                had = len(items)
                canonical = canonical and f.repeated == PACKED and had == 0
                read_packed(c, f.kind, f.wire_type, r.at, r.stop, items)
                canonical = canonical and len(items) > had  # not an empty record
                push_entry(c, E_PACKED, fi, r.number, len(items) - had, pos, r.stop)
            else:
                canonical = canonical and f.repeated != PACKED
                PyList_Append(items, read_value(p, c, f.kind, f.message, &r, depth))
                push_entry(c, E_NUMBER, fi, r.number, 1, pos, r.stop)
        elif f.kind == K_MAP:
            earlier = read_entry(p, c, f, &r, depth, <dict>get_slot(obj, f.offset))
            if earlier >= 0:  # a key read again: its earlier record is kept as bytes
                canonical = False
                forget_map_entry(c, base, fi, earlier)
            push_entry(c, E_NUMBER, fi, r.number, 1, pos, r.stop)
        else:
            value = read_value(p, c, f.kind, f.message, &r, depth)
            earlier = c.last[slots + f.slot]
            if earlier >= 0:  # read over: the earlier record is kept as bytes, in place
                canonical = False
                c.entries[base + earlier].kind = E_BYTES
                if c.entries[base + earlier].field != fi:  # another member of the oneof
                    put_slot(obj, fields[c.entries[base + earlier].field].offset, None)
            put_slot(obj, f.offset, value)
            if not f.explicit and is_default(f.kind, value):
                canonical = False  # written though a new message would leave it out
            c.last[slots + f.slot] = <int>(c.n_entries - base)
            push_entry(c, E_NUMBER, fi, r.number, 1, pos, r.stop)
        pos = r.stop
    if canonical:
        put_slot(obj, m.layout_offset, None)
    else:
        put_slot(obj, m.layout_offset, layout_of(c, base))
    c.n_entries = base
    c.n_last = slots
    return obj


cdef int forget_map_entry(Ctx* c, Py_ssize_t base, int fi, Py_ssize_t which) except -1:
    """Keep as bytes the record of the map key that was ``which``-th among the map's keys:
    the map's entries in the layout are in the order of its keys (a key read again moves
    to the end of both)."""
    cdef Py_ssize_t i
    for i in range(base, c.n_entries):
        if c.entries[i].field == fi and c.entries[i].kind == E_NUMBER:
            if which == 0:
                c.entries[i].kind = E_BYTES
                return 0
            which -= 1
    raise DECLINE


cdef tuple layout_of(Ctx* c, Py_ssize_t base):
    """The ``wire_layout`` tuple of the entries from ``base`` on."""
    cdef Py_ssize_t i
    cdef Entry* e
    out = []
    for i in range(base, c.n_entries):
        e = &c.entries[i]
        if e.kind == E_NUMBER:
            out.append(PyLong_FromLongLong(e.number))
        elif e.kind == E_PACKED:
            out.append((PyLong_FromLongLong(e.number), PyLong_FromLongLong(e.count)))
        else:
            out.append(PyBytes_FromStringAndSize(<const char*>(c.buf + e.start), e.stop - e.start))
    return tuple(out)


cdef double _probe = 1.0
cdef unsigned char _probe_bytes[8]
memcpy(_probe_bytes, &_probe, 8)
if _probe_bytes[7] != 0x3F:  # fixed-width values are assembled little-endian below
    raise ImportError("runtime._compiled.protobuf runs on little-endian hosts only")


# -- writing -------------------------------------------------------------------------------
# ``write_exact`` in C: a model's wire layout first (kept bytes in place, each field's next
# values), then in number order what it does not cover: implicit-presence fields only when
# not their default, repeats in the schema's packing, map entries as key then value. A value
# of another type than the reader makes (an IntEnum, a tuple, a dict for a message, a
# bytearray in a layout), two members of a oneof, a value out of range or a layout entry
# that names no field of its kind: not mine.


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


cdef int write_payload(Loop p, Out* o, int kind, int message, object v, int depth) except -1:
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
        return write_message(p, o, message, v, depth + 1)
    if kind == K_BOOL:
        if v is not True and v is not False:
            raise DECLINE
        return put_uvarint(o, 1 if v is True else 0)
    if kind == K_FLOAT or kind == K_DOUBLE:
        if type(v) is not float:
            raise DECLINE
        if kind == K_FLOAT:
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


cdef int write_one(Loop p, Out* o, Field* f, int kind, object v, int depth) except -1:
    """``_write_one``: the record of one value: ``f``'s key, then the value."""
    cdef Py_ssize_t start
    put(o, f.key, f.key_len)
    if wire_type_of(kind) != LEN:
        return write_payload(p, o, kind, f.message, v, depth)
    start = o.size
    write_payload(p, o, kind, f.message, v, depth)
    return prefix_length(o, start)


cdef int write_entry(Loop p, Out* o, Field* f, object key, object value, int depth) except -1:
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
        write_payload(p, o, f.key_kind, -1, key, depth)
        prefix_length(o, start + 1)
    else:
        write_payload(p, o, f.key_kind, -1, key, depth)
    head = <unsigned char>(2 << 3 | wire_type_of(f.value_kind))
    put(o, &head, 1)
    cdef Py_ssize_t value_start = o.size
    write_payload(p, o, f.value_kind, f.message, value, depth)
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


cdef int write_elements(Loop p, Out* o, Field* f, object value, Py_ssize_t first,
                        Py_ssize_t stop, bint packed, int depth) except -1:
    """Elements ``first:stop`` of a repeated field: one packed record, or one record each."""
    cdef Py_ssize_t start, i
    if packed:
        put(o, f.len_key, f.len_key_len)
        start = o.size
        for i in range(first, stop):
            write_payload(p, o, f.kind, f.message, (<list>value)[i], depth)
        return prefix_length(o, start)
    for i in range(first, stop):
        x = (<list>value)[i]
        if x is None:
            raise DECLINE
        write_one(p, o, f, f.kind, x, depth)
    return 0


cdef int field_index(Field* fields, int count, object number) except -2:
    """The index of the field numbered ``number`` (an int), or -1."""
    cdef int overflow = 0
    cdef long long n = PyLong_AsLongLongAndOverflow(number, &overflow)
    if overflow:
        return -1
    for j in range(count):
        if fields[j].number == n:
            return j
    return -1


cdef int write_message(Loop p, Out* o, int mi, object m, int depth) except -1:
    """``write_exact``: the records of a layout (kept bytes, then each field's next
    values), then what it does not cover in the canonical order; with no layout, all of
    them canonically."""
    cdef Message* s = &p.messages[mi]
    if type(m) is not <object>s.cls or depth > MAX_C_DEPTH:
        raise DECLINE
    cdef Field* fields = p.fields + s.first
    cdef int* order = p.order + s.first
    cdef unsigned long long oneofs = 0
    cdef int j
    cdef PyObject* v
    for j in range(s.count):
        v = get_slot(m, fields[j].offset)
        if v == NULL:
            raise DECLINE
        if fields[j].oneof >= 0 and v != <PyObject*>None:
            if oneofs >> fields[j].oneof & 1:  # two members set: the Python writer's error
                raise DECLINE
            oneofs |= 1ULL << fields[j].oneof
    layout = <object>get_slot(m, s.layout_offset)
    cdef Py_ssize_t* used = <Py_ssize_t*>calloc(max(s.count, 1), sizeof(Py_ssize_t))
    if used == NULL:
        raise MemoryError()
    try:
        if layout is not None:
            write_layout(p, o, s, m, layout, used, depth)
        for j in range(s.count):
            write_rest(p, o, &fields[order[j]], m, used[order[j]], depth)
    finally:
        free(used)
    return 0


cdef int write_layout(Loop p, Out* o, Message* s, object m, object layout, Py_ssize_t* used,
                      int depth) except -1:
    """``_entries_with_rest``'s walk of a layout, writing as it goes; ``used`` counts the
    values of each field it wrote."""
    cdef Field* fields = p.fields + s.first
    cdef Field* f
    cdef Py_ssize_t count, have, take
    cdef int fi
    cdef bint packed_entry
    if type(layout) is not tuple:
        raise DECLINE
    items = None  # each map's items, listed when a layout entry names the map
    for entry in <tuple>layout:
        if type(entry) is bytes:
            put(o, <const unsigned char*>PyBytes_AS_STRING(entry), PyBytes_GET_SIZE(entry))
            continue
        if type(entry) is int:
            number, count, packed_entry = entry, 1, False
        elif (type(entry) is tuple and len(<tuple>entry) == 2 and type(entry[0]) is int
              and type(entry[1]) is int and 0 <= entry[1] < (1 << 62)):
            number, count, packed_entry = entry[0], entry[1], True
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
        if f.kind == K_MAP:
            if items is None:
                items = {}
            if fi not in items:
                items[fi] = list((<dict>value).items())
            key, x = items[fi][used[fi]]
            write_entry(p, o, f, key, x, depth)
        elif f.repeated != NOT_REPEATED:
            write_elements(p, o, f, value, used[fi], used[fi] + take, packed_entry, depth)
        else:
            write_one(p, o, f, f.kind, value, depth)
        used[fi] += take
    return 0


cdef int write_rest(Loop p, Out* o, Field* f, object m, Py_ssize_t done, int depth) except -1:
    """A field's values a layout did not cover (all of them without a layout), written
    canonically."""
    cdef Py_ssize_t i = 0
    value = field_value(m, f)
    if f.kind == K_MAP:
        for a, b in (<dict>value).items():
            if i >= done:
                write_entry(p, o, f, a, b, depth)
            i += 1
    elif f.repeated != NOT_REPEATED:
        if len(value) > done:
            write_elements(p, o, f, value, done, len(value), f.repeated == PACKED, depth)
    elif done or value is None:
        return 0  # written by the layout, or absent
    elif f.explicit or not write_default_check(f.kind, value):
        write_one(p, o, f, f.kind, value, depth)
    return 0


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
