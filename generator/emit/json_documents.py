"""The readers and writers of a spec's ``json:`` documents, as straight-line Python.

Each document becomes functions in the generated module, one statement per member, so a
reader of the module finds the keys, their order, their omission and their checks as
code (the Kafka codec, ``runtime.formats.<codec>``, calls them; ``JSON_CODE`` hands them
over by name). Each is defined as ``_json_<name>``: a module name no spec name can take, so a
record called ``event_key`` cannot collide with ``read_event_key``:

- a document of scalar keys (ints, bool, string, bytes): ``read_<doc>(obj)`` -> dict of
  event field -> value, ``write_<doc>(source, go122[, event_type])`` -> JSON text, the keys
  in wire order (a key carrying the field ``type`` is the event kind, which no event holds:
  its code is the ``event_type`` argument);
- a document of ``map`` sections (the row value): ``read_<doc>(obj, columns, state)`` ->
  ``(new, old)``, ``check_<doc>_sections(names, new)`` (which sections may come together,
  by their ``when``), ``write_<doc>(ev, column_map, layout, go122)``;
- the document an ``any`` key is in (the column): ``read_<doc>(obj, path, state, layout)``
  -> ``(type, flags, value)``, the checked reading (the codec's own loop reads the
  well-formed common case first; ``layout`` is its rule that a message's columns all carry
  the layout-bound key or none do), and ``write_<doc>(c, layout, go122, path)``; its value
  by the kinds of the key's ``rendering:`` attribute, ``read_<doc>_value(kind, v, flags,
  flagless, path)`` and ``write_<doc>_value(kind, v, flags, layout, go122, path)``: per
  kind, its JSON value types under their conditions, each type a primitive of
  ``runtime.formats.open_protocol_json`` (``_READ``, ``_WRITE``).

Spec names reach the code only as literals (:func:`generator.spec.pytext.literal`); a key
name JSON would have to escape, or a document or field name that is no identifier, is
refused here.

    >>> _json_name("ts")
    '"ts":'
"""

from __future__ import annotations

import builtins
import keyword
import textwrap

from generator.emit.pysource import LineWriter
from generator.spec import pytext
from generator.spec.model import JSON_CONDITIONS, JsonDoc, JsonKeyDef, Spec, camel

BOUNDS = {"u8": (0, 255), "u64": (0, (1 << 64) - 1), "s64": (-(1 << 63), (1 << 63) - 1)}
SCALARS = ("u8", "u64", "s64", "bool", "string", "bytes")
EVENT_TYPE_FIELD = "type"
"""The field of the key that says the event kind: no attribute of an event."""
EMPTY_ELSEWHERE = ("str", "bytes", "int", "float", "list", "tuple", "dict")
"""Builtin classes whose empty value (``""``, ``0``, ``[]``, ``{}``) is no empty value of
another type: ``omit: empty`` leaves out only the key type's own (Go's omitempty), and
hands the others to its check, which refuses them (a ``{}`` schema was left out)."""
_OWN_CLASS = {
    "string": "str",
    "bytes": "bytes",
    "bool": "int",
    "u8": "int",
    "u64": "int",
    "s64": "int",
}
"""A key type's class among those (a bool key's ``0`` is False, as Go's zero value)."""


def _json_name(name: str) -> str:
    """``"name":`` as Go writes it, for a name that needs no escape (others are refused)."""
    if not name.isascii() or not name.isprintable() or any(c in name for c in '"\\<>&'):
        raise ValueError(f"JSON key {name!r} needs escaping; not supported in a json: document")
    return f'"{name}":'


def _identifier(name: str, what: str) -> str:
    if not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"{what} {name!r} is no Python identifier")
    return name


class JsonDocumentEmitter:
    """The functions of every ``json:`` document of ``spec`` (see the module doc)."""

    def __init__(self, spec: Spec):
        self.spec = spec
        self.functions: list[str] = []

    def code(self) -> str:
        """The module text: every document's functions, then ``JSON_CODE``."""
        self.functions = []
        blocks = []
        for doc in self.spec.json_documents.values():
            blocks.extend(self._document(doc))
        table = ["JSON_CODE = {"]
        table += [f"    {name!r}: _json_{name}," for name in self.functions]
        table += ["}", '"""The readers and writers above by name, for the Kafka codec."""']
        return "\n\n\n".join(blocks + ["\n".join(table)]) + "\n"

    def _document(self, doc: JsonDoc) -> list[str]:
        name = _identifier(doc.name, "JSON document")
        types = {k.type for k in doc.keys}
        if not doc.keys:
            return []
        if "any" in types:
            return [self._column_reader(name, doc), self._column_writer(name, doc),
                    self._value_reader(name, doc), self._value_writer(name, doc)]  # fmt: skip
        if "map" in types:
            return [self._row_reader(name, doc), self._sections(name, doc),
                    self._row_writer(name, doc)]  # fmt: skip
        if types <= set(SCALARS):
            return [self._scalar_reader(name, doc), self._scalar_writer(name, doc)]
        raise ValueError(f"JSON document {doc.name!r} mixes key types {sorted(types)}")

    def _function(self, name: str, signature: str, doc: str, body: LineWriter) -> str:
        self.functions.append(name)
        lines = textwrap.wrap(pytext.docstring(doc), 84)
        head = [f"def _json_{name}({signature}):", f'    """{lines[0]}']
        head += [f"    {line}" for line in lines[1:]]
        head[-1] += '"""'
        return "\n".join(head + body.lines)

    def _where(self, key: JsonKeyDef) -> str:
        return pytext.source_comment(self.spec.source.display, key.line, key.doc)

    # -- scalar documents ----------------------------------------------------------------

    def _claim_check_members(self, doc: JsonDoc) -> str | None:
        """The envelope message of the claim-check object (all members, nothing else)."""
        km = self.spec.kafka_message
        if km and km.claim_check and km.claim_check.document == doc.name:
            return "a claim-check object has " + " and ".join(k.name for k in doc.keys)
        return None

    def _scalar_reader(self, name: str, doc: JsonDoc) -> str:
        w = LineWriter()
        envelope = self._claim_check_members(doc)
        out, names = [], {}
        for k in doc.keys:
            var = _identifier(k.field, "field")
            var += "_" if hasattr(builtins, var) else ""
            out.append(f"{k.field!r}: {var}")
            names[k.name] = var
            w.line(self._where(k))
            if envelope is not None:
                w.line(f"if {k.name!r} not in obj:")
                w.line(f"    raise rt_op_json.fail({envelope!r}, {k.name!r})")
                w.line(f"{var} = rt_op_json.{self._reader_of(k)}(obj[{k.name!r}], {k.name!r})")
                continue
            w.line(f"{var} = obj.get({k.name!r})")
            bad = f"rt_op_json.bad_member({var}, {k.type!r}, {k.name!r}{self._enum_arg(k)})"
            refused = self._refused(k, var)
            if k.omit == "never":  # None is refused too
                w.line(f"if {refused}:")
                w.line(f"    raise {bad}")
            elif k.type == "bool":
                w.line(f"if {var} is None:")
                w.line(f"    {var} = False")
                w.line(f"elif {refused}:")
                w.line(f"    raise {bad}")
            else:
                w.line(f"if {var} is not None and ({refused}):")
                w.line(f"    raise {bad}")
        if envelope is not None:
            members = "{" + ", ".join(repr(k.name) for k in doc.keys) + "}"
            w.line(f"extra = sorted(set(obj) - {members})")
            w.line("if extra:")
            w.line(
                '    raise rt_op_json.fail(f"a claim-check object has no {extra[0]!r}", extra[0])'
            )
        self._events_rule(w, doc, names)
        w.line("return {" + ", ".join(out) + "}")
        text = (f"The members of one ``{doc.name}`` document (a decoded JSON object), by the "
                "event field each carries. A refused member raises DecodeError with its "
                "name as path (offset 0: the caller shifts it).")  # fmt: skip
        return self._function(f"read_{name}", "obj", text, w)

    def _reader_of(self, key: JsonKeyDef) -> str:
        if key.type != "bytes":
            raise ValueError(f"a claim-check member is bytes, not {key.type!r}")
        return "b64"

    def _closed(self, key: JsonKeyDef) -> bool:
        """Whether only ``key``'s enum codes are accepted (not open, not a flag set)."""
        return bool(key.enum) and not key.open and not self.spec.enums[key.enum].flags

    def _enum_arg(self, key: JsonKeyDef) -> str:
        return f", {camel(key.enum)}" if self._closed(key) else ""

    def _refused(self, key: JsonKeyDef, var: str) -> str:
        """The condition under which ``var`` (not None) is no value of ``key``."""
        if key.type == "string":
            return f"type({var}) is not str"
        if key.type == "bool":
            return f"type({var}) is not bool"
        if key.type == "bytes":
            raise ValueError("a bytes member is read only in the claim-check object")
        lo, hi = BOUNDS[key.type]
        test = f"type({var}) is not int or not {lo} <= {var} <= {hi}"
        if self._closed(key):
            codes = sorted(v.value for v in self.spec.enums[key.enum].values)
            test += f" or {var} not in {{{', '.join(map(str, codes))}}}"
        return test

    def _events_rule(self, w: LineWriter, doc: JsonDoc, names: dict) -> None:
        """The keys with ``events:``: an event of another type has no such field, so the key
        holds nothing there, or what ``omit:`` leaves out (its message names the event
        type as the member's name in lower case: "a ddl event has no row_id ('rid')")."""
        type_key = next((k for k in doc.keys if k.field == EVENT_TYPE_FIELD and k.enum), None)
        if type_key is None or not any(k.events for k in doc.keys):
            return
        w.line("# the members only some event types carry (events:)")
        for member in self.spec.enums[type_key.enum].values:
            foreign = [k for k in doc.keys if k.events and member.name not in k.events]
            if not foreign:
                continue
            w.line(f"if {names[type_key.name]} == {member.value}:  # {member.name}")
            with w.indent():
                for k in foreign:
                    var = names[k.name]
                    held = var if k.omit == "empty" else f"{var} is not None"
                    message = f"a {member.name.lower()} event has no {k.field} ({k.name!r})"
                    w.line(f"if {held}:")
                    w.line(f"    raise rt_op_json.fail({message!r}, {k.name!r})")

    def _scalar_writer(self, name: str, doc: JsonDoc) -> str:
        w = LineWriter()
        given = [k for k in doc.keys if k.field == EVENT_TYPE_FIELD]
        w.line("parts = []")
        for k in doc.keys:
            w.line(self._where(k))
            if k in given:
                w.line("v = event_type")
            else:
                w.line(f"v = getattr(source, {_identifier(k.field, 'field')!r}, None)")
            text = f"{_json_name(k.name)!r} + {self._text_of(k, 'v', repr(k.field))}"
            if k.omit == "never":
                w.line("if v is None:")
                w.line(f"    raise rt_op_json.required({k.field!r})")
                w.line(f"parts.append({text})")
            else:
                w.line(self._omitted(k) if k.omit == "empty" else "if v is not None:")
                w.line(f"    parts.append({text})")
        w.line('return "{" + ",".join(parts) + "}"')
        signature = "source, go122" + (", event_type" if given else "")
        text = (f"One ``{doc.name}`` document as JSON text: ``source``'s fields, the keys in "
                "wire order, the empty ones left out as declared (``go122``: Go >= 1.22's "
                "escapes).")  # fmt: skip
        return self._function(f"write_{name}", signature, text, w)

    def _omitted(self, key: JsonKeyDef) -> str:
        """The condition of an ``omit: empty`` key's write: a value but its type's empty one."""
        others = [c for c in EMPTY_ELSEWHERE if c != _OWN_CLASS.get(key.type)]
        # None, the usual empty, stops before the class test (+8 % a build without the guard)
        return f"if v or (v is not None and v.__class__ in ({', '.join(others)})):"

    def _text_of(self, key: JsonKeyDef, var: str, path: str) -> str:
        if key.type == "string":
            return f"rt_op_json.string_text({var}, go122, {path})"
        if key.type == "bytes":
            return f"rt_op_json.bytes_text({var}, {path})"
        if key.type == "bool":
            return f"rt_op_json.bool_text({var}, {path})"
        return f"str(rt_op_json.check_int({var}, {BOUNDS[key.type]}, {path}))"

    # -- the row value: map sections -----------------------------------------------------

    def _sections_of(self, doc: JsonDoc) -> list[tuple[JsonKeyDef, str]]:
        out = []
        for k in doc.keys:
            if k.type != "map" or k.field not in ("new", "old"):
                raise ValueError(f"{doc.name}.{k.name}: a row section is a map of new or old")
            out.append((k, "section_" + str(len(out))))
        return out

    def _row_reader(self, name: str, doc: JsonDoc) -> str:
        w = LineWriter()
        sections = self._sections_of(doc)
        w.line("new = old = None")
        for k, var in sections:
            w.line(self._where(k))
            w.line(f"{var} = obj.get({k.name!r})")
            w.line(f"if {var} is not None:")
            w.line(f"    {k.field} = columns({k.name!r}, {var}, state)")
        for test, message in self._section_rules(sections, "new"):
            w.line(f"if {test}:")
            w.line(f"    raise rt_op_json.fail{message}")
        w.line("if new is None and old is None:  # no section: an insert of no columns")
        w.line("    new = []")
        w.line("return new, old")
        text = (f"The row images of one ``{doc.name}`` document: ``(new, old)``, each section's "
                "columns read by ``columns(name, map, state)``; the sections must make an op "
                "(none: an insert of no columns).")  # fmt: skip
        return self._function(f"read_{name}", "obj, columns, state", text, w)

    def _section_rules(self, sections, new: str) -> list[tuple[str, str]]:
        """(condition, fail arguments) of the sections that may not come together: a
        delete's section alone, an update's old row with its new row (in name order, so
        the first name is the one named)."""
        rules = []
        for k, var in sorted(sections, key=lambda s: s[0].name):
            if k.when == ("delete",):
                others = [v for o, v in sections if o.when != ("delete",)]
                if others:
                    test = f"{var} is not None and (" + " or ".join(
                        f"{v} is not None" for v in others) + ")"  # fmt: skip
                    message = f"a delete ({k.name!r}) carries no other section"
                    rules.append((test, f"({message!r}, {k.name!r})"))
        for k, var in sorted(sections, key=lambda s: s[0].name):
            if k.when == ("update",):
                message = f"an update's old row ({k.name!r}) comes with its new row"
                rules.append((f"{var} is not None and {new} is None", f"({message!r}, {k.name!r})"))
        return rules

    def _sections(self, name: str, doc: JsonDoc) -> str:
        w = LineWriter()
        sections = self._sections_of(doc)
        for k, var in sections:
            w.line(f"{var} = {k.name!r} if {k.name!r} in names else None")
        for test, message in self._section_rules(sections, "new"):
            w.line(f"if {test}:")
            w.line(f"    raise rt_op_json.fail{message}")
        text = (f"Raise unless the ``{doc.name}`` sections ``names`` make an op (``new``: the "
                "new row's columns or None); the compiled reader's check.")  # fmt: skip
        return self._function(f"check_{name}_sections", "names, new", text, w)

    def _row_writer(self, name: str, doc: JsonDoc) -> str:
        w = LineWriter()
        w.line("op, parts = ev.op, []")
        sections = self._sections_of(doc)
        news = [k.name for k, _ in sections if k.field == "new"]
        olds = [k for k, _ in sections if k.when == ("update",)] if news else []
        for k in olds:  # the reader's rule (_section_rules): an update's old row needs its new
            w.line(f"# an update's old row ({k.name!r}) is read only with its new row: the new "
                   f"row ({news[0]!r}) is written even when it has no columns")  # fmt: skip
            w.line(f"paired = op in {tuple(k.when)!r} and bool(ev.{k.field})")
        for k, _ in sections:
            w.line(self._where(k))
            w.line(f"cols = ev.{k.field}")
            # no columns (None, an empty list) leave it out; an empty str or dict is no list
            shown = (
                ""
                if k.omit == "never"
                else " and (cols or not (cols is None or isinstance(cols, list | tuple)))"
            )
            if olds and k.field == "new" and shown:
                shown = shown.replace(" and (", " and (paired or ", 1)
            w.line(f"if op in {tuple(k.when)!r}{shown}:")
            w.line(f"    parts.append({_json_name(k.name)!r} + column_map(cols, layout, go122, "
                   f"{k.field!r}))")  # fmt: skip
        w.line('return "{" + ",".join(parts) + "}"')
        text = (f"One ``{doc.name}`` document as JSON text: the sections ``ev.op`` has, each "
                "written by ``column_map``.")  # fmt: skip
        return self._function(f"write_{name}", "ev, column_map, layout, go122", text, w)

    # -- the column: the document with the any key ---------------------------------------

    def _column_roles(self, doc: JsonDoc):
        """(code, flag bit, flags, value key, rendering table) of a column document."""
        value = next(k for k in doc.keys if k.type == "any")
        enum, _, attr = value.rendering.partition(".")
        table = f"{enum.upper()}_{attr.upper()}"
        code = next(k for k in doc.keys if k.enum == enum)
        flags = next(k for k in doc.keys if k.layouts)
        bit = next((k for k in doc.keys if k.bit), None)
        if code.field != "type" or flags.field != "flags" or value.field != "value":
            raise ValueError(f"{doc.name}: a column document carries type, flags and value")
        if bit is None or bit.omit == "never" or len(doc.keys) != 4 or flags.type != "u64":
            raise ValueError(f"{doc.name}: a column is its type, a flag bit, u64 flags, value")
        return code, bit, flags, value, table

    def _column_reader(self, name: str, doc: JsonDoc) -> str:
        w = LineWriter()
        code, bit, flags, value, table = self._column_roles(doc)
        enum, _, member = bit.bit.partition(".")
        bit_value = f"{camel(enum)}.{_identifier(member, 'flag')}"
        w.line('within = path + "."')
        w.line(self._where(code))
        w.line(f"code = obj.get({code.name!r})")
        w.line(f"if {self._refused(code, 'code')}:")
        w.line(f"    raise rt_op_json.bad_member(code, {code.type!r}, {code.name!r}"
               f"{self._enum_arg(code) or ', None'}, within)")  # fmt: skip
        w.line(self._where(bit))
        w.line(f"handle = obj.get({bit.name!r})")
        w.line("if handle is None:")
        w.line("    handle = False")
        w.line("elif type(handle) is not bool:")
        w.line(f"    raise rt_op_json.bad_member(handle, 'bool', {bit.name!r}, None, within)")
        w.line(self._where(flags))
        w.line(f"flags = obj.get({flags.name!r})")
        w.line("absent = flags is None")
        w.line("layout(state, absent, path)  # all the message's columns have it, or none")
        w.line("if absent:")
        w.line(f"    flags = int({bit_value}) if handle else 0")
        w.line(f"elif {self._refused(flags, 'flags')}:")
        w.line(f"    raise rt_op_json.bad_member(flags, 'u64', {flags.name!r}, None, within)")
        w.line(f"elif {bit.name!r} in obj and handle != bool(flags & {bit_value}):")
        disagree = (f"{(bit.name + '=')!r} + str(handle).lower() + "
                    f"{(' disagrees with ' + flags.name + '=')!r} + str(flags)")  # fmt: skip
        w.line(f"    raise rt_op_json.fail({disagree}, within + {bit.name!r})")
        w.line(self._where(value))
        w.line(f"if {value.name!r} not in obj:")
        missing = f"missing key {value.name!r}"
        w.line(f"    raise rt_op_json.fail({missing!r}, within + {value.name!r})")
        w.line(f"kind = {table}.get(code, 'raw')")
        w.line(f"return code, flags, _json_read_{name}_value(kind, obj[{value.name!r}], flags, "
               f"absent, within + {value.name!r})")  # fmt: skip
        text = (f"One ``{doc.name}`` document (the object ``obj`` at ``path``) with every check: "
                "``(type, flags, value)``. ``layout(state, absent, path)`` is the codec's rule "
                "for the layout-bound key; a refused member raises DecodeError with its "
                "path.")  # fmt: skip
        return self._function(f"read_{name}", "obj, path, state, layout", text, w)

    def _column_writer(self, name: str, doc: JsonDoc) -> str:
        w = LineWriter()
        self._doc_name = name
        code, _, flags, value, table = self._column_roles(doc)
        w.line(f"code = rt_op_json.check_int(c.type, {BOUNDS[code.type]}, path + '.type')")
        w.line(f"flags = rt_op_json.check_int(c.flags, {BOUNDS['u64']}, path + '.flags')")
        w.line("parts = []")
        for k in doc.keys:
            w.line(self._where(k))
            label = _json_name(k.name)
            if k.layouts:
                w.line(f"if layout in {tuple(k.layouts)!r}:")
                with w.indent():
                    self._column_member(w, k, code, flags, value, label, table)
            else:
                self._column_member(w, k, code, flags, value, label, table)
        w.line('return "{" + ",".join(parts) + "}"')
        text = (f"One ``{doc.name}`` document as JSON text, ``v`` rendered per the ``{table}`` "
                "table.")  # fmt: skip
        return self._function(f"write_{name}", "c, layout, go122, path", text, w)

    def _column_member(self, w, k, code, flags, value, label, table) -> None:
        if k is code:
            w.line(f"parts.append({label!r} + str(code))")
        elif k.bit:
            enum, _, member = k.bit.partition(".")
            bit = f"{camel(enum)}.{_identifier(member, 'flag')}"
            if k.omit == "never":
                w.line(f"parts.append({label!r} + ('true' if flags & {bit} else 'false'))")
            else:
                w.line(f"if flags & {bit}:")
                w.line(f"    parts.append({(label + 'true')!r})")
        elif k is flags:
            w.line(f"parts.append({label!r} + str(flags))")
        elif k is value:
            w.line(f"kind = {table}.get(code, 'raw')")
            w.line(f"parts.append({label!r} + _json_write_{self._doc_name}_value(kind, c.value, "
                   "flags, layout, go122, path + '.value'))")  # fmt: skip
        else:
            raise ValueError(f"column member {k.name!r} is none of type, flag bit, flags, value")

    # -- the column value: the kinds of its rendering attribute -------------------------

    def _kinds(self, doc: JsonDoc):
        """(rendering table, [(kind, {condition: type})] in spec order, the flag expression
        of each flag condition, the layouts with the layout-bound key) of a column."""
        _, _, flags, value, table = self._column_roles(doc)
        enum, _, attr = value.rendering.partition(".")
        attribute = next(a for a in self.spec.enums[enum].attributes if a.name == attr)
        kinds = [(kind, {"type": type_, **attribute.variants[kind]})
                 for kind, (type_, _) in attribute.kinds.items()]  # fmt: skip
        members = {v.name: v.value for v in self.spec.enums[flags.enum].values}
        bits = {}
        for condition in ("binary", "unsigned"):
            if any(condition in decl for _, decl in kinds):
                member = condition.upper()
                if member not in members:
                    raise ValueError(f"{doc.name}: {flags.enum} has no {member} flag")
                # the int, not the IntFlag member: int & IntFlag builds a flag each time
                bits[condition] = f"flags & {members[member]:#x}  # {camel(flags.enum)}.{member}"
        return table, kinds, bits, flags.layouts

    def _value_reader(self, name: str, doc: JsonDoc) -> str:
        table, kinds, bits, _ = self._kinds(doc)
        tests = {"text": "type(v) is str", "legacy": "flagless", "flagless": "flagless", **bits}
        w = _kind_switch(table, kinds, tests, "None", _READ)
        text = (f"``v``, the value of a column whose type code is ``kind`` in ``{table}``, checked "
                "and as the model holds it (the kinds of the spec's rendering attribute; "
                "``flagless``: the column has no flags, the legacy layout).")  # fmt: skip
        return self._function(f"read_{name}_value", "kind, v, flags, flagless, path", text, w)

    def _value_writer(self, name: str, doc: JsonDoc) -> str:
        table, kinds, bits, layouts = self._kinds(doc)
        legacy = f"layout not in {tuple(layouts)!r}"
        # a legacy column is written without its flags, so it reads back flagless: its value
        # is checked as the reader takes it, not by the model's flags
        tests = {"text": "type(v) is str", "legacy": legacy, "flagless": legacy, **bits}
        w = _kind_switch(table, kinds, tests, "'null'", _WRITE)
        text = (f"``v`` of a column whose type code is ``kind`` in ``{table}`` as JSON text "
                "(the kinds of the spec's rendering attribute; ``go122``: Go >= 1.22's "
                "escapes).")  # fmt: skip
        return self._function(f"write_{name}_value", "kind, v, flags, layout, go122, path",
                              text, w)  # fmt: skip


def _kind_switch(table: str, kinds, tests: dict, none: str, calls: dict) -> LineWriter:
    """The body of a column value's reader or writer: ``none`` for a null, else per kind
    its variants' ``tests`` in JSON_CONDITIONS order (``legacy`` before ``flagless``, which
    it covers where a kind has both), then its plain type; ``calls`` renders a JSON type."""
    w = LineWriter()
    w.line("if v is None:")
    w.line(f"    return {none}")
    for kind, decl in kinds:
        w.line(f"if kind == {kind!r}:")
        with w.indent():
            for condition in JSON_CONDITIONS[1:]:
                if condition in decl and not (condition == "flagless" and "legacy" in decl):
                    w.line(f"if {_commented(tests[condition], condition)}")
                    w.line(f"    return {calls[decl[condition]]}")
            w.line(f"return {calls[decl['type']]}")
    w.line(f"raise ValueError(f'no {table} kind {{kind!r}}')")
    return w


def _commented(test: str, condition: str) -> str:
    """``test:`` with a comment naming the condition (after the test's own, if any)."""
    code, _, comment = test.partition("  # ")
    return f"{code}:  # {condition}" + (f": {comment}" if comment else "")


_INTEGERS = {
    "s64": BOUNDS["s64"],
    "u64": BOUNDS["u64"],
    "wide": (BOUNDS["s64"][0], BOUNDS["u64"][1]),
}
_READ = {
    **{t: f"rt_op_json.int_in(v, {b}, path)" for t, b in _INTEGERS.items()},
    "f32": "rt_op_json.float32_in(v, path)",
    "f64": "rt_op_json.float64_in(v, path)",
    "str": "rt_op_json.str_in(v, path)",
    "utf8": "rt_op_json.utf8_in(v, path)",
    "quoted": "rt_op_json.quoted_in(v, path)",
    "base64": "rt_op_json.b64(v, path)",
    "scalar": "rt_op_json.scalar_in(v, path)",
}
"""The reading of each JSON value type (``generator.spec.model.JSON_VALUE_TYPES``)."""
_WRITE = {
    **{t: f"str(rt_op_json.check_int(v, {b}, path))" for t, b in _INTEGERS.items()},
    "f32": "rt_op_json.float32_text(v, path)",
    "f64": "rt_op_json.float64_text(v, path)",
    "str": "rt_op_json.string_text(v, go122, path)",
    "utf8": "rt_op_json.utf8_text(v, go122, path)",
    "quoted": "rt_op_json.quoted_text(v, go122, path)",
    "base64": "rt_op_json.bytes_text(v, path)",
    "scalar": "rt_op_json.scalar_text(v, go122, path)",
}
"""The writing of each JSON value type, as JSON text."""
