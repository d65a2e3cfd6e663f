# cython: language_level=3
"""Models reused once dead: a free list of one model per record, which a rendered plan
(``generator/emit/compiled.py``) writes the next message into instead of allocating a new one.

A model the reader returned last and that the caller has dropped is held by the reader's
own reference alone (reference count 1): it is dead to every caller, so writing the next
message's values into it gives exactly what a new model would, without freeing one and
allocating another (CPython keeps free lists of its own types for the same reason). The
same holds for a model in a slot of such a dead model when nothing else holds it (an
event's body). A model a caller still holds, directly or through another model, is never
touched.

Caveat: this reads reference counts, which is only sound under the GIL. On free-threaded
Python (3.13t) another thread may take a new reference to a model between the check and
the write; a build for it must not render reuse. Users may also see a new model with a
dropped one's ``id()``, as with any freed and reallocated object.

Inline functions only: a module that cimports them compiles them in."""

from cpython.object cimport PyObject


cdef extern from "Python.h":
    Py_ssize_t _refs "Py_REFCNT" (PyObject* obj)
    PyObject* _type_of "(PyObject*)Py_TYPE" (PyObject* obj)


cdef inline PyObject* spare(PyObject* model, type cls) noexcept:
    """``model`` when it is a ``cls`` that only its one holder refers to, else NULL
    (borrowed)."""
    if model == NULL or _refs(model) != 1 or _type_of(model) != <PyObject*>cls:
        return NULL
    return model


cdef inline PyObject* spare_slot(PyObject* model, Py_ssize_t offset, type cls) noexcept:
    """The model in slot ``offset`` of ``model`` (a spare one, or NULL) when it is a
    ``cls`` that only ``model`` refers to, else NULL (borrowed)."""
    if model == NULL:
        return NULL
    return spare((<PyObject**>((<char*>model) + offset))[0], cls)


cdef extern from "Python.h":
    ctypedef struct _ListObject "PyListObject":
        PyObject** ob_item
    Py_ssize_t _list_size "PyList_GET_SIZE" (PyObject* items)
    void _incref "Py_INCREF" (PyObject* obj)
    void _xdecref "Py_XDECREF" (PyObject* obj)


cdef inline PyObject* spare_list(PyObject* model, Py_ssize_t offset, Py_ssize_t count) noexcept:
    """The list of ``count`` items in slot ``offset`` of ``model`` (a spare one, or
    NULL) when only ``model`` refers to it, else NULL (borrowed)."""
    cdef PyObject* items
    if model == NULL:
        return NULL
    items = (<PyObject**>((<char*>model) + offset))[0]
    if items == NULL or _refs(items) != 1 or _type_of(items) != <PyObject*>list:
        return NULL
    if _list_size(items) != count:
        return NULL
    return items


cdef inline void list_put(list items, Py_ssize_t k, object value) noexcept:
    """Item ``k`` (in range) of a list made by ``PyList_New`` (its NULL) or a spare one
    (its old item, released): ``value``."""
    cdef PyObject** cells = (<_ListObject*><PyObject*>items).ob_item
    cdef PyObject* old = cells[k]
    _incref(<PyObject*>value)
    cells[k] = <PyObject*>value
    _xdecref(old)
