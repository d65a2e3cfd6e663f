# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled tier of ``layout: serializable`` records (``mysql::serialization``) and of
the binlog events and files that frame them: one typed loop driven by the field tables a
generated module emits (see ``generator/emit/compiled_tables.py``).

Every reader here either returns exactly the model the Python readers return or declines
(returns None); the generated ``parse`` then runs the Python readers, which give the model
or the exact ``DecodeError``. Nothing here raises out of a parse for bad input. Every byte
read is checked against the end first, and an untrusted length is compared with the bytes
that remain before anything is sliced or allocated, so ``boundscheck=False`` is safe.

Models are built as the fast path builds them (``object.__new__``, then every slot), but
the slots are written at their offsets in the object, found once from the class's member
descriptors (``runtime/_compiled/slots.pxd``): no attribute lookup per field. Fewer
objects per event: a field whose value repeats gives the same int again (``_shared_uint``),
and ``parse`` of one event writes it into the model it returned last when the caller has
dropped that one (``reuse.pxd``'s ``spare``).

The message loop keeps the key decoding (``_msb_key``: the next field id) apart from the
per-kind value readers (``_read_value``), so a later tag-keyed layout can reuse the value
readers with its own keys.
"""

cimport cython
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.list cimport PyList_GET_SIZE, PyList_New
from cpython.long cimport PyLong_FromLongLong, PyLong_FromUnsignedLongLong
from cpython.ref cimport Py_INCREF, Py_XDECREF, PyObject
from cpython.unicode cimport PyUnicode_Decode
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memcmp

from runtime.core.errors import DecodeError
from runtime.core.limits import Limits

from runtime._compiled.crc32 cimport crc32_update
from runtime._compiled.msb cimport msb_size as _msb_size
from runtime._compiled.msb cimport msb_uvar as _msb_uvar
from runtime._compiled.reuse cimport spare
from runtime._compiled.slots cimport (
    all_atomic, atomic, clear_slot, get_slot, keep_tracked, new_model, new_untracked_model, put_slot,
    slots_of, untrack,
)


cdef extern from "Python.h":
    const Py_ssize_t PY_SSIZE_T_MAX


# -- input and limits --------------------------------------------------------------------

cdef inline object _as_bytes(data):
    """``data`` as bytes, copied from a bytearray or memoryview as the Python path copies
    it (a Spark binary column arrives as a bytearray); None for anything else (declined:
    the Python path raises its TypeError)."""
    if type(data) is bytes:
        return data
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    return None


cdef CLimits _c_limits(limits):
    cdef CLimits out
    out.max_message_bytes = min(limits.max_message_bytes, PY_SSIZE_T_MAX)
    out.max_depth = min(limits.max_depth, PY_SSIZE_T_MAX)
    out.max_count = min(limits.max_count, PY_SSIZE_T_MAX)
    out.max_string = min(limits.max_string, PY_SSIZE_T_MAX)
    return out


cdef class _Entry:
    """What every ``parse`` shares: the module's default limits and the per-call ones."""

    def __init__(self, defaults):
        self.defaults = defaults
        self.default_limits = _c_limits(defaults)

    cdef object _limits(self, dict kwargs, CLimits* out):
        """The Limits object of a call (None to decline: the Python path says what is wrong
        with the limits given)."""
        if not kwargs:
            out[0] = self.default_limits
            return self.defaults
        try:
            limits = Limits.from_kwargs(kwargs, self.defaults)
            out[0] = _c_limits(limits)
        except Exception:  # noqa: BLE001 - declined: the Python path raises the exact error
            return None
        return limits


# -- CRC-32 (zlib's, runtime/_compiled/crc32.pxd) ----------------------------------------

def crc32(data) -> int:
    """The CRC-32 this module checks events with (tests hold it equal to ``zlib.crc32``)."""
    cdef const unsigned char[:] view = data
    if view.shape[0] == 0:
        return 0
    return crc32_update(0, &view[0], view.shape[0])


# -- small ints --------------------------------------------------------------------------

# 0..255 as objects, kept alive here: a UUID's bytes and most small values need no call.
_SMALL_INTS = tuple(range(256))
cdef PyObject* _SMALL[256]
for _b in range(256):
    _SMALL[_b] = <PyObject*>_SMALL_INTS[_b]


# -- ints shared between events ----------------------------------------------------------

cdef inline object _shared_uint(SharedInt* shared, uint64_t raw):
    """The int ``raw``: 0..255 from the table, the int made last for this field when its
    value is the same (ints are immutable, so events may share them: a binlog's server id,
    versions and timestamps repeat), else a new one, remembered."""
    if raw < 256:
        return <object>_SMALL[raw]
    if shared.value != NULL and shared.raw == raw:
        return <object>shared.value
    value = PyLong_FromUnsignedLongLong(raw)
    Py_XDECREF(shared.value)
    Py_INCREF(value)
    shared.value, shared.raw = <PyObject*>value, raw
    return value


cdef inline object _shared_sint(SharedInt* shared, uint64_t raw):
    """The int of the zigzag value ``raw``, shared as :func:`_shared_uint` shares it."""
    if raw < 512 and not raw & 1:
        return <object>_SMALL[raw >> 1]
    if shared.value != NULL and shared.raw == raw:
        return <object>shared.value
    value = PyLong_FromLongLong(<int64_t>(raw >> 1) ^ -<int64_t>(raw & 1))
    Py_XDECREF(shared.value)
    Py_INCREF(value)
    shared.value, shared.raw = <PyObject*>value, raw
    return value


cdef inline void _forget(SharedInt* shared) noexcept:
    Py_XDECREF(shared.value)
    shared.value = NULL


# -- models reused once dead (runtime/_compiled/reuse.pxd), lists too -------------------

cdef extern from "Python.h":
    ctypedef struct PyListObject:
        PyObject** ob_item
    void _incref "Py_INCREF" (PyObject* obj)
    void _decref "Py_DECREF" (PyObject* obj)
    Py_ssize_t _refs "Py_REFCNT" (PyObject* obj)
    PyObject* _type_of "(PyObject*)Py_TYPE" (PyObject* obj)


# -- mysql::serialization messages -------------------------------------------------------

cdef enum Kind:
    KIND_UINT = 0   # an unsigned msb varint within ``bits``
    KIND_SINT = 1   # the same, zigzag-decoded
    KIND_TEXT = 2   # a varint byte length, then text in ``encoding``
    KIND_BYTES = 3  # a varint byte length, then bytes

cdef enum Absent:
    ABSENT_REQUIRED = 0  # absent is an error
    ABSENT_VALUE = 1     # absent means the table's value
    ABSENT_FROM = 2      # absent means another field's value

_KINDS = {"uint": KIND_UINT, "sint": KIND_SINT, "text": KIND_TEXT, "bytes": KIND_BYTES}

cdef class Message(_Entry):
    """A ``layout: serializable`` record read from its field table.

    ``fields``: ``(id, slot, kind, bits, count, max_length, encoding, absent)`` per field,
    ids 0, 1, 2, ... in order, as ``generator/emit/compiled_tables.py`` emits them. Its
    attributes and C methods are declared in ``serializable.pxd``."""

    def __cinit__(self):
        self.specs = NULL
        self.n = 0
        self.size_shared.value = NULL

    def __init__(self, model, fields, defaults):
        super().__init__(defaults)
        names = [row[1] for row in fields]
        slots = slots_of(
            model,
            names + ["serializable_field_size", "last_non_ignorable_field_id", "unknown_fields"],
        )
        self.model = model
        self.size_slot = slots["serializable_field_size"]
        self.lnifid_slot = slots["last_non_ignorable_field_id"]
        self.unknown_slot = slots["unknown_fields"]
        self.n = len(fields)
        self.specs = <FieldSpec*>calloc(max(1, self.n), sizeof(FieldSpec))
        if self.specs == NULL:
            raise MemoryError()
        cdef FieldSpec* spec
        absent_values, encodings = [], []
        for i, (field_id, name, kind, bits, count, max_length, encoding, absent) in enumerate(
            fields
        ):
            if field_id != i:
                raise ValueError(f"field ids must be 0, 1, 2, ...: {name} is {field_id}")
            spec = &self.specs[i]
            spec.id = field_id
            spec.kind = _KINDS[kind]
            spec.bits = bits
            spec.count = count
            spec.max_length = -1 if max_length is None else max_length
            spec.slot = slots[name]
            spec.from_slot = -1
            spec.shared.value = NULL
            value = None
            if absent == "required":
                spec.absent = ABSENT_REQUIRED
            elif absent[0] == "value":
                spec.absent, value = ABSENT_VALUE, absent[1]
            else:
                spec.absent, spec.from_slot = ABSENT_FROM, slots[absent[1]]
            absent_values.append(value)
            encodings.append(encoding.encode("ascii") if encoding else None)
        self.absent_values, self.encodings = tuple(absent_values), tuple(encodings)
        # no default but an atomic one (repeats are untracked lists of ints): every model
        # holds atomic values only
        self.untracked = all(
            type(value) in (type(None), bool, int, float, str, bytes) for value in absent_values
        )
        self.last_raw, self.last_value = [b""] * self.n, [None] * self.n

    def __dealloc__(self):
        cdef Py_ssize_t i
        if self.specs != NULL:
            for i in range(self.n):
                _forget(&self.specs[i].shared)
        _forget(&self.size_shared)
        free(self.specs)

    def parse(self, data, dict limits):
        """The model of ``data``, a whole message, or None to decline."""
        cdef CLimits lim
        data = _as_bytes(data)
        if data is None or self._limits(limits, &lim) is None:
            return None
        cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
        if n > lim.max_message_bytes:
            return None
        model = self.read(<const unsigned char*>PyBytes_AS_STRING(data), 0, n, &lim,
                          spare(<PyObject*>self.spare, self.model))
        if model is not None:
            self.spare = model
        return model

    cdef object read(self, const unsigned char* buf, Py_ssize_t start, Py_ssize_t end,
                     CLimits* lim, PyObject* target=NULL):
        """The message that is all of ``buf[start:end]`` (a top-level one: version 1
        first), or None to decline; written into ``target`` when one is given (a model of
        this record that nothing else holds: a declined read leaves it half written)."""
        cdef Py_ssize_t pos = start, size_at, lnifid_at, at, i
        cdef uint64_t version, declared, lnifid, found, raw
        cdef FieldSpec* spec
        cdef PyObject* ref
        if not _msb_uvar(buf, &pos, end, &version) or version != 1:
            return None
        size_at = pos
        if not _msb_uvar(buf, &pos, end, &declared):
            return None
        lnifid_at = pos
        if not _msb_uvar(buf, &pos, end, &lnifid) or lnifid > <uint64_t>self.n:
            return None
        # The message is the rest of the input: the true length or MySQL's formula.
        if declared != <uint64_t>(end - start) and declared != <uint64_t>(
            (size_at - start) + _msb_size(end - pos) + (pos - lnifid_at) + (end - pos)
        ):
            return None
        if target == NULL:
            model = new_untracked_model(self.model) if self.untracked else new_model(self.model)
        else:
            model = <object>target
            for i in range(self.n):  # unset, as in a new model: the pass below fills them
                if self.specs[i].absent == ABSENT_FROM:
                    clear_slot(model, self.specs[i].slot)
        put_slot(model, self.size_slot, _shared_uint(&self.size_shared, declared))
        put_slot(model, self.lnifid_slot, _shared_uint(&self.size_shared, lnifid)
                 if lnifid >= 256 else <object>_SMALL[lnifid])
        for i in range(self.n):
            spec = &self.specs[i]
            at = pos
            if pos < end:
                if not _msb_key(buf, &at, end, &found):
                    return None
                if found == spec.id:
                    pos = at
                    if spec.count == 0 and spec.kind <= KIND_SINT:  # one int, read inline
                        if not _msb_uvar(buf, &pos, end, &raw) or (
                            spec.bits < 64 and raw >> spec.bits
                        ):
                            return None
                        if spec.kind == KIND_UINT:
                            put_slot(model, spec.slot, _shared_uint(&spec.shared, raw))
                        else:
                            put_slot(model, spec.slot, _shared_sint(&spec.shared, raw))
                        continue
                    value = self._read_value(
                        i, spec, buf, &pos, end, lim,
                        NULL if target == NULL else get_slot(model, spec.slot),
                    )
                    if value is None:
                        return None
                    put_slot(model, spec.slot, value)
                    continue
                if found < spec.id:
                    return None  # out of order: an error
                # only peeked: the id is a later field's
            if spec.absent == ABSENT_REQUIRED:
                return None
            if spec.absent == ABSENT_VALUE:
                put_slot(model, spec.slot, self.absent_values[i])
        # After all fields: a default may name a field further down.
        for i in range(self.n):
            spec = &self.specs[i]
            if spec.absent == ABSENT_FROM and get_slot(model, spec.slot) == NULL:
                ref = get_slot(model, spec.from_slot)
                put_slot(model, spec.slot, <object>ref)
        # Fields this reader does not know (a newer writer's): kept as they came.
        if pos < end:
            put_slot(model, self.unknown_slot, PyBytes_FromStringAndSize(<char*>buf + pos, end - pos))
        else:
            put_slot(model, self.unknown_slot, None)
        if self.untracked:  # atomic values only (slots.pxd)
            untrack(model)
        return model

    cdef object _read_value(self, Py_ssize_t i, FieldSpec* spec, const unsigned char* buf,
                            Py_ssize_t* pos, Py_ssize_t end, CLimits* lim, PyObject* old):
        """The value of field ``i`` at ``pos[0]`` (its id read), or None to decline;
        ``old``: the field's value in a reused model (NULL: a new model), a list that
        a repeated field writes again when nothing else holds it."""
        cdef Py_ssize_t at
        if spec.count:
            if spec.count > lim.max_count:
                return None
            return _read_array(spec, buf, pos, end, _spare_list(old, spec.count))
        if not _sized(spec, buf, pos, end, lim):
            return None
        at = pos[0] - <Py_ssize_t>spec.length
        if spec.kind == KIND_BYTES:
            return PyBytes_FromStringAndSize(<char*>buf + at, spec.length)
        value = self._repeated(i, buf, at, pos[0])
        if value is not None and PyBytes_GET_SIZE(self.last_raw[i]) == spec.length:
            return value
        value = _decode(buf + at, spec.length, self.encodings[i])
        if value is not None:
            self._remember(i, buf, at, pos[0], value)
        return value

    cdef object _repeated(self, Py_ssize_t i, const unsigned char* buf, Py_ssize_t at,
                          Py_ssize_t end):
        """Field ``i``'s last value if its bytes are at ``at`` again (before ``end``)."""
        cdef bytes raw = self.last_raw[i]
        cdef Py_ssize_t n = PyBytes_GET_SIZE(raw)
        if n == 0 or n > end - at or memcmp(PyBytes_AS_STRING(raw), buf + at, n) != 0:
            return None
        return self.last_value[i]

    cdef void _remember(self, Py_ssize_t i, const unsigned char* buf, Py_ssize_t at,
                        Py_ssize_t stop, value):
        self.last_raw[i] = PyBytes_FromStringAndSize(<char*>buf + at, stop - at)
        self.last_value[i] = value


cdef inline bint _msb_key(
    const unsigned char* buf, Py_ssize_t* pos, Py_ssize_t end, uint64_t* field_id
) noexcept nogil:
    """The next field's key, a mysql::serialization field id (False: truncated)."""
    return _msb_uvar(buf, pos, end, field_id)


# -- the value of each field kind --------------------------------------------------------

cdef inline object _read_int(FieldSpec* spec, const unsigned char* buf, Py_ssize_t* pos,
                             Py_ssize_t end):
    """A KIND_UINT or KIND_SINT value at ``pos[0]``, or None to decline."""
    cdef uint64_t raw
    if not _msb_uvar(buf, pos, end, &raw) or (spec.bits < 64 and raw >> spec.bits):
        return None
    if spec.kind == KIND_UINT:
        return _shared_uint(&spec.shared, raw)
    return _shared_sint(&spec.shared, raw)


cdef inline PyObject* _spare_list(PyObject* items, Py_ssize_t count) noexcept:
    """``items`` when it is a list of ``count`` items that only its model holds, else
    NULL. Borrowed."""
    if items == NULL or _refs(items) != 1 or _type_of(items) != <PyObject*>list:
        return NULL
    if PyList_GET_SIZE(<list>items) != count:
        return NULL
    return items


cdef inline void _set_item(PyObject** cells, Py_ssize_t k, PyObject* item) noexcept:
    """Item ``k`` of a list's ``cells``: a new list's NULL, or a reused list's old item,
    released."""
    cdef PyObject* old = cells[k]
    _incref(item)
    cells[k] = item
    if old != NULL:
        _decref(old)


cdef object _read_array(FieldSpec* spec, const unsigned char* buf, Py_ssize_t* pos,
                        Py_ssize_t end, PyObject* reuse):
    """``spec.count`` integers back to back (no count on the wire), or None to decline;
    written into ``reuse`` when it is a list (a dead one of ``spec.count`` items)."""
    cdef Py_ssize_t k, p = pos[0], count = spec.count
    cdef bint one_byte_fits = spec.bits >= 7 and spec.kind == KIND_UINT
    cdef bint two_bytes_fit = spec.bits >= 8 and spec.kind == KIND_UINT  # 0..255: a small int
    cdef unsigned char b
    cdef unsigned int two
    cdef list items
    cdef PyObject** cells
    if count > end - p:  # each takes a byte at least
        return None
    items = PyList_New(count) if reuse == NULL else <list>reuse
    cells = (<PyListObject*><PyObject*>items).ob_item
    for k in range(count):
        if p >= end:  # a longer element before took the bytes
            return None
        b = buf[p]
        if one_byte_fits and not b & 1:  # the one-byte form: a small int from the table
            _set_item(cells, k, _SMALL[b >> 1])
            p += 1
            continue
        if two_bytes_fit and b & 3 == 1 and end - p >= 2:  # the two-byte form of a byte
            two = (b | (<unsigned int>buf[p + 1] << 8)) >> 2
            if two < 256:
                _set_item(cells, k, _SMALL[two])
                p += 2
                continue
        pos[0] = p
        item = _read_int(spec, buf, pos, end)
        if item is None:
            return None
        _set_item(cells, k, <PyObject*>item)
        p = pos[0]
    pos[0] = p
    untrack(items)  # ints: atomic values only (slots.pxd)
    return items


cdef inline bint _sized(FieldSpec* spec, const unsigned char* buf, Py_ssize_t* pos,
                        Py_ssize_t end, CLimits* lim) noexcept:
    """Read a KIND_TEXT or KIND_BYTES length and step over the bytes it announces, after
    checking it against the bound, the ``max_string`` limit and what remains (the length
    in ``spec.length``); False to decline."""
    cdef uint64_t raw
    if not _msb_uvar(buf, pos, end, &raw):
        return False
    if spec.max_length >= 0 and raw > <uint64_t>spec.max_length:
        return False
    if raw > <uint64_t>lim.max_string or raw > <uint64_t>(end - pos[0]):
        return False
    spec.length = <Py_ssize_t>raw
    pos[0] += spec.length
    return True


cdef object _decode(const unsigned char* data, Py_ssize_t length, bytes encoding):
    """Text in ``encoding``, or None to decline (bytes that are not such text)."""
    try:
        return PyUnicode_Decode(<char*>data, length, <char*>encoding, "strict")
    except UnicodeDecodeError:
        return None


# -- binlog events: a positional header, a sized body, a CRC-32 trailer ------------------

cdef enum:
    MAX_HEADER = 16

cdef struct HeaderField:
    Py_ssize_t slot
    int width     # 1, 2 or 4 bytes, little-endian
    long long const_value  # -1: any value
    SharedInt shared       # the int this field made last


@cython.final
cdef class Frame:
    """An event read from its frame table (``generator/emit/compiled_tables.py``): little-endian
    header integers, a body of ``size_field - minus`` bytes (``minus_if`` fewer when a
    conditional CRC-32 follows), a message or, by the ``switch_on`` header field, a message for the
    listed codes and raw bytes for the others, then a CRC-32 of header and body."""

    cdef HeaderField header[MAX_HEADER]
    cdef int n_header, header_bytes, size_index, switch_index
    cdef long long size_minus, size_minus_if
    cdef object model
    cdef Message body_message  # the body when there is no switch
    cdef dict cases            # code -> Message, with a switch
    cdef Py_ssize_t body_slot, crc_slot
    cdef SharedInt crc_shared
    cdef object spare  # the event a reusing read returned last (see runtime/_compiled/reuse.pxd)
    cdef readonly object trailer_if  # (parent field, attribute, value) or None: always

    def __cinit__(self):
        self.n_header = 0
        self.crc_shared.value = NULL

    def __dealloc__(self):
        cdef int i
        for i in range(self.n_header):
            _forget(&self.header[i].shared)
        _forget(&self.crc_shared)

    def __init__(self, model, frame, dict messages):
        header = frame["header"]
        names = [name for name, _, _ in header] + [frame["body"]]
        slots = slots_of(model, names + ([frame["crc32"]] if frame["crc32"] else []))
        if len(header) > MAX_HEADER:
            raise ValueError("header too long")
        self.model = model
        self.n_header = len(header)
        self.header_bytes = 0
        self.size_index = self.switch_index = -1
        for i, (name, width, const) in enumerate(header):
            if width not in (1, 2, 4):
                raise ValueError(f"header field {name}: width {width}")
            self.header[i].slot = slots[name]
            self.header[i].width = width
            self.header[i].const_value = -1 if const is None else const
            self.header[i].shared.value = NULL
            self.header_bytes += width
            if name == frame["size"][0]:
                self.size_index = i
            if frame["cases"] is not None and name == frame["cases"][0]:
                self.switch_index = i
        if self.size_index < 0 or (frame["cases"] is not None and self.switch_index < 0):
            raise ValueError("the size or switch field is not in the header")
        self.size_minus, self.size_minus_if = frame["size"][1], frame["size"][2]
        if frame["cases"] is None:
            self.body_message = messages[frame["record"]]
        else:
            self.cases = {code: messages[name] for code, name in frame["cases"][1].items()}
        self.body_slot = slots[frame["body"]]
        self.crc_slot = slots[frame["crc32"]] if frame["crc32"] else -1
        self.trailer_if = frame["crc32_if"]

    cdef object read(self, const unsigned char* buf, Py_ssize_t* pos, Py_ssize_t end,
                     bint with_crc, CLimits* lim, bint reuse=False):
        """The event at ``pos[0]`` (``pos[0]`` moved past it), or None to decline. With
        ``reuse``, the event this returned last, and its body, are written again when the
        caller has dropped them (``reuse.pxd``'s ``spare``): for one event a call, not for a file's list."""
        cdef Py_ssize_t start = pos[0], p = start, body_end, i
        cdef long long body_size
        cdef uint32_t value, stored
        cdef uint32_t values[MAX_HEADER]
        cdef HeaderField* h
        cdef Message body_message
        if end - start < self.header_bytes:
            return None
        for i in range(self.n_header):
            h = &self.header[i]
            if h.width == 1:
                value = buf[p]
            elif h.width == 2:
                value = buf[p] | (<uint32_t>buf[p + 1] << 8)
            else:
                value = (buf[p] | (<uint32_t>buf[p + 1] << 8) | (<uint32_t>buf[p + 2] << 16)
                         | (<uint32_t>buf[p + 3] << 24))
            if h.const_value >= 0 and value != h.const_value:
                return None
            values[i] = value
            p += h.width
        body_size = <long long>values[self.size_index] - self.size_minus
        if with_crc:
            body_size -= self.size_minus_if
        if body_size < 0 or body_size > end - p:
            return None
        body_end = p + <Py_ssize_t>body_size
        if self.cases is None:
            body_message = self.body_message
        else:
            body_message = self.cases.get(values[self.switch_index])
        cdef PyObject* target = spare(<PyObject*>self.spare, self.model) if reuse else NULL
        if body_message is not None:
            body = body_message.read(
                buf, p, body_end, lim,
                NULL if target == NULL
                else spare(get_slot(<object>target, self.body_slot), body_message.model),
            )
            if body is None:
                return None
        else:
            body = PyBytes_FromStringAndSize(<char*>buf + p, body_end - p)
        p = body_end
        model = new_model(self.model) if target == NULL else <object>target
        if with_crc:
            if end - p < 4:
                return None
            stored = (buf[p] | (<uint32_t>buf[p + 1] << 8) | (<uint32_t>buf[p + 2] << 16)
                      | (<uint32_t>buf[p + 3] << 24))
            if stored != crc32_update(0, buf + start, p - start):
                return None
            p += 4
            put_slot(model, self.crc_slot, _shared_uint(&self.crc_shared, stored))
        elif self.crc_slot >= 0:
            put_slot(model, self.crc_slot, None)
        for i in range(self.n_header):
            put_slot(model, self.header[i].slot, _shared_uint(&self.header[i].shared, values[i]))
        put_slot(model, self.body_slot, body)
        if atomic(body):  # the header's ints and an untracked body (slots.pxd)
            untrack(model)
        else:
            keep_tracked(model)  # a reused model that was untracked
        pos[0] = p
        if reuse:
            self.spare = model
        return model


cdef class Event(_Entry):
    """``parse`` of a record that is one :class:`Frame` (its CRC-32 always there or never)."""

    cdef Frame frame
    cdef bint with_crc

    def __init__(self, Frame frame, bint with_crc, defaults):
        super().__init__(defaults)
        self.frame, self.with_crc = frame, with_crc

    def parse(self, data, dict limits):
        """The model of ``data``, a whole event, or None to decline."""
        cdef CLimits lim
        cdef Py_ssize_t pos = 0, n
        data = _as_bytes(data)
        if data is None or self._limits(limits, &lim) is None:
            return None
        n = PyBytes_GET_SIZE(data)
        if n > lim.max_message_bytes or lim.max_depth < 1:
            return None
        model = self.frame.read(<const unsigned char*>PyBytes_AS_STRING(data), &pos, n,
                                self.with_crc, &lim, True)
        return model if pos == n else None


# -- binlog files: magic, a head event, events back to back ------------------------------

cdef class File(_Entry):
    """A binlog file: a big-endian magic, the format description (read by the Python fast
    reader ``read_head``: one per file), then :class:`Frame` events to the end, each with
    a CRC-32 when the head's ``trailer_if`` attribute has the frame's value."""

    cdef object model, read_head, read_event, parent
    cdef Frame frame
    cdef uint32_t magic
    cdef Py_ssize_t magic_slot, head_slot, events_slot
    cdef str magic_name, head_name, trailer_attribute
    cdef object trailer_value

    def __init__(self, model, framing, Frame frame, read_head, read_event, parent, defaults):
        super().__init__(defaults)
        self.magic_name, self.magic = framing["magic"]
        self.head_name = framing["head"][0]
        slots = slots_of(model, [self.magic_name, self.head_name, framing["events"][0]])
        self.model, self.frame = model, frame
        self.read_head, self.read_event, self.parent = read_head, read_event, parent
        self.magic_slot = slots[self.magic_name]
        self.head_slot = slots[self.head_name]
        self.events_slot = slots[framing["events"][0]]
        parent_field, self.trailer_attribute, self.trailer_value = frame.trailer_if
        if parent_field != self.head_name:
            raise ValueError(f"the events' CRC-32 depends on {parent_field}, not the head")

    cdef object _head(self, data, limits, Py_ssize_t n, Py_ssize_t* pos, bint* with_crc):
        """The head event after the magic (``pos[0]`` past it), or None to decline."""
        cdef const unsigned char* buf = <const unsigned char*>PyBytes_AS_STRING(data)
        if n < 4 or (
            (<uint32_t>buf[0] << 24) | (<uint32_t>buf[1] << 16) | (<uint32_t>buf[2] << 8) | buf[3]
        ) != self.magic:
            return None
        try:
            head, after = self.read_head(data, 4, n, limits, 2)
        except DecodeError:
            return None
        pos[0] = after
        with_crc[0] = getattr(head, self.trailer_attribute) == self.trailer_value
        return head

    def parse(self, data, dict limits):
        """The model of ``data``, a whole file, or None to decline."""
        cdef CLimits lim
        cdef Py_ssize_t pos = 0, n
        cdef bint with_crc
        cdef list events = []
        data = _as_bytes(data)
        if data is None:
            return None
        limits_obj = self._limits(limits, &lim)
        if limits_obj is None:
            return None
        n = PyBytes_GET_SIZE(data)
        if n > lim.max_message_bytes or lim.max_depth < 2:
            return None
        head = self._head(data, limits_obj, n, &pos, &with_crc)
        if head is None:
            return None
        cdef const unsigned char* buf = <const unsigned char*>PyBytes_AS_STRING(data)
        while pos < n:
            if len(events) + 1 > lim.max_count:
                return None
            event = self.frame.read(buf, &pos, n, with_crc, &lim)
            if event is None:
                return None
            events.append(event)
        if all_atomic(events):  # untracked events only (slots.pxd)
            untrack(events)
        model = new_model(self.model)
        put_slot(model, self.magic_slot, PyLong_FromUnsignedLongLong(self.magic))
        put_slot(model, self.head_slot, head)
        put_slot(model, self.events_slot, events)
        return model

    def rows(self, data, dict limits):
        """The events of ``data`` one at a time (an iterator), or None to decline the
        file: an event this tier declines is read by the Python fast reader, which gives
        it or raises its exact error."""
        cdef CLimits lim
        cdef Py_ssize_t pos = 0, n
        cdef bint with_crc
        data = _as_bytes(data)
        if data is None:
            return None
        limits_obj = self._limits(limits, &lim)
        if limits_obj is None or lim.max_depth < 2:
            return None
        n = PyBytes_GET_SIZE(data)
        head = self._head(data, limits_obj, n, &pos, &with_crc)
        if head is None:
            return None
        parent = self.parent(**{self.magic_name: self.magic, self.head_name: head})
        return _Rows(self, data, pos, with_crc, limits_obj, lim, parent)


cdef class _Rows:
    """The iterator of :meth:`File.rows`."""

    cdef File file
    cdef bytes data
    cdef Py_ssize_t pos, index
    cdef bint with_crc
    cdef object limits, parent
    cdef CLimits lim

    def __init__(self, File file, bytes data, Py_ssize_t pos, bint with_crc, limits,
                 CLimits lim, parent):
        self.file, self.data, self.pos, self.with_crc = file, data, pos, with_crc
        self.limits, self.lim, self.parent = limits, lim, parent
        self.index = 0

    def __iter__(self):
        return self

    def __next__(self):
        cdef Py_ssize_t n = PyBytes_GET_SIZE(self.data), at = self.pos, pos = self.pos
        if at >= n:
            raise StopIteration
        event = self.file.frame.read(<const unsigned char*>PyBytes_AS_STRING(self.data), &pos,
                                     n, self.with_crc, &self.lim)
        if event is None or pos - at > self.lim.max_message_bytes:
            event, pos = self._python_event(at, n)
        self.pos = pos
        self.index += 1
        return event

    cdef tuple _python_event(self, Py_ssize_t at, Py_ssize_t n):
        """The event at ``at`` by the Python fast reader, with its errors and their path
        as the generated ``_rows_<file>`` gives them."""
        try:
            try:
                event, pos = self.file.read_event(self.data, at, n, self.limits, 2, self.parent)
            except DecodeError as err:
                err.add_path(index=self.index)
                raise
            if pos - at > self.limits.max_message_bytes:
                self.limits.check("max_message_bytes", pos - at, offset=at)
        except DecodeError as err:
            err.add_path("events")
            raise
        return event, pos
