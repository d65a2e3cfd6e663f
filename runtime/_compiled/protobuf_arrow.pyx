# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""Protobuf messages read straight into Arrow: the Spark columns of a ``layout: protobuf``
message (nested messages as structs, repeated and packed fields as lists, maps as Arrow
maps) appended to the builders of runtime/_compiled/arrow.pyx from the bytes, with no
model and no row: what ``write_arrow`` of a ``generated/_compiled/<format>.pyx`` is for the
other formats, driven by the C tables the protobuf reader loads (runtime/_compiled/protobuf.pyx,
``tables``).

It writes exactly the Arrow of ``to_rows(parse(x))`` or declines the message (its builders
truncated to where they were, for the caller to decode it the Python way, which gives the
rows or the ``DecodeError`` with its offset): bad bytes, a limit, nesting past the C
stack's, and two forms whose rows it would have to take back: a map key read twice, a map
entry other than its key then its value. A singular field (or oneof) read twice keeps the
last value, the earlier one read and dropped. Unknown fields, groups and known fields of
another wire type have no column: they are passed over (checked as the reader checks them).
"""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport int32_t, uint32_t
from libc.stdlib cimport free, realloc
from libc.string cimport memcmp, memcpy

from runtime._compiled.arrow cimport (
    REFUSED, BinaryBuilder, BinaryColumn, BoolBuilder, Builder, DecimalBuilder, FloatBuilder,
    IntBuilder, ListBuilder, StructBuilder, binary_column, binary_value, put_bool, put_bytes,
    put_decimal, put_double, put_int, utf8_valid,
)
from runtime._compiled.float32 cimport float32_widened
from runtime._compiled.prelude cimport _Limits, _limits
from runtime._compiled.protobuf_records cimport Record, find_field, read_record
from runtime._compiled.protobuf_tables cimport *
from runtime._compiled.protobuf_values cimport uvarint


cdef enum:
    MAX_MAP_CHECKED = 256  # a map of more entries declines: its keys are checked pairwise


cdef struct Ctx:
    const unsigned char* buf
    Py_ssize_t max_depth
    Py_ssize_t max_string
    Py_ssize_t max_count
    bint counted  # the message is longer than max_count: its lists may hold too many
    Record* last  # per message being read: each singular slot's record, innermost last
    int* field  # and which field of the message it is (-1: none read)
    Py_ssize_t n_last
    Py_ssize_t cap_last


# -- values --------------------------------------------------------------------------------


cdef inline int put_varint(int kind, unsigned long long u, Builder b) except -1:
    """The value of a varint read for ``kind`` (protobuf_values.pxd's ``from_varint``)."""
    cdef uint32_t x
    if kind == K_UINT64:
        return put_decimal(b, u)
    if kind == K_INT64:
        return put_int(b, <long long>u)
    if kind == K_INT32 or kind == K_ENUM:
        return put_int(b, <int32_t><uint32_t>u)
    if kind == K_UINT32:
        return put_int(b, <uint32_t>u)
    if kind == K_SINT32:
        x = <uint32_t>u
        return put_int(b, <long long>(x >> 1) ^ -<long long>(x & 1))
    if kind == K_SINT64:
        return put_int(b, <long long>(u >> 1) ^ -<long long>(u & 1))
    return put_bool(b, u != 0)


cdef inline int put_fixed(int kind, const unsigned char* p, Builder b) except -1:
    """The value of a fixed-width record (little-endian: protobuf.pyx checks the host)."""
    cdef uint32_t u32
    cdef unsigned long long u64
    cdef double d
    if kind == K_FLOAT or kind == K_FIXED32 or kind == K_SFIXED32:
        memcpy(&u32, p, 4)
        if kind == K_FLOAT:  # widened on its bits, as the model's float
            return put_double(b, float32_widened(u32))
        if kind == K_FIXED32:
            return put_int(b, u32)
        return put_int(b, <int32_t>u32)
    memcpy(&u64, p, 8)
    if kind == K_DOUBLE:
        memcpy(&d, &u64, 8)
        return put_double(b, d)
    if kind == K_FIXED64:
        return put_decimal(b, u64)
    return put_int(b, <long long>u64)


cdef inline int put_default(int kind, Builder b) except -1:
    """An absent implicit-presence scalar: its default."""
    if kind == K_UINT64 or kind == K_FIXED64:
        return put_decimal(b, 0)
    if kind == K_FLOAT or kind == K_DOUBLE:
        return put_double(b, 0.0)
    if kind == K_BOOL:
        return put_bool(b, False)
    if kind == K_STRING or kind == K_BYTES:
        return put_bytes(b, b"", 0, kind == K_STRING)
    return put_int(b, 0)


cdef int put_value(Tables* t, Ctx* c, int kind, int message, Record* r, Py_ssize_t depth,
                   Builder b) except -1:
    """One record's value (its wire type the field's) into ``b``."""
    cdef Py_ssize_t n
    if r.wire_type == VARINT:
        return put_varint(kind, r.varint, b)
    if r.wire_type != LEN:
        return put_fixed(kind, c.buf + r.at, b)
    n = r.stop - r.at
    if n > c.max_string:
        return REFUSED
    if kind == K_MESSAGE:
        return write_message(t, c, message, r.at, r.stop, depth + 1, <StructBuilder>b)
    if kind == K_STRING and not utf8_valid(c.buf + r.at, n):
        return REFUSED
    return put_bytes(b, <const char*>(c.buf + r.at), n, kind == K_STRING)


cdef int put_packed(int kind, int wire_type, const unsigned char* buf, Py_ssize_t pos,
                    Py_ssize_t stop, Builder b) except -1:
    """The elements of one packed record."""
    cdef unsigned long long u
    cdef int width
    if wire_type != VARINT:
        width = 8 if wire_type == I64 else 4
        if (stop - pos) % width:
            return REFUSED
        while pos < stop:
            if put_fixed(kind, buf + pos, b):
                return REFUSED
            pos += width
        return 0
    while pos < stop:
        if buf[pos] < 0x80:
            u = buf[pos]
            pos += 1
        elif uvarint(buf, &pos, stop, &u) < 0:
            return REFUSED
        if put_varint(kind, u, b):
            return REFUSED
    return 0


cdef int put_entry(Tables* t, Ctx* c, Field* f, Record* outer, Py_ssize_t depth,
                   StructBuilder entry) except -1:
    """One map entry read at ``depth + 1``: its key record, then its value record."""
    cdef Record r
    if depth + 1 > c.max_depth:
        return REFUSED
    if (read_record(c.buf, outer.at, outer.stop, &r, depth + 1, c.max_depth) < 0
            or r.number != 1 or r.wire_type != wire_type_of(f.key_kind)
            or put_value(t, c, f.key_kind, -1, &r, depth + 1, entry.children[0])):
        return REFUSED
    if (read_record(c.buf, r.stop, outer.stop, &r, depth + 1, c.max_depth) < 0
            or r.number != 2 or r.wire_type != wire_type_of(f.value_kind) or r.stop != outer.stop
            or put_value(t, c, f.value_kind, f.message, &r, depth + 1, entry.children[1])):
        return REFUSED
    return entry.valid()


cdef bint same_key(Builder keys, Py_ssize_t i, Py_ssize_t j) noexcept:
    """Whether map keys ``i`` and ``j`` are equal (strings, ints or bools)."""
    cdef const int32_t* at
    cdef int width
    if type(keys) is BinaryBuilder:
        at = <const int32_t*>(<BinaryBuilder>keys).offsets.ptr
        return (at[i + 1] - at[i] == at[j + 1] - at[j] and not memcmp(
            (<BinaryBuilder>keys).values.ptr + at[i], (<BinaryBuilder>keys).values.ptr + at[j],
            at[i + 1] - at[i]))
    if type(keys) is IntBuilder:
        width = (<IntBuilder>keys).width
        return not memcmp((<IntBuilder>keys).values.ptr + i * width,
                          (<IntBuilder>keys).values.ptr + j * width, width)
    cdef const unsigned char* bits = <const unsigned char*>(<BoolBuilder>keys).values.bytes.ptr
    return ((bits[i >> 3] >> (i & 7)) & 1) == ((bits[j >> 3] >> (j & 7)) & 1)


cdef int close_map(ListBuilder b) except -1:
    """The map's slot, or REFUSED where a key is read twice (the model keeps the last one
    where the first was read: the rows would be taken back)."""
    cdef Builder keys = <Builder>(<StructBuilder>b.child).children[0]
    cdef Py_ssize_t start = (<const int32_t*>b.offsets.ptr)[b.length], i, j
    if keys.length - start > MAX_MAP_CHECKED:
        return REFUSED
    for i in range(start + 1, keys.length):
        for j in range(start, i):
            if same_key(keys, i, j):
                return REFUSED
    return b.close_list()


cdef inline bint too_many(ListBuilder b, Py_ssize_t max_count) noexcept:
    """Whether the list being written in ``b`` holds more than ``max_count`` elements
    (where the Python reader raises; a map's keys are checked after: a key read again
    declines anyway)."""
    return b.child.length - (<const int32_t*>b.offsets.ptr)[b.length] > max_count


# -- messages ------------------------------------------------------------------------------


cdef Py_ssize_t push_slots(Ctx* c, int n) except -1:
    """``n`` singular slots for a message, none read; the index of the first."""
    cdef Py_ssize_t cap, first = c.n_last
    cdef void* grown
    cdef int i
    if c.cap_last - c.n_last < n:
        cap = max(2 * c.cap_last, c.n_last + n, 64)
        grown = realloc(c.last, cap * sizeof(Record))
        if grown == NULL:
            raise MemoryError()
        c.last = <Record*>grown
        grown = realloc(c.field, cap * sizeof(int))
        if grown == NULL:
            raise MemoryError()
        c.field, c.cap_last = <int*>grown, cap
    for i in range(n):
        c.field[first + i] = -1
    c.n_last += n
    return first


cdef int earlier(Tables* t, Ctx* c, Field* fields, Py_ssize_t slot, Py_ssize_t depth,
                 list children) except -1:
    """A singular field (or oneof) read again: the model keeps the last value, but reads
    the earlier one as well (its errors and limits), so it is written, then dropped."""
    cdef int fi = c.field[slot]
    cdef Record r = c.last[slot]
    cdef Builder b = <Builder>children[fi]
    cdef Py_ssize_t mark = b.length
    if put_value(t, c, fields[fi].kind, fields[fi].message, &r, depth, b):
        return REFUSED
    return b.truncate(mark)


cdef int write_message(Tables* t, Ctx* c, int mi, Py_ssize_t pos, Py_ssize_t end,
                       Py_ssize_t depth, StructBuilder out) except -1:
    """Message ``mi`` of ``buf[pos:end]`` read at ``depth`` as one slot of ``out`` (a
    struct of its fields' columns, in their order): repeated fields and maps go to their
    lists as their records come, singular ones once all are read (the last record of each
    slot: the model's value)."""
    if depth > c.max_depth or depth > MAX_C_DEPTH:
        return REFUSED
    cdef Message* m = &t.messages[mi]
    cdef Field* fields = t.fields + m.first
    cdef int* order = t.order + m.first
    cdef list children = out.children
    cdef Py_ssize_t slots = push_slots(c, m.n_slots)
    cdef int fi, j, guess = 0
    cdef Record r
    cdef Field* f
    cdef Builder b
    while pos < end:
        if read_record(c.buf, pos, end, &r, depth, c.max_depth) < 0:
            return REFUSED
        pos = r.stop
        fi = find_field(fields, order, m.count, r.number, &guess)
        if fi < 0:
            continue  # unknown: no column
        f = &fields[fi]
        if f.wire_type != r.wire_type:
            if r.wire_type == LEN and f.packable and put_packed(
                    f.kind, f.wire_type, c.buf, r.at, r.stop, (<ListBuilder>children[fi]).child):
                return REFUSED
            continue  # (another wire type: the model keeps it as bytes, in no column)
        if f.repeated != NOT_REPEATED:
            if put_value(t, c, f.kind, f.message, &r, depth, (<ListBuilder>children[fi]).child):
                return REFUSED
        elif f.kind == K_MAP:
            if put_entry(t, c, f, &r, depth, <StructBuilder>(<ListBuilder>children[fi]).child):
                return REFUSED
        else:
            if c.field[slots + f.slot] >= 0 and earlier(t, c, fields, slots + f.slot, depth,
                                                        children):
                return REFUSED
            c.field[slots + f.slot] = fi
            c.last[slots + f.slot] = r
    for j in range(m.count):
        f = &fields[j]
        b = <Builder>children[j]
        if f.kind == K_MAP:
            if c.counted and too_many(<ListBuilder>b, c.max_count) or close_map(<ListBuilder>b):
                return REFUSED
        elif f.repeated != NOT_REPEATED:
            if c.counted and too_many(<ListBuilder>b, c.max_count) or (<ListBuilder>b).close_list():
                return REFUSED
        elif c.field[slots + f.slot] == j:
            r = c.last[slots + f.slot]  # a copy: a nested message may grow c.last
            if put_value(t, c, f.kind, f.message, &r, depth, b):
                return REFUSED
        elif f.explicit:
            b.null()
        elif put_default(f.kind, b):
            return REFUSED
    c.n_last = slots
    return out.valid()


# -- the reader of a module's messages -------------------------------------------------------


cdef class _Root:
    """One record's message: its loop (alive: the tables are its own) and tables."""
    cdef object loop
    cdef object message
    cdef Tables* t
    cdef object checked  # the last builder found to be the message's columns


cdef class ProtobufArrow:
    """The messages of a generated module's ``RECORDS`` that have a compiled loop, read
    into Arrow (:meth:`write_arrow`, as ``generated/_compiled/<format>.pyx``'s).

        >>> from generated import protobuf_wire
        >>> sorted(ProtobufArrow(protobuf_wire.RECORDS).records)[:2]
        ['address', 'line_item']
    """

    cdef dict roots
    cdef readonly frozenset records
    """the records :meth:`write_arrow` writes"""
    cdef Ctx c

    def __init__(self, records):
        from runtime._compiled.protobuf import Loop, tables

        self.roots = {}
        for name, message in records.items():
            loop = getattr(message, "compiled", None)
            if isinstance(loop, Loop):
                root = _Root()
                root.loop, root.message = loop, message
                root.t = <Tables*>PyCapsule_GetPointer(tables(loop), NULL)
                self.roots[name] = root
        self.records = frozenset(self.roots)

    def __dealloc__(self):
        free(self.c.last)
        free(self.c.field)

    def write_arrow(self, str record, column, Py_ssize_t start, Py_ssize_t stop,
                    StructBuilder out, list counts, limits):
        """The Spark rows of ``column[start:stop]`` (a pyarrow binary or large_binary Array
        of ``record`` messages) written into ``out`` (a struct of the record's columns),
        one count each appended to ``counts``; returns where it stopped: ``stop``, or the
        first message it does not take (a null, or one it declines: ``out`` is then as it
        was before it), for the caller to decode the Python way. What the bytes hold raises
        nothing; a builder that is not of the record's columns raises TypeError."""
        cdef _Root root = self.roots[record]
        cdef _Limits lim
        cdef BinaryColumn messages
        cdef Py_ssize_t i, n, mark
        cdef const unsigned char* buf
        if root.checked is not out:
            _check(root.t, 0, root.message, out)
            root.checked = out
        _limits(limits, &lim)
        binary_column(column, &messages)
        if not 0 <= start <= stop <= messages.length:
            raise IndexError(f"messages {start}:{stop} of a column of {messages.length}")
        self.c.max_depth, self.c.max_string, self.c.max_count = (
            lim.max_depth, lim.max_string, lim.max_count)
        for i in range(start, stop):
            if not binary_value(&messages, i, &buf, &n) or n > lim.max_message_bytes:
                return i
            mark = out.length
            self.c.buf, self.c.n_last, self.c.counted = buf, 0, n > lim.max_count
            if write_message(root.t, &self.c, 0, 0, n, 1, out):
                out.truncate(mark)
                return i
            counts.append(1)
        return stop


_WIDTHS = {K_INT32: 4, K_SINT32: 4, K_SFIXED32: 4, K_ENUM: 4, K_INT64: 8, K_SINT64: 8,
           K_SFIXED64: 8, K_UINT32: 8, K_FIXED32: 8}
"""The int column of each integer kind (the Spark type of its wirespec primitive)."""


cdef int _check(Tables* t, int mi, message, Builder b) except -1:
    """TypeError unless ``b`` is the Spark columns of message ``mi`` (``message``: its
    ``ProtobufMessage``): a struct of its fields, by name and kind, nested ones too."""
    cdef Message* m = &t.messages[mi]
    cdef Field* f
    if type(b) is not StructBuilder or len((<StructBuilder>b).children) != m.count:
        raise TypeError(f"a {b.type} column for a message of {m.count} fields")
    for j, (pf, arrow_field) in enumerate(zip(message.fields, b.type)):
        f = &t.fields[m.first + j]
        child = (<StructBuilder>b).children[j]
        if pf.name != arrow_field.name:
            raise TypeError(f"column {arrow_field.name} where the message has {pf.name}")
        if f.repeated != NOT_REPEATED or f.kind == K_MAP:
            if type(child) is not ListBuilder:
                raise TypeError(f"a {arrow_field.type} column for {pf.name}")
            child = (<ListBuilder>child).child
        if f.kind != K_MAP:
            _check_value(t, f.kind, f.message, pf.message, child)
        elif type(child) is not StructBuilder or len((<StructBuilder>child).children) != 2:
            raise TypeError(f"a {arrow_field.type} column for {pf.name}")
        else:
            _check_value(t, f.key_kind, -1, None, (<StructBuilder>child).children[0])
            _check_value(t, f.value_kind, f.message, pf.map_value, (<StructBuilder>child).children[1])
    return 0


cdef int _check_value(Tables* t, int kind, int mi, message, Builder b) except -1:
    """TypeError unless ``b`` takes the values of ``kind`` as ``to_rows`` gives them."""
    if kind == K_MESSAGE:
        return _check(t, mi, message, b)
    if kind in _WIDTHS:
        ok = type(b) is IntBuilder and (<IntBuilder>b).width == _WIDTHS[kind]
    elif kind == K_UINT64 or kind == K_FIXED64:
        ok = type(b) is DecimalBuilder
    elif kind == K_FLOAT or kind == K_DOUBLE:
        ok = type(b) is FloatBuilder and (<FloatBuilder>b).single == (kind == K_FLOAT)
    elif kind == K_BOOL:
        ok = type(b) is BoolBuilder
    else:
        ok = type(b) is BinaryBuilder and (<BinaryBuilder>b).text == (kind == K_STRING)
    if not ok:
        raise TypeError(f"a {b.type} column for a protobuf kind {kind}")
    return 0
