# cython: language_level=3
"""The input a compiled reader takes from a caller's buffer, for ``dispatch.pyx``'s
``EntriesFirst`` (a generated module's ``parse``) and protobuf's ``Loop`` (``cimport``-ed:
inline, no call between extension modules). The readers read ``bytes``, and a lazy or
pending model keeps the ``bytes`` it was read from: a buffer its caller may change after
``parse`` is copied once, and only the part read.

A memoryview is read through the C buffer protocol (``PyBUF_SIMPLE``: its bytes as one
C-contiguous run, whatever its format and shape, the bytes ``bytes(view)`` makes), not
through its Python attributes: no more than a few dozen instructions over ``bytes``. A view
that is not C-contiguous, or released, is left to the Python reader, as is any type but
``bytes``, a bytearray or a memoryview (the Python tier refuses them with its TypeError)."""

from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_GET_SIZE
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.object cimport PyObject


cdef extern from "Python.h":
    ctypedef struct Py_buffer:
        void* buf
        PyObject* obj
        Py_ssize_t len
    enum:
        PyBUF_SIMPLE
    # not ``except -1``: a view refused is a decline, its error cleared
    int PyObject_GetBuffer(object obj, Py_buffer* view, int flags)
    void PyBuffer_Release(Py_buffer* view)
    void PyErr_Clear()
    Py_buffer* PyMemoryView_GET_BUFFER(object view)


cdef inline object _view_range(object view, Py_ssize_t* pos, Py_ssize_t* end, bint whole):
    """A memoryview's part for :func:`readable_bytes` (``whole``: ``end`` is set to its
    length) and :func:`readable_range`: the ``bytes`` it shows read in place (``pos`` and
    ``end`` moved to that object's offsets; for ``whole``, only a view of all of it), else a
    copy of the part; None when the view is released, not C-contiguous or shorter."""
    cdef Py_buffer b
    cdef Py_ssize_t at
    cdef PyObject* base
    if PyObject_GetBuffer(view, &b, PyBUF_SIMPLE) < 0:
        PyErr_Clear()
        return None
    try:
        if whole:
            end[0] = b.len
        if not 0 <= pos[0] <= end[0] <= b.len:
            return None
        base = b.obj  # what the view shows: a memoryview's own exporter (NULL: C memory)
        if base != NULL and type(<object>base) is memoryview:
            base = PyMemoryView_GET_BUFFER(<object>base).obj
        if base != NULL and type(<object>base) is bytes:
            at = <char*>b.buf - PyBytes_AS_STRING(<object>base)
            if 0 <= at and at + b.len <= PyBytes_GET_SIZE(<object>base):
                if not whole:
                    pos[0] += at
                    end[0] += at
                    return <object>base
                if at == 0 and b.len == PyBytes_GET_SIZE(<object>base):
                    return <object>base
        out = PyBytes_FromStringAndSize(<char*>b.buf + pos[0], end[0] - pos[0])
        end[0] -= pos[0]
        pos[0] = 0
        return out
    finally:
        PyBuffer_Release(&b)


cdef inline object readable_bytes(object data):
    """``data`` as ``bytes`` a compiled reader reads whole and a model may hold: ``bytes``
    and the ``bytes`` object a memoryview shows whole, themselves; a copy of a bytearray or
    of any other C-contiguous memoryview (a slice's offsets are the view's, as
    ``bytes(view)``'s are); None for any other input, or a released or strided view, which
    the Python reader decides (its model, or the exact error)."""
    cdef Py_ssize_t pos = 0, end = 0
    if type(data) is bytes:
        return data
    if type(data) is bytearray:
        return PyBytes_FromStringAndSize(PyByteArray_AS_STRING(data), PyByteArray_GET_SIZE(data))
    if type(data) is not memoryview:
        return None
    return _view_range(data, &pos, &end, True)


cdef inline object readable_range(object data, Py_ssize_t* pos, Py_ssize_t* end):
    """The ``bytes`` a compiled reader reads ``data[pos:end]`` from, with ``pos`` and
    ``end`` moved to its offsets: ``bytes``, and the ``bytes`` object a memoryview shows,
    read in place; else a copy of that part only (of a bytearray or C-contiguous
    memoryview). None for any other input, a released or strided view, or a range outside
    the buffer."""
    if type(data) is bytes:
        if not 0 <= pos[0] <= end[0] <= PyBytes_GET_SIZE(data):
            return None
        return data
    if type(data) is bytearray:
        if not 0 <= pos[0] <= end[0] <= PyByteArray_GET_SIZE(data):
            return None
        out = PyBytes_FromStringAndSize(PyByteArray_AS_STRING(data) + pos[0], end[0] - pos[0])
        end[0] -= pos[0]
        pos[0] = 0
        return out
    if type(data) is not memoryview:
        return None
    return _view_range(data, pos, end, False)
