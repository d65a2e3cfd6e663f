"""``wirespec import-thrift FILE.thrift -o specs/NAME.yaml``: Thrift IDL -> a wirespec spec.

The IDL is read with our grammar of Apache's (``thrift.lark``, run by lark), so whatever
Apache's compiler accepts imports: namespaces with annotations, hex constants, enum-valued
defaults, trailing separators, ``&`` references, ``uuid`` anywhere, services. Includes are
followed; an included file's names are used bare unless they collide (then prefixed with the
file's stem). Bad IDL is a :class:`SpecError` naming the user's file and line.

What the spec language cannot hold yet is left undeclared, with a note in the struct's doc:
the field is then an unknown field on the wire (kept as raw bytes by the generated code):

* a field that closes a cycle of structs (``struct List { 1: List & next }``);
* a map whose keys are lists, sets, maps or structs (Python dict keys).

Typedefs are resolved, constants become the defaults they are used as (and are listed as
comments), doc comments (``/** */`` before, ``//`` after on the same line) become docs.
Names that cannot be Python names in generated code get a trailing ``_`` (the doc keeps the
Thrift name). Each service method becomes ``<method>_args`` and ``<method>_result`` structs
(Apache's convention: ``success`` is field 0 of the result) listed under ``services:``.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.thrift").write_text("enum E { X = 1 } struct S { 1: required E e = E.X; 2: uuid u }")
    >>> print(import_thrift(d / "a.thrift").split("structs:")[1].strip())
    S:
        doc: "struct S (a.thrift:1)"
        fields:
          - {id: 1, name: e, type: E, required: true, default: X}
          - {id: 2, name: u, type: uuid}
"""

from __future__ import annotations

import builtins
import dataclasses
import functools
import json
import keyword
import re
import uuid
from pathlib import Path

from generator.spec.loader import read_text
from generator.spec.thrift import BASE_TYPES, RESERVED
from runtime.core.errors import SpecError, a_or_an, did_you_mean

INT_BITS = {"i8": 8, "i16": 16, "i32": 32, "i64": 64}
# Names a generated module cannot take as they are: Python keywords, the builtins its
# annotations use, and (for types) the names of its own classes and the base types.
_UNSAFE_FIELD = set(keyword.kwlist) | set(keyword.softkwlist) | {
    "bool", "int", "float", "str", "bytes", "list", "dict", "set", "uuid", "object", "self"
}  # fmt: skip
_UNSAFE_TYPE = _UNSAFE_FIELD | set(dir(builtins)) | RESERVED | {
    "message", "i8", "i16", "i32", "i64", "double", "string", "binary", "byte", "map"
}  # fmt: skip


_COMMENTS: list[list] = []
"""Where the lexer puts the comments of the file being parsed (a stack: includes nest)."""


def _keep_comment(token):
    _COMMENTS[-1].append(token)
    return token


@functools.lru_cache(maxsize=1)
def idl_parser():
    """The lark parser of ``thrift.lark`` (built once per process: about a second)."""
    import lark

    grammar = (Path(__file__).parent / "thrift.lark").read_text(encoding="utf-8")
    return lark.Lark(
        grammar,
        parser="lalr",
        propagate_positions=True,
        maybe_placeholders=True,
        lexer_callbacks={"DOC_COMMENT": _keep_comment, "COMMENT": _keep_comment},
    )


def _parse(text: str):
    """The parse tree and the comments of one file."""
    _COMMENTS.append([])
    try:
        return idl_parser().parse(text), _COMMENTS[-1]
    finally:
        _COMMENTS.pop()


# -- the parsed file ---------------------------------------------------------------------


@dataclasses.dataclass
class _Field:
    id: int
    name: str
    type: tuple
    requiredness: str
    default: object  # a const_value tree or None
    line: int
    doc: str
    reference: bool


@dataclasses.dataclass
class _Struct:
    name: str
    kind: str
    fields: list[_Field]
    line: int
    doc: str


@dataclasses.dataclass
class _Function:
    name: str
    oneway: bool
    returns: tuple | None
    params: list[_Field]
    throws: list[_Field]
    line: int
    doc: str


@dataclasses.dataclass
class _Service:
    name: str
    extends: str | None
    functions: list[_Function]
    line: int
    doc: str


@dataclasses.dataclass
class _Document:
    """One .thrift file: its definitions in order, names as written."""

    path: Path
    stem: str
    shown: str
    """The path as the user gave it (errors name it; never a resolved or temporary path)."""
    includes: dict[str, _Document] = dataclasses.field(default_factory=dict)
    typedefs: dict[str, tuple] = dataclasses.field(default_factory=dict)
    consts: dict[str, tuple] = dataclasses.field(default_factory=dict)  # name -> (type, tree, line)
    enums: dict[str, tuple] = dataclasses.field(
        default_factory=dict
    )  # name -> (members, line, doc)
    structs: dict[str, _Struct] = dataclasses.field(default_factory=dict)
    services: dict[str, _Service] = dataclasses.field(default_factory=dict)


class _Reader:
    """Parse a file and its includes into :class:`_Document` objects."""

    def __init__(self):
        self.documents: dict[Path, _Document] = {}

    def read(self, path: Path, shown: str) -> _Document:
        key = path.resolve()
        if key in self.documents:  # included twice, or an include cycle: read once
            return self.documents[key]
        text = read_text(path, shown)
        import lark

        try:
            tree, comments = _parse(text)
        except lark.exceptions.UnexpectedInput as err:
            raise _syntax_error(err, text, shown) from None
        doc = _Document(path, re.sub(r"\W", "_", path.name.removesuffix(".thrift")), shown)
        self.documents[key] = doc
        self._fill(doc, tree, comments, text, shown)
        return doc

    def _fill(self, doc, tree, comments, text, shown):
        notes = _Notes(comments, text)
        for item in tree.children:
            kind, line = item.data, item.meta.line
            if kind == "include":
                rel = _literal(item.children[0])
                target = path_of_include(doc.path, rel)
                if target is None:
                    raise SpecError(f"include {rel!r}: no such file", file=shown, line=line)
                inc = self.read(target, str(Path(shown).parent / rel))
                doc.includes[re.sub(r"\W", "_", Path(rel).name.removesuffix(".thrift"))] = inc
            elif kind == "const":
                ftype, name, value = item.children
                doc.consts[str(name)] = (_type(ftype), value, line)
            elif kind == "typedef":
                doc.typedefs[str(item.children[1])] = _type(item.children[0])
            elif kind == "enum":
                members, nxt = [], 0
                for v in item.children[1:]:
                    if not hasattr(v, "data") or v.data != "enum_value":
                        continue
                    value = _int(v.children[1]) if v.children[1] is not None else nxt
                    if not -(2**31) <= value < 2**31:
                        raise SpecError(
                            f"enum value {value} does not fit an i32", file=shown, line=v.meta.line
                        )
                    member = str(v.children[0])
                    mdoc = notes.of(v)
                    if safe_field_name(member) != member:
                        mdoc = (mdoc + "\n" if mdoc else "") + f"Thrift name: {member}"
                    members.append((safe_field_name(member), value, mdoc))
                    nxt = value + 1
                doc.enums[str(item.children[0])] = (members, line, notes.of(item))
            elif kind == "senum":
                doc.typedefs[str(item.children[0])] = ("base", "string")
            elif kind == "struct":
                kind_tok, name = item.children[0], str(item.children[1])
                fields = self._fields(_subtrees(item, "field"), notes, shown)
                doc.structs[name] = _Struct(
                    name, str(kind_tok.children[0]), fields, line, notes.of(item)
                )
            elif kind == "service":
                name, extends = str(item.children[0]), item.children[1]
                functions = [self._function(f, notes, shown) for f in _subtrees(item, "function")]
                doc.services[name] = _Service(
                    name, str(extends) if extends else None, functions, line, notes.of(item)
                )

    def _fields(self, trees, notes, shown) -> list[_Field]:
        out, auto = [], 0
        for f in trees:
            fid, req, ftype, ref, name, default = f.children[:6]
            if fid is None:  # Apache numbers fields without an id -1, -2, ...
                auto -= 1
                fid = auto
            else:
                fid = _int(fid)
                if not -(2**15) <= fid < 2**15:
                    raise SpecError(
                        f"field id {fid} does not fit an i16", file=shown, line=f.meta.line
                    )
            out.append(
                _Field(
                    fid,
                    str(name),
                    _type(ftype),
                    str(req.children[0]) if req is not None else "default",
                    default,
                    f.meta.line,
                    notes.of(f),
                    ref is not None,
                )
            )
        return out

    def _function(self, tree, notes, shown) -> _Function:
        ch = tree.children
        oneway, returns, name = ch[0] is not None, ch[1], str(ch[2])
        params = self._fields(
            [c for c in ch[3:] if getattr(c, "data", "") == "field"], notes, shown
        )
        throws = next((c for c in ch[3:] if getattr(c, "data", "") == "throws"), None)
        throws = (
            self._fields(_subtrees(throws, "field"), notes, shown) if throws is not None else []
        )
        rtype = None if getattr(returns, "data", "") == "void" else _type(returns)
        return _Function(name, oneway, rtype, params, throws, tree.meta.line, notes.of(tree))


def _syntax_error(err, text: str, shown: str) -> SpecError:
    """The lark error as ours: the user's file and line, the token it stopped at."""
    token = getattr(err, "token", None) or getattr(err, "char", None)
    if token is None or getattr(token, "type", "") == "$END":
        line = text.count("\n") + 1
        return SpecError("Thrift IDL syntax error: the file ends too early", file=shown, line=line)
    return SpecError(
        f"Thrift IDL syntax error at {str(token)!r} (column {err.column})",
        file=shown,
        line=err.line,
    )


def path_of_include(base: Path, rel: str) -> Path | None:
    """The file an ``include`` names: next to the including file (Apache also searches
    ``-I`` directories; an importer that needs them can copy the files next to it)."""
    target = base.parent / rel
    return target if target.is_file() else None


class _Notes:
    """Doc comments: a ``/** */`` block right before an item, else a ``//`` or ``#``
    comment on the line where the item ends."""

    def __init__(self, comments, text):
        self.before = {c.end_pos: c for c in comments if c.type == "DOC_COMMENT"}
        self.after = {}
        for c in comments:
            if c.type == "COMMENT" and not c.value.startswith("/*"):
                self.after.setdefault(c.line, c)
        self.text = text

    def of(self, tree) -> str:
        start = tree.meta.start_pos
        back = len(self.text[:start].rstrip())
        block = self.before.get(back)
        if block is not None:
            return _clean_block(block.value)
        line_comment = self.after.get(tree.meta.end_line)
        if line_comment is not None and line_comment.start_pos >= tree.meta.end_pos:
            return line_comment.value.lstrip("/#").strip()
        return ""


def _clean_block(text: str) -> str:
    body = text[3:-2]
    lines = [re.sub(r"^\s*\*? ?", "", ln).rstrip() for ln in body.splitlines()]
    return "\n".join(lines).strip()


def _subtrees(tree, name):
    return [c for c in tree.children if getattr(c, "data", "") == name]


def _type(tree) -> tuple:
    """A type as a tuple: ``("base", name)``, ``("named", name)``, ``("list", t)``,
    ``("set", t)``, ``("map", k, v)``."""
    kind = tree.data
    if kind == "base_type":
        return ("base", str(tree.children[0].children[0]))
    if kind == "named_type":
        return ("named", str(tree.children[0]))
    subs = [c for c in tree.children if getattr(c, "data", "") != "annotations" and c is not None]
    if kind == "map_type":
        return ("map", _type(subs[0]), _type(subs[1]))
    return (kind.removesuffix("_type"), _type(subs[0]))


def _int(token) -> int:
    text = str(token)
    sign = -1 if text.startswith("-") else 1
    text = text.lstrip("+-")
    return sign * (int(text, 16) if text.lower().startswith("0x") else int(text))


def _literal(token) -> str:
    text = str(token)[1:-1]
    return re.sub(
        r"\\(.)", lambda m: {"n": "\n", "t": "\t", "r": "\r"}.get(m.group(1), m.group(1)), text
    )


# -- from documents to a spec ---------------------------------------------------------------


class _Importer:
    """Names, types and values of every document, as a spec sees them."""

    def __init__(self, root: _Document):
        self.root = root
        self.docs = _all_documents(root)
        self.names: dict[tuple, str] = {}  # (doc path, thrift name) -> spec name
        taken: set[str] = set()
        for doc in self.docs:  # the root first: its names stay as written
            for name in list(doc.enums) + list(doc.structs):
                spec = safe_type_name(name)
                if spec in taken:
                    spec = safe_type_name(f"{doc.stem}_{name}")
                taken.add(spec)
                self.names[doc.path, name] = spec
        self.taken = taken

    def where(self, doc, line) -> str:
        return f"{doc.path.name}:{line}"

    def fail(self, doc, line, message):
        raise SpecError(message, file=doc.shown, line=line)

    # names ---------------------------------------------------------------------------

    def lookup(self, doc, name: str, line: int, want=("enums", "structs", "typedefs")):
        """``(document, kind, name)`` for a name as written in ``doc`` (``inc.Name``)."""
        owner, bare = doc, name
        if "." in name:
            head, rest = name.split(".", 1)
            if head in doc.includes:
                owner, bare = doc.includes[head], rest
        for kind in want:
            if bare in getattr(owner, kind):
                return owner, kind, bare
        return None

    def resolve(self, doc, t: tuple, line: int, seen=()) -> tuple:
        """A type with typedefs expanded and names replaced by ``("enum"|"struct", spec name)``."""
        kind = t[0]
        if kind == "base":
            return ("base", {"byte": "i8", "slist": "string"}.get(t[1], t[1]))
        if kind in ("list", "set"):
            return (kind, self.resolve(doc, t[1], line, seen))
        if kind == "map":
            return ("map", self.resolve(doc, t[1], line, seen), self.resolve(doc, t[2], line, seen))
        found = self.lookup(doc, t[1], line)
        if found is None:
            known = [*BASE_TYPES, *doc.enums, *doc.structs, *doc.typedefs]
            self.fail(doc, line, f"unknown type {t[1]!r}{did_you_mean(t[1], known)}")
        owner, what, bare = found
        if what == "typedefs":
            if (owner.path, bare) in seen:
                self.fail(doc, line, f"typedef {t[1]!r} refers to itself")
            return self.resolve(owner, owner.typedefs[bare], line, seen + ((owner.path, bare),))
        return (what[:-1], self.names[owner.path, bare], owner, bare)

    @staticmethod
    def describe(t: tuple) -> str:
        if t[0] == "base":
            return t[1]
        if t[0] in ("list", "set"):
            return f"{t[0]}<{_Importer.describe(t[1])}>"
        if t[0] == "map":
            return f"map<{_Importer.describe(t[1])}, {_Importer.describe(t[2])}>"
        return t[1]

    # values --------------------------------------------------------------------------

    def value(self, doc, t: tuple, tree, line: int, seen=()):
        """A const value of type ``t`` as the spec writes it (enum member names, struct
        mappings, ``[[k, v], ...]`` for maps, UUID text)."""
        kind = tree.data
        if kind == "const_ref":
            ref = str(tree.children[0])
            found = self.lookup(doc, ref, line, want=("consts",))
            if found is not None:
                owner, _, bare = found
                if (owner.path, bare) in seen:
                    self.fail(doc, line, f"constant {ref!r} refers to itself")
                _ctype, ctree, cline = owner.consts[bare]
                return self.value(owner, t, ctree, cline, seen + ((owner.path, bare),))
            if ref in ("true", "false") and t == ("base", "bool"):
                return ref == "true"
            if t[0] == "enum":  # Apache looks the member up in the field's own enum
                member = safe_field_name(ref.rsplit(".", 1)[-1])
                for name, value, _doc in t[2].enums[t[3]][0]:
                    if name == member:  # an alias becomes the first name of its value
                        return self.check_enum_value(doc, t, value, line)
            member = self.enum_member(doc, ref, line)
            if member is None:
                self.fail(doc, line, f"unknown constant {ref!r}")
            return self.check_enum_value(doc, t, member[1], line, member[0])
        if t[0] == "base":
            return self.base_value(doc, t[1], tree, line)
        if t[0] == "enum":
            if kind != "const_int":
                self.fail(doc, line, f"{_a(self.describe(t))} value must be a member or an integer")
            return self.check_enum_value(doc, t, _int(tree.children[0]), line)
        if t[0] in ("list", "set"):
            if kind == "const_map" and not tree.children:
                return []  # Apache takes {} as an empty set or list too
            if kind != "const_list":
                self.fail(doc, line, f"a {t[0]} value must be [...]")
            return [self.value(doc, t[1], x, line, seen) for x in tree.children]
        if t[0] == "map":
            if kind != "const_map":
                self.fail(doc, line, "a map value must be {...}")
            return [
                [self.value(doc, t[1], p.children[0], line, seen),
                 self.value(doc, t[2], p.children[1], line, seen)]
                for p in tree.children
            ]  # fmt: skip
        if t[0] == "struct":
            if kind != "const_map":
                self.fail(doc, line, f"{_a(t[1])} value must be {{field: value, ...}}")
            owner, bare = t[2], t[3]
            fields = {f.name: f for f in owner.structs[bare].fields}
            out = {}
            for pair in tree.children:
                key = pair.children[0]
                fname = _literal(key.children[0]) if key.data == "const_literal" else None
                if fname not in fields:
                    self.fail(doc, line, f"{t[1]} has no field {fname!r}")
                ftype = self.resolve(owner, fields[fname].type, line)
                out[safe_field_name(fname)] = self.value(doc, ftype, pair.children[1], line, seen)
            return out
        raise AssertionError(t)

    def base_value(self, doc, name, tree, line):
        kind, token = tree.data, tree.children[0] if tree.children else None
        if name in INT_BITS or name == "bool":
            if kind != "const_int":
                self.fail(doc, line, f"{_a(name)} value must be an integer")
            v = _int(token)
            if name == "bool":
                return bool(v)
            bits = INT_BITS[name]
            if not -(2 ** (bits - 1)) <= v < 2 ** (bits - 1):
                self.fail(doc, line, f"{v} does not fit an {name}")
            return v
        if name == "double":
            if kind not in ("const_int", "const_double"):
                self.fail(doc, line, "a double value must be a number")
            return float(_int(token)) if kind == "const_int" else float(str(token))
        if kind != "const_literal":
            self.fail(doc, line, f"{_a(name)} value must be a string literal")
        text = _literal(token)
        if name == "uuid":
            try:
                return str(uuid.UUID(text))
            except ValueError:
                self.fail(doc, line, f"{text!r} is not a UUID")
        return text

    def enum_member(self, doc, ref, line):
        """``(enum spec name, value)`` of ``Enum.MEMBER`` (or ``inc.Enum.MEMBER``)."""
        if "." not in ref:
            return None
        enum_ref, member = ref.rsplit(".", 1)
        found = self.lookup(doc, enum_ref, line, want=("enums",))
        if found is None:
            return None
        owner, _, bare = found
        for name, value, _doc in owner.enums[bare][0]:
            if name == safe_field_name(member):
                return self.names[owner.path, bare], value
        self.fail(doc, line, f"enum {enum_ref} has no member {member!r}")

    def check_enum_value(self, doc, t, value, line, enum_name=None):
        """An enum field's default as a member name when it has one (Apache lets a
        member of another enum stand for its number)."""
        if t[0] == "enum":
            owner, bare = t[2], t[3]
            for name, v, _doc in owner.enums[bare][0]:
                if v == value:
                    return name
            return value
        if t[0] == "base" and t[1] in INT_BITS:
            return value
        self.fail(doc, line, f"an enum member is not {_a(self.describe(t))} value")


def _a(type_name: str) -> str:
    """A Thrift type's name after its article, as it is said: ``uuid`` starts with a
    consonant's sound, the ``i`` of ``i64`` with a vowel's.

    >>> _a("i64"), _a("uuid"), _a("Address"), _a("list<i32>")
    ('an i64', 'a uuid', 'an Address', 'a list<i32>')
    """
    return "a uuid" if type_name == "uuid" else a_or_an(type_name)


def _all_documents(root: _Document) -> list[_Document]:
    out, todo = [], [root]
    while todo:
        doc = todo.pop(0)
        if doc not in out:
            out.append(doc)
            todo.extend(doc.includes.values())
    return out


def safe_field_name(name: str) -> str:
    """A field name the generated code can use as an attribute (``type`` stays, ``str``
    becomes ``str_``)."""
    return name + "_" if name in _UNSAFE_FIELD or name.startswith("__") else name


def safe_type_name(name: str) -> str:
    """A struct or enum name the generated module can define."""
    return name + "_" if name in _UNSAFE_TYPE or name.startswith("_") else name


def _unsupported(t: tuple) -> str | None:
    """Why the spec language cannot declare a field of type ``t`` (None if it can)."""
    if t[0] in ("list", "set"):
        return _unsupported(t[1])
    if t[0] == "map":
        if t[1][0] in ("list", "set", "map", "struct"):
            return f"map keys of type {_Importer.describe(t[1])} (not hashable in Python)"
        return _unsupported(t[1]) or _unsupported(t[2])
    return None


def _refs(t: tuple):
    if t[0] == "struct":
        yield t[1]
    elif t[0] in ("list", "set"):
        yield from _refs(t[1])
    elif t[0] == "map":
        yield from _refs(t[1])
        yield from _refs(t[2])


# -- the spec text --------------------------------------------------------------------------


@dataclasses.dataclass
class _OutStruct:
    name: str
    kind: str
    doc: str
    fields: list[dict]
    refs: list[tuple[int, set]]  # (field index, struct names it refers to)
    notes: list[str] = dataclasses.field(default_factory=list)


def _flow(value) -> str:
    """A YAML flow value (JSON is valid YAML flow; bare words where that reads better)."""
    if (
        isinstance(value, str)
        and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value)
        and value.lower()
        not in ("true", "false", "null", "yes", "no", "on", "off", "y", "n", "none", "~")
    ):
        return value
    return json.dumps(value, ensure_ascii=False)


def import_thrift(path: Path, fmt: str | None = None) -> str:
    """The YAML text of a wirespec spec for the Thrift IDL file at ``path``."""
    path = Path(path)
    shown = str(path)
    root = _Reader().read(path, shown)
    imp = _Importer(root)
    fmt = fmt or re.sub(r"[^a-z0-9_]", "_", path.stem.lower())
    if not re.match(r"[a-z_]", fmt):
        fmt = "thrift_" + fmt

    structs: dict[str, _OutStruct] = {}
    for doc in imp.docs:
        for s in doc.structs.values():
            name = imp.names[doc.path, s.name]
            structs[name] = _struct(imp, doc, s, name)
    services = _services(imp, structs)
    _break_cycles(structs)
    for s in structs.values():
        if s.kind == "union" and not s.fields:  # a union decodes only with a member set
            s.kind = "struct"
            s.notes.append("A union in the IDL; a struct here, as none of its members is declared.")

    out = [
        f"# Imported from {path.name} by `wirespec import-thrift`; edit freely.",
        f"format: {fmt}",
        "protocol: thrift_compact",
        f"doc: {_flow('Thrift structs from ' + path.name)}",
    ]
    for doc in imp.docs:
        for cname, (ctype, ctree, line) in doc.consts.items():
            t = imp.resolve(doc, ctype, line)
            value = imp.value(doc, t, ctree, line)  # checked even when no field uses it
            out.append(
                f"# const {imp.describe(t)} {cname} = {json.dumps(value)}  ({doc.path.name}:{line})"
            )
    enums = [(doc, n, e) for doc in imp.docs for n, e in doc.enums.items()]
    if enums:
        out.append("enums:")
    for doc, ename, (members, line, doc_text) in enums:
        out += [
            f"  {_flow(imp.names[doc.path, ename])}:",
            f"    doc: {_flow(doc_text or f'enum {ename} ({imp.where(doc, line)})')}",
            "    type: i32",
            "    values:" if members else "    values: {}",
        ]
        first_of: dict[int, str] = {}
        for member, value, mdoc in members:
            if value in first_of:  # an alias: Apache allows it, the spec names each value once
                out.append(f"      # {member} = {value}: an alias of {first_of[value]} in the IDL")
                continue
            first_of[value] = member
            extra = f", doc: {_flow(mdoc)}" if mdoc else ""
            out.append(f"      {_flow(member)}: {{value: {value}{extra}}}")
    out.append("structs:" if structs else "structs: {}")
    for s in structs.values():
        doc_text = s.doc + "".join("\n" + n for n in s.notes)
        out += [f"  {_flow(s.name)}:"]
        if s.kind != "struct":
            out.append(f"    kind: {s.kind}")
        out.append(f"    doc: {_flow(doc_text)}")
        out.append("    fields:" if s.fields else "    fields: []")
        for entry in s.fields:
            out.append("      - {" + ", ".join(f"{k}: {_flow(v)}" for k, v in entry.items()) + "}")
    if services:
        out.append("services:")
        for sname, (sdoc, extends, methods) in services.items():
            out += [f"  {_flow(sname)}:", f"    doc: {_flow(sdoc)}"]
            if extends:
                out.append(f"    extends: {extends}")
            out.append("    methods:" if methods else "    methods: {}")
            for mname, m in methods.items():
                out.append(
                    f"      {_flow(mname)}: {{"
                    + ", ".join(f"{k}: {_flow(v)}" for k, v in m.items())
                    + "}"
                )
    return "\n".join(out) + "\n"


def _struct(imp: _Importer, doc: _Document, s: _Struct, name: str) -> _OutStruct:
    where = imp.where(doc, s.line)
    text = s.doc or f"{s.kind} {s.name} ({where})"
    if name != s.name:
        text += f"\nThrift name: {s.name}"
    out = _OutStruct(name, s.kind, text, [], [])
    _add_fields(imp, doc, out, s.fields, s.kind)
    return out


def _add_fields(imp, doc, out: _OutStruct, fields: list[_Field], kind: str) -> None:
    seen = set()
    for f in fields:
        t = imp.resolve(doc, f.type, f.line)
        why = _unsupported(t)
        if why:
            out.notes.append(
                f"Field {f.id} `{f.name}` ({imp.describe(t)}) is not declared: {why}; "
                "it is kept as an unknown field."
            )
            continue
        if f.id in seen:
            imp.fail(doc, f.line, f"field id {f.id} used twice in {out.name}")
        seen.add(f.id)
        fname = safe_field_name(f.name)
        entry = {"id": f.id, "name": fname, "type": imp.describe(t)}
        if kind != "union" and f.requiredness != "default":
            entry[f.requiredness] = True
        if f.default is not None:
            entry["default"] = imp.value(doc, t, f.default, f.line)
        fdoc = f.doc
        if fname != f.name:
            fdoc = (fdoc + "\n" if fdoc else "") + f"Thrift name: {f.name}"
        if fdoc:
            entry["doc"] = fdoc
        out.refs.append((len(out.fields), set(_refs(t)), f))
        out.fields.append(entry)


def _services(imp: _Importer, structs: dict[str, _OutStruct]) -> dict:
    """``<method>_args`` / ``<method>_result`` structs for each method, and the
    ``services:`` table naming them."""
    out = {}
    for doc in imp.docs:
        for svc in doc.services.values():
            methods = {}
            for fn in svc.functions:
                base = fn.name
                if f"{base}_args" in structs or f"{base}_result" in structs:
                    base = f"{svc.name}_{fn.name}"
                where = imp.where(doc, fn.line)
                args = _OutStruct(
                    f"{base}_args", "struct", f"arguments of {svc.name}.{fn.name} ({where})", [], []
                )
                _add_fields(imp, doc, args, fn.params, "struct")
                structs[args.name] = args
                entry = {"args": args.name}
                if fn.oneway:
                    entry["oneway"] = True
                else:
                    result = _OutStruct(
                        f"{base}_result",
                        "struct",
                        f"reply of {svc.name}.{fn.name} ({where}): field 0 `success` is the "
                        "return value, the others the exceptions it throws",
                        [],
                        [],
                    )
                    ret = []
                    if fn.returns is not None:
                        ret = [
                            _Field(0, "success", fn.returns, "optional", None, fn.line, "", False)
                        ]
                    throws = [dataclasses.replace(f, requiredness="optional") for f in fn.throws]
                    _add_fields(imp, doc, result, ret + throws, "struct")
                    structs[result.name] = result
                    entry["result"] = result.name
                if fn.doc:
                    entry["doc"] = fn.doc
                methods[fn.name] = entry
            extends = None
            if svc.extends:
                found = None
                head, _, rest = svc.extends.partition(".")
                owner = doc.includes.get(head) if rest else doc
                found = owner.services.get(rest or head) if owner else None
                if found is None:
                    imp.fail(doc, svc.line, f"extends unknown service {svc.extends!r}")
                extends = found.name
            out[svc.name] = (
                svc.doc or f"service {svc.name} ({imp.where(doc, svc.line)})",
                extends,
                methods,
            )
    return out


def _break_cycles(structs: dict[str, _OutStruct]) -> None:
    """Leave out the fields that close a cycle of structs (found depth first, in
    declaration order), so the spec has no recursion; each is noted in its struct's doc."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done

    def visit(name):
        state[name] = 1
        s = structs[name]
        drop = []
        for index, refs, f in s.refs:
            for r in sorted(refs):
                if state.get(r) == 1:
                    drop.append((index, f, r))
                    break
                if r not in state:
                    visit(r)
        for index, f, r in reversed(drop):
            del s.fields[index]
            s.notes.append(
                f"Field {f.id} `{f.name}` is not declared: it makes {name} recursive "
                f"(through {r}), which the spec language cannot say yet; it is kept as an "
                "unknown field."
            )
        if drop:
            s.notes.reverse()
        state[name] = 2

    for name in list(structs):
        if name not in state:
            visit(name)
