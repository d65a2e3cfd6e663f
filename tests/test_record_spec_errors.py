"""A record spec's field mistakes (generator/spec/fields.py) are SpecErrors naming the field's
key and line: a map or choice with keys it does not take, a str with no size, a terminator
with a multi-byte encoding, an enum on what is not an integer, a switch that misses a member,
a bit field run that does not fill its bytes. The spec's JSON Schema passes each of them."""

from __future__ import annotations

import pytest

from generator.spec.loader import load
from generator.spec.validate import build_model
from runtime.core.errors import SpecError

BASE = """\
format: box
doc: B.
default_record: box
enums:
  kind:
    doc: K.
    type: u8
    values:
      A: {value: 1, doc: a}
      B: {value: 2, doc: b}
records:
  item:
    doc: I.
    fields:
      - {name: n, type: u8, doc: N.}
  box:
    doc: B.
    fields:
      - {name: k, type: u8, enum: kind, doc: K.}
      - {name: name, type: str, size: 4, doc: N.}
      - {name: x, type: u16, doc: X.}
"""
X = "{name: x, "
F = "records.box.fields[2]"


def x(keys: str) -> str:
    """Field x of ``box`` with these keys instead of ``type: u16``."""
    return f"{X}{keys}, doc: X.}}"


CASES = [
    (x("map: {key: u8, value: u8}, type: u8"), F + ".type", "a map field takes no 'type'"),
    (x("map: {key: item, value: u8}"), F + ".map.key", "a map key is an integer or a str"),
    (x("choice: [item], size: 3"), F + ".size", "a choice takes no 'size'"),
    (x("choice: [nope]"), F + ".choice[0]", "'nope' is not a record of this spec"),
    (X + "doc: X.}", F, "a field needs a type or a switch_on"),
    (x("type: u16, optional: true"), F + ".optional", "an optional field needs a tag"),
    (x("type: item, repeat: tagged"), F + ".repeat", "repeat: tagged needs a record type"),
    (x("type: str"), F + ".size", "str needs a size or a terminator"),
    (x("type: str, size: 2, terminator: 0"), F + ".terminator", "a str takes a size or a"),
    (x("type: str, encoding: utf16, terminator: 0"), F + ".encoding", "not 'utf16'"),
    (x("type: u16, terminator: 0"), F + ".terminator", "terminator: goes with a str or bytes"),
    (x("type: str, size: 2, encoding: klingon"), F + ".encoding", "unknown encoding 'klingon'"),
    (x("type: str, size: 2, enum: kind"), F + ".enum", "only integers can be enums"),
    (x("type: str, size: 2, open: true, enum: kind"), F + ".enum", "only integers can be"),
    (x("type: u16, open: true, enum: knid"), F + ".enum", "unknown enum 'knid'"),
    (x("type: u16, open: true"), F + ".open", "open: true goes with enum: on an integer"),
    (x("type: u16, count: 2"), F + ".count", "only a chunk type takes count:"),
    (x("switch_on: name, cases: {A: item}"), F + ".switch_on", "'name' is a str field"),
    (x("switch_on: k, cases: {A: item, C: item}"), F + ".cases.C", "'C' is not a member of kind"),
    (x("switch_on: k, cases: {A: item}"), F + ".cases", "no case for ['B']"),
    (x("type: str, size: 2, logical: uuid"), F + ".logical", "logical: uuid is 16 bytes"),
    (x("type: str, size: 2, logical: tidb_tso"), F + ".logical", "tidb_tso is an integer time"),
    (x("type: u32, logical: pg_lsn"), F + ".logical", "logical: pg_lsn is one u64, no enum"),
    (x("type: u64, enum: kind, logical: pg_lsn"), F + ".logical", "pg_lsn is one u64, no enum"),
    (x("type: str, terminator: 0, pad: nul"), F + ".pad", "pad: goes with a str of a fixed size"),
    (x("type: u16, process: zlib"), F + ".process", "process: goes on a record, bytes or str"),
    (x("type: b4"), F + ".type", "bit fields x make 4 bits: a run of bit fields fills whole"),
    (x("type: b8, tag: 1"), F + ".tag", "a bit field takes no 'tag'"),
    (x("type: b1, enum: kind"), F + ".enum", "kind.B (2) does not fit b1 (0 to 1)"),
    (x("type: b1, open: true, enum: kind"), F + ".enum", "kind.B (2) does not fit b1"),
    (X + "type: u16, doc: X, units}", F + ".units", "unknown key 'units': a ',' inside {...}"),
    (x("type: str, size: u9"), F + ".size", "'u9' is no earlier field and no length type ("),
    (x("type: str, size: uint16"), F + ".size", "no length type (did you mean 'u16'?)"),
    (x("type: str, size: nme"), F + ".size", "no length type (did you mean 'name'?)"),
]


@pytest.mark.parametrize("field, key, message", CASES, ids=[c[0] for c in CASES])
def test_a_field_mistake_is_a_spec_error_at_its_key_and_line(field, key, message, tmp_path):
    path = tmp_path / "box.yaml"
    path.write_text(BASE.replace("{name: x, type: u16, doc: X.}", field))
    with pytest.raises(SpecError) as caught:
        build_model(load(path, "specs/box.yaml"))
    err = caught.value
    assert (err.file, err.key, err.line) == ("specs/box.yaml", key, BASE.count("\n"))
    assert message in err.message


def test_a_duplicate_key_is_named_at_its_second_line(tmp_path):
    """The line of the key given twice is the second one (the first is often the right one,
    far above), and the message names the first."""
    path = tmp_path / "box.yaml"
    field = "      - {name: x, type: u16, doc: X.}\n"
    path.write_text(BASE.replace(field, "      - name: x\n        type: u16\n        type: u8\n"))
    with pytest.raises(SpecError) as caught:
        load(path, "specs/box.yaml")
    err = caught.value
    assert (err.key, err.line) == (F + ".type", BASE.count("\n") + 2)
    assert err.message == f"duplicate key 'type' (first at line {BASE.count(chr(10)) + 1})"


def test_the_base_spec_builds(tmp_path):
    path = tmp_path / "box.yaml"
    path.write_text(BASE)
    assert list(build_model(load(path, "specs/box.yaml")).records) == ["item", "box"]


def test_bit_fields_that_mix_bit_orders_in_a_byte(tmp_path):
    path = tmp_path / "box.yaml"
    path.write_text(
        BASE.replace(x("type: u16"), x("type: b4") + "\n      - {name: y, type: b4le, doc: Y.}")
    )
    with pytest.raises(SpecError, match=r"x and y mix bit orders \(b<n> and b<n>le\)") as caught:
        build_model(load(path, "specs/box.yaml"))
    assert (caught.value.key, caught.value.line) == ("records.box.fields[3].type", 22)
