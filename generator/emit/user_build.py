"""``wirespec generate --compiled``: the compiled tier of the modules just generated, built
where they are, as ``setup.py`` builds the shipped ones.

A module written outside ``generated/`` (``--out mypkg``) finds its extension in
``mypkg/_compiled/`` by path (``runtime.core.tier.compiled_beside``), so it works whatever
package the user imports it from; in ``generated/`` the extension is
``generated._compiled.<format>``, as ``setup.py build_ext --inplace`` would build it. Either way
the ``.pyx`` is the one ``wirespec generate`` rendered (spec text reaches it only through
``generator/spec/pytext.py``, as in the module), its cimports are wirespec's
``runtime/_compiled/*.pxd``, and the build is recorded beside the extension
(``runtime/core/build_record.py``): an extension built from today's sources is not rebuilt, and
one whose ``.pyx`` or cimported ``.pxd`` changed is never loaded. A build that fails (no
Cython, no C compiler, a compile error) is :class:`BuildFailed`, one line; the module runs pure
Python as before.

>>> build_name(ROOT / "generated" / "_compiled" / "png.pyx", beside=False)
'generated._compiled.png'
>>> build_name(Path("mypkg/_compiled/kafka_records.pyx"), beside=True)
'kafka_records'
"""

from __future__ import annotations

import importlib.machinery
import os
import tempfile
from pathlib import Path

from generator import ROOT
from generator.emit.generate import compiled_beside
from runtime.core import build_record


class BuildFailed(Exception):
    """A compiled module was not built (its module runs pure Python); the message is one line."""


def build_name(pyx: Path, *, beside: bool) -> str:
    """The extension's module name: its format beside a user's module, else its dotted name
    in wirespec's ``generated/``."""
    return pyx.stem if beside else f"generated._compiled.{pyx.stem}"


def extension_path(pyx: Path) -> Path:
    """Where the extension of ``pyx`` is built: beside it, with this Python's suffix."""
    return pyx.with_name(pyx.stem + importlib.machinery.EXTENSION_SUFFIXES[0])


def up_to_date(pyx: Path, *, beside: bool) -> bool:
    """Whether the extension of ``pyx`` was built (and recorded) from today's sources."""
    extension = extension_path(pyx)
    root = pyx.parent if beside else ROOT
    return extension.is_file() and build_record.changed_sources(extension, root, ROOT) == []


def build(pyx: Path, *, beside: bool) -> Path:
    """Cythonize ``pyx`` and compile it into its extension (:func:`extension_path`), replacing
    any older build only once the new one is complete; returns the extension's path."""
    try:
        from Cython.Build import cythonize
        from Cython.Build.Dependencies import create_dependency_tree
        from setuptools import Distribution, Extension
    except ImportError as err:
        raise BuildFailed(
            f"needs Cython and setuptools ({err.name} is not installed:"
            " pip install 'wirespec[compiled]')"
        ) from None
    name, target = build_name(pyx, beside=beside), extension_path(pyx)
    with tempfile.TemporaryDirectory(prefix=".build-", dir=pyx.parent) as tmp:
        try:
            (ext,) = cythonize(
                [Extension(name, [str(pyx)], extra_compile_args=build_record.COMPILE_ARGS)],
                include_path=[str(ROOT)],  # the runtime/_compiled/*.pxd it cimports
                compiler_directives={"language_level": 3},
                build_dir=tmp,
                force=True,
                quiet=True,
            )
            # The sources' digests as Cython read them, not as they are once the C compiled.
            sources = [Path(p) for p in create_dependency_tree().all_dependencies(str(pyx))]
            folders = (ROOT, pyx.parent.resolve())
            inside = [p for p in sources if any(p.resolve().is_relative_to(f) for f in folders)]
            groups = build_record.snapshot(
                pyx.parent if beside else ROOT, inside, ROOT if beside else None
            )
            command = Distribution({"ext_modules": [ext]}).get_command_obj("build_ext")
            command.build_lib, command.build_temp = tmp, tmp
            command.ensure_finalized()
            command.run()
        except Exception as error:  # noqa: BLE001 - Cython's, setuptools', the compiler's
            raise BuildFailed(f"{type(error).__name__}: {error}".splitlines()[0]) from None
        (built,) = command.get_outputs()
        # Until its record is written the new build is refused (the old record names the
        # old .pyx); a process that loaded the old build keeps its copy.
        os.replace(built, target)
    build_record.write(target, groups)
    return target


def build_all(out_dir: Path, pyx_files: list[Path]) -> list[tuple[Path, str, str]]:
    """Build the stale extensions of ``pyx_files`` (written by ``generate`` to ``out_dir``):
    ``(path, status, why)``, status ``fresh`` or ``built`` (the extension's path), or ``not
    built`` (the ``.pyx``, and why). Under ``WIRESPEC_PURE_PYTHON=1`` they are built all the
    same (the tier is chosen at import)."""
    beside = compiled_beside(out_dir)
    outcomes = []
    for pyx in pyx_files:
        if up_to_date(pyx, beside=beside):
            outcomes.append((extension_path(pyx), "fresh", ""))
            continue
        try:
            outcomes.append((build(pyx, beside=beside), "built", ""))
        except BuildFailed as err:
            outcomes.append((pyx, "not built", str(err)))
    return outcomes
