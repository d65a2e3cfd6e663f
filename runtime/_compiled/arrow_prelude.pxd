# cython: language_level=3
"""What the Arrow section of every ``generated/_compiled/<format>.pyx`` shares
(``generator/emit/compiled_arrow.py`` renders the per-record writers): a record's writer as
an entry of the module's ``_ARROW_ENTRIES``, the loop of ``write_arrow`` over a column of
messages, and the enum member names as UTF-8. Inline only, as ``prelude.pxd``."""

from runtime._compiled.arrow cimport BinaryColumn, StructBuilder, binary_column, binary_value
from runtime._compiled.prelude cimport _EntryOf, _Limits, _Reader, _entry, _entry_of, _limits


ctypedef int (*_ArrowReader)(const unsigned char*, Py_ssize_t, Py_ssize_t, _Limits*,
                             Py_ssize_t*, StructBuilder) except -2
"""A record's writer: its columns appended to the builder (0), or -1 where the model
reader declines or a value does not fit its column (the builders part-written)."""


cdef inline object _new_arrow_entry(_ArrowReader read, Py_ssize_t depth):
    """A record's Arrow writer and the nesting depth it reads, for ``_ARROW_ENTRIES``: an
    entry as ``prelude.pxd`` makes one (its reader cast back where it is called; no
    ``whole``: ``_write_arrow`` reads each message itself). Not ``_arrow_<name>``: that is
    the writer of the record ``<name>`` (``entry`` is one a spec may have)."""
    return _entry(<_Reader>read, depth, NULL)


cdef inline object _write_arrow(object entry_capsule, column, Py_ssize_t start,
                                Py_ssize_t stop, StructBuilder out, list counts, limits):
    """A module's ``write_arrow``, by the ``_ARROW_ENTRIES`` entry of its record: the Spark
    rows of ``column[start:stop]`` (a pyarrow binary or large_binary Array of messages, read
    where Arrow holds them: no bytes object a message) written into ``out`` (a struct of the
    row's columns), each message's number of rows appended to ``counts``. Returns where it
    stopped: ``stop``, or the first message it does not take (a null, one the compiled
    reader declines, or one with a value its column does not take, such as an offset past
    int64: ``out`` is then as it was before that message), for the caller to decode the
    Python way. What the bytes hold raises nothing; a builder that is not of the record's
    columns raises TypeError."""
    cdef const _EntryOf* entry = _entry_of(entry_capsule)
    cdef _ArrowReader read = <_ArrowReader>entry.read
    cdef _Limits lim
    cdef BinaryColumn messages
    cdef Py_ssize_t i, n, mark, at
    cdef const unsigned char* buf
    _limits(limits, &lim)
    binary_column(column, &messages)
    if not 0 <= start <= stop <= messages.length:
        raise IndexError(f"messages {start}:{stop} of a column of {messages.length}")
    if lim.max_depth < entry.depth:
        return start
    for i in range(start, stop):
        if not binary_value(&messages, i, &buf, &n) or n > lim.max_message_bytes:
            return i
        mark = out.length
        at = 0
        if read(buf, 0, n, &lim, &at, out) < 0 or at != n:
            out.truncate(mark)
            return i
        counts.append(out.length - mark)
    return stop


cdef inline _enum_names(dict by_value, const char** names, Py_ssize_t* sizes, list keep):
    """An enum's member names by byte, as UTF-8 (an empty name where no member is), the
    encoded names kept alive in ``keep``."""
    for i in range(256):
        names[i] = b""
        sizes[i] = 0
    for value, member in by_value.items():
        if 0 <= value < 256:
            name = member.name.encode("utf-8")
            keep.append(name)
            names[value] = name
            sizes[value] = len(name)
