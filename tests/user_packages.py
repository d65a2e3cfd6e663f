"""A user's package built as a user builds it (``wirespec generate --specs DIR --out PKG
--compiled``: each spec's module, its .pyx and the extension beside it), and its modules
imported under names of their own, for the tests of the compiled tier on users' specs."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

from generator.cli.main import main
from runtime.core import tier


def skip_unless_compiled() -> None:
    """Skip where a user's build cannot load: forced pure Python, no Cython, no C compiler."""
    if tier.pure_python_forced():
        pytest.skip(f"{tier.PURE_PYTHON_ENV}=1: the compiled tier is never loaded")
    pytest.importorskip("Cython")
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler")


def build_package(specs: Path, out: Path) -> Path:
    """``out``, the package ``wirespec generate --compiled`` makes of the folder ``specs``."""
    assert main(["generate", "--specs", str(specs), "--out", str(out), "--compiled"]) == 0
    return out


def import_module(path: Path, name: str):
    """The module at ``path`` imported as ``name`` (as a user's package would import it)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def compiled_user_module(tmp_path_factory, name: str, text: str):
    """The spec ``text`` of format ``name`` built as a user's package and imported (~15 s)."""
    skip_unless_compiled()
    specs = tmp_path_factory.mktemp(f"{name}_specs")
    (specs / f"{name}.yaml").write_text(text)
    out = build_package(specs, tmp_path_factory.mktemp(f"{name}_pkg"))
    return import_module(out / f"{name}.py", f"user_{name}_compiled")
