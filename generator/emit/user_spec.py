"""A user's own spec used without ``wirespec generate``: rendered and imported in memory.

``wirespec decode FORMAT FILE --spec SPEC`` (try a spec before generating it), the Spark
glue's ``spec`` option (a user's Thrift spec or IDL, rendered on the driver and once per
worker) and tests come here. Nothing is written to ``generated/``: the module is registered
in ``sys.modules`` as ``wirespec_spec_<format>_<hash>``, and spec text in it is escaped as
in ``generated/`` (specs/README.md, "A spec is data, never code").

:mod:`runtime.spark.decode` imports this module, only for its ``spec`` option: the one
import from the runtime into the generator (ARCHITECTURE.md, "The contract").
"""

from __future__ import annotations

import hashlib
import sys
import types
from pathlib import Path

from generator.spec.loader import LoadedSpec, load, load_text
from generator.spec.validate import build_model
from runtime.core.errors import SpecError


def spec_text(path: Path) -> str:
    """The text of a spec file, or of the spec a ``.thrift`` IDL file imports to (its
    includes followed)."""
    if path.suffix == ".thrift":
        from generator.importers.thrift_idl import import_thrift

        return import_thrift(path)
    return path.read_text("utf-8")


def answers_to(text: str, path: Path) -> str:
    """The FORMAT a spec is used as (``--spec``, Spark's ``spec`` option): its
    ``protocol:`` for a Thrift spec (``thrift_compact``), else its own ``format:``."""
    data = load_text(text, path, path.name).data
    return data.get("protocol") or data["format"]


def spec_model(loaded: LoadedSpec):
    """The model of a loaded spec that can be used on its own (what :func:`import_spec`
    renders): a :class:`SpecError` for a spec that is not valid, or that only declares
    enums for other specs to import (it has no module).

    >>> from generator import ROOT
    >>> spec_model(load(ROOT / "specs" / "mysql_types.yaml", "mine/types.yaml"))
    Traceback (most recent call last):
    ...
    runtime.core.errors.SpecError: mine/types.yaml: mysql_types only declares enums for other \
specs to import
    """
    if "protocol" in loaded.data:  # id-keyed protocols (Thrift): their own model
        from generator.spec.thrift import build_thrift_model

        return build_thrift_model(loaded)
    spec = build_model(loaded)
    if spec.is_library:
        raise SpecError(
            f"{spec.format} only declares enums for other specs to import", file=loaded.display
        )
    return spec


def import_spec(path: Path, text: str | None = None, *, loaded: LoadedSpec | None = None):
    """Render the spec at ``path`` and import its module in memory. ``text``: its text when
    already read (a Spark worker gets it from the driver); ``loaded``: the spec when the
    caller has already loaded it (:func:`generator.spec.loader.load` with the path as the
    user typed it, which its errors then name; else they name the file)."""
    path = Path(path)
    if loaded is None:
        loaded = load(path, path.name) if text is None else load_text(text, path, path.name)
    spec = spec_model(loaded)
    if "protocol" in loaded.data:  # id-keyed protocols (Thrift): their own model and target
        from generator.emit.thrift_module import render_thrift

        source = render_thrift(spec, fmt=False)  # black only for committed modules
    else:
        from generator.emit.render import render_with_compiled

        source = render_with_compiled(spec, in_memory=True)[0]
    name = f"wirespec_spec_{spec.format}_{hashlib.sha256(source.encode()).hexdigest()[:8]}"
    if name not in sys.modules:
        module = types.ModuleType(name)
        module.__file__ = str(path)
        sys.modules[name] = module
        # Runs the module we just generated from the user's spec.
        exec(compile(source, f"<generated from {path}>", "exec"), module.__dict__)  # noqa: S102
    return sys.modules[name]
