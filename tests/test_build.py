"""setup.py builds the compiled tier optionally, and runtime.core.tier runs only current builds.

Each test works in a throwaway copy of the project whose compiled packages hold small probe
modules instead of the real ones (a ``.pxd`` cimported from the same folder and from the other
package), and runs Python there in a subprocess, as a fresh install would.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ["setup.py", "pyproject.toml", "README.md", "runtime", "generated", "generator"]
BUILD_OUTPUT = ("*.so", "*.c", "*.html", "*.sources.json", "*.pyx", "*.pxd", "__pycache__")
REBUILD = [sys.executable, "setup.py", "--quiet", "build_ext", "--inplace"]
PROBES = {
    "runtime/_compiled/probe_table.pxd": "cdef int twice(int x)\n",
    "runtime/_compiled/probe_table.pyx": (
        "# distutils: define_macros = PROBE_SEVEN=7\n"
        "cdef extern from *:\n    int PROBE_SEVEN\n\n"
        "cdef int twice(int x):\n    return 2 * x\n\n"
        "def seven():\n    return PROBE_SEVEN\n"
    ),
    "runtime/_compiled/probe_loop.pyx": (
        "from .probe_table cimport twice\n\ndef quadruple(int x):\n    return twice(twice(x))\n"
    ),
    "generated/_compiled/probe.pyx": (
        "from runtime._compiled.probe_table cimport twice\n\n"
        "def twice_plus_one(int x):\n    return twice(x) + 1\n"
    ),
}
MODULES = [
    "generated._compiled.probe",
    "runtime._compiled.probe_loop",
    "runtime._compiled.probe_table",
]


def copy_project(into: Path, sources: dict[str, str]) -> Path:
    """The project without its build output or compiled sources, plus ``sources``."""
    into.mkdir(exist_ok=True)
    for name in PROJECT:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, into / name, ignore=shutil.ignore_patterns(*BUILD_OUTPUT))
        else:
            shutil.copy2(source, into / name)
    for name, text in sources.items():
        (into / name).write_text(text, encoding="utf-8")
    return into


def run(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(cwd)}
    environment.pop("WIRESPEC_PURE_PYTHON", None)
    environment.update(env)
    return subprocess.run(
        args, cwd=cwd, env=environment, capture_output=True, text=True, check=False
    )


def python(code: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return run([sys.executable, "-c", code], cwd, **env)


def built(checkout: Path) -> dict[str, int]:
    """Every extension file in the checkout's packages and its modification time."""
    found = sorted(checkout.glob("*/_compiled/*.so"))
    return {str(path): path.stat().st_mtime_ns for path in found}


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    pytest.importorskip("Cython")
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler")
    root = copy_project(tmp_path_factory.mktemp("checkout"), PROBES)
    result = run(REBUILD, root)
    assert result.returncode == 0, result.stderr
    return root


def test_every_pyx_builds_in_place_with_its_distutils_lines_and_loads(checkout):
    assert len(built(checkout)) == len(MODULES)
    result = python(
        "from runtime.core import tier\n"
        "print(tier.compiled('generated._compiled.probe').twice_plus_one(20))\n"
        "print(tier.compiled('runtime._compiled.probe_loop').quadruple(5))\n"
        "print(tier.compiled('runtime._compiled.probe_table').seven())\n"
        "print(tier.describe())",
        checkout,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "41",
        "20",
        "7",
        "tier: compiled (3 of 3 modules compiled)",
        *(f"  {name}: compiled" for name in MODULES),
    ]


def test_the_build_records_each_module_s_sources(checkout):
    from runtime.core import build_record

    (extension,) = checkout.glob("generated/_compiled/probe.*.so")
    record = build_record.record_path(extension).read_text(encoding="utf-8")
    assert "generated/_compiled/probe.pyx" in record
    assert "runtime/_compiled/probe_table.pxd" in record
    assert build_record.changed_sources(extension, checkout) == []


def test_building_again_without_a_change_compiles_nothing(checkout):
    before = built(checkout)
    result = run(REBUILD, checkout)
    assert result.returncode == 0, result.stderr
    assert built(checkout) == before


def test_wirespec_version_names_the_tier(checkout):
    version = [sys.executable, "-m", "generator", "--version"]
    compiled = run(version, checkout)
    assert compiled.returncode == 0, compiled.stderr
    assert "tier: compiled (3 of 3 modules compiled)" in compiled.stdout
    forced = run(version, checkout, WIRESPEC_PURE_PYTHON="1")
    assert "tier: pure Python (WIRESPEC_PURE_PYTHON=1)" in forced.stdout


def test_an_edited_pxd_stops_every_module_that_cimports_it(checkout):
    table = checkout / "runtime/_compiled/probe_table.pxd"
    table.write_text(PROBES["runtime/_compiled/probe_table.pxd"] + "cdef int thrice(int x)\n")
    try:
        stale = python(
            "from runtime.core import tier\n"
            "print(tier.compiled('generated._compiled.probe'))\n"
            "print(tier.describe().active)",
            checkout,
        )
    finally:
        table.write_text(PROBES["runtime/_compiled/probe_table.pxd"])
    assert stale.returncode == 0, stale.stderr
    assert stale.stdout.splitlines() == ["None", "pure Python"]
    assert "StaleBuildWarning" in stale.stderr
    assert "runtime/_compiled/probe_table.pxd changed since it was built" in stale.stderr
    assert "python setup.py build_ext --inplace" in stale.stderr
    # Freshness is by content: the same text again is the build's source again.
    again = python("from runtime.core import tier\nprint(tier.describe().active)", checkout)
    assert again.stdout.strip() == "compiled", again.stderr


def test_an_edited_pyx_runs_compiled_again_once_rebuilt_and_only_it_is_rebuilt(checkout):
    loop = checkout / "runtime/_compiled/probe_loop.pyx"
    loop.write_text(PROBES["runtime/_compiled/probe_loop.pyx"] + "\ndef one():\n    return 1\n")
    check = (
        "from runtime.core import tier\nprint(tier.compiled('runtime._compiled.probe_loop').one())"
    )
    assert "StaleBuildWarning" in python(check, checkout).stderr
    before = built(checkout)
    rebuilt = run(REBUILD, checkout)
    assert rebuilt.returncode == 0, rebuilt.stderr
    changed = {name for name, mtime in built(checkout).items() if before[name] != mtime}
    assert [Path(name).name.split(".")[0] for name in changed] == ["probe_loop"]
    assert python(check, checkout).stdout.strip() == "1"


def test_a_module_built_by_hand_is_judged_by_modification_time(checkout):
    from runtime.core import build_record

    (extension,) = checkout.glob("runtime/_compiled/probe_loop.*.so")
    record = build_record.record_path(extension)
    kept = record.read_bytes()
    record.unlink()  # as `cythonize -i` leaves it
    source = checkout / "runtime/_compiled/probe_loop.pyx"
    built_at = extension.stat().st_mtime
    check = "from runtime.core import tier\nprint(tier.describe())"
    try:
        os.utime(source, (built_at - 10, built_at - 10))
        assert "probe_loop: compiled" in python(check, checkout).stdout
        os.utime(source, (built_at + 10, built_at + 10))
        newer = python(check, checkout).stdout
        assert "probe_loop: stale (runtime/_compiled/probe_loop.pyx changed" in newer
    finally:
        record.write_bytes(kept)
        os.utime(source, (built_at - 10, built_at - 10))


def test_without_a_compiler_the_install_succeeds_and_decodes_in_pure_python(tmp_path):
    """``pip install`` of the project with a C compiler that always fails: the package
    installs with the sources of its compiled modules, reports pure Python and decodes."""
    pytest.importorskip("Cython")
    project = copy_project(tmp_path / "project", PROBES)
    target = tmp_path / "site"
    install = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps"]
    install += ["--no-build-isolation", "--no-index", "--target", str(target), str(project)]
    result = run(install, tmp_path, CC="false")
    assert result.returncode == 0, result.stderr
    assert not list(target.rglob("*.so"))
    in_place = run(REBUILD, project, CC="false")  # as pip's editable install builds
    assert in_place.returncode == 0, in_place.stderr
    assert "generated._compiled.probe stays pure Python: CompileError" in in_place.stderr
    assert not built(project)
    assert (target / "generated/_compiled/probe.pyx").is_file()
    sample = ROOT / "samples/plainbuffer/put_row.bin"
    code = (
        "import sys\n"
        "from generated import plainbuffer\n"
        "from runtime.core import tier\n"
        "data = open(sys.argv[1], 'rb').read()\n"
        "assert plainbuffer.build(plainbuffer.parse(data)) == data\n"
        "print(tier.describe().active, tier.compiled('generated._compiled.probe'))\n"
    )
    decoded = run([sys.executable, "-c", code, str(sample)], tmp_path, PYTHONPATH=str(target))
    assert decoded.returncode == 0, decoded.stderr
    assert decoded.stdout.strip() == "pure Python None"


def test_a_module_that_fails_to_cythonize_leaves_the_build_green(tmp_path):
    project = copy_project(tmp_path, {"runtime/_compiled/probe_bad.pyx": "def broken(:\n"})
    result = run(REBUILD, project)
    assert result.returncode == 0, result.stderr
    assert "runtime._compiled.probe_bad stays pure Python" in result.stderr
    shadow = tmp_path / "no_cython" / "Cython"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('Cython is hidden by this test')\n")
    hidden = run(REBUILD, project, PYTHONPATH=f"{shadow.parent}{os.pathsep}{project}")
    assert hidden.returncode == 0, hidden.stderr
    assert "Cython is not installed: runtime._compiled.probe_bad stays pure Python" in hidden.stderr
    report = python("from runtime.core import tier\nprint(tier.describe())", project)
    assert report.stdout.splitlines()[1:] == ["  runtime._compiled.probe_bad: not built"]


def test_the_test_extra_has_the_build_requirements():
    """scripts/run.sh rebuilds in the project's venv, so it needs what pip's build needs."""
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    test_extra = project["project"]["optional-dependencies"]["test"]
    assert set(project["build-system"]["requires"]) <= {
        requirement.split("#")[0].strip() for requirement in test_extra
    }


# What ships beside the Python modules: sources of the compiled tier, templates, the schema.
SHIPPED_DATA = {".pyx", ".pxd", ".j2", ".json", ".lark"}


def test_every_folder_and_data_file_of_the_packages_ships():
    """A folder missing from ``packages`` makes setuptools warn at every install (or drop it)."""
    tomllib = pytest.importorskip("tomllib")
    from fnmatch import fnmatch

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    packages, package_data = config["setuptools"]["packages"], config["setuptools"]["package-data"]
    for top in ("generator", "runtime", "generated"):
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_dir() or "__pycache__" in path.parts:
                continue
            if path.suffix not in SHIPPED_DATA | {".py"} or path.name.endswith(".sources.json"):
                continue  # not shipped, or a build record of setup.py (build output)
            package = ".".join(path.parent.relative_to(ROOT).parts)
            assert package in packages, f"{path.relative_to(ROOT)}: {package} is not a package"
            if path.suffix != ".py":
                globs = package_data.get(package, [])
                assert any(fnmatch(path.name, glob) for glob in globs), path.relative_to(ROOT)
