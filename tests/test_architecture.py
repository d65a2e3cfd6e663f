"""The layers of ARCHITECTURE.md hold: the import-linter contracts of pyproject.toml are
kept, no module imports itself through others (lazy imports inside functions count), and
the page's import graph is the one grimp finds today."""

from __future__ import annotations

import graphlib
import runpy
from pathlib import Path

import grimp
import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parent.parent
ROOTS = ("generator", "runtime", "generated")


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph(*ROOTS, cache_dir=None)


def test_the_import_contracts_hold(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    status = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True)
    assert status == 0, capsys.readouterr().out


def test_no_module_imports_itself_through_others(graph):
    imports = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    try:
        graphlib.TopologicalSorter(imports).prepare()
    except graphlib.CycleError as err:
        pytest.fail(f"an import cycle: {' -> '.join(err.args[1])}")


def test_the_page_shows_the_current_import_graph():
    package_graph = runpy.run_path(str(ROOT / "scripts" / "import_graph.py"))["package_graph"]
    page = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    shown = page.split("<!-- import-graph -->\n```text\n", 1)[1].split("```", 1)[0]
    assert shown == package_graph(), "run `python scripts/import_graph.py` into ARCHITECTURE.md"
