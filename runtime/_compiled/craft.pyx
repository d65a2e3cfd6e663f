# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""TiCDC Craft messages read in C: the frame and its mapping to ``runtime.formats.ticdc`` events.

:class:`Decoder` reads one whole Craft message (``specs/ticdc_craft.yaml``, records
``frame`` and ``message``) with C integers over ``const unsigned char*``: the size tables
from the end, the term dictionary, the header chunks, the bodies and their column groups,
then makes the events ``runtime.formats.craft.CraftMessage.decode`` makes (same classes, same
field values) with the values decoded by the column type table the spec generates
(``COLUMN_TYPE_CRAFT``, handed over by the CraftMessage that owns the decoder, like the
event and group type values of the spec's enums).

It gives exactly the events the Python path gives, or declines with ``None``: at any byte
the Python path would reject (and at the few valid layouts it leaves to Python, see
:meth:`Decoder.decode`) the Python path runs and gives the events or the exact
``DecodeError``. Every read is bounds-checked against the end of its region; a count or
length read from the input is checked against the bytes left before anything is sized
by it; the limits (``runtime.core.limits``) are the Python path's. The writer is
``craft_encode.pyx``; the value kinds both use are ``craft_kinds.pxd``.
"""

import dataclasses

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.float cimport PyFloat_FromDouble
from cpython.list cimport PyList_GET_ITEM, PyList_New, PyList_SET_ITEM
from cpython.object cimport PyObject
from cpython.long cimport PyLong_FromLongLong, PyLong_FromUnsignedLongLong
from cpython.ref cimport Py_INCREF
from cpython.unicode cimport PyUnicode_DATA, PyUnicode_DecodeUTF8, PyUnicode_GET_LENGTH
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcmp, memcpy

from runtime.formats import ticdc
from runtime.formats.ticdc import Column, DdlEvent, ResolvedEvent, RowChangedEvent

from runtime._compiled.craft_kinds cimport (
    K_BYTES, K_F64, K_INT, K_SINT, K_TEXT, K_UINT, K_UNKNOWN, MAX_VARINT, fill_kinds,
)
from runtime._compiled.slots cimport (
    all_atomic, atomic, keep_tracked, new_untracked_model, put_slot, slots_of, untrack,
)


# The events are made as runtime.formats.ticdc's slots dataclasses are made (object.__new__), every
# field's slot written at its offset; slots_of refuses (the import fails: Python decodes) a class
# whose fields are not exactly the ones written here.
cdef type COLUMN = Column, ROW = RowChangedEvent, DDL = DdlEvent, RESOLVED = ResolvedEvent
cdef dict _COLUMN = slots_of(Column, ["name", "type", "flags", "value"])
cdef dict _ROW = slots_of(
    RowChangedEvent,
    ["commit_ts", "schema", "table", "partition", "new", "old", "row_id", "handle_key_only",
     "claim_check_location"],
)
cdef dict _DDL = slots_of(DdlEvent, ["commit_ts", "schema", "table", "ddl_type", "query"])
cdef Py_ssize_t COLUMN_NAME = _COLUMN["name"], COLUMN_TYPE = _COLUMN["type"]
cdef Py_ssize_t COLUMN_FLAGS = _COLUMN["flags"], COLUMN_VALUE = _COLUMN["value"]
cdef Py_ssize_t ROW_TS = _ROW["commit_ts"], ROW_SCHEMA = _ROW["schema"]
cdef Py_ssize_t ROW_TABLE = _ROW["table"], ROW_PARTITION = _ROW["partition"]
cdef Py_ssize_t ROW_NEW = _ROW["new"], ROW_OLD = _ROW["old"], ROW_ID = _ROW["row_id"]
cdef Py_ssize_t ROW_HANDLE_KEY_ONLY = _ROW["handle_key_only"]
cdef Py_ssize_t ROW_CLAIM_CHECK = _ROW["claim_check_location"]
cdef Py_ssize_t DDL_TS = _DDL["commit_ts"], DDL_SCHEMA = _DDL["schema"]
cdef Py_ssize_t DDL_TABLE = _DDL["table"], DDL_TYPE = _DDL["ddl_type"]
cdef Py_ssize_t DDL_QUERY = _DDL["query"]
cdef Py_ssize_t RESOLVED_TS = slots_of(ResolvedEvent, ["commit_ts"])["commit_ts"]

_ROW_DEFAULTS = {f.name: f.default for f in dataclasses.fields(RowChangedEvent)}
cdef object ROW_ID_DEFAULT = _ROW_DEFAULTS["row_id"]
cdef object HANDLE_KEY_ONLY_DEFAULT = _ROW_DEFAULTS["handle_key_only"]
cdef object CLAIM_CHECK_DEFAULT = _ROW_DEFAULTS["claim_check_location"]
cdef bint ROW_DEFAULTS_ATOMIC = all(
    type(value) in (type(None), bool, int, str)
    for value in (ROW_ID_DEFAULT, HANDLE_KEY_ONLY_DEFAULT, CLAIM_CHECK_DEFAULT)
)
cdef object DECLINE = object()  # value(): the Python path raises here


cdef extern from "Python.h":
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)


cdef enum:
    DEPTH = 3  # frame, body, column group: the nesting the Python path checks
    SMALL = 64  # int64 slots on the stack before the scratch space is allocated


cdef uint64_t FLAG_UNSIGNED = ticdc.FLAG_UNSIGNED  # an int column's uvarint flag

# 0..255 as objects, kept alive here: type codes and most flags need no call.
_SMALL_INTS = tuple(range(256))
cdef PyObject* SMALL_INTS[256]
for _code in range(256):
    SMALL_INTS[_code] = <PyObject*>_SMALL_INTS[_code]


cdef struct Lim:  # the limits a decode checks, copied for the call (runtime.core.limits.Limits)
    Py_ssize_t max_message_bytes, max_count, max_string, max_depth


cdef inline Py_ssize_t read_uvarint(const unsigned char* b, Py_ssize_t p, Py_ssize_t end,
                                    uint64_t* out) noexcept nogil:
    """The uvarint at ``b[p]`` (read no further than ``end``) -> its end, or -1 where
    runtime.core.leb128.read_uvarint raises (truncated, longer than 10 bytes, over 64 bits)."""
    if p < end and b[p] < 0x80:  # one byte: most counts, codes, flags and lengths
        out[0] = b[p]
        return p + 1
    return read_long_uvarint(b, p, end, out)


cdef Py_ssize_t read_long_uvarint(const unsigned char* b, Py_ssize_t p, Py_ssize_t end,
                                  uint64_t* out) noexcept nogil:
    """:func:`read_uvarint` of any length."""
    cdef uint64_t v = 0
    cdef unsigned int shift = 0
    cdef unsigned char c
    cdef Py_ssize_t stop = p + MAX_VARINT
    if stop > end:
        stop = end
    while p < stop:
        c = b[p]
        p += 1
        if shift == 63 and c > 1:
            return -1
        v |= (<uint64_t>(c & 0x7F)) << shift
        if c < 0x80:
            out[0] = v
            return p
        shift += 7
    return -1


cdef inline int64_t unzigzag(uint64_t u) noexcept nogil:
    return <int64_t>(u >> 1) ^ -<int64_t>(u & 1)


cdef inline Py_ssize_t read_delta_varints(const unsigned char* b, Py_ssize_t p,
                                          Py_ssize_t end, Py_ssize_t n,
                                          int64_t* out) noexcept nogil:
    """A delta ZigZag chunk of ``n`` elements (int64 wrap, as DeltaVarIntChunk) -> its end
    or -1; ``out`` gets the values (NULL: only checked)."""
    cdef uint64_t u, acc = 0
    cdef Py_ssize_t i
    for i in range(n):
        p = read_uvarint(b, p, end, &u)
        if p < 0:
            return -1
        acc += <uint64_t>unzigzag(u)
        if out != NULL:
            out[i] = <int64_t>acc
    return p


cdef inline Py_ssize_t skip_uvarints(const unsigned char* b, Py_ssize_t p, Py_ssize_t end,
                                     Py_ssize_t n) noexcept nogil:
    cdef uint64_t u
    cdef Py_ssize_t i
    for i in range(n):
        p = read_uvarint(b, p, end, &u)
        if p < 0:
            return -1
    return p


cdef class Decoder:
    """Craft messages -> ``runtime.formats.ticdc`` events, or None (decline).

    ``value_encodings``: the spec's type code -> value kind (``COLUMN_TYPE_CRAFT``);
    ``event_types``/``group_types``: the values the spec's enums allow in the header's
    type chunk and a column group's type byte; ``version`` (the frame's const), ``row``,
    ``ddl``, ``resolved``, ``new`` and ``old``: the values runtime.formats.craft reads and maps
    (checked against the spec's enums there)."""

    cdef signed char kinds[256]
    cdef unsigned char event_ok[256]
    cdef unsigned char group_ok[256]
    cdef int version, row, ddl, resolved, new, old
    cdef object limits_seen
    # The last term dictionary read: its bytes, its terms, their count and the longest
    # one's length. Messages of one table repeat it; its str objects are then shared by
    # the events of each (immutable, equal: invisible in the events). Written and read
    # with no Python code in between, so they always belong together.
    cdef bytes terms_raw
    cdef list terms_seen
    cdef Py_ssize_t terms_count, terms_longest
    cdef Lim limits_read  # of limits_seen: a Limits is frozen, read once per object

    def __init__(self, value_encodings, event_types, group_types, int version, int row,
                 int ddl, int resolved, int new, int old):
        cdef int code
        fill_kinds(self.kinds, value_encodings)
        for code in range(256):
            self.event_ok[code] = 0
            self.group_ok[code] = 0
        for code in event_types:
            self.event_ok[code] = 1
        for code in group_types:
            self.group_ok[code] = 1
        if not (self.event_ok[row] and self.event_ok[ddl] and self.event_ok[resolved]
                and self.group_ok[new] and self.group_ok[old]):
            raise ValueError("the mapped event and group types must be the enums' values")
        self.row, self.ddl, self.resolved, self.new, self.old = row, ddl, resolved, new, old
        self.version = version
        self.limits_seen = None
        self.terms_raw = None

    cdef Lim use_limits(self, limits) except *:
        if limits is not self.limits_seen:
            self.limits_read.max_message_bytes = min(limits.max_message_bytes, 1 << 62)
            self.limits_read.max_count = min(limits.max_count, 1 << 62)
            self.limits_read.max_string = min(limits.max_string, 1 << 62)
            self.limits_read.max_depth = min(limits.max_depth, 1 << 62)
            self.limits_seen = limits
        return self.limits_read

    def decode(self, bytes data not None, limits):
        """The events of the whole message ``data`` under ``limits`` (a runtime.core.limits
        Limits), or None: the Python path decides (an error, or a layout left to it:
        row events mixed with others, a ``max_depth`` below the message's nesting)."""
        return self.events_of(data, limits)

    cdef object events_of(self, bytes data, limits):
        """:meth:`decode`, from C."""
        cdef Py_ssize_t n = len(data)
        cdef const unsigned char* b = <const unsigned char*>(<char*>data)
        cdef int64_t small[SMALL]
        cdef int64_t* slots = small
        cdef Py_ssize_t tables_len, tail = 0
        # a copy: nothing another decode does meanwhile (a finalizer run by an allocation,
        # say) can change the limits of this one
        cdef Lim lim = self.use_limits(limits)
        if n > lim.max_message_bytes or lim.max_depth < DEPTH:
            return None
        tables_len = self.tables_length(b, n, &tail)
        if tables_len < 0:
            return None
        # Every table count and entry takes at least one byte: the region's length bounds
        # the slots (a count, then the entries, per table).
        if tables_len > SMALL:
            slots = <int64_t*>malloc(tables_len * sizeof(int64_t))
            if slots == NULL:
                raise MemoryError()
        try:
            return self.message(b, tail, tables_len, slots, &lim)
        finally:
            if slots != small:
                free(slots)

    cdef Py_ssize_t tables_length(self, const unsigned char* b, Py_ssize_t n,
                                  Py_ssize_t* tail) noexcept:
        """The reversed uvarint that ends the message (the size tables' length; ``tail``
        gets the offset of its first byte), or -1 where the Python path raises."""
        cdef uint64_t v = 0
        cdef unsigned int shift = 0
        cdef unsigned char c
        cdef Py_ssize_t p = n, lo = n - MAX_VARINT
        if lo < 0:
            lo = 0
        while p > lo:
            p -= 1
            c = b[p]
            if shift == 63 and c > 1:
                return -1
            v |= (<uint64_t>(c & 0x7F)) << shift
            if c < 0x80:
                # the tables end where the varint starts, and start no earlier than 0
                if v > <uint64_t>p:
                    return -1
                tail[0] = p
                return <Py_ssize_t>v
            shift += 7
        return -1

    cdef object message(self, const unsigned char* b, Py_ssize_t tail, Py_ssize_t tables_len,
                        int64_t* slots, const Lim* lim):
        """The events of a message whose size tables end at ``tail``, or None."""
        cdef uint64_t u
        cdef Py_ssize_t p, tables_start, count, ntables, nslots
        cdef Py_ssize_t t0, t1, tnext, events, dict_start, end, header_end
        # -- size tables, [tables_start, tail): each a uvarint count + a delta zigzag chunk;
        # slots get each table's count then its entries
        tables_start = tail - tables_len
        p = tables_start
        nslots = ntables = 0
        while p < tail:
            p = read_uvarint(b, p, tail, &u)
            if p < 0 or u > <uint64_t>lim.max_count or u > <uint64_t>(tail - p):
                return None
            count = <Py_ssize_t>u
            slots[nslots] = count
            p = read_delta_varints(b, p, tail, count, slots + nslots + 1)
            if p < 0:
                return None
            nslots += 1 + count
            ntables += 1
        if ntables < 2 or slots[0] != 2:
            return None
        t0 = 0
        t1 = 3
        events = slots[t1]
        if events < 1:
            return None
        tnext = t1 + 1 + events  # table 2 + i: the column group sizes of event i
        # -- term dictionary, [dict_start, tables_start)
        if slots[t0 + 2] < 0 or slots[t0 + 2] > tables_start:
            return None
        dict_start = tables_start - <Py_ssize_t>slots[t0 + 2]
        terms = self.term_dictionary(b, dict_start, tables_start, lim)
        if terms is None:
            return None
        end = dict_start
        # -- version
        p = read_uvarint(b, 0, end, &u)
        if p < 0 or u != <uint64_t>self.version:
            return None
        # -- header: five chunks of `events` elements
        if slots[t0 + 1] < 0 or slots[t0 + 1] > end - p:
            return None
        header_end = p + <Py_ssize_t>slots[t0 + 1]
        return self.events(b, p, header_end, end, events, slots, t1, tnext, ntables, terms,
                           lim)

    cdef object term_dictionary(self, const unsigned char* b, Py_ssize_t p, Py_ssize_t end,
                                const Lim* lim):
        """The terms (a list of str) of the dictionary in [p, end), or None."""
        cdef uint64_t u
        cdef Py_ssize_t count, i, q, length, start = p, longest = 0
        if p == end:
            return []
        if (
            self.terms_raw is not None
            and PyBytes_GET_SIZE(self.terms_raw) == end - p
            and memcmp(PyBytes_AS_STRING(self.terms_raw), b + p, end - p) == 0
            and self.terms_count <= lim.max_count
            and self.terms_longest <= lim.max_string
        ):
            return self.terms_seen
        p = read_uvarint(b, p, end, &u)
        if p < 0 or u == 0 or u > <uint64_t>lim.max_count or u > <uint64_t>(end - p):
            return None
        count = <Py_ssize_t>u
        q = skip_uvarints(b, p, end, count)  # the lengths, then the texts
        if q < 0:
            return None
        terms = PyList_New(count)
        for i in range(count):
            p = read_uvarint(b, p, end, &u)
            if u > <uint64_t>lim.max_string or u > <uint64_t>(end - q):
                return None
            length = <Py_ssize_t>u
            if length > longest:
                longest = length
            text = self.text(b + q, length)
            if text is None:
                return None
            Py_INCREF(text)
            PyList_SET_ITEM(terms, i, text)
            q += length
        if q != end:
            return None
        untrack(terms)  # text only (slots.pxd)
        raw = PyBytes_FromStringAndSize(<const char*>b + start, end - start)
        self.terms_raw, self.terms_seen = raw, terms
        self.terms_count, self.terms_longest = count, longest
        return terms

    cdef object text(self, const unsigned char* b, Py_ssize_t length):
        """UTF-8 text as ``bytes.decode`` reads it, or None where it raises."""
        cdef Py_ssize_t i
        cdef unsigned char high = 0
        for i in range(length):
            high |= b[i]
        if high < 0x80 and length > 1:  # ASCII (names, dates, numbers): the bytes are the text
            text = PyUnicode_New(length, 127)
            memcpy(PyUnicode_DATA(text), b, length)
            return text
        try:
            return PyUnicode_DecodeUTF8(<const char*>b, length, NULL)
        except UnicodeDecodeError:
            return None

    cdef object events(self, const unsigned char* b, Py_ssize_t p, Py_ssize_t header_end,
                       Py_ssize_t end, Py_ssize_t events, int64_t* slots, Py_ssize_t t1,
                       Py_ssize_t tnext, Py_ssize_t ntables, list terms, const Lim* lim):
        cdef uint64_t u
        cdef Py_ssize_t chunk[5]
        cdef Py_ssize_t i, k, size, body_end, nterms = len(terms)
        cdef Py_ssize_t rows = 0
        cdef int t
        cdef uint64_t ts = 0, part_acc = 0, sid_acc = 0, tid_acc = 0  # int64 wrap, as Go
        cdef int64_t part, sid, tid
        # The header's chunks are checked first (counts, varints, type codes), then read
        # again in lockstep, event by event.
        if events > lim.max_count:
            return None
        for k in range(5):
            if events > header_end - p:
                return None
            chunk[k] = p
            for i in range(events):
                p = read_uvarint(b, p, header_end, &u)
                if p < 0:
                    return None
                if k == 1:
                    if u > 255 or not self.event_ok[u]:
                        return None
                    if <int>u == self.row:
                        rows += 1
        if p != header_end:
            return None
        # Rows never mix with other events (the Python path's mapping raises): a message
        # is rows only, with one column group table each, or one other event.
        if rows:
            if rows != events or ntables != 2 + events:
                return None
        elif ntables != 2:
            return None
        out = PyList_New(events)
        p = header_end
        for i in range(events):
            chunk[0] = read_uvarint(b, chunk[0], header_end, &u)
            ts += u
            chunk[1] = read_uvarint(b, chunk[1], header_end, &u)
            t = <int>u
            chunk[2] = read_uvarint(b, chunk[2], header_end, &u)
            part_acc += <uint64_t>unzigzag(u)
            part = <int64_t>part_acc
            chunk[3] = read_uvarint(b, chunk[3], header_end, &u)
            sid_acc += <uint64_t>unzigzag(u)
            sid = <int64_t>sid_acc
            chunk[4] = read_uvarint(b, chunk[4], header_end, &u)
            tid_acc += <uint64_t>unzigzag(u)
            tid = <int64_t>tid_acc
            size = <Py_ssize_t>slots[t1 + 1 + i]
            if size < 0 or size > end - p:
                return None
            body_end = p + size
            if t == self.resolved:
                if part != -1 or sid != -1 or tid != -1 or size != 0:
                    return None
                ev = new_untracked_model(RESOLVED)  # atomic values only (slots.pxd)
                put_slot(ev, RESOLVED_TS, PyLong_FromUnsignedLongLong(ts))
            else:
                if not (-1 <= sid < nterms and -1 <= tid < nterms):
                    return None
                schema = None if sid < 0 else <object>PyList_GET_ITEM(terms, sid)
                table = None if tid < 0 else <object>PyList_GET_ITEM(terms, tid)
                # the reference writes -1 for an empty name, never a "" term
                if (sid >= 0 and PyUnicode_GET_LENGTH(schema) == 0) or (
                    tid >= 0 and PyUnicode_GET_LENGTH(table) == 0
                ):
                    return None
                if t == self.ddl:
                    if part != -1:
                        return None
                    ev = self.ddl_event(b, p, body_end, ts, schema, table, lim)
                else:
                    if part < -1:
                        return None
                    ev = self.row_event(b, p, body_end, ts, schema, table, part, slots + tnext,
                                        terms, lim)
                    tnext += 1 + slots[tnext]
                if ev is None:
                    return None
            Py_INCREF(ev)
            PyList_SET_ITEM(out, i, ev)
            p = body_end
        if p != end:
            return None
        if all_atomic(out):  # untracked events only (slots.pxd)
            untrack(out)
        return out

    cdef object ddl_event(self, const unsigned char* b, Py_ssize_t p, Py_ssize_t end,
                          uint64_t ts, schema, table, const Lim* lim):
        cdef uint64_t ddl_type, u
        p = read_uvarint(b, p, end, &ddl_type)
        if p < 0:
            return None
        p = read_uvarint(b, p, end, &u)
        if p < 0 or u > <uint64_t>lim.max_string or u > <uint64_t>(end - p):
            return None
        if p + <Py_ssize_t>u != end:
            return None
        query = self.text(b + p, <Py_ssize_t>u)
        if query is None:
            return None
        ev = new_untracked_model(DDL)  # atomic values only (slots.pxd)
        put_slot(ev, DDL_TS, PyLong_FromUnsignedLongLong(ts))
        put_slot(ev, DDL_SCHEMA, schema)
        put_slot(ev, DDL_TABLE, table)
        put_slot(ev, DDL_TYPE, PyLong_FromUnsignedLongLong(ddl_type))
        put_slot(ev, DDL_QUERY, query)
        return ev

    cdef object row_event(self, const unsigned char* b, Py_ssize_t p, Py_ssize_t end,
                          uint64_t ts, schema, table, int64_t part, int64_t* sizes, list terms,
                          const Lim* lim):
        """A row event from its body [p, end); ``sizes``: its table (count, then the
        column group sizes)."""
        cdef Py_ssize_t g, groups = <Py_ssize_t>sizes[0]
        cdef Py_ssize_t size
        cdef bint seen_new = False, seen_old = False
        cdef int image
        new = old = None
        if groups < 1:
            return None
        for g in range(groups):
            size = <Py_ssize_t>sizes[1 + g]
            if size < 1 or size > end - p:
                return None
            image = b[p]
            if not self.group_ok[image]:
                return None
            if image == self.new and not seen_new:
                seen_new = True
            elif image == self.old and not seen_old:
                seen_old = True
            else:  # a second group of one type
                return None
            columns = self.columns(b, p + 1, p + size, terms, lim)
            if columns is None:
                return None
            if image == self.new:
                new = columns
            else:
                old = columns
            p += size
        if p != end:
            return None
        ev = new_untracked_model(ROW)  # text, numbers and untracked column lists (slots.pxd)
        put_slot(ev, ROW_TS, PyLong_FromUnsignedLongLong(ts))
        put_slot(ev, ROW_SCHEMA, schema)
        put_slot(ev, ROW_TABLE, table)
        put_slot(ev, ROW_PARTITION, None if part < 0 else PyLong_FromLongLong(part))
        put_slot(ev, ROW_NEW, new)
        put_slot(ev, ROW_OLD, old)
        put_slot(ev, ROW_ID, ROW_ID_DEFAULT)
        put_slot(ev, ROW_HANDLE_KEY_ONLY, HANDLE_KEY_ONLY_DEFAULT)
        put_slot(ev, ROW_CLAIM_CHECK, CLAIM_CHECK_DEFAULT)
        if not ROW_DEFAULTS_ATOMIC:
            keep_tracked(ev)
        return ev

    cdef object columns(self, const unsigned char* b, Py_ssize_t p, Py_ssize_t end,
                        list terms, const Lim* lim):
        """The columns of one column group after its type byte: count, then the names,
        types, flags and nullable values chunks of count elements, filling [p, end)."""
        cdef uint64_t u = 0, code = 0, flags = 0, name = 0
        cdef Py_ssize_t count, j, names, types, flag_at, lengths, payload, length
        cdef Py_ssize_t nterms = len(terms)
        cdef int64_t ln
        cdef int kind
        p = read_uvarint(b, p, end, &u)
        if p < 0 or u > <uint64_t>lim.max_count:
            return None
        count = <Py_ssize_t>u
        # Each chunk's count is checked against the bytes left at its start, as each
        # Python chunk reader does; then the four are read again in lockstep.
        if count > end - p:
            return None
        names = p
        p = read_delta_varints(b, p, end, count, NULL)
        if p < 0 or count > end - p:
            return None
        types = p
        p = skip_uvarints(b, p, end, count)
        if p < 0 or count > end - p:
            return None
        flag_at = p
        p = skip_uvarints(b, p, end, count)
        if p < 0 or count > end - p:
            return None
        lengths = p
        payload = skip_uvarints(b, p, end, count)
        if payload < 0:
            return None
        out = PyList_New(count)
        for j in range(count):
            names = read_uvarint(b, names, end, &u)
            name += <uint64_t>unzigzag(u)
            types = read_uvarint(b, types, end, &code)
            flag_at = read_uvarint(b, flag_at, end, &flags)
            lengths = read_uvarint(b, lengths, end, &u)
            ln = unzigzag(u)
            kind = self.kinds[code] if code < 256 else K_UNKNOWN
            if <int64_t>name < 0 or <int64_t>name >= nterms or kind == K_UNKNOWN:
                return None
            if kind == K_INT:
                kind = K_UINT if flags & FLAG_UNSIGNED else K_SINT
            if ln == -1:
                value = None
            else:
                if ln < 0 or ln > lim.max_string or ln > end - payload:
                    return None
                length = <Py_ssize_t>ln
                value = self.value(b + payload, length, kind)
                if value is DECLINE:
                    return None
                payload += length
            column = new_untracked_model(COLUMN)  # the value is a number or text (slots.pxd)
            put_slot(column, COLUMN_NAME, <object>PyList_GET_ITEM(terms, <Py_ssize_t>name))
            put_slot(column, COLUMN_TYPE, <object>SMALL_INTS[code])  # code < 256: a kind
            put_slot(column, COLUMN_FLAGS, <object>SMALL_INTS[flags] if flags < 256
                     else PyLong_FromUnsignedLongLong(flags))
            put_slot(column, COLUMN_VALUE, value)
            Py_INCREF(column)
            PyList_SET_ITEM(out, j, column)
        if payload != end:
            return None
        untrack(out)  # untracked columns only (slots.pxd)
        return out

    cdef object value(self, const unsigned char* b, Py_ssize_t length, int kind):
        """The value of a column from its bytes (kind int resolved by the flags), or
        DECLINE where the Python path raises."""
        cdef uint64_t u = 0
        cdef double d
        cdef int shift
        if kind == K_BYTES:
            return PyBytes_FromStringAndSize(<const char*>b, length)
        if kind == K_TEXT:
            text = self.text(b, length)
            return DECLINE if text is None else text
        if kind == K_SINT or kind == K_UINT:
            if read_uvarint(b, 0, length, &u) != length:
                return DECLINE
            if kind == K_SINT:
                return PyLong_FromLongLong(unzigzag(u))
            return PyLong_FromUnsignedLongLong(u)
        if kind == K_F64 and length == 8:
            u = 0
            for shift in range(8):  # little-endian, whatever the host's order
                u |= (<uint64_t>b[shift]) << (8 * shift)
            memcpy(&d, &u, 8)
            return PyFloat_FromDouble(d)
        return DECLINE  # a NULL kind with a value, or a float64 of another size


cdef class MessageReader:
    """``parse`` of a record that is one Craft message (the spec's ``message``: its
    ``events`` field) by a :class:`Decoder`: the model, or None to decline."""

    cdef Decoder decoder
    cdef type model
    cdef Py_ssize_t events_slot
    cdef object defaults

    def __init__(self, Decoder decoder not None, type model not None, str field, defaults):
        self.decoder, self.model, self.defaults = decoder, model, defaults
        self.events_slot = slots_of(model, [field])[field]

    def parse(self, data, dict limits):
        """The model of ``data``, a whole message, under the default limits, or None: the
        Python path decides (and every call with limits, or input that is not bytes)."""
        if limits or type(data) is not bytes:
            return None
        events = self.decoder.events_of(<bytes>data, self.defaults)
        if events is None:
            return None
        model = new_untracked_model(self.model)
        put_slot(model, self.events_slot, events)
        if not atomic(events):  # untracked events only: untracked (slots.pxd)
            keep_tracked(model)
        return model
