"""GTID_TAGGED_LOG_EVENT through the generated codec (specs/mysql_serialization.yaml): the
vectors, the seed event, the binlog framing and files, Spark rows, the CLI and bad input
(research/mysql_serialization.md)."""

from __future__ import annotations

import dataclasses
import json
import uuid
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generated import mysql_serialization as ms
from generator.cli.main import main as cli
from runtime.core.errors import DecodeError, EncodeError
from runtime.core.msbvarint import encode_uvar

VECTORS = {
    v["name"]: v
    for v in json.loads(
        (Path(__file__).parent / "data/vectors/mysql_serialization.json").read_text()
    )
}
FUZZ_CRASHES = Path(__file__).parent / "fuzz" / "crashes" / "mysql_serialization"
SEED_BODY = bytes.fromhex(VECTORS["gtid_tagged_body_seed_blog_9.2.0"]["hex"])
SEED_EVENT = bytes.fromhex(VECTORS["gtid_tagged_event_seed_blog_full"]["hex"])
BODY_VECTORS = [v for name, v in VECTORS.items() if name.startswith("gtid_tagged_body")]
# The generated message's own field codecs, by the C++ type the vectors name.
FIELD = {f.name: f.subcon for f in ms.gtid_tagged_body.fields}
CODEC_OF_TYPE = {
    "uint64": FIELD["transaction_length"],
    "int64": FIELD["gno"],
    "uint8": FIELD["gtid_flags"],
    "string": FIELD["tag"],
}
PRIMITIVE_VECTORS = [v for v in VECTORS.values() if v["decoded"].get("type") in CODEC_OF_TYPE]


def body_dict(vec) -> dict:
    want = dict(vec["decoded"])
    want.pop("absent_fields", None)
    want["uuid"] = list(uuid.UUID(want["uuid"]).bytes)
    want["unknown_fields"] = None  # MySQL's own events: no field this reader does not know
    # and in the form MySQL writes, which build writes too: no wire_form in the JSON form
    return want


def seed_body(**changes):
    d = body_dict(VECTORS["gtid_tagged_body_seed_blog_9.2.0"])
    del d["serializable_field_size"], d["last_non_ignorable_field_id"]
    return ms.from_dict({**d, **changes}, "gtid_tagged_body")


def event_model(body, *, checksum=True, pos=240, **header):
    size = 19 + len(ms.build(body, "gtid_tagged_body")) + (4 if checksum else 0)
    fields = {
        "timestamp": 1739823289,
        "server_id": 1,
        "event_size": size,
        "log_pos": pos,
        "flags": 0,
    }
    fields.update(header)
    cls = ms.GtidTaggedEvent if checksum else ms.GtidTaggedEventNoChecksum
    return cls(body=body, **fields)


# -- vectors -------------------------------------------------------------------------------


def test_every_vector_is_covered():
    assert len(PRIMITIVE_VECTORS) + len(BODY_VECTORS) + 1 == len(VECTORS) == 33


@pytest.mark.parametrize("vec", PRIMITIVE_VECTORS, ids=lambda v: v["name"])
def test_primitive_vectors_through_the_generated_field_codecs(vec):
    codec, data = CODEC_OF_TYPE[vec["decoded"]["type"]], bytes.fromhex(vec["hex"])
    value = vec["decoded"]["value"]
    value = value if vec["decoded"]["type"] == "string" else int(value)
    assert codec.parse(data) == value
    assert codec.build(value) == data


@pytest.mark.parametrize("vec", BODY_VECTORS, ids=lambda v: v["name"])
def test_body_vectors_decode_and_rebuild(vec):
    data = bytes.fromhex(vec["hex"])
    model = ms.parse(data, "gtid_tagged_body")
    form = ms.to_dict(model)
    assert form["uuid"] == vec["decoded"]["uuid"]  # canonical text, as the vector has it
    shown = {k: v for k, v in form.items() if not k.endswith("_time")}
    assert {**shown, "uuid": list(uuid.UUID(form["uuid"]).bytes)} == body_dict(vec)
    assert ms.build(model, "gtid_tagged_body") == data
    assert ms.build(ms.from_dict(ms.to_dict(model), "gtid_tagged_body"), "gtid_tagged_body") == data


def test_seed_body_values():
    body = ms.parse(SEED_BODY, "gtid_tagged_body")
    assert str(uuid.UUID(bytes=bytes(body.uuid))) == "896e7882-18fe-11ef-ab88-22222d34d411"
    assert (body.tag, body.gno, body.last_committed, body.sequence_number) == ("foobaz", 1, 0, 1)
    assert body.immediate_commit_timestamp == 1739823289369365
    assert body.original_commit_timestamp == 1739823289369365  # absent: defaults from field 6
    assert (body.transaction_length, body.immediate_server_version) == (210, 90200)
    assert (body.original_server_version, body.commit_group_ticket) == (90200, 0)
    assert (body.serializable_field_size, body.last_non_ignorable_field_id) == (59, 0)


def test_seed_event_header_crc_and_rebuild():
    event = ms.parse(SEED_EVENT)
    header = VECTORS["gtid_tagged_event_seed_blog_full"]["decoded"]["header"]
    assert {k: event[k] for k in header} == header
    assert event.crc32 == 0xCE6C39EF == zlib.crc32(SEED_EVENT[:-4])
    assert ms.build(event) == SEED_EVENT
    assert ms.build(event_model(seed_body())) == SEED_EVENT  # CRC computed, body sized


def test_no_checksum_variant():
    data = SEED_EVENT[:-4]
    data = data[:9] + (len(data)).to_bytes(4, "little") + data[13:]
    event = ms.parse(data, "gtid_tagged_event_no_checksum")
    assert event.body.tag == "foobaz" and event.event_size == 78
    assert (
        ms.build(event_model(seed_body(), checksum=False), "gtid_tagged_event_no_checksum") == data
    )


# -- presence rules and forward compatibility -----------------------------------------------

OPTIONAL = st.fixed_dictionaries(
    {},
    optional={
        "original_commit_timestamp": st.integers(0, 2**64 - 1),
        "original_server_version": st.integers(0, 2**32 - 1),
        "commit_group_ticket": st.integers(0, 2**64 - 1),
    },
)


@settings(max_examples=60, deadline=None)
@given(
    optional=OPTIONAL,
    gno=st.integers(-(2**63), 2**63 - 1),
    tag=st.text("abcdefghijklmnopqrstuvwxyz_0123456789", max_size=32),
    uuid_bytes=st.binary(min_size=16, max_size=16),
    ict=st.integers(0, 2**64 - 1),
)
def test_bodies_with_random_optional_fields_round_trip(optional, gno, tag, uuid_bytes, ict):
    body = seed_body(**{"gno": gno, "tag": tag, "uuid": list(uuid_bytes),
                        "immediate_commit_timestamp": ict, "original_commit_timestamp": None,
                        "original_server_version": None, "commit_group_ticket": None,
                        **optional})  # fmt: skip
    event = ms.build(event_model(body))
    parsed = ms.parse(event)
    assert ms.build(parsed) == event
    assert parsed.body.serializable_field_size == len(event) - 23
    defaults = {"original_commit_timestamp": ict, "original_server_version": 90200,
                "commit_group_ticket": 0}  # fmt: skip
    assert {k: parsed.body[k] for k in defaults} == {**defaults, **optional}
    # A field equal to its default is not written: the same bytes as leaving it out.
    same = {k: v for k, v in optional.items() if v == defaults[k]}
    if same:
        without = seed_body(**{**ms.to_dict(parsed.body), **{k: None for k in same}})
        assert ms.build(without, "gtid_tagged_body") == event[19:-4]


def _with_trailing_fields(body: bytes, extra: bytes, lnifid: int = 0) -> bytes:
    """The seed body as a newer writer would send it: more fields at the end."""
    payload = body[3:] + extra  # after version 02, size, lnifid 00 (all one byte here)
    size = 1 + 1 + 1 + len(payload)
    return b"\x02" + encode_uvar(size) + encode_uvar(lnifid) + payload


def _json_round_trip(model, record):
    text = json.dumps(ms.to_dict(model))
    return ms.build(ms.from_dict(json.loads(text), record), record)


def test_unknown_trailing_fields_are_kept_and_written_back():
    extra = encode_uvar(12) + encode_uvar(7) + encode_uvar(13) + b"\x06abc"
    newer = _with_trailing_fields(SEED_BODY, extra)
    body = ms.parse(newer, "gtid_tagged_body")
    assert body.tag == "foobaz" and body.commit_group_ticket == 0
    assert body.unknown_fields == extra and ms.parse_construct(newer, "gtid_tagged_body") == body
    assert ms.build(body, "gtid_tagged_body") == newer
    assert ms.build_construct(body, "gtid_tagged_body") == newer
    assert ms.to_dict(body)["unknown_fields"] == {"$hex": extra.hex()}
    assert _json_round_trip(body, "gtid_tagged_body") == newer
    # Without them (and with the size computed): what this reader knows.
    known = ms.GtidTaggedBody(
        **{**dict(body.items()), "serializable_field_size": None, "unknown_fields": None}
    )
    assert ms.build(known, "gtid_tagged_body") == SEED_BODY


def test_the_issues_unknown_field_comes_back_as_it_came_in_a_whole_event():
    # field 12 = 0x25 0x0c (two varints, or one value of a type this reader cannot know)
    body = ms.parse(_with_trailing_fields(SEED_BODY, bytes.fromhex("18250c")), "gtid_tagged_body")
    event = ms.build(event_model(body))
    assert event[-7:-4] == bytes.fromhex("18250c")
    for parse in (ms.parse, ms.parse_construct):
        model = parse(event)
        assert model.body.unknown_fields == bytes.fromhex("18250c")
        assert ms.build(model) == event and _json_round_trip(model, "gtid_tagged_event") == event


def test_unknown_fields_after_a_present_last_field_may_start_with_any_id():
    # commit_group_ticket (11) present, then an id a reader has seen (3): skipped, kept.
    base = ms.build(seed_body(commit_group_ticket=5), "gtid_tagged_body")
    odd = _with_trailing_fields(base, encode_uvar(3) + encode_uvar(1))
    body = ms.parse(odd, "gtid_tagged_body")
    assert body.commit_group_ticket == 5 and body.unknown_fields == bytes.fromhex("0602")
    assert ms.build(body, "gtid_tagged_body") == odd


@pytest.mark.parametrize(
    "unknown, message",
    [
        (b"", "must start with a field id"),
        (b"\x01", "must start with a field id"),  # a 2-byte varint cut short
        ("18", "expected bytes, got str"),
    ],
)
def test_unknown_fields_that_would_not_read_back_are_an_encode_error(unknown, message):
    body = seed_body()
    body.unknown_fields = unknown
    with pytest.raises(EncodeError, match=message) as info:
        ms.build(body, "gtid_tagged_body")
    assert info.value.path == "unknown_fields"


@pytest.mark.parametrize("first_id", [0, 11])
def test_unknown_fields_starting_with_a_known_id_keep_the_last_field_written(first_id):
    # A reader looking for commit_group_ticket (id 11, at its default here) would take a
    # lower or equal id for its own or for one out of order: written, it reads no further.
    body = seed_body()
    assert body.commit_group_ticket == 0
    body.unknown_fields = encode_uvar(first_id) + b"\x02"
    body.serializable_field_size = None  # the size of these bytes
    data = ms.build(body, "gtid_tagged_body")
    assert data.endswith(encode_uvar(11) + b"\x00" + body.unknown_fields)
    assert ms.build_construct(body, "gtid_tagged_body") == data
    again = ms.parse(data, "gtid_tagged_body")
    assert (again.commit_group_ticket, again.unknown_fields) == (0, body.unknown_fields)
    assert ms.build(again, "gtid_tagged_body") == data


@pytest.mark.parametrize(
    "name",
    [
        "gtid_tagged_body--d4fe8e681b06",  # unknown trailing field ids 32, 11
        "gtid_tagged_event_no_checksum--53d49c6b5723",  # varint e9 00: 58 in two bytes
    ],
)
def test_fuzz_findings_longer_than_their_fields_rebuild_to_the_same_model(name):
    record = name.split("--")[0]
    data = (FUZZ_CRASHES / f"{name}.bin").read_bytes()
    model = ms.parse(data, record)
    rebuilt = ms.build(model, record)
    assert len(rebuilt) == len(data) and ms.parse(rebuilt, record) == model
    assert ms.parse_construct(rebuilt, record) == model


def test_non_minimal_varints_and_explicit_defaults_are_accepted_and_rebuild():
    # 02 size 00 | field 0 = 1 as the 2-byte form 05 00 | ... | field 11 = 0 written
    seed = ms.parse(SEED_BODY, "gtid_tagged_body")
    wide = SEED_BODY[:3] + b"\x00\x05\x00" + SEED_BODY[5:] + encode_uvar(11) + encode_uvar(0)
    wide = wide[:1] + encode_uvar(len(wide)) + wide[2:]
    body = ms.parse(wide, "gtid_tagged_body")
    assert body.gtid_flags == seed.gtid_flags and body.commit_group_ticket == 0
    assert body.serializable_field_size == len(wide) == len(SEED_BODY) + 3
    # Kept as they came (MySQL's reader takes them), so both writers write them back.
    assert body.wire_form == wide
    assert (
        ms.build(body, "gtid_tagged_body") == ms.build_construct(body, "gtid_tagged_body") == wide
    )
    # Changed, the model is written in the canonical form: known fields minimal, the size
    # kept by wider header varints.
    body.gtid_flags = 0
    rebuilt = ms.build(body, "gtid_tagged_body")
    again = ms.parse(rebuilt, "gtid_tagged_body")
    assert len(rebuilt) == len(wide) and again == dataclasses.replace(body, wire_form=None)
    assert rebuilt[:6] == b"\x02" + encode_uvar(len(wide)) + bytes.fromhex("07000000")


def test_unknown_non_ignorable_field_is_an_error():
    newer = _with_trailing_fields(SEED_BODY, encode_uvar(12) + encode_uvar(1), lnifid=13)
    with pytest.raises(DecodeError, match="last_non_ignorable_field_id is 13") as info:
        ms.parse(newer, "gtid_tagged_body")
    assert info.value.offset == 2


# -- bad input: DecodeError with offset and path, nothing else ------------------------------


def test_truncation_at_every_offset():
    for cut in range(len(SEED_EVENT)):
        with pytest.raises(DecodeError) as info:
            ms.parse(SEED_EVENT[:cut])
        assert info.value.offset is not None and 0 <= info.value.offset <= len(SEED_EVENT)


def test_varint_announcing_more_bytes_than_remain():
    # The body ends inside immediate_commit_timestamp's 8-byte varint; size and event agree.
    cut = SEED_BODY.index(bytes.fromhex("7f1583")) + 3
    body = b"\x02" + encode_uvar(cut) + SEED_BODY[2:cut]
    with pytest.raises(DecodeError) as info:
        ms.parse(body, "gtid_tagged_body")
    assert info.value.path == "immediate_commit_timestamp" and info.value.offset == cut - 3


@pytest.mark.parametrize("event_size", [81, 83, 22, 0])
def test_event_size_that_disagrees_with_the_bytes(event_size):
    data = SEED_EVENT[:9] + event_size.to_bytes(4, "little") + SEED_EVENT[13:]
    with pytest.raises(DecodeError) as info:
        ms.parse(data)
    assert info.value.offset is not None and info.value.path in ("body", "crc32", "<message>", "")


def test_serializable_size_that_disagrees():
    data = SEED_EVENT[:20] + b"\x78" + SEED_EVENT[21:]  # 60 instead of 59
    data = data[:-4] + zlib.crc32(data[:-4]).to_bytes(4, "little")
    with pytest.raises(DecodeError, match="serializable_field_size is 60") as info:
        ms.parse(data)
    assert info.value.offset == 20 and info.value.path == "body"


def test_tag_longer_than_its_bound():
    body = seed_body(tag="t" * 33)
    with pytest.raises(EncodeError, match="exceeds its bound of 32"):
        ms.build(body, "gtid_tagged_body")
    long = ms.build(seed_body(tag="t" * 32), "gtid_tagged_body")
    at = long.index(b"\x06\x40") + 1
    bad = long[:at] + b"\x42" + long[at + 1 :] + b"t"
    bad = b"\x02" + encode_uvar(len(bad)) + bad[2:]
    with pytest.raises(DecodeError, match="exceeds its bound of 32") as info:
        ms.parse(bad, "gtid_tagged_body")
    assert info.value.path == "tag" and info.value.offset == at


def test_bad_crc():
    data = SEED_EVENT[:-1] + b"\x00"
    with pytest.raises(
        DecodeError, match="checksum mismatch: stored 0x006c39ef, computed 0xce6c39ef"
    ) as info:
        ms.parse(data)
    assert info.value.path == "crc32" and info.value.offset == 78


def test_wrong_type_code():
    with pytest.raises(DecodeError) as info:
        ms.parse(SEED_EVENT[:4] + b"\x21" + SEED_EVENT[5:])
    assert info.value.path == "type_code" and info.value.offset == 4


# -- binlog files --------------------------------------------------------------------------

QUERY_BODY = b"\x00\x00\x00\x01" + b"\x00" * 9 + b"\x00\x00" + b"test\x00BEGIN"


def binlog_file(checksum: bool, extra_events=()) -> bytes:
    """A small binlog built with the generated builders: FDE, BEGIN, the seed GTID, others."""
    crc = 4 if checksum else 0
    fde = ms.FormatDescriptionEvent(
        timestamp=1739823000, server_id=1, event_size=81 + 42, log_pos=4 + 81 + 42, flags=0,
        binlog_version=4, server_version="9.2.0".ljust(50, "\x00"), create_timestamp=1739823000,
        post_header_lengths=bytes(range(1, 43)), checksum_alg="CRC32" if checksum else "OFF",
        unverified_checksum=None if checksum else 0,
    )  # fmt: skip
    pos, events = fde.log_pos, []
    bodies = [
        (42, seed_body()),
        (2, QUERY_BODY),
        (42, seed_body(gno=2, sequence_number=2)),
        *extra_events,
    ]
    for type_code, body in bodies:
        size = (
            19 + len(body if isinstance(body, bytes) else ms.build(body, "gtid_tagged_body")) + crc
        )
        pos += size
        events.append(ms.BinlogEvent(timestamp=1739823289, type_code=type_code, server_id=1,
                                     event_size=size, log_pos=pos, flags=0, body=body))  # fmt: skip
    return ms.build(ms.BinlogFile(format_description=fde, events=events), "binlog_file")


@pytest.mark.parametrize("checksum", [True, False], ids=["crc32", "none"])
def test_binlog_file_decodes_tagged_events_and_passes_others_through(checksum):
    data = binlog_file(checksum)
    assert data[:4] == bytes.fromhex("fe62696e")
    parsed = ms.parse(data, "binlog_file")
    assert parsed.format_description.checksum_alg == (1 if checksum else 0)
    assert [e.type_code for e in parsed.events] == [42, 2, 42]
    assert [e.body.gno for e in parsed.events if e.type_code == 42] == [1, 2]
    assert parsed.events[1].body == QUERY_BODY
    assert [e.crc32 is not None for e in parsed.events] == [checksum] * 3
    assert parsed.events[-1].log_pos == len(data)
    assert ms.build(parsed, "binlog_file") == data
    assert data.count(SEED_BODY) == 1  # the builders wrote the known-good body


def test_binlog_file_with_the_known_good_event_appended():
    data = binlog_file(True) + SEED_EVENT
    parsed = ms.parse(data, "binlog_file")
    seed = parsed.events[-1]
    assert (seed.log_pos, seed.crc32, seed.body.tag) == (240, 0xCE6C39EF, "foobaz")
    assert ms.build(parsed, "binlog_file") == data


def test_binlog_file_bad_event_crc_names_the_event():
    data = bytearray(binlog_file(True))
    data[-1] ^= 0xFF
    with pytest.raises(DecodeError, match="checksum mismatch") as info:
        ms.parse(bytes(data), "binlog_file")
    assert info.value.path == "events[2].crc32" and info.value.offset == len(data) - 4


def test_binlog_file_truncated_anywhere_is_a_decode_error():
    data = binlog_file(True)
    for cut in range(0, len(data), 7):
        with pytest.raises(DecodeError):
            ms.parse(data[:cut], "binlog_file")


def test_fde_crc_is_verified():
    data = bytearray(binlog_file(True))
    data[4 + 20] ^= 1  # inside the FDE's server_version
    with pytest.raises(DecodeError, match="checksum mismatch") as info:
        ms.parse(bytes(data), "binlog_file")
    assert info.value.path == "format_description.crc32"


# -- Spark ---------------------------------------------------------------------------------


def test_spark_rows_agree_with_the_schema():
    from pyspark.sql.types import _make_type_verifier

    schema = ms.spark_schema()
    names = schema.fieldNames()
    for want in ("timestamp", "type_code", "server_id", "event_size", "log_pos", "flags", "uuid",
                 "tag", "gno", "immediate_commit_timestamp", "immediate_commit_timestamp_ts",
                 "original_commit_timestamp_ts", "immediate_server_version",
                 "original_server_version", "commit_group_ticket"):  # fmt: skip
        assert want in names
    verify = _make_type_verifier(schema)
    (row,) = ms.to_rows(ms.parse(SEED_EVENT))
    verify(row)
    values = dict(zip(names, row))
    assert values["uuid"] == "896e7882-18fe-11ef-ab88-22222d34d411"
    assert values["immediate_commit_timestamp_ts"].isoformat() == "2025-02-17T20:14:49.369365+00:00"
    assert values["type_code"] == 42 and values["tag"] == "foobaz"
    for record, data in (("binlog_file", binlog_file(True)), ("gtid_tagged_body", SEED_BODY)):
        verify = _make_type_verifier(ms.spark_schema(record))
        rows = list(ms.to_rows(ms.parse(data, record), record))
        assert rows
        for row in rows:
            verify(row)


# -- CLI -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "record, data",
    [(None, SEED_EVENT), ("gtid_tagged_body", SEED_BODY), ("binlog_file", binlog_file(True))],
)
def test_cli_decode_encode_round_trip(tmp_path, capsys, record, data):
    src = tmp_path / "in.bin"
    src.write_bytes(data)
    extra = ["--record", record] if record else []
    assert cli(["decode", "mysql_serialization", str(src), *extra]) == 0
    doc = capsys.readouterr().out
    (tmp_path / "in.json").write_text(doc)
    out = tmp_path / "out.bin"
    assert (
        cli(["encode", "mysql_serialization", str(tmp_path / "in.json"), "-o", str(out), *extra])
        == 0
    )
    assert out.read_bytes() == data
    assert cli(["schema", "mysql_serialization", "--ddl", *extra]) == 0
    assert "`" in capsys.readouterr().out


def test_cli_bad_crc_is_one_clear_line(tmp_path, capsys):
    src = tmp_path / "bad.bin"
    src.write_bytes(SEED_EVENT[:-1] + b"\x00")
    assert cli(["decode", "mysql_serialization", str(src)]) == 1
    err = capsys.readouterr().err
    assert "offset 78" in err and "crc32" in err and "Traceback" not in err


@settings(max_examples=60, deadline=None)
@given(st.integers(12, 2**64 - 1), st.binary(max_size=40))
def test_any_newer_writers_trailing_bytes_come_back(first_id, rest):
    newer = _with_trailing_fields(SEED_BODY, encode_uvar(first_id) + rest)
    for parse in (ms.parse, ms.parse_construct):
        body = parse(newer, "gtid_tagged_body")
        assert body.unknown_fields == encode_uvar(first_id) + rest
        assert ms.build(body, "gtid_tagged_body") == newer
    assert _json_round_trip(body, "gtid_tagged_body") == newer
