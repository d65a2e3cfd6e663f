"""GTID_LOG_EVENT (33) and ANONYMOUS_GTID_LOG_EVENT (34) bodies, whose later fields are there
only if the body has bytes left (``if: bytes_left()``, specs/mysql_serialization.yaml's
``gtid_body``): real bodies (tests/data/mysql_gtid), one built per MySQL version's length,
inside binlog files, truncated at every byte, in every tier; build refusals; and the
spec language's refusals of ``bytes_left()`` where no sized region ends with the record."""

from __future__ import annotations

import json
import re
import struct
import uuid
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from generated import mysql_serialization as ms
from generator.cli.main import main as cli
from generator.spec.loader import load_text
from generator.spec.validate import build_model
from runtime.core.errors import DecodeError, EncodeError, SpecError
from tests.test_compiled import agree
from tests.test_fastpath import Same
from tests.test_quicktier import quick

REAL = json.loads((Path(__file__).parent / "data/mysql_gtid/go_mysql_gtid_bodies.json").read_text())
SID = uuid.UUID("3e11fa47-71ca-11e1-9e33-c80aa9429562").bytes
TS = 1739823289123456


def body(version: str) -> bytes:
    """A GTID body as the MySQL ``version`` that added its last field writes it."""
    out = b"\x01" + SID + struct.pack("<q", 23)
    steps = [
        ("5.7", b"\x02" + struct.pack("<qq", 4, 5)),
        ("8.0.1", (TS | 1 << 55).to_bytes(7, "little") + (TS - 1000).to_bytes(7, "little")),
        ("8.0.2", b"\xfc" + struct.pack("<H", 300)),
        ("8.0.14", struct.pack("<II", 80036 | 1 << 31, 80400)),
        ("8.0.21", struct.pack("<Q", 7)),
    ]
    for name, more in [("5.6", b""), *steps]:
        out += more
        if name == version:
            return out
    raise KeyError(version)


VERSIONS = {"5.6": 25, "5.7": 42, "8.0.1": 56, "8.0.2": 59, "8.0.14": 67, "8.0.21": 75}


def event(type_code: int, data: bytes, pos: int) -> bytes:
    head = struct.pack("<IBIIIH", 1739823289, type_code, 1, 19 + len(data) + 4, pos, 0)
    return head + data + struct.pack("<I", zlib.crc32(head + data))


def binlog(*events: tuple[int, bytes]) -> bytes:
    """The sample binlog's magic and format description (CRC32), then ``events``."""
    sample = Path(__file__).parents[1] / "samples/mysql_serialization/binlog.000001.binlog"
    front = sample.read_bytes()
    front = front[: 4 + struct.unpack_from("<I", front, 4 + 9)[0]]
    out = front
    for type_code, data in events:
        out += event(type_code, data, len(out) + 19 + len(data) + 4)
    return out


def decoded_everywhere(data: bytes, record: str):
    """The model of every reader (exact fast path, construct, quick, compiled), all equal."""
    model = ms.parse(data, record)
    assert Same(ms, ms.parse_construct(data, record)) == Same(ms, model)
    if record in ms.QUICK_READERS:
        assert Same(ms, quick(ms, data, record)) == Same(ms, model)
    if ms.COMPILED_READERS and record in ms.COMPILED_READERS:
        assert agree(ms, data, record)
    return model


def rebuilt_everywhere(model, record: str) -> bytes:
    data = ms.build(model, record)
    assert ms.build_construct(model, record) == data
    assert ms.build(ms.from_dict(ms.to_dict(model), record), record) == data
    return data


@pytest.mark.parametrize("real", REAL, ids=lambda r: r["name"])
def test_real_bodies_decode_as_go_mysql_expects(real):
    data = bytes.fromhex(real["hex"])
    got = decoded_everywhere(data, "gtid_body")
    assert rebuilt_everywhere(got, "gtid_body") == data
    stamps, length, versions = got.commit_timestamps, got.transaction_length, got.server_versions
    original_ts = stamps and (
        stamps.original_commit_timestamp.value
        if stamps.original_follows
        else stamps.immediate_commit_timestamp
    )
    original_version = versions and (
        versions.original_server_version
        if versions.original_follows
        else versions.immediate_server_version
    )
    assert {
        "immediate_commit_timestamp": stamps and stamps.immediate_commit_timestamp,
        "original_commit_timestamp": original_ts,
        "transaction_length": length and length.wide,
        "immediate_server_version": versions and versions.immediate_server_version,
        "original_server_version": original_version,
    } == real["expected"]
    assert (got.lt_type, got.sequence_number - got.last_committed) == (2, 1)


@pytest.mark.parametrize("version", VERSIONS)
def test_each_versions_body_decodes_and_rebuilds(version):
    data = body(version)
    assert len(data) == VERSIONS[version]
    got = decoded_everywhere(data, "gtid_body")
    assert rebuilt_everywhere(got, "gtid_body") == data
    present = [
        name
        for name in ("lt_type", "commit_timestamps", "transaction_length", "server_versions")
        if getattr(got, name) is not None
    ] + (["commit_group_ticket"] if got.commit_group_ticket is not None else [])
    assert len(present) == list(VERSIONS).index(version)
    if version == "8.0.21":
        doc = ms.to_dict(got)
        assert doc["sid"] == str(uuid.UUID(bytes=SID)) and doc["commit_group_ticket"] == 7
        assert doc["commit_timestamps"]["original_commit_timestamp"] == {"value": TS - 1000}
        assert doc["transaction_length"] == {"lead": 0xFC, "wide": 300}
        assert doc["server_versions"]["immediate_server_version"] == 80036


@pytest.mark.parametrize(
    "width", [b"\x05", b"\xfc\x01\x02", b"\xfd\x01\x02\x03", b"\xfe" + bytes(8)]
)
def test_every_packed_integer_width(width):
    data = body("8.0.1") + width
    got = decoded_everywhere(data, "gtid_body")
    assert got.transaction_length.lead == width[0]
    assert rebuilt_everywhere(got, "gtid_body") == data


@pytest.mark.parametrize("lead", [0xFB, 0xFF])
def test_a_packed_integer_with_no_length_is_refused(lead):
    with pytest.raises(DecodeError, match="lead") as info:
        ms.parse(body("8.0.1") + bytes([lead]) + bytes(8), "gtid_body")
    assert info.value.path == "transaction_length.lead" and info.value.offset == 56


def test_binlog_file_with_untagged_gtid_events():
    data = binlog(
        (33, body("8.0.21")),
        (2, b"\x00" * 13 + b"BEGIN"),
        (34, body("5.7")),
        (33, bytes.fromhex(REAL[0]["hex"])),
    )
    got = decoded_everywhere(data, "binlog_file")
    assert [type(e.body).__name__ for e in got.events] == [
        "GtidBody",
        "bytes",
        "GtidBody",
        "GtidBody",
    ]
    assert (
        got.events[2].body.commit_timestamps is None and got.events[0].body.commit_group_ticket == 7
    )
    assert rebuilt_everywhere(got, "binlog_file") == data
    rows = list(ms.iter_rows(data, "binlog_file"))
    assert rows == list(ms.to_rows(got, "binlog_file")) and len(rows) == 4


def test_spark_schema_has_nullable_columns_for_what_bytes_left_may_leave_out():
    from pyspark.sql.types import _make_type_verifier

    schema = ms.spark_schema("binlog_file")
    gtid = schema["body"].dataType["gtid_log_event"].dataType
    for name in ("lt_type", "commit_timestamps", "transaction_length", "server_versions",
                 "commit_group_ticket"):  # fmt: skip
        assert gtid[name].nullable, name
    verify = _make_type_verifier(schema)
    for row in ms.iter_rows(binlog((33, body("8.0.21")), (34, body("5.6"))), "binlog_file"):
        verify(row)


@pytest.mark.parametrize("version", ["8.0.21", "8.0.14"])
def test_a_body_cut_at_every_byte(version):
    """Cut inside a field: a DecodeError at the field, the same in every reader; cut where
    a version ends: that version's body. The event around it stays whole (its size, CRC)."""
    full = body(version)
    ends = set(VERSIONS.values())
    for n in range(len(full)):
        data = binlog((33, full[:n]))
        start = len(data) - 4 - n
        if n in ends:
            got = decoded_everywhere(data, "binlog_file")
            assert rebuilt_everywhere(got, "binlog_file") == data
            continue
        errors = []
        for parse in (ms.parse, ms.parse_construct):
            with pytest.raises(DecodeError) as info:
                parse(data, "binlog_file")
            errors.append((str(info.value), info.value.offset, info.value.path))
        assert errors[0] == errors[1], n
        _, offset, path = errors[0]
        assert path.startswith("events[0].body") and start <= offset <= start + n, (n, path)
        with pytest.raises(DecodeError) as info:  # the body alone: its region is the input
            ms.parse(full[:n], "gtid_body")
        assert info.value.offset is not None and info.value.path, n


@pytest.mark.parametrize("later", ["transaction_length", "server_versions", "commit_group_ticket"])
def test_build_refuses_a_field_after_an_absent_one(later):
    model = ms.parse(body("8.0.21"), "gtid_body")
    model.commit_timestamps = None
    if later != "transaction_length":
        model.transaction_length = None
    if later == "commit_group_ticket":
        model.server_versions = None
    for build in (ms.build, ms.build_construct):
        with pytest.raises(EncodeError, match="before it, is None") as info:
            build(model, "gtid_body")
        assert info.value.path.split(".")[0] == later


def test_build_of_none_leaves_the_rest_out():
    model = ms.parse(body("8.0.21"), "gtid_body")
    model.commit_group_ticket = None
    assert rebuilt_everywhere(model, "gtid_body") == body("8.0.14")
    model.server_versions = None
    assert rebuilt_everywhere(model, "gtid_body") == body("8.0.2")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ms.strategies("gtid_body"))
def test_any_drawn_body_round_trips(model):
    """The strategies draw each bytes_left() field present or not, never one after an
    absent one: every model builds, and reads back as itself, in every reader."""
    data = rebuilt_everywhere(model, "gtid_body")
    assert Same(ms, decoded_everywhere(data, "gtid_body")) == Same(ms, model)


def test_inspect_lists_the_fields_bytes_left_reads(tmp_path, capsys):
    src = tmp_path / "gtid.bin"
    src.write_bytes(body("8.0.2"))
    assert cli(["inspect", "mysql_serialization", str(src), "--record", "gtid_body"]) == 0
    out = capsys.readouterr().out
    assert (
        "transaction_length" in out and "server_versions" not in out.split("transaction_length")[1]
    )


# -- the spec language ---------------------------------------------------------------------

SPEC = """\
format: demo
doc: d
endian: le
default_record: outer
records:
  tail:
    doc: d
    fields:
      - {{name: a, type: u8, doc: d}}
      - {{name: b, type: u16, if: "{test}", doc: d}}
{after}
  outer:
    doc: d
    fields:
{outer}
"""


def demo(test="bytes_left()", after="", outer="      - {name: t, type: tail, size: 3, doc: d}"):
    return build_model(
        load_text(SPEC.format(test=test, after=after, outer=outer), Path("demo.yaml"))
    )


def test_a_sized_record_and_a_last_unsized_one_take_bytes_left():
    assert demo().records["tail"].fields[1].if_bytes_left
    assert (
        demo(outer="      - {name: t, type: tail, doc: d}").records["tail"].fields[1].if_bytes_left
    )


@pytest.mark.parametrize(
    "outer, why",
    [
        ("      - {name: t, type: tail, doc: d}\n      - {name: z, type: u8, doc: d}",
         "outer.t holds it with no size: and z follows it"),
        ("      - {name: t, type: tail, repeat: eos, doc: d}", "outer.t holds it with no size: in a list"),
    ],
)  # fmt: skip
def test_bytes_left_where_no_region_ends_with_the_record_is_refused(outer, why):
    with pytest.raises(
        SpecError, match=re.escape("demo.yaml:10: records.tail.fields[1].if: ")
    ) as info:
        demo(outer=outer)
    assert why in str(info.value)


def test_a_field_without_if_after_bytes_left_is_refused():
    after = "      - {name: c, type: u8, doc: d}"
    with pytest.raises(SpecError, match="c has no if: but follows b"):
        demo(after=after)


def test_bytes_left_inside_an_expression_is_refused():
    with pytest.raises(SpecError, match=r"bytes_left\(\) only as a whole if:"):
        demo(test="bytes_left() > 1")
