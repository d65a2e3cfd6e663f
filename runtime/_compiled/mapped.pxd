# cython: language_level=3
"""What a rendered ``map:`` (generator/emit/compiled_fused.py) does beside reading: the
numbers of a chunk kept in C (``MapRun``; a run of enum members read by the spec's rules
as member_lists.pxd reads a list), an id looked up in a list of names (a ``ref:``),
a value decoded from its bytes where they are by a kind table (a ``decode_by:``:
``runtime.core.value_kinds.ValueKinds.quick``, 256 entries), each giving what the Python
mapping gives or saying where it fails or gives up (the caller declines), and a model's
slots and defaults. Inline only: a module that cimports these compiles them in.

    A chunk of n numbers read into a MapRun: map_run(&run, n) gives the room (None, or the
    bytes object that holds it), then run.values[0 .. n-1] are written and read as uint64.
"""

from cpython.object cimport PyObject
from libc.stdint cimport int64_t, uint64_t

# The C below calls the prelude's (wirespec_uvarint, wirespec_int, wirespec_int64): these
# cimports put it first.
from runtime._compiled.prelude cimport _int, _int64, _uvarint
from runtime._compiled.slots cimport slot_offset

cdef extern from *:
    """
    /* runtime.core.value_kinds' Q_* codes (bind checks them): a varint that is a uvarint
       where the unsigned flag is set, then the wire types */
    enum {
        WIRESPEC_MAP_SIGNED_UNLESS = 0, WIRESPEC_MAP_VARINT = 1, WIRESPEC_MAP_UVARINT = 2,
        WIRESPEC_MAP_F64 = 3, WIRESPEC_MAP_STR = 4, WIRESPEC_MAP_BYTES = 5,
        WIRESPEC_MAP_NULL = 6
    };
    """
    enum:
        MAP_SIGNED_UNLESS "WIRESPEC_MAP_SIGNED_UNLESS"
        MAP_VARINT "WIRESPEC_MAP_VARINT"
        MAP_UVARINT "WIRESPEC_MAP_UVARINT"
        MAP_F64 "WIRESPEC_MAP_F64"
        MAP_STR "WIRESPEC_MAP_STR"
        MAP_BYTES "WIRESPEC_MAP_BYTES"
        MAP_NULL "WIRESPEC_MAP_NULL"


cdef enum:
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


cdef extern from *:
    """
    /* The name (borrowed) that id i stands for in names, Py_None for the null id, or NULL
       where the ref fails (out of range, the empty name refused: anything but a str that
       is not empty). In C, always inline: once a column. */
    WIRESPEC_ALWAYS_INLINE PyObject *wirespec_map_lookup(PyObject *names, int64_t i,
                                                         int has_null, int64_t null,
                                                         int empty_refused) {
        PyObject *name;
        if (0 <= i && i < (int64_t)PyList_GET_SIZE(names)) {
            name = PyList_GET_ITEM(names, (Py_ssize_t)i);
            if (!empty_refused
                    || (PyUnicode_CheckExact(name) && PyUnicode_GET_LENGTH(name) != 0))
                return name;
        }
        if (has_null && i == null) return Py_None;
        return NULL;
    }
    """
    PyObject* map_lookup "wirespec_map_lookup" (list names, int64_t i, bint has_null,
                                                int64_t null, bint empty_refused)


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
        if (i < n && n >= 8) {  /* the last eight bytes, some seen already */
            memcpy(&word, p + n - 8, 8);
            high |= word;
        } else {
            for (; i < n; i++) high |= p[i];
        }
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
    void map_list_set "wirespec_map_list_set" (list items, Py_ssize_t k, object value)


cdef inline int map_kinds(signed char* table, quick) except -1:
    """``table[code]``: ``quick[code]`` (a ValueKinds' ``quick``), -1 for None."""
    cdef int code
    for code in range(256):
        kind = quick[code]
        table[code] = -1 if kind is None else kind
    return 0


cdef extern from *:
    """
    /* The value ValueKinds.quick_values gives for the n bytes at p (n < 0: NULL, None) of
       a code with flags, a new reference; *gave_up set where it gives up (a code with no
       kind, a varint that does not fill the bytes, text that is not UTF-8, a double not of
       8 bytes, a NULL kind with a value), and None; NULL where an error is raised. In C,
       always inline: once a column, its kind table and flag constants of the caller. */
    WIRESPEC_ALWAYS_INLINE PyObject *wirespec_map_value(
            const signed char *kinds, uint64_t code, uint64_t flags, const unsigned char *p,
            int64_t n, uint64_t unsigned_flag, int big_endian, int *gave_up) {
        uint64_t u = 0;
        Py_ssize_t used = 0;
        unsigned char swapped[8];
        double d;
        int kind, k;
        *gave_up = code > 255 || kinds[code] < 0;
        if (*gave_up || n < 0) Py_RETURN_NONE;
        kind = kinds[code];
        switch (kind) {
        case WIRESPEC_MAP_BYTES:
            return PyBytes_FromStringAndSize((const char *)p, (Py_ssize_t)n);
        case WIRESPEC_MAP_STR:
            return wirespec_map_text(p, (Py_ssize_t)n, gave_up);
        case WIRESPEC_MAP_SIGNED_UNLESS: case WIRESPEC_MAP_VARINT: case WIRESPEC_MAP_UVARINT:
            if (!wirespec_uvarint(p, &used, (Py_ssize_t)n, &u) || used != n) break;
            if (kind == WIRESPEC_MAP_VARINT
                    || (kind == WIRESPEC_MAP_SIGNED_UNLESS && !(flags & unsigned_flag)))
                return wirespec_int64((int64_t)(u >> 1) ^ -(int64_t)(u & 1));  /* ZigZag */
            return u >> 63 == 0 ? wirespec_int((int64_t)u) : PyLong_FromUnsignedLongLong(u);
        case WIRESPEC_MAP_F64:
            if (n != 8) break;
            if (big_endian) {
                for (k = 0; k < 8; k++) swapped[k] = p[7 - k];
                p = swapped;
            }
            memcpy(&d, p, 8);  /* the host is little-endian (checked where this is bound) */
            return PyFloat_FromDouble(d);
        }
        *gave_up = 1;
        Py_RETURN_NONE;
    }
    """
    object map_value "wirespec_map_value" (
        const signed char* kinds, uint64_t code, uint64_t flags, const unsigned char* p,
        int64_t n, uint64_t unsigned_flag, bint big_endian, bint* gave_up)


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
    /* value into an empty slot (NULL: a model just made, the slot not written yet): as
       wirespec_map_put, with no old value to release */
    WIRESPEC_ALWAYS_INLINE void wirespec_map_set(PyObject *model, Py_ssize_t offset,
                                                 PyObject *value) {
        Py_INCREF(value);
        *(PyObject **)((char *)model + offset) = value;
    }
    """
    void map_put "wirespec_map_put" (object model, Py_ssize_t offset, object value)
    void map_set "wirespec_map_set" (object model, Py_ssize_t offset, object value)


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
        out.offsets[out.count] = slot_offset(cls, f.name)
        out.values[out.count] = <PyObject*>f.default
        out.count += 1
    return True


cdef inline bint map_kept_list_ok(cls) except -1:
    """Whether the mapping may make its list of ``cls`` (a list that keeps the bytes read:
    generator/spec/types.py ``RuntimeType.kept_as``) as ``cls()`` makes an empty one,
    allocated and zeroed, then set its slot ``wire_form`` alone: a ``list`` subclass
    with no ``__new__`` or ``__init__`` of its own and no other room."""
    return (isinstance(cls, type) and issubclass(cls, list) and cls.__new__ is list.__new__
            and cls.__init__ is list.__init__
            and cls.__basicsize__ == list.__basicsize__ + sizeof(PyObject*))


cdef inline void map_put_defaults(object model, const MapDefaults* defaults):
    """A new model's fields the mapping does not set (empty): their defaults
    (:func:`map_defaults`)."""
    cdef Py_ssize_t k
    for k in range(defaults.count):
        map_set(model, defaults.offsets[k], <object>defaults.values[k])


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
