"""The compiled tier of a record's ``map:``: its plan (:mod:`generator.emit.map_plan`) as a
Cython reader that reads the source record with that record's compiled reader, then makes
the models as the Python mapping (:mod:`generator.emit.mapping`) makes them, or declines
(None) wherever the Python mapping fails or gives up (its ``fail``, an exception, a value
the kind table leaves to the checked decoder): the Python readers then give the models or
the exact error. Faults decline whatever their order, so the checks run in one pass.

Models are made as the other compiled readers make theirs (slots written at their offsets,
found by ``bind``); a field the mapping does not set is the class's default, taken by
``bind`` from the class (an atomic default only, else nothing is bound). Ids resolve through
``runtime/_compiled/mapped.pxd``'s ``map_lookup``, values through its ``map_value`` on the
decoder's 256-entry kind table. The expressions are the spec's, translated and checked
(:mod:`generator.spec.mapping`); any name in them but the hoisted chunks, ``i`` and ``body``
is refused (:class:`NotCompiled`), so spec text reaches the module only as literals.
"""

from __future__ import annotations

import ast
import keyword

from generator.emit.compiled_support import NotCompiled
from generator.emit.map_plan import ClassCase, Groups, KindTable, Lookup, MakeModel, MapPlan
from generator.emit.pysource import LineWriter
from generator.spec import pytext

MAPPED_PRELUDE = """\
from runtime._compiled.mapped cimport (
    map_defaults, map_kinds, map_kinds_ok, map_lookup, map_put_defaults, map_value,
)
from cpython.list cimport PyList_GET_ITEM
"""


class MappedRecord:
    """The Cython of one record's :class:`MapPlan`: its ``globals_``, ``function`` (the
    mapping), ``entry`` (the record's reader ``_read_<record>``) and ``bind_function``."""

    def __init__(self, emitter, plan: MapPlan):
        self.emitter, self.plan = emitter, plan
        self.prefix = f"_map_{plan.record}"
        self.models: dict[tuple[str, str, tuple], str] = {}
        """(module, class, the fields set) -> the global of the class."""
        self.model_fields: dict[str, list[str]] = {}
        """A class's global -> the fields written at their offsets."""
        self.explicit: dict[str, tuple[str, ...]] = {}
        """A class's global -> the fields it sets before its defaults."""
        self.tables: dict[str, str] = {}
        """A decoder (``VALUE_DECODERS`` key) -> the global of its kind table."""
        self.locals = {local for local, _ in plan.hoisted} | {"i", "body"}
        source = emitter.lowering.plans.get(plan.source)
        if source is None or plan.source not in emitter.functions:
            raise NotCompiled(f"its source {plan.source} has no compiled reader")
        self.source_depth = source.depth
        self.function = self._function()

    # -- module parts --------------------------------------------------------------------

    def globals_(self) -> list[str]:
        out = [
            f"cdef object _{self.plan.class_name}",
            f"cdef Py_ssize_t _{self.plan.class_name}_{self.plan.field}",
        ]
        for name, fields in self.model_fields.items():
            out.append(f"cdef object {name}")
            out += [f"cdef Py_ssize_t {name}_{field}" for field in fields]
            out.append(f"cdef tuple {name}_defaults")
        for table in self.tables.values():
            out += [f"cdef signed char {table}[256]", f"cdef uint64_t {table}_unsigned",
                    f"cdef bint {table}_big"]  # fmt: skip
        return out

    def global_names(self) -> list[str]:
        names = [f"_{self.plan.class_name}", f"_{self.plan.class_name}_{self.plan.field}"]
        for name, fields in self.model_fields.items():
            names += [name, *(f"{name}_{f}" for f in fields), f"{name}_defaults"]
        names += [
            f"{table}_{part}" for table in self.tables.values() for part in ("unsigned", "big")
        ]
        return names

    def bind_function(self) -> str:
        """``_bind_<record>(namespace)``: the classes, offsets and kind tables the mapping
        uses, taken from the generated module's namespace (once ``bind`` has checked its
        plan digest); False where the namespace is not what was rendered for."""
        lines = [
            f"def _bind_{self.plan.record}(namespace):",
            f"    global {', '.join(self.global_names())}",
            *self.bind_lines(),
            "    return True",
        ]
        return "\n".join(lines)

    def bind_lines(self) -> list[str]:
        """The body of ``_bind_<record>``: ``return False`` where the namespace differs."""
        cls = self.plan.class_name
        lines = [
            f'    _{cls} = namespace["{cls}"]',
            f"    if tuple(f.name for f in dataclasses.fields(_{cls})) != ({self.plan.field!r},):",
            "        return False",
            f'    _{cls}_{self.plan.field} = _slot(_{cls}, "{self.plan.field}")',
        ]
        for (module, model, _), name in self.models.items():
            lines += [
                f'    {name} = namespace["rt_{module}"].{model}',
                f"    {name}_defaults = map_defaults({name}, {self.explicit[name]!r})",
                f"    if {name}_defaults is None:",
                "        return False",
            ]
            lines += [f'    {name}_{f} = _slot({name}, "{f}")' for f in self.model_fields[name]]
        for decoder, table in self.tables.items():
            lines += [
                f'    _kinds = namespace["VALUE_DECODERS"][{decoder!r}]',
                "    if not map_kinds_ok(_kinds):",
                "        return False",
                f"    map_kinds({table}, _kinds.quick)",
                f"    {table}_unsigned = _kinds.unsigned",
                f'    {table}_big = _kinds.byte_order == ">"',
            ]
        return lines

    def entry(self) -> str:
        """``_read_<record>``: the source read by its reader, then mapped."""
        plan, cls = self.plan, self.plan.class_name
        signature = "const unsigned char* buf, Py_ssize_t pos, Py_ssize_t end, _Limits* lim,"
        return "\n".join([
            f"cdef object _read_{plan.record}({signature}",
            f"{' ' * (len(plan.record) + 19)}Py_ssize_t* stop):",
            f'    """``{plan.record}``: a {plan.source} read, then its map: (None: declined)."""',
            f"    source = {self.emitter.reader(plan.source)}(buf, pos, end, lim, stop)",
            "    if source is None:",
            "        return None",
            "    try:",
            f"        models = {self.prefix}(source)",
            "    except Exception:  # the Python mapping gives up here too",
            "        return None",
            "    if models is None:",
            "        return None",
            f"    model = wirespec_alloc_untracked(_{cls})",
            f"    wirespec_put(model, _{cls}_{plan.field}, models)",
            "    if not atomic(models):",
            "        keep_tracked(model)",
            "    return model",
        ])  # fmt: skip

    # -- the mapping ---------------------------------------------------------------------

    def _function(self) -> str:
        plan = self.plan
        self.w = LineWriter()
        self.decls: dict[str, str] = {"i": "Py_ssize_t", "n": "Py_ssize_t", "kind": "long"}
        where = pytext.comment(f"{self.emitter.spec.source.display}:{plan.line}")
        head = [
            f"cdef object {self.prefix}(object source):",
            f'    """{where}: the map: of {plan.record}, one model per element of',
            f'    {plan.source}.{plan.each}; None where the Python mapping fails or gives up."""',
        ]
        w = self.w
        outer = dict(plan.field_classes)
        for local, (field, chunk) in plan.hoisted:
            self.decls[local] = "list"
            record = self._get("source", plan.source_class, field)
            w.line(f"{local} = {self._get(record, outer.get(field, ''), chunk)}")
        dictionaries = {
            lookup.dictionary for case in plan.switch.cases for lookup in _lookups(case)
        }
        for name in sorted(dictionaries):
            self.decls[f"names_{name}"] = "list"
            w.line(f"names_{name} = {self._get('source', plan.source_class, name)}")
        self.decls["elements"] = "list"
        w.line(f"elements = {self._get('source', plan.source_class, plan.each)}")
        w.line("n = len(elements)")
        w.line("models = PyList_New(n)")
        w.line("for i in range(n):")
        with w.indent():
            w.line("body = <object>PyList_GET_ITEM(elements, i)")
            w.line(f"kind = {plan.switch.chunk}[i]")
            for k, case in enumerate(plan.switch.cases):
                w.line(
                    f"{'if' if k == 0 else 'elif'} kind == {int(case.value)}:  # {pytext.comment(case.member)}"
                )
                with w.indent():
                    self._case(case)
            w.line("else:")
            with w.indent():
                w.line("return None")
            w.line("list_put(models, i, model)")
        w.line("if all_atomic(models):")
        with w.indent():
            w.line("untrack(models)")
        w.line("return models")
        decls = [f"    cdef {ctype} {var}" for var, ctype in self.decls.items()]
        return "\n".join(head + decls + self.w.lines)

    def _case(self, case: ClassCase) -> None:
        w = self.w
        for rule in case.rules:
            w.line(f"if not ({self._expression(rule)}):")
            with w.indent():
                w.line("return None")
        cls = self._model(
            case.make, [field for _, field in case.groups.into] if case.groups else []
        )
        values = []
        for field, how in case.make.fields:
            var = f"v_{field}"
            if isinstance(how, tuple):
                self._lookup(var, f"{how[0]}[i]", how[1])
            else:
                w.line(f"{var} = {self._expression(how)}")
            values.append((field, var))
        self._make("model", cls, values)
        if values:
            w.line(f"if not ({' and '.join(f'atomic({var})' for _, var in values)}):")
            with w.indent():
                w.line("keep_tracked(model)")
        if case.groups is not None:
            self._groups(case.groups, cls)

    def _make(self, var: str, cls: str, values: list[tuple[str, str]]) -> None:
        """``var``: a new model of ``cls`` (untracked), its defaults (where the mapping
        leaves any) and ``values`` (field, expression) written at their offsets."""
        self.w.line(f"{var} = wirespec_alloc_untracked({cls})")
        self.w.line(f"if {cls}_defaults:")
        with self.w.indent():
            self.w.line(f"map_put_defaults({var}, {cls}_defaults)")
        for field, value in values:
            self.w.line(f"wirespec_put({var}, {cls}_{field}, {value})")

    def _lookup(self, var: str, id_: str, lookup: Lookup) -> None:
        self.decls[f"{var}_p"] = "PyObject*"
        null = lookup.null
        self.w.line(
            f"{var}_p = map_lookup(names_{lookup.dictionary}, {id_}, {null is not None}, "
            f"{0 if null is None else int(null)}, {lookup.empty_refused})"
        )
        self.w.line(f"if {var}_p == NULL:")
        with self.w.indent():
            self.w.line("return None")
        self.w.line(f"{var} = <object>{var}_p")

    def _groups(self, groups: Groups, owner: str) -> None:
        w = self.w
        for var, ctype in (("g", "Py_ssize_t"), ("j", "Py_ssize_t"), ("count", "Py_ssize_t"),
                           ("seen", "unsigned long"), ("group_kind", "long"),
                           ("column_name_p", "PyObject*"), ("groups", "list"),
                           ("gave_up", "bint")):  # fmt: skip
            self.decls[var] = ctype
        column = self._model(groups.column, [])
        table = self._table(groups.values)
        chunks = sorted({chunk for _, chunk in groups.column.fields})
        for chunk in chunks:
            self.decls[f"group_{chunk}"] = "list"
        w.line("seen = 0")
        w.line(f"groups = {self._get('body', self.plan.element_class, groups.each)}")
        w.line("for g in range(len(groups)):")
        with w.indent():
            w.line("group = <object>PyList_GET_ITEM(groups, g)")
            w.line(f"group_kind = {self._get('group', groups.group_class, groups.by)}")
            for bit, (value, field) in enumerate(groups.into):
                w.line(f"{'if' if bit == 0 else 'elif'} group_kind == {int(value)}:")
                with w.indent():
                    w.line(f"if seen & {1 << bit}:")
                    with w.indent():
                        w.line("return None")
                    w.line(f"seen |= {1 << bit}")
                    w.line(f"into = {owner}_{field}")
            w.line("else:")
            with w.indent():
                w.line("return None")
            self.decls["into"] = "Py_ssize_t"
            for chunk in chunks:
                w.line(f"group_{chunk} = {self._get('group', groups.group_class, chunk)}")
            w.line(f"count = len(group_{chunks[0]})")
            for chunk in chunks[1:]:
                w.line(f"if len(group_{chunk}) != count:")
                with w.indent():
                    w.line("return None")
            w.line("columns = PyList_New(count)")
            w.line("for j in range(count):")
            with w.indent():
                values = []
                names, lookup = groups.names
                kinds = groups.values
                for field, chunk in groups.column.fields:
                    item = f"<object>PyList_GET_ITEM(group_{chunk}, j)"
                    if chunk == names:
                        w.line(f"column_name_p = map_lookup(names_{lookup.dictionary}, {item}, "
                               f"{lookup.null is not None}, {0 if lookup.null is None else int(lookup.null)}, "
                               f"{lookup.empty_refused})")  # fmt: skip
                        w.line("if column_name_p == NULL:")
                        with w.indent():
                            w.line("return None")
                        values.append((field, "<object>column_name_p"))
                    elif chunk == kinds.values:
                        w.line(
                            f"value = map_value({table}, <object>PyList_GET_ITEM(group_{kinds.codes}, j), "
                            f"<object>PyList_GET_ITEM(group_{kinds.flags}, j), {item}, {table}_unsigned, "
                            f"{table}_big, &gave_up)"
                        )
                        w.line("if gave_up:")
                        with w.indent():
                            w.line("return None")
                        values.append((field, "value"))
                    else:
                        values.append((field, item))
                self._make("item", column, values)
                w.line("list_put(columns, j, item)")
            # a column holds a name, numbers and a value of a kind: atomic, as its list
            w.line("untrack(columns)")
            w.line("wirespec_put(model, into, columns)")

    # -- names ---------------------------------------------------------------------------

    def _get(self, obj: str, cls: str, field: str) -> str:
        """``obj.field`` of a model of ``cls``: its slot read where the readers bind it."""
        if _name(field) in self.emitter.classes.get(cls, ()):
            return f"wirespec_get({obj}, _{cls}_{field})"
        return f"{obj}.{field}"

    def _model(self, make: MakeModel, later: list[str]) -> str:
        """The global of ``make``'s class, with the fields it sets (``later``: set after
        the defaults, by its groups)."""
        set_ = tuple(_name(field) for field, _ in make.fields)
        name = self.models.setdefault(
            (make.module, make.model, set_), f"{self.prefix}_class{len(self.models)}"
        )
        self.model_fields[name] = [*set_, *(_name(f) for f in later)]
        self.explicit[name] = set_
        return name

    def _table(self, kinds: KindTable) -> str:
        return self.tables.setdefault(kinds.decoder, f"{self.prefix}_kinds{len(self.tables)}")

    def _expression(self, python: str) -> str:
        """A rule's or field's expression, its names checked (see the module docstring)."""
        tree = ast.parse(python, mode="eval")
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id not in self.locals:
                raise NotCompiled(f"the map: names {node.id!r}")
            if isinstance(node, ast.Attribute):
                _name(node.attr)
            if isinstance(node, ast.Constant) and not isinstance(node.value, (int, type(None))):
                raise NotCompiled(f"the map: has the constant {node.value!r}")
            if isinstance(node, ast.Call):
                raise NotCompiled("the map: calls a function")
        return ast.unparse(tree)


MAPPED_READERS = '''\
MAPPED_READERS = {}
"""Record with ``map:`` -> its compiled reader, ``reader(data, limits)``: the model the
Python mapping makes of the source record, or None where it fails or gives up; filled by
``bind``. Not one of the readers ``bind`` returns: ``parse`` and the runtime primitive
choose which reader of the record runs."""
'''


_CYTHON_WORDS = frozenset({
    "DEF", "ELIF", "ELSE", "IF", "NULL", "api", "cdef", "cimport", "cpdef", "ctypedef", "enum",
    "extern", "fused", "gil", "include", "inline", "nogil", "public", "readonly", "sizeof",
    "struct", "union",
})  # fmt: skip
"""Words Cython reserves beside Python's keywords."""


def _name(name: str) -> str:
    """A spec name that becomes an attribute: an identifier that is no keyword, else refused."""
    if not name.isidentifier() or not name.isascii() or keyword.iskeyword(name) \
            or name in _CYTHON_WORDS:  # fmt: skip
        raise NotCompiled(f"{name!r} is not a name the module can use")
    return name


def _lookups(case: ClassCase) -> list[Lookup]:
    out = [how[1] for _, how in case.make.fields if isinstance(how, tuple)]
    if case.groups is not None:
        out.append(case.groups.names[1])
    return out
