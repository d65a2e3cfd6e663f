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
    """The offset of ``name``'s slot in instances of ``cls`` (a ``slots=True`` dataclass):
    what ``model.name`` reads and writes, found as attribute lookup finds it (the first class
    of the MRO that has the name). The one way the compiled tier finds a slot (the generated
    ``bind``, mapped.pxd, unmapped.pxd): a name that is no writable object slot there raises
    this one TypeError."""
    import types

    for klass in cls.__mro__:
        if name in klass.__dict__:
            descr = klass.__dict__[name]
            break
    else:
        descr = None
    if type(descr) is not types.MemberDescriptorType:
        raise TypeError(f"{cls.__name__}.{name} is not a writable object slot")
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


cdef inline Py_ssize_t slot_offset_if_any(cls, str name) except -2:
    """:func:`slot_offset`, or -1 where ``name`` is no writable object slot of ``cls`` (a
    writer then looks it up: :func:`slot_value`)."""
    try:
        return slot_offset(cls, name)
    except TypeError:
        return -1


cdef inline object slot_value(object obj, Py_ssize_t offset, str name):
    """``getattr(obj, name)`` of a model of the class ``offset`` was found in
    (:func:`slot_offset_if_any`): its slot read, no attribute look-up; an unset slot raises
    the AttributeError getattr raises.

    >>> # slot_value(element, _wslot_Element_key, "key") is element.key
    """
    cdef PyObject* value
    if offset < 0:
        return getattr(obj, name)
    value = get_slot(obj, offset)
    if value is NULL:
        raise AttributeError(name)
    return <object>value


cdef inline object slot_value_or_none(object obj, Py_ssize_t offset, str name):
    """``getattr(obj, name, None)`` as :func:`slot_value` reads it."""
    cdef PyObject* value
    if offset < 0:
        return getattr(obj, name, None)
    value = get_slot(obj, offset)
    return None if value is NULL else <object>value


cdef inline void clear_slot(object obj, Py_ssize_t offset) noexcept:
    """Unset a slot of a model (its value, if any, released)."""
    cdef PyObject** cell = <PyObject**>((<char*><PyObject*>obj) + offset)
    cdef PyObject* old = cell[0]
    cell[0] = NULL
    Py_XDECREF(old)


# -- freeing and reusing a model --------------------------------------------------------------
# A class made by a class statement is freed by CPython's generic subtype_dealloc: it walks the
# bases twice, checks for finalizers, weak references and a dict, clears the slots through each
# base's member table, and always takes the trashcan's bookkeeping; then the memory goes back
# to the allocator, and the next model takes it again (GC header linked and counted, body
# zeroed). A model class has none of these extras: its instances are the object header and
# object slots. ``free_fast`` installs ``wirespec_model_dealloc`` on such a class (bind does,
# for each class a compiled module fills): the slots cleared in one sweep, and the memory kept
# on a free list of its size for the next model the module allocates, as CPython keeps its
# own floats and tuples. A subclass keeps CPython's dealloc, which calls this one as its
# base's (and its models are not kept). Caveats as reuse.pxd's: a new model may have a dropped
# one's ``id()``; not for free-threaded Python (no GIL to guard the lists).


cdef extern from *:
    """
    #ifndef WIRESPEC_ALWAYS_INLINE
    #if defined(__GNUC__)
    #define WIRESPEC_ALWAYS_INLINE static inline __attribute__((always_inline))
    #else
    #define WIRESPEC_ALWAYS_INLINE static inline
    #endif
    #endif
    /* models of 1 to 24 slots are kept (the widest a compiled module fills, Kafka's
       Batch, has 17; a size no model has costs its two array cells alone) ... */
    #define WIRESPEC_KEPT_SLOTS 24
    #define WIRESPEC_KEPT 2000       /* ... up to 2000 of each size, as CPython keeps tuples */
    #define WIRESPEC_NESTED 50       /* models freed inside models before the trashcan */
    /* Free models by their number of slots, linked through their first slot. */
    static PyObject *wirespec_kept[WIRESPEC_KEPT_SLOTS + 1];
    static int wirespec_kept_n[WIRESPEC_KEPT_SLOTS + 1];  /* how many of each */
    static int wirespec_freeing = 0;

    static void wirespec_model_dealloc(PyObject *self);

    /* the number of slots of a model class (its layout checked by wirespec_plain_layout) */
    #define WIRESPEC_SLOTS(tp) \
        (((size_t)(tp)->tp_basicsize - sizeof(PyObject)) / sizeof(PyObject *))

    /* Lists a freed model alone held, emptied and kept for the lists the module's readers
       fill next (as CPython keeps 80 lists): untracked, each a reference held here. */
    static PyObject *wirespec_lists[WIRESPEC_KEPT];
    static int wirespec_lists_n = 0;

    /* Release a slot's value: a list nothing else holds is kept (its items released as
       list_dealloc releases them, its memory for items freed), anything else decref'd. */
    WIRESPEC_ALWAYS_INLINE void wirespec_release(PyObject *value) {
        PyListObject *list;
        PyObject **items;
        Py_ssize_t i;
        if (value == NULL) return;
        if (!PyList_CheckExact(value) || Py_REFCNT(value) != 1
                || wirespec_lists_n >= WIRESPEC_KEPT) {
            Py_DECREF(value);
            return;
        }
        list = (PyListObject *)value;
        items = list->ob_item;
        i = Py_SIZE(list);
        if (PyObject_GC_IsTracked(value)) PyObject_GC_UnTrack(value);
        /* empty before it is kept: releasing the items may run code that takes it */
        Py_SET_SIZE(list, 0);
        list->ob_item = NULL;
        list->allocated = 0;
        wirespec_lists[wirespec_lists_n++] = value;
        if (items != NULL) {
            while (--i >= 0) Py_XDECREF(items[i]);
            PyMem_Free(items);
        }
    }

    /* An empty list as [] makes it (a new reference, tracked): a kept one, or a new one. */
    static inline PyObject *wirespec_new_list(void) {
        PyObject *list;
        if (wirespec_lists_n == 0) return PyList_New(0);
        list = wirespec_lists[--wirespec_lists_n];
        PyObject_GC_Track(list);
        return list;
    }

    WIRESPEC_ALWAYS_INLINE void wirespec_model_free(PyObject *self, PyTypeObject *tp,
                                                    PyTypeObject *model) {
        size_t n = WIRESPEC_SLOTS(model);
        PyObject **slots = (PyObject **)((char *)self + sizeof(PyObject));
        PyObject *value;
        for (size_t i = 0; i < n; i++) {
            value = slots[i];
            slots[i] = NULL;
            wirespec_release(value);
        }
        if (tp == model && 0 < n && n <= WIRESPEC_KEPT_SLOTS
                && wirespec_kept_n[n] < WIRESPEC_KEPT) {
            /* untracked (its GC header clear): a model as the allocator gives it */
            slots[0] = wirespec_kept[n];
            wirespec_kept[n] = self;
            wirespec_kept_n[n]++;
        } else {
            tp->tp_free(self);
        }
        Py_DECREF(tp);
    }

    static void wirespec_model_dealloc(PyObject *self) {
        PyTypeObject *tp = Py_TYPE(self);
        PyTypeObject *model = tp;
        /* a subclass's subtype_dealloc calls this as its base's: the model class's layout */
        while (model->tp_dealloc != wirespec_model_dealloc) model = model->tp_base;
        PyObject_GC_UnTrack(self);
        if (wirespec_freeing < WIRESPEC_NESTED) {
            /* shallow: the C stack holds it (a count over all threads, so never under
               this thread's own depth) */
            wirespec_freeing++;
            wirespec_model_free(self, tp, model);
            wirespec_freeing--;
            return;
        }
        /* deep, as subtype_dealloc: the rest freed from a list, not the C stack */
        Py_TRASHCAN_BEGIN(self, wirespec_model_dealloc)
        wirespec_model_free(self, tp, model);
        Py_TRASHCAN_END
    }

    /* A kept model of cls (a new reference, untracked, every slot unset), or NULL. */
    static inline PyObject *wirespec_kept_model(PyTypeObject *tp) {
        size_t n;
        PyObject *obj;
        if (tp->tp_dealloc != wirespec_model_dealloc) return NULL;
        n = WIRESPEC_SLOTS(tp);
        if (n > WIRESPEC_KEPT_SLOTS || (obj = wirespec_kept[n]) == NULL) return NULL;
        wirespec_kept[n] = *(PyObject **)((char *)obj + sizeof(PyObject));
        wirespec_kept_n[n]--;
        *(PyObject **)((char *)obj + sizeof(PyObject)) = NULL;
    #if PY_VERSION_HEX < 0x030C0000
        /* PyObject_Init's own steps (3.11), inline: its call and NULL check are a third
           of a small model's allocation */
        Py_SET_TYPE(obj, tp);
        if (tp->tp_flags & Py_TPFLAGS_HEAPTYPE) Py_INCREF(tp);
        _Py_NewReference(obj);
        return obj;
    #else
        return PyObject_Init(obj, tp);
    #endif
    }

    /* Whether the instances of cls (its own dealloc, as a class statement makes it, down
       to object) hold nothing but the header and object slots that nothing else frees. */
    static int wirespec_plain_layout(PyObject *type) {
        PyTypeObject *cls = (PyTypeObject *)type, *base;
        unsigned long managed = 0;
    #ifdef Py_GIL_DISABLED
        return 0;
    #endif
    #ifdef Py_TPFLAGS_MANAGED_DICT
        managed |= Py_TPFLAGS_MANAGED_DICT;
    #endif
    #ifdef Py_TPFLAGS_MANAGED_WEAKREF
        managed |= Py_TPFLAGS_MANAGED_WEAKREF;
    #endif
        if (!PyType_IS_GC(cls) || cls->tp_free != PyObject_GC_Del || cls->tp_itemsize
                || cls->tp_alloc != PyType_GenericAlloc || cls->tp_dictoffset
                || cls->tp_weaklistoffset || cls->tp_flags & managed || cls->tp_finalize
                || cls->tp_del)
            return 0;
        for (base = cls; base != &PyBaseObject_Type; base = base->tp_base) {
            if (base == NULL || !(base->tp_flags & Py_TPFLAGS_HEAPTYPE)
                    || base->tp_dealloc != cls->tp_dealloc)
                return 0;
        }
        return 1;
    }
    static int wirespec_freed_fast(PyObject *cls) {
        return ((PyTypeObject *)cls)->tp_dealloc == wirespec_model_dealloc;
    }
    static void wirespec_free_fast(PyObject *cls) {
        ((PyTypeObject *)cls)->tp_dealloc = wirespec_model_dealloc;
    }
    """
    list new_list "wirespec_new_list" ()
    bint wirespec_plain_layout(PyObject* cls) noexcept
    bint wirespec_freed_fast(PyObject* cls) noexcept
    void wirespec_free_fast(PyObject* cls) noexcept


cdef inline bint free_fast(type cls) except -1:
    """Free the models of ``cls`` (a ``slots=True`` dataclass) with ``wirespec_model_dealloc``
    where its instances are the object header and writable object slots alone; whether it
    does."""
    import types

    if wirespec_freed_fast(<PyObject*>cls):
        return True
    if not wirespec_plain_layout(<PyObject*>cls):
        return False
    offsets = []
    for klass in cls.__mro__[:-1]:
        for descr in klass.__dict__.values():
            if type(descr) is types.MemberDescriptorType:
                member = (<PyMemberDescrObject*><PyObject*>descr).d_member
                if member.type != T_OBJECT_EX or member.flags & READONLY:
                    return False
                offsets.append(member.offset)
    if sorted(offsets) != list(range(sizeof(PyObject), cls.__basicsize__, sizeof(PyObject*))):
        return False
    wirespec_free_fast(<PyObject*>cls)
    return True


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
       linked and counted, the body zeroed, the heap type's reference taken), or a kept
       model of its size, less the tracking: a model that will hold only atomic values is
       never tracked at all. */
    static PyObject *wirespec_alloc_untracked(PyObject *cls) {
        PyTypeObject *tp = (PyTypeObject *)cls;
        PyObject *obj = wirespec_kept_model(tp);
        if (obj != NULL) return obj;
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
    /* A model as object.__new__ makes it (tracked), or a kept one. */
    static PyObject *wirespec_alloc(PyObject *cls) {
        PyObject *obj = wirespec_kept_model((PyTypeObject *)cls);
        if (obj == NULL) return ((PyTypeObject *)cls)->tp_alloc((PyTypeObject *)cls, 0);
        PyObject_GC_Track(obj);
        return obj;
    }
    """
    object wirespec_alloc_untracked(object cls)
    object wirespec_alloc(object cls)


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
