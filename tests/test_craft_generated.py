"""generated/ticdc_craft.py: the module contract, the fast path against the checked path,
the CLI round trip, Spark rows, and the spec driving the runtime."""

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generated import ticdc_craft as craft
from generated.models.ticdc_types import Column, DdlEvent, ResolvedEvent, RowChangedEvent
from generator.cli.main import main as cli
from runtime.core.errors import DecodeError, EncodeError, SpecError
from runtime.core.limits import DEFAULT
from runtime.core.unmap import GiveUp, give_up
from runtime.core.value_kinds import ValueKinds
from runtime.formats import craft as rt_craft

VECTORS = json.loads(
    (Path(__file__).resolve().parent / "data/vectors/ticdc_craft.json").read_text()
)
DATA = {v["name"]: bytes.fromhex(v["hex"]) for v in VECTORS}
TERMS = craft.DICTIONARIES["frame.term_dictionary"]
MAPPING = craft.MAPPINGS["message"]
WAY_BACK = craft.UNMAPPINGS["message"]
VALUES = craft.VALUE_DECODERS["column_group.values"]
CHECKED = rt_craft.CraftMessage(craft.frame, VALUES, TERMS, MAPPING, WAY_BACK, fast=False)


def with_codes(kinds, codes):
    """The same value kinds over another code table."""
    return ValueKinds(kinds.noun, kinds.kinds, codes, kinds.unsigned, kinds.byte_order)


def fast_only(data):
    """The fast path alone: the generated frame reader and the quick mapping, without the
    checked mapping behind it (raises where the quick mapping gives up)."""
    model, _ = craft._read_frame(data, 0, len(data), DEFAULT, 1)
    return MAPPING(model, give_up, craft._CRAFT_MESSAGE.values.quick_values)


def outcome(decode, data):
    try:
        return "ok", decode(data)
    except DecodeError as err:
        return type(err).__name__, err.offset, err.path


def checked(data):
    """The checked path's outcome, with the path as the module names it (``events.…``)."""
    result = outcome(CHECKED.decode, data)
    if result[0] == "ok":
        return result
    kind, offset, path = result
    return kind, offset, "events" + ("." + path if path and path[0] != "[" else path)


# ------------------------------------------------------------------------ the contract
@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v["name"])
def test_vector_through_the_generated_module(vector, tmp_path):
    data = bytes.fromhex(vector["hex"])
    model = craft.parse(data)
    want = vector["decoded"]["events"]
    assert [ev.commit_ts for ev in model.events] == [w["commit_ts"] for w in want]
    assert [ev.op for ev in model.events] == [
        {2: "ddl", 3: "resolved"}.get(w["type"], "update" if len(w.get("column_groups", ())) == 2
                                      else "insert") for w in want
    ]  # fmt: skip
    assert craft.build(model) == data
    # the fast path found no reason to give up, and agrees with the checked path
    assert fast_only(data) == model.events == CHECKED.decode(data)
    assert list(craft.decode_message(data)) == model.events
    # the JSON form survives a trip through text, and the CLI is its inverse
    document = json.loads(json.dumps(craft.to_dict(model)))
    assert craft.build(craft.from_dict(document)) == data
    (tmp_path / "in.bin").write_bytes(data)
    assert cli(["decode", "ticdc_craft", str(tmp_path / "in.bin")]) == 0


def test_cli_decode_encode_is_byte_exact(tmp_path, capsys):
    for name, data in DATA.items():
        (tmp_path / "m.bin").write_bytes(data)
        assert cli(["decode", "ticdc_craft", str(tmp_path / "m.bin")]) == 0
        (tmp_path / "m.json").write_text(capsys.readouterr().out)
        out = tmp_path / "m.out"
        assert cli(["encode", "ticdc_craft", str(tmp_path / "m.json"), "-o", str(out)]) == 0
        assert out.read_bytes() == data, name


def test_cli_bad_input_names_offset_and_path(tmp_path, capsys):
    (tmp_path / "bad.bin").write_bytes(DATA["seed_row_changed_update"][:150])
    assert cli(["decode", "ticdc_craft", str(tmp_path / "bad.bin")]) != 0
    err = capsys.readouterr().err
    assert "offset" in err and "field" in err and "Traceback" not in err


def test_seed_examples():
    row, ddl, resolved = (DATA[n] for n in ("seed_row_changed_update", "seed_ddl", "seed_resolved"))
    assert (len(row), len(ddl), len(resolved)) == (301, 41, 20)
    (ev,) = craft.parse(row).events
    assert (ev.op, ev.commit_ts, ev.schema, ev.table, ev.partition) == (
        "update", 424316552636792833, "a", "b", None)  # fmt: skip
    assert [(c.name, c.type, c.value) for c in ev.new] == [
        ("varchar", craft.ColumnType.VARCHAR, b"varchar1"),
        ("string", craft.ColumnType.STRING, b"string1"),
        ("date", craft.ColumnType.DATE, "2021/01/02"),
        ("timestamp", craft.ColumnType.TIMESTAMP, "2021/01/02 00:00:00"),
        ("datetime", craft.ColumnType.DATETIME, "2021/01/02 00:00:00"),
        ("float", craft.ColumnType.FLOAT, 2.0),
        ("long", craft.ColumnType.LONG, 2000),
        ("null", craft.ColumnType.NULL, None),
    ]
    assert craft.parse(ddl).events == [
        DdlEvent(424316583965360129, "a", "b", craft.DdlType.CREATE_SCHEMA, "create table a")
    ]
    assert craft.parse(resolved).events == [ResolvedEvent(424316594097225729)]


def test_the_spec_tables_drive_the_runtime():
    table = craft.COLUMN_TYPE_CRAFT
    assert table[craft.ColumnType.YEAR] == "sint" and table[craft.ColumnType.LONGLONG] == "int"
    assert table[craft.ColumnType.GEOMETRY] == "null" and table[craft.ColumnType.FLOAT] == "float64"
    assert craft._CRAFT_MESSAGE.encodings == {int(k): v for k, v in table.items()}
    # a table without a code makes that code unknown: decoding and encoding refuse it
    narrow = with_codes(VALUES, {k: v for k, v in table.items() if k != 15})
    narrow = rt_craft.CraftMessage(craft.frame, narrow, TERMS, MAPPING, WAY_BACK)
    with pytest.raises(DecodeError, match="unknown column type code 15") as err:
        narrow.decode(DATA["seed_row_changed_update"])
    assert err.value.path == "events[0].new[0].type" and err.value.offset == 24  # no record
    with pytest.raises(EncodeError):
        narrow.encode([RowChangedEvent(1, "s", "t", new=[Column("c", 15, 0, b"x")])])
    with pytest.raises(SpecError):
        with_codes(VALUES, {3: "int32"})


def test_spark_rows_are_accepted_by_the_schema():
    from pyspark.sql.types import _make_type_verifier

    verify = _make_type_verifier(craft.spark_schema())
    batch = [
        RowChangedEvent(5, "db", "t", 7, new=[Column("u", 8, 0x80, 2**64 - 1),
                                               Column("i", 8, 0, -(2**63)),
                                               Column("f", 5, 0, 1.5), Column("b", 252, 1, b"\x00"),
                                               Column("d", 246, 0, "1.50"), Column("n", 3, 0, None)],
                        old=[Column("u", 8, 0x80, 0)]),
    ]  # fmt: skip
    models = [craft.parse(m) for m in craft.encode_events(batch)]
    models += [craft.parse(data) for data in DATA.values()]
    rows = [row for m in models for row in craft.to_rows(m)]
    assert len(rows) == 1 + len(DATA)
    for row in rows:
        verify(row)
    assert rows[0][0] == "update" and rows[0][2] == 7


# --------------------------------------------------------------- fast path vs checked
def _events():
    kinds = sorted(craft.COLUMN_TYPE_CRAFT.items())
    values = {
        "varint": st.integers(-(2**63), 2**63 - 1),
        "uvarint": st.sampled_from([0, 1, 127, 128, 2**63, 2**64 - 1]) | st.integers(0, 2**64 - 1),
        "f64": st.floats(allow_nan=False),
        "str": st.text(max_size=6),
        "bytes": st.binary(max_size=6),
        "null": st.none(),
    }

    @st.composite
    def column(draw):
        code, kind = draw(st.sampled_from(kinds))
        flags = draw(st.sampled_from([0, 0x80, 0x01, 0xFF, 300]))
        kind = VALUES.wire_type(code, flags)
        value = draw(st.none() | values[kind])
        return Column(draw(st.sampled_from(["id", "v", "长", "x" * 130])), int(code), flags, value)

    images = st.none() | st.lists(column(), max_size=4)
    row = st.builds(
        RowChangedEvent,
        st.integers(0, 2**64 - 1),
        st.sampled_from(["s", "s2", None]),
        st.sampled_from(["t", "t2", None]),
        st.none() | st.integers(0, 2**63 - 1),
        images,
        images,
    ).filter(lambda ev: ev.new is not None or ev.old is not None)
    other = st.builds(DdlEvent, st.integers(0, 2**64 - 1), st.sampled_from(["s", None]),
                      st.sampled_from(["t", None]), st.integers(0, 2**64 - 1), st.text(max_size=8)) \
        | st.builds(ResolvedEvent, st.integers(0, 2**64 - 1))  # fmt: skip
    return st.lists(row, min_size=1, max_size=6) | other.map(lambda ev: [ev])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_events())
def test_fast_and_checked_paths_agree_on_generated_messages(events):
    (data,) = craft.encode_events(events, max_batch_size=100)
    decoded = fast_only(data)  # the fast path must not give up on a valid message
    assert decoded == CHECKED.decode(data) == craft.parse(data).events
    assert [e.commit_ts for e in decoded] == [e.commit_ts for e in events]  # any order of ts
    assert craft.build(craft.parse(data)) == data
    # the fast encoder writes what the checked one writes
    assert [data] == list(CHECKED.encode_events(events, max_batch_size=100))
    assert craft._CRAFT_MESSAGE.encode(events) == CHECKED.encode(events) == data


def test_the_fast_encoder_leaves_unusual_values_to_the_checked_one():
    odd = RowChangedEvent(
        7, "s", "t", new=[Column("a", craft.ColumnType.LONG, craft.ColumnFlag.UNSIGNED, 5),
                          Column("b", 15, 0, bytearray(b"xy")), Column("c", 5, 0, 1.0)],
    )  # fmt: skip
    plain = RowChangedEvent(7, "s", "t", new=[Column("a", 3, 0x80, 5), Column("b", 15, 0, b"xy"),
                                              Column("c", 5, 0, 1.0)])  # fmt: skip
    with pytest.raises(GiveUp):  # the quick way back leaves them to the checked one
        WAY_BACK.unmap(odd, give_up, VALUES)
    assert list(craft.encode_events([odd])) == list(CHECKED.encode_events([plain]))
    with pytest.raises(EncodeError) as err:
        list(
            craft.encode_events(
                [plain, RowChangedEvent(8, "s", "t", new=[Column("x", 3, 0, 2**63)])]
            )
        )
    assert err.value.path == "events[1].new[0].value"


def test_decreasing_commit_ts_and_unsigned_extremes():
    events = [
        RowChangedEvent(2**64 - 1, "s", "t", 3, new=[Column("u", 8, 0x80, 2**64 - 1)]),
        RowChangedEvent(
            0, "s", "t", None, old=[Column("u", 8, 0x80, 0), Column("y", 13, 0x80, -1)]
        ),
        RowChangedEvent(5, "s", "t", 2**63 - 1, new=[Column("i", 8, 0, -(2**63))]),
    ]
    (data,) = craft.encode_events(events)
    assert fast_only(data) == CHECKED.decode(data) == events


@pytest.mark.parametrize("name", sorted(DATA))
def test_truncations_raise_the_same_error_on_both_paths(name):
    data = DATA[name]
    for cut in range(len(data)):
        fast, slow = outcome(craft.parse, data[:cut]), checked(data[:cut])
        assert fast == slow and fast[0] in ("DecodeError", "LimitError"), (cut, fast, slow)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(DATA)), st.randoms(use_true_random=False))
def test_corrupt_messages_raise_the_same_error_on_both_paths(name, rnd):
    data = bytearray(DATA[name])
    for _ in range(rnd.randint(1, 3)):
        data[rnd.randrange(len(data))] = rnd.choice(
            [0x00, 0x01, 0x7F, 0x80, 0xFF, rnd.randrange(256)]
        )
    data = bytes(data)
    fast, slow = outcome(craft.parse, data), checked(data)
    if fast[0] == "ok":  # compared by repr: a corrupt float may be a NaN, never == itself
        assert slow[0] == "ok" and repr(fast[1].events) == repr(slow[1])
    else:
        assert fast == slow


def test_the_fast_path_never_accepts_what_the_checked_path_refuses():
    rnd = random.Random(5)
    refused = 0
    for _ in range(3000):
        data = bytearray(rnd.choice(list(DATA.values())))
        data[rnd.randrange(len(data))] = rnd.randrange(256)
        try:
            want = CHECKED.decode(bytes(data))
        except DecodeError:
            refused += 1
            with pytest.raises(Exception):  # noqa: B017 - any reason to give up will do
                fast_only(bytes(data))
            continue
        try:
            assert fast_only(bytes(data)) == want
        except GiveUp:
            pass  # allowed: the fallback then answers
    assert refused > 1000


@pytest.mark.parametrize(
    "mutate, path",
    [
        (lambda d: b"\x02" + d[1:], "version"),  # bad version
        (lambda d: d[:-2] + b"\x05\x85", "size_tables"),  # length 645: points outside
        (lambda d: d[:16] + b"\x7e" + d[17:], "bodies[0].column_groups[0].names"),  # term id 63
        (lambda d: d[:1] + b"\xff" * 10 + d[11:], "header.commit_ts"),  # overflowing varint
        (lambda d: d[:15] + b"\x07" + d[16:], "bodies[0].column_groups[0]"),  # count vs size table
    ],
)
def test_bad_input_is_a_decode_error_with_offset_and_path(mutate, path):
    data = mutate(DATA["seed_row_changed_update"])
    with pytest.raises(DecodeError) as err:
        craft.parse(data)
    assert err.value.offset is not None and err.value.path
    assert outcome(craft.parse, data) == checked(data)
    assert err.value.path.startswith("events." + path), err.value


def test_limits_reach_the_fast_path():
    data = DATA["seed_row_changed_update"]
    for limits in ({"max_count": 3}, {"max_string": 5}, {"max_message_bytes": 300}):
        with pytest.raises(DecodeError):
            craft.parse(data, **limits)
    assert craft.parse(data, max_count=10).events == craft.parse(data).events


def test_every_frame_sample_becomes_a_spark_row():
    """A frame's fields read only ``if:`` their event is a row change (column groups) or a
    DDL (ddl_type) are null columns for the other events, not a failed conversion."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    schema = to_arrow_schema(craft.spark_schema("frame"))
    samples = sorted((Path(__file__).parent.parent / "samples" / "ticdc_craft").glob("*.bin"))
    assert samples
    for path in samples:
        rows = list(craft.to_rows(craft.parse(path.read_bytes(), "frame"), "frame"))
        assert len(rows) == 1
        assert pa.Table.from_pylist([dict(zip(schema.names, rows[0]))], schema).num_rows == 1
