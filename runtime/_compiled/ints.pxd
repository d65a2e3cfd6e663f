# cython: language_level=3
"""Python ints for C integers, shared: 0..255 from the prelude's table of small ints
(``wirespec_int_table``, filled as they are first seen), and a field's int from its last
one when the value is the same (a binlog's server id, versions and timestamps repeat event
after event; an int is immutable, so models may share one, equal either way). A rendered plan keeps one ``SharedInt`` per field it reads this way. Inline
only: a module that cimports these compiles them in."""

from libc.stdint cimport uint64_t


cdef extern from *:
    """
    #include <stdint.h>
    typedef struct { uint64_t raw; PyObject *value; } wirespec_shared_int;
    /* the int of raw when it is not a small one (a new reference; NULL: raised) */
    static PyObject *wirespec_shared_slow(wirespec_shared_int *s, uint64_t raw, int zigzag) {
        PyObject *v;
        uint64_t small = zigzag ? raw >> 1 : raw;
        if (zigzag ? (raw < 512 && !(raw & 1)) : raw < 256) {  /* a small one, first seen */
            v = PyLong_FromUnsignedLongLong(small);
            if (v == NULL) return NULL;
            wirespec_int_table[small + 5] = v;  /* kept for good */
            Py_INCREF(v);
            return v;
        }
        if (zigzag)
            v = PyLong_FromLongLong((int64_t)(raw >> 1) ^ -(int64_t)(raw & 1));
        else
            v = PyLong_FromUnsignedLongLong(raw);
        if (v == NULL) return NULL;
        Py_INCREF(v);
        Py_XSETREF(s->value, v);
        s->raw = raw;
        return v;
    }
    /* the int of raw (a new reference), shared as the module docstring says; NULL: raised.
       Inline: a message reads a few dozen, and most are small or repeat. */
    static inline __attribute__((always_inline)) PyObject *wirespec_shared(
            wirespec_shared_int *s, uint64_t raw, int zigzag) {
        PyObject *v = NULL;
        if (zigzag ? (raw < 512 && !(raw & 1)) : raw < 256)
            v = wirespec_int_table[(zigzag ? raw >> 1 : raw) + 5];
        else if (s->value != NULL && s->raw == raw)
            v = s->value;
        if (v == NULL) return wirespec_shared_slow(s, raw, zigzag);
        Py_INCREF(v);
        return v;
    }
    """
    ctypedef struct SharedInt "wirespec_shared_int":
        pass
    object shared_int "wirespec_shared" (SharedInt* shared, uint64_t raw, int zigzag)
