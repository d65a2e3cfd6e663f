# cython: language_level=3
"""A generated module's ``parse`` with its C readers tried first, from C: a message they take
runs no Python frame of the module (its ``parse``, then ``runtime.core.codec.parse_fast`` and
the readers' own calls cost about as much as reading a small message in C), and a call
without limits makes no tuple and no ``**limits`` dict (vectorcall). :class:`TablesFirst`
tries the table readers (``TABLE_READERS``, see ``generator/emit/compiled_tables.py``),
:class:`EntriesFirst` the readers of a compiled module (its ``_ENTRIES``, see
``generator/emit/compiled_prelude.py``)."""

from cpython.object cimport PyObject, PyTypeObject
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE

from runtime._compiled.buffers cimport readable_bytes
from runtime._compiled.prelude cimport _EntryOf, _entry_of


cdef extern from "Python.h":
    Py_ssize_t PyVectorcall_NARGS(size_t nargsf)
    object PyObject_Vectorcall(object callable, PyObject** args, size_t nargsf, PyObject* kwnames)


cdef extern from *:
    """
    /* Calls of a TablesFirst or an EntriesFirst take the vectorcall protocol: a call
       without keywords passes its arguments as an array, so no tuple and no dict is made. */
    static void wirespec_use_vectorcall(PyTypeObject *type, Py_ssize_t offset) {
        type->tp_vectorcall_offset = offset;
        type->tp_call = PyVectorcall_Call;
        type->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
    }
    """
    void wirespec_use_vectorcall(PyTypeObject* type, Py_ssize_t offset)


cdef class _StandsForParse:
    """What stands for a module's ``parse`` (``python_parse``): its name, module, docstring
    and signature (``__wrapped__``), a routine to ``help()`` and pickled by reference
    (Spark ships the module's parse to workers by name). Its calls are its subclass's C
    function (vectorcall); a call it does not take is ``python_parse``'s, with the
    arguments as they came."""

    cdef void* vectorcall
    cdef object python_parse, default_record
    cdef dict __dict__

    cdef void stand_for(self, python_parse, default_record, void* call) noexcept:
        self.vectorcall = call
        self.python_parse, self.default_record = python_parse, default_record

    cdef void named_as_parse(self) except *:
        for name in ("__module__", "__name__", "__qualname__", "__doc__"):
            setattr(self, name, getattr(self.python_parse, name))
        self.__wrapped__ = self.python_parse

    def __get__(self, instance, owner):
        return self  # a routine as functions are, to inspect and pydoc; never bound

    def __reduce__(self):
        return self.__qualname__  # the module's parse by name, as a function pickles


cdef inline PyObject* _record_of(_StandsForParse self, PyObject** args, Py_ssize_t nargs,
                                 PyObject* kwnames) noexcept:
    """The record of a call without limits (``parse(data)``, ``parse(data, record)`` or
    ``parse(data, record=record)``), borrowed; NULL for any other call."""
    if kwnames == NULL:
        if nargs == 1:
            return <PyObject*>self.default_record
        return args[1] if nargs == 2 else NULL
    if nargs == 1 and PyTuple_GET_SIZE(<object>kwnames) == 1:
        if <object>PyTuple_GET_ITEM(<object>kwnames, 0) == "record":
            return args[1]
    return NULL


cdef class TablesFirst(_StandsForParse):
    """``python_parse`` with ``readers`` (record -> ``(data, limits) -> model or None``)
    tried first; ``python_parse`` decides whatever they decline (None), every call with
    limits, with the exact model or error."""

    cdef dict readers
    cdef object default_reader
    cdef dict no_limits

    def __init__(self, python_parse, dict readers, default_record):
        self.stand_for(python_parse, default_record, <void*>_tables_first_call)
        self.readers = readers
        # the default record's reader found once: readers is complete by now
        self.default_reader = readers.get(default_record)
        self.no_limits = {}
        self.named_as_parse()


cdef object _tables_first_call(TablesFirst self, PyObject** args, size_t nargsf, PyObject* kwnames):
    """A call of a TablesFirst (the vectorcall protocol): a call without limits tries the
    record's table reader with no limits given; anything else, and a decline, is the
    module's Python ``parse``."""
    cdef PyObject* record = _record_of(self, args, PyVectorcall_NARGS(nargsf), kwnames)
    if record != NULL:
        if <object>record is self.default_record:
            reader = self.default_reader
        else:
            reader = self.readers.get(<object>record)
        if reader is not None:
            model = reader(<object>args[0], self.no_limits)
            if model is not None:
                return model
    return PyObject_Vectorcall(self.python_parse, args, nargsf, kwnames)


cdef class EntriesFirst(_StandsForParse):
    """``python_parse`` with a compiled module's readers (``entries``: record -> its
    ``_entry``) tried first with ``default_limits`` on ``bytes``, a bytearray or a
    C-contiguous memoryview of any format (buffers.pxd's ``readable_bytes``: a copy where
    the caller may change it), each by its entry's ``whole`` (the module's, which
    keeps the input where elements may be pending in it); ``python_parse`` decides
    whatever they decline (None), every call with limits and any other input, with the
    exact model or error."""

    cdef dict entries
    cdef const _EntryOf* default_entry
    cdef object default_limits

    def __init__(self, python_parse, dict entries, default_record, default_limits):
        self.stand_for(python_parse, default_record, <void*>_entries_first_call)
        self.entries, self.default_limits = entries, default_limits
        # the default record's reader found once: a dict look-up is a tenth of a small message
        self.default_entry = _entry_of(entries.get(default_record))
        self.named_as_parse()


cdef object _entries_first_call(EntriesFirst self, PyObject** args, size_t nargsf,
                                PyObject* kwnames):
    """A call of an EntriesFirst (the vectorcall protocol): a call without limits on a
    buffer buffers.pxd's ``readable_bytes`` takes reads its bytes with the record's compiled
    reader; anything else, and a decline, is the module's Python ``parse`` (given the
    buffer as it came: its errors' offsets are the buffer's)."""
    cdef PyObject* record = _record_of(self, args, PyVectorcall_NARGS(nargsf), kwnames)
    cdef const _EntryOf* entry
    if record != NULL:
        if <object>record is self.default_record:
            entry = self.default_entry
        else:
            entry = _entry_of(self.entries.get(<object>record))
        if entry != NULL:
            data = readable_bytes(<object>args[0])
            if data is not None:
                model = entry.whole(entry.read, entry.depth, <bytes>data, self.default_limits)
                if model is not None:
                    return model
    return PyObject_Vectorcall(self.python_parse, args, nargsf, kwnames)


cdef Py_ssize_t _vectorcall_offset():
    """Where a TablesFirst or an EntriesFirst keeps its vectorcall function."""
    cdef _StandsForParse probe = _StandsForParse.__new__(_StandsForParse)
    return <char*>&probe.vectorcall - <char*><PyObject*>probe


wirespec_use_vectorcall(<PyTypeObject*>TablesFirst, _vectorcall_offset())
wirespec_use_vectorcall(<PyTypeObject*>EntriesFirst, _vectorcall_offset())
