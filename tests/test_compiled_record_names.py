"""A record may be named as the compiled module's shared helpers are (``entry``, whose Arrow
writer once was the Arrow prelude's ``_arrow_entry``; ``arrow``, whose writer
``write_arrow`` is the module's own): the per-record names of the compiled module have a
shape no shared name has, so a user's build of such a spec compiles and every compiled
tier (readers, writers, Arrow writers) takes those records."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from generator.cli.main import main
from runtime.core import tier
from runtime.core.limits import DEFAULT
from tests.user_packages import compiled_user_module, import_module

SPEC = """\
format: clashing
title: Records named as the compiled module's helpers
doc: Records whose names the compiled module's shared helpers have too.
endian: be
default_record: entry
records:
  entry:
    doc: An entry.
    fields:
      - {name: id, type: u8, doc: "The entry's id."}
      - {name: size, type: u16, doc: "A size."}
  arrow:
    doc: An arrow.
    fields:
      - {name: head, type: u8, doc: "Its head."}
"""

COMPILED = Path(__file__).resolve().parent.parent / "generated" / "_compiled"
MESSAGES = {"entry": bytes.fromhex("07 0102"), "arrow": bytes.fromhex("09")}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The spec's module with its compiled extension beside it (~15 s to build)."""
    return compiled_user_module(tmp_path_factory, "clashing", SPEC)


@pytest.mark.parametrize("record", sorted(MESSAGES))
def test_every_compiled_tier_takes_a_record_named_as_a_helper(built, record):
    data = MESSAGES[record]
    model = built.parse(data, record)
    assert built.COMPILED_READERS[record](data, built._LIMITS) == model
    out = bytearray()
    built.COMPILED_WRITERS[record](model, out)
    assert bytes(out) == data


@pytest.mark.parametrize("record", sorted(MESSAGES))
def test_the_compiled_arrow_writer_of_a_record_named_as_a_helper(built, record):
    pa = pytest.importorskip("pyarrow")
    pytest.importorskip("pyspark")
    from pyspark.sql.pandas.types import to_arrow_schema

    assert record in built._COMPILED.bind_arrow(vars(built))
    arrow = tier.compiled("runtime._compiled.arrow")
    fields = list(to_arrow_schema(built.spark_schema(record), timezone="UTC"))
    out, counts = arrow.builder_for(pa.struct(fields)), []
    data = MESSAGES[record]
    assert built._COMPILED.write_arrow(record, pa.array([data]), 0, 1, out, counts, DEFAULT) == 1
    got = out.finish()
    rows = list(built.to_rows(built.parse(data, record), record))
    want = [pa.array(column, f.type) for column, f in zip(zip(*rows), fields)]
    assert [got.field(k) for k in range(len(fields))] == want


PER_RECORD = (
    "_arrow_",
    "_cwrite_",
    "_cbody_",
    "write_record_",
    "_python_write_",
    "read_",
    "_read_",
    "_top_",
    "_reuse_",
    "_kept_",
    "_pending_",
    "_reread_",
    "_head_",
    "_elements_",
    "_columns_",
    "_last_",
    "_rows_",
    "rows_",
    "_bind_",
    "_back_bind_",
    "batches_",
    "message_",
)
"""The prefixes of the compiled module's names of one record (``_arrow_<record>``,
``read_<record>``, ...; ``_cbody_<record>``: a recursive record's writer, which
``_cwrite_<record>`` calls within Python's recursion limit; ``_bind_<record>``: a ``map:``'s
binding). A name of two records has a capital between them, which no record name has
(``_group_<group>_In_<record>``, a ``map:``'s reader of its groups), and so has a name of
a record and one of its variables (``_shared_<var>_In_<record>``, a mysql::serialization
record's shared int; ``_last_<var>_In_<record>``, a ``map:``'s names kept). A name of a
record and a word of the generator has the word capitalised after the record
(``_map_<record>_Class<k>_<field>``, ``_back_<record>_Use``). A capital word before a
record's name is a class's (``_<Class>_<field>``, the offsets of a record's fields), so no
per-record prefix has a capital (``_reread_<record>``, not ``_Pending_<record>``)."""


def _defined(text: str) -> list[str]:
    """Each name a compiled module's source defines, once per time it does."""
    return re.findall(
        r"^(?:cdef|cpdef|def)\s+(?:inline\s+)?(?:[\w*\[\], ]+\s+)?(\w+)\s*\(", text, re.MULTILINE
    )


def _cimported(text: str) -> set[str]:
    """The names a compiled module's source cimports."""
    names = set()
    for listed, single in re.findall(r"cimport \(([^)]*)\)|cimport ([^\n(]+)", text):
        names |= {n.split(" as ")[-1].strip() for n in (listed or single).split(",") if n.strip()}
    return names


def _top_level_names(text: str) -> set[str]:
    """The names a compiled module's source defines or cimports at its top level."""
    return set(_defined(text)) | _cimported(text)


@pytest.mark.parametrize("path", sorted(COMPILED.glob("*.pyx")), ids=lambda p: p.stem)
def test_no_shared_name_of_a_compiled_module_has_a_per_record_prefix(path):
    """A shared name (a helper, ``write_arrow``) with a per-record prefix is the name of a
    record's function in a spec that has a record named as its rest: a user's spec must be
    free to name its records as it likes."""
    records = importlib.import_module(f"generated.{path.stem}").RECORDS
    own = {prefix + record for prefix in PER_RECORD for record in records}
    shared = _top_level_names(path.read_text()) - own
    assert not [name for name in shared if name.startswith(PER_RECORD)]


def test_no_per_record_prefix_starts_another():
    """``_read_message_<record>`` would be ``_read_<record>`` of a record ``message_<record>``."""
    assert not [(a, b) for a in PER_RECORD for b in PER_RECORD if a != b and b.startswith(a)]


@pytest.mark.parametrize("path", sorted(COMPILED.glob("*.pyx")), ids=lambda p: p.stem)
def test_a_name_of_two_records_splits_at_its_capital(path):
    """A ``map:``'s reader of its groups names the group and the mapped record apart."""
    records = importlib.import_module(f"generated.{path.stem}").RECORDS
    for name in _top_level_names(path.read_text()):
        if name.startswith("_group_"):
            group, record = name.removeprefix("_group_").split("_In_")
            assert {group, record} <= set(records)


SPECS = Path(__file__).resolve().parent.parent / "specs"
SHADOWING = {
    "ticdc_craft": (("field", "message_column_group"), "_group_column_group_In_message"),
    "ticdc_open_protocol": (("pair",), "pair_from_kafka"),
}
"""A spec, the records added to it, and a name its compiled module must still have: a
record ``field`` (the way back's cimported slot reader), ``message_column_group`` (the
``map:``'s reader of its ``column_group`` groups), ``pair`` (the Kafka pair reader)."""


@pytest.mark.parametrize("stem", sorted(SHADOWING))
def test_records_named_as_another_name_of_the_module_leave_each_name_one(stem, tmp_path):
    """Rendered only (a build takes ~15 s): each name of the module is one function."""
    added, kept = SHADOWING[stem]
    specs = tmp_path / "specs"
    specs.mkdir()
    for name in ("mysql_types", "ticdc_types"):
        (specs / f"{name}.yaml").write_text((SPECS / f"{name}.yaml").read_text())
    records = "".join(
        f'  {record}:\n    doc: A record.\n    fields:\n      - {{name: id, type: u8, doc: "An id."}}\n'
        for record in added
    )
    text = (SPECS / f"{stem}.yaml").read_text().replace("\nrecords:\n", "\nrecords:\n" + records, 1)
    (specs / f"{stem}.yaml").write_text(text)
    assert main(["generate", "--specs", str(specs), "--out", str(tmp_path / "pkg")]) == 0
    text = (tmp_path / "pkg" / "_compiled" / f"{stem}.pyx").read_text()
    defined = _defined(text)
    assert sorted(n for n in set(defined) if defined.count(n) > 1) == []
    assert set(defined) & _cimported(text) == set()
    assert kept in defined and {f"read_{record}" for record in added} <= set(defined)


def test_no_per_record_prefix_has_a_capital():
    """``_Pending_<record>`` would be ``_<Class>_<field>``: a record ``pending``'s field."""
    assert [prefix for prefix in PER_RECORD if prefix != prefix.lower()] == []


def _declared(text: str) -> list[str]:
    """Each name a compiled module's source declares at its top level (functions, classes,
    structs, C globals, several on one line), once per time it does."""
    names = []
    for line in text.splitlines():
        found = re.match(r"(?:cdef|cpdef|def|ctypedef)\s+(?!extern\b)(.*)", line)
        if found is None:
            continue
        rest = re.split(r"[=#]", found.group(1))[0]  # a value may have brackets, a signature no =
        if kind := re.match(r"(?:class|struct|enum)\s+(\w+)", rest):
            names.append(kind.group(1))
        elif "(" in rest:
            names.append(re.search(r"(\w+)\s*\(", rest).group(1))
        else:
            first, *others = rest.split(",")
            names += [re.sub(r"\[.*", "", n).strip() for n in [first.split()[-1], *others]]
    return names


def _twice(text: str) -> list[str]:
    declared = _declared(text)
    return sorted(name for name in set(declared) if declared.count(name) > 1)


def _generated(tmp_path: Path, stem: str, edit) -> str:
    """``stem``'s spec (and the specs it imports) made ``edit(text)``, generated: the text of
    its compiled module."""
    specs = tmp_path / "specs"
    specs.mkdir()
    for path in SPECS.glob("*_types.yaml"):
        (specs / path.name).write_text(path.read_text())
    (specs / f"{stem}.yaml").write_text(edit((SPECS / f"{stem}.yaml").read_text()))
    assert main(["generate", "--specs", str(specs), "--out", str(tmp_path / "pkg")]) == 0
    return (tmp_path / "pkg" / "_compiled" / f"{stem}.pyx").read_text()


def _two_maps(text: str) -> str:
    """Craft with its ``map:`` record twice, as ``bind_message`` and ``message_check``:
    ``_back_bind_<R>`` of one was ``_back_<R>_check`` of the other, and both kept their
    term dictionary's names in ``_last_f_term_dictionary``."""
    start, end = text.index("  message:\n    doc:"), text.index("\n  frame:\n")
    block = text[start:end]
    copies = [
        block.replace("  message:\n", f"  {name}:\n", 1).replace(": message\n", f": {name}\n")
        for name in ("bind_message", "message_check")
    ]
    text = text[:start] + "\n".join(copies) + text[end:]
    return text.replace("default_record: message", "default_record: bind_message")


def _pending_record(text: str) -> str:
    """PlainBuffer with a record ``pending`` whose field is ``message``: its slot offset
    ``_Pending_message`` was the class of ``message``'s pending rows."""
    record = '  pending:\n    doc: A record.\n    fields:\n      - {name: message, type: u8, doc: "An id."}\n'
    return text.replace("\nrecords:\n", "\nrecords:\n" + record, 1)


@pytest.mark.parametrize(
    "stem, edit", [("ticdc_craft", _two_maps), ("plainbuffer", _pending_record)]
)
def test_records_named_to_meet_in_a_generated_name_leave_each_name_one(stem, edit, tmp_path):
    """Rendered only (a build of the pending case is below): each compiled name is one."""
    assert _twice(_generated(tmp_path, stem, edit)) == []


@pytest.mark.parametrize("path", sorted(COMPILED.glob("*.pyx")), ids=lambda p: p.stem)
def test_each_shipped_compiled_name_is_declared_once(path):
    assert _twice(path.read_text()) == []


PENDING_SPEC = """\
format: pending_named
title: A record named as pending elements were
doc: A batch whose big inputs' items are pending, beside a record named pending.
endian: be
default_record: batch
records:
  batch:
    doc: Items to the end.
    spark:
      row: items
    fields:
      - {name: items, type: item, repeat: eos, doc: "The items."}
  item:
    doc: An item.
    fields:
      - {name: id, type: u16, doc: "Its id."}
      - {name: body, type: bytes, size: 1022, doc: "Its body."}
  pending:
    doc: Its field's offset was _Pending_batch, the class of batch's pending items.
    fields:
      - {name: batch, type: u8, doc: "A byte."}
"""


@pytest.fixture(scope="module")
def pending_named(tmp_path_factory):
    """The spec's module with its compiled extension beside it (~15 s to build)."""
    return compiled_user_module(tmp_path_factory, "pending_named", PENDING_SPEC)


def test_a_record_named_pending_and_pending_items_both_compile_and_round_trip(pending_named):
    from generator.emit.compiled_pending import PENDING_BYTES

    module = pending_named
    items = [bytes([k >> 8, k & 0xFF]) + bytes([k % 251]) * 1022 for k in range(1100)]
    data = b"".join(items)
    assert len(data) >= PENDING_BYTES  # its items are pending
    model = module.COMPILED_READERS["batch"](data, module._LIMITS)
    assert model == module.parse(data) and module.build(model) == data
    assert [item.id for item in model.items[::100]] == list(range(0, 1100, 100))
    assert module.COMPILED_READERS["pending"](b"\x07", module._LIMITS) == module.parse(
        b"\x07", "pending"
    )
    assert module.build(module.parse(b"\x07", "pending"), "pending") == b"\x07"


ENUM_SPEC = """\
format: enum_named
title: An enum whose members are named as the module's tables
doc: An entry with one more byte for some kinds.
endian: be
default_record: entry
enums:
  kind:
    doc: "Members named as kind's own tables (_KIND_BY_VALUE, _KIND_BY_BYTE, _KIND_NAME) and
      as a struct (enum le, member U16: _LE_U16)."
    type: u8
    values:
      NAME: {value: 1, doc: "A name."}
      BY_VALUE: {value: 2, doc: "By value."}
      BY_BYTE: {value: 3, doc: "By byte."}
      PLAIN: {value: 4, doc: "No extra byte."}
  le:
    doc: A member named as a struct.
    type: u8
    values:
      U16: {value: 1, doc: "A u16."}
records:
  entry:
    doc: An entry.
    fields:
      - {name: k, type: u8, enum: kind, doc: "Its kind."}
      - {name: size, type: u16, doc: "A size."}
      - {name: extra, type: u8, if: "k == kind.BY_VALUE or k == kind.NAME or k == kind.BY_BYTE",
         doc: "An extra byte of some kinds."}
      - {name: order, type: u8, enum: le, valid: "order == le.U16", doc: "Always U16."}
"""
ENUM_MESSAGES = [bytes([k, 0, 5, 9, 1]) for k in (1, 2, 3)] + [bytes([4, 0, 5, 1])]


def test_enum_members_named_as_the_modules_tables_are_values_of_their_own(tmp_path):
    """``_KIND_BY_VALUE`` was both kind's table and member BY_VALUE's value (the fast path
    compared a kind with the table, so it never read the extra byte); each tier's module."""
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "enum_named.yaml").write_text(ENUM_SPEC)
    assert main(["generate", "--specs", str(specs), "--out", str(tmp_path / "pkg")]) == 0
    assert _twice((tmp_path / "pkg" / "_compiled" / "enum_named.pyx").read_text()) == []
    module = import_module(tmp_path / "pkg" / "enum_named.py", "user_enum_named")
    for data in ENUM_MESSAGES:
        model = module.parse(data)
        assert model.extra == (9 if data[0] < 4 else None) and module.build(model) == data
        assert module.FAST_READERS["entry"](data, 0, len(data), DEFAULT, 1) == (model, len(data))


@pytest.fixture(scope="module")
def enum_named(tmp_path_factory):
    """The spec's module with its compiled extension beside it (~15 s to build)."""
    return compiled_user_module(tmp_path_factory, "enum_named", ENUM_SPEC)


@pytest.mark.parametrize("data", ENUM_MESSAGES, ids=lambda d: d.hex())
def test_enum_members_named_as_the_modules_tables_compile_and_round_trip(enum_named, data):
    model = enum_named.parse(data)
    assert enum_named.COMPILED_READERS["entry"](data, enum_named._LIMITS) == model
    out = bytearray()
    enum_named.COMPILED_WRITERS["entry"](model, out)
    assert bytes(out) == data
