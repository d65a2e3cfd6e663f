"""The Cython text a compiled module starts with: the model allocation and slot writes,
the checked readers' helpers and ``parse_first`` (:data:`PRELUDE`), and what a reader
adds when it evaluates expressions, recurses, reads mysql::serialization fields, a CRC-32
or reuses dead models."""

PRELUDE = '''\
from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.object cimport PyObject
from cpython.pyport cimport PY_SSIZE_T_MAX
from cpython.ref cimport Py_INCREF, Py_XDECREF
from cpython.unicode cimport PyUnicode_DecodeASCII, PyUnicode_DecodeUTF8
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcmp, memcpy

import dataclasses
import types

from runtime._compiled.slots cimport (
    all_atomic, atomic, keep_tracked, untrack, wirespec_alloc_untracked,
)
from runtime.core.checksum import CRC8_TABLE

cdef extern from *:
    """
    #include <structmember.h>
    /* A model as object.__new__ makes it, and its slots written at their offsets. */
    static PyObject *wirespec_alloc(PyObject *cls) {
        return ((PyTypeObject *)cls)->tp_alloc((PyTypeObject *)cls, 0);
    }
    static Py_ssize_t wirespec_slot_offset(PyObject *descr) {
        return ((PyMemberDescrObject *)descr)->d_member->offset;
    }
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
    """
    object wirespec_alloc(object cls)
    Py_ssize_t wirespec_slot_offset(object descr) except? -1
    void wirespec_put(object obj, Py_ssize_t offset, object value)
    object wirespec_get(object obj, Py_ssize_t offset)
    bint wirespec_add_overflows(int64_t a, int64_t b, int64_t* sum) noexcept


cdef struct _Limits:
    Py_ssize_t max_message_bytes
    Py_ssize_t max_count
    Py_ssize_t max_string
    Py_ssize_t max_depth
    Py_ssize_t max_decompressed_bytes


cdef object _limits_seen = None
cdef _Limits _limits_last


cdef Py_ssize_t _limit(value):
    """A limit as a C size (any larger int is no limit at all here)."""
    return min(max(value, -1), PY_SSIZE_T_MAX)


cdef bint _limits(limits, _Limits* out) except False:
    """The limits as C sizes (the last ones seen kept: a frozen ``Limits``)."""
    global _limits_seen, _limits_last
    if limits is not _limits_seen:
        _limits_last.max_message_bytes = _limit(limits.max_message_bytes)
        _limits_last.max_count = _limit(limits.max_count)
        _limits_last.max_string = _limit(limits.max_string)
        _limits_last.max_depth = _limit(limits.max_depth)
        _limits_last.max_decompressed_bytes = _limit(limits.max_decompressed_bytes)
        _limits_seen = limits
    out[0] = _limits_last
    return True


cdef unsigned char _CRC8[256]
cdef unsigned char _CRC8_BY_8[8][256]
"""``_CRC8_BY_8[k][x]``: the CRC-8 of the byte x then k zero bytes (eight bytes a step)."""
for _i in range(256):
    _CRC8[_i] = CRC8_TABLE[_i]
    _CRC8_BY_8[0][_i] = _CRC8[_i]
for _k in range(1, 8):
    for _i in range(256):
        _CRC8_BY_8[_k][_i] = _CRC8[_CRC8_BY_8[_k - 1][_i]]


cdef inline unsigned int _crc8(unsigned int crc, const unsigned char* buf, Py_ssize_t start,
                               Py_ssize_t stop) noexcept:
    # a CRC is linear: the CRC of eight bytes is the sum of each byte's, shifted
    while stop - start >= 8:
        crc = (_CRC8_BY_8[7][crc ^ buf[start]] ^ _CRC8_BY_8[6][buf[start + 1]]
               ^ _CRC8_BY_8[5][buf[start + 2]] ^ _CRC8_BY_8[4][buf[start + 3]]
               ^ _CRC8_BY_8[3][buf[start + 4]] ^ _CRC8_BY_8[2][buf[start + 5]]
               ^ _CRC8_BY_8[1][buf[start + 6]] ^ _CRC8_BY_8[0][buf[start + 7]])
        start += 8
    while start < stop:
        crc = _CRC8[crc ^ buf[start]]
        start += 1
    return crc


cdef inline bint _uvarint(const unsigned char* buf, Py_ssize_t* pos, Py_ssize_t end,
                          uint64_t* out) noexcept:
    """A LEB128 varint at ``pos[0]`` before ``end``, as ``read_uvarint`` takes it: at most
    10 bytes and 64 bits (non-shortest forms too). False where it raises."""
    cdef Py_ssize_t p = pos[0]
    cdef Py_ssize_t stop = p + 10 if end - p > 10 else end
    cdef uint64_t value = 0
    cdef uint64_t b
    cdef int shift = 0
    while p < stop:
        b = buf[p]
        p += 1
        if shift == 63 and b > 1:  # past 64 bits, or an 11th byte
            return False
        value |= (b & 0x7F) << shift
        if b < 0x80:
            out[0] = value
            pos[0] = p
            return True
        shift += 7
    return False


cdef inline int64_t _unzigzag(uint64_t u) noexcept:
    return <int64_t>(u >> 1) ^ -<int64_t>(u & 1)


cdef struct _Text:
    PyObject* value
    Py_ssize_t n
    unsigned char key[24]


cdef _Text _TEXTS[1024]
"""Short strings decoded lately, by a hash of their bytes: column names repeat row after row,
and a str is immutable, so a model may share one (equal either way)."""
cdef _Text _BLOBS[1024]
"""Short bytes values made lately, the same way (a table of their own: text and bytes of the
same bytes are different values)."""


cdef inline object _shared(_Text* table, const unsigned char* p, Py_ssize_t n, bint text):
    """``n`` bytes at ``p`` as UTF-8 text or as bytes, shared through ``table`` when short
    (raises UnicodeDecodeError as ``bytes.decode``)."""
    cdef uint32_t h = 2166136261
    cdef Py_ssize_t i
    cdef _Text* slot
    if n > 24:
        return PyUnicode_DecodeUTF8(<const char*>p, n, NULL) if text else (
            PyBytes_FromStringAndSize(<const char*>p, n))
    for i in range(n):
        h = (h ^ p[i]) * 16777619
    slot = &table[(h ^ (h >> 16)) & 1023]
    if slot.value != NULL and slot.n == n and memcmp(slot.key, p, n) == 0:
        return <object>slot.value
    if text:
        value = PyUnicode_DecodeUTF8(<const char*>p, n, NULL)
    else:
        value = PyBytes_FromStringAndSize(<const char*>p, n)
    Py_XDECREF(slot.value)
    Py_INCREF(value)
    slot.value = <PyObject*>value
    slot.n = n
    memcpy(slot.key, p, n)
    return value


cdef inline object _utf8(const unsigned char* p, Py_ssize_t n):
    """The UTF-8 text of ``n`` bytes at ``p``."""
    return _shared(_TEXTS, p, n, True)


cdef inline object _bytes(const unsigned char* p, Py_ssize_t n):
    """``n`` bytes at ``p`` as ``bytes``."""
    return _shared(_BLOBS, p, n, False)


cdef struct _Number:
    PyObject* value
    int64_t key


cdef _Number _NUMBERS[1024]
"""Integers made lately, by a hash of their value: a cell's timestamp, a status or a type
code repeats row after row, and an int is immutable, so a model may share one (equal either
way). Each int not shared is an allocation and a release, and 32 bytes held."""


cdef object _int64(int64_t v):
    """``v`` as a Python int."""
    cdef _Number* slot
    cdef object value
    if -5 <= v <= 256:  # CPython's own shared ints
        return v
    slot = &_NUMBERS[(<uint64_t>v * 0x9E3779B97F4A7C15u) >> 54]
    if slot.value != NULL and slot.key == v:
        return <object>slot.value
    value = v
    Py_XDECREF(slot.value)
    Py_INCREF(value)
    slot.value = <PyObject*>value
    slot.key = v
    return value


cdef extern from "Python.h":
    int PyGC_Enable()
    int PyGC_Disable()


cdef Py_ssize_t _GC_PAUSE_BYTES = 1 << 16
"""Messages from this size on are read with the cyclic GC paused."""


ctypedef object (*_Reader)(const unsigned char*, Py_ssize_t, Py_ssize_t, _Limits*, Py_ssize_t*)


cdef object _whole(_Reader read, Py_ssize_t depth, bytes data, limits):
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


cdef class _Entry:
    """A record's reader and the nesting depth it reads."""
    cdef _Reader read
    cdef Py_ssize_t depth


cdef _Entry _entry(_Reader read, Py_ssize_t depth):
    cdef _Entry entry = _Entry.__new__(_Entry)
    entry.read = read
    entry.depth = depth
    return entry


def parse_first(python_parse, default_record, default_limits):
    """The module's ``parse`` with the compiled readers tried first, from C (no Python frame
    when they take the input): ``python_parse`` decides whatever they decline, and every
    call with limits or input that is not ``bytes``."""
    # the default record's reader found once: a dict look-up is a tenth of a small message
    cdef object default_entry = _ENTRIES.get(default_record)

    def parse(data, record=default_record, **limits):
        if not limits and type(data) is bytes:
            entry = default_entry if record is default_record else _ENTRIES.get(record)
            if entry is not None:
                model = _whole((<_Entry>entry).read, (<_Entry>entry).depth, <bytes>data,
                               default_limits)
                if model is not None:
                    return model
        return python_parse(data, record, **limits)

    parse.__doc__ = python_parse.__doc__
    parse.__wrapped__ = python_parse
    # the module's parse by name: pickled by reference (Spark ships it to workers) as before
    parse.__module__ = python_parse.__module__
    parse.__qualname__ = parse.__name__ = python_parse.__qualname__
    return parse


cdef Py_ssize_t _slot(cls, str name) except -1:
    """The offset of a model slot (a member descriptor of the class itself)."""
    descr = cls.__dict__[name]
    if type(descr) is not types.MemberDescriptorType:
        raise TypeError(f"{cls.__name__}.{name} is no slot")
    return wirespec_slot_offset(descr)


cdef _enum_bytes(dict by_value, PyObject** table):
    """A u8 enum's members by byte (NULL: no member), from the module's ``_X_BY_VALUE``."""
    for i in range(256):
        table[i] = NULL
    for value, member in by_value.items():
        if 0 <= value < 256:
            table[value] = <PyObject*>member
'''


EXPRESSION_PRELUDE = '''\
from cpython.buffer cimport PyBUF_READ
from cpython.memoryview cimport PyMemoryView_FromMemory

import runtime.core.process as rt_process
from runtime.core.errors import DecodeError
from runtime.core.fast import CHECKSUMS as _CHECKSUMS
from runtime.core.record import EXPRESSION_ERRORS

_EXPRESSION_FAILURES = (DecodeError, *EXPRESSION_ERRORS)
"""What evaluating a spec expression (or finding a codec) raises where the quick tier
retries."""
'''


RECURSION_PRELUDE = '''\
ctypedef object (*_DReader)(const unsigned char*, Py_ssize_t, Py_ssize_t, _Limits*, Py_ssize_t*,
                            Py_ssize_t)
"""A reader of a spec that recurses: it takes the nesting depth it is read at."""

cdef Py_ssize_t _C_MAX_DEPTH = 1000
"""Deeper than this the C stack is not trusted: declined, the Python readers decide."""
'''

KEYED_PRELUDE = """\
from runtime._compiled.ints cimport SharedInt, shared_int
from runtime._compiled.msb cimport msb_size, msb_uvar
"""
"""What a reader of mysql::serialization messages adds (runtime/_compiled/msb.pxd, ints.pxd)."""

CRC32_PRELUDE = "from runtime._compiled.crc32 cimport crc32_update\n"
REUSE_PRELUDE = (
    "from cpython.list cimport PyList_New\n"
    "from runtime._compiled.reuse cimport list_put, spare, spare_list, spare_slot\n"
)
