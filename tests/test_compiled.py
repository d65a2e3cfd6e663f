"""The compiled tier (``generated/_compiled/<format>.pyx``, generator/emit/compiled.py) held to the
Python quick tier: on every input it takes exactly what ``_quick_<record>`` takes, with the
model of the exact reader (and on the samples, of the construct path: tests/test_fastpath.py
holds the exact reader to construct on the rest). Tests of the built
extension skip when it is not built (pure Python, or no compiler); the plan and the
rendering are tested either way."""

from __future__ import annotations

import dataclasses
import importlib
import pickle
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.cli.fuzz import tier_readers
from generator.emit.compiled import CompiledEmitter
from generator.emit.generate import ROOT, generate
from generator.emit.lowering import Lowering
from generator.spec.loader import load
from generator.spec.validate import build_model
from runtime.core.limits import DEFAULT
from tests.test_fastpath import Same, inputs
from tests.test_quicktier import drawn_craft_column_groups, exact, mutated_sample, quick

FORMATS = sorted(p.stem for p in (ROOT / "generated" / "_compiled").glob("*.pyx"))


def built(fmt: str):
    """The generated module, when its compiled tier is built and bound."""
    module = importlib.import_module(f"generated.{fmt}")
    if not getattr(module, "COMPILED_READERS", None):
        pytest.skip(f"the compiled tier of {fmt} is not built")
    return module


def agree(module, data: bytes, record: str, limits=DEFAULT) -> bool:
    """Whether the compiled reader took ``data``; it must take what the quick tier takes,
    with the same model, and the construct path must give that model too (a record with
    ``map:``, which has no quick tier, may decline anything: tests/test_craft_compiled.py)."""
    got = module.COMPILED_READERS[record](data, limits)
    if record not in module.QUICK_READERS:  # a map: record: it declines, or is construct's
        if got is not None:
            assert Same(module, got) == Same(module, module.parse_construct(data, record))
        return got is not None
    deep_enough = module.QUICK_READERS[record][1] <= limits.max_depth
    want = quick(module, data, record, limits) if deep_enough else None
    assert (got is None) == (want is None), "compiled and quick tiers disagree"
    if got is None:
        return False
    assert Same(module, got) == Same(module, want)
    assert Same(module, got) == Same(module, exact(module, data, record)[0])
    return True


def test_plainbuffer_is_compiled():
    assert "plainbuffer" in FORMATS
    spec = build_model(load(ROOT / "specs" / "plainbuffer.yaml"))
    assert CompiledEmitter(spec).entries == ["cell", "row", "message"]


def test_the_plan_of_a_plainbuffer_cell():
    spec = build_model(load(ROOT / "specs" / "plainbuffer.yaml"))
    plan = Lowering(spec).plans["cell"]
    assert plan.describe() == _CELL_PLAN


_CELL_PLAN = """\
cell -> Cell, nesting depth 2, entry
  tag 0x03
  field name (line 86)
    tag 0x04
    length n1: s32
    str f_name: n1 bytes utf8, <= max_string, within end, kept
  field value (line 91)
    optional tag 0x05 before end (else f_value = None)
      length n2: s32
      record f_value: cell_value within n2 bytes (end3), inline, kept
        field type (line 120)
          u8 v4_type in enum value_type
        field value (line 124)
          switch v4_value on v4_type (ValueType)
            case ValueType.INTEGER (0x0)
              s64 v4_value
            case ValueType.DOUBLE (0x1)
              f64 v4_value
            case ValueType.BOOLEAN (0x2)
              bool v4_value
            case ValueType.STRING (0x3)
              length n5: s32
              str v4_value: n5 bytes utf8, <= max_string, within end3
            case ValueType.BLOB (0x7)
              length n6: s32
              bytes v4_value: n6 bytes, <= max_string, within end3
            default: None
        f_value = CellValue(v4_type, v4_value)
  field op (line 97)
    optional tag 0x06 before end (else f_op = None)
      u8 f_op in enum cell_op, kept
  field timestamp (line 103)
    optional tag 0x07 before end (else f_timestamp = None)
      s64 f_timestamp, kept
  field checksum (line 109)
    tag 0x0a
    u8 f_checksum
    checksum f_checksum == crc8
      bytes of f_name
      bytes of f_value (when present)
      bytes of f_timestamp (when present)
      bytes of f_op (when present)
  model = Cell(f_name, f_value, f_op, f_timestamp, f_checksum)"""


def test_every_mysql_record_has_a_plan():
    """The binlog file too: a switch on a plain number sized by an expression, and a
    CRC-32 trailer there when the format description says so."""
    spec = build_model(load(ROOT / "specs" / "mysql_serialization.yaml"))
    lowering = Lowering(spec)
    assert set(lowering.plans) == {
        "format_description_event",  # its post_header_lengths: a size computed from fields
        "gtid_tagged_body",
        "gtid_tagged_event",
        "gtid_tagged_event_no_checksum",
        "binlog_file",  # binlog_event reads its parent: planned inline in the file only
        "gtid_body",  # its fields after `if: bytes_left()` test `pos < end`
        *("gtid_commit_timestamps", "uint56", "packed_integer", "uint24"),
        "gtid_server_versions",
    }
    assert lowering.refused == {}
    assert lowering.entries == [  # a planned record no other reads is an entry too
        "gtid_tagged_body",
        "gtid_body",
        "gtid_tagged_event",
        "gtid_tagged_event_no_checksum",
        "binlog_file",
    ]
    text = lowering.plans["binlog_file"].describe()
    assert "        size n7 = v6_event_size - 19 - (4 if v1_checksum_alg == 1 else 0)" in text
    assert "        value v6_body: within n7 bytes (end8), inline, kept" in text
    assert "          switch v6_body on v6_type_code (EventType)" in text
    assert "        when when9 = v1_checksum_alg == 1 (else v6_crc32 = None)" in text
    assert "          checksum v6_crc32 == crc32" in text  # inside the when: only when read


def test_the_plan_of_a_mysql_message_and_its_event():
    """A mysql::serialization message is keyed fields in a plan of its own; the event
    around it sizes it by an expression and checks a CRC-32 over the bytes in place."""
    spec = build_model(load(ROOT / "specs" / "mysql_serialization.yaml"))
    lowering = Lowering(spec)
    body = lowering.plans["gtid_tagged_body"].describe().splitlines()
    assert body[0] == "gtid_tagged_body -> GtidTaggedBody, nesting depth 0, entry"
    assert "    keyed field 7 f_original_commit_timestamp before end (absent: None)" in body
    assert "  f_original_commit_timestamp = f_immediate_commit_timestamp when None" in body
    assert "      repeat f_uuid: values 16 times, within end, <= max_count, inline" in body
    event = lowering.plans["gtid_tagged_event"].describe()
    assert "    size n1 = f_event_size - 23" in event
    assert "    checksum f_crc32 == crc32" in event
    assert CompiledEmitter(spec).entries == [
        "gtid_tagged_body",
        "gtid_body",
        "gtid_tagged_event",
        "gtid_tagged_event_no_checksum",
        "binlog_file",
    ]
    untagged = lowering.plans["gtid_body"].describe().splitlines()
    assert "    when when7 = pos < end (else f_commit_timestamps = None)" in untagged


def test_generate_check_fails_on_an_edited_pyx(tmp_path):
    specs, out = tmp_path / "specs", tmp_path / "generated"
    specs.mkdir()
    (out / "_compiled").mkdir(parents=True)
    shutil.copy(ROOT / "specs" / "plainbuffer.yaml", specs)
    assert {o.status for o in generate(specs, out, check=False)} == {"written"}
    pyx = out / "_compiled" / "plainbuffer.pyx"
    assert "DO NOT EDIT" in pyx.read_text().splitlines()[0]
    pyx.write_text(pyx.read_text().replace("return None", "return 0", 1))
    (out / "_compiled" / "gone.pyx").write_text("# left over\n")
    status = {o.path.name: o.status for o in generate(specs, out, check=True)}
    assert status == {"plainbuffer.py": "fresh", "plainbuffer.pyx": "edited", "gone.pyx": "orphan"}


def test_a_stale_build_is_not_bound():
    module = built("plainbuffer")
    extension = importlib.import_module("generated._compiled.plainbuffer")
    assert extension.bind({**vars(module), "COMPILED_PLAN": "other"}) == {}
    assert set(extension.bind(vars(module))) == {"cell", "row", "message"}


def test_bind_refuses_a_model_class_without_its_slots():
    """A namespace whose model class has the fields but not as slots is refused with the one
    TypeError of slots.pxd's ``slot_offset`` (every ``bind`` finds its slots with it)."""
    module = built("plainbuffer")
    extension = importlib.import_module("generated._compiled.plainbuffer")
    names = [f.name for f in dataclasses.fields(module.Cell)]
    try:
        with pytest.raises(TypeError, match=r"^Cell\.name is not a writable object slot$"):
            extension.bind({**vars(module), "Cell": dataclasses.make_dataclass("Cell", names)})
    finally:  # bind set the module's globals as far as it got
        assert set(extension.bind(vars(module))) == {"cell", "row", "message"}


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_compiled_tier_takes_every_sample(fmt):
    module = built(fmt)
    for record, data in inputs(fmt):
        record = record or module.DEFAULT_RECORD
        if record in module.COMPILED_READERS:
            assert agree(module, data, record), record
            construct = module.parse_construct(data, record)
            assert Same(module, module.COMPILED_READERS[record](data, DEFAULT)) == Same(
                module, construct
            )


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_compiled_tier_refuses_every_truncation(fmt):
    module = built(fmt)
    for record, data in inputs(fmt):
        record = record or module.DEFAULT_RECORD
        if record in module.COMPILED_READERS:
            for n in range(len(data)):
                agree(module, data[:n], record)


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_compiled_tier_takes_what_the_quick_tier_takes(fmt, data):
    module = built(fmt)
    mutated, record = mutated_sample(module, fmt, data)
    if record in module.COMPILED_READERS:  # (MySQL's files and unsummed events are not)
        agree(module, mutated, record)


@pytest.mark.parametrize("record", ["message", "row", "cell"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_compiled_tier_takes_every_generated_plainbuffer_model(record, data):
    module = built("plainbuffer")
    model = data.draw(module.strategies(record))
    assert agree(module, module.build(model, record), record)


def test_limits_and_errors_stay_the_python_ones():
    module = built("plainbuffer")
    data = max((d for _, d in inputs("plainbuffer")), key=len)
    for limits in ({"max_count": 1}, {"max_string": 2}, {"max_message_bytes": 4}, {"max_depth": 3}):
        assert agree(module, data, "message", DEFAULT.from_kwargs(limits, DEFAULT)) is False
        with pytest.raises(module.DecodeError) as compiled_tier:
            module.parse(data, **limits)
        assert compiled_tier.value.path is not None or compiled_tier.value.offset is not None
    # a huge limit is no limit (not an overflow)
    assert agree(module, data, "message", DEFAULT.from_kwargs({"max_string": 1 << 80}, DEFAULT))


def test_a_read_past_a_length_is_declined():
    module = built("plainbuffer")
    cell = module.Cell(
        name="n", value=module.CellValue(type=module.ValueType.INTEGER, value=7), timestamp=1
    )
    data = bytearray(module.build(cell, "cell"))
    length_at = 1 + 1 + 4 + 1 + 1  # cell tag, name tag, name length, "n", value tag
    data[length_at : length_at + 4] = (1).to_bytes(4, "little")
    assert module.COMPILED_READERS["cell"](bytes(data), DEFAULT) is None
    with pytest.raises(module.DecodeError, match="truncated") as err:
        module.parse(bytes(data), "cell")
    assert err.value.path == "value.value"


def test_bad_text_is_declined_not_raised():
    module = built("plainbuffer")
    data = bytearray(module.build(module.Cell(name="é"), "cell"))
    data[data.index("é".encode())] = 0xFF  # no longer UTF-8; the checksum is refused later
    assert module.COMPILED_READERS["cell"](bytes(data), DEFAULT) is None


def test_the_fuzzer_compares_the_tiers():
    module = built("plainbuffer")
    both = tier_readers(module, "message", {})
    data = max((d for _, d in inputs("plainbuffer")), key=len)
    mine, theirs = both(data)
    assert mine == theirs and mine is not None
    assert both(data[:-1]) == (None, None)


def test_the_pyx_names_its_spec_and_says_do_not_edit():
    text = Path(ROOT / "generated" / "_compiled" / "plainbuffer.pyx").read_text()
    first = text.splitlines()[0]
    assert first.startswith("# Code generated by wirespec") and "specs/plainbuffer.yaml" in first
    assert "DO NOT EDIT" in first
    assert "# specs/plainbuffer.yaml:86: name" in text


def test_parse_tries_the_compiled_readers_first_and_errors_stay():
    module = built("plainbuffer")
    python_parse = module.parse.__wrapped__  # the module's own parse, which decides declines
    for _, data in inputs("plainbuffer"):
        model = module.parse(data)
        assert model == module.parse(bytearray(data)) == python_parse(data)
        for bad in (data[:-1], data[:5] + bytes([data[5] ^ 0xFF]) + data[6:]):
            with pytest.raises(module.DecodeError) as compiled_first:
                module.parse(bad)
            with pytest.raises(module.DecodeError) as python_only:
                python_parse(bad)
            assert str(compiled_first.value) == str(python_only.value)
            assert compiled_first.value.offset == python_only.value.offset


def test_a_big_message_is_read_with_the_gc_paused_and_the_gc_as_it_was_after():
    """From 64 KiB on the reader pauses the cyclic GC; it leaves it as it found it, whether it
    takes the message, declines it, or the GC was off already."""
    import gc

    module = built("plainbuffer")
    message = module.parse(max((d for _, d in inputs("plainbuffer")), key=len))
    rows = message.rows * (1 + (1 << 17) // len(module.build(message)))
    data = module.build(module.Message(rows=rows))
    assert len(data) >= 1 << 16
    was = gc.isenabled()
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            assert agree(module, data, "message")
            assert gc.isenabled() is enabled
            assert not agree(module, data[:-1], "message")
            assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_parse_of_another_record_than_the_default_is_compiled_too():
    module = built("plainbuffer")
    message = module.parse(max((d for _, d in inputs("plainbuffer")), key=len))
    data = module.build(message.rows[0], "row")
    assert module.parse(data, "row") == message.rows[0]
    assert module.parse(data, record="row") == module.parse.__wrapped__(data, "row")


def test_parse_pickles_by_reference_as_before():
    module = built("plainbuffer")
    assert pickle.loads(pickle.dumps(module.parse)) is module.parse


@pytest.mark.parametrize(
    "fmt, record",
    [
        ("avro_container", "container_file"),
        ("avro_container", "page_view"),
        ("kafka_record_batch", "log_segment"),
        ("msgpack", "stream"),
        ("msgpack", "value"),
        ("png", "png_file"),
    ],
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_compiled_tier_takes_every_generated_gallery_model(fmt, record, data):
    module = built(fmt)
    model = data.draw(module.strategies(record))
    assert agree(module, module.build(model, record), record)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), cut=st.integers(0, 80), byte=st.integers(0, 255))
def test_the_compiled_tier_takes_every_generated_craft_column_group(data, cut, byte):
    craft = built("ticdc_craft")
    for wire in drawn_craft_column_groups(data):
        assert agree(craft, wire, "column_group")
        agree(craft, wire[:cut], "column_group")
        if cut < len(wire):
            agree(craft, wire[:cut] + bytes([byte]) + wire[cut + 1 :], "column_group")


@pytest.mark.parametrize(
    "varint, taken",
    [
        ("00", True),
        ("7f", True),
        ("8001", True),  # not the shortest form: taken, as read_uvarint takes it
        ("ff" * 9 + "01", True),  # 64 bits exactly
        ("ff" * 9 + "02", False),  # 65 bits
        ("80" * 10 + "00", False),  # 11 bytes
        ("ff" * 9, False),  # cut short
    ],
)
def test_varints_are_taken_and_refused_as_the_exact_reader_does(varint, taken):
    module = built("avro_container")
    counter = bytes.fromhex("02") + b"k" + bytes.fromhex(varint)  # key "k", then the value
    assert agree(module, counter, "counter") is taken
    if taken:
        assert agree(module, counter + b"\x00", "counter") is False  # a trailing byte


@pytest.mark.parametrize("max_depth", [2, 3, 4, 9, 64])
def test_msgpack_nesting_is_taken_exactly_as_deep_as_max_depth_allows(max_depth):
    """A recursive record's reader checks the depth it is read at: as deep as the exact
    reader reads, and no deeper (then declined, and the exact reader's LimitError)."""
    module = built("msgpack")
    limits = DEFAULT.from_kwargs({"max_depth": max_depth}, DEFAULT)
    taken = []
    for levels in range(40):
        data = b"\x91" * levels + b"\xc0"  # arrays of one, then nil
        deep = agree(module, data, "value", limits)
        assert deep is (exact(module, data, "value", limits) is not None)
        taken.append(deep)
    assert taken == sorted(taken, reverse=True) and any(taken) == (max_depth >= 2)


def test_msgpack_nesting_past_the_c_bound_is_declined():
    module = built("msgpack")
    limits = DEFAULT.from_kwargs({"max_depth": 10**6}, DEFAULT)
    data = b"\x91" * 5000 + b"\xc0"
    assert module.COMPILED_READERS["value"](data, limits) is None


def test_a_choice_falls_back_only_to_the_cases_its_table_leaves_open():
    """The first-byte table decides every byte whose first case is that byte alone; the
    fallback runs for the other bytes only, so it tests only the cases they may start
    (msgpack's c7, d6, d7: a timestamp, else the ext), in order."""
    from generator.emit.compiled_moving import MovingSteps

    cases = [
        (b"\x00", b"\x80", "positive_fixint"),
        (b"\xd6\xff", b"\xff\xff", "timestamp32"),
        (b"\xd6", b"\xff", "fixext4"),
        (b"\xd7", b"\xff", "fixext8"),
    ]
    text = MovingSteps.picker("_T", "_Reader", cases)
    fallback = text.split("for _i")[0]
    assert "_read_positive_fixint" not in fallback and "_read_fixext8" not in fallback
    assert fallback.index("_read_timestamp32") < fallback.index("_read_fixext4")
    assert "for _i in range(0xd7, 0x0d8):\n    _T[_i] = _read_fixext8" in text
