# cython: language_level=3
"""JSON tokens in C for the Open Protocol kernel (open_protocol.pyx): a document's
punctuation and scalars scanned into a :c:type:`Token`, and a string token decoded to its
text or its UTF-8 bytes. Inline functions only: compiled into the module that cimports them.

What Python's ``json`` (strict) or ``gojson`` would read otherwise, or whatever the Python
reader must decide (a number beyond 64 bits of magnitude, an escape that sets the
message's escape style or marks a replaced byte, a lone surrogate, invalid UTF-8),
declines: :func:`decline` raises, and the kernel gives the message to the Python reader.
Every read is checked against the end of the document first.
"""

from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.ref cimport PyObject
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdint cimport uint8_t, uint64_t
from libc.string cimport memcmp

from runtime._compiled.utf8 cimport utf8_valid

cdef extern from "Python.h":
    double PyOS_string_to_double(const char *s, char **endptr,
                                 PyObject *overflow_exception) except? -1.0

cdef extern from *:
    """
    #define WIRESPEC_JSON_INT64_MAX ((uint64_t)0x7FFFFFFFFFFFFFFFULL)
    /* (2**64 - 1) // 10: one more digit overflows */
    #define WIRESPEC_JSON_MAG_LIMIT ((uint64_t)1844674407370955161ULL)
    """
    const uint64_t INT64_MAX "WIRESPEC_JSON_INT64_MAX"
    const uint64_t MAG_LIMIT "WIRESPEC_JSON_MAG_LIMIT"


cdef inline int decline() except -1:
    """Not the common form: the Python reader decides (the kernel catches every exception,
    so a ValueError is as good as a class of its own)."""
    raise ValueError


cdef enum:
    T_NULL, T_TRUE, T_FALSE, T_STRING, T_INT, T_FLOAT

cdef struct Token:
    int kind
    Py_ssize_t start, end  # a string's bytes between its quotes
    bint escaped
    bint negative  # T_INT: the sign; the value is -magnitude or magnitude
    uint64_t magnitude
    double number  # T_FLOAT



# -- scanning ------------------------------------------------------------------------------

cdef inline Py_ssize_t skip_ws(const uint8_t *s, Py_ssize_t i, Py_ssize_t end) noexcept:
    while i < end and (s[i] == 32 or s[i] == 10 or s[i] == 13 or s[i] == 9):
        i += 1
    return i


cdef inline Py_ssize_t expect(const uint8_t *s, Py_ssize_t i, Py_ssize_t end, uint8_t c) except -1:
    """Past ``c`` at ``i`` (after whitespace) and the whitespace behind it."""
    i = skip_ws(s, i, end)
    if i >= end or s[i] != c:
        decline()
    return skip_ws(s, i + 1, end)


cdef inline Py_ssize_t next_member(const uint8_t *s, Py_ssize_t i, Py_ssize_t end,
                                   bint *closed) except -1:
    """Past the comma (and whitespace) before an object's next member, or past the brace
    that closes it (``closed`` set); anything else declines."""
    i = skip_ws(s, i, end)
    if i < end and s[i] == 44:  # ,
        closed[0] = False
        return skip_ws(s, i + 1, end)
    if i < end and s[i] == 125:  # }
        closed[0] = True
        return i + 1
    return decline()


cdef inline Py_ssize_t scan_string(const uint8_t *s, Py_ssize_t i, Py_ssize_t end, Token *tok) except -1:
    """The string whose opening quote is at ``i``; its end. Escapes are checked when the
    string is decoded (every string token is decoded or refused)."""
    cdef uint8_t c
    i += 1
    tok.kind = T_STRING
    tok.start = i
    tok.escaped = False
    while i < end:
        c = s[i]
        if c == 34:  # "
            tok.end = i
            return i + 1
        if c == 92:  # a backslash and the character it escapes
            tok.escaped = True
            i += 2
            continue
        if c < 32:  # Python's json (strict) refuses raw control characters
            decline()
        i += 1
    return decline()


cdef inline Py_ssize_t digits(const uint8_t *s, Py_ssize_t i, Py_ssize_t end) except -1:
    """Past the one or more digits at ``i``."""
    if i >= end or not 48 <= s[i] <= 57:
        decline()
    while i < end and 48 <= s[i] <= 57:
        i += 1
    return i


cdef inline Py_ssize_t scan_number(const uint8_t *s, Py_ssize_t i, Py_ssize_t end, Token *tok) except -1:
    """JSON's number grammar exactly; integers up to 64 bits of magnitude, floats parsed
    by Python's own float parser (``PyOS_string_to_double``, as ``json`` does)."""
    cdef Py_ssize_t start = i, n
    cdef uint64_t mag = 0, d
    cdef bint is_float = False
    cdef char buf[64]
    cdef char *stop
    tok.negative = False
    if s[i] == 45:  # -
        tok.negative = True
        i += 1
    if i >= end:
        decline()
    if s[i] == 48:  # 0
        i += 1
    elif 49 <= s[i] <= 57:
        while i < end and 48 <= s[i] <= 57:
            d = s[i] - 48
            if mag > MAG_LIMIT or (mag == MAG_LIMIT and d > 5):
                decline()  # beyond 64 bits
            mag = mag * 10 + d
            i += 1
    else:
        decline()
    if i < end and s[i] == 46:  # .
        i = digits(s, i + 1, end)
        is_float = True
    if i < end and (s[i] == 101 or s[i] == 69):  # e E
        i += 1
        if i < end and (s[i] == 43 or s[i] == 45):
            i += 1
        i = digits(s, i, end)
        is_float = True
    if is_float:
        n = i - start
        if n >= 64:
            decline()
        for d in range(<uint64_t>n):
            buf[d] = <char>s[start + d]
        buf[n] = 0
        tok.number = PyOS_string_to_double(buf, &stop, NULL)
        if stop != buf + n:
            decline()
        tok.kind = T_FLOAT
    elif tok.negative and mag == 0:  # Go writes float -0.0 as -0; gojson reads it so
        tok.kind = T_FLOAT
        tok.number = -0.0
    else:
        if tok.negative and mag > INT64_MAX + 1:
            decline()
        tok.kind = T_INT
        tok.magnitude = mag
    return i


cdef inline Py_ssize_t scan_literal(const uint8_t *s, Py_ssize_t i, Py_ssize_t end,
                                    const char *text, Py_ssize_t n) except -1:
    if end - i < n or memcmp(s + i, text, n) != 0:
        decline()
    return i + n


cdef inline Py_ssize_t scan_scalar(const uint8_t *s, Py_ssize_t i, Py_ssize_t end, Token *tok) except -1:
    """The JSON scalar at ``i`` (no whitespace before it); objects and arrays decline."""
    cdef uint8_t c
    if i >= end:
        decline()
    c = s[i]
    if c == 34:
        return scan_string(s, i, end, tok)
    if c == 45 or 48 <= c <= 57:
        return scan_number(s, i, end, tok)
    if c == 116:
        tok.kind = T_TRUE
        return scan_literal(s, i, end, b"true", 4)
    if c == 102:
        tok.kind = T_FALSE
        return scan_literal(s, i, end, b"false", 5)
    if c == 110:
        tok.kind = T_NULL
        return scan_literal(s, i, end, b"null", 4)
    return decline()


# -- strings -------------------------------------------------------------------------------

cdef inline int hex_digit(uint8_t c) noexcept:
    if 48 <= c <= 57:
        return c - 48
    if 97 <= c <= 102:
        return c - 87
    if 65 <= c <= 70:
        return c - 55
    return -1


cdef inline int hex4(const uint8_t *s, Py_ssize_t i, Py_ssize_t end) except -1:
    """The four hex digits at ``i`` (all before ``end``)."""
    cdef int v = 0, k, d
    if end - i < 4:
        decline()
    for k in range(4):
        d = hex_digit(s[i + k])
        if d < 0:
            decline()
        v = v * 16 + d
    return v


cdef inline Py_ssize_t unescape(const uint8_t *s, Py_ssize_t i, Py_ssize_t end, uint8_t *out) except -1:
    """The UTF-8 bytes of the JSON string text ``s[i:end]`` into ``out`` (which has room
    for ``end - i`` bytes: no escape is shorter than what it stands for); their count."""
    cdef Py_ssize_t o = 0
    cdef uint8_t c
    cdef int cp, lo
    while i < end:
        c = s[i]
        if c != 92:
            out[o] = c
            o += 1
            i += 1
            continue
        i += 1  # the string's scan saw a character after every backslash
        c = s[i]
        i += 1
        if c == 34 or c == 92 or c == 47:
            out[o] = c
        elif c == 98:
            out[o] = 8
        elif c == 102:
            out[o] = 12
        elif c == 110:
            out[o] = 10
        elif c == 114:
            out[o] = 13
        elif c == 116:
            out[o] = 9
        elif c == 117:
            cp = hex4(s, i, end)
            i += 4
            if cp == 8 or cp == 12 or cp == 0xFFFD:
                decline()  # the message's escape style, or a replaced byte
            if 0xDC00 <= cp <= 0xDFFF:
                decline()  # a lone low surrogate
            if 0xD800 <= cp <= 0xDBFF:
                if end - i < 6 or s[i] != 92 or s[i + 1] != 117:
                    decline()  # a lone high surrogate
                lo = hex4(s, i + 2, end)
                if not 0xDC00 <= lo <= 0xDFFF:
                    decline()
                i += 6
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
                out[o] = 0xF0 | (cp >> 18)
                out[o + 1] = 0x80 | ((cp >> 12) & 0x3F)
                out[o + 2] = 0x80 | ((cp >> 6) & 0x3F)
                out[o + 3] = 0x80 | (cp & 0x3F)
                o += 4
                continue
            if cp < 0x80:
                out[o] = cp
            elif cp < 0x800:
                out[o] = 0xC0 | (cp >> 6)
                out[o + 1] = 0x80 | (cp & 0x3F)
                o += 1
            else:
                out[o] = 0xE0 | (cp >> 12)
                out[o + 1] = 0x80 | ((cp >> 6) & 0x3F)
                out[o + 2] = 0x80 | (cp & 0x3F)
                o += 2
        else:
            decline()
        o += 1
    return o


cdef inline object string(const uint8_t *s, Token *tok, bint as_text):
    """A string token's text (``as_text``; invalid UTF-8 raises, which declines) or its
    UTF-8 bytes (what ``text.encode()`` gives of its decoded text)."""
    cdef Py_ssize_t n = tok.end - tok.start
    cdef const uint8_t *p = s + tok.start
    cdef uint8_t *buf = NULL
    try:
        if tok.escaped:
            buf = <uint8_t *>PyMem_Malloc(n + 1)
            if buf == NULL:
                raise MemoryError
            n = unescape(s, tok.start, tok.end, buf)
            p = buf
        if as_text:
            return PyUnicode_DecodeUTF8(<const char *>p, n, NULL)
        if not utf8_valid(p, n):
            decline()
        return PyBytes_FromStringAndSize(<const char *>p, n)
    finally:
        PyMem_Free(buf)


cdef inline object text(const uint8_t *s, Token *tok):
    return string(s, tok, True)


cdef inline object utf8_bytes(const uint8_t *s, Token *tok):
    return string(s, tok, False)
