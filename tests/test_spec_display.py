"""``display: hex`` (runtime.core.codec.HexNumber): an integer the JSON form shows as hex
text, on ``tests/data/user_specs/stamps.yaml``'s magic and a const magic; the model keeps
the number, and from_dict takes the text (or a number) back."""

from __future__ import annotations

import json
import struct

import pytest

from generator import ROOT
from generator.emit.docs import render_doc
from generator.emit.user_spec import import_spec, spec_model
from generator.spec.loader import load_text
from runtime.core.errors import EncodeError, SpecError

SPEC = ROOT / "tests" / "data" / "user_specs" / "stamps.yaml"
DATA = struct.pack("<IIIII", 0xA1B23C4D, 1764342000, 5, 0, 0) + b"\x00"


@pytest.fixture(scope="module")
def stamps():
    return import_spec(SPEC)


def test_the_magic_reads_as_hex_and_back(stamps):
    model = stamps.parse(DATA)
    assert model.magic == 0xA1B23C4D  # the model's number
    form = json.loads(json.dumps(stamps.to_dict(model)))
    assert form["magic"] == "0xa1b23c4d"
    assert stamps.build(stamps.from_dict(form)) == DATA
    form["magic"] = 0xA1B23C4D  # a number is taken too
    assert stamps.build(stamps.from_dict(form)) == DATA
    form["magic"] = "0xa1b2zz"
    with pytest.raises(EncodeError, match="'0xa1b2zz' is not hex text"):
        stamps.from_dict(form)


CONST = """\
format: c
title: c
doc: c
endian: le
default_record: r
records:
  r:
    doc: r
    fields:
      - {name: magic, type: u32, const: 0xa1b2c3d4, display: hex, doc: "the magic"}
      - {name: n, type: u16, doc: "n"}
"""


def test_a_const_magic_reads_as_hex(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(CONST)
    module = import_spec(path)
    data = bytes.fromhex("d4c3b2a1") + b"\x07\x00"
    form = module.to_dict(module.parse(data))
    assert form == {"magic": "0xa1b2c3d4", "n": 7}
    assert module.build(module.from_dict(form)) == data
    docs = render_doc(spec_model(load_text(CONST, path, "c.yaml")))
    assert "constant `0xa1b2c3d4`" in docs and "JSON: hex text (`0x...`)" in docs


@pytest.mark.parametrize(
    "field, says",
    [
        (
            "{name: n, type: bytes, size: 2, display: hex, doc: n}",
            "display: hex goes with a plain integer",
        ),
        (
            "{name: n, type: u16, logical: unix_seconds, display: hex, doc: n}",
            "display: hex goes with",
        ),
        ("{name: n, type: u16, display: octal, doc: n}", "not one of ['hex']"),
    ],
)
def test_display_hex_on_what_is_no_plain_integer_is_refused(tmp_path, field, says):
    text = CONST.replace('{name: n, type: u16, doc: "n"}', field)
    with pytest.raises(SpecError) as err:
        spec_model(load_text(text, tmp_path / "c.yaml", "c.yaml"))
    assert str(err.value).startswith("c.yaml:11: records.r.fields[1].display: "), str(err.value)
    assert says in str(err.value)
