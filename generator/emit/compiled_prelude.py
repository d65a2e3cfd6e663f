"""The Cython text a compiled module starts with: its cimports of the shared helpers
(``runtime/_compiled/prelude.pxd``) and ``parse_first`` (:data:`PRELUDE`), and what a reader
adds when it evaluates expressions, reads mysql::serialization fields, a CRC-32 or reuses
dead models."""

PRELUDE = '''\
from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.object cimport PyObject
from cpython.pyport cimport PY_SSIZE_T_MAX
from cpython.ref cimport Py_INCREF, Py_XDECREF
from cpython.unicode cimport PyUnicode_DecodeASCII, PyUnicode_DecodeUTF8
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcmp, memcpy

import dataclasses

from runtime._compiled.dispatch import EntriesFirst as _EntriesFirst
from runtime._compiled.prelude cimport (
    _CRC8, _C_MAX_DEPTH, _DReader, _Limits, _Reader, _bytes, _crc8, _entry, _enum_bytes, _int,
    _int64, _limits, _unzigzag, _utf8, _uvarint, _whole,
    wirespec_add_overflows, wirespec_get, wirespec_put,
)
from runtime._compiled.slots cimport (
    all_atomic, atomic, free_fast, keep_tracked, new_list, slot_offset, untrack,
    wirespec_alloc, wirespec_alloc_untracked,
)


def parse_first(python_parse, default_record, default_limits):
    """The module's ``parse`` with the compiled readers tried first, from C (no Python frame
    when they take the input, no ``**limits`` dict when none are given): ``python_parse``
    decides whatever they decline, every call with limits, and input other than ``bytes``,
    a bytearray or a C-contiguous memoryview (of any format: its bytes)."""
    return _EntriesFirst(python_parse, _ENTRIES, default_record, default_limits)
'''
"""What every module starts with: the shared helpers cimported from
``runtime/_compiled/prelude.pxd`` (and ``slots.pxd``), and ``parse_first`` over the module's
own ``_ENTRIES`` (``runtime/_compiled/dispatch.pyx``'s ``EntriesFirst``)."""


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


KEYED_PRELUDE = """\
from runtime._compiled.ints cimport SharedInt, shared_int
from runtime._compiled.msb cimport msb_size, msb_uvar
"""
"""What a reader of mysql::serialization messages adds (runtime/_compiled/msb.pxd, ints.pxd)."""

CRC32_PRELUDE = "from runtime._compiled.crc32 cimport crc32_update\n"
LATIN1_PRELUDE = "from cpython.unicode cimport PyUnicode_DecodeLatin1\n"
MEMCHR_PRELUDE = "from libc.string cimport memchr\n"
"""What a reader of Latin-1 text adds (PNG's tEXt): the other modules do without it."""
REUSE_PRELUDE = (
    "from cpython.list cimport PyList_New\n"
    "from runtime._compiled.reuse cimport list_put, spare, spare_list, spare_slot\n"
)

SHORTEST_UVARINT_PRELUDE = '''\
cdef extern from *:
    """
    WIRESPEC_UVARINT_INLINE int wirespec_uvarint_shortest(const unsigned char *buf,
                                                          Py_ssize_t *pos, Py_ssize_t end,
                                                          uint64_t *out) {
        Py_ssize_t p = *pos;
        if (p < end && buf[p] < 0x80) {  /* one byte, the most common form */
            *out = buf[p];
            *pos = p + 1;
            return 1;
        }
        return wirespec_uvarint_long(buf, pos, end, out) && buf[*pos - 1] != 0;
    }
    """
    # ``_uvarint`` in its shortest form only: a longer one is declined, and the Python
    # reader keeps its message's bytes (``wire_form``, runtime/core/kept.py).
    bint _uvarint_shortest "wirespec_uvarint_shortest" (const unsigned char* buf, Py_ssize_t* pos,
                                                        Py_ssize_t end, uint64_t* out) noexcept
'''
"""What a reader of a format that keeps varints longer than they need adds."""

REVERSED_UVARINT_PRELUDE = '''\
cdef inline bint _reversed_uvarint(const unsigned char* buf, Py_ssize_t* end, Py_ssize_t start,
                                   uint64_t* out, bint shortest) noexcept:
    """A uvarint whose bytes are reversed and end at ``end[0]`` (a trailer read from the
    end), no byte before ``start`` examined, as ``read_reversed_uvarint`` takes it: its last
    10 bytes at most, reversed, read by ``_uvarint``; ``end[0]`` moves to its first byte.
    False where it raises, and with ``shortest`` for a longer form than it needs (the
    Python reader keeps its message's bytes: ``wire_form``)."""
    cdef unsigned char back[10]
    cdef Py_ssize_t n = end[0] - start if end[0] - start < 10 else 10
    cdef Py_ssize_t i, used = 0
    for i in range(n):
        back[i] = buf[end[0] - 1 - i]
    if not _uvarint(back, &used, n, out) or (shortest and used > 1 and not back[used - 1]):
        return False
    end[0] -= used
    return True
'''
"""What a reader of a trailer adds: its reversed uvarint, read backwards."""
