# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""One typed loop that reads any Thrift Compact struct from its field table.

A generated Thrift module (``generator/emit/templates/thrift_module.py.j2``) emits
``FIELD_TABLES``: per struct its class, its charge against the expansion budget and its
fields (id, attribute, required, type tree with compact type ids). :func:`load` turns them
into C arrays once, at the module's import; :meth:`Loop.parse` then reads a message with C
integers over ``const unsigned char*``, checking every length against the bytes left
before reading or allocating, and writes the model's slots directly.

It gives exactly the model the module's Python reader gives (same classes, slot values,
wire layouts, kept bytes, unknown fields, budget charges and limits) or declines with ``None``: on
anything it does not take or any error, the Python reader runs and gives the model or the
exact ``DecodeError``. Rare paths call the module's own Python helpers (``_skip`` for a
field the struct does not expect, ``_layout`` for a struct laid out otherwise than build()
would, ``rt.keep_bytes`` for one whose bytes hold a form build() writes otherwise: a
longer varint than it needs, a stop byte 0xN0, a bool element other than 1 or 2, a map
key twice), so they are the Python reader's by construction.

:meth:`Loop.build` writes a model from the same tables, or declines (wire layouts, values
of other types, out of range) so that the Python writer writes it or raises its
``EncodeError``.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_FromDouble
from cpython.long cimport PyLong_FromLong, PyLong_FromLongLong
from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF, Py_XDECREF
from cpython.unicode cimport PyUnicode_AsUTF8AndSize, PyUnicode_DecodeUTF8
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy

from runtime._compiled.out cimport Out, put, put_byte, put_uvarint
from runtime._compiled.slots cimport (
    all_atomic, atomic, keep_tracked, new_untracked_model, slot_offset, untrack,
)
from runtime._compiled.thrift_raw_writers cimport (
    CT_FALSE, CT_STOP, CT_TRUE, LONG_SIZE, MAX_C_DEPTH, SHORT_DELTA_MAX, build_raw_model, int_value,
    put_zigzag,
)

import uuid as _uuid

from runtime.formats import thrift_compact as _rt


cdef extern from "Python.h":
    ctypedef struct TypeObject "PyTypeObject":
        PyObject* (*tp_alloc)(TypeObject*, Py_ssize_t) except NULL


cdef extern from "Python.h":
    int PyGC_Disable()
    int PyGC_Enable()


# Value kinds of a type node (the type trees' names, see _KINDS).
cdef enum Kind:
    K_BOOL, K_I8, K_I16, K_I32, K_I64, K_DOUBLE, K_STRING, K_BINARY, K_UUID, K_ENUM,
    K_STRUCT, K_LIST, K_SET, K_MAP

_KINDS = {
    "bool": K_BOOL, "i8": K_I8, "i16": K_I16, "i32": K_I32, "i64": K_I64,
    "double": K_DOUBLE, "string": K_STRING, "binary": K_BINARY, "uuid": K_UUID,
    "enum": K_ENUM, "struct": K_STRUCT, "list": K_LIST, "set": K_SET, "map": K_MAP,
}

cdef long long STRUCT_BYTES = _rt.STRUCT_BYTES
cdef long long LIST_BYTES = _rt.LIST_BYTES
cdef long long MAP_BYTES = _rt.MAP_BYTES
cdef long long MAP_ENTRY_BYTES = _rt.MAP_ENTRY_BYTES
cdef long long EXPANSION = _rt.EXPANSION
cdef long long EXPANSION_SLACK = _rt.EXPANSION_SLACK


cdef struct Node:
    int kind
    int ct            # compact type id on the wire (bool: CT_TRUE)
    int elem          # list/set element, map value: a node index
    int key           # map key: a node index
    int struct_index  # K_STRUCT: which struct
    int min_bytes     # fewest bytes one element takes (TType.min_bytes)
    long long cost    # charged per element of a container of this type, besides its slot
    PyObject* enum_by_value  # K_ENUM: value -> member (borrowed; Loop.keep holds it)


cdef struct Field:
    long long id
    int node
    int required
    Py_ssize_t offset  # of its slot in an instance


cdef struct Struct:
    TypeObject* cls
    int first  # index of its first field in Loop.fields
    int count
    int is_union
    long long charge  # an instance, charged where it is a field's value or an element
    Py_ssize_t layout_offset
    PyObject* known  # field id -> compact type, the module's _KNOWN_<name>


cdef struct Ctx:
    const unsigned char* buf
    Py_ssize_t pos
    Py_ssize_t end
    long long left  # the expansion budget
    long long max_count
    long long max_string
    long long max_depth
    int utf8  # 0 strict, 1 replace, 2 bytes
    PyObject* data  # the bytes object (for the Python helpers)
    PyObject* cx
    int inexact  # the struct being read holds a form build() writes otherwise (kept bytes)


class _Decline(Exception):
    """Not mine: the Python reader decides."""


cdef object DECLINE = _Decline()


cdef class Loop:
    """The field tables of one generated module, as C arrays, and the reader over them."""

    cdef Node* nodes
    cdef int n_nodes
    cdef Field* fields
    cdef int n_fields
    cdef Struct* structs
    cdef int n_structs
    cdef dict index  # struct name -> its index
    cdef list keep  # Python objects the arrays point to
    cdef object skip
    cdef object layout
    cdef object last_cx
    cdef long long cx_vals[5]

    def __dealloc__(self):
        free(self.nodes)
        free(self.fields)
        free(self.structs)

    def parse(self, record, data, cx):
        """The model of all of ``data`` as struct ``record`` (``parse_with``), or None:
        not mine."""
        if type(data) is not bytes:
            if not isinstance(data, (bytearray, memoryview)):
                return None
            data = bytes(data)
        cdef Py_ssize_t n = len(data)
        cdef Ctx c
        if self.options(&c, cx) < 0 or n > self.cx_vals[0]:
            return None
        c.left = EXPANSION * n + EXPANSION_SLACK
        model = self.read(&c, record, data, 0, n, 1)
        if model is None or c.pos != n:
            return None
        return model

    def read_at(self, record, buf, Py_ssize_t pos, Py_ssize_t end, int depth, cx, list left):
        """A generated reader's call (``_r_<record>(buf, pos, end, depth, cx, left)``):
        (model, position after it) with ``left[0]`` charged, or None: not mine."""
        cdef Ctx c
        if type(buf) is not bytes or self.options(&c, cx) < 0 or not 0 <= pos <= end <= len(buf):
            return None
        if type(left[0]) is not int or not 0 <= left[0] < 1 << 62:  # uncharged: not mine
            return None
        c.left = left[0]
        model = self.read(&c, record, buf, pos, end, depth)
        if model is None:
            return None
        left[0] = c.left
        return model, c.pos

    cdef int options(self, Ctx* c, cx) except -2:
        """Copy the limits of ``cx`` (an ``rt.Options``) into ``c``; -1 when not mine."""
        if cx is not self.last_cx:
            if cx.utf8 not in ("strict", "replace", "bytes"):
                return -1
            self.cx_vals[0] = cx.max_message_bytes
            self.cx_vals[1] = cx.max_depth
            self.cx_vals[2] = cx.max_count
            self.cx_vals[3] = cx.max_string
            self.cx_vals[4] = ("strict", "replace", "bytes").index(cx.utf8)
            self.last_cx = cx
        c.max_depth = self.cx_vals[1]
        c.max_count = self.cx_vals[2]
        c.max_string = self.cx_vals[3]
        c.utf8 = <int>self.cx_vals[4]
        c.cx = <PyObject*>cx
        return 0

    def build(self, record, model):
        """The bytes of ``model`` (a struct ``record`` made by parse or a user), or None:
        not mine."""
        return build_model(self, record, model)

    def build_raw(self, model, classes):
        """The bytes of ``model``, a ``classes[0]`` (the module's RawStruct, RawField,
        RawList, RawMap), or None: not mine."""
        return build_raw_model(model, classes)

    cdef object read(self, Ctx* c, record, bytes data, Py_ssize_t pos, Py_ssize_t end, int depth):
        si = self.index.get(record)
        if si is None:
            return None
        c.buf = <const unsigned char*>data
        c.pos = pos
        c.end = end
        c.data = <PyObject*>data
        c.inexact = 0
        # A model is a tree of new objects: the garbage collector would traverse it again
        # every 700 allocations while it grows (75% of the time of a 25 KB Parquet
        # footer), and it can find no cycle in it. So it is paused while the tree grows
        # and collects as usual after.
        cdef int collecting = PyGC_Disable()
        try:
            return read_struct(self, c, <int>si, depth)
        except Exception:
            return None
        finally:
            if collecting:
                PyGC_Enable()


def load(tables, skip, layout):
    """A :class:`Loop` over a module's ``FIELD_TABLES``, with its ``_skip`` and ``_layout``.

    Raises ValueError when a class is not laid out as a slots dataclass (the module then
    keeps to its Python reader)."""
    cdef Loop loop = Loop.__new__(Loop)
    loop.index = {name: i for i, name in enumerate(tables)}
    loop.keep = []
    loop.skip, loop.layout = skip, layout
    loop.n_structs = len(tables)
    loop.n_fields = sum(len(row[4]) for row in tables.values())
    loop.structs = <Struct*>calloc(max(loop.n_structs, 1), sizeof(Struct))
    loop.fields = <Field*>calloc(max(loop.n_fields, 1), sizeof(Field))
    nodes = []  # flattened type trees: (kind, ct, elem, key, struct_index, min_bytes, enum)
    cdef int fi = 0
    cdef Struct* s
    for si, (name, (cls, kind, charge, known, fields)) in enumerate(tables.items()):
        offsets = _slot_offsets(cls, [f[1] for f in fields] + ["wire_layout"])
        s = &loop.structs[si]
        s.cls = <TypeObject*>cls
        s.first, s.count = fi, len(fields)
        s.is_union = kind == "union"
        s.charge = charge
        s.layout_offset = offsets[len(fields)]
        s.known = <PyObject*>known
        loop.keep += [cls, known]
        for j, (fid, attr, required, tree) in enumerate(fields):
            loop.fields[fi].id = fid
            loop.fields[fi].required = bool(required)
            loop.fields[fi].offset = offsets[j]
            loop.fields[fi].node = _flatten(tree, loop.index, nodes)
            fi += 1
    loop.n_nodes = len(nodes)
    loop.nodes = <Node*>calloc(max(loop.n_nodes, 1), sizeof(Node))
    cdef Node* t
    for i, (kind, ct, elem, key, struct_index, min_bytes, enum) in enumerate(nodes):
        t = &loop.nodes[i]
        t.kind, t.ct, t.elem, t.key = kind, ct, elem, key
        t.struct_index, t.min_bytes = struct_index, min_bytes
        t.enum_by_value = <PyObject*>enum
        if enum is not None:
            loop.keep.append(enum)
    for i in range(loop.n_nodes):  # what each element of a container adds to its charge
        t = &loop.nodes[i]
        if t.kind == K_STRUCT:
            t.cost = loop.structs[t.struct_index].charge
    return loop


def _flatten(tree, index, nodes):
    """Append the nodes of a type tree to ``nodes``; the index of its root."""
    ct, kind = tree[0], _KINDS[tree[1]]
    elem = key = struct_index = -1
    enum = None
    if kind == K_ENUM:
        enum = tree[2]
    elif kind == K_STRUCT:
        struct_index = index[tree[2]]
    elif kind == K_LIST or kind == K_SET:
        elem = _flatten(tree[2], index, nodes)
    elif kind == K_MAP:
        key, elem = _flatten(tree[2], index, nodes), _flatten(tree[3], index, nodes)
    min_bytes = 8 if kind == K_DOUBLE else 16 if kind == K_UUID else 1
    nodes.append((kind, ct, elem, key, struct_index, min_bytes, enum))
    return len(nodes) - 1


def _slot_offsets(cls, names):
    """The offsets of ``names``, all the slots of ``cls`` (a ``dataclass(slots=True)``)."""
    if not isinstance(cls, type) or cls.__slots__ != tuple(names):
        raise ValueError(f"{cls!r} does not have the slots {names}")
    if cls.__dictoffset__ or cls.__weakrefoffset__:
        raise ValueError(f"{cls!r} has a __dict__ or __weakref__")
    try:
        return [slot_offset(cls, name) for name in names]
    except TypeError as err:  # a slot that is not a writable object slot
        raise ValueError(str(err)) from None


# -- reading -------------------------------------------------------------------------------


cdef inline int uvarint(Ctx* c, int max_bytes, unsigned long long* out) noexcept:
    """A varint of at most ``max_bytes`` bytes (10: 64 bits); -1 when it is cut short, too
    long or wider than 64 bits."""
    cdef unsigned long long u = 0
    cdef unsigned int b
    cdef int shift = 0
    cdef int i
    for i in range(max_bytes):
        if c.pos >= c.end:
            return -1
        b = c.buf[c.pos]
        c.pos += 1
        if shift == 63 and b > 1:
            return -1
        u |= (<unsigned long long>(b & 0x7F)) << shift
        if b < 0x80:
            if b == 0 and i:  # longer than the value needs: the struct's bytes are kept
                c.inexact = 1
            out[0] = u
            return 0
        shift += 7
    return -1


cdef inline long long zigzag(Ctx* c, int max_bytes, int bits) except? -1:
    cdef unsigned long long u
    if c.pos < c.end and c.buf[c.pos] < 0x80:  # one byte: most values
        u = c.buf[c.pos]
        c.pos += 1
    elif uvarint(c, max_bytes, &u) < 0 or (bits < 64 and u >> bits):
        raise DECLINE
    return <long long>(u >> 1) ^ -(<long long>(u & 1))


cdef inline Py_ssize_t size(Ctx* c) except -1:
    """A length or count: a varint that fits a non-negative int32."""
    cdef unsigned long long u
    if c.pos < c.end and c.buf[c.pos] < 0x80:
        u = c.buf[c.pos]
        c.pos += 1
        return <Py_ssize_t>u
    if uvarint(c, 5, &u) < 0 or u > 0x7FFFFFFF:
        raise DECLINE
    return <Py_ssize_t>u


cdef inline int charge(Ctx* c, long long cost) except -1:
    c.left -= cost
    if c.left < 0:
        raise DECLINE
    return 0


cdef inline int check_count(Ctx* c, Py_ssize_t n, int min_bytes, long long cost) except -1:
    """``rt.check_count``: ``n`` elements fit the bytes left and ``max_count``; charged."""
    if n > c.max_count or <long long>n * min_bytes > c.end - c.pos:
        raise DECLINE
    return charge(c, cost)


cdef inline int elem_type_ok(Node* t, int got) noexcept:
    if t.kind == K_BOOL:
        return got == CT_TRUE or got == CT_FALSE
    return got == t.ct


cdef object read_value(Loop p, Ctx* c, Node* t, int depth, bint* odd):
    """One value of type ``t`` (the wire type already checked); struct values are charged
    by the caller."""
    cdef int kind = t.kind
    cdef Py_ssize_t n, i
    cdef int h
    cdef long long v
    cdef double d
    cdef const char* p0
    cdef Node* e
    cdef Node* k
    if kind == K_I32 or kind == K_I64 or kind == K_I16:
        if kind == K_I64:
            return PyLong_FromLongLong(zigzag(c, 10, 64))
        return PyLong_FromLong(<long>zigzag(c, 5 if kind == K_I32 else 3, 32 if kind == K_I32 else 16))
    if kind == K_STRING or kind == K_BINARY:
        n = size(c)
        if n > c.end - c.pos or n > c.max_string:
            raise DECLINE
        p0 = <const char*>(c.buf + c.pos)
        c.pos += n
        if kind == K_BINARY:
            return PyBytes_FromStringAndSize(p0, n)
        try:
            return PyUnicode_DecodeUTF8(<char*>p0, n, NULL)
        except UnicodeDecodeError:
            if c.utf8 == 1:
                return PyUnicode_DecodeUTF8(<char*>p0, n, "replace")
            if c.utf8 == 2:
                return PyBytes_FromStringAndSize(p0, n)
            raise DECLINE
    if kind == K_STRUCT:
        return read_struct(p, c, t.struct_index, depth + 1)
    if kind == K_ENUM:
        v = zigzag(c, 5, 32)
        x = PyLong_FromLong(<long>v)
        return (<dict>t.enum_by_value).get(x, x)
    if kind == K_BOOL or kind == K_I8:
        if c.pos >= c.end:
            raise DECLINE
        h = c.buf[c.pos]
        c.pos += 1
        if kind == K_BOOL:
            if h != CT_TRUE and h != CT_FALSE:  # false, written CT_FALSE: bytes kept
                c.inexact = 1
            return h == CT_TRUE
        return PyLong_FromLong(<signed char>h)
    if kind == K_DOUBLE:
        if c.end - c.pos < 8:
            raise DECLINE
        memcpy(&d, c.buf + c.pos, 8)  # little-endian hosts only: checked at import
        c.pos += 8
        return PyFloat_FromDouble(d)
    if kind == K_UUID:
        if c.end - c.pos < 16:
            raise DECLINE
        raw = PyBytes_FromStringAndSize(<const char*>(c.buf + c.pos), 16)
        c.pos += 16
        return _uuid.UUID(bytes=raw)
    if kind == K_LIST or kind == K_SET:
        if c.pos >= c.end:
            raise DECLINE
        e = &p.nodes[t.elem]
        h = c.buf[c.pos]
        c.pos += 1
        n = h >> 4
        if n == LONG_SIZE:
            n = size(c)
            if n <= LONG_SIZE - 1:  # the long form though the size fits: kept in the layout
                odd[0] = True
        h &= 0x0F
        if n:
            if not elem_type_ok(e, h):
                raise DECLINE
            check_count(c, n, e.min_bytes, LIST_BYTES + (8 + e.cost) * n)
        else:
            charge(c, LIST_BYTES)
            if e.kind != K_BOOL and h != e.ct:  # an empty list's element type
                odd[0] = True
        if e.kind == K_BOOL and h != CT_TRUE:  # element type 2: kept in the layout
            odd[0] = True
        out = PyList_New(n)
        for i in range(n):
            x = read_value(p, c, e, depth, odd)
            Py_INCREF(x)
            PyList_SET_ITEM(out, i, x)
        if e.kind < K_STRUCT or all_atomic(out):  # atomic values only (slots.pxd)
            untrack(out)
        return out
    if kind == K_MAP:
        n = size(c)
        out = {}
        if not n:
            charge(c, MAP_BYTES)
            return out
        if c.pos >= c.end:
            raise DECLINE
        k = &p.nodes[t.key]
        e = &p.nodes[t.elem]
        h = c.buf[c.pos]
        c.pos += 1
        if not elem_type_ok(k, h >> 4) or not elem_type_ok(e, h & 0x0F):
            raise DECLINE
        check_count(c, n, k.min_bytes + e.min_bytes, MAP_BYTES + (MAP_ENTRY_BYTES + e.cost) * n)
        if k.kind == K_BOOL and h >> 4 != CT_TRUE or e.kind == K_BOOL and h & 0x0F != CT_TRUE:
            odd[0] = True
        for i in range(n):
            key = read_value(p, c, k, depth, odd)
            out[key] = read_value(p, c, e, depth, odd)
        if len(out) < n:  # a key twice: the struct's bytes are kept
            c.inexact = 1
        return out
    raise DECLINE


cdef inline void set_slot(object obj, Py_ssize_t offset, object value) noexcept:
    cdef PyObject** slot = <PyObject**>((<char*><PyObject*>obj) + offset)
    cdef PyObject* old = slot[0]
    Py_INCREF(value)
    slot[0] = <PyObject*>value
    Py_XDECREF(old)


cdef inline PyObject* get_slot(object obj, Py_ssize_t offset) noexcept:
    return (<PyObject**>((<char*><PyObject*>obj) + offset))[0]


cdef object read_struct(Loop p, Ctx* c, int si, int depth):
    """The generated ``_r_<struct>``'s general loop: every field in any order, kept in its
    slot; an unknown or mistyped one skipped by the module's ``_skip``; a struct laid out
    otherwise than build() would gets the module's ``_layout``."""
    if depth > c.max_depth or depth > MAX_C_DEPTH:
        raise DECLINE
    cdef Struct* s = &p.structs[si]
    cdef Field* fields = p.fields + s.first
    cdef int count = s.count
    cdef Py_ssize_t start = c.pos
    cdef long long last = 0, k0
    cdef int k = -1  # the declaration index of the last field read
    cdef int guess = 0  # where the next field usually is: after the last one
    cdef int fi, ct, b, j
    cdef bint odd = False
    cdef int outer_inexact = c.inexact  # the enclosing struct's, restored at the end
    cdef Field* f
    cdef Node* t
    c.inexact = 0
    obj = new_untracked_model(<type><PyObject*>s.cls)  # tracked below if it must be
    while True:
        if c.pos >= c.end:
            raise DECLINE
        b = c.buf[c.pos]
        ct = b & 0x0F
        c.pos += 1
        if ct == CT_STOP:
            if b:  # a stop byte 0xN0 (Apache's readers take it): the bytes are kept
                c.inexact = 1
            break
        if b > 0x0F:
            last += b >> 4
        else:
            k0 = last
            last = zigzag(c, 3, 16)
            if 0 < last - k0 <= SHORT_DELTA_MAX:  # the long form where a delta fits
                odd = True
        fi = -1
        if guess < count and fields[guess].id == last:
            fi = guess
        else:
            for j in range(count):
                if fields[j].id == last:
                    fi = j
                    break
        if fi < 0:  # a field the struct does not know
            odd = True
            c.pos = p.skip(<object>c.data, c.pos, c.end, ct, depth, <object>c.cx)
            continue
        guess = fi + 1
        if k < fi:
            k = fi
        else:  # out of declaration order, or repeated: the layout keeps the order
            odd = True
        f = &fields[fi]
        t = &p.nodes[f.node]
        if t.kind == K_BOOL and (ct == CT_TRUE or ct == CT_FALSE):
            set_slot(obj, f.offset, ct == CT_TRUE)
        elif t.kind != K_BOOL and ct == t.ct:
            if t.kind == K_STRUCT:
                charge(c, t.cost)
            set_slot(obj, f.offset, read_value(p, c, t, depth, &odd))
        else:  # another wire type: kept as an unknown field
            odd = True
            c.pos = p.skip(<object>c.data, c.pos, c.end, ct, depth, <object>c.cx)
    cdef int n_set = 0
    cdef bint inexact = c.inexact
    c.inexact = outer_inexact
    cdef bint untracked = not odd and not inexact  # a layout is kept where the bytes were odd
    cdef PyObject* value
    for j in range(count):
        value = get_slot(obj, fields[j].offset)
        if value == NULL:
            if fields[j].required:
                raise DECLINE
            set_slot(obj, fields[j].offset, None)
        else:
            n_set += 1
            # below K_STRUCT every value is atomic: a number, text, an enum member, or a
            # uuid.UUID (immutable: its __setattr__ raises)
            if p.nodes[fields[j].node].kind >= K_STRUCT and untracked:
                untracked = atomic(<object>value)
    layout = None
    if odd:
        left = [c.left]
        layout = p.layout(<object>c.data, start, c.end, <object>s.known, depth, <object>c.cx, left)
        c.left = left[0]
    if inexact:
        left = [c.left]
        layout = _rt.keep_bytes(layout, <object>c.data, start, c.pos, left)
        c.left = left[0]
    set_slot(obj, s.layout_offset, layout)
    if s.is_union and (n_set > 1 or not n_set and (layout is None or not layout.unknown)):
        raise DECLINE
    if not untracked:  # untracked: numbers, text, None, untracked structs and lists (slots.pxd)
        keep_tracked(obj)
    return obj


cdef double _probe = 1.0
cdef unsigned char _probe_bytes[8]
memcpy(_probe_bytes, &_probe, 8)
if _probe_bytes[7] != 0x3F:  # doubles are read with memcpy: a big-endian host is not mine
    raise ImportError("runtime._compiled.thrift_compact reads little-endian doubles only")


# -- writing -------------------------------------------------------------------------------
# The generated ``_w_<struct>`` for models as parse() or a user makes them: fields in
# declaration order, each header a delta when one fits. A struct with a wire layout, a
# value of another Python type than the reader makes (a set for a list, say), a missing
# required field or a value out of range: not mine, and the Python writer writes it or
# raises the exact EncodeError.


cdef int write_value(Loop p, Out* o, Node* t, object v, int depth) except -1:
    cdef int kind = t.kind
    cdef Py_ssize_t n
    cdef const char* s
    cdef double d
    cdef Node* e
    cdef Node* k
    if kind == K_I32 or kind == K_ENUM:
        return put_zigzag(o, int_value(v, 32))
    if kind == K_I64:
        return put_zigzag(o, int_value(v, 64))
    if kind == K_I16:
        return put_zigzag(o, int_value(v, 16))
    if kind == K_STRING or kind == K_BINARY:
        if type(v) is str and kind == K_STRING:
            s = PyUnicode_AsUTF8AndSize(v, &n)  # a lone surrogate raises: declined
        elif type(v) is bytes:
            s = PyBytes_AS_STRING(v)
            n = PyBytes_GET_SIZE(v)
        else:
            raise DECLINE
        put_uvarint(o, <unsigned long long>n)
        return put(o, <const unsigned char*>s, n)
    if kind == K_STRUCT:
        return write_struct(p, o, t.struct_index, v, depth + 1)
    if kind == K_BOOL:
        if v is not True and v is not False:
            raise DECLINE
        return put_byte(o, CT_TRUE if v is True else CT_FALSE)
    if kind == K_I8:
        return put_byte(o, <unsigned char>(int_value(v, 8) & 0xFF))
    if kind == K_DOUBLE:
        if type(v) is not float:
            raise DECLINE
        d = PyFloat_AS_DOUBLE(v)
        return put(o, <const unsigned char*>&d, 8)  # little-endian hosts only
    if kind == K_UUID:
        if type(v) is not _uuid.UUID:
            raise DECLINE
        raw = v.bytes
        return put(o, <const unsigned char*>PyBytes_AS_STRING(raw), 16)
    if kind == K_LIST or kind == K_SET:
        if type(v) is not list and type(v) is not tuple:  # a tuple is a list (a set: Python's)
            raise DECLINE
        e = &p.nodes[t.elem]
        n = len(v)
        if n <= LONG_SIZE - 1:
            put_byte(o, <unsigned char>(n << 4 | e.ct))
        else:
            put_byte(o, <unsigned char>(LONG_SIZE << 4 | e.ct))
            put_uvarint(o, <unsigned long long>n)
        for x in v:
            write_value(p, o, e, x, depth)
        return 0
    if kind == K_MAP:
        if type(v) is not dict:
            raise DECLINE
        n = len(v)
        if not n:
            return put_byte(o, 0)
        k = &p.nodes[t.key]
        e = &p.nodes[t.elem]
        put_uvarint(o, <unsigned long long>n)
        put_byte(o, <unsigned char>(k.ct << 4 | e.ct))
        for a, b in (<dict>v).items():
            write_value(p, o, k, a, depth)
            write_value(p, o, e, b, depth)
        return 0
    raise DECLINE


cdef int write_struct(Loop p, Out* o, int si, object m, int depth) except -1:
    cdef Struct* s = &p.structs[si]
    if type(m) is not <object>s.cls or depth > MAX_C_DEPTH:
        raise DECLINE
    if get_slot(m, s.layout_offset) != <PyObject*>None:  # laid out as read: the Python writer
        raise DECLINE
    cdef Field* fields = p.fields + s.first
    cdef long long last = 0, delta
    cdef int j, n_set = 0, ct
    cdef PyObject* v
    cdef Node* t
    for j in range(s.count):
        v = get_slot(m, fields[j].offset)
        if v == NULL or v == <PyObject*>None:
            if fields[j].required:
                raise DECLINE
            continue
        n_set += 1
        t = &p.nodes[fields[j].node]
        ct = t.ct
        if t.kind == K_BOOL:
            if <object>v is not True and <object>v is not False:
                raise DECLINE
            ct = CT_TRUE if <object>v is True else CT_FALSE
        delta = fields[j].id - last
        if 0 < delta <= SHORT_DELTA_MAX:
            put_byte(o, <unsigned char>(delta << 4 | ct))
        else:
            if not -32768 <= fields[j].id <= 32767:
                raise DECLINE
            put_byte(o, <unsigned char>ct)
            put_zigzag(o, fields[j].id)
        if t.kind != K_BOOL:
            write_value(p, o, t, <object>v, depth)
        last = fields[j].id
    if s.is_union and n_set != 1:
        raise DECLINE
    return put_byte(o, CT_STOP)


cdef object build_model(Loop p, record, model):
    si = p.index.get(record)
    if si is None:
        return None
    cdef Out o
    o.data, o.size, o.cap = NULL, 0, 0
    try:
        write_struct(p, &o, <int>si, model, 1)
        return PyBytes_FromStringAndSize(<const char*>o.data, o.size)
    except Exception:
        return None
    finally:
        free(o.data)
