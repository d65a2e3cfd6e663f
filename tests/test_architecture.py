"""The layers of ARCHITECTURE.md hold: the import-linter contracts of pyproject.toml are
kept, no module imports itself through others (lazy imports inside functions count), the
page's import graph is the one grimp finds today, and no hand-written module or template is
over 900 lines."""

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


HAND_WRITTEN = ("generator", "runtime", "benchmarks", "scripts", "samples", "tests")
SOURCE_SUFFIXES = {".py", ".pyx", ".pxd", ".j2"}
MAX_LINES = 900


def test_no_hand_written_module_or_template_is_over_900_lines():
    """A module a reader need not fear: split one that grows past this by concept."""
    too_long = {
        str(path.relative_to(ROOT)): lines
        for top in HAND_WRITTEN
        for path in sorted((ROOT / top).rglob("*"))
        if path.suffix in SOURCE_SUFFIXES
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not too_long, f"over {MAX_LINES} lines: {too_long}"
