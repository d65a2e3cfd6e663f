"""Which tier decodes: the compiled extensions when they are built, current and allowed, else
pure Python, with the same results either way.

A compiled module is optional. It may be missing (no compiler at install), it is never used
when ``WIRESPEC_PURE_PYTHON=1`` is set, and it is never used when its ``.pyx`` or a ``.pxd``
it cimports changed since it was built (a warning names the rebuild command), so every
caller keeps its Python path:

    >>> compiled("runtime._compiled.absent") is None
    True

``describe()`` says which tier runs and why; ``wirespec --version`` prints it:

    >>> report = describe()
    >>> report.active in ("compiled", "partly compiled", "pure Python")
    True
    >>> str(report).startswith("tier: ")
    True
"""

from __future__ import annotations

import functools
import importlib
import importlib.machinery
import importlib.util
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from runtime.core import build_record

PURE_PYTHON_ENV = "WIRESPEC_PURE_PYTHON"
"""Set to ``1`` to force pure Python (read once per process, before the first decode)."""

COMPILED_PACKAGES = ("generated._compiled", "runtime._compiled")
"""The packages whose ``.pyx`` modules ``setup.py`` builds."""

REBUILD = "python setup.py build_ext --inplace"
"""Rebuilds the changed modules of a checkout (``bash scripts/setup.sh`` does too)."""
REBUILD_BESIDE = "wirespec generate --specs SPECS --out DIR --compiled"
"""Rebuilds the compiled tier of a module generated outside ``generated/``."""
INSTALLED = Path(__file__).resolve().parent.parent.parent
"""The folder holding wirespec's packages: the ``runtime/_compiled/*.pxd`` that a compiled
module generated outside ``generated/`` cimports are recorded from it (runtime/core/build_record.py)."""
BESIDE_PACKAGE = "wirespec_beside"
"""The package a compiled module generated outside ``generated/`` is named in once loaded by
its path (only the last part of the name counts: the extension's ``PyInit_<format>``)."""


class StaleBuildWarning(RuntimeWarning):
    """A compiled module is older than its sources, so its pure-Python path runs instead."""


@dataclass(frozen=True)
class ModuleState:
    """One compiled module and whether it runs: ``compiled``, or why not (``pure Python
    forced``, ``not built``, ``stale``, ``broken``), with the details in ``detail``."""

    name: str
    status: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.name}: {self.status}" + (f" ({self.detail})" if self.detail else "")


@dataclass(frozen=True)
class TierReport:
    """Every compiled module this installation has a source or a build of, and its state."""

    modules: tuple[ModuleState, ...]

    @property
    def active(self) -> str:
        """``compiled`` when every module runs compiled, ``pure Python`` when none does,
        else ``partly compiled``."""
        running = sum(state.status == "compiled" for state in self.modules)
        if running == 0:
            return "pure Python"
        return "compiled" if running == len(self.modules) else "partly compiled"

    def __str__(self) -> str:
        if pure_python_forced():
            return f"tier: pure Python ({PURE_PYTHON_ENV}=1)"
        if not self.modules:
            return "tier: pure Python (this version has no compiled modules)"
        running = sum(state.status == "compiled" for state in self.modules)
        head = f"tier: {self.active} ({running} of {len(self.modules)} modules compiled)"
        return "\n".join([head, *(f"  {state}" for state in self.modules)])


def pure_python_forced() -> bool:
    """True when the environment asks for pure Python."""
    return os.environ.get(PURE_PYTHON_ENV, "") == "1"


def compiled(name: str) -> ModuleType | None:
    """The compiled module ``name`` (``runtime._compiled.thrift_compact``, say), or None
    when pure Python is forced, or the module is not built, stale or fails to load."""
    return _load(name)[0]


def compiled_for(name: str, namespace: dict) -> ModuleType | None:
    """:func:`compiled`, for the generated module whose ``namespace`` binds it: a compiled
    module binds the classes of one generated module, so a second module of the same
    format (a copy loaded under another name, say from an edited spec of the same plans)
    runs pure Python rather than take the first one's classes from it, or give it its own.

    >>> compiled_for("runtime._compiled.absent", {}) is None
    True
    """
    return _bound(name, compiled(name), namespace)


def compiled_beside(module_file: str, name: str, namespace: dict) -> ModuleType | None:
    """:func:`compiled_for`, for a module generated outside ``generated/`` (``wirespec
    generate --out DIR --compiled``): its compiled tier is the extension ``name`` in the
    ``_compiled`` folder beside ``module_file``, loaded by that path, whatever package the
    user imports the module from; None when it is not built (or stale, broken, forced off).

    >>> compiled_beside("nowhere/absent.py", "absent", {}) is None
    True
    """
    folder = Path(module_file).resolve().parent / "_compiled"
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        if (folder / f"{name}{suffix}").is_file():
            path = folder / f"{name}{suffix}"
            return _bound(str(path), _load_beside(path, name)[0], namespace)
    return None


def _bound(key: str, module: ModuleType | None, namespace: dict) -> ModuleType | None:
    if module is None:
        return None
    return module if _BINDER.setdefault(key, namespace) is namespace else None


_BINDER: dict[str, dict] = {}
"""Compiled module name (or path) -> the namespace of the generated module that binds it."""


def describe() -> TierReport:
    """Which tier runs: the state of every compiled module (loading each one)."""
    return TierReport(tuple(_load(name)[1] for name in known_modules()))


def known_modules() -> list[str]:
    """The dotted names of the modules that have a ``.pyx`` source or a build here."""
    names = set()
    for package in COMPILED_PACKAGES:
        for folder in importlib.util.find_spec(package).submodule_search_locations:
            for path in Path(folder).iterdir():
                if path.suffix == ".pyx" or _is_extension(path):
                    names.add(f"{package}.{path.name.split('.')[0]}")
    return sorted(names)


def _is_extension(path: Path) -> bool:
    return path.name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


@functools.cache
def _load(name: str) -> tuple[ModuleType | None, ModuleState]:
    if pure_python_forced():
        return None, ModuleState(name, "pure Python forced", f"{PURE_PYTHON_ENV}=1")
    try:
        spec = importlib.util.find_spec(name)
    except ImportError:
        spec = None
    if spec is None or spec.origin is None or not _is_extension(Path(spec.origin)):
        return None, ModuleState(name, "not built")
    return _checked(name, Path(spec.origin), REBUILD, lambda: importlib.import_module(name))


@functools.cache
def _load_beside(path: Path, name: str) -> tuple[ModuleType | None, ModuleState]:
    if pure_python_forced():
        return None, ModuleState(str(path), "pure Python forced", f"{PURE_PYTHON_ENV}=1")

    def load() -> ModuleType:  # by its path, whatever package holds the user's module
        spec = importlib.util.spec_from_file_location(f"{BESIDE_PACKAGE}.{name}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return _checked(name, path, REBUILD_BESIDE, load, label=str(path))


def _checked(name: str, extension: Path, rebuild: str, load, label: str = ""):
    """The compiled module ``name`` built at ``extension`` (``load()`` loads it; ``label``
    names it in messages, default ``name``) and its state: None when its sources changed
    since it was built, or it fails to load."""
    label = label or name
    changed = _changed_sources(name, extension)
    if changed:
        detail = f"{', '.join(changed)} changed since it was built; rebuild: {rebuild}"
        warnings.warn(
            f"{label} is not used, its pure-Python path runs: {detail}",
            StaleBuildWarning,
            stacklevel=4,
        )
        return None, ModuleState(label, "stale", detail)
    try:
        module = load()
    except Exception as error:  # noqa: BLE001 - a broken build must not stop decoding
        warnings.warn(f"{label} is not used, it fails to load: {error}", RuntimeWarning, 4)
        return None, ModuleState(label, "broken", str(error))
    return module, ModuleState(label, "compiled")


def _changed_sources(name: str, extension: Path) -> list[str]:
    """The sources (relative to the folder holding the top-level package) that changed since
    ``extension`` was built: by the record ``setup.py`` writes, or for a module built by hand
    (``cythonize -i``), by modification time."""
    root = extension.parents[name.count(".")]
    changed = build_record.changed_sources(extension, root, INSTALLED)
    if changed is not None:
        return changed
    folder = extension.parent
    sources = [folder / f"{name.rpartition('.')[2]}.pyx"]
    for package in COMPILED_PACKAGES:
        sources.extend(root.joinpath(*package.split(".")).glob("*.pxd"))
    built = extension.stat().st_mtime
    return [
        path.relative_to(root).as_posix()
        for path in sources
        if path.is_file() and path.stat().st_mtime > built
    ]
