"""Names the generated Python module makes of two spec names (a record's and its field's)
are one per pair: record ``a_b``'s switch field ``c`` and record ``a``'s switch field
``b_c`` each have their table of case readers from JSON (both were ``_a_b_c_from_json``,
and ``from_dict`` of one read the other's cases). The compiled module's names:
tests/test_compiled_record_names.py."""

from __future__ import annotations

import pytest

from generator.emit.user_spec import import_spec

SPEC = """\
format: json_named
title: Two switch fields whose record and field names run together alike
doc: Record a_b's field c and record a's field b_c.
endian: be
default_record: a
enums:
  kind:
    doc: A kind.
    type: u8
    values:
      SMALL: {value: 1, doc: "A byte."}
      TEXT: {value: 2, doc: "Text."}
records:
  a:
    doc: A record whose switch holds a byte or text.
    fields:
      - {name: k, type: u8, enum: kind, doc: "Its kind."}
      - name: b_c
        switch_on: k
        doc: Its value.
        cases:
          SMALL: u8
          TEXT: {type: str, size: u8}
  a_b:
    doc: A record whose switch holds a u16 or bytes.
    fields:
      - {name: k, type: u8, enum: kind, doc: "Its kind."}
      - name: c
        switch_on: k
        doc: Its value.
        cases:
          SMALL: u16
          TEXT: {type: bytes, size: u8}
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    path = tmp_path_factory.mktemp("specs") / "json_named.yaml"
    path.write_text(SPEC)
    return import_spec(path)


@pytest.mark.parametrize(
    "record, data",
    [("a", b"\x01\x07"), ("a", b"\x02\x02hi"), ("a_b", b"\x01\x01\x02"), ("a_b", b"\x02\x02hi")],
)
def test_each_switch_reads_its_own_cases_from_json(module, record, data):
    model = module.parse(data, record)
    assert module.from_dict(module.to_dict(model), record) == model
    assert module.build(module.from_dict(module.to_dict(model), record), record) == data
