"""The tutorial at the top of specs/README.md ("Your first spec in ten minutes") works as
written: its spec loads, its bytes decode through ``--spec`` on every verb it shows, and what
it says the codec gives for free holds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from generator.cli.main import main
from generator.emit.user_spec import import_spec
from runtime.core.errors import DecodeError

README = Path(__file__).resolve().parent.parent / "specs" / "README.md"


@pytest.fixture(scope="module")
def tutorial() -> str:
    text = README.read_text()
    return text[text.index("## Your first spec in ten minutes") : text.index("## A spec is data")]


@pytest.fixture
def files(tutorial, tmp_path):
    spec = tmp_path / "kafka_records.yaml"
    spec.write_text(re.search(r"```yaml\n(.*?)```", tutorial, re.DOTALL).group(1))
    data = bytes.fromhex(re.search(r"bytes\.fromhex\('([0-9a-f]+)'\)", tutorial).group(1))
    (tmp_path / "records.bin").write_bytes(data)
    return spec, tmp_path / "records.bin"


def test_decode_gives_the_two_records(files, capsys):
    spec, data = files
    assert main(["decode", "kafka_records", str(data), "--spec", str(spec)]) == 0
    records = json.loads(capsys.readouterr().out)["records"]
    assert [r["key"] for r in records] == [{"$hex": b"order-1001".hex()}, None]
    assert records[0]["headers"] == [{"key": "trace-id", "value": {"$hex": b"4bf9".hex()}}]


def test_inspect_shows_the_lines_the_tutorial_quotes(tutorial, files, capsys):
    spec, data = files
    assert main(["inspect", "kafka_records", str(data), "--spec", str(spec)]) == 0
    out = [" ".join(line.split()) for line in capsys.readouterr().out.splitlines()]
    quoted = re.search(r"# every byte, named\n(.*?)```", tutorial, re.DOTALL).group(1)
    for line in quoted.splitlines():
        if line.strip() != "..." and not line.startswith("$"):
            assert " ".join(line.split()) in out


def test_schema_has_one_row_per_record(files, capsys):
    spec, _ = files
    assert main(["schema", "kafka_records", "--spec", str(spec)]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert [f["name"] for f in schema["fields"]][:3] == ["timestamp_delta", "offset_delta", "key"]


def test_what_the_tutorial_says_comes_for_free(tutorial, files):
    spec, data = files
    codec = import_spec(spec)
    model = codec.parse(data.read_bytes())
    assert model.records[1].key is None
    model.records[0].headers_count = None  # computed on build
    assert codec.build(model) == data.read_bytes()
    with pytest.raises(DecodeError) as err:
        codec.parse(data.read_bytes()[:-3])
    assert str(err.value) in " ".join(tutorial.split())
    assert len(list(codec.iter_rows(data.read_bytes()))) == 2


def test_the_top_readmes_short_example_runs_as_written(monkeypatch):
    """README.md's "A short example" reads a shipped sample and shows what its first key
    holds; it named bytes (``data``, 'iampk') no file of the checkout has."""
    top = README.parent.parent / "README.md"
    text = top.read_text()
    example = text[text.index("## A short example") :]
    code = re.search(r"```python\n(.*?)```", example, re.DOTALL).group(1)
    shown = re.search(r"value\.value +# '([^']*)'", code).group(1)
    monkeypatch.chdir(top.parent)  # the sample's path is from the checkout's root
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 - the README's own example
    assert scope["model"].rows[0].primary_key[0].value.value == shown
