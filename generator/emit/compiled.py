"""The compiled tier: the plan of ``generator/emit/lowering.py`` rendered as typed Cython.

``wirespec generate`` writes ``generated/_compiled/<format>.pyx`` for every format with a
record the renderer covers. Each covered record gets ``read_<record>(data, limits)``: the
model, exactly the quick tier's (``_quick_<record>``), or None where the quick tier raises
``Retry`` ("not mine": the Python readers then give the model or the exact ``DecodeError``).
It reads a ``const unsigned char*`` with C integers, and checks ``end`` before every read:
a run of fixed-size steps is checked once against the end it reads within, an untrusted
length against what is left (and the limits) before anything is sliced or allocated.

Models are made as ``object.__new__`` makes them (the type's ``tp_alloc``) and their slots
written at the offsets of their member descriptors, found once by ``bind``. ``bind`` takes
the generated module's namespace (its classes and enum tables) when the module imports the
extension; it refuses (returns no readers) a namespace whose plan digest differs from the
one the extension was rendered from, so a stale build is never used.

The renderer covers a subset of what a plan can say (below, :class:`NotCompiled`); a record
it does not cover stays with the Python quick tier.
"""

from __future__ import annotations

import ast
import hashlib
import re

from generator.emit.lowering import Lowering
from generator.emit.plan import (
    KEYED_STEPS,
    Bits,
    Build,
    Checksum,
    Choice,
    Computed,
    Derived,
    Fallback,
    FieldSteps,
    KeyedField,
    KeyedHeader,
    Length,
    Mark,
    MsbNumber,
    Nested,
    Nothing,
    Number,
    Optional,
    Presence,
    Processed,
    Repeat,
    Rest,
    SizeOf,
    Switch,
    TagByte,
    Text,
    Valid,
    When,
    flatten,
)
from generator.emit.pysource import LineWriter, struct_format
from generator.emit.untracked import CHECK, LIST, atomic_classes, is_atomic, value_kinds
from generator.spec import pytext

_DECLINE = "return None"
_C_TYPES = {
    "B": "uint8_t",
    "b": "int8_t",
    "H": "uint16_t",
    "h": "int16_t",
    "I": "uint32_t",
    "i": "int32_t",
    "Q": "uint64_t",
    "q": "int64_t",
    "f": "float",
    "d": "double",
}
_DECODERS = {"utf8": "_utf8", "ascii": "PyUnicode_DecodeASCII"}
_SHARED_INTS = {"int64_t", "int32_t", "uint32_t", "int16_t", "uint16_t"}
"""C types of numbers made Python ints through ``_int64``, which shares them."""

_PRELUDE = '''\
from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.object cimport PyObject
from cpython.pyport cimport PY_SSIZE_T_MAX
from cpython.ref cimport Py_INCREF, Py_XDECREF
from cpython.unicode cimport PyUnicode_DecodeASCII, PyUnicode_DecodeUTF8
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcmp, memcpy

import dataclasses
import types

from runtime._compiled.slots cimport atomic, keep_tracked, untrack
from runtime.core.checksum import CRC8_TABLE

cdef extern from *:
    """
    #include <structmember.h>
    /* A model as object.__new__ makes it, and its slots written at their offsets. */
    static PyObject *wirespec_alloc(PyObject *cls) {
        return ((PyTypeObject *)cls)->tp_alloc((PyTypeObject *)cls, 0);
    }
    static Py_ssize_t wirespec_slot_offset(PyObject *descr) {
        return ((PyMemberDescrObject *)descr)->d_member->offset;
    }
    static void wirespec_put(PyObject *obj, Py_ssize_t offset, PyObject *value) {
        PyObject **slot = (PyObject **)((char *)obj + offset);
        Py_INCREF(value);
        Py_XSETREF(*slot, value);
    }
    /* a + b in 64 bits, or 1 where Python's int would be wider */
    static int wirespec_add_overflows(int64_t a, int64_t b, int64_t *sum) {
        return __builtin_add_overflow(a, b, sum);
    }
    static PyObject *wirespec_get(PyObject *obj, Py_ssize_t offset) {
        PyObject *value = *(PyObject **)((char *)obj + offset);
        Py_XINCREF(value);
        return value;
    }
    """
    object wirespec_alloc(object cls)
    Py_ssize_t wirespec_slot_offset(object descr) except? -1
    void wirespec_put(object obj, Py_ssize_t offset, object value)
    object wirespec_get(object obj, Py_ssize_t offset)
    bint wirespec_add_overflows(int64_t a, int64_t b, int64_t* sum) noexcept


cdef struct _Limits:
    Py_ssize_t max_message_bytes
    Py_ssize_t max_count
    Py_ssize_t max_string
    Py_ssize_t max_depth
    Py_ssize_t max_decompressed_bytes


cdef object _limits_seen = None
cdef _Limits _limits_last


cdef Py_ssize_t _limit(value):
    """A limit as a C size (any larger int is no limit at all here)."""
    return min(max(value, -1), PY_SSIZE_T_MAX)


cdef bint _limits(limits, _Limits* out) except False:
    """The limits as C sizes (the last ones seen kept: a frozen ``Limits``)."""
    global _limits_seen, _limits_last
    if limits is not _limits_seen:
        _limits_last.max_message_bytes = _limit(limits.max_message_bytes)
        _limits_last.max_count = _limit(limits.max_count)
        _limits_last.max_string = _limit(limits.max_string)
        _limits_last.max_depth = _limit(limits.max_depth)
        _limits_last.max_decompressed_bytes = _limit(limits.max_decompressed_bytes)
        _limits_seen = limits
    out[0] = _limits_last
    return True


cdef unsigned char _CRC8[256]
cdef unsigned char _CRC8_BY_8[8][256]
"""``_CRC8_BY_8[k][x]``: the CRC-8 of the byte x then k zero bytes (eight bytes a step)."""
for _i in range(256):
    _CRC8[_i] = CRC8_TABLE[_i]
    _CRC8_BY_8[0][_i] = _CRC8[_i]
for _k in range(1, 8):
    for _i in range(256):
        _CRC8_BY_8[_k][_i] = _CRC8[_CRC8_BY_8[_k - 1][_i]]


cdef inline unsigned int _crc8(unsigned int crc, const unsigned char* buf, Py_ssize_t start,
                               Py_ssize_t stop) noexcept:
    # a CRC is linear: the CRC of eight bytes is the sum of each byte's, shifted
    while stop - start >= 8:
        crc = (_CRC8_BY_8[7][crc ^ buf[start]] ^ _CRC8_BY_8[6][buf[start + 1]]
               ^ _CRC8_BY_8[5][buf[start + 2]] ^ _CRC8_BY_8[4][buf[start + 3]]
               ^ _CRC8_BY_8[3][buf[start + 4]] ^ _CRC8_BY_8[2][buf[start + 5]]
               ^ _CRC8_BY_8[1][buf[start + 6]] ^ _CRC8_BY_8[0][buf[start + 7]])
        start += 8
    while start < stop:
        crc = _CRC8[crc ^ buf[start]]
        start += 1
    return crc


cdef inline bint _uvarint(const unsigned char* buf, Py_ssize_t* pos, Py_ssize_t end,
                          uint64_t* out) noexcept:
    """A LEB128 varint at ``pos[0]`` before ``end``, as ``read_uvarint`` takes it: at most
    10 bytes and 64 bits (non-shortest forms too). False where it raises."""
    cdef Py_ssize_t p = pos[0]
    cdef Py_ssize_t stop = p + 10 if end - p > 10 else end
    cdef uint64_t value = 0
    cdef uint64_t b
    cdef int shift = 0
    while p < stop:
        b = buf[p]
        p += 1
        if shift == 63 and b > 1:  # past 64 bits, or an 11th byte
            return False
        value |= (b & 0x7F) << shift
        if b < 0x80:
            out[0] = value
            pos[0] = p
            return True
        shift += 7
    return False


cdef inline int64_t _unzigzag(uint64_t u) noexcept:
    return <int64_t>(u >> 1) ^ -<int64_t>(u & 1)


cdef struct _Text:
    PyObject* value
    Py_ssize_t n
    unsigned char key[24]


cdef _Text _TEXTS[1024]
"""Short strings decoded lately, by a hash of their bytes: column names repeat row after row,
and a str is immutable, so a model may share one (equal either way)."""
cdef _Text _BLOBS[1024]
"""Short bytes values made lately, the same way (a table of their own: text and bytes of the
same bytes are different values)."""


cdef inline object _shared(_Text* table, const unsigned char* p, Py_ssize_t n, bint text):
    """``n`` bytes at ``p`` as UTF-8 text or as bytes, shared through ``table`` when short
    (raises UnicodeDecodeError as ``bytes.decode``)."""
    cdef uint32_t h = 2166136261
    cdef Py_ssize_t i
    cdef _Text* slot
    if n > 24:
        return PyUnicode_DecodeUTF8(<const char*>p, n, NULL) if text else (
            PyBytes_FromStringAndSize(<const char*>p, n))
    for i in range(n):
        h = (h ^ p[i]) * 16777619
    slot = &table[(h ^ (h >> 16)) & 1023]
    if slot.value != NULL and slot.n == n and memcmp(slot.key, p, n) == 0:
        return <object>slot.value
    if text:
        value = PyUnicode_DecodeUTF8(<const char*>p, n, NULL)
    else:
        value = PyBytes_FromStringAndSize(<const char*>p, n)
    Py_XDECREF(slot.value)
    Py_INCREF(value)
    slot.value = <PyObject*>value
    slot.n = n
    memcpy(slot.key, p, n)
    return value


cdef inline object _utf8(const unsigned char* p, Py_ssize_t n):
    """The UTF-8 text of ``n`` bytes at ``p``."""
    return _shared(_TEXTS, p, n, True)


cdef inline object _bytes(const unsigned char* p, Py_ssize_t n):
    """``n`` bytes at ``p`` as ``bytes``."""
    return _shared(_BLOBS, p, n, False)


cdef struct _Number:
    PyObject* value
    int64_t key


cdef _Number _NUMBERS[1024]
"""Integers made lately, by a hash of their value: a cell's timestamp, a status or a type
code repeats row after row, and an int is immutable, so a model may share one (equal either
way). Each int not shared is an allocation and a release, and 32 bytes held."""


cdef object _int64(int64_t v):
    """``v`` as a Python int."""
    cdef _Number* slot
    cdef object value
    if -5 <= v <= 256:  # CPython's own shared ints
        return v
    slot = &_NUMBERS[(<uint64_t>v * 0x9E3779B97F4A7C15u) >> 54]
    if slot.value != NULL and slot.key == v:
        return <object>slot.value
    value = v
    Py_XDECREF(slot.value)
    Py_INCREF(value)
    slot.value = <PyObject*>value
    slot.key = v
    return value


cdef extern from "Python.h":
    int PyGC_Enable()
    int PyGC_Disable()


cdef Py_ssize_t _GC_PAUSE_BYTES = 1 << 16
"""Messages from this size on are read with the cyclic GC paused."""


ctypedef object (*_Reader)(const unsigned char*, Py_ssize_t, Py_ssize_t, _Limits*, Py_ssize_t*)


cdef object _whole(_Reader read, Py_ssize_t depth, bytes data, limits):
    """What ``read`` gives for all of ``data``, or None (a decline)."""
    cdef _Limits lim
    cdef Py_ssize_t stop = 0
    cdef Py_ssize_t n = len(data)
    cdef const unsigned char* buf = data
    cdef bint gc_was_on = False
    _limits(limits, &lim)
    if lim.max_depth < depth or n > lim.max_message_bytes:
        return None
    if n >= _GC_PAUSE_BYTES:
        # the models of a big message are millions of tracked objects and no cycles: the
        # cyclic GC would rescan them over and over (nine tenths of parsing 64 MiB)
        gc_was_on = PyGC_Disable()
    try:
        model = read(buf, 0, n, &lim, &stop)
    except ValueError:  # text that does not decode
        return None
    finally:
        if gc_was_on:
            PyGC_Enable()
    if model is None or stop != n:
        return None
    return model


cdef class _Entry:
    """A record's reader and the nesting depth it reads."""
    cdef _Reader read
    cdef Py_ssize_t depth


cdef _Entry _entry(_Reader read, Py_ssize_t depth):
    cdef _Entry entry = _Entry.__new__(_Entry)
    entry.read = read
    entry.depth = depth
    return entry


def parse_first(python_parse, default_record, default_limits):
    """The module's ``parse`` with the compiled readers tried first, from C (no Python frame
    when they take the input): ``python_parse`` decides whatever they decline, and every
    call with limits or input that is not ``bytes``."""
    # the default record's reader found once: a dict look-up is a tenth of a small message
    cdef object default_entry = _ENTRIES.get(default_record)

    def parse(data, record=default_record, **limits):
        if not limits and type(data) is bytes:
            entry = default_entry if record is default_record else _ENTRIES.get(record)
            if entry is not None:
                model = _whole((<_Entry>entry).read, (<_Entry>entry).depth, <bytes>data,
                               default_limits)
                if model is not None:
                    return model
        return python_parse(data, record, **limits)

    parse.__doc__ = python_parse.__doc__
    parse.__wrapped__ = python_parse
    # the module's parse by name: pickled by reference (Spark ships it to workers) as before
    parse.__module__ = python_parse.__module__
    parse.__qualname__ = parse.__name__ = python_parse.__qualname__
    return parse


cdef Py_ssize_t _slot(cls, str name) except -1:
    """The offset of a model slot (a member descriptor of the class itself)."""
    descr = cls.__dict__[name]
    if type(descr) is not types.MemberDescriptorType:
        raise TypeError(f"{cls.__name__}.{name} is no slot")
    return wirespec_slot_offset(descr)


cdef _enum_bytes(dict by_value, PyObject** table):
    """A u8 enum's members by byte (NULL: no member), from the module's ``_X_BY_VALUE``."""
    for i in range(256):
        table[i] = NULL
    for value, member in by_value.items():
        if 0 <= value < 256:
            table[value] = <PyObject*>member
'''


_EXPRESSION_PRELUDE = '''\
from cpython.buffer cimport PyBUF_READ
from cpython.memoryview cimport PyMemoryView_FromMemory

import runtime.core.process as rt_process
from runtime.core.errors import DecodeError
from runtime.core.fast import CHECKSUMS as _CHECKSUMS
from runtime.core.record import EXPRESSION_ERRORS

_EXPRESSION_FAILURES = (DecodeError, *EXPRESSION_ERRORS)
"""What evaluating a spec expression (or finding a codec) raises where the quick tier
retries."""
'''


_RECURSION_PRELUDE = '''\
ctypedef object (*_DReader)(const unsigned char*, Py_ssize_t, Py_ssize_t, _Limits*, Py_ssize_t*,
                            Py_ssize_t)
"""A reader of a spec that recurses: it takes the nesting depth it is read at."""

cdef Py_ssize_t _C_MAX_DEPTH = 1000
"""Deeper than this the C stack is not trusted: declined, the Python readers decide."""
'''

_KEYED_PRELUDE = """\
from runtime._compiled.ints cimport SharedInt, shared_int
from runtime._compiled.msb cimport msb_size, msb_uvar
"""
"""What a reader of mysql::serialization messages adds (runtime/_compiled/msb.pxd, ints.pxd)."""

_CRC32_PRELUDE = "from runtime._compiled.crc32 cimport crc32_update\n"
_REUSE_PRELUDE = (
    "from cpython.list cimport PyList_New\n"
    "from runtime._compiled.reuse cimport list_put, spare, spare_list, spare_slot\n"
)


_C_VALUES = {*_C_TYPES.values(), "bint", "Py_ssize_t", "bytes"}
"""C types of variables whose Python value is atomic (a number, a bool, bytes or None)."""


class NotCompiled(Exception):
    """The plan says something this renderer does not write: the record keeps the Python
    quick tier only."""


def plan_digest(lowering: Lowering) -> str:
    """What the compiled readers of a spec were rendered from: the generated module and the
    extension must name the same."""
    text = f"endian {lowering.endian}\n{lowering.describe()}"
    return hashlib.sha256(text.encode()).hexdigest()


class CompiledEmitter:
    """Renders ``generated/_compiled/<format>.pyx`` of one spec (see the module docstring)."""

    def __init__(self, spec, lowering: Lowering | None = None):
        self.spec = spec
        self.lowering = lowering or Lowering(spec)
        self.module = f"generated._compiled.{spec.format}"
        self.digest = plan_digest(self.lowering)
        self.functions: dict[str, str] = {}
        self.loaders: dict[str, str] = {}
        self.classes: dict[str, list[str]] = {}
        """Model class -> its fields, in the order the generated module declares them."""
        self.enums: set[str] = set()
        self.refused: dict[str, str] = {}
        self.callees: dict[str, set[str]] = {}
        """Record -> the records its reader calls."""
        self.expressions = False
        """Whether a reader evaluates spec expressions or decodes a ``process:`` codec."""
        self.recursive = any(plan.checks_depth for plan in self.lowering.plans.values())
        """The spec recurses: every reader takes the depth it is read at (``_DReader``)."""
        self.pickers: dict[str, str] = {}
        """A choice's table -> the code that declares and fills it."""
        self.preludes: dict[str, None] = {}
        """Shared helpers a reader cimports (runtime/_compiled/*.pxd), in first-use order."""
        self.shared_ints: list[str] = []
        """The ``SharedInt`` globals of the fields read through ``shared_int``."""
        self.reuse = self._reuse_records()
        """Entry record -> the model classes its reads write into dead models (see
        :meth:`reuse_entry`)."""
        self.atomic_classes = atomic_classes(self.lowering)
        """Model classes whose every field is atomic in every model read (see
        :meth:`untrack`)."""
        for name in self.lowering.entries:
            try:
                self.functions[name] = self.record_function(self.lowering.plans[name])
            except NotCompiled as why:
                self.refused[name] = str(why)
        # a record that calls one not covered is not covered either
        changed = True
        while changed:
            changed = False
            for name in list(self.functions):
                missing = self.callees.get(name, set()) - set(self.functions)
                if missing:
                    del self.functions[name]
                    self.refused[name] = f"calls {', '.join(sorted(missing))}"
                    changed = True
        self.entries = [name for name in self.lowering.entries if name in self.functions]

    # -- the module ---------------------------------------------------------------------

    def module_text(self, version: str, arrow=None) -> str | None:
        """The .pyx (headed, as ``with_header`` heads it), or None when no record is covered.
        ``arrow``: the Arrow writers of :mod:`generator.emit.compiled_arrow` to add, if any."""
        if not self.entries:
            return None
        source = self.spec.source.display
        head = [
            f"# Code generated by wirespec {version} from {pytext.comment(source)}. DO NOT EDIT.",
            f"# source sha256: {self.spec.source.sha256}",
            "# @generated",
            "# Every read is checked against its end by the code itself, so Cython checks none:",
            "# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True",
            f'"""The compiled tier of ``generated.{self.spec.format}``.',
            "",
            "The plans of generator/emit/lowering.py in typed Cython (generator/emit/compiled.py renders",
            "them; ``bind`` hands the readers to the module). Each reader gives the quick tier's",
            'model, or None where the quick tier would raise Retry."""',
            "",
        ]
        body = [_PRELUDE]
        if self.expressions:
            body.append(_EXPRESSION_PRELUDE)
        if self.recursive:
            body.append(_RECURSION_PRELUDE)
        body += list(self.preludes)
        loaders = {**self.loaders, **(arrow.loaders if arrow is not None else {})}
        body += list(loaders.values())
        body.append(
            f'PLAN = "{self.digest}"\n"""The digest of the plans this was rendered from."""\n'
        )
        globals_ = [
            "# Set by bind: the model classes, their slot offsets, the enum members by byte."
        ]
        for cls, fields in sorted(self.classes.items()):
            globals_.append(f"cdef object _{cls}")
            globals_ += [f"cdef Py_ssize_t _{cls}_{field}" for field in fields]
        globals_ += [f"cdef PyObject* _{enum.upper()}_BY_BYTE[256]" for enum in sorted(self.enums)]
        reused = sorted({cls for name in self.entries for cls in self.reuse.get(name, ())})
        globals_ += [f"cdef SharedInt {name}" for name in self.shared_ints]
        if reused:
            body.append(_REUSE_PRELUDE)
            globals_.append(
                "# A dead model of the class for the next Build to write into, or NULL."
            )
            globals_ += [f"cdef PyObject* _into_{cls} = NULL" for cls in reused]
        body.append("\n".join(globals_))
        body += [self.functions[name] for name in self.entries]
        body += [self.pickers[table] for table in sorted(self.pickers)]
        if self.recursive:  # the readers as `_Reader`s: the first record at depth 1
            body += [self.top_function(name) for name in self.entries]
        body += [self.reuse_entry(name) for name in self.entries if name in self.reuse]
        body += [self.entry_function(name) for name in self.entries]
        entries = [
            f'    "{name}": _entry({self.reader(name)}, {self.lowering.plans[name].depth}),'
            for name in self.entries
        ]
        body.append("\n".join(["_ENTRIES = {", *entries, "}"]))
        body.append(self.bind_function())
        if arrow is not None and arrow.entries:
            body.append(arrow.section())
        text = "\n".join(head) + "\n" + "\n\n".join(part.rstrip("\n") + "\n" for part in body)
        return text

    def bind_function(self) -> str:
        lines = [
            "def bind(namespace):",
            '    """The readers by record, given the generated module\'s namespace; none when',
            '    the module was generated from other plans (a stale build)."""',
        ]
        names = [f"_{cls}" for cls in sorted(self.classes)] + [
            f"_{cls}_{f}" for cls, fields in sorted(self.classes.items()) for f in fields
        ]
        if names:
            lines.append(f"    global {', '.join(names)}")
        lines.append('    if namespace.get("COMPILED_PLAN") != PLAN:')
        lines.append("        return {}")
        for cls, fields in sorted(self.classes.items()):
            lines.append(f'    _{cls} = namespace["{cls}"]')
            lines.append(
                f"    if tuple(f.name for f in dataclasses.fields(_{cls})) != {tuple(fields)!r}:"
            )
            lines.append("        return {}")
            for field in fields:
                lines.append(f'    _{cls}_{field} = _slot(_{cls}, "{field}")')
        for enum in sorted(self.enums):
            table = f"_{enum.upper()}_BY_VALUE"
            lines.append(f'    _enum_bytes(namespace["{table}"], _{enum.upper()}_BY_BYTE)')
        lines.append("    return {")
        lines += [f'        "{name}": read_{name},' for name in self.entries]
        lines.append("    }")
        return "\n".join(lines)

    def entry_function(self, name: str) -> str:
        depth = self.lowering.plans[name].depth
        return "\n".join(
            [
                f"def read_{name}(bytes data not None, limits):",
                f'    """A ``{name}`` from all of ``data``: ``_quick_{name}``\'s model, or None where',
                '    it raises Retry (or where the limits do not let it read)."""',
                f"    return _whole({self.reader(name)}, {depth}, data, limits)",
            ]
        )

    def top_function(self, name: str) -> str:
        """A reader of a spec that recurses, as a ``_Reader`` reading at depth 1."""
        signature = "const unsigned char* buf, Py_ssize_t pos, Py_ssize_t end, _Limits* lim,"
        return "\n".join(
            [
                f"cdef object _top_{name}({signature}",
                f"{' ' * (len(name) + 18)}Py_ssize_t* stop):",
                f"    return _read_{name}(buf, pos, end, lim, stop, 1)",
            ]
        )

    # -- a record ------------------------------------------------------------------------

    def record_function(self, plan) -> str:
        self.w = LineWriter()
        self.decls: dict[str, str] = {}
        self.numbers = {}
        """Variable -> the Number step that reads it (for selectors and element members)."""
        self.repeats = {}
        """List variable -> the record of its elements."""
        self.loose: set[str] = set()
        """Variables that may hold None or another type (in a switch or an optional)."""
        self.calls: set[str] = set()
        self._collect(plan.steps)
        self.name = plan.name
        self.plan = plan
        self.kinds = value_kinds(plan.steps, self.lowering.plans)
        """Variable -> what it may hold (:func:`generator.emit.untracked.value_kinds`)."""
        self.intos: set[str] = set()
        """The ``_into_<class>`` globals the reader sets (see :meth:`reuse_entry`)."""
        self.off = 0
        self.checked = 0
        if plan.checks_depth:
            extra = f" + {plan.depth - 1}" if plan.depth > 1 else ""
            self.decline_if(f"depth{extra} > lim.max_depth or depth > _C_MAX_DEPTH")
        self.steps(plan.steps, "end")
        self.flush()
        self.w.line("stop[0] = pos")
        self.w.line("return model")
        head = self.function_head(plan)
        if self.intos:
            head.append(f"    global {', '.join(sorted(self.intos))}")
        for var, ctype in self.decls.items():
            ctype, _, init = ctype.partition(" = ")
            head.append(f"    cdef {ctype} {var}" + f" = {init}" * bool(init))
        self.callees[plan.name] = self.calls
        return "\n".join(head + self.w.lines)

    def function_head(self, plan) -> list[str]:
        """The ``def`` line and docstring of ``plan``'s reader."""
        signature = "const unsigned char* buf, Py_ssize_t pos, Py_ssize_t end, _Limits* lim,"
        last = "Py_ssize_t* stop, Py_ssize_t depth" if plan.checks_depth else "Py_ssize_t* stop"
        return [
            f"cdef object _read_{plan.name}({signature}",
            f"{' ' * (len(plan.name) + 19)}{last}):",
            f'    """``_quick_{plan.name}`` in C: None where it raises Retry."""',
        ]

    def _collect(self, steps) -> None:
        """Note the numbers read (selectors and element members are read back as C
        numbers), the element records of lists, and the variables that may hold None or
        values of several types (an optional's, a switch's)."""
        for step in steps:
            if isinstance(step, FieldSteps):
                self._collect(step.steps)
            elif isinstance(step, Number):
                self.numbers[step.var] = step
            elif isinstance(step, Optional):
                self.loose.add(step.var)
                self._collect(step.steps)
            elif isinstance(step, Switch):
                self.loose.add(step.var)
                for case in step.cases:
                    self._collect(case.steps)
                self._collect(step.default or ())
            elif isinstance(step, (Nested, Processed, KeyedField)):
                self._collect(step.steps or ())
            elif isinstance(step, When):
                self.loose.add(step.var)
                self._collect(step.steps)
            elif isinstance(step, Repeat):
                self.repeats[step.var] = step.record
                self._collect(step.steps or ())

    # `off`: bytes past `pos` read by fixed steps, `pos` not yet advanced; `checked`: bytes
    # past `pos` known to be before the end of the steps being read.

    def steps(self, steps, end: str) -> None:
        flat = flatten(steps)
        for i, step in enumerate(flat):
            if isinstance(step, FieldSteps):
                if i + 1 < len(flat) and flat[i + 1].size is None:
                    self.flush()
                self.w.line(pytext.source_comment(self.spec.source.display, step.line, step.name))
            elif step.size is not None:
                if step.size and self.off + step.size > self.checked:
                    run = 0
                    for later in flat[i:]:
                        if isinstance(later, FieldSteps):
                            continue
                        if later.size is None:
                            break
                        run += later.size
                    self.decline_if(f"{end} - pos < {self.off + run}")
                    self.checked = self.off + run
                self.fixed(step, self.at(), end)
                self.off += step.size
            else:
                self.flush()
                self.moving(step, end)
                self.checked = 0

    def at(self, extra: int = 0) -> str:
        off = self.off + extra
        return f"pos + {off}" if off else "pos"

    def flush(self) -> None:
        if self.off:
            self.w.line(f"pos += {self.off}")
            self.checked = max(0, self.checked - self.off)
            self.off = 0

    def decline_if(self, condition: str) -> None:
        self.w.line(f"if {condition}:")
        with self.w.indent():
            self.w.line(_DECLINE)

    def declare(self, var: str, ctype: str) -> None:
        if self.decls.setdefault(var, ctype) != ctype:
            raise NotCompiled(f"{var} is read as {self.decls[var]} and as {ctype}")

    def branch(self, steps, end: str) -> None:
        self.off = 0
        self.checked = 0
        self.steps(steps, end)
        self.flush()

    # -- numbers -------------------------------------------------------------------------

    def load(self, prim: str, at: str) -> tuple[str, str]:
        """(C type, C expression) of the fixed-width number ``prim`` at ``buf + at``."""
        if prim == "bool":
            return "bint", f"buf[{at}] == 1"
        fmt = struct_format(prim, self.spec.endian)
        order, code = fmt[0], fmt[1]
        ctype = _C_TYPES[code]
        if code == "B":
            return ctype, f"buf[{at}]"
        if code == "b":
            return ctype, f"<int8_t>buf[{at}]"
        name = f"_load_{'be' if order == '>' else 'le'}_{code}"
        if name not in self.loaders:
            self.loaders[name] = self.loader(name, ctype, order, code)
        return ctype, f"{name}(buf + {at})"

    def loader(self, name: str, ctype: str, order: str, code: str) -> str:
        """An inline C function reading one number (byte by byte: any host byte order)."""
        size = {"H": 2, "h": 2, "I": 4, "i": 4, "f": 4, "Q": 8, "q": 8, "d": 8}[code]
        unsigned = {2: "uint16_t", 4: "uint32_t", 8: "uint64_t"}[size]
        shifts = range(size) if order == "<" else reversed(range(size))
        parts = [f"(<{unsigned}>p[{i}] << {8 * k})" for k, i in enumerate(shifts)]
        lines = [f"cdef inline {ctype} {name}(const unsigned char* p) noexcept:"]
        lines.append(f"    cdef {unsigned} u = {parts[0]}")
        lines += [f"    u |= {part}" for part in parts[1:]]
        if code in "fd":
            lines += [
                f"    cdef {ctype} value",
                f"    memcpy(&value, &u, {size})",
                "    return value",
            ]
        else:
            lines.append(f"    return <{ctype}>u")
        return "\n".join(lines) + "\n"

    # -- steps at a constant offset ------------------------------------------------------

    def fixed(self, step, at: str, end: str) -> None:
        if isinstance(step, KEYED_STEPS):
            self.keyed(step)
        elif isinstance(step, TagByte):
            self.decline_if(f"buf[{at}] != 0x{step.byte:02x}")
        elif isinstance(step, Number):
            self.number(step, at)
        elif isinstance(step, Length):
            fmt = struct_format(step.prim, self.spec.endian)
            if fmt[1] == "Q":
                raise NotCompiled("a u64 length")
            self.declare(step.var, "Py_ssize_t")
            self.w.line(f"{step.var} = {self.load(step.prim, at)[1]}")
        elif isinstance(step, Text):
            self.decline_if(f"lim.max_string < {step.fixed}")
            self.text_value(step, at, str(step.fixed))
        elif isinstance(step, Nothing):
            self.w.line(f"{step.var} = None")
        elif isinstance(step, Bits):
            self.bits(step, at)
        elif isinstance(step, Computed):
            self.computed(step)
        elif isinstance(step, Checksum):
            self.checksum(step)
        elif isinstance(step, Derived):
            self.evaluate(step.var, step.expression)
        elif isinstance(step, Mark):
            self.declare(step.var, "Py_ssize_t")
            self.w.line(f"{step.var} = {at}")
        elif isinstance(step, Valid):
            compared = re.fullmatch(r"(\w+) (<|<=|>|>=|==|!=) (-?\d+)", step.expression)
            ctype = self.decls.get(compared.group(1), "") if compared else ""
            if ctype in _C_TYPES.values() and ctype not in ("float", "double"):
                # a C integer against a literal it can hold: the comparison Python would
                # make, in C (an unsigned one against a negative literal stays in Python)
                name, op, literal = compared.groups()
                low = 0 if ctype.startswith("u") else -(1 << 63)
                if low <= int(literal) < (1 << 63):
                    self.decline_if(f"not ({name} {op} {literal})")
                    return
            self.expressions = True
            self.w.line("try:")
            with self.w.indent():
                self.w.line(f"valid = {self.python(step.expression)}")
            self.w.line("except _EXPRESSION_FAILURES:")
            with self.w.indent():
                self.w.line("valid = False")
            self.decline_if("not valid")
        else:
            assert isinstance(step, Build), step
            self.build(step)

    def bits(self, step: Bits, at: str) -> None:
        """A bit field of the run ``step.run`` (its first field reads the run's bytes, as
        one unsigned integer in the run's order)."""
        if step.var in self.loose:
            raise NotCompiled(f"{step.var}: a bit field that may be absent")
        if step.first:
            self.declare(step.run, "uint64_t")
            order = range(step.group) if step.order == "little" else reversed(range(step.group))
            parts = [
                (
                    f"(<uint64_t>buf[{at} + {i}] << {8 * k})"
                    if i
                    else f"(<uint64_t>buf[{at}] << {8 * k})"
                )
                for k, i in enumerate(order)
            ]
            self.w.line(f"{step.run} = {' | '.join(parts)}".replace(" << 0)", ")"))
        value = step.run if step.shift == 0 else f"({step.run} >> {step.shift})"
        if step.mask is not None:
            value = f"({value} & {step.mask:#x}u)"
        if step.width == 64 and not step.signed:
            self.declare(step.var, "uint64_t")
            self.w.line(f"{step.var} = {value}")
        else:
            self.declare(step.var, "int64_t")
            self.w.line(f"{step.var} = <int64_t>{value}")
            if step.signed and step.width < 64:  # two's complement in its width
                self.w.line(f"if {step.var} >> {step.width - 1}:")
                with self.w.indent():
                    self.w.line(f"{step.var} -= (<int64_t>1) << {step.width}")
        if step.const is not None:
            self.decline_if(f"{step.var} != {step.const:#x}")

    def computed(self, step: Computed) -> None:
        """A length an expression computes: a C number read as such, else the Python
        value (an int in range, else a decline)."""
        self.declare(step.var, "Py_ssize_t")
        ctype = self.decls.get(step.expression, "")
        if ctype in ("int8_t", "int16_t", "int32_t", "uint8_t", "uint16_t", "int64_t"):
            self.w.line(f"{step.var} = {step.expression}")
            return
        self.evaluate(f"{step.var}_o", step.expression)
        self.decline_if(
            f"type({step.var}_o) is not int or not -1 <= {step.var}_o <= PY_SSIZE_T_MAX"
        )
        self.w.line(f"{step.var} = {step.var}_o")

    def python(self, expression: str) -> str:
        """A spec expression with Python's semantics: its C numbers as Python ints (no
        overflow where Python has none)."""
        numbers = [
            v for v, ctype in self.decls.items() if not ctype.startswith(("bytes", "PyObject"))
        ]
        if not numbers:
            return expression
        pattern = re.compile(r"(?<![.\w])(" + "|".join(map(re.escape, numbers)) + r")\b")
        return pattern.sub(r"(<object>\1)", expression)

    def evaluate(self, var: str, expression: str) -> None:
        """``var`` is a spec expression's value (a Python object); an error evaluating it
        is a decline."""
        self.expressions = True
        if var in self.decls:
            raise NotCompiled(f"{var}: a C number and an expression's value")
        terms = re.fullmatch(r"(\w+) \+ (\w+)", expression)
        small = ("int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t")
        if terms and all(self.decls.get(term) in small for term in terms.groups()):
            # the sum of two C numbers (an offset plus a delta) without Python ints, unless
            # it is wider than 64 bits
            a, b = terms.groups()
            self.declare(f"{var}_sum", "int64_t")
            self.w.line(f"if wirespec_add_overflows({a}, {b}, &{var}_sum):")
            with self.w.indent():
                self.w.line(f"{var} = (<object>{a}) + (<object>{b})")
            self.w.line("else:")
            with self.w.indent():
                self.w.line(f"{var} = {var}_sum")
            return
        self.w.line("try:")
        with self.w.indent():
            self.w.line(f"{var} = {self.python(expression)}")
        self.w.line("except _EXPRESSION_FAILURES:")
        with self.w.indent():
            self.w.line(_DECLINE)

    def varint(self, var: str, zigzag: bool, end: str) -> tuple[str, str]:
        """A varint at ``pos`` before ``end`` read into ``<var>_u``: (C type, C value)."""
        self.declare(f"{var}_u", "uint64_t")
        self.decline_if(f"not _uvarint(buf, &pos, {end}, &{var}_u)")
        if zigzag:
            return "int64_t", f"_unzigzag({var}_u)"
        return "uint64_t", f"{var}_u"

    def number(self, step: Number, at: str | None, end: str = "") -> None:
        """A number at ``buf + at``, or a varint at ``pos`` before ``end`` (``at`` None)."""
        var = step.var
        if step.keep:
            self.keep(var, at, self.at(step.size))
        if step.prim == "bool":
            self.decline_if(f"buf[{at}] > 1")
        if at is None:
            ctype, value = self.varint(var, step.zigzag, end)
        else:
            ctype, value = self.load(step.prim, at)
        if step.enum and at is None:
            values = [v.value for v in self.spec.enums[step.enum].values]
            if not all(0 <= v < 256 for v in values):
                raise NotCompiled(f"{var}: an enum with members past a byte")
            table = f"_{step.enum.upper()}_BY_BYTE"
            self.enums.add(step.enum)
            self.declare(f"{var}_c", ctype)
            self.declare(f"{var}_p", "PyObject*")
            self.w.line(f"{var}_c = {value}")
            self.decline_if(
                f"{var}_c > 255" if ctype == "uint64_t" else f"{var}_c < 0 or {var}_c > 255"
            )
            self.w.line(f"{var}_p = {table}[{var}_c]")
            self.decline_if(f"{var}_p == NULL")
            self.w.line(f"{var} = <object>{var}_p")
        elif step.enum:
            if ctype != "uint8_t":
                raise NotCompiled(f"{var}: an enum wider than a byte")
            table = f"_{step.enum.upper()}_BY_BYTE"
            self.enums.add(step.enum)
            self.declare(f"{var}_c", ctype)
            self.declare(f"{var}_p", "PyObject*")
            self.w.line(f"{var}_c = {value}")
            self.w.line(f"{var}_p = {table}[{var}_c]")
            self.decline_if(f"{var}_p == NULL")
            self.w.line(f"{var} = <object>{var}_p")
        elif var in self.loose and ctype in _SHARED_INTS:
            self.w.line(f"{var} = _int64({value})")
        elif var in self.loose:
            self.w.line(f"{var} = {value}")
        else:
            self.declare(var, ctype)
            self.w.line(f"{var} = {value}")
        if step.const is not None:
            self.decline_if(f"{var} != {step.const:#x}")

    def keep(self, var: str, start: str, stop: str) -> None:
        """The bytes of ``var`` a checksum covers: ``<var>_at`` to ``<var>_end``."""
        self.declare(f"{var}_at", "Py_ssize_t = 0")  # set where the checksum reads it
        self.declare(f"{var}_end", "Py_ssize_t = 0")
        self.w.line(f"{var}_at = {start}")
        self.w.line(f"{var}_end = {stop}")

    def text_value(self, step: Text, start: str, n: str) -> None:
        """A string or bytes of ``n`` bytes at ``buf + start`` (already checked)."""
        var = step.var
        if step.keep:
            self.keep(var, start, f"{start} + {n}")
        if step.kind == "bytes":
            self.w.line(f"{var} = _bytes(buf + {start}, {n})")
            return
        decoder = _DECODERS.get(step.encoding.replace("-", "").lower())
        if decoder is None:
            raise NotCompiled(f"{var}: encoding {step.encoding}")
        if step.pad:
            # the pad bytes at the end are no part of the value
            self.declare(f"{var}_n", "Py_ssize_t")
            self.w.line(f"{var}_n = {n}")
            tests = " or ".join(f"buf[{start} + {var}_n - 1] == {b:#04x}" for b in step.pad)
            self.w.line(f"while {var}_n > 0 and ({tests}):")
            with self.w.indent():
                self.w.line(f"{var}_n -= 1")
            n = f"{var}_n"
        if decoder == "_utf8":
            self.w.line(f"{var} = _utf8(buf + {start}, {n})")
        else:
            self.w.line(f"{var} = {decoder}(<const char*>buf + {start}, {n}, NULL)")

    def build(self, step: Build) -> None:
        fields = [name for name, _ in step.fields]
        if self.classes.setdefault(step.class_name, fields) != fields:
            raise NotCompiled(f"{step.class_name}: two field lists")
        if any(step.class_name in classes for classes in self.reuse.values()):
            # a dead model of the class when the entry found one (and only once)
            self.intos.add(f"_into_{step.class_name}")
            self.w.line(f"if _into_{step.class_name} != NULL:")
            with self.w.indent():
                self.w.line(f"{step.var} = <object>_into_{step.class_name}")
                self.w.line(f"_into_{step.class_name} = NULL")
            self.w.line("else:")
            with self.w.indent():
                self.w.line(f"{step.var} = wirespec_alloc(_{step.class_name})")
        else:
            self.w.line(f"{step.var} = wirespec_alloc(_{step.class_name})")
        reused = any(step.class_name in classes for classes in self.reuse.values())
        for name, var in step.fields:
            if reused and self.decls.get(var) in ("uint8_t", "uint16_t", "uint32_t"):
                var = f"shared_int(&{self.shared_int(var)}, {var}, 0)"
            self.w.line(f"wirespec_put({step.var}, _{step.class_name}_{name}, {var})")
        self.untrack(step, reused)

    def untrack(self, step: Build, reused: bool) -> None:
        """CPython's rule for tuples, for a model: one that holds only atomic values (numbers,
        text, bytes, None, enum members, models the collector does not track) can be in no
        reference cycle the reader made, so the cyclic GC need not walk it. Decided here
        where the plan says what each field holds; checked at run time for the fields it
        does not (a nested model, an expression's value). A model that holds a list stays
        tracked. A dead model written again (``reused``) is tracked again when it must be."""
        tests = []
        for _, var in step.fields:
            if self.decls.get(var, "").partition(" = ")[0] in _C_VALUES:
                continue
            held = self.kinds.get(var, {CHECK})
            if is_atomic(held, self.atomic_classes):
                continue
            if held == {LIST}:  # stays tracked
                if reused:
                    self.w.line(f"keep_tracked({step.var})")
                return
            tests.append(f"atomic({var})")
        if not tests:
            self.w.line(f"untrack({step.var})")
            return
        self.w.line(f"if {' and '.join(tests)}:")
        with self.w.indent():
            self.w.line(f"untrack({step.var})")
        if reused:
            self.w.line("else:")
            with self.w.indent():
                self.w.line(f"keep_tracked({step.var})")

    # -- steps that move `pos` themselves ------------------------------------------------

    def moving(self, step, end: str) -> None:
        if isinstance(step, KEYED_STEPS):
            self.keyed(step)
        elif isinstance(step, Number):
            self.number(step, None, end)
        elif isinstance(step, Length):
            ctype, value = self.varint(step.var, step.zigzag, end)
            if ctype == "uint64_t":  # not a Py_ssize_t: too long for anything anyway
                self.decline_if(f"{value} > <uint64_t>PY_SSIZE_T_MAX")
            self.declare(step.var, "Py_ssize_t")
            self.w.line(f"{step.var} = <Py_ssize_t>{value}")
        elif isinstance(step, Processed):
            self.processed(step)
        elif isinstance(step, When):
            self.evaluate(step.test, step.expression)
            self.w.line(f"if {step.test}:")
            with self.w.indent():
                self.branch(step.steps, end)
            self.w.line("else:")
            with self.w.indent():
                self.w.line(f"{step.var} = None")
        elif isinstance(step, Text):
            self.text(step)
        elif isinstance(step, Presence):
            self.declare(step.var, "bint")
            self.w.line(f"{step.var} = pos < {step.end} and buf[pos] == 0x{step.tag:02x}")
            self.w.line(f"if {step.var}:")
            with self.w.indent():
                self.w.line("pos += 1")
        elif isinstance(step, Optional):
            self.w.line(f"if pos < {step.end} and buf[pos] == 0x{step.tag:02x}:")
            with self.w.indent():
                self.off = 1  # the tag, tested just now
                self.checked = 1
                self.steps(step.steps, step.end)
                self.flush()
            self.w.line("else:")
            with self.w.indent():
                self.w.line(f"{step.var} = {step.absent}")
        elif isinstance(step, Repeat):
            self.repeat(step)
        elif isinstance(step, Nested):
            self.nested(step)
        elif isinstance(step, Choice):
            self.choice(step)
        else:
            assert isinstance(step, Switch), step
            self.switch(step, end)

    def depth_arg(self, depth: int) -> str:
        """The depth argument of a call to a record's reader (none where readers take no
        depth)."""
        return f", depth + {depth}" if depth else ""

    def choice(self, step: Choice) -> None:
        """A table of the first byte gives the case's reader when that byte alone decides;
        else ``_pick_<table>`` tries the cases in order, as ``rt_fast.pick``."""
        table = f"_{step.table.upper()}_OF_{self.name.upper()}"
        reader_type = "_DReader" if self.recursive else "_Reader"
        self.calls.update(record for _, _, record in step.cases)
        self.pickers[table] = self.picker(table, reader_type, step.cases)
        reader = f"{step.var}_read"
        self.declare(reader, reader_type)
        self.decline_if(f"pos >= {step.end}")
        self.w.line(f"{reader} = {table}[buf[pos]]")
        self.w.line(f"if {reader} == NULL:")
        with self.w.indent():
            self.w.line(f"{reader} = _pick{table}(buf, pos, {step.end})")
            self.decline_if(f"{reader} == NULL")
        self.w.line(
            f"{step.var} = {reader}(buf, pos, {step.end}, lim, &pos{self.depth_arg(step.depth)})"
        )
        self.decline_if(f"{step.var} is None")

    @staticmethod
    def picker(table: str, reader_type: str, cases) -> str:
        """The table of a choice's first byte (the reader when that byte decides, else
        NULL) and the function that tries every case in order."""
        lines = [
            f"cdef {reader_type} {table}[256]",
            f"cdef {reader_type} _pick{table}(const unsigned char* buf, Py_ssize_t pos,",
            f"{' ' * (len(reader_type) + len(table) + 11)}Py_ssize_t end) noexcept:",
            '    """The first case whose bytes match at ``pos`` (``rt_fast.pick``), or NULL."""',
        ]
        for magic, mask, record in cases:
            tests = [f"end - pos >= {len(magic)}"] + [
                (
                    f"buf[pos + {i}] == {g:#04x}"
                    if m == 0xFF
                    else f"buf[pos + {i}] & {m:#04x} == {g:#04x}"
                )
                for i, (g, m) in enumerate(zip(magic, mask))
            ]
            lines.append(f"    if {' and '.join(tests)}:".replace("pos + 0]", "pos]"))
            lines.append(f"        return _read_{record}")
        lines.append("    return NULL")
        lines.append("")
        lines.append("")
        # the first case a byte matches decides when its magic is that byte alone
        firsts = []
        for byte in range(256):
            first = next(((m, r) for m, k, r in cases if byte & k[0] == m[0]), None)
            firsts.append(first[1] if first is not None and len(first[0]) == 1 else None)
        start = 0
        for byte in range(1, 257):
            if byte == 256 or firsts[byte] != firsts[start]:
                reader = "NULL" if firsts[start] is None else f"_read_{firsts[start]}"
                lines.append(f"for _i in range({start:#04x}, {byte:#05x}):")
                lines.append(f"    {table}[_i] = {reader}")
                start = byte
        return "\n".join(lines)

    def text(self, step: Text) -> None:
        if step.to_end:
            self.decline_if(f"pos > {step.end}")
            self.text_value(step, "pos", f"{step.end} - pos")
            self.w.line(f"pos = {step.end}")
            return
        n = step.length
        if step.nullable:
            self.w.line(f"if {n} == -1:")
            with self.w.indent():
                self.w.line(f"{step.var} = None")
            self.w.line("else:")
            self.w.depth += 1
        tests = [f"{n} < 0"] * step.signed
        if step.max_length is not None:
            tests.append(f"{n} > {step.max_length}")
        tests += [f"{n} > lim.max_string", f"{n} > {step.end} - pos"]
        self.decline_if(" or ".join(tests))
        self.text_value(step, "pos", n)
        self.w.line(f"pos += {n}")
        if step.nullable:
            self.w.depth -= 1

    def nested(self, step: Nested) -> None:
        var = step.var
        if step.length is not None:
            n = step.length
            tests = [f"{n} < 0"] * step.signed
            tests += [f"{n} > lim.max_message_bytes", f"{n} > {step.end} - pos"]
            self.decline_if(" or ".join(tests))
            self.declare(step.inner_end, "Py_ssize_t")
            self.w.line(f"{step.inner_end} = pos + {n}")
        if step.keep:
            self.declare(f"{var}_at", "Py_ssize_t = 0")
            self.declare(f"{var}_end", "Py_ssize_t = 0")
            self.w.line(f"{var}_at = pos")
        self.spare_slot(step)
        if step.steps is not None:
            self.w.line(f"# {step.record}, read here")
            self.steps(step.steps, step.inner_end)
            self.flush()
        else:
            self.calls.add(step.record)
            self.w.line(f"{var} = {self.call(step.record, step.inner_end, var, step.depth)}")
            self.decline_if(f"{var} is None")
        if step.length is not None:
            self.decline_if(f"pos != {step.inner_end}")
        if step.keep:
            self.w.line(f"{var}_end = pos")

    def switch(self, step: Switch, end: str) -> None:
        selector = self.numbers.get(step.selector)
        if selector is None or not selector.enum or step.selector in self.loose:
            raise NotCompiled(f"{step.var}: a switch on what is no enum byte read always")
        for i, case in enumerate(step.cases):
            self.w.line(
                f"{'if' if i == 0 else 'elif'} {step.selector}_c == {case.value:#x}:"
                f"  # {case.member}"
            )
            with self.w.indent():
                self.branch(case.steps, end)
        self.w.line("else:" if step.cases else "if True:")
        with self.w.indent():
            if step.default is None:
                self.w.line(f"{step.var} = None")
            else:
                self.branch(step.default, end)

    def repeat(self, step: Repeat) -> None:
        var, n = step.var, f"{step.item}_n"
        if step.record and step.steps is None:
            self.calls.add(step.record)
        self.declare(n, "Py_ssize_t")
        if step.until == "count" and step.count.isdigit() and step.steps is not None:
            self.preludes.setdefault(_REUSE_PRELUDE)
            self.fixed_list(step)
        else:
            self.w.line(f"{var} = {self.new_list(step)}")
        self.w.line(f"{n} = 0")
        if step.until == "blocks":
            self.blocks(step)
            return
        if step.until == "count" and step.count.isdigit():
            self.decline_if(f"{step.count} > lim.max_count")
            self.w.line(f"while {n} < {step.count}:")
            with self.w.indent():
                if step.steps is None:
                    self.item(step)
                else:
                    self.branch(step.steps, step.end)
                    self.w.line(f"list_put({var}, {n}, {step.item})")
                    self.w.line(f"{n} += 1")
            return
        if step.until == "count":
            ctype = self.decls.get(step.count, "")
            if ctype in (
                "int8_t",
                "int16_t",
                "int32_t",
                "int64_t",
                "uint8_t",
                "uint16_t",
                "uint32_t",
            ):
                # a count read as a C number: no Python int made to check it
                self.decline_if(f"{step.count} < 0 or {step.count} > lim.max_count")
                self.declare(f"{step.item}_k", "Py_ssize_t")
                self.w.line(f"{step.item}_k = <Py_ssize_t>{step.count}")
                self.w.line(f"while {n} < {step.item}_k:")
                with self.w.indent():
                    self.item(step)
                return
            self.expressions = True
            count = f"{step.item}_times"
            self.w.line("try:")
            with self.w.indent():
                self.w.line(f"{count} = {self.python(step.count)}")
            self.w.line("except _EXPRESSION_FAILURES:")
            with self.w.indent():
                self.w.line(_DECLINE)
            self.decline_if(f"type({count}) is not int or {count} < 0 or {count} > lim.max_count")
            self.declare(f"{step.item}_k", "Py_ssize_t")
            self.w.line(f"{step.item}_k = {count}")
            self.w.line(f"while {n} < {step.item}_k:")
            with self.w.indent():
                self.item(step)
            return
        if step.until == "eos":
            self.w.line(f"while pos < {step.end}:")
        else:
            self.w.line(f"while pos < {step.end} and buf[pos] == 0x{step.tag:02x}:")
        with self.w.indent():
            self.decline_if(f"{n} >= lim.max_count")
            self.item(step)
        if step.min_count:
            self.decline_if(f"{n} < {step.min_count}")

    def new_list(self, step: Repeat) -> str:
        """What a list read by ``step`` starts as."""
        return "[]"

    def call(self, record: str, end: str, var: str, depth: int = 0) -> str:
        """The call of ``record``'s reader up to ``end`` for ``var`` (a field, or a list's
        element), ``depth`` levels below this one: it advances ``pos`` and is None on a
        decline."""
        return f"_read_{record}(buf, pos, {end}, lim, &pos{self.depth_arg(depth)})"

    def element_member(self, cls: str, member: str) -> str:
        """The C byte ``member`` of list element ``e`` (a ``cls`` model)."""
        return f"<uint8_t>wirespec_get(e, _{cls}_{member})"

    def item(self, step: Repeat) -> None:
        """One item of a repeat, appended and counted in ``<var>_n``."""
        if step.steps is None:
            self.w.line(f"{step.item} = {self.call(step.record, step.end, step.var, step.depth)}")
            self.decline_if(f"{step.item} is None")
        else:
            self.branch(step.steps, step.end)
        self.w.line(f"{step.var}.append({step.item})")
        self.w.line(f"{step.item}_n += 1")

    def blocks(self, step: Repeat) -> None:
        """Avro's blocks, as ``FastPathEmitter`` reads them."""
        end = step.end
        count, k, size = f"{step.item}_count", f"{step.item}_k", f"{step.item}_size"
        self.declare(count, "int64_t")
        self.declare(k, "Py_ssize_t")
        self.declare(size, "int64_t")
        self.declare(f"{step.item}_stop", "Py_ssize_t = 0")
        self.declare(f"{step.item}_i", "Py_ssize_t")
        self.w.line(f"{step.blocks} = []")
        self.w.line("while True:")
        with self.w.indent():
            self.w.line(f"{count} = {self.varint(count, True, end)[1]}")
            self.w.line(f"if {count} == 0:")
            with self.w.indent():
                self.w.line("break")
            self.decline_if(f"{count} < -lim.max_count or {count} > lim.max_count")
            self.w.line(f"{k} = {count} if {count} > 0 else -{count}")
            self.decline_if(f"{k} > lim.max_count - {step.item}_n")
            self.w.line(f"if {count} < 0:")
            with self.w.indent():
                self.w.line(f"{size} = {self.varint(size, True, end)[1]}")
                self.decline_if(f"{size} < 0 or {size} > {end} - pos")
                self.w.line(f"{step.item}_stop = pos + {size}")
            self.w.line(f"for {step.item}_i in range({k}):")
            with self.w.indent():
                self.item(step)
            self.decline_if(f"{count} < 0 and pos != {step.item}_stop")
            self.w.line(f"{step.blocks}.append({count})")

    def processed(self, step: Processed) -> None:
        """``process:``: the bytes decoded (``none``: read where they are), then read; the
        steps read ``buf``, so it points into the decoded bytes while they do."""
        self.expressions = True
        n, inner_end, codec = step.length, step.inner_end, f"{step.inner_end}_codec"
        plain, outer = f"{inner_end}_plain", f"{inner_end}_outer"
        if step.rest:
            self.declare(n, "Py_ssize_t")
            self.w.line(f"{n} = {step.end} - pos")
        else:
            tests = [f"{n} < 0"] * step.signed
            tests += [f"{n} > lim.max_message_bytes", f"{n} > {step.end} - pos"]
            self.decline_if(" or ".join(tests))
        self.declare(inner_end, "Py_ssize_t")
        self.declare(plain, "bytes")
        self.declare(f"{outer}_buf", "const unsigned char* = NULL")
        self.declare(f"{outer}_pos", "Py_ssize_t = 0")
        self.declare(f"{inner_end}_decoded", "bint")
        keep = f"{step.wire} = PyBytes_FromStringAndSize(<const char*>buf + pos, {n})"
        if not step.rest:
            self.w.line(keep)
        self.w.line("try:")
        with self.w.indent():
            cases = "None" if not step.cases else repr(dict(step.cases))
            self.w.line(f"{codec} = rt_process.codec_for({self.python(step.codec)}, {cases})")
        self.w.line("except _EXPRESSION_FAILURES:")
        with self.w.indent():
            self.w.line(_DECLINE)
        self.w.line(f'{inner_end}_decoded = {codec} != "none"')
        self.w.line(f"if {inner_end}_decoded:")
        with self.w.indent():
            if step.rest:
                self.w.line(keep)
            self.w.line("try:")
            with self.w.indent():
                self.w.line(
                    f"{plain} = rt_process.decode({codec}, {step.wire},"
                    " lim.max_decompressed_bytes)"
                )
            self.w.line("except DecodeError:")
            with self.w.indent():
                self.w.line(_DECLINE)
            self.w.line(f"{outer}_buf = buf")
            self.w.line(f"{outer}_pos = pos + {n}")
            self.w.line(f"buf = {plain}")
            self.w.line("pos = 0")
            self.w.line(f"{inner_end} = len({plain})")
        self.w.line("else:")
        with self.w.indent():
            self.w.line(f"{inner_end} = pos + {n}")
            if step.rest:  # read in place, nothing kept
                self.w.line(f"{step.wire} = None")
        self.w.line(f"# {step.var}, read here")
        self.off = 0
        self.checked = 0
        self.steps(step.steps, inner_end)
        self.flush()
        self.decline_if(f"pos != {inner_end}")
        self.w.line(f"if {inner_end}_decoded:")
        with self.w.indent():
            self.w.line(f"buf = {outer}_buf")
            self.w.line(f"pos = {outer}_pos")

    # -- checksums -----------------------------------------------------------------------

    def checksum(self, step: Checksum) -> None:
        if step.items[0].kind == "span":
            # the C function of the exact reader, over the bytes where they are
            self.expressions = True
            span = step.items[0]
            self.w.line(
                f"{step.var}_crc = _CHECKSUMS[{step.algorithm!r}](PyMemoryView_FromMemory("
                f"<char*>buf + {span.var}, {span.target} - {span.var}, PyBUF_READ))"
            )
            self.decline_if(f"{step.var} != {step.var}_crc")
            return
        if step.algorithm == "crc32":
            self.crc32(step)
            return
        if step.algorithm != "crc8":
            raise NotCompiled(f"{step.var}: a {step.algorithm} checksum")
        crc = f"{step.var}_crc"
        for item in self.crc8_start(step, crc):
            if item.kind == "raw":
                line = f"{crc} = _crc8({crc}, buf, {item.var}_at, {item.var}_end)"
                if item.optional:
                    self.w.line(f"if {item.var} is not None:")
                    with self.w.indent():
                        self.w.line(line)
                else:
                    self.w.line(line)
            elif item.kind == "each" and item.target == "u8":
                cls = self.lowering.plans[self.repeats[item.var]].class_name
                self.w.line(f"for e in {item.var}:")
                with self.w.indent():
                    self.w.line(f"{crc} = _CRC8[{crc} ^ {self.element_member(cls, item.member)}]")
            elif item.kind == "value" and step.one_byte:
                names = {
                    n.id for n in ast.walk(ast.parse(item.expression)) if isinstance(n, ast.Name)
                }
                if not names <= set(self.decls) | self.loose:
                    raise NotCompiled(f"{step.var}: a value over {sorted(names)}")
                self.w.line(f"{crc} = _CRC8[{crc} ^ ({item.expression})]")
            else:
                raise NotCompiled(f"{step.var}: a checksum item {item.kind}")
        self.decline_if(f"{step.var} != {crc}")

    def crc8_start(self, step: Checksum, crc: str) -> tuple:
        """Start the CRC-8 in ``crc``; returns the items still to add to it."""
        self.declare(crc, "unsigned int")
        self.w.line(f"{crc} = 0")
        return step.items

    def crc32(self, step: Checksum) -> None:
        """zlib's CRC-32 of raw items, over the bytes where they are: items that follow
        each other (a header's fields, then the body) are one run, one call."""
        if not all(item.kind == "raw" and not item.optional for item in step.items):
            raise NotCompiled(f"{step.var}: a CRC-32 of other than raw items")
        self.preludes.setdefault(_CRC32_PRELUDE)
        crc, start, stop = f"{step.var}_crc", f"{step.var}_from", f"{step.var}_to"
        self.declare(crc, "uint32_t")
        self.declare(start, "Py_ssize_t")
        self.declare(stop, "Py_ssize_t")
        first, *rest = step.items
        self.w.line(f"{crc} = 0")
        self.w.line(f"{start} = {first.var}_at")
        self.w.line(f"{stop} = {first.var}_end")
        for item in rest:
            self.w.line(f"if {item.var}_at == {stop}:")
            with self.w.indent():
                self.w.line(f"{stop} = {item.var}_end")
            self.w.line("else:")
            with self.w.indent():
                self.w.line(f"{crc} = crc32_update({crc}, buf + {start}, {stop} - {start})")
                self.w.line(f"{start} = {item.var}_at")
                self.w.line(f"{stop} = {item.var}_end")
        self.w.line(f"{crc} = crc32_update({crc}, buf + {start}, {stop} - {start})")
        self.decline_if(f"{step.var} != {crc}")

    # -- mysql::serialization messages, and sizes from expressions -----------------------

    def keyed(self, step) -> None:
        """A step of :data:`generator.emit.plan.KEYED_STEPS`."""
        self.preludes.setdefault(_KEYED_PRELUDE)
        if isinstance(step, SizeOf):
            self.size_of(step)
        elif isinstance(step, MsbNumber):
            self.msb_number(step)
        elif isinstance(step, KeyedHeader):
            self.keyed_header(step)
        elif isinstance(step, KeyedField):
            self.keyed_field(step)
        elif isinstance(step, Fallback):
            self.w.line(f"if {step.var} is None:")
            with self.w.indent():
                self.w.line(f"{step.var} = {step.source}")
        else:
            assert isinstance(step, Rest), step
            self.w.line(f"if pos < {step.end}:")
            with self.w.indent():
                self.w.line(
                    f"{step.var} = PyBytes_FromStringAndSize(<const char*>buf + pos,"
                    f" {step.end} - pos)"
                )
                self.w.line(f"pos = {step.end}")
            self.w.line("else:")
            with self.w.indent():
                self.w.line(f"{step.var} = None")

    def size_of(self, step: SizeOf) -> None:
        """A size from an expression, as a C size: C arithmetic for ``<C number> - <n>``,
        else the expression's Python value (no int, or too big: not mine)."""
        self.declare(step.var, "Py_ssize_t")
        terms = re.fullmatch(r"(\w+) - (\d+)", step.expression)
        small = ("uint8_t", "uint16_t", "uint32_t", "int8_t", "int16_t", "int32_t")
        if terms and self.decls.get(terms[1]) in small:
            self.w.line(f"{step.var} = <Py_ssize_t>{terms[1]} - {terms[2]}")
            return
        self.evaluate(f"{step.var}_value", step.expression)
        self.decline_if(
            f"type({step.var}_value) is not int"
            f" or not -PY_SSIZE_T_MAX <= {step.var}_value <= PY_SSIZE_T_MAX"
        )
        self.w.line(f"{step.var} = {step.var}_value")

    def msb_number(self, step: MsbNumber) -> None:
        raw = f"{step.var}_u"
        self.declare(raw, "uint64_t")
        self.msb_read(raw, step.end, step.bits)
        if step.length:
            self.decline_if(f"{raw} > <uint64_t>PY_SSIZE_T_MAX")
            self.declare(step.var, "Py_ssize_t")
            self.w.line(f"{step.var} = <Py_ssize_t>{raw}")
        else:
            shared = self.shared_int(step.var)
            self.w.line(f"{step.var} = shared_int(&{shared}, {raw}, {int(step.signed)})")

    def msb_read(self, raw: str, end: str, bits: int = 64) -> None:
        """An msb-count varint at ``pos`` into the C ``raw``, its one-byte form inline."""
        self.w.line(f"if pos < {end} and not buf[pos] & 1:")
        with self.w.indent():
            self.w.line(f"{raw} = buf[pos] >> 1")
            self.w.line("pos += 1")
        test = f"not msb_uvar(buf, &pos, {end}, &{raw})"
        if bits < 64:
            test += f" or {raw} >> {bits}"
        self.w.line("else:")
        with self.w.indent():
            self.decline_if(test)

    def shared_int(self, var: str) -> str:
        """The ``SharedInt`` global of a variable of this record (declared once)."""
        name = f"_shared_{self.name}_{var}"
        if name not in self.shared_ints:
            self.shared_ints.append(name)
        return name

    def keyed_header(self, step: KeyedHeader) -> None:
        for var, ctype in (
            ("k_start", "Py_ssize_t"),
            ("k_size_at", "Py_ssize_t"),
            ("k_lnifid_at", "Py_ssize_t"),
            ("k_version", "uint64_t"),
            ("k_declared", "uint64_t"),
            ("k_lnifid", "uint64_t"),
        ):
            self.declare(var, ctype)
        end = step.end
        self.w.line("k_start = pos")
        self.msb_read("k_version", end)
        self.decline_if("k_version != 1")
        self.w.line("k_size_at = pos")
        self.msb_read("k_declared", end)
        self.w.line("k_lnifid_at = pos")
        self.msb_read("k_lnifid", end)
        self.decline_if(f"k_lnifid > {step.fields}")
        self.w.line("# the message is the rest of the input: its true length or MySQL's formula")
        self.decline_if(
            f"k_declared != <uint64_t>({end} - k_start) and k_declared != <uint64_t>("
            f"(k_size_at - k_start) + msb_size({end} - pos) + (pos - k_lnifid_at)"
            f" + ({end} - pos))"
        )
        self.w.line(
            f"{step.declared} = shared_int(&{self.shared_int(step.declared)}, k_declared, 0)"
        )
        self.w.line(f"{step.lnifid} = shared_int(&{self.shared_int(step.lnifid)}, k_lnifid, 0)")

    def keyed_field(self, step: KeyedField) -> None:
        """The next field id peeked (its one-byte form first); the value read when it is
        this field's."""
        self.declare("k_present", "bint")
        self.declare("k_key", "uint64_t")
        self.declare("k_key_at", "Py_ssize_t")
        self.w.line("k_present = False")
        self.w.line(f"if pos < {step.end}:")
        with self.w.indent():
            if step.id < 64:
                self.w.line(f"if buf[pos] == 0x{2 * step.id:02x}:")
                with self.w.indent():
                    self.w.line("pos += 1")
                    self.w.line("k_present = True")
                self.w.line("else:")
                self.w.depth += 1
            self.w.line("k_key_at = pos")
            self.decline_if(f"not msb_uvar(buf, &k_key_at, {step.end}, &k_key)")
            self.decline_if(f"k_key < {step.id}")  # out of order
            self.w.line(f"if k_key == {step.id}:")
            with self.w.indent():
                self.w.line("pos = k_key_at")
                self.w.line("k_present = True")
            if step.id < 64:
                self.w.depth -= 1
        self.w.line("if k_present:")
        with self.w.indent():
            self.branch(step.steps, step.end)
        self.w.line("else:")
        with self.w.indent():
            if step.absent == "required":
                self.w.line(_DECLINE)
            else:
                self.w.line(f"{step.var} = {step.default or 'None'}")

    # -- models reused once dead ---------------------------------------------------------

    def _reuse_records(self) -> dict[str, list[str]]:
        """Entry record -> the classes of the models it builds (its own, then those in its
        record fields), for the entries of mysql::serialization messages and of records
        that hold one: a binlog's events are read one after another and dropped, and
        each would otherwise free one event and body and allocate the next
        (``runtime/_compiled/reuse.pxd``)."""
        plans = self.lowering.plans
        out = {}
        for name in self.lowering.entries:
            plan = plans[name]
            build = plan.steps[-1]
            classes = [plan.class_name]
            keyed = isinstance(plan.steps[0], KeyedHeader)
            for step in flatten(plan.steps):
                if isinstance(step, Nested) and step.record in plans:
                    inner = plans[step.record]
                    keyed = keyed or isinstance(inner.steps[0], KeyedHeader)
                    if any(var == step.var for _, var in build.fields):
                        classes.append(inner.class_name)
            if keyed:
                out[name] = classes
        return out

    def reader(self, name: str) -> str:
        """The C reader of an entry: ``_read_<name>``, its reusing wrapper, or where the
        spec recurses its ``_top_<name>`` reading at depth 1."""
        if self.recursive:
            return f"_top_{name}"
        return f"_reuse_{name}" if name in self.reuse else f"_read_{name}"

    def reuse_entry(self, name: str) -> str:
        """``_read_<name>`` writing into the model it returned last when its caller has
        dropped it (and into that model's record fields when nothing else holds them)."""
        cls, *inner = self.reuse[name]
        classes = [cls, *inner]
        intos = ", ".join(f"_into_{c}" for c in classes)
        signature = "const unsigned char* buf, Py_ssize_t pos, Py_ssize_t end, _Limits* lim,"
        lines = [
            f"cdef object _last_{name} = None",
            f'"""The model ``_reuse_{name}`` returned last."""',
            "",
            "",
            f"cdef object _reuse_{name}({signature}",
            f"{' ' * (len(name) + 20)}Py_ssize_t* stop):",
            f'    """``_read_{name}`` into the model it returned last, when dead."""',
            f"    global _last_{name}, {intos}",
            f"    _into_{cls} = spare(<PyObject*>_last_{name}, _{cls})",
            "    try:",
            f"        model = _read_{name}(buf, pos, end, lim, stop)",
            "    finally:  # a declined read leaves no dead model to the next one",
        ]
        lines += [f"        _into_{c} = NULL" for c in classes]
        lines += [
            "    if model is not None:",
            f"        _last_{name} = model",
            "    return model",
        ]
        return "\n".join(lines)

    def spare_slot(self, step: Nested) -> None:
        """Before a record field of a reusing entry's model: the dead model in that slot,
        for the field's Build."""
        classes = self.reuse.get(self.plan.name)
        if not classes or step.record not in self.lowering.plans:
            return
        build = self.plan.steps[-1]
        field = next((name for name, var in build.fields if var == step.var), None)
        inner = self.lowering.plans[step.record].class_name
        if field is None or inner not in classes:
            return
        outer = self.plan.class_name
        self.intos.add(f"_into_{inner}")
        self.w.line(f"_into_{inner} = spare_slot(_into_{outer}, _{outer}_{field}, _{inner})")

    def fixed_list(self, step: Repeat) -> None:
        """The list of a repeat of a literal count: the dead model's when the entry
        reuses it and nothing else holds that list, else a new one of that size."""
        classes = [c for name, cs in self.reuse.items() for c in cs]
        build = self.plan.steps[-1]
        field = next((name for name, var in build.fields if var == step.var), None)
        cls = self.plan.class_name
        if field is not None and cls in classes:
            spare = f"{step.var}_spare"
            self.declare(spare, "PyObject*")
            self.w.line(f"{spare} = spare_list(_into_{cls}, _{cls}_{field}, {step.count})")
            self.w.line(
                f"{step.var} = PyList_New({step.count}) if {spare} == NULL else <list>{spare}"
            )
        else:
            self.w.line(f"{step.var} = PyList_New({step.count})")
