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

The elements of a big list can be pending one by one instead (:class:`Elements`,
:class:`PendingElement`): the reader checks each element as it reads the list (it builds
the element and drops it) and appends a model of the element's class whose slots all hold
one :class:`PendingElement` (the ``Elements`` and the element's offset); the first access
of any of its fields reads that element again and moves its slots in. So a list of a
million elements costs a model (its slots unset but for the span) and a 32-byte span each
until they are read, and reading one element builds that element alone.
"""

cimport cython
from cpython.object cimport PyObject

from cpython.ref cimport Py_INCREF, Py_XDECREF

from runtime._compiled.slots cimport (
    atomic, clear_slot, get_slot, keep_tracked, put_slot, slots_of, wirespec_alloc_untracked,
)


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


cdef class Elements:
    cdef object read(self, Py_ssize_t pos):
        """The element at ``pos`` as the eager reader builds it (None: it declines)."""
        raise NotImplementedError

    cdef int fill(self, PendingElement span, object model) except -1:
        """Read the element of ``span`` again and move its slots into ``model`` (whose
        slots all hold ``span``)."""
        cdef Py_ssize_t i
        cdef PyObject** into
        cdef PyObject** out
        cdef PyObject* old
        built = self.read(span.pos)
        if built is None or type(built) is not type(model):
            # checked when the list was read, from the same immutable bytes: unreachable
            raise RuntimeError(f"a checked {self.cls.__name__} at {span.pos} no longer reads")
        for i in range(self.n_slots):
            into = <PyObject**>((<char*><PyObject*>model) + self.slots[i])
            out = <PyObject**>((<char*><PyObject*>built) + self.slots[i])
            old = into[0]
            into[0] = out[0]
            out[0] = NULL
            Py_XDECREF(old)
        if not atomic(built):  # the eager reader tracked it: it holds what is not atomic
            keep_tracked(model)
        return 0


@cython.final
@cython.no_gc
@cython.freelist(64)
cdef class PendingElement:
    """A checked element not built yet: the value of each of its model's slots until the
    first access builds them. Refers to no model, so it is in no cycle."""

    def force(self, model):
        """Build every slot of ``model`` (a model whose slots hold this span)."""
        self.elements.fill(self, model)


cdef object pending_element(Elements elements, Py_ssize_t pos):
    """A model of ``elements.cls`` (untracked) whose slots all hold the element at ``pos``."""
    cdef PendingElement span = PendingElement.__new__(PendingElement)
    cdef Py_ssize_t i
    cdef PyObject** cell
    span.elements, span.pos = elements, pos
    model = wirespec_alloc_untracked(elements.cls)
    for i in range(elements.n_slots):
        cell = <PyObject**>((<char*><PyObject*>model) + elements.slots[i])
        Py_INCREF(span)
        cell[0] = <PyObject*>span
    return model


cdef inline int settle(object obj, PyObject* value) except -1:
    """Build ``obj`` if ``value`` (one of its slots) says it is pending."""
    if type(<object>value) is Pending:
        span = <Pending>value  # a reference of our own: building releases the slots'
        span.builder.fill(span, obj)
    elif type(<object>value) is PendingElement:
        element = <PendingElement>value
        element.elements.fill(element, obj)
    return 0


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
        if type(<object>value) is Pending or type(<object>value) is PendingElement:
            settle(obj, value)
            value = get_slot(obj, self.offset)
        return <object>value

    def __set__(self, obj, value):
        if not isinstance(obj, self.cls):
            self.member.__set__(obj, value)
            return
        cdef PyObject* old = get_slot(obj, self.offset)
        if old != NULL:
            settle(obj, old)
        put_slot(obj, self.offset, value)

    def __delete__(self, obj):
        if not isinstance(obj, self.cls):
            self.member.__delete__(obj)
            return
        cdef PyObject* old = get_slot(obj, self.offset)
        if old != NULL:
            settle(obj, old)
        if get_slot(obj, self.offset) == NULL:
            self.member.__delete__(obj)  # its AttributeError
        clear_slot(obj, self.offset)


cdef dict slot_offsets(cls, list names):
    """The slot offsets of ``names`` in ``cls`` (``slots_of``'s checks), whether or not
    :func:`lazy_slots` put its :class:`LazySlot`\ s over them."""
    have = [cls.__dict__.get(name) for name in names]
    if all(type(d) is LazySlot for d in have):
        return {name: (<LazySlot>d).offset for name, d in zip(names, have)}
    return slots_of(cls, names)


cdef dict lazy_slots(cls, list names):
    """The slot offsets of ``names`` in ``cls`` (``slots_of``'s checks), each slot read
    through a :class:`LazySlot` from here on (put once per class)."""
    cdef LazySlot lazy
    if all(type(cls.__dict__.get(name)) is LazySlot for name in names):
        return slot_offsets(cls, names)
    offsets = slots_of(cls, names)
    for name in names:
        if name not in cls.__dict__:
            raise TypeError(f"{cls.__name__}.{name} is a slot of a base class")
        lazy = LazySlot.__new__(LazySlot)
        lazy.cls, lazy.member, lazy.offset = cls, cls.__dict__[name], offsets[name]
        setattr(cls, name, lazy)
    return offsets
