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
last-wins singular fields, oneofs and map keys, the canonical-order test, records in forms
upb reads and encode does not write kept as their bytes: ``Ctx.kept``) or declines with
``None``: on bad bytes, a limit, nesting past what the C stack is given, the Python reader
runs and gives the model or the exact ``DecodeError``.

**Lazily.** A read checks the whole message first (:func:`check_message`: every record,
length, UTF-8 text, limit and depth, so it declines exactly where building would) and
hands out a model whose slots all hold one ``Pending`` (runtime/_compiled/lazy.pyx, shared
with the readers rendered from the lowering): the input ``bytes`` (immutable, so the model
cannot change under it) and the message's span. :func:`load` puts a ``LazySlot`` over each
slot of the model classes: the first read, write or delete of
any field of the message builds all its fields (:func:`fill_message`, nested messages
again as pending models), so every attribute, ``==``, repr, pickling and the writer see the
model the eager reader made. Building a model costs what it did; a model never looked at
costs its check and two objects.

The layout of a message is kept as C entries while it is built (a stack shared by the
nested messages: a message's entries are popped when it ends) and becomes a tuple only
when the records were not in the canonical order.

:meth:`Loop.write` writes a model as ``write_exact`` does (runtime/_compiled/protobuf_write.pyx).
"""

cimport cython
from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_GET_SIZE, PyByteArray_Resize
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.dict cimport PyDict_Contains, PyDict_SetItem
from cpython.list cimport PyList_Append
from cpython.long cimport PyLong_FromLongLong
from cpython.pycapsule cimport PyCapsule_New
from cpython.object cimport PyObject, PyTypeObject
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.limits cimport LLONG_MAX
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy

from runtime._compiled.buffers cimport readable_bytes, readable_range
from runtime._compiled.out cimport Out
from runtime._compiled.protobuf_kept cimport (
    E_KEPT, E_PACKED_KEPT, KEPT_SPAN, exact_varint, narrow_kept, packed_kept,
)
from runtime._compiled cimport protobuf_records as records
from runtime._compiled.protobuf_records cimport Record, find_field, kept_uvarint
from runtime._compiled.protobuf_tables cimport *
from runtime._compiled.protobuf_values cimport ascii_text, from_fixed, from_varint, is_ascii, uvarint
from runtime._compiled.protobuf_write cimport write_message

from runtime._compiled.lazy cimport Builder, Pending, lazy_slots, new_pending
from runtime._compiled.slots cimport get_slot, new_model, put_slot


cdef extern from "Python.h":
    const Py_ssize_t PY_SSIZE_T_MAX
    int PyGC_Disable()
    int PyGC_Enable()


_KINDS = {
    "int32": K_INT32, "int64": K_INT64, "uint32": K_UINT32, "uint64": K_UINT64,
    "sint32": K_SINT32, "sint64": K_SINT64, "enum": K_ENUM, "bool": K_BOOL,
    "fixed32": K_FIXED32, "sfixed32": K_SFIXED32, "float": K_FLOAT,
    "fixed64": K_FIXED64, "sfixed64": K_SFIXED64, "double": K_DOUBLE,
    "string": K_STRING, "bytes": K_BYTES, "message": K_MESSAGE, "map": K_MAP,
}


cdef struct Entry:
    int kind
    int field  # index in its message's fields
    long long number
    Py_ssize_t count
    Py_ssize_t start
    Py_ssize_t stop


cdef struct Ctx:
    const unsigned char* buf
    PyObject* owner  # the bytes ``buf`` points into (borrowed: the read or Pending holds it)
    long long max_depth
    long long max_string
    long long max_count  # the check's (a model's fill counts nothing)
    bint kept  # forms encode does not write were met: their records are kept
    Entry* entries  # the layout entries of the messages being read, innermost last
    Py_ssize_t n_entries
    Py_ssize_t cap_entries
    int* last  # per message being read: entry index of each slot's last record, or -1
    Py_ssize_t n_last
    Py_ssize_t cap_last


class _Decline(Exception):
    """Not mine: the Python reader or writer decides."""


cdef object DECLINE = _Decline()


cdef class Loop(Builder):
    """The tables of one message and the messages it reaches, as C arrays, with the
    reader and the writer over them."""

    cdef Tables t
    cdef int n_messages
    cdef list keep  # Python objects the arrays point to
    cdef object last_limits
    cdef long long max_depth
    cdef long long max_string
    cdef long long max_count
    cdef Entry* entries  # reused between reads (a read holds the GIL throughout)
    cdef Py_ssize_t cap_entries
    cdef int* last
    cdef Py_ssize_t cap_last
    cdef bint busy  # a model is being built in entries and last
    cdef object defaults
    cdef Py_ssize_t max_message_bytes
    cdef object exact_read
    cdef object exact_write

    def __dealloc__(self):
        free(self.t.messages)
        free(self.t.fields)
        free(self.t.order)
        free(self.entries)
        free(self.last)

    cdef int fill(self, Pending span, object model) except -1:
        return force(span, model)

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
        """The root message's ``(model, end)``, or None: not mine. ``buf[pos:end]`` is
        read as buffers.pxd's ``readable_range`` gives it (``pos`` and ``end`` are the
        view's; only that part is copied, where it is copied)."""
        cdef Py_ssize_t at = pos, stop = end
        data = readable_range(buf, &at, &stop)
        if data is None:
            return None
        model = self.read_root(data, at, stop, limits, depth)
        return None if model is None else (model, end)

    cpdef object read_whole(self, data, dict limits):
        """``parse(data)`` from C (``runtime._compiled.dispatch.TablesFirst``): the root
        message's model with the defaults of :meth:`use_defaults`, or None (limits given,
        too long, not mine): the module's Python ``parse`` decides."""
        if limits or self.defaults is None:
            return None
        data = readable_bytes(data)
        if data is None:
            return None
        if PyBytes_GET_SIZE(data) > self.max_message_bytes:
            return None
        return self.read_root(data, 0, PyBytes_GET_SIZE(data), self.defaults, 1)

    def use_defaults(self, limits):
        """The limits :meth:`read_whole` reads with (a generated module's defaults)."""
        self.max_message_bytes = min(limits.max_message_bytes, PY_SSIZE_T_MAX)
        self.defaults = limits

    cdef object read_root(self, bytes buf, Py_ssize_t pos, Py_ssize_t end, limits, int depth):
        """The lazy model of ``buf[pos:end]`` (in range) once it is checked, or None."""
        if limits is not self.last_limits:  # Limits is frozen: read once per object
            try:
                self.max_depth = limits.max_depth
                self.max_string = limits.max_string
                self.max_count = limits.max_count
            except (AttributeError, TypeError, OverflowError):  # beyond C's range: not mine
                self.last_limits = None
                return None
            self.last_limits = limits
        cdef Ctx c
        c.buf = <const unsigned char*>PyBytes_AS_STRING(buf)
        c.owner = <PyObject*>buf
        c.max_depth = self.max_depth
        c.max_string = self.max_string
        c.max_count = self.max_count
        try:  # the check makes no object and uses no entries: the two objects come after
            check_root(self, &c, pos, end, depth)
            return lazy_message(self, &c, 0, pos, end, depth)
        except Exception:
            return None

    cpdef bint try_write(self, model, bytearray out):
        """Append the bytes of ``model`` to ``out``; False (``out`` unchanged): not mine."""
        cdef Out o
        cdef Py_ssize_t had
        o.data, o.size, o.cap = NULL, 0, 0
        try:
            write_message(&self.t, &o, 0, model, 1)
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
    loop.t.messages = <Message*>malloc(max(loop.n_messages, 1) * sizeof(Message))
    loop.t.fields = <Field*>malloc(max(n_fields, 1) * sizeof(Field))
    loop.t.order = <int*>malloc(max(n_fields, 1) * sizeof(int))
    if loop.t.messages == NULL or loop.t.fields == NULL or loop.t.order == NULL:
        raise MemoryError()
    cdef int first = 0, j
    cdef Message* m
    cdef Field* f
    for mi, message in enumerate(found):
        names = [pf.name for pf in message.fields]
        offsets = lazy_slots(message.model, names + [rt.LAYOUT_KEY])
        m = &loop.t.messages[mi]
        m.cls = <PyTypeObject*>message.model
        m.first, m.count = first, len(message.fields)
        m.layout_offset = offsets[rt.LAYOUT_KEY]
        loop.keep.append(message.model)
        slots, oneofs = {}, {}
        for j, pf in enumerate(message.fields):
            f = &loop.t.fields[first + j]
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
            loop.t.order[first + j] = i
        first += m.count
    return loop


def tables(Loop loop):
    """``loop``'s C tables (protobuf_tables.pxd's ``Tables``) as a capsule, valid while
    ``loop`` lives: what runtime/_compiled/protobuf_arrow.pyx reads messages into Arrow by."""
    return PyCapsule_New(&loop.t, NULL, NULL)


cdef int _put_key(unsigned char* out, bytes key) except -1:
    if len(key) > 5:
        raise ValueError("a record key is at most 5 bytes")
    memcpy(out, PyBytes_AS_STRING(key), len(key))
    return len(key)


# -- reading -------------------------------------------------------------------------------


cdef inline int read_record(Ctx* c, Py_ssize_t pos, Py_ssize_t end, Record* r,
                            int depth) except -1:
    """The record at ``pos`` of a message at ``depth`` (protobuf_records.pxd's), or a
    decline: bad bytes, or a form the Python reader keeps as the record's bytes."""
    if records.read_record(c.buf, pos, end, r, depth, c.max_depth):
        raise DECLINE
    return 0


cdef inline int read_kept_record(Ctx* c, Py_ssize_t pos, Py_ssize_t end, Record* r,
                                 int depth) except -1:
    """``read_record`` taking varints longer than they need (a key's, a value's, a
    length's) as the Python reader does: 1 when it met one (the record is kept as its
    bytes), else 0."""
    cdef int status = records.read_record(c.buf, pos, end, r, depth, c.max_depth)
    if status < 0:
        raise DECLINE
    return status == records.KEPT


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
    return lazy_message(p, c, message, r.at, r.stop, depth + 1)


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



cdef Py_ssize_t read_entry(Loop p, Ctx* c, Field* f, Record* outer, int depth,
                          dict held, bint* kept) except -2:
    """``_map_entry``: one map entry message read at ``depth + 1``, its key and value put
    in ``held``. Records other than a key or value of their wire type are passed over;
    absent ones are their defaults (a message value: an empty message). A key read again
    moves to the end, as in the Python reader: returns where it was among the keys, or -1
    for a new key. ``kept`` is set when the entry is other than its key then its value as
    encode writes them (``c.kept``: its bytes are kept)."""
    if depth + 1 > c.max_depth:
        raise DECLINE
    cdef Record r
    cdef Py_ssize_t pos = outer.at
    cdef int seen = 0  # 1: the key as encode writes it, 2: then the value; 3: otherwise
    cdef bint longer = False
    key = <object>f.key_default
    value = <object>f.value_default
    while pos < outer.stop:
        if c.kept:
            longer = read_kept_record(c, pos, outer.stop, &r, depth + 1)
        else:
            read_record(c, pos, outer.stop, &r, depth + 1)
        pos = r.stop
        if r.number == 1 and r.wire_type == wire_type_of(f.key_kind):
            key = read_value(p, c, f.key_kind, -1, &r, depth + 1)
            seen = 3 if seen or longer or narrow_kept(f.key_kind, r.wire_type, r.varint) else 1
        elif r.number == 2 and r.wire_type == wire_type_of(f.value_kind):
            value = read_value(p, c, f.value_kind, f.message, &r, depth + 1)
            seen = 2 if seen == 1 and not (longer or narrow_kept(f.value_kind, r.wire_type,
                                                                 r.varint)) else 3
        else:
            seen = 3
    kept[0] = kept[0] or seen != 2
    if value is None:  # a message value left out
        value = lazy_message(p, c, f.message, outer.stop, outer.stop, depth + 2)
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



cdef int fill_message(Loop p, Ctx* c, int mi, object obj, Py_ssize_t pos, Py_ssize_t end,
                      int depth) except -1:
    """``read_exact``'s loop: every slot of ``obj`` from the records in ``buf[pos:end]``."""
    if depth > c.max_depth or depth > MAX_C_DEPTH:
        raise DECLINE
    cdef Message* m = &p.t.messages[mi]
    cdef Field* fields = p.t.fields + m.first
    cdef int* order = p.t.order + m.first
    cdef int count = m.count
    cdef Py_ssize_t base = c.n_entries
    cdef Py_ssize_t slots = push_slots(c, m.n_slots)
    cdef bint canonical = True
    cdef bint kept = False  # the record is in a form encode does not write (c.kept)
    cdef long long previous = 0
    cdef int guess = 0  # where in number order the next record's field usually is
    cdef int fi, j
    cdef Py_ssize_t had, earlier
    cdef Record r
    cdef Field* f
    for j in range(count):
        f = &fields[j]
        if f.repeated != NOT_REPEATED:
            put_slot(obj, f.offset, [])
        elif f.kind == K_MAP:
            put_slot(obj, f.offset, {})
        else:
            put_slot(obj, f.offset, <object>f.default)
    while pos < end:
        if c.kept:
            kept = read_kept_record(c, pos, end, &r, depth)
        else:
            read_record(c, pos, end, &r, depth)
        fi = find_field(fields, order, count, r.number, &guess)
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
                kept = kept or c.kept and packed_kept(c.buf, f.kind, f.wire_type, r.at, r.stop)
                canonical = canonical and len(items) > had  # not an empty record
                push_entry(c, E_PACKED_KEPT if kept else E_PACKED, fi, r.number,
                           len(items) - had, pos, r.stop)
            else:
                canonical = canonical and f.repeated != PACKED
                PyList_Append(items, read_value(p, c, f.kind, f.message, &r, depth))
                kept = kept or c.kept and narrow_kept(f.kind, r.wire_type, r.varint)
                push_entry(c, E_KEPT if kept else E_NUMBER, fi, r.number, 1, pos, r.stop)
        elif f.kind == K_MAP:
            earlier = read_entry(p, c, f, &r, depth, <dict>get_slot(obj, f.offset), &kept)
            if earlier >= 0:  # a key read again: its earlier record is kept as bytes
                canonical = False
                forget_map_entry(c, base, fi, earlier)
            push_entry(c, E_KEPT if kept else E_NUMBER, fi, r.number, 1, pos, r.stop)
        else:
            value = read_value(p, c, f.kind, f.message, &r, depth)
            kept = kept or c.kept and narrow_kept(f.kind, r.wire_type, r.varint)
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
            push_entry(c, E_KEPT if kept else E_NUMBER, fi, r.number, 1, pos, r.stop)
        if kept:
            canonical = False
        pos = r.stop
    if canonical:
        put_slot(obj, m.layout_offset, None)
    else:
        put_slot(obj, m.layout_offset, layout_of(c, base))
    c.n_entries = base
    c.n_last = slots
    return 0


cdef int forget_map_entry(Ctx* c, Py_ssize_t base, int fi, Py_ssize_t which) except -1:
    """Keep as bytes the record of the map key that was ``which``-th among the map's keys:
    the map's entries in the layout are in the order of its keys (a key read again moves
    to the end of both)."""
    cdef Py_ssize_t i
    for i in range(base, c.n_entries):
        if c.entries[i].field == fi and (c.entries[i].kind == E_NUMBER
                                         or c.entries[i].kind == E_KEPT):
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
            record = PyBytes_FromStringAndSize(<const char*>(c.buf + e.start), e.stop - e.start)
            if e.kind == E_BYTES:
                out.append(record)
            elif e.kind == E_KEPT:  # a record in a form encode does not write, kept as read
                out.append((PyLong_FromLongLong(e.number), record))
            else:
                out.append((PyLong_FromLongLong(e.number), PyLong_FromLongLong(e.count), record))
    return tuple(out)


cdef double _probe = 1.0
cdef unsigned char _probe_bytes[8]
memcpy(_probe_bytes, &_probe, 8)
if _probe_bytes[7] != 0x3F:  # fixed-width values are assembled little-endian below
    raise ImportError("runtime._compiled.protobuf runs on little-endian hosts only")




# -- checking without building ---------------------------------------------------------------
# ``fill_message``'s declines, without making a value: a read declines here or never.


cdef int check_root(Loop p, Ctx* c, Py_ssize_t pos, Py_ssize_t end, int depth) except -1:
    """``check_message`` of the root message, once: a record in a form upb reads and encode
    does not write sets ``c.kept`` (its models are then filled keeping such records as
    their bytes; a message without one is filled without looking for them)."""
    c.kept = False
    return check_message(p, c, 0, pos, end, depth)


cdef inline int check_record(Ctx* c, Py_ssize_t pos, Py_ssize_t end, Record* r,
                             int depth) except -1:
    """The check's ``read_record``: declines bad bytes; a key, varint or length longer
    than it needs sets ``c.kept``."""
    cdef int status = records.read_record(c.buf, pos, end, r, depth, c.max_depth)
    if status:
        if status < 0:
            raise DECLINE
        c.kept = True
    return 0


cdef int check_message(Loop p, Ctx* c, int mi, Py_ssize_t pos, Py_ssize_t end,
                       int depth) except -1:
    """Every check ``fill_message`` makes on the records in ``buf[pos:end]``, nested
    messages and map entries included."""
    if depth > c.max_depth or depth > MAX_C_DEPTH:
        raise DECLINE
    cdef Message* m = &p.t.messages[mi]
    cdef Field* fields = p.t.fields + m.first
    cdef int* order = p.t.order + m.first
    cdef int fi, guess = 0
    cdef Record r
    cdef Field* f
    cdef Py_ssize_t start = pos
    while pos < end:
        check_record(c, pos, end, &r, depth)
        pos = r.stop
        fi = find_field(fields, order, m.count, r.number, &guess)
        if fi < 0:
            continue
        f = &fields[fi]
        if f.wire_type != r.wire_type:
            if r.wire_type == LEN and f.packable:
                check_packed(c, f.kind, f.wire_type, r.at, r.stop)
        elif f.kind == K_MAP:
            check_entry(p, c, f, &r, depth)
        else:
            check_value(p, c, f.kind, f.message, &r, depth)
    if end - start > c.max_count:  # only a longer message can hold a list too long
        check_counts(p, c, mi, start, end, depth)
    return 0


cdef int check_counts(Loop p, Ctx* c, int mi, Py_ssize_t pos, Py_ssize_t end,
                      int depth) except -1:
    """Declines where a list or map of message ``mi`` (its records in ``buf[pos:end]``
    checked) holds more than ``max_count`` elements, where the Python reader raises; a
    map counted by its entries' records (a key read again counts twice: declined, the
    Python reader decides)."""
    cdef Message* m = &p.t.messages[mi]
    cdef Field* fields = p.t.fields + m.first
    cdef Py_ssize_t* counts = <Py_ssize_t*>calloc(max(m.count, 1), sizeof(Py_ssize_t))
    cdef Py_ssize_t i
    cdef int fi, guess = 0
    cdef Record r
    cdef Field* f
    if counts == NULL:
        raise MemoryError()
    try:
        while pos < end:
            records.read_record(c.buf, pos, end, &r, depth, c.max_depth)
            pos = r.stop
            fi = find_field(fields, p.t.order + m.first, m.count, r.number, &guess)
            if fi < 0 or fields[fi].repeated == NOT_REPEATED and fields[fi].kind != K_MAP:
                continue
            f = &fields[fi]
            if f.wire_type == r.wire_type:
                counts[fi] += 1
            elif r.wire_type != LEN or not f.packable:
                continue
            elif f.wire_type != VARINT:
                counts[fi] += (r.stop - r.at) // (8 if f.wire_type == I64 else 4)
            else:  # a varint ends at each byte under 0x80
                for i in range(r.at, r.stop):
                    counts[fi] += c.buf[i] < 0x80
            if counts[fi] > c.max_count:
                raise DECLINE
    finally:
        free(counts)
    return 0


cdef int check_value(Loop p, Ctx* c, int kind, int message, Record* r, int depth) except -1:
    """``read_value``'s checks: a LEN value's size, its text's UTF-8, a nested message."""
    cdef Py_ssize_t n
    if r.wire_type == VARINT and not exact_varint(kind, r.varint):
        c.kept = True
    if r.wire_type != LEN:
        return 0
    n = r.stop - r.at
    if n > c.max_string:
        raise DECLINE
    if kind == K_STRING and not is_ascii(c.buf + r.at, n):
        try:
            PyUnicode_DecodeUTF8(<const char*>(c.buf + r.at), n, NULL)
        except UnicodeDecodeError:
            raise DECLINE
    elif kind == K_MESSAGE:
        check_message(p, c, message, r.at, r.stop, depth + 1)
    return 0


cdef int check_packed(Ctx* c, int kind, int wire_type, Py_ssize_t pos, Py_ssize_t stop) except -1:
    """``read_packed``'s checks: whole fixed-width elements, or varints that end; a varint
    the Python reader keeps as its record's bytes (``exact_varint``) sets ``c.kept``."""
    cdef unsigned long long u
    cdef int longer
    if wire_type != VARINT:
        if (stop - pos) % (8 if wire_type == I64 else 4):
            raise DECLINE
        return 0
    while pos < stop:
        longer = kept_uvarint(c.buf, &pos, stop, &u)
        if longer < 0:
            raise DECLINE
        if longer or not exact_varint(kind, u):
            c.kept = True
    return 0


cdef int check_entry(Loop p, Ctx* c, Field* f, Record* outer, int depth) except -1:
    """``read_entry``'s checks: its records at ``depth + 1``, every key and value; an
    entry other than its key then its value (what encode writes) sets ``c.kept``."""
    if depth + 1 > c.max_depth:
        raise DECLINE
    cdef Record r
    cdef Py_ssize_t pos = outer.at
    cdef int seen = 0  # 1: the key read, 2: the value after it; 3: otherwise
    cdef bint valued = False
    while pos < outer.stop:
        check_record(c, pos, outer.stop, &r, depth + 1)
        pos = r.stop
        if r.number == 1 and r.wire_type == wire_type_of(f.key_kind):
            check_value(p, c, f.key_kind, -1, &r, depth + 1)
            seen = 1 if seen == 0 else 3
        elif r.number == 2 and r.wire_type == wire_type_of(f.value_kind):
            check_value(p, c, f.value_kind, f.message, &r, depth + 1)
            seen = 2 if seen == 1 else 3
            valued = True
        else:
            seen = 3
    if seen != 2:
        c.kept = True
    if not valued and f.value_kind == K_MESSAGE:  # the empty message it reads as
        check_message(p, c, f.message, outer.stop, outer.stop, depth + 2)
    return 0


# -- lazy models (runtime/_compiled/lazy.pyx) -------------------------------------------


cdef object lazy_message(Loop p, Ctx* c, int mi, Py_ssize_t pos, Py_ssize_t end, int depth):
    """A model of message ``mi`` (checked) whose every slot holds one ``Pending``."""
    cdef Message* m = &p.t.messages[mi]
    cdef Field* fields = p.t.fields + m.first
    cdef Pending span = new_pending(p, <bytes>c.owner, pos, end,
                                    (mi | KEPT_SPAN) if c.kept else mi, depth)
    cdef int j
    obj = new_model(<type>m.cls)
    for j in range(m.count):
        put_slot(obj, fields[j].offset, span)
    put_slot(obj, m.layout_offset, span)
    return obj


cdef int force(Pending span, object obj) except -1:
    """Build the slots of ``obj`` from ``span`` (checked when it was read, so every limit
    has passed; nested messages become pending models of their own)."""
    cdef Loop p = <Loop>span.builder
    cdef int mi = span.kind & ~KEPT_SPAN
    cdef Message* m = &p.t.messages[mi]
    if type(obj) is not <object>m.cls or get_slot(obj, m.layout_offset) != <PyObject*>span:
        raise TypeError("not the model this span was read for")
    cdef Ctx c
    c.buf = <const unsigned char*>PyBytes_AS_STRING(span.buf)
    c.owner = <PyObject*>span.buf
    c.max_depth, c.max_string, c.max_count = LLONG_MAX, LLONG_MAX, LLONG_MAX
    c.kept = (span.kind & KEPT_SPAN) != 0
    c.n_entries = c.n_last = 0
    cdef bint shared = not p.busy  # the loop's arrays, unless a read or build holds them
    if shared:
        c.entries, c.cap_entries, c.last, c.cap_last = p.entries, p.cap_entries, p.last, p.cap_last
        p.busy = True
    else:
        c.entries, c.cap_entries, c.last, c.cap_last = NULL, 0, NULL, 0
    cdef int collecting = PyGC_Disable()
    try:
        fill_message(p, &c, mi, obj, span.pos, span.end, span.depth)
    finally:
        if collecting:
            PyGC_Enable()
        if shared:
            p.entries, p.cap_entries, p.last, p.cap_last = c.entries, c.cap_entries, c.last, c.cap_last
            p.busy = False
        else:
            free(c.entries)
            free(c.last)
    return 0
