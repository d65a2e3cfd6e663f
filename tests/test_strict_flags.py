"""Strict flags enums on integer fields (``flags: true`` without ``open: true``): 0 and any
set of the enum's flags read as its IntFlag, a bit no flag names is a DecodeError with
offset and path, and every writer refuses one. Every tier against construct's oracle (fast
path, quick tier, fast writers; the compiled readers and writers of a user's build), the
JSON form, the Spark rows and the compiled Arrow writers (the names of the set flags, an
empty list for none)."""

from __future__ import annotations

import itertools
import re

import pytest

from runtime.core import tier
from runtime.core.errors import DecodeError, EncodeError
from runtime.core.fast import Retry
from runtime.core.limits import DEFAULT
from tests.test_fastbuild import written
from tests.test_process import spec_module
from tests.user_packages import compiled_user_module

SPEC = """\
format: strictflags
title: Strict flags enums
doc: A message whose flags bytes take any set of their flags and nothing else.
endian: be
default_record: message
enums:
  message_flag:
    doc: A message's flags.
    type: u8
    flags: true
    values:
      URGENT: {value: 0x01, doc: "read it first"}
      SIGNED: {value: 0x02, doc: "a signature follows"}
      ARCHIVED: {value: 0x10, doc: "kept after reading"}
  wide_flag:
    doc: Flags over two bytes.
    type: u16
    flags: true
    values:
      LOW: {value: 0x0001, doc: "a flag in the low byte"}
      HIGH: {value: 0x0100, doc: "a flag in the high byte"}
      TOP: {value: 0x8000, doc: "the top bit"}
records:
  message:
    doc: A message with a one-byte and a two-byte flags field.
    fields:
      - {name: id, type: u8, doc: "The message id."}
      - {name: flags, type: u8, enum: message_flag, doc: "The message's flags."}
      - {name: wide, type: u16, enum: wide_flag, doc: "Flags over two bytes."}
"""

FLAGS = [0x01, 0x02, 0x10]
WIDE = [0x0001, 0x0100, 0x8000]


def combinations(bits):
    """Every set of ``bits`` (the empty one too) as an int."""
    return [sum(chosen) for n in range(len(bits) + 1) for chosen in itertools.combinations(bits, n)]


def message(flags: int, wide: int) -> bytes:
    return bytes([7, flags]) + wide.to_bytes(2, "big")


ACCEPTED = [message(f, w) for f in combinations(FLAGS) for w in combinations(WIDE)]
UNKNOWN = [  # (bytes, offset, path, message)
    (message(0x04, 0), 1, "flags", "4 (0x04) is not a known MessageFlag"),
    (message(0x83, 0), 1, "flags", "131 (0x83) is not a known MessageFlag"),
    (message(0, 0x0002), 2, "wide", "2 (0x02) is not a known WideFlag"),
    (message(0, 0x4100), 2, "wide", "16640 (0x4100) is not a known WideFlag"),
]


@pytest.fixture(scope="module")
def flags(tmp_path_factory):
    return spec_module(tmp_path_factory, "strictflags_enums", SPEC)


def quick(module, data):
    model, pos = module.QUICK_READERS["message"][0](data, 0, len(data), module._LIMITS)
    assert pos == len(data)
    return model


@pytest.mark.parametrize("data", ACCEPTED, ids=[d.hex() for d in ACCEPTED])
def test_every_set_of_flags_reads_as_the_flag_and_writes_back(flags, data):
    model = flags.parse(data)
    assert flags.parse_construct(data) == model == quick(flags, data)
    assert type(model.flags) is flags.MessageFlag and model.flags == data[1]
    assert type(model.wide) is flags.WideFlag and model.wide == int.from_bytes(data[2:], "big")
    assert flags.build(model) == written(flags, model, "message") == data
    assert flags.build_construct(model) == data
    assert flags.build(flags.from_dict(flags.to_dict(model))) == data


def test_the_byte_table_holds_every_set_that_fits_in_a_byte(flags):
    """What the compiled readers, Arrow names and writers are built from (one method)."""
    table = flags._MESSAGE_FLAG_BY_VALUE.byte_table()
    assert type(table) is dict and sorted(table) == sorted(combinations(FLAGS))
    assert all(type(m) is flags.MessageFlag and m == v for v, m in table.items())
    assert sorted(flags._WIDE_FLAG_BY_VALUE.byte_table()) == [0, 0x01]
    assert 0 not in flags._MESSAGE_FLAG_BY_VALUE.byte_table(named=True)


def test_no_flag_is_the_empty_value(flags):
    model = flags.parse(message(0, 0))
    assert model.flags is flags.MessageFlag(0) and not model.flags
    assert flags.to_dict(model)["flags"] == [] and flags.to_dict(model)["wide"] == []


def test_the_json_form_lists_the_names_of_the_set_flags(flags):
    form = flags.to_dict(flags.parse(message(0x12, 0x8001)))
    assert form["flags"] == ["SIGNED", "ARCHIVED"] and form["wide"] == ["LOW", "TOP"]


@pytest.mark.parametrize("data, offset, path, text", UNKNOWN, ids=[u[0].hex() for u in UNKNOWN])
def test_a_bit_no_flag_names_is_a_decode_error(flags, data, offset, path, text):
    for parse in (flags.parse, flags.parse_construct):
        with pytest.raises(DecodeError, match=re.escape(text)) as info:
            parse(data)
        assert (info.value.offset, info.value.path) == (offset, path)
    with pytest.raises((DecodeError, Retry)):  # the quick tier leaves it to the fast path
        quick(flags, data)


@pytest.mark.parametrize(
    "field, value", [("flags", 0x04), ("flags", 0x83), ("wide", 0x0002), ("flags", -1)]
)
def test_every_writer_refuses_a_bit_no_flag_names(flags, field, value):
    model = flags.parse(message(0x01, 0x0001))
    setattr(model, field, value)
    with pytest.raises(EncodeError):
        flags.build(model)
    with pytest.raises(KeyError):  # the fast writer leaves the build to construct's
        written(flags, model, "message")
    with pytest.raises(EncodeError, match="is not a (MessageFlag|WideFlag)") as info:
        flags.build_construct(model)
    assert info.value.path == field


BOOLS = [
    ("flags", True, "MessageFlag"),
    ("flags", False, "MessageFlag"),
    ("wide", True, "WideFlag"),
]


def refuses_a_bool(module, writer, field, value, enum):
    """``writer`` leaves a bool set on ``field`` to construct, and every build says it in
    one wording (Python takes True as 1, a flag's value)."""
    model = module.parse(message(0x01, 0x0001))
    setattr(model, field, value)
    with pytest.raises(TypeError):
        writer(model, bytearray())
    for build in (module.build, module.build_construct):
        with pytest.raises(EncodeError) as info:
            build(model)
        assert str(info.value) == f"{field}: expected a member of {enum}, got bool {value}"


@pytest.mark.parametrize("field, value, enum", BOOLS)
def test_every_writer_refuses_a_bool(flags, field, value, enum):
    refuses_a_bool(flags, flags.FAST_WRITERS["message"], field, value, enum)


def test_spark_rows_join_the_names_of_the_set_flags_and_no_flag_is_empty_not_null(flags):
    pytest.importorskip("pyspark")
    from pyspark.sql.types import StringType

    schema = {f.name: f.dataType for f in flags.spark_schema("message").fields}
    assert schema["flags"] == schema["wide"] == StringType()
    rows = [dict(zip(schema, row)) for row in flags.to_rows(flags.parse(message(0x12, 0)))]
    assert rows == [{"id": 7, "flags": "SIGNED|ARCHIVED", "wide": ""}]


# -- the compiled tier: a user's build of the spec ------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The spec's module with its compiled extension beside it (~15 s to build)."""
    return compiled_user_module(tmp_path_factory, "strictflags", SPEC)


NARROW_SPEC = SPEC[: SPEC.index("      - {name: wide")].replace(
    "format: strictflags", "format: strictflagsnarrow"
)
"""The spec without its two-byte flags field: the compiled Arrow writers take a flags
column of one byte and refuse one of two (``an enum column of no enum byte``), so the
whole spec has no Arrow writer and only this one tests the flags column there."""


@pytest.fixture(scope="module")
def built_narrow(tmp_path_factory):
    """:data:`NARROW_SPEC`'s module with its compiled extension beside it (~15 s to build)."""
    return compiled_user_module(tmp_path_factory, "strictflagsnarrow", NARROW_SPEC)


def test_the_compiled_readers_read_what_construct_does(built):
    reader = getattr(built, "COMPILED_READERS", {}).get("message")
    if reader is None:
        pytest.skip("no compiled reader for the record")
    for data in ACCEPTED:
        assert reader(data, built._LIMITS) == built.parse_construct(data), data.hex()
    for data, *_ in UNKNOWN:  # declined: the exact reader says which bit
        assert reader(data, built._LIMITS) is None
        with pytest.raises(DecodeError):
            built.parse(data)


def test_the_compiled_arrow_writers_write_the_rows(built_narrow):
    pa = pytest.importorskip("pyarrow")
    pytest.importorskip("pyspark")
    from pyspark.sql.pandas.types import to_arrow_schema

    built = built_narrow
    arrow = tier.compiled("runtime._compiled.arrow")
    assert "message" in built._COMPILED.bind_arrow(vars(built))
    fields = list(to_arrow_schema(built.spark_schema("message"), timezone="UTC"))
    for data in [bytes([7, flags]) for flags in combinations(FLAGS)]:
        out, counts = arrow.builder_for(pa.struct(fields)), []
        stopped = built._COMPILED.write_arrow(
            "message", pa.array([data]), 0, 1, out, counts, DEFAULT
        )
        assert stopped == 1, data.hex()
        got = out.finish()
        rows = list(built.to_rows(built.parse(data)))
        want = [pa.array(column, f.type) for column, f in zip(zip(*rows), fields)]
        assert [got.field(k) for k in range(len(fields))] == want, data.hex()


@pytest.mark.parametrize("field, value, enum", BOOLS)
def test_the_compiled_writers_refuse_a_bool(built, field, value, enum):
    writer = getattr(built, "COMPILED_WRITERS", {}).get("message")
    if writer is None:
        pytest.skip("no compiled writer for the record")
    refuses_a_bool(built, writer, field, value, enum)


def test_the_compiled_writers_write_every_set_and_refuse_a_bit_no_flag_names(built):
    """Sets past a byte (``HIGH|LOW``) too: the writer looks each value up in the enum's
    FlagMembers, not in a byte table, so none is left to construct."""
    writer = getattr(built, "COMPILED_WRITERS", {}).get("message")
    if writer is None:
        pytest.skip("no compiled writer for the record")
    for data in ACCEPTED:
        out = bytearray()
        writer(built.parse(data), out)
        assert bytes(out) == data, data.hex()
    for field, value in [("flags", 0x04), ("wide", 0x0002), ("wide", 0x4101)]:
        model = built.parse(message(0x01, 0x0001))
        setattr(model, field, value)
        with pytest.raises(KeyError):  # construct builds it and says why
            writer(model, bytearray())
        with pytest.raises(EncodeError, match="is not a (MessageFlag|WideFlag)"):
            built.build(model)
