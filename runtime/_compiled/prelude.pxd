# cython: language_level=3
"""What every compiled reader of ``generated/_compiled/<format>.pyx`` shares (with slots.pxd,
which allocates and frees the models): the slot writes, the limits as C sizes, CRC-8,
LEB128 varints, the text, bytes and ints shared between models, and a whole message read
with the cyclic GC paused.

``generator/emit/compiled.py`` renders each module to cimport these; only what depends on
the spec (its readers, classes, enum tables, ``_ENTRIES``, ``parse_first`` and ``bind``)
is rendered into it. Inline only: a module that cimports them compiles them in, with its
own copy of the tables and caches below (C ``static``), so no module of this name exists
at run time and no generated module depends on another one.

What must be inlined to pay is written in C with ``WIRESPEC_ALWAYS_INLINE``: gcc's own
heuristic stopped inlining ``_shared`` and ``_limits`` once the MySQL module grew
(benchmarks/HISTORY.md, "The prelude in one .pxd")."""

from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.object cimport PyObject
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_New
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdint cimport int64_t, uint64_t


cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    #ifndef WIRESPEC_ALWAYS_INLINE
    #if defined(__GNUC__)
    #define WIRESPEC_ALWAYS_INLINE static inline __attribute__((always_inline))
    #else
    #define WIRESPEC_ALWAYS_INLINE static inline
    #endif
    #endif

    /* Not forced inline: in the MySQL event's reader that cost ~50 instructions an event
       more than the calls (benchmarks/HISTORY.md, "The prelude in one .pxd"). */
    static void wirespec_put(PyObject *obj, Py_ssize_t offset, PyObject *value) {
        PyObject **slot = (PyObject **)((char *)obj + offset);
        Py_INCREF(value);
        Py_XSETREF(*slot, value);
    }
    /* a + b in 64 bits, or 1 where Python's int would be wider */
    static int wirespec_add_overflows(int64_t a, int64_t b, int64_t *sum) {
        return __builtin_add_overflow(a, b, sum);
    }
    static PyObject *wirespec_get(PyObject *obj, Py_ssize_t offset) {
        PyObject *value = *(PyObject **)((char *)obj + offset);
        Py_XINCREF(value);
        return value;
    }

    /* The limits as C sizes, the last ones seen kept (a frozen Limits): read once a call. */
    typedef struct {
        Py_ssize_t max_message_bytes, max_count, max_string, max_depth, max_decompressed_bytes;
    } wirespec_limits;
    static PyObject *wirespec_limits_seen = NULL;
    static wirespec_limits wirespec_limits_last;
    /* limits.<name> as a C size: any larger int is no limit at all here; 0, or -1 raised */
    static int wirespec_limit(PyObject *limits, const char *name, Py_ssize_t *out) {
        int overflow;
        long long value;
        PyObject *number = PyObject_GetAttrString(limits, name);
        if (number == NULL) return -1;
        value = PyLong_AsLongLongAndOverflow(number, &overflow);
        Py_DECREF(number);
        if (value == -1 && PyErr_Occurred()) return -1;
        if (overflow > 0 || value > PY_SSIZE_T_MAX) *out = PY_SSIZE_T_MAX;
        else if (overflow < 0 || value < -1) *out = -1;
        else *out = (Py_ssize_t)value;
        return 0;
    }
    static int wirespec_limits_read(PyObject *limits) {
        wirespec_limits read;
        if (wirespec_limit(limits, "max_message_bytes", &read.max_message_bytes)
                || wirespec_limit(limits, "max_count", &read.max_count)
                || wirespec_limit(limits, "max_string", &read.max_string)
                || wirespec_limit(limits, "max_depth", &read.max_depth)
                || wirespec_limit(limits, "max_decompressed_bytes",
                                  &read.max_decompressed_bytes))
            return -1;
        wirespec_limits_last = read;
        Py_INCREF(limits);
        Py_XSETREF(wirespec_limits_seen, limits);
        return 0;
    }
    /* *out: the limits as C sizes; 1, or 0 raised. Inline: once a message, and mostly
       the same limits as the last. */
    WIRESPEC_ALWAYS_INLINE int wirespec_limits_of(PyObject *limits, wirespec_limits *out) {
        if (limits != wirespec_limits_seen && wirespec_limits_read(limits) < 0) return 0;
        *out = wirespec_limits_last;
        return 1;
    }

    /* CRC-8 (polynomial 0x07, SMBUS: runtime/core/checksum.py), a byte at a time, and
       wirespec_crc8_by_8[k][x]: the CRC-8 of the byte x then k zero bytes (eight bytes a
       step). Made when the module is loaded. */
    static unsigned char wirespec_crc8[256];
    static unsigned char wirespec_crc8_by_8[8][256];
    __attribute__((constructor)) static void wirespec_crc8_init(void) {
        for (int n = 0; n < 256; n++) {
            unsigned char c = (unsigned char)n;
            for (int k = 0; k < 8; k++) c = c & 0x80 ? (unsigned char)(c << 1 ^ 0x07) : c << 1;
            wirespec_crc8[n] = c;
            wirespec_crc8_by_8[0][n] = c;
        }
        for (int k = 1; k < 8; k++)
            for (int n = 0; n < 256; n++)
                wirespec_crc8_by_8[k][n] = wirespec_crc8[wirespec_crc8_by_8[k - 1][n]];
    }

    /* Short strings (or bytes) made lately, by a hash of their bytes: column names repeat
       row after row, and a str is immutable, so models may share one (equal either way).
       Text and bytes of the same bytes are different values: a table each. */
    typedef struct { PyObject *value; Py_ssize_t n; unsigned char key[24]; } wirespec_text;
    static wirespec_text wirespec_texts[1024];
    static wirespec_text wirespec_blobs[1024];
    /* n bytes at p as UTF-8 text or as bytes (a new reference; NULL: raised, as
       bytes.decode raises). Inline: text is a constant where it is called. */
    WIRESPEC_ALWAYS_INLINE PyObject *wirespec_shared_text(
            wirespec_text *table, const unsigned char *p, Py_ssize_t n, int text) {
        uint32_t h = 2166136261u;
        wirespec_text *slot;
        PyObject *value;
        if (n > 24)
            return text ? PyUnicode_DecodeUTF8((const char *)p, n, NULL)
                        : PyBytes_FromStringAndSize((const char *)p, n);
        for (Py_ssize_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
        slot = &table[(h ^ (h >> 16)) & 1023];
        if (slot->value != NULL && slot->n == n && memcmp(slot->key, p, (size_t)n) == 0) {
            Py_INCREF(slot->value);
            return slot->value;
        }
        value = text ? PyUnicode_DecodeUTF8((const char *)p, n, NULL)
                     : PyBytes_FromStringAndSize((const char *)p, n);
        if (value == NULL) return NULL;
        Py_INCREF(value);
        Py_XSETREF(slot->value, value);
        slot->n = n;
        memcpy(slot->key, p, (size_t)n);
        return value;
    }
    static inline PyObject *wirespec_utf8(const unsigned char *p, Py_ssize_t n) {
        return wirespec_shared_text(wirespec_texts, p, n, 1);
    }
    static inline PyObject *wirespec_bytes(const unsigned char *p, Py_ssize_t n) {
        return wirespec_shared_text(wirespec_blobs, p, n, 0);
    }

    /* Integers made lately, by a hash of their value: a cell's timestamp, a status or a
       type code repeats row after row, and an int is immutable, so models may share one
       (equal either way). Each int not shared is an allocation and a release, and 32
       bytes held. */
    typedef struct { PyObject *value; int64_t key; } wirespec_number;
    static wirespec_number wirespec_numbers[1024];
    static PyObject *wirespec_int64(int64_t v) {
        wirespec_number *slot;
        PyObject *value;
        if (-5 <= v && v <= 256) return PyLong_FromLongLong(v);  /* CPython's own */
        slot = &wirespec_numbers[((uint64_t)v * 0x9E3779B97F4A7C15u) >> 54];
        if (slot->value != NULL && slot->key == v) {
            Py_INCREF(slot->value);
            return slot->value;
        }
        value = PyLong_FromLongLong(v);
        if (value == NULL) return NULL;
        Py_INCREF(value);
        Py_XSETREF(slot->value, value);
        slot->key = v;
        return value;
    }
    /* A C integer as a Python int, the small ones (CPython's own, -5 to 256: a code, a
       count, a length) from a table here: PyLong_FromLong's call and checks cost a small
       model as much as its slots. */
    static PyObject *wirespec_int_table[262];
    WIRESPEC_ALWAYS_INLINE PyObject *wirespec_int(int64_t v) {
        PyObject *value;
        if ((uint64_t)v + 5u >= 262u) return PyLong_FromLongLong(v);
        value = wirespec_int_table[v + 5];
        if (value == NULL) {
            value = PyLong_FromLongLong(v);
            if (value == NULL) return NULL;
            wirespec_int_table[v + 5] = value;
        }
        Py_INCREF(value);
        return value;
    }
    """
    void wirespec_put(object obj, Py_ssize_t offset, object value)
    object wirespec_get(object obj, Py_ssize_t offset)
    bint wirespec_add_overflows(int64_t a, int64_t b, int64_t* sum) noexcept

    ctypedef struct _Limits "wirespec_limits":
        Py_ssize_t max_message_bytes
        Py_ssize_t max_count
        Py_ssize_t max_string
        Py_ssize_t max_depth
        Py_ssize_t max_decompressed_bytes
    bint _limits "wirespec_limits_of" (object limits, _Limits* out) except False

    const unsigned char _CRC8 "wirespec_crc8" [256]
    const unsigned char _CRC8_BY_8 "wirespec_crc8_by_8" [8][256]

    object _utf8 "wirespec_utf8" (const unsigned char* p, Py_ssize_t n)
    object _bytes "wirespec_bytes" (const unsigned char* p, Py_ssize_t n)
    object _int64 "wirespec_int64" (int64_t v)
    object _int "wirespec_int" (int64_t v)


cdef inline unsigned int _crc8(unsigned int crc, const unsigned char* buf, Py_ssize_t start,
                               Py_ssize_t stop) noexcept:
    # a CRC is linear: the CRC of eight bytes is the sum of each byte's, shifted
    while stop - start >= 8:
        crc = (_CRC8_BY_8[7][crc ^ buf[start]] ^ _CRC8_BY_8[6][buf[start + 1]]
               ^ _CRC8_BY_8[5][buf[start + 2]] ^ _CRC8_BY_8[4][buf[start + 3]]
               ^ _CRC8_BY_8[3][buf[start + 4]] ^ _CRC8_BY_8[2][buf[start + 5]]
               ^ _CRC8_BY_8[1][buf[start + 6]] ^ _CRC8_BY_8[0][buf[start + 7]])
        start += 8
    # the rest in at most three steps (four bytes, two, one), not a byte at a time
    if stop - start >= 4:
        crc = (_CRC8_BY_8[3][crc ^ buf[start]] ^ _CRC8_BY_8[2][buf[start + 1]]
               ^ _CRC8_BY_8[1][buf[start + 2]] ^ _CRC8_BY_8[0][buf[start + 3]])
        start += 4
    if stop - start >= 2:
        crc = _CRC8_BY_8[1][crc ^ buf[start]] ^ _CRC8_BY_8[0][buf[start + 1]]
        start += 2
    if start < stop:
        crc = _CRC8[crc ^ buf[start]]
    return crc


cdef extern from *:
    """
    #if defined(__GNUC__)
    #define WIRESPEC_UVARINT_INLINE static inline __attribute__((always_inline))
    #define WIRESPEC_UVARINT_OUTLINE static __attribute__((noinline))
    #else
    #define WIRESPEC_UVARINT_INLINE static inline
    #define WIRESPEC_UVARINT_OUTLINE static
    #endif
    /* wirespec_uvarint of any length: out of line, so that the one-byte form inlines */
    WIRESPEC_UVARINT_OUTLINE int wirespec_uvarint_long(const unsigned char *buf,
                                                      Py_ssize_t *pos, Py_ssize_t end,
                                                      uint64_t *out) {
        Py_ssize_t p = *pos;
        Py_ssize_t stop = end - p > 10 ? p + 10 : end;
        uint64_t value = 0, b;
        int shift = 0;
        while (p < stop) {
            b = buf[p++];
            if (shift == 63 && b > 1) return 0;  /* past 64 bits, or an 11th byte */
            value |= (b & 0x7F) << shift;
            if (b < 0x80) {
                *out = value;
                *pos = p;
                return 1;
            }
            shift += 7;
        }
        return 0;
    }
    WIRESPEC_UVARINT_INLINE int wirespec_uvarint(const unsigned char *buf, Py_ssize_t *pos,
                                                 Py_ssize_t end, uint64_t *out) {
        Py_ssize_t p = *pos;
        if (p < end && buf[p] < 0x80) {  /* one byte, the most common form */
            *out = buf[p];
            *pos = p + 1;
            return 1;
        }
        return wirespec_uvarint_long(buf, pos, end, out);
    }
    """
    # A LEB128 varint at pos[0] before end, as read_uvarint takes it: at most 10 bytes and
    # 64 bits (non-shortest forms too). False where it raises.
    bint _uvarint "wirespec_uvarint" (const unsigned char* buf, Py_ssize_t* pos, Py_ssize_t end,
                                      uint64_t* out) noexcept


cdef inline int64_t _unzigzag(uint64_t u) noexcept:
    return <int64_t>(u >> 1) ^ -<int64_t>(u & 1)


# -- a whole message, and the module's entries -------------------------------------------


cdef extern from "Python.h":
    int PyGC_Enable()
    int PyGC_Disable()


cdef enum:
    # messages from this size on are read with the cyclic GC paused
    _GC_PAUSE_BYTES = 1 << 16
    # deeper than this the C stack is not trusted: declined, the Python readers decide
    _C_MAX_DEPTH = 1000


ctypedef object (*_Reader)(const unsigned char*, Py_ssize_t, Py_ssize_t, _Limits*, Py_ssize_t*)
"""A record's reader: the model read from ``pos`` before ``end`` (where it stopped in
``stop``), or None (a decline)."""

ctypedef object (*_DReader)(const unsigned char*, Py_ssize_t, Py_ssize_t, _Limits*, Py_ssize_t*,
                            Py_ssize_t)
"""A reader of a spec that recurses: it takes the nesting depth it is read at."""


cdef inline object _whole(_Reader read, Py_ssize_t depth, bytes data, limits):
    """What ``read`` gives for all of ``data``, or None (a decline)."""
    cdef _Limits lim
    cdef Py_ssize_t stop = 0
    cdef Py_ssize_t n = len(data)
    cdef const unsigned char* buf = data
    cdef bint gc_was_on = False
    _limits(limits, &lim)
    if lim.max_depth < depth or n > lim.max_message_bytes:
        return None
    if n >= _GC_PAUSE_BYTES:
        # the models of a big message are millions of tracked objects and no cycles: the
        # cyclic GC would rescan them over and over (nine tenths of parsing 64 MiB)
        gc_was_on = PyGC_Disable()
    try:
        model = read(buf, 0, n, &lim, &stop)
    except ValueError:  # text that does not decode
        return None
    finally:
        if gc_was_on:
            PyGC_Enable()
    if model is None or stop != n:
        return None
    return model


ctypedef object (*_Whole)(_Reader, Py_ssize_t, bytes, object)
"""What reads all of an input with a reader: :func:`_whole`, or the module's own where the
reader's elements may be pending in it (generator/emit/compiled_pending.py)."""


ctypedef struct _EntryOf:
    _Reader read
    Py_ssize_t depth
    _Whole whole


cdef inline void _free_entry(object entry) noexcept:
    PyMem_Free(PyCapsule_GetPointer(entry, NULL))


cdef inline object _entry(_Reader read, Py_ssize_t depth, _Whole whole):
    """A record's reader, the nesting depth it reads and what reads all of an input with it,
    for the module's ``_ENTRIES`` (which ``runtime/_compiled/dispatch.pyx`` reads)."""
    cdef _EntryOf* entry = <_EntryOf*>PyMem_Malloc(sizeof(_EntryOf))
    if entry == NULL:
        raise MemoryError()
    entry.read = read
    entry.depth = depth
    entry.whole = whole
    return PyCapsule_New(entry, NULL, _free_entry)


cdef inline const _EntryOf* _entry_of(object entry) except? NULL:
    """What :func:`_entry` made, or NULL for None (no such record)."""
    if entry is None:
        return NULL
    return <const _EntryOf*>PyCapsule_GetPointer(entry, NULL)


# -- bind: the generated module's classes and enum tables --------------------------------


cdef inline _enum_bytes(dict by_value, PyObject** table):
    """A u8 enum's members by byte (NULL: no member), from the module's ``_X_BY_VALUE``."""
    for i in range(256):
        table[i] = NULL
    for value, member in by_value.items():
        if 0 <= value < 256:
            table[value] = <PyObject*>member
