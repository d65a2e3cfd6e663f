"""The compiled tier of a record's ``map:``: its plan (:mod:`generator.emit.map_plan`) as the
Cython reader ``_read_<record>``, which reads the source record and maps each element as it
is read (:mod:`generator.emit.compiled_fused` renders it), making the models the Python
mapping (:mod:`generator.emit.mapping`) makes, or declining (None) wherever the Python
readers or mapping fail or give up (its ``fail``, an exception, a value the kind table leaves
to the checked decoder): the Python readers then give the models or the exact error.

Models are made as the other compiled readers make theirs (slots written at their offsets,
found by ``bind``); a field the mapping does not set is the class's default, taken by
``bind`` from the class (an atomic default only, else nothing is bound). Ids resolve through
``runtime/_compiled/mapped.pxd``'s ``map_lookup``, values through its ``map_value`` on the
decoder's 256-entry kind table. The expressions are the spec's, translated and checked
(:mod:`generator.spec.mapping`); any name in them but the hoisted chunks, ``i`` and ``body``
is refused (:class:`NotCompiled`), so spec text reaches the module only as literals.

The globals of record ``R``'s mapping are ``_map_<R>_Class<k>`` (a class made), its
fields' offsets ``_map_<R>_Class<k>_<field>`` and defaults ``_map_<R>_Class<k>_Defaults``,
and ``_map_<R>_Kinds<k>`` (a kind table): a capital ends the record's name (which has
none), so two records' globals never meet, nor a field's its class's defaults.
"""

from __future__ import annotations

import ast
import keyword

from generator.emit.compiled_support import NotCompiled
from generator.emit.map_plan import ClassCase, KindTable, Lookup, MakeModel, MapPlan

MAPPED_PRELUDE = """\
from runtime._compiled.mapped cimport (
    MapDefaults, MapRun, map_defaults, map_kept_list_ok, map_kinds, map_kinds_ok, map_list_set,
    map_lookup, map_put, map_put_defaults, map_run, map_set, map_value,
)
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.long cimport PyLong_FromUnsignedLongLong
"""


class MappedRecord:
    """The Cython of one record's :class:`MapPlan`: its ``globals_``, ``functions`` (its
    reader ``_read_<record>``, and its groups' reader), ``bind_function`` and, where the
    record keeps the bytes read (``MapPlan.kept_as``), ``whole_function``.

    Such a record's list is made of the kept class (``_<Class>_<field>_Kept``), and its
    entry reads all of an input with ``_kept_<record>``, which puts the input in the
    list's ``wire_form`` as the primitive's Python readers do."""

    def __init__(self, emitter, plan: MapPlan, fused_emitter):
        """``fused_emitter``: the class that renders the fused reader (``FusedEmitter``)."""
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
        self.kept = f"_{plan.class_name}_{plan.field}_Kept" if plan.kept_as else None
        """The global of the class the mapped list is made of, keeping the bytes read."""
        fused = fused_emitter(emitter.spec, emitter.lowering, self)
        names = fused.function_names
        if set(names) - set(fused.functions):
            raise NotCompiled(f"not fused: {fused.refused}")
        # the group's reader first: the source's calls it
        self.functions = [fused.functions[name] for name in reversed(list(names))]
        self.caches = fused.caches
        """The module globals of the names the reader keeps from one message to the next."""
        emitter.enums |= fused.enums
        emitter.expressions |= fused.expressions
        for prelude in fused.preludes:
            emitter.preludes.setdefault(prelude)

    # -- module parts --------------------------------------------------------------------

    def globals_(self) -> list[str]:
        out = [
            f"cdef object _{self.plan.class_name}",
            f"cdef Py_ssize_t _{self.plan.class_name}_{self.plan.field}",
        ]
        for name, fields in self.model_fields.items():
            out.append(f"cdef object {name}")
            out += [f"cdef Py_ssize_t {name}_{field}" for field in fields]
            out.append(f"cdef MapDefaults {name}_Defaults")
        if self.kept:
            out += [f"cdef object {self.kept}", f"cdef Py_ssize_t {self.kept}_bytes"]
        out += self.caches
        for table in self.tables.values():
            out += [f"cdef signed char {table}[256]", f"cdef uint64_t {table}_unsigned",
                    f"cdef bint {table}_big"]  # fmt: skip
        return out

    def global_names(self) -> list[str]:
        names = [f"_{self.plan.class_name}", f"_{self.plan.class_name}_{self.plan.field}"]
        if self.kept:
            names += [self.kept, f"{self.kept}_bytes"]
        for name, fields in self.model_fields.items():
            names += [name, *(f"{name}_{f}" for f in fields)]
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
            f'    _{cls}_{self.plan.field} = slot_offset(_{cls}, "{self.plan.field}")',
        ]
        if self.kept:
            module, name = self.plan.kept_as.split(".")
            lines += [
                f'    {self.kept} = namespace["{module}"].{name}',
                f"    if not map_kept_list_ok({self.kept}):",
                "        return False",
                f'    {self.kept}_bytes = slot_offset({self.kept}, "wire_form")',
            ]
        for (module, model, _), name in self.models.items():
            lines += [
                f'    {name} = namespace["rt_{module}"].{model}',
                f"    if not map_defaults(&{name}_Defaults, {name}, {self.explicit[name]!r}):",
                "        return False",
            ]
            lines += [
                f'    {name}_{f} = slot_offset({name}, "{f}")' for f in self.model_fields[name]
            ]
            lines.append(f"    free_fast({name})")
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

    def whole_function(self, whole: str) -> str:
        """``_kept_<record>``: ``whole`` (what reads all of an input), the input then kept
        in the model's list (its ``wire_form``: the reader made it of the kept class)."""
        plan, record = self.plan, self.plan.record
        return "\n".join(
            [
                f"cdef object _kept_{record}(_Reader read, Py_ssize_t depth, bytes data, limits):",
                f'    """``{whole}``, the ``{plan.field}`` of its model keeping ``data`` (a',
                f'    ``{plan.kept_as}``: its ``wire_form``, as the Python readers keep it)."""',
                f"    model = {whole}(read, depth, data, limits)",
                "    if model is not None:",
                f"        map_set(wirespec_get(model, _{plan.class_name}_{plan.field}), {self.kept}_bytes, data)",
                "    return model",
            ]
        )  # fmt: skip

    # -- what the fused reader asks ---------------------------------------------------

    def lookups(self, case: ClassCase) -> list[Lookup]:
        """The ``ref:`` look-ups of ``case``: its fields', its groups' names."""
        out = [how[1] for _, how in case.make.fields if isinstance(how, tuple)]
        if case.groups is not None:
            out.append(case.groups.names[1])
        return out

    def checked(self, python: str) -> ast.Expression:
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
        return tree

    # -- names ---------------------------------------------------------------------------

    def model(self, make: MakeModel, later: list[str]) -> str:
        """The global of ``make``'s class, with the fields it sets (``later``: set after
        the defaults, by its groups)."""
        set_ = tuple(_name(field) for field, _ in make.fields)
        name = self.models.setdefault(
            (make.module, make.model, set_), f"{self.prefix}_Class{len(self.models)}"
        )
        self.model_fields[name] = [*set_, *(_name(f) for f in later)]
        self.explicit[name] = set_
        return name

    def table(self, kinds: KindTable) -> str:
        return self.tables.setdefault(kinds.decoder, f"{self.prefix}_Kinds{len(self.tables)}")


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
