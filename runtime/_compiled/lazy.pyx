# cython: language_level=3
"""Lazy models, as the compiled readers hand them out (protobuf.pyx, and the readers
rendered from the lowering: generated/_compiled/<format>.pyx).

A reader checks a whole record first (every check its eager reader makes, no objects made)
and hands out a model whose slots all hold one :class:`Pending`: the input ``bytes`` and
the record's span. :func:`lazy_slots` puts a :class:`LazySlot` over each slot of the model
classes: the first read, write or delete of any field builds every field of the model
(:meth:`Builder.fill`, the eager reader over the span), so every attribute, ``==``, repr,
pickling and the writers see the model the eager reader made. A model never looked at
costs its check and two objects; the input stays alive while a model of it is pending.
"""

cimport cython
from cpython.object cimport PyObject

from runtime._compiled.slots cimport clear_slot, get_slot, put_slot, slots_of


cdef class Builder:
    cdef int fill(self, Pending span, object model) except -1:
        """Build every slot of ``model`` (whose slots hold ``span``)."""
        raise NotImplementedError


@cython.final
@cython.no_gc
@cython.freelist(32)
cdef class Pending:
    """A checked record not built yet: the value of each of its model's slots until the
    first access builds them all. Refers to no model, so it is in no cycle."""

    def force(self, model):
        """Build every slot of ``model`` (a model whose slots hold this span)."""
        self.builder.fill(self, model)


cdef Pending new_pending(Builder builder, bytes buf, Py_ssize_t pos, Py_ssize_t end, int kind,
                        int depth):
    """The span ``buf[pos:end]`` of record ``kind``, built by ``builder``."""
    cdef Pending span = Pending.__new__(Pending)
    span.builder, span.buf, span.kind = builder, buf, kind
    span.pos, span.end, span.depth = pos, end, depth
    return span


@cython.final
cdef class LazySlot:
    """A field of a model class, in place of its slot's ``member_descriptor``: the same
    reads, writes and deletes, after building the model while its slots are
    :class:`Pending`. On the class it gives the slot's own descriptor."""

    cdef type cls
    cdef object member
    cdef Py_ssize_t offset

    @property
    def slot_offset(self):
        """The offset of the slot in the class's instances."""
        return self.offset

    def __get__(self, obj, owner):
        if obj is None or not isinstance(obj, self.cls):
            return self.member.__get__(obj, owner)
        cdef PyObject* value = get_slot(obj, self.offset)
        if value == NULL:
            return self.member.__get__(obj, owner)  # its AttributeError
        if type(<object>value) is Pending:
            (<Pending>value).builder.fill(<Pending>value, obj)
            value = get_slot(obj, self.offset)
        return <object>value

    def __set__(self, obj, value):
        if not isinstance(obj, self.cls):
            self.member.__set__(obj, value)
            return
        cdef PyObject* old = get_slot(obj, self.offset)
        if old != NULL and type(<object>old) is Pending:
            (<Pending>old).builder.fill(<Pending>old, obj)
        put_slot(obj, self.offset, value)

    def __delete__(self, obj):
        if not isinstance(obj, self.cls):
            self.member.__delete__(obj)
            return
        cdef PyObject* old = get_slot(obj, self.offset)
        if old != NULL and type(<object>old) is Pending:
            (<Pending>old).builder.fill(<Pending>old, obj)
        if get_slot(obj, self.offset) == NULL:
            self.member.__delete__(obj)  # its AttributeError
        clear_slot(obj, self.offset)


cdef dict lazy_slots(cls, list names):
    """The slot offsets of ``names`` in ``cls`` (``slots_of``'s checks), each slot read
    through a :class:`LazySlot` from here on (put once per class)."""
    cdef LazySlot lazy
    have = [cls.__dict__.get(name) for name in names]
    if all(type(d) is LazySlot for d in have):
        return {name: (<LazySlot>d).offset for name, d in zip(names, have)}
    offsets = slots_of(cls, names)
    for name in names:
        if name not in cls.__dict__:
            raise TypeError(f"{cls.__name__}.{name} is a slot of a base class")
        lazy = LazySlot.__new__(LazySlot)
        lazy.cls, lazy.member, lazy.offset = cls, cls.__dict__[name], offsets[name]
        setattr(cls, name, lazy)
    return offsets
