# cython: language_level=3
"""A generated module's ``parse`` with its table readers (``TABLE_READERS``, see
``generator/emit/compiled_tables.py``) tried first, from C: a message they take runs no Python
frame of the module (its ``parse``, then ``runtime.core.codec.parse_fast`` and the readers' own
calls cost about as much as reading a small message in C), and a call without limits makes
no tuple and no ``**limits`` dict (vectorcall)."""

from cpython.object cimport PyObject, PyTypeObject


cdef extern from "Python.h":
    Py_ssize_t PyVectorcall_NARGS(size_t nargsf)
    object PyObject_Vectorcall(object callable, PyObject** args, size_t nargsf, PyObject* kwnames)


cdef extern from *:
    """
    /* Calls of a TablesFirst take the vectorcall protocol: a call without keywords passes
       its arguments as an array, so no tuple and no dict is made. */
    static void wirespec_use_vectorcall(PyTypeObject *type, Py_ssize_t offset) {
        type->tp_vectorcall_offset = offset;
        type->tp_call = PyVectorcall_Call;
        type->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
    }
    """
    void wirespec_use_vectorcall(PyTypeObject* type, Py_ssize_t offset)


cdef class TablesFirst:
    """``python_parse`` with ``readers`` (record -> ``(data, limits) -> model or None``)
    tried first; ``python_parse`` decides whatever they decline (None), every call with
    limits, with the exact model or error. Called from C without keywords, it makes no
    tuple and no dict (vectorcall). It stands for the module's ``parse``: its name, module,
    docstring and signature (``__wrapped__``), a routine to ``help()`` and pickled by
    reference."""

    cdef void* vectorcall
    cdef dict readers
    cdef object default_reader, default_record, python_parse
    cdef dict no_limits
    cdef dict __dict__

    def __init__(self, python_parse, dict readers, default_record):
        self.vectorcall = <void*>_tables_first_call
        self.python_parse, self.readers, self.default_record = python_parse, readers, default_record
        # the default record's reader found once: readers is complete by now
        self.default_reader = readers.get(default_record)
        self.no_limits = {}
        for name in ("__module__", "__name__", "__qualname__", "__doc__"):
            setattr(self, name, getattr(python_parse, name))
        self.__wrapped__ = python_parse

    def __get__(self, instance, owner):
        return self  # a routine as functions are, to inspect and pydoc; never bound

    def __reduce__(self):
        return self.__qualname__  # the module's parse by name, as a function pickles


cdef object _tables_first_call(TablesFirst self, PyObject** args, size_t nargsf, PyObject* kwnames):
    """A call of a TablesFirst (the vectorcall protocol): ``parse(data)`` or ``parse(data,
    record)`` try the record's table reader with no limits given; anything else, and a
    decline, is the module's Python ``parse``, with the arguments as they came."""
    cdef Py_ssize_t nargs = PyVectorcall_NARGS(nargsf)
    if kwnames == NULL and 1 <= nargs <= 2:
        if nargs == 1 or <object>args[1] is self.default_record:
            reader = self.default_reader
        else:
            reader = self.readers.get(<object>args[1])
        if reader is not None:
            model = reader(<object>args[0], self.no_limits)
            if model is not None:
                return model
    return PyObject_Vectorcall(self.python_parse, args, nargsf, kwnames)


cdef Py_ssize_t _vectorcall_offset():
    """Where a TablesFirst keeps its vectorcall function."""
    cdef TablesFirst probe = TablesFirst.__new__(TablesFirst)
    return <char*>&probe.vectorcall - <char*><PyObject*>probe


wirespec_use_vectorcall(<PyTypeObject*>TablesFirst, _vectorcall_offset())
