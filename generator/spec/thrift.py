"""The model of a Thrift spec (``protocol: thrift_compact``), checked for meaning.

A Thrift spec lists ``structs:`` (structs, unions, exceptions) whose fields carry an id,
a name and a type written as in Thrift IDL (``list<map<string, Address>>``), plus
``enums:`` (i32 with names) and ``typedefs:``. The protocol's own constants (type ids,
header layouts, the envelope) come from the ``wire:`` section of
``specs/thrift_compact.yaml``, so every generated Thrift module follows one definition.

    >>> parse_type("map<string, list<i32>>", {}, {}, {}).describe()
    'map<string, list<i32>>'
"""

from __future__ import annotations

import builtins
import dataclasses
import keyword
import re
import uuid
from pathlib import Path

from generator import ROOT
from generator.spec import names as spec_names
from generator.spec.loader import LoadedSpec, load
from generator.spec.model import int_range
from runtime.core.errors import did_you_mean

PROTOCOL_SPEC = "thrift_compact.yaml"
BASE_TYPES = ("bool", "i8", "i16", "i32", "i64", "double", "string", "binary", "uuid")
ALIASES = {"byte": "i8"}
_TOKEN = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_.]*|[<>,])")


@dataclasses.dataclass
class TType:
    """A Thrift type tree."""

    kind: str
    """bool i8 i16 i32 i64 double string binary uuid enum struct list set map"""
    name: str = ""
    elem: TType | None = None
    key: TType | None = None
    value: TType | None = None
    ct: int = 0
    """The compact type id (from the protocol spec's wire.compact_type)."""
    ct_name: str = ""

    def describe(self) -> str:
        if self.kind in ("list", "set"):
            return f"{self.kind}<{self.elem.describe()}>"
        if self.kind == "map":
            return f"map<{self.key.describe()}, {self.value.describe()}>"
        return self.name or self.kind

    @property
    def py(self) -> str:
        """The Python annotation of a value of this type."""
        return {
            "bool": "bool",
            "i8": "int",
            "i16": "int",
            "i32": "int",
            "i64": "int",
            "double": "float",
            "string": "str",
            "binary": "bytes",
            "uuid": "uuid.UUID",
            "enum": f"{self.name} | int",
            "struct": f"{self.name}",
            "list": f"list[{self.elem.py if self.elem else ''}]",
            "set": f"list[{self.elem.py if self.elem else ''}]",
            "map": f"dict[{self.key.py if self.key else ''}, {self.value.py if self.value else ''}]",
        }[self.kind]

    @property
    def min_bytes(self) -> int:
        """Fewest bytes one element of this type takes on the wire."""
        return {"double": 8, "uuid": 16}.get(self.kind, 1)


@dataclasses.dataclass
class TField:
    id: int
    name: str
    type: TType
    requiredness: str
    """required | optional | default"""
    doc: str
    line: int | None
    default: object = None
    has_default: bool = False

    @property
    def attr(self) -> str:
        return attr_name(self.name)

    @property
    def required(self) -> bool:
        return self.requiredness == "required"


@dataclasses.dataclass
class TStruct:
    name: str
    kind: str
    """struct | union | exception"""
    doc: str
    fields: list[TField]
    line: int | None
    recursive: bool = False

    @property
    def by_id(self) -> list[TField]:
        return sorted(self.fields, key=lambda f: f.id)


@dataclasses.dataclass
class TEnum:
    name: str
    doc: str
    values: list[tuple[str, int, str]]


@dataclasses.dataclass
class TMethod:
    """A service method: the structs of its call (``args``) and reply (``result``)."""

    name: str
    args: str
    result: str | None
    oneway: bool
    doc: str


@dataclasses.dataclass
class ThriftSpec:
    format: str
    title: str
    doc: str
    default_record: str
    source: LoadedSpec
    protocol_source: LoadedSpec
    wire: dict
    enums: dict[str, TEnum]
    structs: dict[str, TStruct]
    limits: dict[str, int] = dataclasses.field(default_factory=dict)
    """``limits:``: this format's defaults for :class:`runtime.core.limits.Limits`."""
    methods: dict[str, TMethod] = dataclasses.field(default_factory=dict)
    """Message name -> method, from ``services:``: each method under its own name (the
    first service that has it wins) and as ``Service:method`` (TMultiplexedProtocol)."""

    @property
    def compact_types(self) -> list[tuple[str, int, str]]:
        vals = self.wire["compact_type"]["values"]
        return [(k, v["value"], v["doc"]) for k, v in vals.items()]

    @property
    def message_types(self) -> list[tuple[str, int, str]]:
        vals = self.wire["message_type"]["values"]
        return [(k, v["value"], v["doc"]) for k, v in vals.items()]


# Which compact type id (a member of wire.compact_type) each kind is written with.
KIND_CT = {
    "bool": "BOOLEAN_TRUE",
    "i8": "I8",
    "i16": "I16",
    "i32": "I32",
    "i64": "I64",
    "enum": "I32",
    "double": "DOUBLE",
    "string": "BINARY",
    "binary": "BINARY",
    "uuid": "UUID",
    "list": "LIST",
    "set": "SET",
    "map": "MAP",
    "struct": "STRUCT",
}


class _TypeError(Exception):
    pass


def parse_type(text: str, structs, enums, typedefs, ct=None, _seen=()) -> TType:
    """A type tree from IDL-like text; names resolve to structs, enums and typedefs."""
    tokens = [m.group(1) for m in _TOKEN.finditer(text)]
    if "".join(tokens) != re.sub(r"\s+", "", text):
        raise _TypeError(f"cannot read the type {text!r}")
    pos = 0

    def take():
        nonlocal pos
        if pos >= len(tokens):
            raise _TypeError(f"type {text!r} ends too early")
        pos += 1
        return tokens[pos - 1]

    def expect(tok):
        got = take()
        if got != tok:
            raise _TypeError(f"expected {tok!r} in type {text!r}, got {got!r}")

    def one() -> TType:
        name = take()
        name = ALIASES.get(name, name)
        if name in ("list", "set"):
            expect("<")
            elem = one()
            expect(">")
            t = TType(name, elem=elem)
        elif name == "map":
            expect("<")
            key = one()
            expect(",")
            value = one()
            expect(">")
            if key.kind in ("list", "set", "map", "struct"):
                raise _TypeError(
                    f"map keys of type {key.describe()} are not supported (Python dict keys)"
                )
            t = TType("map", key=key, value=value)
        elif name in BASE_TYPES:
            t = TType(name)
        elif name in enums:
            t = TType("enum", name=name)
        elif name in structs:
            t = TType("struct", name=name)
        elif name in typedefs:
            if name in _seen:
                raise _TypeError(f"typedef {name!r} refers to itself")
            t = parse_type(typedefs[name], structs, enums, typedefs, ct, _seen + (name,))
        else:
            known = [*BASE_TYPES, *enums, *structs, *typedefs]
            raise _TypeError(f"unknown type {name!r}{did_you_mean(name, known)}")
        if ct is not None:
            _set_ct(t, ct)
        return t

    t = one()
    if pos != len(tokens):
        raise _TypeError(f"unexpected {tokens[pos]!r} in type {text!r}")
    return t


def _set_ct(t: TType, ct: dict) -> None:
    t.ct_name = KIND_CT[t.kind]
    t.ct = ct[t.ct_name]


def protocol_spec_path(spec_path: Path) -> Path:
    """``specs/thrift_compact.yaml`` next to the spec, else the one in the repository."""
    here = spec_path.with_name(PROTOCOL_SPEC)
    if here.exists():
        return here
    return ROOT / "specs" / PROTOCOL_SPEC


def build_thrift_model(loaded: LoadedSpec) -> ThriftSpec:
    data, lines = loaded.data, loaded.lines
    if "imports" in data:  # generator/spec/imports.py serves record specs
        raise lines.error(("imports",), "a Thrift spec imports nothing: its structs are its own")
    if "wire" in data:
        proto = loaded
    else:
        path = protocol_spec_path(loaded.path)
        beside = path == loaded.path.with_name(PROTOCOL_SPEC)
        # Named as the spec is (specs/parquet.yaml -> specs/thrift_compact.yaml): the docs
        # link it relative to the repository.
        display = Path(loaded.display).with_name(PROTOCOL_SPEC) if beside else path.name
        proto = load(path, str(display))
        if "wire" not in proto.data:
            raise lines.error(("protocol",), f"{PROTOCOL_SPEC} has no wire: section")
    wire = proto.data["wire"]
    _check_wire(wire, proto.lines)
    ct = {k: v["value"] for k, v in wire["compact_type"]["values"].items()}
    missing = set(KIND_CT.values()) - set(ct)
    if missing:
        raise proto.lines.error(("wire", "compact_type"), f"missing type ids {sorted(missing)}")

    _check_names(data, lines)
    enums: dict[str, TEnum] = {}
    for name, body in (data.get("enums") or {}).items():
        values, seen = [], {}
        for member, v in body["values"].items():
            if v["value"] in seen:
                raise lines.error(
                    ("enums", name, "values", member),
                    f"value {v['value']} already used by {seen[v['value']]}",
                )
            if not -(2**31) <= v["value"] < 2**31:
                raise lines.error(("enums", name, "values", member), "not an i32")
            seen[v["value"]] = member
            values.append((member, v["value"], v.get("doc", "")))
        enums[name] = TEnum(name, body.get("doc", ""), values)

    raw_structs = data.get("structs") or {}
    typedefs = {
        k: (v if isinstance(v, str) else v["type"]) for k, v in (data.get("typedefs") or {}).items()
    }
    for name in list(raw_structs) + list(enums):
        if name in RESERVED:
            raise lines.error(("structs", name), f"{name!r} is reserved in generated modules")
    for name in raw_structs:
        if name in enums or name in typedefs or name in BASE_TYPES or name == "message":
            raise lines.error(("structs", name), f"{name!r} is already a type name")
    structs: dict[str, TStruct] = {}
    for sname, body in raw_structs.items():
        fields, ids, names = [], set(), set()
        for i, f in enumerate(body["fields"]):
            where = ("structs", sname, "fields", i)
            if f["id"] in ids:
                raise lines.error(where + ("id",), f"field id {f['id']} used twice")
            if f["name"] in names:
                raise lines.error(where + ("name",), f"field name {f['name']!r} used twice")
            if f["name"] in RESERVED_FIELDS:
                raise lines.error(
                    where + ("name",), f"{f['name']!r} is reserved in generated structs"
                )
            ids.add(f["id"])
            names.add(f["name"])
            try:
                ftype = parse_type(f["type"], raw_structs, enums, typedefs, ct)
            except _TypeError as err:
                raise lines.error(where + ("type",), str(err)) from None
            if f.get("required") and f.get("optional"):
                raise lines.error(where, "a field cannot be both required and optional")
            req = (
                "required" if f.get("required") else "optional" if f.get("optional") else "default"
            )
            kind = body.get("kind", "struct")
            if kind == "union" and req == "required":
                raise lines.error(where, "union fields cannot be required")
            field = TField(f["id"], f["name"], ftype, req, f.get("doc", ""), lines.line(where))
            if "default" in f:
                try:
                    field.default = check_default(
                        ftype, f["default"], enums, raw_structs, typedefs, ct
                    )
                except _TypeError as err:
                    raise lines.error(where + ("default",), str(err)) from None
                field.has_default = True
            fields.append(field)
        structs[sname] = TStruct(
            sname,
            body.get("kind", "struct"),
            body.get("doc", ""),
            fields,
            lines.line(("structs", sname)),
        )
    _mark_recursive(structs)
    methods = _methods(data.get("services") or {}, structs, lines)
    default = data.get("default_record", "message")
    if default != "message" and default not in structs:
        raise lines.error(("default_record",), f"no struct {default!r}")
    return ThriftSpec(
        format=data["format"],
        title=data.get("title", data["format"]),
        doc=data["doc"],
        default_record=default,
        source=loaded,
        protocol_source=proto,
        wire=wire,
        enums=enums,
        structs=structs,
        limits=dict(data.get("limits", {})),  # spec.schema.json checks each
        methods=methods,
    )


def _methods(services: dict, structs: dict[str, TStruct], lines) -> dict[str, TMethod]:
    """The methods each service answers (its own, then those of the services it extends)."""

    def own(sname, seen=()):
        if sname in seen:
            raise lines.error(("services", sname, "extends"), "a service cannot extend itself")
        body = services[sname]
        out = {}
        for mname, m in body["methods"].items():
            for key in ("args", "result"):
                if key in m and m[key] not in structs:
                    raise lines.error(
                        ("services", sname, "methods", mname, key), f"no struct {m[key]!r}"
                    )
            if m.get("oneway") and "result" in m:
                raise lines.error(
                    ("services", sname, "methods", mname), "a oneway method has no result"
                )
            out[mname] = TMethod(
                mname, m["args"], m.get("result"), m.get("oneway", False), m.get("doc", "")
            )
        base = body.get("extends")
        if base is not None:
            if base not in services:
                raise lines.error(("services", sname, "extends"), f"no service {base!r}")
            out = {**own(base, seen + (sname,)), **out}
        return out

    methods: dict[str, TMethod] = {}
    for sname in services:
        for mname, m in own(sname).items():
            methods.setdefault(mname, m)
            methods[f"{sname}:{mname}"] = m
    return methods


def _refs(t: TType):
    if t.kind == "struct":
        yield t.name
    for sub in (t.elem, t.key, t.value):
        if sub is not None:
            yield from _refs(sub)


def _mark_recursive(structs: dict[str, TStruct]) -> None:
    graph = {n: {r for f in s.fields for r in _refs(f.type)} for n, s in structs.items()}
    for name, s in structs.items():
        todo, seen = list(graph[name]), set()
        while todo:
            n = todo.pop()
            if n == name:
                s.recursive = True
                break
            if n not in seen:
                seen.add(n)
                todo.extend(graph[n])


def check_default(t: TType, v, enums, structs, typedefs, ct):
    """Validate a YAML default against its type; returns the normalised value
    (enum member names, ``{"$hex"}`` bytes and struct mappings are kept as data)."""
    k = t.kind
    if k == "bool":
        if not isinstance(v, bool):
            raise _TypeError(f"default {v!r} is not a bool")
    elif k in ("i8", "i16", "i32", "i64"):
        low, high = int_range(int(k[1:]), True)
        if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
            raise _TypeError(f"default {v!r} is not an {k}")
    elif k == "double":
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise _TypeError(f"default {v!r} is not a number")
        v = float(v)
    elif k in ("string", "uuid"):
        if not isinstance(v, str):
            raise _TypeError(f"default {v!r} is not a string")
        if k == "uuid":
            try:
                uuid.UUID(v)
            except ValueError:
                raise _TypeError(f"default {v!r} is not a UUID") from None
    elif k == "binary":
        if isinstance(v, dict) and set(v) == {"$hex"}:
            try:
                v = bytes.fromhex(v["$hex"])
            except (TypeError, ValueError):
                raise _TypeError(f"default {v!r}: $hex is not hex digits") from None
        elif isinstance(v, str):
            v = v.encode()
        else:
            raise _TypeError(f"default {v!r} is not a string or {{$hex: ...}}")
    elif k == "enum":
        members = {m: val for m, val, _ in enums[t.name].values}
        if isinstance(v, str):
            if v not in members:
                raise _TypeError(f"{v!r} is not a member of {t.name}")
        elif isinstance(v, int) and not isinstance(v, bool):
            names = {val: m for m, val in members.items()}
            v = names.get(v, v)
        else:
            raise _TypeError(f"default {v!r} is not a member of {t.name}")
    elif k in ("list", "set"):
        if not isinstance(v, list):
            raise _TypeError(f"default {v!r} is not a list")
        v = [check_default(t.elem, x, enums, structs, typedefs, ct) for x in v]
    elif k == "map":
        if isinstance(v, dict):
            v = list(v.items())
        if not isinstance(v, list):
            raise _TypeError(f"default {v!r} is not a map")
        v = [
            (
                check_default(t.key, a, enums, structs, typedefs, ct),
                check_default(t.value, b, enums, structs, typedefs, ct),
            )
            for a, b in v
        ]
    elif k == "struct":
        if not isinstance(v, dict):
            raise _TypeError(f"default {v!r} is not a mapping of field names")
        fields = {f["name"]: f for f in structs[t.name]["fields"]}
        out = {}
        for name, x in v.items():
            if name not in fields:
                raise _TypeError(f"{t.name} has no field {name!r}")
            sub = parse_type(fields[name]["type"], structs, enums, typedefs, ct)
            out[name] = (sub, check_default(sub, x, enums, structs, typedefs, ct))
        v = out
    return v


def attr_name(name: str) -> str:
    """A field's attribute: its name, with ``_`` after a keyword or ``_dc`` (the module's
    dataclasses alias, which the class body reads)."""
    return name + "_" if keyword.iskeyword(name) or name == "_dc" else name


RESERVED_FIELDS = {"wire_layout"}
"""Attributes every generated struct has besides its fields."""
RESERVED = {"Message", "RawStruct", "RawField", "RawList", "RawMap", "CompactType", "MessageType"}
RESERVED_MODULE_NAMES = frozenset(
    {"DecodeError", "EncodeError", "WirespecError", "MODELS", "STRUCT_FIELDS", "THRIFT_ENUMS"}
    | {"FIELD_TABLES"}
    | {"PROTOCOL_ID", "VERSION", "RECORDS", "FORMAT", "DEFAULT_RECORD", "DEFAULT_LIMITS"}
    | {"RECORD_DETECTORS", "FALLBACKS", "LONG_LIST_HEADER", "UNKNOWN_BYTES"}
    | {"trace", "rt", "rt_contract", "rt_json"}
    | spec_names.MODULE_FUNCTIONS
    | {name for name in dir(builtins) if not name.startswith("_")}
)
"""Other names a generated Thrift module defines or reads: no struct or enum is called so
(a struct ``S`` also makes ``S_codec``, which ``_codec`` names cannot clash with)."""
_THRIFT_TYPE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_THRIFT_FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _name_problem(kind: str, name) -> str | None:
    """Why a Thrift struct, enum, member or field cannot be called ``name``, or None."""
    if kind == "member":
        return spec_names.problem("member", name)
    pattern = _THRIFT_FIELD_NAME if kind == "field" else _THRIFT_TYPE_NAME
    if not isinstance(name, str) or not pattern.fullmatch(name):
        return f"{name!r} is not a name: ASCII letters, digits and _"
    if kind == "field":
        return None  # a keyword gets a trailing _ (the JSON form keeps the name)
    if keyword.iskeyword(name):
        return f"{name!r} is a Python keyword"
    if name in RESERVED or name in RESERVED_MODULE_NAMES or name.endswith("_codec"):
        return f"{name!r} is reserved in generated modules"
    return None


def _check_names(data: dict, lines) -> None:
    """Every struct, enum, member and field name, refused with its file:line."""
    found = []
    for name, body in (data.get("structs") or {}).items():
        found.append((("structs", name), _name_problem("struct", name)))
        for i, f in enumerate(body["fields"]):
            where = ("structs", name, "fields", i, "name")
            found.append((where, _name_problem("field", f["name"])))
    for name, body in (data.get("enums") or {}).items():
        found.append((("enums", name), _name_problem("enum", name)))
        for member in body["values"]:
            found.append((("enums", name, "values", member), _name_problem("member", member)))
    for parts, problem in found:
        if problem is not None:
            raise lines.error(parts, problem)


def _check_wire(wire: dict, lines) -> None:
    """The protocol's member names (its numbers are checked by the JSON Schema): they are
    written into every Thrift module as code."""
    for section in ("compact_type", "message_type"):
        for member in wire[section]["values"]:
            found = _name_problem("member", member)
            if found is not None:
                raise lines.error(("wire", section, "values", member), found)
