"""Builds wirespec's compiled tier; the project's metadata is in pyproject.toml.

Every ``.pyx`` under ``generated/_compiled/`` and ``runtime/_compiled/`` becomes an extension
module named by its dotted path (``runtime._compiled.thrift_compact``). Each is optional: when
Cython or a C compiler is missing, or a module fails to compile, the install still succeeds
with a warning and wirespec runs that module's pure-Python path (``wirespec --version`` says
which tier runs).

An extension is rebuilt only when the sources recorded beside it (``runtime/core/build_record.py``)
differ from today's, so ``python setup.py build_ext --inplace`` after ``wirespec generate``
compiles just the modules whose specs changed. ``pip install -e .`` builds them in place.
"""

from __future__ import annotations

import importlib.util
import os
import warnings
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
COMPILED_PACKAGES = ("generated/_compiled", "runtime/_compiled")


def load_build_record():
    """runtime/core/build_record.py alone: importing the ``runtime`` package would need wirespec's
    dependencies, which the build environment does not have."""
    spec = importlib.util.spec_from_file_location(
        "wirespec_build_record", ROOT / "runtime" / "core" / "build_record.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build_record = load_build_record()
COMPILE_ARGS = build_record.COMPILE_ARGS


def pyx_of(ext: Extension) -> Path:
    """The module's Cython source (setuptools may have renamed ``ext.sources`` to ``.c``)."""
    return ROOT.joinpath(*ext.name.split(".")).with_suffix(".pyx")


def compiled_extensions() -> list[Extension]:
    """One optional extension per ``.pyx`` in the compiled packages."""
    extensions = []
    for folder in COMPILED_PACKAGES:
        for pyx in sorted((ROOT / folder).glob("*.pyx")):
            relative = pyx.relative_to(ROOT)
            extensions.append(
                Extension(
                    ".".join(relative.with_suffix("").parts),
                    [relative.as_posix()],
                    extra_compile_args=COMPILE_ARGS,
                    optional=True,
                )
            )
    return extensions


class CompiledTierWarning(UserWarning):
    """A compiled module was not built; wirespec runs its pure-Python path."""


def skipped(message: str) -> None:
    # A Python warning, not a build log line: pip shows those even when it runs quietly.
    warnings.warn(message, CompiledTierWarning, stacklevel=2)


class BuildCompiledTier(build_ext):
    """build_ext that skips modules built from today's sources, cythonizes the others one by
    one (Cython is not thread-safe), compiles their C on every core, records what each was
    built from, and turns any failure into a warning."""

    def run(self):
        # Before setuptools switches to its build folder: under --inplace (and pip's editable
        # install) these are the modules in the checkout.
        targets = {ext.name: Path(self.get_ext_fullpath(ext.name)) for ext in self.extensions}
        stale = [ext for ext in self.extensions if not self.up_to_date(targets[ext.name])]
        self.recorded_sources = {}
        self.extensions = [ext for ext in stale if self.cythonize(ext)]
        self.force = True  # freshness is decided above, by content rather than timestamps
        self.parallel = self.parallel or os.cpu_count()
        self.built = {}
        super().run()
        for name, built in self.built.items():
            if built != targets[name]:
                self.copy_file(
                    build_record.record_path(built), build_record.record_path(targets[name])
                )

    @staticmethod
    def up_to_date(target: Path) -> bool:
        return target.is_file() and build_record.changed_sources(target, ROOT) == []

    def cythonize(self, ext: Extension) -> bool:
        """Turn the module's .pyx into C; False (with a warning) when that is not possible."""
        try:
            from Cython.Build import cythonize
            from Cython.Build.Dependencies import create_dependency_tree
        except ImportError:
            skipped(f"Cython is not installed: {ext.name} stays pure Python")
            return False
        pyx = pyx_of(ext)
        ext.sources = [pyx.relative_to(ROOT).as_posix()]
        try:
            (cythonized,) = cythonize(
                [ext],
                include_path=[str(ROOT)],
                compiler_directives={"language_level": 3},
                force=True,
                quiet=True,
            )
        except Exception as error:  # noqa: BLE001 - optional: any failure means pure Python
            skipped(f"{ext.name} stays pure Python: {type(error).__name__}: {error}")
            return False
        # The cythonized copy also carries the .pyx's "# distutils:" lines (libraries...);
        # the setuptools state of ``ext`` (underscored) stays, and so does ``optional``,
        # which the in-place copy reads.
        ext.__dict__.update(
            (key, value) for key, value in vars(cythonized).items() if not key.startswith("_")
        )
        ext.optional = True
        sources = [ROOT / name for name in create_dependency_tree().all_dependencies(str(pyx))]
        inside = [path for path in sources if path.resolve().is_relative_to(ROOT)]
        # Taken now, not when the C is compiled: a .pyx regenerated meanwhile is then stale.
        self.recorded_sources[ext.name] = build_record.snapshot(ROOT, inside)
        return True

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as error:  # noqa: BLE001 - optional: any failure means pure Python
            skipped(f"{ext.name} stays pure Python: {type(error).__name__}: {error}")
            return
        built = Path(self.get_ext_fullpath(ext.name))
        build_record.write(built, self.recorded_sources[ext.name])
        self.built[ext.name] = built


setup(ext_modules=compiled_extensions(), cmdclass={"build_ext": BuildCompiledTier})
