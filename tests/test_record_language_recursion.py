"""Recursive records, bit fields and choices in a small spec of their own: what the loader
refuses (with file:line and key path), and that every path reads and writes them alike."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
import yaml

from generator.emit.render import render
from generator.spec.loader import load
from generator.spec.validate import build_model
from runtime.core.errors import DecodeError, SpecError

TREE = {
    "format": "tree",
    "doc": "A tree of nodes.",
    "endian": "be",
    "default_record": "node",
    "limits": {"max_depth": 10},
    "records": {
        "node": {
            "doc": "A leaf (0xxxxxxx: its value) or a branch (1xxx nnnn: n children).",
            "fields": [{"name": "kind", "doc": "by the high bit", "choice": ["leaf", "branch"]}],
        },
        "leaf": {
            "doc": "A leaf.",
            "fields": [
                {"name": "tag", "type": "b1", "const": 0, "doc": "0"},
                {"name": "value", "type": "b7", "doc": "its value"},
            ],
        },
        "branch": {
            "doc": "A branch.",
            "fields": [
                {"name": "tag", "type": "b4", "const": 8, "doc": "1000"},
                {"name": "count", "type": "b4", "value": "len(children)", "doc": "n"},
                {"name": "children", "type": "node", "repeat": {"count": "count"}, "doc": "..."},
            ],
        },
    },
}


def _write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "tree.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _module(tmp_path: Path, data: dict):
    text = render(build_model(load(_write(tmp_path, data))))
    path = tmp_path / "tree_module.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("tree_module", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["tree_module"] = module
    spec.loader.exec_module(module)
    return module


def test_a_recursive_record_reads_and_writes_on_every_path(tmp_path):
    m = _module(tmp_path, TREE)
    data = bytes([0x82, 0x05, 0x81, 0x7F])
    model = m.parse(data)
    assert model == m.parse_construct(data)
    assert [type(c.kind).__name__ for c in model.kind.children] == ["Leaf", "Branch"]
    assert m.build(model) == m.build_construct(model) == data
    assert m.build(m.from_dict(m.to_dict(model))) == data
    assert "node" in m.FAST_READERS and "node" in m.FAST_WRITERS
    with pytest.raises(DecodeError) as err:
        m.parse(bytes([0x81] * 6 + [0]))
    assert "max_depth" in str(err.value) and err.value.offset == 5


def _error(tmp_path, data) -> str:
    with pytest.raises(SpecError) as err:
        build_model(load(_write(tmp_path, data)))
    return str(err.value)


def test_a_bit_run_that_does_not_fill_bytes_is_refused(tmp_path):
    data = yaml.safe_load(yaml.safe_dump(TREE))
    data["records"]["leaf"]["fields"][1]["type"] = "b6"
    assert "records.leaf.fields[1].type: bit fields tag, value make 7 bits" in _error(
        tmp_path, data
    )


def test_a_const_that_does_not_fit_its_bits_is_refused(tmp_path):
    data = yaml.safe_load(yaml.safe_dump(TREE))
    data["records"]["branch"]["fields"][0]["const"] = 16
    assert "records.branch.fields[0].const: 16 does not fit b4" in _error(tmp_path, data)


def test_a_choice_case_nothing_tells_apart_is_refused(tmp_path):
    data = yaml.safe_load(yaml.safe_dump(TREE))
    del data["records"]["leaf"]["fields"][0]["const"]
    assert "'leaf' has no detect:" in _error(tmp_path, data)


def test_recursion_through_a_serializable_message_is_refused(tmp_path):
    data = {
        "format": "loop",
        "doc": "d",
        "default_record": "a",
        "records": {
            "a": {
                "doc": "d",
                "layout": "serializable",
                "fields": [{"name": "b", "id": 0, "type": "a", "doc": "d"}],
            }
        },
    }
    assert "a -> a: a record cannot contain itself through" in _error(tmp_path, data)
