"""Helpers for the Thrift tests: peer classes (Apache thrift, thriftpy2) built from a
wirespec Thrift spec, hypothesis strategies for its structs, and a value normal form that
both sides can be compared in."""

from __future__ import annotations

import io
import math
import struct
from pathlib import Path

from hypothesis import strategies as st
from thrift.protocol.TBase import TBase
from thrift.protocol.TCompactProtocol import TCompactProtocol, TCompactProtocolAccelerated
from thrift.Thrift import TType
from thrift.transport.TTransport import TMemoryBuffer

from generator.emit.user_spec import import_spec
from generator.spec.loader import load
from generator.spec.thrift import build_thrift_model

DATA = Path(__file__).parent / "data" / "thrift"
SHAPES = DATA / "shapes.yaml"

_SCALAR_TT = {
    "bool": TType.BOOL,
    "i8": TType.BYTE,
    "i16": TType.I16,
    "i32": TType.I32,
    "i64": TType.I64,
    "double": TType.DOUBLE,
    "string": TType.STRING,
    "binary": TType.STRING,
    "uuid": TType.UUID,
    "enum": TType.I32,
}


def thrift_model(path: Path = SHAPES):
    return build_thrift_model(load(path, path.name))


def codec(path: Path = SHAPES):
    return import_spec(path)


# -- Apache thrift classes -------------------------------------------------------------


class ApacheClasses:
    """TBase subclasses with a ``thrift_spec`` for every struct of a spec. Reading uses the
    id-indexed spec; the pure-Python writer writes fields in declared order (as Apache's
    generated code does), the C writer in ascending id order."""

    def __init__(self, spec):
        self.spec = spec
        self.classes = {}
        for s in spec.structs.values():
            names = tuple(f.name for f in s.fields)
            self.classes[s.name] = type(
                s.name, (_ApacheBase,), {"__slots__": names, "_names": names}
            )
        for s in spec.structs.values():
            cls = self.classes[s.name]
            entries = {
                f.id: (f.id, self.ttype(f.type), f.name, self.targs(f.type), None) for f in s.fields
            }
            top = max(entries) if entries else 0
            cls.thrift_spec = tuple(entries.get(i) for i in range(top + 1))
            cls._declared = tuple(entries[f.id] for f in s.fields)

    def ttype(self, t):
        if t.kind in _SCALAR_TT:
            return _SCALAR_TT[t.kind]
        return {"list": TType.LIST, "set": TType.SET, "map": TType.MAP, "struct": TType.STRUCT}[
            t.kind
        ]

    def targs(self, t):
        if t.kind == "string":
            return "UTF8"
        if t.kind == "binary":
            return "BINARY"
        if t.kind in ("list", "set"):
            return (self.ttype(t.elem), self.targs(t.elem), False)
        if t.kind == "map":
            return (
                self.ttype(t.key),
                self.targs(t.key),
                self.ttype(t.value),
                self.targs(t.value),
                False,
            )
        if t.kind == "struct":
            return [self.classes[t.name], None]
        return None

    # values: wirespec model -> Apache object
    def to_peer(self, v, t):
        if v is None:
            return None
        if t.kind == "struct":
            s = self.spec.structs[t.name]
            obj = self.classes[t.name]()
            for f in s.fields:
                setattr(obj, f.name, self.to_peer(getattr(v, f.attr), f.type))
            return obj
        if t.kind == "list":
            return [self.to_peer(x, t.elem) for x in v]
        if t.kind == "set":
            return {self.to_peer(x, t.elem) for x in v}
        if t.kind == "map":
            return {self.to_peer(a, t.key): self.to_peer(b, t.value) for a, b in v.items()}
        if t.kind == "enum":
            return int(v)
        return v

    def write(self, obj, accelerated=False) -> bytes:
        buf = TMemoryBuffer()
        proto = (
            TCompactProtocolAccelerated(buf, fallback=False)
            if accelerated
            else TCompactProtocol(buf)
        )
        obj.write(proto)
        return buf.getvalue()

    def read(self, name, data: bytes, accelerated=False):
        obj = self.classes[name]()
        buf = TMemoryBuffer(data)
        proto = (
            TCompactProtocolAccelerated(buf, fallback=False)
            if accelerated
            else TCompactProtocol(buf)
        )
        obj.read(proto)
        return obj


class _ApacheBase(TBase):
    __slots__ = ()
    _names = ()

    def __init__(self, **kw):
        for n in self._names:
            setattr(self, n, kw.get(n))

    def write(self, oprot):
        if oprot._fast_encode is not None:
            return TBase.write(self, oprot)
        oprot.writeStruct(self, self._declared)


def fix_lazy_specs(apache: ApacheClasses) -> None:
    """Fill the ``[cls, None]`` struct references with the class's spec, as Apache's
    generated ``fix_spec`` does (mutable lists, so recursive structs work)."""

    def fix(args):
        if isinstance(args, list) and len(args) == 2 and isinstance(args[0], type):
            args[1] = args[0].thrift_spec
        elif isinstance(args, tuple):
            for a in args:
                fix(a)

    for cls in apache.classes.values():
        for e in cls.thrift_spec:
            if e is not None:
                fix(e[3])


def apache_classes(spec) -> ApacheClasses:
    out = ApacheClasses(spec)
    fix_lazy_specs(out)
    return out


# -- thriftpy2 -------------------------------------------------------------------------


def idl_text(spec, skip_uuid=True) -> str:
    """Thrift IDL for a spec (uuid fields left out: thriftpy2 has no uuid)."""

    def ty(t):
        if t.kind in ("list", "set"):
            return f"{t.kind}<{ty(t.elem)}>"
        if t.kind == "map":
            return f"map<{ty(t.key)}, {ty(t.value)}>"
        return t.name or t.kind

    lines = []
    for e in spec.enums.values():
        lines.append(f"enum {e.name} {{ " + ", ".join(f"{n} = {v}" for n, v, _ in e.values) + " }")
    for s in spec.structs.values():
        fields = []
        for f in s.fields:
            if skip_uuid and "uuid" in f.type.describe():
                continue
            req = {"required": "required ", "optional": "optional ", "default": ""}[f.requiredness]
            fields.append(f"  {f.id}: {req}{ty(f.type)} {f.name};")
        lines.append(f"{s.kind} {s.name} {{\n" + "\n".join(fields) + "\n}")
    return "\n".join(lines) + "\n"


def thriftpy2_module(spec, name="shapes_thrift"):
    import thriftpy2

    return thriftpy2.load_fp(io.StringIO(idl_text(spec)), module_name=name)


def tp2_to_peer(tp2, spec, v, t):
    if v is None:
        return None
    if t.kind == "struct":
        s = spec.structs[t.name]
        cls = getattr(tp2, t.name)
        kw = {
            f.name: tp2_to_peer(tp2, spec, getattr(v, f.attr), f.type)
            for f in s.fields
            if f.type.kind != "uuid"
        }
        return cls(**kw)
    if t.kind == "list":
        return [tp2_to_peer(tp2, spec, x, t.elem) for x in v]
    if t.kind == "set":
        return {tp2_to_peer(tp2, spec, x, t.elem) for x in v}
    if t.kind == "map":
        return {
            tp2_to_peer(tp2, spec, a, t.key): tp2_to_peer(tp2, spec, b, t.value)
            for a, b in v.items()
        }
    if t.kind == "enum":
        return int(v)
    return v


# -- normal form -----------------------------------------------------------------------


def norm(spec, v, t):
    """A comparable form of a value from any of the three libraries."""
    if v is None:
        return None
    k = t.kind
    if k == "struct":
        s = spec.structs[t.name]
        out = {}
        for f in s.fields:
            x = getattr(v, f.attr, None) if hasattr(v, f.attr) else getattr(v, f.name, None)
            if x is not None:
                out[f.name] = norm(spec, x, f.type)
        return out
    if k == "list":
        return [norm(spec, x, t.elem) for x in v]
    if k == "set":
        return sorted((norm(spec, x, t.elem) for x in v), key=repr)
    if k == "map":
        return sorted(
            ((norm(spec, a, t.key), norm(spec, b, t.value)) for a, b in v.items()), key=repr
        )
    if k == "double":
        return ("f64", struct.pack("<d", v).hex())
    if k == "enum":
        return int(v)
    if k == "bool":
        return bool(v)
    return v


# -- hypothesis strategies -------------------------------------------------------------

_INT_BITS = {"i8": 8, "i16": 16, "i32": 32, "i64": 64}


def nan_floats():
    """Doubles including NaNs with payloads, infinities and -0.0."""
    payload_nans = st.integers(1, 2**52 - 1).map(
        lambda m: struct.unpack("<d", struct.pack("<Q", 0x7FF0000000000000 | m))[0]
    )
    return st.one_of(st.floats(allow_nan=False), st.just(-0.0), payload_nans, st.just(math.inf))


def strategy(spec, module, t, depth=0, uuid_ok=True, sizes=True):
    k = t.kind
    if k == "bool":
        return st.booleans()
    if k in _INT_BITS:
        b = _INT_BITS[k]
        return st.integers(-(2 ** (b - 1)), 2 ** (b - 1) - 1)
    if k == "double":
        return nan_floats()
    if k == "string":
        return st.text(max_size=20)
    if k == "binary":
        return st.binary(max_size=20)
    if k == "uuid":
        return st.uuids()
    if k == "enum":
        return st.sampled_from(list(getattr(module, t.name)))
    if k in ("list", "set"):
        elem = strategy(spec, module, t.elem, depth + 1, uuid_ok, sizes=False)
        unique = k == "set"
        lengths = [st.lists(elem, max_size=4, unique=unique)]
        if sizes and t.elem.kind not in ("struct", "list", "map"):
            lengths.append(st.lists(elem, min_size=14, max_size=15, unique=unique))
            lengths.append(st.lists(elem, min_size=200, max_size=200, unique=unique))
        return st.one_of(lengths)
    if k == "map":
        key = strategy(spec, module, t.key, depth + 1, uuid_ok, sizes=False)
        val = strategy(spec, module, t.value, depth + 1, uuid_ok, sizes=False)
        return st.dictionaries(key, val, max_size=4)
    if k == "struct":
        return struct_strategy(spec, module, t.name, depth + 1, uuid_ok)
    raise AssertionError(k)


def struct_strategy(spec, module, name, depth=0, uuid_ok=True):
    s = spec.structs[name]
    cls = getattr(module, name)
    fields = {}
    for f in s.fields:
        if not uuid_ok and "uuid" in f.type.describe():
            fields[f.attr] = st.none()
            continue
        if f.type.kind == "struct" and (depth > 3 or s.recursive and depth > 2):
            fields[f.attr] = (
                st.none()
                if not f.required
                else st.deferred(
                    lambda n=f.type.name: struct_strategy(spec, module, n, depth + 1, uuid_ok)
                )
            )
            continue
        if "list<Node>" in f.type.describe() and depth > 2:
            fields[f.attr] = st.none()
            continue
        sub = st.deferred(lambda f=f: strategy(spec, module, f.type, depth, uuid_ok))
        fields[f.attr] = sub if f.required else st.one_of(st.none(), sub)
    if s.kind == "union":
        return st.sampled_from(s.fields).flatmap(
            lambda f: st.deferred(lambda: strategy(spec, module, f.type, depth, uuid_ok)).map(
                lambda v: cls(**{f.attr: v})
            )
        )
    return st.fixed_dictionaries(fields).map(lambda kw: cls(**kw))


def apache_bytes(apache, obj, accelerated=False):
    return apache.write(obj, accelerated)
