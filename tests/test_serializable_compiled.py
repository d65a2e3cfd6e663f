"""The compiled tier of MySQL's mysql::serialization records and binlog files (every
record rendered from the lowering's plan into generated/_compiled/mysql_serialization.pyx,
the binlog file's row iterator too) is held to the Python readers: on
every vector, sample and binlog file, every truncation, byte mutations and property-generated
models, it gives the model ``parse_construct`` gives, or declines exactly where the Python
readers raise; ``build`` of its model gives the input back; ``iter_rows`` over a binlog file
yields the same events and then the same error. Skipped when the module is not built."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generated import mysql_serialization as ms
from runtime.core import codec as rt_codec
from runtime.core import tier
from runtime.core.errors import DecodeError
from runtime.core.msbvarint import encode_uvar
from tests.test_fastpath import Same, _event, _seed_body, mysql_binlog, mysql_inputs, outcome

COMPILED = tier.compiled("generated._compiled.mysql_serialization")
pytestmark = pytest.mark.skipif(
    COMPILED is None or not ms.COMPILED_READERS, reason="the compiled tier is not built"
)


def compiled_read(record: str, data, limits: dict):
    """The compiled reader of ``record`` with the limits of a ``parse`` call."""
    return ms.COMPILED_READERS[record](data, rt_codec.Limits.from_kwargs(limits, ms._LIMITS))


SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "mysql_serialization"


def all_inputs() -> list[tuple[str, bytes]]:
    """(record, bytes): the vectors and built inputs test_fastpath uses, and every sample
    (the binlog file among them)."""
    out = [
        ("binlog_file" if p.suffix == ".binlog" else ms.DEFAULT_RECORD, p.read_bytes())
        for p in sorted(SAMPLES.iterdir())
    ]
    out += mysql_inputs()
    out.append(("binlog_file", mysql_binlog(ms, True, n_events=7)))
    return out


INPUTS = all_inputs()
IDS = [f"{record}-{i}" for i, (record, _) in enumerate(INPUTS)]


def check(data: bytes, record: str, *, canonical: bool = False, **limits) -> str:
    """The compiled reader's model equals parse_construct's, or it declines where that
    raises or where the message is not as build writes it (kept as ``wire_form``); the
    generated ``parse`` (compiled first) gives the same outcome; ``build`` of the model
    gives ``data`` back. Returns ``"ok"`` or the error class."""
    oracle = outcome(lambda d, r: ms.parse_construct(d, r, **limits), data, record, ms)
    compiled = compiled_read(record, data, limits)
    if oracle[0] == "ok" and compiled is None:
        # a message not as build writes it (a varint longer than it needs, a field at its
        # default): the Python reader keeps its bytes (wire_form), the compiled one declines
        assert kept_forms(ms.to_dict(oracle[1].model)), "declined an input in the canonical form"
        if canonical or not limits:
            assert ms.build(oracle[1].model, record) == data
    elif oracle[0] == "ok":
        assert Same(ms, compiled) == oracle[1]
        if canonical or not limits:
            assert ms.build(compiled, record) == data
    else:
        assert compiled is None, f"took an input the Python readers reject: {oracle}"
    assert outcome(lambda d, r: ms.parse(d, r, **limits), data, record, ms) == oracle
    if record in ms.COMPILED_ROW_ITERATORS:
        check_rows(data, record, limits)
    return oracle[0]


def kept_forms(form) -> bool:
    """Whether a model's JSON form holds a message kept as read (a ``wire_form``)."""
    if isinstance(form, dict):
        return form.get("wire_form") is not None or any(map(kept_forms, form.values()))
    return isinstance(form, list) and any(map(kept_forms, form))


def rows_outcome(items) -> tuple[list, tuple | None]:
    """The events an iterator yields and the error it ends with (None: none)."""
    got = []
    try:
        got.extend(items)
    except DecodeError as err:
        return got, (type(err).__name__, err.offset, err.path)
    return got, None


def check_rows(data: bytes, record: str, limits: dict) -> None:
    """The compiled row iterator (where it takes the file) yields the Python rows
    generator's events and ends with its error."""
    python = rows_outcome(
        rt_codec.iter_fast(ms.FAST_ROW_ITERATORS[record], data, limits, ms._LIMITS)
    )
    items = ms.COMPILED_ROW_ITERATORS[record](data, limits)
    if items is not None:
        assert rows_outcome(items) == python


def test_every_record_is_rendered_from_the_plan():
    """generator/emit/lowering.py plans them and generated/_compiled/ reads them: the binlog
    file (a switch sized by an expression on a plain number, a conditional CRC-32) and its
    row iterator too; no hand-written table loop is left."""
    assert not hasattr(ms, "TABLE_READERS") and ms.FALLBACKS["compiled"].keys() == {
        "format_description_event",
        "binlog_event",
        "gtid_commit_timestamps",
        "gtid_server_versions",
        "packed_integer",
        "uint24",
        "uint56",
    }  # read inline in the file or the untagged GTID body (no reader of their own)
    assert set(ms.COMPILED_READERS) == {
        "gtid_body",
        "gtid_tagged_body",
        "gtid_tagged_event",
        "gtid_tagged_event_no_checksum",
        "binlog_file",
    }
    assert set(ms.COMPILED_ROW_ITERATORS) == {"binlog_file"}
    assert len(INPUTS) >= 12


@pytest.mark.parametrize("index", range(len(INPUTS)), ids=IDS)
def test_inputs_decode_to_the_same_model(index):
    record, data = INPUTS[index]
    assert check(data, record, canonical=True) == "ok"


@pytest.mark.parametrize("index", range(len(INPUTS)), ids=IDS)
def test_every_truncation_declines_or_agrees(index):
    record, data = INPUTS[index]
    for cut in range(len(data)):
        check(data[:cut], record)


@pytest.mark.parametrize("index", range(len(INPUTS)), ids=IDS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=4))
def test_mutations_decline_or_agree(index, mutations):
    record, data = INPUTS[index]
    data = bytearray(data)
    for where, byte in mutations:
        data[where % len(data)] = byte
    check(bytes(data), record)


@pytest.mark.parametrize("index", range(len(INPUTS)), ids=IDS)
def test_every_single_byte_flip_declines_or_agrees(index):
    """Each byte with its low bit flipped (varint forms, ids, sizes, CRCs), then replaced
    by 0xff (9-byte varints)."""
    record, data = INPUTS[index]
    for at in range(len(data)):
        for byte in (data[at] ^ 1, 0xFF):
            check(data[:at] + bytes([byte]) + data[at + 1 :], record)


@pytest.mark.parametrize(
    "limits",
    [{"max_string": 2}, {"max_depth": 1}, {"max_count": 3}, {"max_message_bytes": 50}, {"x": 1}],
)
def test_limits_given_per_call(limits):
    for record, data in INPUTS:
        try:
            check(data, record, **limits)
        except Exception as err:  # noqa: BLE001 - an unknown limit is the Python path's error
            assert "x" in limits and not isinstance(err, AssertionError), err


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=ms.strategies("gtid_tagged_body"), checksum=st.booleans())
def test_generated_models_agree(body, checksum):
    raw = ms.build(body, "gtid_tagged_body")
    assert check(raw, "gtid_tagged_body", canonical=True) == "ok"
    record = "gtid_tagged_event" if checksum else "gtid_tagged_event_no_checksum"
    data = ms.build(_event(ms, body, checksum=checksum), record)
    assert check(data, record, canonical=True) == "ok"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    files=st.lists(ms.strategies("gtid_tagged_body"), min_size=1, max_size=4),
    unknown=st.binary(max_size=6),
)
def test_generated_binlog_files_agree(files, unknown):
    """Files of generated bodies, the last with a newer writer's bytes after its fields."""
    data = mysql_binlog(ms, True, n_events=0)
    for i, body in enumerate(files):
        if i == len(files) - 1 and unknown:
            body.unknown_fields = b"\x30" + unknown  # field id 24: after every known one
            body.serializable_field_size = None
        data += ms.build(_event(ms, body, checksum=True), "gtid_tagged_event")
    assert check(data, "binlog_file", canonical=True) == "ok"


def test_rows_after_a_declined_event_come_from_the_python_reader():
    """An event this tier declines in the middle of a file (a bad CRC): the events before
    it are the compiled ones, then the Python reader's error, as ``iter_rows`` gives it."""
    good = mysql_binlog(ms, True, n_events=5)
    events = list(ms.iter_rows(good, "binlog_file"))
    assert len(events) == 5
    bad = bytearray(good)
    bad[-1] ^= 0xFF  # the last event's CRC-32
    check(bytes(bad), "binlog_file")
    rows = ms.iter_rows(bytes(bad), "binlog_file")
    assert [next(rows) for _ in range(4)] == events[:4]
    with pytest.raises(DecodeError) as err:
        next(rows)
    assert err.value.path == "events[4].crc32"


def test_seed_body_fields_are_in_their_slots():
    seed = _seed_body(ms)
    got = compiled_read("gtid_tagged_body", ms.build(seed, "gtid_tagged_body"), {})
    assert got.uuid == seed.uuid and got.tag == seed.tag and got.unknown_fields is None
    assert got.original_commit_timestamp == got.immediate_commit_timestamp


@pytest.mark.parametrize(
    "payload",
    [
        "0000" "02" + "0500" * 8 + "00",  # a UUID of 2-byte elements that runs out
        "0000" "02" + "00" * 15 + "0500",  # its last element one byte short
        "0000" "02" + "00" * 16 + "04" "ff" + "00" * 7,  # gno's 9-byte form cut short
        "0000" "02" + "00" * 16 + "0402" "06" "40" + "61" * 31,  # tag: 32 bytes announced, 31 there
    ],
)
def test_elements_and_lengths_that_run_past_the_end_decline(payload):
    payload = bytes.fromhex(payload)
    data = b"\x02" + encode_uvar(3 + len(payload)) + b"\x00" + payload
    assert check(data, "gtid_tagged_body") != "ok"


def test_bytearray_and_memoryview_input_are_read_as_their_bytes():
    """As a Spark binary column gives them; anything else is Python's TypeError."""
    for record, data in INPUTS:
        want = ms.parse_construct(data, record)
        for view in (bytearray(data), memoryview(data)):
            assert ms.parse(view, record) == want
        if record in ms.COMPILED_ROW_ITERATORS:
            assert list(ms.COMPILED_ROW_ITERATORS[record](bytearray(data), {})) == want.events
    assert ms.COMPILED_ROW_ITERATORS["binlog_file"]("not bytes", {}) is None
    with pytest.raises(TypeError):
        ms.parse("not bytes", record)


def test_events_share_their_repeated_ints_and_keep_their_own_values():
    """An int a field had in the event before is the same object again (ints are
    immutable); a value that differs is its own, whichever event came before."""
    seed = ms.build(_event(ms, _seed_body(ms), checksum=True), "gtid_tagged_event")
    other = ms.build(
        _event(ms, _seed_body(ms, immediate_server_version=80400), checksum=True),
        "gtid_tagged_event",
    )
    first = ms.parse(seed)
    again = ms.parse(seed)
    assert again.body.immediate_server_version is first.body.immediate_server_version
    assert again.timestamp is first.timestamp and again.crc32 is first.crc32
    assert ms.parse(other).body.immediate_server_version == 80400
    assert ms.parse(other) == ms.parse_construct(other)
    assert ms.parse(seed) == first == ms.parse_construct(seed)


def test_a_dropped_event_is_reused_and_a_held_one_never_changes():
    """parse writes the next event into the last one it returned when the caller has
    dropped it (and into its body and UUID list when nothing holds them); an event, body
    or UUID list a caller still holds keeps its values, and a read that declines half
    way leaves the next read right."""
    with_original = ms.build(
        _event(ms, _seed_body(ms, original_commit_timestamp=1, gno=7), checksum=True),
        "gtid_tagged_event",
    )
    seed = ms.build(_event(ms, _seed_body(ms), checksum=True), "gtid_tagged_event")
    other = ms.build(
        _event(ms, _seed_body(ms, uuid=list(range(16)), tag="", gno=-3), checksum=True),
        "gtid_tagged_event",
    )
    expected = {data: ms.parse_construct(data) for data in (with_original, seed, other)}

    def reader(data, limits):
        return compiled_read("gtid_tagged_event", data, limits)

    first = ms.parse(with_original)
    first_id = id(first)
    del first
    reused = ms.parse(seed)  # written into the dropped event: the default comes back
    assert id(reused) == first_id and reused == expected[seed]
    body, uuid = reused.body, reused.body.uuid
    del reused
    again = ms.parse(other)  # the event is reused, the held body and list are not
    assert again == expected[other] and body == expected[seed].body
    assert uuid == expected[seed].body.uuid and again.body is not body
    held = again
    del again
    assert ms.parse(with_original) == expected[with_original] and held == expected[other]
    del held
    bad = bytearray(other)
    bad[-1] ^= 0xFF  # the CRC-32: declined after the body is written
    assert reader(bytes(bad), {}) is None
    truncated = other[:19] + other[19:-4][:-1]  # the body's last byte missing
    assert reader(truncated, {}) is None
    rendered = ms.COMPILED_READERS["gtid_tagged_event"]  # parse's: it reuses through reuse.pxd
    assert rendered(bytes(bad), ms._LIMITS) is None and rendered(truncated, ms._LIMITS) is None
    for data in (seed, with_original, other, seed):
        assert ms.parse(data) == expected[data]
