"""A user's own spec with the compiled tier: ``wirespec generate --specs DIR --out OUT
--compiled`` renders the module and its ``.pyx`` into OUT and builds the extension beside them
(generator/emit/user_build.py); importing OUT's module, from whatever package, binds it
(``runtime.core.tier.compiled_beside``) and decodes as the pure tier does. The spec is the
tutorial's of specs/README.md. The build (~15 s) is skipped without Cython or a C compiler,
and the tests that need it loaded under ``WIRESPEC_PURE_PYTHON=1``."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
import warnings
from pathlib import Path

import pytest

from generator.cli.main import main
from generator.emit.generate import render_spec_outputs
from generator.emit.user_build import extension_path
from generator.emit.user_spec import import_spec
from runtime.core import build_record, tier
from runtime.core.errors import DecodeError

README = Path(__file__).resolve().parent.parent / "specs" / "README.md"
FORMAT = "kafka_records"


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory) -> tuple[Path, bytes]:
    """The tutorial's spec, in a spec folder of its own, and its two records."""
    text = README.read_text()
    specs = tmp_path_factory.mktemp("myspecs")
    spec = specs / f"{FORMAT}.yaml"
    spec.write_text(re.search(r"```yaml\n(format: kafka_records.*?)```", text, re.DOTALL).group(1))
    data = bytes.fromhex(re.search(r"bytes\.fromhex\('([0-9a-f]+)'\)", text).group(1))
    return spec, data


@pytest.fixture(scope="module")
def out(tutorial, tmp_path_factory) -> Path:
    """The user's package: the module, its .pyx and the extension, built once."""
    pytest.importorskip("Cython")
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler")
    out = tmp_path_factory.mktemp("mypkg")
    assert (
        main(["generate", "--specs", str(tutorial[0].parent), "--out", str(out), "--compiled"]) == 0
    )
    return out


def load(path: Path):
    """``path`` imported as a module of its own name (as a user's package would)."""
    name = f"user_{path.parent.name}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def compiled_only():
    if tier.pure_python_forced():
        pytest.skip(f"{tier.PURE_PYTHON_ENV}=1: the compiled tier is never loaded")


def test_the_extension_is_built_beside_the_module_and_recorded(out):
    extension = extension_path(out / "_compiled" / f"{FORMAT}.pyx")
    record = json.loads(build_record.record_path(extension).read_text())
    assert list(record["sources"]) == [f"{FORMAT}.pyx"]
    assert "runtime/_compiled/prelude.pxd" in record["installed"]
    assert build_record.changed_sources(extension, out / "_compiled", tier.INSTALLED) == []
    assert "compiled_beside(__file__" in (out / f"{FORMAT}.py").read_text()


def test_the_module_runs_the_compiled_tier_and_decodes_as_the_pure_tier(out, tutorial):
    compiled_only()
    user = load(out / f"{FORMAT}.py")
    assert Path(user._COMPILED.__file__).parent == out / "_compiled"
    assert set(user.COMPILED_READERS) == {"records", "record", "header"}
    assert user._COMPILED.bind_arrow(vars(user))  # Spark's write_arrow takes its records
    pure = import_spec(tutorial[0])  # rendered in memory: no compiled tier
    assert pure._COMPILED is None and not pure.COMPILED_READERS
    data = tutorial[1]
    taken = user.COMPILED_READERS["records"](data, user._LIMITS)
    assert user.to_dict(taken) == pure.to_dict(pure.parse(data))
    assert user.build(user.parse(data)) == data
    for cut in range(len(data)):
        try:
            want = pure.to_dict(pure.parse(data[:cut]))
        except DecodeError as err:
            want = str(err)
        try:
            got = user.to_dict(user.parse(data[:cut]))
        except DecodeError as err:
            got = str(err)
        assert got == want, cut


def test_a_stale_build_is_not_loaded(out, tmp_path):
    compiled_only()
    copy = shutil.copytree(out, tmp_path / "edited")
    pyx = copy / "_compiled" / f"{FORMAT}.pyx"
    pyx.write_text(pyx.read_text() + "\n# edited\n")
    with pytest.warns(tier.StaleBuildWarning, match=f"{FORMAT}.pyx changed"):
        user = load(copy / f"{FORMAT}.py")
    assert user._COMPILED is None
    assert user.parse(b"") is not None  # pure Python runs


def test_a_failed_build_says_so_and_leaves_the_pure_module(tutorial, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    out = tmp_path / "mypkg"
    assert (
        main(["generate", "--specs", str(tutorial[0].parent), "--out", str(out), "--compiled"]) == 0
    )
    err = capsys.readouterr().err
    assert f"not built {out / '_compiled' / FORMAT}.pyx: " in err
    assert f"{out / FORMAT}.py runs pure Python" in err
    assert not extension_path(out / "_compiled" / f"{FORMAT}.pyx").exists()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        user = load(out / f"{FORMAT}.py")
    assert user._COMPILED is None
    assert user.build(user.parse(tutorial[1])) == tutorial[1]


def test_check_and_compiled_do_not_go_together(tutorial, capsys):
    specs = str(tutorial[0].parent)
    assert main(["generate", "--specs", specs, "--out", specs, "--check", "--compiled"]) == 2
    assert "leave out --compiled" in capsys.readouterr().err


def test_outside_generated_only_the_compiled_binding_differs(tutorial, tmp_path):
    """A user's module and .pyx are the shipped rendering, spec text escaped as there
    (tests/test_spec_hostile.py): the .pyx is the same text, the module one line apart."""
    spec = tmp_path / tutorial[0].name
    hostile = '\'\'\'"""\\\n# x\nimport os; os.system("true")'
    spec.write_text(tutorial[0].read_text().replace("Records back to back.", json.dumps(hostile)))
    _, shipped, shipped_pyx = render_spec_outputs(spec)
    _, user, user_pyx = render_spec_outputs(spec, beside=True)
    assert user_pyx == shipped_pyx
    apart = [(a, b) for a, b in zip(shipped.splitlines(), user.splitlines()) if a != b]
    assert [b for _, b in apart[1:]] == [
        f'_COMPILED = rt_tier.compiled_beside(__file__, "{FORMAT}", globals())'
    ]  # the first line apart is the content hash
