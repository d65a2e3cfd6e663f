"""The core install: ``import generated.<format>``, ``parse``/``build`` and ``wirespec decode``/
``encode`` need none of the ``generate`` and ``spark`` extras (pyproject.toml), and a verb that
needs one says which in one line.

Each check runs in a fresh interpreter where importing an extra's modules fails, as when they
are not installed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from generator.cli.main import EXTRAS

ROOT = Path(__file__).resolve().parent.parent
FORMATS = sorted(p.stem for p in (ROOT / "generated").glob("*.py") if p.stem != "__init__")

BLOCKER = f"""
import sys
import importlib.abc

class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.partition(".")[0] in {sorted(EXTRAS)!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, NotInstalled())
"""
"""Run first in the child: the extras' modules cannot be imported."""


def _core_only(code: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", BLOCKER + code, *args],
        cwd=ROOT,
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _sample(fmt: str) -> Path:
    return min(
        (ROOT / "samples" / fmt).glob("*.value" if fmt == "ticdc_open_protocol" else "*.bin")
    )


def test_every_generated_module_parses_and_builds_with_the_core_install():
    code = """
import importlib, json
from pathlib import Path
for fmt, sample in json.loads(sys.argv[1]).items():
    module = importlib.import_module(f"generated.{fmt}")
    data = Path(sample).read_bytes()
    if getattr(module, "KAFKA_RECORD", None) == module.DEFAULT_RECORD:
        key = Path(sample).with_suffix(".key").read_bytes()
        assert module.build_pair(module.parse_pair(key, data)) == (key, data), fmt
    else:
        model = module.parse(data)
        assert module.build(model) == data, fmt
        assert module.build(module.from_dict(json.loads(json.dumps(module.to_dict(model))))) == data, fmt
loaded = sorted(m for m in sys.modules if m.partition(".")[0] in {extras!r})
print(json.dumps(loaded))
""".replace("{extras!r}", repr(sorted(EXTRAS)))
    samples = {fmt: str(_sample(fmt)) for fmt in FORMATS}
    result = _core_only(code, json.dumps(samples))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


@pytest.mark.parametrize("fmt", ["plainbuffer", "mysql_serialization", "thrift_compact"])
def test_decode_and_encode_run_with_the_core_install(fmt, tmp_path):
    sample = _sample(fmt)
    cli = "from generator.cli.main import main; sys.exit(main(sys.argv[1:]))"
    decoded = _core_only(cli, "decode", fmt, str(sample))
    assert decoded.returncode == 0, decoded.stderr
    (tmp_path / "form.json").write_text(decoded.stdout)
    out = tmp_path / "again.bin"
    encoded = _core_only(cli, "encode", fmt, str(tmp_path / "form.json"), "-o", str(out))
    assert encoded.returncode == 0, encoded.stderr
    assert out.read_bytes() == sample.read_bytes()


@pytest.mark.parametrize(
    "argv, extra",
    [(["generate", "--check"], "generate"), (["schema", "plainbuffer"], "spark")],
)
def test_a_verb_without_its_extra_names_the_extra_in_one_line(argv, extra):
    result = _core_only("from generator.cli.main import main; sys.exit(main(sys.argv[1:]))", *argv)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert f"pip install 'wirespec[{extra}]'" in result.stderr
