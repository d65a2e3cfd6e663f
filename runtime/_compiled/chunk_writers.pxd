# cython: language_level=3
"""What the rendered compiled writers (generator/emit/compiled_writers.py) put into an
``out.pxd`` buffer: varints, fixed bytes, text and bytes after a uvarint, ZigZag or
fixed-width length, and the chunks and regions of ``generator.spec.types``
(``CHUNK_TYPES``, ``REGION_TYPES``): the bytes the Python fast writers
(``runtime.formats.craft_chunks``' ``pack``, ``runtime.core.leb128``, ``struct``) append.

Each takes only what it is sure to write as they do (``int`` elements in range, ``bytes``
or text that is strict UTF-8, ``list`` chunks of the expected count) and raises on anything
else: the caller then builds with construct, which writes or says what is wrong. Inline
only: a module that cimports these compiles them in."""

from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_GET_SIZE
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.unicode cimport PyUnicode_AsUTF8AndSize
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.string cimport memchr, memcpy, memmove

from runtime._compiled.out cimport Out, grow, put, put_byte, put_uvarint
from runtime._compiled.utf8 cimport utf8_valid


cdef inline uint64_t u64_of(object v) except? 0xFFFFFFFFFFFFFFFF:
    """An ``int`` 0 .. 2**64 - 1, else a TypeError or OverflowError."""
    if type(v) is not int:
        raise TypeError("not an int")
    return <uint64_t>v


cdef inline uint64_t member_u64_of(object v) except? 0xFFFFFFFFFFFFFFFF:
    """:func:`u64_of` of an ``int`` or an enum's member (an ``int`` subclass, not bool)."""
    if type(v) is not int and (not isinstance(v, int) or isinstance(v, bool)):
        raise TypeError("not an int")
    return <uint64_t>v


cdef inline int64_t i64_of(object v) except? -1:
    """An ``int`` -2**63 .. 2**63 - 1, else a TypeError or OverflowError."""
    if type(v) is not int:
        raise TypeError("not an int")
    return <int64_t>v


cdef inline int64_t member_i64_of(object v) except? -1:
    """:func:`i64_of` of an ``int`` or an enum's member (an ``int`` subclass, not bool)."""
    if type(v) is not int and (not isinstance(v, int) or isinstance(v, bool)):
        raise TypeError("not an int")
    return <int64_t>v


cdef inline object member_of(object enum, dict members, object value):
    """What the fast writers make of an enum field: ``enum[value]`` of a name, else
    ``enum(value)``, whose first step (the member of that value, ``members``: the enum's
    ``_value2member_map_``, bound once) is taken here without the Python call."""
    if isinstance(value, str):
        return enum[value]
    found = members.get(value)
    return found if found is not None else enum(value)


cdef inline uint64_t zigzag(int64_t v) noexcept nogil:
    return (<uint64_t>v << 1) ^ <uint64_t>(v >> 63)


cdef inline int put_zigzag(Out* o, int64_t v) except -1:
    return put_uvarint(o, zigzag(v))


cdef inline int put_fixed_bits(Out* o, uint64_t u, int size, bint big) except -1:
    """The low ``size`` bytes of ``u``, most significant first where ``big``."""
    cdef int k
    if o.cap - o.size < size:
        grow(o, size)
    for k in range(size):
        o.data[o.size + k] = <unsigned char>(u >> (8 * (size - 1 - k if big else k)))
    o.size += size
    return 0


cdef inline uint64_t fixed_bits_of(int64_t s, uint64_t u, int size, bint signed) except? 0xFFFFFFFFFFFFFFFF:
    """The bits of ``s`` (where ``signed``) or ``u`` in ``size`` bytes, as ``struct`` packs
    them; an OverflowError where it takes no such value."""
    cdef int bits = 8 * size
    if signed:
        if bits < 64 and not -(<int64_t>1 << (bits - 1)) <= s < (<int64_t>1 << (bits - 1)):
            raise OverflowError("out of range")
        return <uint64_t>s
    if bits < 64 and u >> bits:
        raise OverflowError("out of range")
    return u


cdef inline int put_fixed_int(Out* o, object v, int size, bint big, bint signed) except -1:
    """An integer (an enum's member too) of ``size`` bytes, as ``struct`` packs it.

    >>> # put_fixed_int(&out, 0x0102, 2, True, False) puts 01 02
    """
    if type(v) is not int and (not isinstance(v, int) or isinstance(v, bool)):
        raise TypeError("not an int")
    if signed:
        return put_fixed_bits(o, fixed_bits_of(<int64_t>v, 0, size, True), size, big)
    return put_fixed_bits(o, fixed_bits_of(0, <uint64_t>v, size, False), size, big)


cdef inline int put_fixed_member(Out* o, object member, int size, bint big, bint signed) except -1:
    """:func:`put_fixed_int` of an enum's member ``member_of`` has just made: an ``int``
    subclass (the spec's enums are ``IntEnum``), never a bool, so no type test per call.

    >>> # put_fixed_member(&out, ElementType.STRING, 1, False, False) puts 02
    """
    if signed:
        return put_fixed_bits(o, fixed_bits_of(<int64_t>member, 0, size, True), size, big)
    return put_fixed_bits(o, fixed_bits_of(0, <uint64_t>member, size, False), size, big)


cdef inline int put_fixed_size(Out* o, Py_ssize_t n, int size, bint big, bint signed) except -1:
    """:func:`put_fixed_int` of a C integer (a size taken from the buffer's marks): an
    OverflowError where the type cannot hold it, as ``struct``'s error.

    >>> # put_fixed_size(&out, 13, 4, False, True) puts 0d 00 00 00
    """
    if not signed and n < 0:
        raise OverflowError("out of range")
    return put_fixed_bits(o, fixed_bits_of(n, <uint64_t>n, size, signed), size, big)


cdef inline int put_reversed_uvarint(Out* o, uint64_t u) except -1:
    """The bytes of a uvarint, last first (a trailer read back from the end)."""
    cdef Py_ssize_t lo = o.size, hi
    cdef unsigned char c
    put_uvarint(o, u)
    hi = o.size - 1
    while lo < hi:
        c = o.data[lo]
        o.data[lo] = o.data[hi]
        o.data[hi] = c
        lo += 1
        hi -= 1
    return 0


cdef inline const char* payload(object v, bint text, Py_ssize_t* size) except NULL:
    """The bytes of ``v``: ``bytes`` as they are (where ``text``, only bytes that are
    strict UTF-8, what a reader decodes back), a ``str`` (where ``text``) as strict UTF-8 (a
    lone surrogate raises); the Python writers say what is wrong with the rest."""
    if type(v) is bytes:
        size[0] = PyBytes_GET_SIZE(v)
        if text and not utf8_valid(<const uint8_t*>PyBytes_AS_STRING(v), size[0]):
            raise ValueError("not UTF-8")
        return PyBytes_AS_STRING(v)
    if text and type(v) is str:
        return PyUnicode_AsUTF8AndSize(v, size)
    raise TypeError("not bytes")


cdef enum:
    LENGTH_UVARINT = 0  # the length forms of put_text
    LENGTH_ZIGZAG = 1


cdef inline const char* text_of(object v, bint text, Py_ssize_t max_length,
                                Py_ssize_t* size) except NULL:
    """The bytes a length-prefixed text or bytes field writes, as the Python writers take
    them: a ``str``'s strict UTF-8 where ``text`` (bytes refused), else ``bytes`` or a
    ``bytearray``; at most ``max_length`` of them (-1: any). Their subclasses raise too
    (construct then builds them)."""
    cdef const char* data
    if text:
        if type(v) is not str:
            raise TypeError("not text")
        data = PyUnicode_AsUTF8AndSize(v, size)
    elif type(v) is bytes:
        size[0] = PyBytes_GET_SIZE(v)
        data = PyBytes_AS_STRING(v)
    elif type(v) is bytearray:
        size[0] = PyByteArray_GET_SIZE(v)
        data = PyByteArray_AS_STRING(v)
    else:
        raise TypeError("not bytes")
    if max_length >= 0 and size[0] > max_length:
        raise ValueError("max_length")
    return data


cdef inline int put_text_bytes(Out* o, object v, bint text) except -1:
    """The bytes of ``v`` (:func:`text_of`) alone: a text whose length another field
    holds, or that runs to the end (``str`` with ``size: <expression>`` or ``eos``).

    >>> # put_text_bytes(&out, "hé", True) puts 68 c3 a9
    """
    cdef Py_ssize_t size
    cdef const char* data = text_of(v, text, -1, &size)
    return put(o, <const unsigned char*>data, size)


cdef inline Py_ssize_t text_size(object v, bint text) except -1:
    """The number of bytes :func:`put_text_bytes` puts of ``v`` (a ``sizeof`` before the
    text is written): a ``str``'s UTF-8 is kept in it, not made twice.

    >>> # text_size("hé", True) is 3
    """
    cdef Py_ssize_t size
    text_of(v, text, -1, &size)
    return size


cdef inline int put_text(Out* o, object v, bint text, Py_ssize_t max_length,
                         int length) except -1:
    """A varint length (``LENGTH_UVARINT``, or ``LENGTH_ZIGZAG``: Avro's and Kafka's) and
    the bytes of ``v`` (:func:`text_of`).

    >>> # put_text(&out, "hé", True, -1, LENGTH_ZIGZAG) puts 06 68 c3 a9
    """
    cdef Py_ssize_t size
    cdef const char* data = text_of(v, text, max_length, &size)
    put_uvarint(o, zigzag(size) if length == LENGTH_ZIGZAG else <uint64_t>size)
    return put(o, <const unsigned char*>data, size)


cdef inline int put_fixed_text(Out* o, object v, bint text, Py_ssize_t max_length, int size,
                               bint big, bint signed) except -1:
    """A length of ``size`` bytes (an OverflowError where it does not fit, as ``struct``'s
    error) and the bytes of ``v`` (:func:`text_of`).

    >>> # put_fixed_text(&out, b"ab", False, -1, 2, True, False) puts 00 02 61 62
    """
    cdef Py_ssize_t n
    cdef const char* data = text_of(v, text, max_length, &n)
    put_fixed_bits(o, fixed_bits_of(n, <uint64_t>n, size, signed), size, big)
    return put(o, <const unsigned char*>data, n)


cdef inline int put_terminated_text(Out* o, object v, bint text, unsigned char terminator) except -1:
    """The bytes of ``v`` and ``terminator`` after them (``rt.TerminatedBytes``, a C string):
    where ``text`` a ``str`` as strict UTF-8 (CPython keeps an ASCII string's bytes: no copy
    is made), else ``bytes`` or a ``bytearray``; bytes equal to the terminator raise.

    >>> # put_terminated_text(&out, "ab", True, 0) puts 61 62 00
    """
    cdef Py_ssize_t size
    cdef const char* data
    if text:
        if type(v) is not str:
            raise TypeError("not str")
        data = PyUnicode_AsUTF8AndSize(v, &size)
    elif type(v) is bytes:
        data, size = PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v)
    elif type(v) is bytearray:
        data, size = PyByteArray_AS_STRING(v), PyByteArray_GET_SIZE(v)
    else:
        raise TypeError("not bytes")
    if memchr(data, terminator, size) != NULL:
        raise ValueError("terminator")
    put(o, <const unsigned char*>data, size)
    return put_byte(o, terminator)


cdef inline Py_ssize_t counted(object values, object n) except -1:
    """The element count of a chunk: a list of ``n`` elements."""
    if not isinstance(values, list) or type(n) is not int or PyList_GET_SIZE(values) != n:
        raise ValueError("element count")
    return PyList_GET_SIZE(values)


cdef inline int put_uvarint_chunk(Out* o, object values, object n) except -1:
    cdef Py_ssize_t i, count = counted(values, n)
    for i in range(count):
        put_uvarint(o, member_u64_of(<object>PyList_GET_ITEM(values, i)))
    return 0


cdef inline int put_varint_chunk(Out* o, object values, object n) except -1:
    cdef Py_ssize_t i, count = counted(values, n)
    for i in range(count):
        put_zigzag(o, member_i64_of(<object>PyList_GET_ITEM(values, i)))
    return 0


cdef inline int put_delta_uvarint_chunk(Out* o, object values, object n) except -1:
    """A base, then deltas to the previous element modulo 2**64."""
    cdef Py_ssize_t i, count = counted(values, n)
    cdef uint64_t v, prev = 0
    for i in range(count):
        v = u64_of(<object>PyList_GET_ITEM(values, i))
        put_uvarint(o, v - prev)
        prev = v
    return 0


cdef inline int put_delta_varint_chunk(Out* o, object values, object n) except -1:
    """A ZigZag base, then ZigZag deltas to the previous element (int64 wrap)."""
    cdef Py_ssize_t i, count = counted(values, n)
    cdef int64_t v, prev = 0
    for i in range(count):
        v = i64_of(<object>PyList_GET_ITEM(values, i))
        put_zigzag(o, <int64_t>(<uint64_t>v - <uint64_t>prev))
        prev = v
    return 0


cdef inline int put_payload_chunk(Out* o, object values, object n, bint text,
                                  bint nullable) except -1:
    """All lengths (ZigZag with -1 for None where ``nullable``, else uvarints), then the
    payloads."""
    cdef Py_ssize_t i, size, count = counted(values, n)
    cdef const char* data
    for i in range(count):
        v = <object>PyList_GET_ITEM(values, i)
        if nullable and v is None:
            put_byte(o, 1)
            continue
        payload(v, text, &size)
        put_uvarint(o, zigzag(size) if nullable else <uint64_t>size)
    for i in range(count):
        v = <object>PyList_GET_ITEM(values, i)
        if not (nullable and v is None):
            data = payload(v, text, &size)
            put(o, <const unsigned char*>data, size)
    return 0


cdef inline int put_string_chunk(Out* o, object values, object n, bint text) except -1:
    return put_payload_chunk(o, values, n, text, False)


cdef inline int put_nullable_bytes_chunk(Out* o, object values, object n, bint text) except -1:
    return put_payload_chunk(o, values, n, text, True)


# -- what the writers rendered from the Python fast writers do to their bytearray ``out``
# (generator/emit/compiled_writers.py turns ``out += x``, ``out[a:b]``, ... into these)

cdef inline int out_extend(Out* o, object v) except -1:
    """``out += v`` of the ``bytes`` (or ``bytearray``) a Python writer made."""
    cdef const char* p
    if type(v) is bytes:
        return put(o, <const unsigned char*>PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v))
    if type(v) is bytearray:
        p = PyByteArray_AS_STRING(v)
        return put(o, <const unsigned char*>p, PyByteArray_GET_SIZE(v))
    raise TypeError("not bytes")


cdef inline int out_append(Out* o, object v) except -1:
    """``out.append(v)``: an ``int`` 0 .. 255 (a bool too, as bytearray takes it)."""
    if not isinstance(v, int):
        raise TypeError("not an int")
    if not 0 <= v <= 255:
        raise ValueError("byte must be in range(0, 256)")
    return put_byte(o, <unsigned char>v)


cdef inline Py_ssize_t out_span(Out* o, Py_ssize_t a, Py_ssize_t b) except -1:
    """``b - a`` where ``out[a:b]`` lies within what is written (a writer's own marks)."""
    if not 0 <= a <= b <= o.size:
        raise IndexError("outside what is written")
    return b - a


cdef inline bytes out_slice(Out* o, Py_ssize_t a, Py_ssize_t b):
    """``bytes(out[a:b])``."""
    cdef Py_ssize_t n = out_span(o, a, b)
    return PyBytes_FromStringAndSize(<const char*>o.data + a, n)


cdef inline int out_truncate(Out* o, Py_ssize_t a) except -1:
    """``del out[a:]``."""
    out_span(o, a, o.size)
    o.size = a
    return 0


cdef inline int out_patch(Out* o, Py_ssize_t a, object v) except -1:
    """``out[a : a + len(v)] = v``: the bytes of a placeholder written before."""
    if type(v) is not bytes:
        raise TypeError("not bytes")
    cdef Py_ssize_t n = PyBytes_GET_SIZE(v)
    out_span(o, a, a + n)
    memcpy(o.data + a, PyBytes_AS_STRING(v), n)
    return 0


cdef inline int out_rotate(Out* o, Py_ssize_t a, Py_ssize_t b) except -1:
    """The bytes from ``b`` to the end moved to ``a``, those from ``a`` to ``b`` after them
    (a prefix written once what it measures is)."""
    cdef Py_ssize_t body = out_span(o, a, b), tail = out_span(o, b, o.size)
    if tail == 0 or body == 0:
        return 0
    if o.cap - o.size < body:
        grow(o, body)
    memcpy(o.data + o.size, o.data + a, body)  # the body copied after the tail, then
    memmove(o.data + a, o.data + b, tail + body)  # both moved back
    return 0


cdef inline int out_insert(Out* o, Py_ssize_t a, object v) except -1:
    """``out[a:a] = v``."""
    cdef Py_ssize_t end = o.size
    out_span(o, a, end)
    out_extend(o, v)
    return out_rotate(o, a, end)


cdef inline int out_replace_tail(Out* o, Py_ssize_t a, object v) except -1:
    """``out[a:] = v``."""
    out_truncate(o, a)
    return out_extend(o, v)
