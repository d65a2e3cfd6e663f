# cython: language_level=3
"""The records of protobuf messages in C, read one way by the model reader (protobuf.pyx)
and the Arrow reader (protobuf_arrow.pyx): a record's key and where its value lies, a group
passed over whole, a field found by its number. Inline functions returning a status, each
reader declining in its own way:

- ``0``: the record as encode writes it;
- ``KEPT``: a key, varint or length longer than it needs (the model reader declines it,
  the Python reader keeping its bytes; the Arrow reader takes the value it holds);
- ``-1``: where ``runtime.formats.protobuf``'s reader raises."""

from runtime._compiled.protobuf_tables cimport *
from runtime._compiled.protobuf_values cimport uvarint


cdef enum:
    KEPT = 1


cdef inline int kept_uvarint(const unsigned char* buf, Py_ssize_t* pos, Py_ssize_t end,
                             unsigned long long* out) noexcept:
    """``uvarint`` of any length ``read_uvarint`` takes: ``KEPT`` when the varint is longer
    than it needs (its last byte 0), 0 when not, -1 where ``read_uvarint`` raises."""
    if pos[0] < end and buf[pos[0]] < 0x80:
        out[0] = buf[pos[0]]
        pos[0] += 1
        return 0
    if uvarint(buf, pos, end, out) < 0:
        return -1
    return KEPT if buf[pos[0] - 1] == 0 else 0


cdef struct Record:
    long long number
    int wire_type
    unsigned long long varint  # VARINT: its value
    Py_ssize_t at  # where its value starts (LEN: after the length)
    Py_ssize_t stop  # where the record ends


cdef inline int read_key(const unsigned char* buf, Py_ssize_t* pos, Py_ssize_t end,
                         Record* r) noexcept:
    """A record's key: its field number (not 0) and wire type."""
    cdef unsigned long long key
    cdef int status = kept_uvarint(buf, pos, end, &key)
    if status < 0 or key >> 32:
        return -1
    r.number = <long long>(key >> 3)
    r.wire_type = <int>(key & 7)
    if r.number == 0:
        return -1
    return status


cdef inline int value_span(const unsigned char* buf, Py_ssize_t pos, Py_ssize_t end,
                           Record* r) noexcept:
    """Where the value of ``r`` (its key read, ``pos`` after it) lies and ends; -1 for a
    group too (:func:`read_record` passes over it)."""
    cdef unsigned long long n
    cdef int status = 0
    r.at = pos
    if r.wire_type == VARINT:
        status = kept_uvarint(buf, &pos, end, &r.varint)
        if status < 0:
            return -1
    elif r.wire_type == LEN:
        status = kept_uvarint(buf, &pos, end, &n)
        if status < 0 or n > <unsigned long long>(end - pos):
            return -1
        r.at = pos
        pos += <Py_ssize_t>n
    elif r.wire_type == I64 or r.wire_type == I32:
        pos += 8 if r.wire_type == I64 else 4
        if pos > end:
            return -1
    else:  # groups, and wire types that do not exist
        return -1
    r.stop = pos
    return status


cdef inline int read_record(const unsigned char* buf, Py_ssize_t pos, Py_ssize_t end, Record* r,
                            Py_ssize_t depth, Py_ssize_t max_depth) noexcept:
    """The record at ``pos`` of a message at ``depth``: its key and where its value lies; a
    group is passed over whole. An end of group has no record of its own."""
    cdef int key = read_key(buf, &pos, end, r)
    if key < 0:
        return -1
    cdef int value = value_span(buf, pos, end, r)
    if value >= 0:
        return key | value
    if r.wire_type != SGROUP:
        return -1
    r.stop = group_end(buf, pos, end, r.number, depth + 1, max_depth)
    return -1 if r.stop < 0 else key


cdef inline Py_ssize_t group_end(const unsigned char* buf, Py_ssize_t pos, Py_ssize_t end,
                                 long long number, Py_ssize_t depth,
                                 Py_ssize_t max_depth) noexcept:
    """``_group_end``: where the group of field ``number`` starting at ``pos`` (after its
    start key) ends, or -1. A group is kept whole as its bytes, so its records are only
    passed over, whatever their form; by a loop of its own, apart from :func:`read_record`
    (which then calls no function that calls it back, and inlines in the readers' loops)."""
    cdef Record r
    cdef unsigned long long n
    if depth > max_depth or depth > MAX_C_DEPTH:
        return -1
    while pos < end:
        if read_key(buf, &pos, end, &r) < 0:
            return -1
        if r.wire_type == EGROUP:
            return pos if r.number == number else -1
        if r.wire_type == SGROUP:
            pos = group_end(buf, pos, end, r.number, depth + 1, max_depth)
            if pos < 0:
                return -1
        elif r.wire_type == VARINT:
            if uvarint(buf, &pos, end, &n) < 0:
                return -1
        elif r.wire_type == LEN:
            if uvarint(buf, &pos, end, &n) < 0 or n > <unsigned long long>(end - pos):
                return -1
            pos += <Py_ssize_t>n
        elif r.wire_type == I64 or r.wire_type == I32:
            pos += 8 if r.wire_type == I64 else 4
            if pos > end:
                return -1
        else:
            return -1
    return -1


cdef inline int find_field(Field* fields, int* order, int count, long long number,
                           int* guess) noexcept:
    """The index of the field numbered ``number``, or -1; ``guess`` is where in number
    order the next record's field usually is (the next one, or the same)."""
    cdef int j, g = guess[0]
    if g < count and fields[order[g]].number == number:
        return order[g]
    if g + 1 < count and fields[order[g + 1]].number == number:
        guess[0] = g + 1
        return order[g + 1]
    for j in range(count):
        if fields[order[j]].number == number:
            guess[0] = j
            return order[j]
    return -1

