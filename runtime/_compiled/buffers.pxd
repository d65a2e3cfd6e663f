# cython: language_level=3
"""The input a compiled reader takes from a caller's buffer, for ``dispatch.pyx``'s
``EntriesFirst`` (a generated module's ``parse``) and protobuf's ``Loop`` (``cimport``-ed:
inline, no call between extension modules). The readers read ``bytes``, and a lazy or
pending model keeps the ``bytes`` it was read from: a buffer its caller may change after
``parse`` is copied once."""

from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_GET_SIZE
from cpython.bytes cimport PyBytes_FromStringAndSize, PyBytes_GET_SIZE


cdef inline object readable_bytes(object data):
    """``data`` as ``bytes`` a compiled reader reads and a model may hold: ``bytes`` and
    the ``bytes`` object a memoryview shows whole, themselves; a copy of a bytearray or of
    another C-contiguous one-dimensional memoryview of unsigned bytes (a slice's offsets are
    the view's, as ``bytes(view)``'s are); None for any other input or a released view, which
    the Python reader decides (its model, or the exact error)."""
    if type(data) is bytes:
        return data
    if type(data) is bytearray:
        return PyBytes_FromStringAndSize(PyByteArray_AS_STRING(data), PyByteArray_GET_SIZE(data))
    if type(data) is not memoryview:
        return None
    view = <memoryview>data
    try:
        if view.format != "B" or view.ndim != 1 or not view.c_contiguous:
            return None
    except ValueError:  # released
        return None
    if type(view.obj) is bytes and view.nbytes == PyBytes_GET_SIZE(view.obj):
        return view.obj
    return view.tobytes()
