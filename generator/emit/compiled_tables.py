"""The compiled readers a generated module hands to its runtime primitives.

A record that is one runtime primitive with a ``map:`` (Craft's ``craft_message``:
``RuntimeType.compiled``) has a compiled reader rendered from that ``map:``
(``generator/emit/compiled_fused.py``), which ``parse`` tries first from C like every other
compiled reader (``COMPILED_READERS``). The primitive's own entry points (``decode_message``)
try it too: the generated module hands it over (``use_compiled_reader``; None when the tier
is not built). Where the primitive's readers keep the bytes read (``RuntimeType.kept_as``),
the compiled reader keeps them as they do (``generator/emit/compiled_mapping.py``).
"""

from __future__ import annotations

from generator.spec.model import Spec
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
            and record.mapping is not None
            and len(record.fields) == 1
            and record.fields[0].type.kind == "runtime"
            and RUNTIME_TYPES[record.fields[0].type.name].compiled
        }
        """Record -> (the configured runtime primitive that reads it, the record's field)."""

    @property
    def entries(self) -> bool:
        """True when any record of the spec hands its compiled reader to a primitive."""
        return bool(self.runtime)

    def module_code(self) -> str:
        """Each primitive given its record's compiled reader (None when the tier is absent)."""
        out = []
        for name, (instance, field) in self.runtime.items():
            out.append(f"{instance}.use_compiled_reader(COMPILED_READERS.get({name!r}), {field!r})")
        return "\n".join(out) + "\n"
