# cython: language_level=3
"""mysql::serialization's msb-count varints and the values made of them, put into an
``out.pxd`` buffer by the compiled writers of ``layout: serializable`` messages
(generator/emit/compiled_messages.py): the bytes the Python fast writers
(``generator.emit.fastbuild_messages``: ``runtime.core.fast.msb_uvar_bytes``,
``msb_svar_bytes``, ``MSB_U8``) append.

Like ``chunk_writers.pxd``, each takes only what it is sure to write as they do (an ``int``
itself in range, a ``str`` that is strict UTF-8, a list of ``int`` 0..255) and raises on the
rest: the caller then builds with construct, which says what is wrong. Inline functions
only (cimported; no module of this name at run time)."""

from libc.stdint cimport int64_t, uint64_t

from runtime._compiled.chunk_writers cimport text_of, zigzag
from runtime._compiled.msb cimport msb_size
from runtime._compiled.out cimport Out, grow, put


cdef inline int put_msb(Out* o, uint64_t u) except -1:
    """The shortest msb-count varint of ``u`` (``runtime.core.msbvarint.encode_uvar``).

    >>> # put_msb(&out, 90200) puts c3 02 0b; put_msb(&out, 2**64 - 1) puts ff and 8 ff
    """
    cdef int n = msb_size(u), k
    cdef uint64_t w
    if o.cap - o.size < 9:
        grow(o, 9)
    if n == 9:
        o.data[o.size] = 0xFF
        for k in range(8):
            o.data[o.size + 1 + k] = <unsigned char>(u >> (8 * k))
    else:  # the value above n - 1 one bits and a zero, little-endian
        w = (u << n) | ((<uint64_t>1 << (n - 1)) - 1)
        for k in range(n):
            o.data[o.size + k] = <unsigned char>(w >> (8 * k))
    o.size += n
    return 0


cdef inline int put_msb_uvar(Out* o, object v, int bits) except -1:
    """An unsigned ``int`` (the type itself, as the fast writer takes it) of ``bits``."""
    cdef uint64_t u
    if type(v) is not int:
        raise TypeError("not an int")
    u = <uint64_t>v  # OverflowError below 0 or from 2**64
    if bits < 64 and u >> bits:
        raise ValueError("not an msb varint of this width")
    return put_msb(o, u)


cdef inline int put_msb_svar(Out* o, object v, int bits) except -1:
    """A signed ``int`` of ``bits``, zigzag-encoded (``runtime.core.msbvarint.zigzag``).

    >>> # put_msb_svar(&out, -1, 64) puts 02; put_msb_svar(&out, 1, 64) puts 04
    """
    cdef int64_t s
    if type(v) is not int:
        raise TypeError("not an int")
    s = <int64_t>v  # OverflowError outside int64
    if bits < 64 and not -(<int64_t>1 << (bits - 1)) <= s < (<int64_t>1 << (bits - 1)):
        raise ValueError("not a signed msb varint of this width")
    return put_msb(o, zigzag(s))


cdef inline int put_msb_text(Out* o, object v, bint text, Py_ssize_t max_length) except -1:
    """An msb-count varint length and the bytes of ``v`` (``chunk_writers.text_of``: a
    ``str``'s strict UTF-8 where ``text``, else ``bytes`` or a ``bytearray``)."""
    cdef Py_ssize_t size
    cdef const char* data = text_of(v, text, max_length, &size)
    put_msb(o, <uint64_t>size)
    return put(o, <const unsigned char*>data, size)


cdef inline int put_msb_uint8s(Out* o, object v, Py_ssize_t count) except -1:
    """``count`` uint8s, each an msb-count varint (a UUID's 16): ``int`` 0..255 (the type
    itself: not a bool) in a list (a parsed model's ``ListContainer`` too) or a tuple, as
    the fast writer takes them; a ValueError where there are not ``count`` of them, a
    TypeError for another container (bytes, a range or a str iterate as ints too, and
    construct refuses them).

    >>> # put_msb_uint8s(&out, [1, 200], 2) puts 02 21 03
    """
    cdef Py_ssize_t k
    cdef object item
    cdef list items
    if type(v) is list:
        items = v
    elif isinstance(v, (list, tuple)):
        items = list(v)
    else:
        raise TypeError("not a list of uint8s")
    if len(items) != count:
        raise ValueError("count")
    for k in range(count):
        item = items[k]
        if type(item) is not int or not 0 <= item <= 255:
            raise TypeError("not a uint8")
        put_msb(o, <uint64_t>item)
    return 0
