"""``wirespec docs``: one Markdown document per spec, checked for staleness like generated/."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from generator.cli.main import main
from generator.emit.docs import DOCS_DIR, box_lines, boxes, render_spec_doc
from generator.spec.loader import load
from generator.spec.validate import build_model

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted(p for p in (ROOT / "specs").glob("*.yaml") if (DOCS_DIR / f"{p.stem}.md").exists())
PROTOCOL_SPECS = [p for p in SPECS if "protocol" in load(p, p.name).data]
RECORD_SPECS = [p for p in SPECS if p not in PROTOCOL_SPECS]


def _spec(path: Path):
    return build_model(load(path, str(path.relative_to(ROOT))))


def test_every_generated_format_has_a_document():
    formats = {p.stem for p in (ROOT / "generated").glob("*.py") if p.stem != "__init__"}
    documented = {p.stem for p in DOCS_DIR.glob("*.md")}
    specs = {p.stem for p in SPECS}
    assert "plainbuffer" in documented
    assert documented <= formats | specs


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.stem)
def test_committed_document_is_fresh(path):
    name, text = render_spec_doc(path)
    assert (DOCS_DIR / f"{name}.md").read_text(encoding="utf-8") == text


@pytest.mark.parametrize("path", RECORD_SPECS, ids=lambda p: p.stem)
def test_document_has_every_field_and_type_code(path):
    spec = _spec(path)
    text = (DOCS_DIR / f"{spec.format}.md").read_text(encoding="utf-8")
    for record in spec.records.values():
        assert f"### `{record.name}`" in text
        section = text.split(f"### `{record.name}`", 1)[1].split("\n### ", 1)[0]
        for field in record.fields:
            assert re.search(rf"^\| \d+ \| `{field.name}` \|", section, re.MULTILINE), (
                record.name,
                field.name,
            )
            if field.tag is not None:
                assert f"tag `0x{field.tag:02x}`" in section
            if field.type.kind == "switch":
                for case in field.type.cases:
                    assert f"| `{case}` |" in section
    for enum in spec.enums.values():
        section = text.split(f"### `{enum.name}`", 1)[1].split("\n### ", 1)[0]
        for value in enum.values:
            assert f"| `{value.name}` | 0x{value.value:02x} ({value.value}) |" in section
            assert value.doc.split()[0] in section
    for doc in spec.json_documents.values():
        section = text.split(f"### JSON `{doc.name}`", 1)[1].split("\n### ", 1)[0]
        for key in doc.keys:
            assert f"| `{key.name}` | `{key.type}`" in section and f"| `{key.field}` |" in section


@pytest.mark.parametrize("path", PROTOCOL_SPECS, ids=lambda p: p.stem)
def test_thrift_document_has_every_struct_field_and_type_id(path):
    from generator.spec.thrift import build_thrift_model

    spec = build_thrift_model(load(path, str(path.relative_to(ROOT))))
    text = (DOCS_DIR / f"{spec.format}.md").read_text(encoding="utf-8")
    for struct in spec.structs.values():
        section = text.split(f"### `{struct.name}` (", 1)[1].split("\n### ", 1)[0]
        for f in struct.fields:
            assert (
                f"| {f.id} | `{f.name}` | `{f.type.describe()}` | `{f.type.ct_name}` |" in section
            )
    for enum in spec.enums.values():
        for name, value, _ in enum.values:
            assert f"| `{name}` | 0x{value:02x} ({value}) |" in text
    for name, value in spec.wire["compact_type"]["values"].items():
        assert f"| `{name}` | 0x{value['value']:02x} ({value['value']}) |" in text


def test_plainbuffer_document_reads_like_the_format():
    text = (DOCS_DIR / "plainbuffer.md").read_text(encoding="utf-8")
    assert "| 03 | 04 | len s32 | name ... |" in text  # the cell diagram
    assert "Checksum `cell.checksum`: CRC8" in text
    assert "3. the value `1 if delete_marker else 0`, as `u8`" in text
    assert "| `STRING` | 0x03 | UTF-8 text, s32 length, then that many bytes |" in text


def test_box_diagram_wraps():
    items = [(f"field_{i}", "4") for i in range(12)]
    lines = box_lines(items, width=40)
    assert len(lines) > 4 and all(len(line) <= 40 for line in lines)
    assert boxes(_spec(ROOT / "specs" / "plainbuffer.yaml").records["message"])[0] == (
        "header u32 = 0x75",
        "4",
    )


def test_check_catches_a_stale_and_a_missing_document(tmp_path, capsys):
    specs, out = tmp_path / "specs", tmp_path / "docs"
    specs.mkdir()
    shutil.copy(ROOT / "specs" / "plainbuffer.yaml", specs)
    assert main(["docs", "--specs", str(specs), "--out", str(out), "--check"]) == 3
    assert "missing" in capsys.readouterr().err
    assert main(["docs", "--specs", str(specs), "--out", str(out)]) == 0
    assert main(["docs", "--specs", str(specs), "--out", str(out), "--check"]) == 0
    # The spec changes (a new type code): the document is stale until regenerated.
    spec = specs / "plainbuffer.yaml"
    spec.write_text(
        spec.read_text()
        .replace(
            '      AUTO_INCREMENT: {value: 0x0b, doc: "no payload; asks the server for the next id"}\n',
            '      AUTO_INCREMENT: {value: 0x0b, doc: "no payload; asks the server for the next id"}\n'
            '      DECIMAL: {value: 0x0c, doc: "a new type"}\n',
        )
        .replace(
            "          AUTO_INCREMENT: empty\n",
            "          AUTO_INCREMENT: empty\n          DECIMAL: empty\n",
        )
    )
    capsys.readouterr()
    assert main(["docs", "--specs", str(specs), "--out", str(out), "--check"]) == 3
    assert "stale" in capsys.readouterr().err
    assert main(["docs", "--specs", str(specs), "--out", str(out)]) == 0
    assert "| `DECIMAL` | 0x0c (12) | a new type |" in (out / "plainbuffer.md").read_text()
    # A hand edit is caught too.
    doc = out / "plainbuffer.md"
    doc.write_text(doc.read_text().replace("CRC8", "CRC16"))
    assert main(["docs", "--specs", str(specs), "--out", str(out), "--check"]) == 3


# The project's own pages; docs/reference/ is material copied unchanged (its links point at
# the sites it came from).
PAGES = sorted(
    p
    for p in ROOT.rglob("*.md")
    if not {".venv", "out", "build", "dist", ".git"} & set(p.relative_to(ROOT).parts)
    and not p.relative_to(ROOT).as_posix().startswith("docs/reference/")
)
LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def _anchors(text: str) -> set[str]:
    """The anchors of a page: explicit ``<a id>`` and GitHub's heading slugs."""
    slugs = {
        re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        for heading in re.findall(r"^#+\s+(.*)$", text, re.MULTILINE)
    }
    return slugs | set(re.findall(r'<a id="([^"]+)"', text))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(page):
    """Every relative link of a page names a file of the checkout (and an anchor it has)."""
    broken = []
    for target in LINK.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, mailto:, ...
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(target)
        elif anchor and linked.suffix == ".md":
            broken += [target] if anchor not in _anchors(linked.read_text("utf-8")) else []
    assert not broken, broken


IMPORT = re.compile(r"from ((?:generated|runtime|generator)(?:\.\w+)*) import (\w+)")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_imports_shown_import(page):
    """``from generated.models.ticdc_types import Column`` and the like name what exists
    (a module moved, its pages go stale)."""
    import importlib.util

    text = page.read_text(encoding="utf-8")
    for module, name in sorted(set(IMPORT.findall(text))):
        if module.startswith("runtime.spark"):  # pyspark: the spark extra
            pytest.importorskip("pyspark")
        found = importlib.import_module(module)
        assert hasattr(found, name) or importlib.util.find_spec(f"{module}.{name}"), (
            module,
            name,
        )


def test_a_sized_switch_says_what_bounds_it():
    """A switch with a size (PNG's chunk data, in `length` bytes) says so in its row: the
    reader of the table would otherwise not know where a case's `eos` ends."""
    _, text = render_spec_doc(ROOT / "specs" / "png.yaml")
    assert "| `data` | switch on `type` (see below), inside `length` bytes |" in text
