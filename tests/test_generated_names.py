"""Names the generated Python module makes of two spec names (a record's and its field's)
are one per pair: record ``a_b``'s switch field ``c`` and record ``a``'s switch field
``b_c`` each have their table of case readers from JSON (both were ``_a_b_c_from_json``,
and ``from_dict`` of one read the other's cases); so have two such records' grouped arrays
(``_ARRAY_<field>_In_<record>``), two records' ``map:`` JSON forms
(``_event_json_<member>_In_<record>``), a record's byte-order table and an enum's table
(``_READ_ORDER_OF_<record>``, ``_<ENUM>_BY_VALUE``); so have record ``c``'s field ``a_of_b``
and record ``b_of_c``'s field ``a`` (each tier's choice table, ``_PICK_<field>_In_<record>``,
and default terminator) and an enum's tables of members and chunks (``_MEMBERS_Of_<enum>``,
``_<CHUNK>_Of_<enum>``): user names stay lower-case, the words joining them capital. The
compiled module's names: tests/test_compiled_record_names.py."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from generator.cli.main import main
from generator.emit.render import render_with_compiled
from generator.emit.user_spec import import_spec, spec_model
from generator.spec.loader import load
from runtime.core.limits import DEFAULT
from tests.test_compiled_record_names import _declared, _two_maps
from tests.test_compiled_record_names import _twice as _compiled_twice

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


# -- each name of a generated module is one ------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs"


def _twice(source: str) -> list[str]:
    """The names a module's source binds at its top level more than once (a later one
    would replace the earlier: two spec names had met in one generated name)."""
    names = []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [t.id for t in targets if isinstance(t, ast.Name)]
    return sorted(name for name in set(names) if names.count(name) > 1)


def _source(path: Path) -> str:
    """The module source the spec at ``path`` renders to (what :func:`import_spec` runs)."""
    return render_with_compiled(spec_model(load(path, path.name)), in_memory=True)[0]


@pytest.mark.parametrize("path", sorted((ROOT / "generated").glob("*.py")), ids=lambda p: p.stem)
def test_each_shipped_module_binds_each_name_once(path):
    assert _twice(path.read_text()) == []


def test_two_records_mapped_alike_have_json_forms_of_their_own(tmp_path):
    """Craft's ``map:`` record twice: the JSON form's functions (``_event_json_<member>``),
    views (``_EVENT_VIEWS``) and row images' form (``_IMAGE_JSON``) were the module's once,
    the second record's replacing the first's; the Craft primitive's ``decode_message``
    is its first record's."""
    for path in SPECS.glob("*_types.yaml"):
        (tmp_path / path.name).write_text(path.read_text())
    path = tmp_path / "ticdc_craft.yaml"
    path.write_text(_two_maps((SPECS / "ticdc_craft.yaml").read_text()))
    module = import_spec(path)
    assert _twice(_source(path)) == []
    forms = [module.JSON_FORMS[record] for record in ("bind_message", "message_check")]
    assert forms[0][1] is not forms[1][1] and forms[0][2] is not forms[1][2]
    data = (ROOT / "samples/ticdc_craft/row_batch.bin").read_bytes()
    for record in ("bind_message", "message_check"):
        model = module.parse(data, record)
        assert module.from_dict(module.to_dict(model), record) == model
    assert list(module.decode_message(data)) == module.parse(data, "bind_message").events


MESSAGES_SPEC = """\
format: arrays_named
title: Two grouped arrays whose record and field names run together alike
doc: Record a_b's field c (4 bytes) and record a's field b_c (16 bytes).
endian: le
default_record: a
records:
  a:
    doc: A message of 16 bytes.
    layout: serializable
    fields:
      - {name: b_c, id: 0, type: msb_uvarint8, repeat: {count: 16}, doc: "16 bytes."}
  a_b:
    doc: A message of 4 bytes.
    layout: serializable
    fields:
      - {name: c, id: 0, type: msb_uvarint8, repeat: {count: 4}, doc: "4 bytes."}
"""


def test_grouped_arrays_of_names_that_run_together_are_each_their_own(tmp_path):
    """The fast path's array of ``a_b.c`` and of ``a.b_c`` were one, ``_A_B_C``, 4 long
    (``a``'s 16 never matched it: each message of ``a`` was read twice, the second time by
    the exact reader); now ``_ARRAY_<field>_In_<record>``."""
    path = tmp_path / "arrays_named.yaml"
    path.write_text(MESSAGES_SPEC)
    source = _source(path)
    assert "_ARRAY_b_c_In_a = rt_fast.MsbArray(16, 8)" in source
    assert "_ARRAY_c_In_a_b = rt_fast.MsbArray(4, 8)" in source
    module = import_spec(path)
    for record, field, count in [("a_b", "c", 4), ("a", "b_c", 16), ("a_b", "c", 4)]:
        data = module.build({field: list(range(count))}, record)
        model = module.parse(data, record)
        assert getattr(model, field) == list(range(count))
        assert module.FAST_READERS[record](data, 0, len(data), DEFAULT, 1) == (model, len(data))


ORDERS_SPEC = """\
format: orders_named
title: A record's byte-order table named as an enum's table
doc: Record x_by_value chooses its byte order; enum order_of_x is another field's.
endian: le
default_record: x_by_value
enums:
  mark:
    doc: The byte order mark.
    type: u8
    values:
      LITTLE: {value: 1, doc: "Little-endian."}
      BIG: {value: 2, doc: "Big-endian."}
  order_of_x:
    doc: An enum whose table was the record's order table.
    type: u8
    values:
      ONE: {value: 1, doc: "One."}
      TWO: {value: 2, doc: "Two."}
records:
  x_by_value:
    doc: A mark, then a number in its order and a kind.
    endian: {switch_on: m, cases: {LITTLE: le, BIG: be}}
    fields:
      - {name: m, type: u8, enum: mark, doc: "The byte order."}
      - {name: n, type: u16, doc: "A number in that order."}
      - {name: k, type: u8, enum: order_of_x, doc: "A kind."}
"""


@pytest.mark.parametrize("data", [b"\x01\x02\x00\x02", b"\x02\x00\x02\x01"], ids=bytes.hex)
def test_a_byte_order_table_and_an_enum_table_are_each_their_own(tmp_path, data):
    """``_ORDER_OF_X_BY_VALUE`` was both ``x_by_value``'s byte-order table and enum
    ``order_of_x``'s members by value (and the readers' and the writers' order tables were
    two of one name); now ``_READ_ORDER_OF_x_by_value`` and ``_WRITE_ORDER_OF_x_by_value``."""
    path = tmp_path / "orders_named.yaml"
    path.write_text(ORDERS_SPEC)
    assert _twice(_source(path)) == []
    module = import_spec(path)
    model = module.parse(data)
    assert (model.n, model.k.value) == (2, data[3]) and module.build(model) == data
    assert module.FAST_READERS["x_by_value"](data, 0, len(data), DEFAULT, 1) == (model, 4)


# -- a field's and its record's names, or a chunk's and its enum's, joined apart ------------

CHOICES_SPEC = """\
format: choices_named
title: Two choices whose record and field names run together alike
doc: Record c's choice a_of_b (one or two) and record b_of_c's choice a (three).
endian: be
default_record: c
records:
  c:
    doc: A choice of one or two.
    fields:
      - {name: a_of_b, choice: [one, two], doc: "One or two."}
  b_of_c:
    doc: A choice of three.
    fields:
      - {name: a, choice: [three], doc: "Three."}
  one:
    doc: Tag 1, then a byte.
    fields:
      - {name: tag, type: u8, const: 1, doc: "1."}
      - {name: v, type: u8, doc: "A byte."}
  two:
    doc: Tag 2, then a u16.
    fields:
      - {name: tag, type: u8, const: 2, doc: "2."}
      - {name: v, type: u16, doc: "A u16."}
  three:
    doc: Tag 3, then a byte.
    fields:
      - {name: tag, type: u8, const: 3, doc: "3."}
      - {name: v, type: u8, doc: "A byte."}
"""
CHOICES = [("c", b"\x01\x07"), ("c", b"\x02\x01\x02"), ("b_of_c", b"\x03\x09")]


@pytest.fixture(scope="module")
def choices(tmp_path_factory):
    path = tmp_path_factory.mktemp("choices") / "choices_named.yaml"
    path.write_text(CHOICES_SPEC)
    return path


@pytest.mark.parametrize(
    "record, data", CHOICES, ids=lambda x: x.hex() if isinstance(x, bytes) else x
)
def test_the_fast_readers_choice_tables_of_names_that_run_together_are_each_their_own(
    choices, record, data
):
    """The fast path's first-byte table of ``c.a_of_b`` and of ``b_of_c.a`` were one,
    ``_PICK_A_OF_B_OF_C`` (``b_of_c``'s, so ``c``'s cases were not found); now
    ``_PICK_<field>_In_<record>``."""
    module = import_spec(choices)
    assert "_PICK_a_of_b_In_c = " in _source(choices)
    model = module.parse(data, record)
    assert module.FAST_READERS[record](data, 0, len(data), DEFAULT, 1) == (model, len(data))


@pytest.mark.parametrize(
    "record, data", CHOICES, ids=lambda x: x.hex() if isinstance(x, bytes) else x
)
def test_the_quick_readers_choice_tables_of_names_that_run_together_are_each_their_own(
    choices, record, data
):
    """The quick tier's table was ``_QUICK_PICK_F_A_OF_B_OF_C`` for both; now
    ``_QUICK_<table>_In_<record>``."""
    module = import_spec(choices)
    assert "_QUICK_pick_f_a_of_b_In_c = " in _source(choices)
    model = module.parse(data, record)
    assert module.QUICK_READERS[record][0](data, 0, len(data), module._LIMITS) == (model, len(data))


@pytest.mark.parametrize(
    "record, data", CHOICES, ids=lambda x: x.hex() if isinstance(x, bytes) else x
)
def test_the_fast_writers_choice_tables_of_names_that_run_together_are_each_their_own(
    choices, record, data
):
    """The fast writers' table of case writers by class was ``_WRITE_A_OF_B_OF_C`` for both
    (``b_of_c``'s: ``c``'s cases fell to construct); now ``_WRITE_<field>_In_<record>``."""
    module = import_spec(choices)
    assert "_WRITE_a_of_b_In_c = " in _source(choices)
    out = bytearray()
    module.FAST_WRITERS[record](module.parse(data, record), out)
    assert bytes(out) == data


def test_the_compiled_choice_tables_of_names_that_run_together_are_each_their_own(
    choices, tmp_path
):
    """The compiled module's table (and picker) was ``_PICK_F_A_OF_B_OF_C`` for both, one
    declared; now ``_CHOICE_<table>_In_<record>``, one each (rendered only: a build takes
    ~15 s)."""
    assert main(["generate", "--specs", str(choices.parent), "--out", str(tmp_path / "pkg")]) == 0
    text = (tmp_path / "pkg" / "_compiled" / "choices_named.pyx").read_text()
    tables = {"_CHOICE_pick_f_a_of_b_In_c", "_CHOICE_pick_f_a_In_b_of_c"}
    assert tables | {f"_pick{table}" for table in tables} <= set(_declared(text))
    assert _compiled_twice(text) == []


TERMINATORS_SPEC = """\
format: terminators_named
title: Two terminated lists whose record and field names run together alike
doc: Record c's list a_of_b ends at 0, record b_of_c's list a at 255.
endian: be
default_record: c
records:
  c:
    doc: Bytes up to a 0.
    fields:
      - {name: a_of_b, type: u8, repeat: {until: "_item == 0", include: false, terminator: 0}, doc: "Bytes."}
  b_of_c:
    doc: Bytes up to a 255.
    fields:
      - {name: a, type: u8, repeat: {until: "_item == 255", include: false, terminator: 255}, doc: "Bytes."}
"""


@pytest.mark.parametrize("record, field, end", [("c", "a_of_b", 0), ("b_of_c", "a", 255)])
def test_default_terminators_of_names_that_run_together_are_each_their_own(
    tmp_path, record, field, end
):
    """The fast writers' default terminator of ``c.a_of_b`` and of ``b_of_c.a`` was one,
    ``_TERMINATOR_A_OF_B_OF_C`` (255: ``c``'s new lists had no terminator); now
    ``_TERMINATOR_<field>_In_<record>``."""
    path = tmp_path / "terminators_named.yaml"
    path.write_text(TERMINATORS_SPEC)
    assert "_TERMINATOR_a_of_b_In_c = " in _source(path)
    module = import_spec(path)
    out = bytearray()
    module.FAST_WRITERS[record]({field: [1, 2]}, out)
    assert bytes(out) == bytes([1, 2, end]) == module.build({field: [1, 2]}, record)


ENUMS_SPEC = """\
format: enums_named
title: Enum tables named as another enum's tables of members, chunks and writers
doc: Enum x_by_value's members, chunk reader and chunk writer, and enums named as them.
endian: be
default_record: r
enums:
  x_by_value:
    doc: Kinds.
    type: u8
    values:
      ONE: {value: 1, doc: "One."}
      TWO: {value: 2, doc: "Two."}
  members_of_x:
    doc: Sizes.
    type: u8
    values:
      SMALL: {value: 1, doc: "Small."}
      LARGE: {value: 2, doc: "Large."}
  uvarint_chunk_of_x:
    doc: Colours.
    type: u8
    values:
      RED: {value: 1, doc: "Red."}
      BLUE: {value: 2, doc: "Blue."}
  pack_uvarint_chunk_of_x:
    doc: Shapes.
    type: u8
    values:
      ROUND: {value: 1, doc: "Round."}
      SQUARE: {value: 2, doc: "Square."}
records:
  r:
    doc: One of each enum, then a chunk of kinds.
    fields:
      - {name: size, type: u8, enum: members_of_x, doc: "A size."}
      - {name: kind, type: u8, enum: x_by_value, doc: "A kind."}
      - {name: colour, type: u8, enum: uvarint_chunk_of_x, doc: "A colour."}
      - {name: shape, type: u8, enum: pack_uvarint_chunk_of_x, doc: "A shape."}
      - {name: count, type: u8, doc: "The number of kinds."}
      - {name: kinds, type: uvarint_chunk, count: count, enum: x_by_value, doc: "Kinds."}
"""
ENUMS_MESSAGE = bytes([1, 2, 1, 2, 2, 1, 2])


@pytest.fixture(scope="module")
def enums(tmp_path_factory):
    path = tmp_path_factory.mktemp("enums") / "enums_named.yaml"
    path.write_text(ENUMS_SPEC)
    return path, _source(path), import_spec(path)


def test_an_enums_members_for_the_writers_are_not_another_enums_table(enums):
    """The fast writers' members of ``x_by_value`` were ``_MEMBERS_OF_X_BY_VALUE``, enum
    ``members_of_x``'s table of members by value (the later one bound: ``size`` was read as
    a kind); now ``_MEMBERS_Of_<enum>``."""
    _, source, module = enums
    assert _twice(source) == [] and "_MEMBERS_Of_x_by_value = " in source
    model = module.parse(ENUMS_MESSAGE)
    assert (type(model.size).__name__, type(model.kind).__name__) == ("MembersOfX", "XByValue")
    assert module.FAST_READERS["r"](ENUMS_MESSAGE, 0, 7, DEFAULT, 1) == (model, 7)


def test_an_enums_chunk_reader_is_not_another_enums_table(enums):
    """The fast path's reader of a ``uvarint_chunk`` of ``x_by_value`` was
    ``_UVARINT_CHUNK_OF_X_BY_VALUE``, enum ``uvarint_chunk_of_x``'s table (``parse`` raised
    a foreign AttributeError); now ``_<CHUNK>_Of_<enum>``."""
    _, source, module = enums
    assert _twice(source) == [] and "_UVARINT_CHUNK_Of_x_by_value = " in source
    model, end = module.QUICK_READERS["r"][0](ENUMS_MESSAGE, 0, 7, module._LIMITS)
    assert (model.colour.name, [kind.name for kind in model.kinds], end) == (
        "RED",
        ["ONE", "TWO"],
        7,
    )


def test_an_enums_chunk_writer_is_not_another_enums_table(enums):
    """The fast writers' packer of a ``uvarint_chunk`` of ``x_by_value`` was
    ``_PACK_UVARINT_CHUNK_OF_X_BY_VALUE``, enum ``pack_uvarint_chunk_of_x``'s table; now
    ``_PACK_<CHUNK>_Of_<enum>``."""
    _, source, module = enums
    assert _twice(source) == [] and "_PACK_UVARINT_CHUNK_Of_x_by_value = " in source
    model = module.parse(ENUMS_MESSAGE)
    out = bytearray()
    module.FAST_WRITERS["r"](model, out)
    assert bytes(out) == ENUMS_MESSAGE == module.build(model)
    assert model.shape.name == "SQUARE"
