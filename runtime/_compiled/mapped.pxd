# cython: language_level=3
"""What a rendered ``map:`` (generator/emit/compiled_fused.py) does beside reading: the
numbers of a chunk kept in C (``MapRun``), an id looked up in a list of names (a ``ref:``),
a value decoded from its bytes where they are by a kind table (a ``decode_by:``:
``runtime.core.value_kinds.ValueKinds.quick``, 256 entries), each giving what the Python
mapping gives or saying where it fails or gives up (the caller declines), and a model's
defaults. Inline only: a module that cimports these compiles them in.

    A chunk of n numbers read into a MapRun: map_run(&run, n) gives the room (None, or the
    bytes object that holds it), then run.values[0 .. n-1] are written and read as uint64.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from cpython.float cimport PyFloat_FromDouble
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.long cimport PyLong_FromUnsignedLongLong
from cpython.object cimport PyObject
from cpython.unicode cimport PyUnicode_CheckExact, PyUnicode_GET_LENGTH
from libc.stdint cimport int64_t, uint64_t
from libc.string cimport memcpy

from runtime._compiled.prelude cimport _int, _int64, _slot, _unzigzag, _uvarint

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
    MAP_MOST_DEFAULTS = 64  # fields a model may leave to their defaults


cdef extern from *:
    """
    #define WIRESPEC_MAP_RUN_SPACE 64
    typedef struct { uint64_t *values; uint64_t space[WIRESPEC_MAP_RUN_SPACE]; } wirespec_map_run;
    /* Room for n numbers (a chunk's count, never more than the bytes it is read from):
       Py_None when the run's own space holds them, else the bytes object that does (kept
       alive by the caller); NULL: no memory. Inline: a message reads a few runs a row. */
    WIRESPEC_ALWAYS_INLINE PyObject *wirespec_map_run_start(wirespec_map_run *run,
                                                            Py_ssize_t n) {
        PyObject *memory;
        if (n <= WIRESPEC_MAP_RUN_SPACE) {
            run->values = run->space;
            Py_INCREF(Py_None);
            return Py_None;
        }
        memory = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(uint64_t));
        if (memory != NULL) run->values = (uint64_t *)PyBytes_AS_STRING(memory);
        return memory;
    }
    """
    ctypedef struct MapRun "wirespec_map_run":
        uint64_t* values
    object map_run "wirespec_map_run_start" (MapRun* run, Py_ssize_t n)


cdef inline int64_t map_member_at(const uint64_t* values, Py_ssize_t n, int64_t i,
                                  bint* failed) noexcept:
    """``members[i]`` of a chunk of enum members read into a MapRun (``values``, ``n`` of
    them, each a member's value below 256): member_lists.pxd's ``member_at`` without the
    list (a negative ``i`` from the end, ``failed`` where Python raises IndexError)."""
    if i < 0:
        i += n
    if i < 0 or i >= n:
        failed[0] = True
        return 0
    return <int64_t>values[i]


cdef inline bint map_member_in(int64_t value, const uint64_t* values, Py_ssize_t n) noexcept:
    """``value in members`` of such a run."""
    cdef Py_ssize_t i
    for i in range(n):
        if <int64_t>values[i] == value:
            return True
    return False


cdef inline int64_t map_member_extreme(const uint64_t* values, Py_ssize_t n, bint largest,
                                       bint* failed) noexcept:
    """``max(members)`` (``largest``) or ``min(members)`` of such a run (``failed`` where
    Python raises ValueError: no members)."""
    cdef Py_ssize_t i
    cdef int64_t best
    if n == 0:
        failed[0] = True
        return 0
    best = <int64_t>values[0]
    for i in range(1, n):
        if (<int64_t>values[i] > best) if largest else (<int64_t>values[i] < best):
            best = <int64_t>values[i]
    return best


cdef inline PyObject* map_lookup(list names, int64_t i, bint has_null, int64_t null,
                                 bint empty_refused) noexcept:
    """The name (borrowed) that id ``i`` stands for in ``names``, ``None`` for the null id,
    or NULL where the ref fails (out of range, the empty name refused)."""
    cdef int64_t n = PyList_GET_SIZE(names)
    cdef PyObject* name
    if 0 <= i < n:
        name = PyList_GET_ITEM(names, i)
        if not empty_refused:
            return name
        if PyUnicode_CheckExact(<object>name) and PyUnicode_GET_LENGTH(<object>name) != 0:
            return name  # (anything but a str that is not empty: declined)
    if has_null and i == null:
        return <PyObject*>None
    return NULL


cdef extern from *:
    """
    /* n bytes at p as bytes.decode reads them: a new str; Py_None (a new reference) and
       *gave_up set where they are not UTF-8; NULL where another error is raised. In C,
       not Cython: a try block costs ~20 instructions a value (saving the exception
       state). A value's text is seldom seen again: made, not looked up among recent ones;
       ASCII (dates, numbers) is told eight bytes at a time, and its bytes are the text. */
    static PyObject *wirespec_map_text(const unsigned char *p, Py_ssize_t n, int *gave_up) {
        uint64_t word, high = 0;
        Py_ssize_t i = 0;
        PyObject *text;
        for (; i + 8 <= n; i += 8) {
            memcpy(&word, p + i, 8);
            high |= word;
        }
        for (; i < n; i++) high |= p[i];
        if ((high & 0x8080808080808080u) == 0 && n > 1) {
            text = PyUnicode_New(n, 127);
            if (text != NULL) memcpy(PyUnicode_DATA(text), p, (size_t)n);
            return text;
        }
        text = PyUnicode_DecodeUTF8((const char *)p, n, NULL);
        if (text == NULL && PyErr_ExceptionMatches(PyExc_ValueError)) {
            PyErr_Clear();
            *gave_up = 1;
            Py_INCREF(Py_None);
            return Py_None;
        }
        return text;
    }
    /* item k of a list PyList_New made (its NULL): value (inline: once a column) */
    WIRESPEC_ALWAYS_INLINE void wirespec_map_list_set(PyObject *items, Py_ssize_t k,
                                                      PyObject *value) {
        Py_INCREF(value);
        PyList_SET_ITEM(items, k, value);
    }
    """
    object map_text "wirespec_map_text" (const unsigned char* p, Py_ssize_t n, bint* gave_up)
    void map_list_set "wirespec_map_list_set" (list items, Py_ssize_t k, object value)


cdef inline int map_kinds(signed char* table, quick) except -1:
    """``table[code]``: ``quick[code]`` (a ValueKinds' ``quick``), -1 for None."""
    cdef int code
    for code in range(256):
        kind = quick[code]
        table[code] = -1 if kind is None else kind
    return 0


cdef inline object map_value(const signed char* kinds, uint64_t code, uint64_t flags,
                             const unsigned char* p, int64_t n, uint64_t unsigned_flag,
                             bint big_endian, bint* gave_up):
    """The value ``ValueKinds.quick_values`` gives for the ``n`` bytes at ``p`` (``n`` < 0:
    NULL, None) of a ``code`` with ``flags``; ``gave_up`` set where it gives up (a code
    with no kind, a varint that does not fill the bytes, text that is not UTF-8, a double
    not of 8 bytes, a NULL kind with a value)."""
    cdef uint64_t u = 0
    cdef Py_ssize_t used = 0
    cdef signed char kind
    cdef unsigned char swapped[8]
    cdef double d
    cdef int k
    gave_up[0] = True
    if code > 255 or kinds[code] < 0:
        return None
    kind = kinds[code]
    gave_up[0] = False
    if n < 0:
        return None
    if kind == MAP_BYTES:
        return PyBytes_FromStringAndSize(<const char*>p, n)
    if kind == MAP_STR:
        return map_text(p, n, gave_up)
    if kind == MAP_SIGNED_UNLESS or kind == MAP_VARINT or kind == MAP_UVARINT:
        if not _uvarint(p, &used, n, &u) or used != n:
            gave_up[0] = True
            return None
        if kind == MAP_VARINT or (kind == MAP_SIGNED_UNLESS and not flags & unsigned_flag):
            return _int64(_unzigzag(u))
        return _int(<int64_t>u) if u >> 63 == 0 else PyLong_FromUnsignedLongLong(u)
    if kind == MAP_F64 and n == 8:
        if big_endian:
            for k in range(8):
                swapped[k] = p[7 - k]
            p = swapped
        memcpy(&d, p, 8)  # the host is little-endian (checked where this is bound)
        return PyFloat_FromDouble(d)
    gave_up[0] = True
    return None


cdef extern from *:
    """
    #ifndef WIRESPEC_ALWAYS_INLINE
    #define WIRESPEC_ALWAYS_INLINE static inline __attribute__((always_inline))
    #endif
    /* value into the slot at offset of a model (wirespec_put, inline: a model has a few
       slots and a message thousands) */
    WIRESPEC_ALWAYS_INLINE void wirespec_map_put(PyObject *model, Py_ssize_t offset,
                                                 PyObject *value) {
        PyObject **slot = (PyObject **)((char *)model + offset);
        PyObject *old = *slot;
        Py_INCREF(value);
        *slot = value;
        Py_XDECREF(old);
    }
    """
    void map_put "wirespec_map_put" (object model, Py_ssize_t offset, object value)


cdef struct MapDefaults:  # the fields of a model the mapping does not set, and their values
    Py_ssize_t count
    Py_ssize_t offsets[MAP_MOST_DEFAULTS]
    PyObject* values[MAP_MOST_DEFAULTS]  # atomic values, held by the class's dataclass fields


cdef inline bint map_defaults(MapDefaults* out, cls, fields) except -1:
    """``out``: the offset and default of each field of the slots dataclass ``cls`` the
    mapping does not set (``fields``: those it sets); False where one has no atomic default
    (or the class has a ``__post_init__``, or too many fields): then the mapping is not
    bound."""
    import dataclasses

    if getattr(cls, "__post_init__", None) is not None:
        return False
    out.count = 0
    for f in dataclasses.fields(cls):
        if f.name in fields:
            continue
        if type(f.default) not in (type(None), bool, int, float, str, bytes):
            return False
        if out.count == MAP_MOST_DEFAULTS:
            return False
        out.offsets[out.count] = _slot(cls, f.name)
        out.values[out.count] = <PyObject*>f.default
        out.count += 1
    return True


cdef inline void map_put_defaults(object model, const MapDefaults* defaults):
    """A new model's fields the mapping does not set: their defaults (:func:`map_defaults`)."""
    cdef Py_ssize_t k
    for k in range(defaults.count):
        map_put(model, defaults.offsets[k], <object>defaults.values[k])


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
