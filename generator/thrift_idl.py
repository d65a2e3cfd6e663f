"""``wirespec import-thrift FILE.thrift -o specs/NAME.yaml``: Thrift IDL -> a wirespec spec.

The IDL is parsed by thriftpy2's parser (we keep no grammar of our own). It resolves
typedefs, includes and constants; what it loses we say here:

* thriftpy2 has no ``uuid`` type, so ``uuid`` in type positions is swapped for a
  placeholder struct before parsing and mapped back afterwards;
* it does not tell ``optional`` from default requiredness: both become ``optional: true``
  (the two encode the same way: written when set);
* comments are dropped, so docs name the IDL file instead.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.thrift").write_text("enum E { X = 1 } struct S { 1: required E e = E.X; 2: uuid u }")
    >>> print(import_thrift(d / "a.thrift").split("structs:")[1].strip())
    S:
        doc: "struct S from a.thrift"
        fields:
          - {id: 1, name: e, type: E, required: true, default: X}
          - {id: 2, name: u, type: uuid, optional: true}
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path

from runtime.errors import SpecError

PLACEHOLDER = "WirespecUuidPlaceholder"
_UUID = re.compile(r"((?:[<,:]|\brequired|\boptional|\btypedef|\bconst)\s*)uuid\b")
_INCLUDE = re.compile(r'^\s*include\s+"([^"]+)"', re.MULTILINE)


def _prepare(src: Path, tmp: Path, seen: set) -> None:
    """Copy ``src`` and its includes into ``tmp`` with ``uuid`` swapped for a placeholder."""
    if src.resolve() in seen:
        return
    seen.add(src.resolve())
    text = src.read_text(encoding="utf-8")
    for inc in _INCLUDE.findall(text):
        _prepare(src.parent / inc, tmp / Path(inc).parent, seen)
    swapped = _UUID.sub(lambda m: m.group(1) + PLACEHOLDER, text)
    if swapped != text:
        swapped += f"\nstruct {PLACEHOLDER} {{}}\n"
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / src.name).write_text(swapped, encoding="utf-8")


def _load(path: Path):
    import thriftpy2

    tmp = Path(tempfile.mkdtemp(prefix="wirespec-idl-"))
    try:
        _prepare(path, tmp, set())
        try:
            return thriftpy2.load(
                str(tmp / path.name), module_name=f"{path.stem}_thrift", include_dirs=[str(tmp)]
            )
        except Exception as err:  # noqa: BLE001 - thriftpy2 raises many kinds on bad IDL
            raise SpecError(f"cannot parse Thrift IDL: {err}", file=str(path)) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class _Importer:
    def __init__(self, root):
        self.root = root
        self.enums, self.structs = {}, {}
        self.names = {}  # class -> spec name
        self.kinds = {}  # class -> struct | union | exception
        self._collect(root, prefix="")

    def _collect(self, module, prefix):
        meta = module.__thrift_meta__
        for inc in meta.get("includes", []):
            self._collect(inc, prefix=inc.__name__.removesuffix("_thrift") + "_")
        for cls in meta.get("enums", []):
            self._name(cls, prefix)
        for kind in ("structs", "unions", "exceptions"):
            for cls in meta.get(kind, []):
                if cls.__name__ != PLACEHOLDER:
                    self._name(cls, prefix)
                    self.kinds[cls] = kind.rstrip("s").replace("exception", "exception")

    def _name(self, cls, prefix):
        name = cls.__name__
        if name in self.names.values():
            name = prefix + name
        self.names[cls] = name

    def type_of(self, ttype, args) -> str:
        from thriftpy2.thrift import TType

        simple = {TType.BOOL: "bool", TType.BYTE: "byte", TType.I16: "i16", TType.I32: "i32",
                  TType.I64: "i64", TType.DOUBLE: "double", TType.STRING: "string",
                  TType.BINARY: "binary"}  # fmt: skip
        if ttype in simple and args is None:
            return simple[ttype]
        if ttype == TType.I32 and isinstance(args, type):
            return self.names[args]
        if ttype == TType.STRUCT:
            return "uuid" if args.__name__ == PLACEHOLDER else self.names[args]
        if ttype in (TType.LIST, TType.SET):
            kind = "list" if ttype == TType.LIST else "set"
            return f"{kind}<{self.type_of(*self._split(args))}>"
        if ttype == TType.MAP:
            k, v = args
            return f"map<{self.type_of(*self._split(k))}, {self.type_of(*self._split(v))}>"
        if ttype in simple:
            return simple[ttype]
        raise SpecError(f"unsupported Thrift type {ttype}")

    @staticmethod
    def _split(spec):
        return (spec[0], spec[1]) if isinstance(spec, tuple) else (spec, None)

    def default_of(self, value, ttype, args):
        from thriftpy2.thrift import TType

        if value is None:
            return None
        if ttype == TType.I32 and isinstance(args, type):
            return args._VALUES_TO_NAMES.get(value, value)
        if ttype == TType.STRUCT:
            out = {}
            for fid, fspec in sorted(type(value).thrift_spec.items()):
                t, a = fspec[0], (fspec[2] if len(fspec) == 4 else None)
                v = getattr(value, fspec[1])
                if v is not None:
                    out[fspec[1]] = self.default_of(v, t, a)
            return out
        if ttype in (TType.LIST, TType.SET):
            et, ea = self._split(args)
            return [self.default_of(x, et, ea) for x in value]
        if ttype == TType.MAP:
            (kt, ka), (vt, va) = self._split(args[0]), self._split(args[1])
            return [
                [self.default_of(k, kt, ka), self.default_of(v, vt, va)] for k, v in value.items()
            ]
        if isinstance(value, bytes):
            return {"$hex": value.hex()}
        return value


def _flow(value) -> str:
    """A YAML flow value (JSON is valid YAML flow; bare words where that reads better)."""
    if (
        isinstance(value, str)
        and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value)
        and value not in ("true", "false", "null", "yes", "no", "on", "off", "y", "n")
    ):
        return value
    return json.dumps(value, ensure_ascii=False)


def import_thrift(path: Path, fmt: str | None = None) -> str:
    """The YAML text of a wirespec spec for the Thrift IDL file at ``path``."""
    path = Path(path)
    module = _load(path)
    imp = _Importer(module)
    fmt = fmt or re.sub(r"[^a-z0-9_]", "_", path.stem.lower())
    out = [
        f"# Imported from {path.name} by `wirespec import-thrift`; edit freely.",
        f"format: {fmt}",
        "protocol: thrift_compact",
        f"doc: {_flow('Thrift structs from ' + path.name)}",
    ]
    enums = [c for c in imp.names if hasattr(c, "_VALUES_TO_NAMES")]
    if enums:
        out.append("enums:")
        for cls in enums:
            out += [
                f"  {imp.names[cls]}:",
                f"    doc: {_flow('enum ' + cls.__name__ + ' from ' + Path(cls.__thrift_file__).name)}",
                "    type: i32",
                "    values:",
            ]
            for value, name in sorted(cls._VALUES_TO_NAMES.items()):
                out.append(f"      {name}: {{value: {value}}}")
    out.append("structs:")
    for cls, name in imp.names.items():
        if hasattr(cls, "_VALUES_TO_NAMES"):
            continue
        kind = imp.kinds[cls]
        out.append(f"  {name}:")
        if kind != "struct":
            out.append(f"    kind: {kind}")
        out.append(
            f"    doc: {_flow(kind + ' ' + cls.__name__ + ' from ' + Path(cls.__thrift_file__).name)}"
        )
        out.append("    fields:")
        defaults = dict(cls.default_spec)
        for fid, fspec in sorted(cls.thrift_spec.items()):
            ttype, fname = fspec[0], fspec[1]
            args = fspec[2] if len(fspec) == 4 else None
            required = fspec[-1]
            entry = {"id": fid, "name": fname, "type": imp.type_of(ttype, args)}
            if required:
                entry["required"] = True
            elif kind != "union":
                entry["optional"] = True
            default = imp.default_of(defaults.get(fname), ttype, args)
            if default is not None:
                entry["default"] = default
            out.append("      - {" + ", ".join(f"{k}: {_flow(v)}" for k, v in entry.items()) + "}")
    return "\n".join(out) + "\n"
