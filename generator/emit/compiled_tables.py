"""The compiled readers a generated module takes from a runtime primitive.

A record that is one runtime primitive with a compiled reader of whole messages (Craft's
``craft_message``: ``RuntimeType.compiled``) is read by that primitive's configured instance
(``compiled_reader``, None when the tier is not built), listed in ``TABLE_READERS``: ``parse``
tries these readers first, from C (``runtime/_compiled/dispatch.pyx``), when they are built.
Every other record's compiled reader is rendered from the lowering's plan
(``generator/emit/compiled.py``).
"""

from __future__ import annotations

from generator.spec.model import Spec, camel
from generator.spec.types import RUNTIME_TYPES


class CompiledTablesEmitter:
    """The runtime primitives' compiled readers of one spec."""

    def __init__(self, spec: Spec, runtime_instance=None):
        """``runtime_instance``: the module-level name of a runtime primitive's configured
        instance (``ModuleEmitter.runtime_instance``)."""
        self.spec = spec
        self.runtime = {
            name: (runtime_instance(record.fields[0].type), record.fields[0].name)
            for name, record in spec.records.items()
            if runtime_instance is not None
            and len(record.fields) == 1
            and record.fields[0].type.kind == "runtime"
            and RUNTIME_TYPES[record.fields[0].type.name].compiled
        }
        """Record -> (the configured runtime primitive whose compiled reader reads it, the
        record's field)."""

    @property
    def entries(self) -> bool:
        """True when any record of the spec has a compiled reader here."""
        return bool(self.runtime)

    def module_code(self) -> str:
        """``TABLE_READERS``: by record, the compiled ``parse`` readers (empty when the tier
        is absent)."""
        out = ["TABLE_READERS = {}"]
        for name, (instance, field) in self.runtime.items():
            reader = f"_{name}_compiled_reader"
            out.append(f"{reader} = {instance}.compiled_reader({camel(name)}, {field!r}, _LIMITS)")
            out.append(f"if {reader} is not None:")
            out.append(f"    TABLE_READERS[{name!r}] = {reader}")
        return "\n".join(out) + "\n"
