# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""TiCDC Craft messages written in C: ``runtime.formats.ticdc`` events -> Craft messages.

:class:`Encoder` writes the bytes ``runtime.formats.craft.CraftMessage.encode`` and
``encode_events`` write (the quick mapping of ``runtime/formats/craft_quick.py``, the
assembly of ``craft_events.py`` and the generated frame writer), batching as tiflow does,
or declines with ``None`` for anything that mapping would not take as it is: then the
Python path writes the messages or raises the exact ``EncodeError``. The reader is
``craft.pyx``; the value kinds both use are ``craft_kinds.pxd``.
"""

from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.list cimport PyList_GET_ITEM
from cpython.object cimport PyObject
from cpython.unicode cimport PyUnicode_AsUTF8AndSize, PyUnicode_GET_LENGTH
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, realloc
from libc.string cimport memcpy

from runtime.formats import ticdc
from runtime.formats.ticdc import Column, DdlEvent, ResolvedEvent, RowChangedEvent

from runtime._compiled.craft_kinds cimport (
    K_BYTES, K_F64, K_INT, K_NULL, K_SINT, K_TEXT, K_UINT, K_UNKNOWN, MAX_VARINT, fill_kinds,
)


cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object)


cdef uint64_t FLAG_UNSIGNED = ticdc.FLAG_UNSIGNED  # an int column's uvarint flag


cdef struct Out:
    unsigned char* data
    Py_ssize_t size
    Py_ssize_t cap


cdef struct Cell:  # one column, as estimate() read it for group() to write
    PyObject* name  # borrowed: the column holds it, and no Python code runs in between
    uint64_t code
    uint64_t flags
    PyObject* value
    int kind
    int64_t size  # of the value's bytes, -1: NULL


cdef struct Cells:  # the columns of the events estimated and not yet written, in order
    Cell* data
    Py_ssize_t n, cap, cursor


cdef int add_cell(Cells* cells) except -1:
    """Room for one more cell at ``cells.data[cells.n]``."""
    cdef Py_ssize_t cap
    cdef Cell* data
    if cells.n == cells.cap:
        cap = cells.cap * 2 if cells.cap else 64
        data = <Cell*>realloc(cells.data, cap * sizeof(Cell))
        if data == NULL:
            raise MemoryError()
        cells.data, cells.cap = data, cap
    return 0


cdef int grow(Out* out, Py_ssize_t more) except -1:
    cdef Py_ssize_t cap = out.cap * 2 if out.cap else 256
    cdef unsigned char* data
    while cap < out.size + more:
        cap *= 2
    data = <unsigned char*>realloc(out.data, cap)
    if data == NULL:
        raise MemoryError()
    out.data = data
    out.cap = cap
    return 0


cdef inline int put_uvarint(Out* out, uint64_t v) except -1:
    if out.size + MAX_VARINT > out.cap:
        grow(out, MAX_VARINT)
    while v >= 0x80:
        out.data[out.size] = <unsigned char>((v & 0x7F) | 0x80)
        out.size += 1
        v >>= 7
    out.data[out.size] = <unsigned char>v
    out.size += 1
    return 0


cdef inline uint64_t zigzag(int64_t v) noexcept nogil:
    return (<uint64_t>v << 1) ^ <uint64_t>(v >> 63)


cdef inline int put_bytes(Out* out, const char* data, Py_ssize_t length) except -1:
    if out.size + length > out.cap:
        grow(out, length)
    memcpy(out.data + out.size, data, length)
    out.size += length
    return 0


cdef inline Py_ssize_t uvarint_size(uint64_t v) noexcept nogil:
    cdef Py_ssize_t n = 1
    while v >= 0x80:
        v >>= 7
        n += 1
    return n


cdef class Encoder:
    """``runtime.formats.ticdc`` events -> Craft messages, as runtime.formats.craft.CraftMessage writes them
    (the spec's rendered way back, ``UNMAPPINGS["message"]``, run quick, and the generated
    frame writer), or None (decline) for anything that would not take as it is: then the Python path
    writes the messages or raises the exact EncodeError.

    ``value_encodings``: the spec's type code -> value kind; ``version``, ``row``, ``ddl``,
    ``resolved``, ``new`` and ``old``: the version and the event and group type values
    runtime.formats.craft writes."""

    cdef signed char kinds[256]
    cdef int version, row, ddl, resolved, new, old
    def __init__(self, value_encodings, int version, int row, int ddl, int resolved, int new,
                 int old):
        fill_kinds(self.kinds, value_encodings)
        self.row, self.ddl, self.resolved, self.new, self.old = row, ddl, resolved, new, old
        self.version = version

    def encode_events(self, list events not None, max_batch_size, max_message_bytes):
        """The messages ``CraftMessage.encode_events`` yields for ``events`` (a list), or
        None: the Python path decides."""
        cdef Py_ssize_t i, start = 0, n = len(events), rows = 0
        cdef Py_ssize_t estimate = 0, cost, most_rows, most_bytes
        cdef int kind
        if type(max_batch_size) is not int or type(max_message_bytes) is not int:
            return None
        if max_batch_size < 1 or max_message_bytes < 1:
            return None
        most_rows = min(max_batch_size, <Py_ssize_t>1 << 62)
        most_bytes = min(max_message_bytes, <Py_ssize_t>1 << 62)
        cdef Cells cells = Cells(NULL, 0, 0, 0)  # this call's own: reentry cannot touch it
        messages = []
        try:
            for i in range(n):
                ev = <object>PyList_GET_ITEM(events, i)
                cost = self.estimate(ev, &cells)
                if cost < 0:
                    return None
                if type(ev) is not RowChangedEvent:
                    if rows:
                        messages.append(self.message(events, start, i, &cells))
                        rows = estimate = 0
                    messages.append(self.message(events, i, i + 1, &cells))
                    start = i + 1
                    continue
                rows += 1
                estimate += cost
                if estimate > most_bytes or rows >= most_rows:
                    messages.append(self.message(events, start, i + 1, &cells))
                    rows = estimate = 0
                    start = i + 1
            if rows:
                messages.append(self.message(events, start, n, &cells))
        finally:
            free(cells.data)
        return messages

    def encode(self, list events not None):
        """The one message ``CraftMessage.encode`` writes for ``events``, or None."""
        cdef Py_ssize_t i, n = len(events), rows = 0
        cdef Cells cells = Cells(NULL, 0, 0, 0)
        if n == 0:
            return None
        try:
            for i in range(n):
                ev = <object>PyList_GET_ITEM(events, i)
                if self.estimate(ev, &cells) < 0:
                    return None
                rows += type(ev) is RowChangedEvent
            if rows != n and n != 1:
                return None
            return self.message(events, 0, n, &cells)
        finally:
            free(cells.data)

    cdef Py_ssize_t estimate(self, ev, Cells* cells) except -2:
        """tiflow's size estimate of a checked event (the spec's ``batch:`` ``estimate:``), or
        -1 where the quick way back gives up on it."""
        cdef Py_ssize_t cost = 32, size
        cdef type cls = type(ev)
        if cls is ResolvedEvent:
            return 32 if self.uint64(ev.commit_ts) else -1
        if cls is not RowChangedEvent and cls is not DdlEvent:
            return -1
        if not self.uint64(ev.commit_ts):
            return -1
        for name in (ev.schema, ev.table):
            if name is not None:
                if type(name) is not str:
                    return -1
                size = utf8_size(name)
                if size < 0:
                    return -1
                cost += size
        if cls is DdlEvent:
            if not self.uint64(ev.ddl_type) or type(ev.query) is not str:
                return -1
            return cost if utf8_size(ev.query) >= 0 else -1
        part = ev.partition
        if part is not None and (type(part) is not int or not 0 <= part < (1 << 63)):
            return -1
        images = 0
        for columns in (ev.new, ev.old):
            if columns is None:
                continue
            if type(columns) is not list:
                return -1
            images += 1
            for column in columns:
                size = self.column_cost(column, cells)
                if size < 0:
                    return -1
                cost += size
        return cost if images else -1

    cdef bint uint64(self, value):
        return type(value) is int and 0 <= value <= 0xFFFFFFFFFFFFFFFF

    cdef Py_ssize_t column_cost(self, column, Cells* cells) except -2:
        """``len(name) + 16 + len(value bytes)`` of a column the quick mapping takes, else -1."""
        cdef Py_ssize_t name_size, size
        cdef int kind
        cdef Cell* cell
        if type(column) is not Column:
            return -1
        name, code, flags, value = column.name, column.type, column.flags, column.value
        if type(name) is not str or type(code) is not int or type(flags) is not int:
            return -1
        if not 0 <= code < 256 or not self.uint64(flags):
            return -1
        kind = self.kinds[<int>code]
        if kind == K_UNKNOWN:
            return -1
        name_size = utf8_size(name)
        if name_size < 0:
            return -1
        if kind == K_INT:
            kind = K_UINT if flags & FLAG_UNSIGNED else K_SINT
        size = -1 if value is None else self.value_size(kind, value)
        if size < 0 and value is not None:
            return -1
        add_cell(cells)
        cell = cells.data + cells.n
        cells.n += 1
        cell.name, cell.code, cell.flags = <PyObject*>name, code, flags
        cell.value, cell.kind, cell.size = <PyObject*>value, kind, size
        return name_size + 16 + max(size, 0)


    cdef Py_ssize_t value_size(self, int kind, value) except -2:
        """The byte length of a value's encoding (kind int resolved by the flags), or -1
        where the quick mapping gives up."""
        if kind == K_BYTES:
            return len(<bytes>value) if type(value) is bytes else -1
        if kind == K_TEXT:
            return utf8_size(value) if type(value) is str else -1
        if kind == K_F64:
            return 8 if type(value) is float else -1
        if kind == K_NULL or type(value) is not int:
            return -1
        if kind == K_UINT:
            if not 0 <= value <= 0xFFFFFFFFFFFFFFFF:
                return -1
            return uvarint_size(<uint64_t>value)
        if not -(1 << 63) <= value < (1 << 63):
            return -1
        return uvarint_size(zigzag(<int64_t>value))

    cdef bytes message(self, list events, Py_ssize_t start, Py_ssize_t stop, Cells* cells):
        """The message of checked events[start:stop] (rows, or one other event): terms
        interned schemas, then tables, then column names in body order."""
        cdef Out out
        cdef Py_ssize_t i, n = stop - start, header_start, header_size, body_start
        cdef Py_ssize_t dict_start, tables_start
        cdef uint64_t prev_u
        cdef int64_t prev
        terms = {}
        named = events[start:stop] if type(events[start]) is not ResolvedEvent else []
        schemas = [self.intern(terms, ev.schema) for ev in named] or [-1]
        tables = [self.intern(terms, ev.table) for ev in named] or [-1]
        body_sizes = []
        group_sizes = []
        cells.cursor = 0
        out.data = NULL
        out.size = out.cap = 0
        try:
            put_uvarint(&out, <uint64_t>self.version)
            header_start = out.size
            prev_u = 0
            for i in range(start, stop):
                ts = (<object>PyList_GET_ITEM(events, i)).commit_ts
                put_uvarint(&out, <uint64_t>ts - prev_u)
                prev_u = <uint64_t>ts
            for i in range(start, stop):
                put_uvarint(&out, self.event_type(<object>PyList_GET_ITEM(events, i)))
            prev = 0
            for i in range(start, stop):
                ev = <object>PyList_GET_ITEM(events, i)
                part = -1 if type(ev) is not RowChangedEvent or ev.partition is None else ev.partition
                put_uvarint(&out, zigzag(<int64_t>(<uint64_t><int64_t>part - <uint64_t>prev)))
                prev = <int64_t>part
            for ids in (schemas, tables):
                prev = 0
                for term in ids:
                    put_uvarint(&out, zigzag(<int64_t>(<uint64_t><int64_t>term - <uint64_t>prev)))
                    prev = <int64_t>term
            header_size = out.size - header_start
            for i in range(start, stop):
                ev = <object>PyList_GET_ITEM(events, i)
                body_start = out.size
                if type(ev) is RowChangedEvent:
                    sizes = []
                    for image, columns in ((self.new, ev.new), (self.old, ev.old)):
                        if columns is not None:
                            sizes.append(self.group(&out, image, len(columns), terms, cells))
                    group_sizes.append(sizes)
                elif type(ev) is DdlEvent:
                    put_uvarint(&out, <uint64_t>ev.ddl_type)
                    self.text(&out, ev.query)
                body_sizes.append(out.size - body_start)
            dict_start = out.size
            if terms:
                put_uvarint(&out, len(terms))
                for term in terms:
                    put_uvarint(&out, <uint64_t>utf8_size(term))
                for term in terms:
                    put_str(&out, term)
            tables_start = out.size
            for table in [[header_size, tables_start - dict_start], body_sizes] + group_sizes:
                put_uvarint(&out, len(table))
                prev = 0
                for size in table:
                    put_uvarint(&out, zigzag(<int64_t>size - prev))
                    prev = <int64_t>size
            self.reversed_length(&out, out.size - tables_start)
            cells.n = 0  # every column estimated so far is in this message
            return PyBytes_FromStringAndSize(<const char*>out.data, out.size)
        finally:
            free(out.data)

    cdef int intern(self, dict terms, name) except -2:
        """The term id of a schema or table name (-1: none, or empty)."""
        if not name:
            return -1
        term = terms.get(name)
        if term is None:
            term = terms[name] = len(terms)
        return term

    cdef uint64_t event_type(self, ev):
        if type(ev) is RowChangedEvent:
            return self.row
        return self.ddl if type(ev) is DdlEvent else self.resolved

    cdef Py_ssize_t group(self, Out* out, int image, Py_ssize_t n, dict terms,
                          Cells* cells_of_batch) except -1:
        """A column group of the next ``n`` cells: type byte, count, names, types, flags,
        nullable values."""
        cdef Py_ssize_t start = out.size, j
        cdef int64_t prev = 0, term
        cdef Cell* cells = cells_of_batch.data + cells_of_batch.cursor
        if cells_of_batch.cursor + n > cells_of_batch.n:
            raise AssertionError("a column group past the estimated columns")
        cells_of_batch.cursor += n
        if out.size + 1 > out.cap:
            grow(out, 1)
        out.data[out.size] = <unsigned char>image
        out.size += 1
        put_uvarint(out, n)
        for j in range(n):
            name = <object>cells[j].name
            found = terms.get(name)
            if found is None:
                found = terms[name] = len(terms)
            term = found
            put_uvarint(out, zigzag(term - prev))
            prev = term
        for j in range(n):
            put_uvarint(out, cells[j].code)
        for j in range(n):
            put_uvarint(out, cells[j].flags)
        for j in range(n):
            put_uvarint(out, zigzag(cells[j].size))
        for j in range(n):
            if cells[j].size >= 0:
                self.value(out, cells[j].kind, <object>cells[j].value)
        return out.size - start

    cdef int value(self, Out* out, int kind, value) except -1:
        cdef double d
        cdef uint64_t u
        cdef int shift
        if kind == K_BYTES:
            put_bytes(out, <const char*>(<bytes>value), len(<bytes>value))
        elif kind == K_TEXT:
            put_str(out, value)
        elif kind == K_F64:
            d = value
            memcpy(&u, &d, 8)
            if out.size + 8 > out.cap:
                grow(out, 8)
            for shift in range(8):  # little-endian, whatever the host's order
                out.data[out.size + shift] = <unsigned char>(u >> (8 * shift))
            out.size += 8
        elif kind == K_UINT:
            put_uvarint(out, <uint64_t>value)
        else:
            put_uvarint(out, zigzag(<int64_t>value))
        return 0

    cdef int text(self, Out* out, str text) except -1:
        """A uvarint length and the UTF-8 of ``text``."""
        put_uvarint(out, <uint64_t>utf8_size(text))
        put_str(out, text)
        return 0

    cdef int reversed_length(self, Out* out, Py_ssize_t length) except -1:
        cdef Py_ssize_t at = out.size, lo, hi
        cdef unsigned char c
        put_uvarint(out, <uint64_t>length)
        lo, hi = at, out.size - 1
        while lo < hi:
            c = out.data[lo]
            out.data[lo] = out.data[hi]
            out.data[hi] = c
            lo += 1
            hi -= 1
        return 0


cdef Py_ssize_t utf8_size(str text) except -2:
    """The length of ``text``'s UTF-8, or -1 if it has none (lone surrogates: the Python
    path encodes some of them with surrogateescape, and decides)."""
    cdef Py_ssize_t size
    if PyUnicode_IS_ASCII(text):
        return PyUnicode_GET_LENGTH(text)
    try:
        PyUnicode_AsUTF8AndSize(text, &size)
    except UnicodeEncodeError:
        return -1
    return size


cdef int put_str(Out* out, str text) except -1:
    cdef Py_ssize_t size
    cdef const char* data = PyUnicode_AsUTF8AndSize(text, &size)
    return put_bytes(out, data, size)
