"""Messages not in the form MySQL writes: varints longer than they need, optional fields
written at their default. MySQL's reader takes both (docs/reference/research/
mysql_serialization.md §1, §5.1: ``read_archive_binary`` reads any length a first byte
announces; an optional field's decoder never compares with the default), so they decode
here too, and every such input is written back byte for byte: the model ``parse``
returns keeps the message's bytes as ``wire_form`` (None for MySQL's own form, and in the
records inside: ``runtime.core.kept``), and both writers write them back while the model
still reads as them. The quick and compiled tiers decline such a message (the Python
reader keeps its bytes), and agree with each other."""

from __future__ import annotations

import dataclasses
import json
import struct
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generated import mysql_serialization as ms
from generator.cli import fuzz
from runtime.core.errors import DecodeError
from runtime.core.msbvarint import decode_uvar, encode_uvar, encode_uvar_wide, uvar_size, zigzag
from tests.test_mysql_serialization import FUZZ_CRASHES, SEED_BODY

BODY = "gtid_tagged_body"
TIERS = fuzz.tier_readers(ms, BODY, {})
"""data -> (the compiled reader's model or None, the quick tier's), when built."""


def wire(body, extra=(), defaults: bool = False) -> bytes:
    """``body``'s message with its ``k``-th varint (ids and values, in wire order; not the
    header) ``extra[k]`` bytes longer (up to 9 in all), and, with ``defaults``, its
    optional fields written at their default: the forms MySQL's reader takes and its
    writer never writes."""
    extra = list(extra)
    fields = [
        (0, [body.gtid_flags]),
        (1, list(body.uuid)),
        (2, [zigzag(body.gno)]),
        (3, [len(body.tag.encode())], body.tag.encode()),
        (4, [zigzag(body.last_committed)]),
        (5, [zigzag(body.sequence_number)]),
        (6, [body.immediate_commit_timestamp]),
        (7, [body.original_commit_timestamp]),
        (8, [body.transaction_length]),
        (9, [body.immediate_server_version]),
        (10, [body.original_server_version]),
        (11, [body.commit_group_ticket]),
    ]
    at_default = {
        7: body.original_commit_timestamp == body.immediate_commit_timestamp,
        10: body.original_server_version == body.immediate_server_version,
        11: body.commit_group_ticket == 0,
    }
    out = bytearray()

    def varint(value):
        more = extra.pop(0) if extra else 0
        out.extend(encode_uvar_wide(value, min(9, uvar_size(value) + more)))

    for field_id, values, *text in fields:
        if at_default.get(field_id) and not defaults:
            continue
        varint(field_id)
        for value in values:
            varint(value)
        out.extend(text[0] if text else b"")
    size = len(out) + 2
    while 1 + uvar_size(size) + 1 + len(out) != size:
        size = 1 + uvar_size(size) + 1 + len(out)
    return b"\x02" + encode_uvar(size) + b"\x00" + bytes(out)


def spread(total: int, slots: int = 40) -> list[int]:
    """``total`` extra bytes over the first varints, at most 7 each (a 2-byte value fits
    in 9)."""
    out = []
    while total > 0:
        out.append(min(7, total))
        total -= out[-1]
    return out[:slots]


def assert_exact(data: bytes, record: str = BODY) -> None:
    """Every reader gives one model; both writers give ``data`` back; the quick and
    compiled tiers agree (both decline a message kept as its wire_form)."""
    model = ms.parse(data, record)
    assert ms.parse_construct(data, record) == model
    assert ms.build(model, record) == data
    assert ms.build_construct(model, record) == data
    form = json.loads(json.dumps(ms.to_dict(model)))
    assert ms.build(ms.from_dict(form, record), record) == data
    if TIERS is not None and record == BODY:
        compiled, quick = TIERS(data)
        assert (compiled is None) == (quick is None)
        if model.wire_form is not None:
            assert compiled is None
        if compiled is not None:
            assert compiled == model == quick


def seed():
    return ms.parse(SEED_BODY, BODY)


def event(body: bytes, checksum: bool) -> bytes:
    """A GTID_TAGGED_LOG_EVENT of ``body`` (its header, and its CRC-32 with ``checksum``)."""
    size = 19 + len(body) + (4 if checksum else 0)
    data = struct.pack("<IBIIIH", 1, 0x2A, 1, size, 9, 0) + body
    return data + struct.pack("<I", zlib.crc32(data)) if checksum else data


def test_the_open_fuzz_finding_is_written_back_byte_for_byte():
    # 17 bytes of non-minimal varints and fields at their default: one more than the size
    # and lnifid varints can make up (tests/fuzz/crashes, once tests/fuzz/open)
    name = "gtid_tagged_event_no_checksum--abe21a390b2a"
    data = (FUZZ_CRASHES / f"{name}.bin").read_bytes()
    model = ms.parse(data, "gtid_tagged_event_no_checksum")
    assert (model.wire_form, model.body.wire_form) == (data, None)  # the event keeps them
    assert_exact(data, "gtid_tagged_event_no_checksum")
    assert_exact(data[19:])


def test_mysql_own_form_keeps_no_bytes():
    assert seed().wire_form is None
    assert wire(seed()) == SEED_BODY
    assert_exact(SEED_BODY)


@pytest.mark.parametrize("longer", [1, 15, 16, 17, 40, 120])
def test_bodies_longer_than_canonical(longer):
    data = wire(seed(), spread(longer))
    assert len(data) - len(SEED_BODY) in (longer, longer + 1)  # the size may take a byte
    assert ms.parse(data, BODY).wire_form == data
    assert_exact(data)
    for checksum in (True, False):
        record = "gtid_tagged_event" if checksum else "gtid_tagged_event_no_checksum"
        whole = event(data, checksum)
        assert ms.parse(whole, record).wire_form == whole
        assert_exact(whole, record)


@pytest.mark.parametrize("longer", [0, 15, 16, 17, 40])
def test_fields_written_at_their_default(longer):
    data = wire(seed(), spread(longer), defaults=True)
    model = ms.parse(data, BODY)
    assert model.commit_group_ticket == 0 and model.wire_form == data
    assert_exact(data)


def test_every_varint_longer_by_one_to_eight_bytes():
    count = len(wire(seed(), [1] * 200)) - len(SEED_BODY) - 1  # how many there are
    for k in range(count):
        for more in (1, 8):
            assert_exact(wire(seed(), [0] * k + [more]))


def test_a_changed_model_is_written_in_the_canonical_form():
    data = wire(seed(), spread(40))
    model = ms.parse(data, BODY)
    model.gno += 1
    model.serializable_field_size = None  # the size of what build writes now
    rebuilt = ms.build(model, BODY)
    assert rebuilt == ms.build_construct(model, BODY)
    assert rebuilt == ms.build(dataclasses.replace(model, wire_form=None), BODY)
    assert ms.parse(rebuilt, BODY).wire_form is None


def test_kept_bytes_that_no_longer_read_as_the_model_are_not_written():
    model = ms.parse(wire(seed(), spread(20)), BODY)
    model.wire_form = SEED_BODY  # another message's bytes: not what this model reads as
    model.serializable_field_size = None
    canonical = ms.build(dataclasses.replace(model, wire_form=None), BODY)
    assert ms.build(model, BODY) == ms.build_construct(model, BODY) == canonical


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    body=ms.strategies(BODY),
    extra=st.lists(st.integers(0, 8), max_size=40),
    defaults=st.booleans(),
)
def test_any_model_in_any_longer_form_round_trips(body, extra, defaults):
    data = wire(body, extra, defaults)
    assert_exact(data)
    model = ms.parse(data, BODY)
    canonical = ms.build(dataclasses.replace(model, wire_form=None), BODY)
    assert (model.wire_form is None) == (canonical == data)


def rehead(data: bytes, size_more: int, lnifid_more: int, short: bool) -> bytes:
    """``data`` (a body) with its size and lnifid varints ``size_more`` and ``lnifid_more``
    bytes longer, the size its true length or (``short``) one less."""
    size, at = decode_uvar(data, 1)
    lnifid, at = decode_uvar(data, at)
    rest = data[at:]
    for _ in range(3):  # the size's own width counts
        size = 1 + min(9, uvar_size(size) + size_more) + min(9, uvar_size(lnifid) + lnifid_more)
        size += len(rest)
    size -= short
    head = encode_uvar_wide(size, min(9, uvar_size(size) + size_more))
    return b"\x02" + head + encode_uvar_wide(lnifid, min(9, uvar_size(lnifid) + lnifid_more)) + rest


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    body=ms.strategies(BODY),
    extra=st.lists(st.sampled_from([0, 0, 1, 8]), max_size=12),
    size_more=st.integers(0, 8),
    lnifid_more=st.integers(0, 8),
    short=st.booleans(),
)
def test_any_header_widths_round_trip_or_are_refused_alike(
    body, extra, size_more, lnifid_more, short
):
    # build widens the lnifid first, then the size: other widths are kept as wire_form
    data = rehead(wire(body, extra), size_more, lnifid_more, short)
    try:
        ms.parse_construct(data, BODY)
    except DecodeError as err:  # a short size where MySQL's formula does not give it
        with pytest.raises(DecodeError) as info:
            ms.parse(data, BODY)
        assert (info.value.offset, info.value.path) == (err.offset, err.path)
        return
    assert_exact(data)


@pytest.mark.parametrize("width", [1, 2, 9])
def test_unknown_fields_are_bytes_whatever_form_their_ids_take(width):
    # a newer writer's field 12 (= 5) after MySQL's own fields: kept in unknown_fields as it
    # came, so the message is in the form build writes and every tier takes it
    extra = encode_uvar_wide(12, width) + encode_uvar(5)
    data = b"\x02" + encode_uvar(len(SEED_BODY) + len(extra)) + SEED_BODY[2:] + extra
    model = ms.parse(data, BODY)
    assert (model.unknown_fields, model.wire_form) == (extra, None)
    assert_exact(data)
    if TIERS is not None:
        assert TIERS(data)[0] == model
