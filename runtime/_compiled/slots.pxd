# cython: language_level=3
"""Models made in C: instances of ``slots=True`` dataclasses allocated as ``object.__new__``
allocates them, their slots written at their offsets (found once from the class's member
descriptors), so no attribute lookup runs per field. Inline functions only: a module that
cimports them (``from runtime._compiled.slots cimport new_model, put_slot``) compiles them in
and needs no module of this name at run time."""

from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.ref cimport Py_INCREF, Py_XDECREF, PyObject


cdef extern from "Python.h":
    object PyType_GenericAlloc(type cls, Py_ssize_t nitems)


cdef extern from "structmember.h":  # PyMemberDef (in Python.h itself from 3.12 on)
    ctypedef struct PyMemberDef:
        int type
        Py_ssize_t offset
        int flags
    ctypedef struct PyMemberDescrObject:
        PyMemberDef* d_member
    int T_OBJECT_EX
    int READONLY


cdef inline Py_ssize_t slot_offset(cls, str name) except -1:
    """The offset of ``name``'s slot in instances of ``cls`` (a ``slots=True`` dataclass)."""
    import types

    for klass in cls.__mro__:
        descr = klass.__dict__.get(name)
        if descr is not None:
            break
    else:
        raise TypeError(f"{cls.__name__} has no slot {name!r}")
    if type(descr) is not types.MemberDescriptorType:
        raise TypeError(f"{cls.__name__}.{name} is not a slot")
    cdef PyMemberDef* member = (<PyMemberDescrObject*><PyObject*>descr).d_member
    if member.type != T_OBJECT_EX or member.flags & READONLY:
        raise TypeError(f"{cls.__name__}.{name} is not a writable object slot")
    return member.offset


cdef inline dict slots_of(cls, names):
    """Offsets of ``names`` in ``cls``; ``names`` must be all of its dataclass fields, and
    ``cls`` made by ``object.__new__`` alone (so :func:`new_model` makes what it makes)."""
    import dataclasses

    if type(cls) is not type or cls.__new__ is not object.__new__:
        raise TypeError(f"{cls.__name__} is not made by object.__new__ alone")
    fields = [f.name for f in dataclasses.fields(cls)]
    if sorted(fields) != sorted(names):
        raise TypeError(f"{cls.__name__}: the table covers {sorted(names)}, the model {fields}")
    return {name: slot_offset(cls, name) for name in names}


cdef inline object new_model(type cls):
    """``object.__new__(cls)`` of a class checked by :func:`slots_of`: its memory, zeroed
    and tracked, every slot unset."""
    return PyType_GenericAlloc(cls, 0)


cdef inline void put_slot(object obj, Py_ssize_t offset, object value) noexcept:
    """Write a slot of a model (its old value, if any, released)."""
    cdef PyObject** cell = <PyObject**>((<char*><PyObject*>obj) + offset)
    Py_INCREF(value)
    Py_XDECREF(cell[0])
    cell[0] = <PyObject*>value


cdef inline PyObject* get_slot(object obj, Py_ssize_t offset) noexcept:
    """A slot's value (NULL while unset); borrowed."""
    return (<PyObject**>((<char*><PyObject*>obj) + offset))[0]


cdef inline void clear_slot(object obj, Py_ssize_t offset) noexcept:
    """Unset a slot of a model (its value, if any, released)."""
    cdef PyObject** cell = <PyObject**>((<char*><PyObject*>obj) + offset)
    cdef PyObject* old = cell[0]
    cell[0] = NULL
    Py_XDECREF(old)


# -- the cyclic GC ---------------------------------------------------------------------------
# CPython does not track a tuple that holds only atomic values: it can be in no reference
# cycle. The compiled readers apply the same rule to the models they build and the lists they
# fill (generator/emit/untracked.py): a model whose slots hold only atomic values is allocated
# untracked (or untracked once they are written), a list of atomic values untracked once it
# is filled, so collections do not walk them. Caveat (generator/README.md): a user who later
# makes such a model or list part of a cycle leaks that cycle; nothing crashes.


cdef extern from "Python.h":
    int PyObject_GC_IsTracked(PyObject* obj)
    void PyObject_GC_UnTrack(void* obj)
    void PyObject_GC_Track(void* obj)
    bint _is_int "PyLong_Check" (PyObject* obj)


cdef extern from *:
    """
    /* object.__new__(cls) as CPython 3.11's PyType_GenericAlloc makes it (the GC header
       linked and counted, the body zeroed, the heap type's reference taken), less the
       tracking: a model that will hold only atomic values is never tracked at all. */
    static PyObject *wirespec_alloc_untracked(PyObject *cls) {
        PyTypeObject *tp = (PyTypeObject *)cls;
        PyObject *obj;
        if (tp->tp_alloc != PyType_GenericAlloc || tp->tp_itemsize != 0
                || !PyType_IS_GC(tp)) {
            obj = tp->tp_alloc(tp, 0);
            if (obj != NULL && PyObject_GC_IsTracked(obj)) {
                PyObject_GC_UnTrack(obj);
            }
            return obj;
        }
        obj = _PyObject_GC_New(tp);
        if (obj != NULL) {
            memset((char *)obj + sizeof(PyObject), 0,
                   (size_t)tp->tp_basicsize - sizeof(PyObject));
        }
        return obj;
    }
    """
    object wirespec_alloc_untracked(object cls)


cdef inline object new_untracked_model(type cls):
    """:func:`new_model`, untracked: for a model that will hold only atomic values (a
    model untracked this way need not be untracked again)."""
    return wirespec_alloc_untracked(cls)


cdef inline bint atomic(object value) noexcept:
    """Whether ``value`` is in no cycle the collector must find: not tracked by it (None,
    numbers, text, bytes, an untracked model), or an int (an IntEnum member: held by its
    class for good anyway)."""
    return _is_int(<PyObject*>value) or not PyObject_GC_IsTracked(<PyObject*>value)


cdef inline void untrack(object model) noexcept:
    """A model whose slots hold only atomic values, or a list of them, taken out of the
    collector's lists (if it is in them)."""
    PyObject_GC_UnTrack(<void*><PyObject*>model)


cdef inline void keep_tracked(object model) noexcept:
    """A model (or list) that holds what is not atomic: tracked, if it is not yet (one
    allocated untracked, or a dead one reused)."""
    if not PyObject_GC_IsTracked(<PyObject*>model):
        PyObject_GC_Track(<void*><PyObject*>model)


cdef inline bint all_atomic(object items) noexcept:
    """Whether every item of the list ``items`` is :func:`atomic`."""
    cdef Py_ssize_t i
    for i in range(PyList_GET_SIZE(items)):
        if not atomic(<object>PyList_GET_ITEM(items, i)):
            return False
    return True
