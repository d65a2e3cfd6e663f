"""Enums on bit fields (``type: b4, enum: opcode``, ``open: true``) over the shapes real
formats give them, on a small spec of its own: a DNS header's 4-bit OPCODE (strict, a
switch's selector) and RCODE (open, a switch with a default), an IPv4 DSCP/ECN byte, a TCP
header's flags (an open flags enum), a code in the low bits of a little-endian run. Every
tier against construct's oracle (fast path, quick tier, writers; the compiled readers and
Arrow writers of a user's build), unknown codes, build refusals, the JSON form, the Spark
schema and rows, ``inspect``, and the refusals at load."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings

from generator.cli import inspect as insp
from generator.emit.generate import render_spec
from runtime.core import tier
from runtime.core.errors import DecodeError, EncodeError, SpecError
from runtime.core.limits import DEFAULT
from tests.test_fastbuild import written
from tests.test_process import spec_module
from tests.user_packages import compiled_user_module

SPEC = """\
format: bitcodes
title: Codes in bit fields
doc: Enums on bit fields in the shapes real formats give them.
endian: be
default_record: dns_header
enums:
  opcode:
    doc: A DNS header's OPCODE (4 bits).
    type: u8
    values:
      QUERY: {value: 0, doc: "a standard query"}
      IQUERY: {value: 1, doc: "an inverse query"}
      STATUS: {value: 2, doc: "a server status request"}
      NOTIFY: {value: 4, doc: "a zone change notice"}
  rcode:
    doc: A DNS header's RCODE (4 bits); other codes are kept.
    type: u8
    values:
      NOERROR: {value: 0, doc: "no error"}
      FORMERR: {value: 1, doc: "a format error"}
      SERVFAIL: {value: 2, doc: "a server failure"}
      NXDOMAIN: {value: 3, doc: "no such name"}
  ecn:
    doc: An IPv4 header's ECN (2 bits).
    type: u8
    values:
      NOT_ECT: {value: 0, doc: "not ECN-capable"}
      ECT1: {value: 1, doc: "ECN-capable, 1"}
      ECT0: {value: 2, doc: "ECN-capable, 0"}
      CE: {value: 3, doc: "congestion experienced"}
  tcp_flag:
    doc: A TCP header's flags.
    type: u8
    flags: true
    values:
      FIN: {value: 0x01, doc: "no more data"}
      SYN: {value: 0x02, doc: "synchronise sequence numbers"}
      RST: {value: 0x04, doc: "reset"}
      PSH: {value: 0x08, doc: "push"}
      ACK: {value: 0x10, doc: "acknowledgment valid"}
      URG: {value: 0x20, doc: "urgent pointer valid"}
      ECE: {value: 0x40, doc: "ECN echo"}
      CWR: {value: 0x80, doc: "congestion window reduced"}
  kind:
    doc: A code in the low bits of a little-endian run.
    type: u8
    values:
      ONE: {value: 1, doc: "one"}
      FIVE: {value: 5, doc: "five"}
records:
  dns_header:
    doc: A DNS-like header whose body is chosen by its 4-bit OPCODE.
    fields:
      - {name: id, type: u16, doc: "The query id."}
      - {name: qr, type: b1, doc: "A response."}
      - {name: opcode, type: b4, enum: opcode, doc: "The kind of query."}
      - {name: aa, type: b1, doc: "An authoritative answer."}
      - {name: tc, type: b1, doc: "Truncated."}
      - {name: rd, type: b1, doc: "Recursion desired."}
      - {name: ra, type: b1, doc: "Recursion available."}
      - {name: z, type: b3, const: 0, doc: "Reserved, zero."}
      - {name: rcode, type: b4, enum: rcode, open: true, doc: "The response code."}
      - name: body
        switch_on: opcode
        doc: What the opcode says follows.
        cases:
          QUERY: u16
          IQUERY: empty
          STATUS: {type: str, size: 2}
          NOTIFY: u8
      - name: answer
        switch_on: rcode
        doc: Only a name error carries one more byte; other codes nothing.
        cases:
          NOERROR: empty
          FORMERR: empty
          SERVFAIL: empty
          NXDOMAIN: u8
          default: empty
  ip_tos:
    doc: An IPv4 header's second byte, DSCP then ECN.
    fields:
      - {name: dscp, type: b6, doc: "The differentiated services code point."}
      - {name: ecn, type: b2, enum: ecn, doc: "Explicit congestion notification."}
  tcp_bits:
    doc: A TCP header's data offset and flags.
    fields:
      - {name: data_offset, type: b4, doc: "The header length in 32-bit words."}
      - {name: reserved, type: b4, doc: "Reserved bits."}
      - {name: flags, type: b8, enum: tcp_flag, open: true, doc: "The flags."}
  le_run:
    doc: A little-endian run whose low 3 bits are a code.
    fields:
      - {name: kind, type: b3le, enum: kind, doc: "The code."}
      - {name: count, type: b13le, doc: "A count."}
"""

# id 0x1234; qr 1, opcode 0 (QUERY), aa tc rd ra 0, z 0, rcode 3 (NXDOMAIN); body u16 7;
# answer u8 9 (a name error's)
QUERY = bytes.fromhex("1234" "8003" "0007" "09")
STATUS = bytes.fromhex("1234" "900a" "6869")  # opcode 2 (STATUS), rcode 10 (unlisted)
VECTORS = [
    ("dns_header", QUERY),
    ("dns_header", STATUS),
    ("dns_header", bytes.fromhex("1234" "8800")),  # IQUERY: no body
    ("dns_header", bytes.fromhex("1234" "a001" "05")),  # NOTIFY, FORMERR
    ("ip_tos", bytes.fromhex("2b")),  # DSCP 10, ECN CE
    ("tcp_bits", bytes.fromhex("5012")),  # data offset 5, SYN|ACK
    ("tcp_bits", bytes.fromhex("50ff")),  # every flag
    ("le_run", bytes.fromhex("0d00")),  # kind FIVE, count 1
]
UNKNOWN = [  # (record, bytes, offset, path, message)
    (
        "dns_header",
        bytes.fromhex("1234" "9803" "0007"),
        2,
        "opcode",
        "3 (0x03) is not a known Opcode",
    ),
    ("le_run", bytes.fromhex("0600"), 0, "kind", "6 (0x06) is not a known Kind"),
    ("le_run", bytes.fromhex("0000"), 0, "kind", "0 (0x00) is not a known Kind"),
]


@pytest.fixture(scope="module")
def codes(tmp_path_factory):
    return spec_module(tmp_path_factory, "bitcodes_enums", SPEC)


def quick(module, record, data):
    model, pos = module.QUICK_READERS[record][0](data, 0, len(data), module._LIMITS)
    assert pos == len(data)
    return model


@pytest.mark.parametrize("record, data", VECTORS, ids=[d.hex() for _, d in VECTORS])
def test_every_tier_reads_and_writes_what_construct_does(codes, record, data):
    model = codes.parse(data, record)
    assert codes.parse_construct(data, record) == model == quick(codes, record, data)
    assert codes.build(model, record) == written(codes, model, record) == data
    assert codes.build_construct(model, record) == data
    assert codes.build(codes.from_dict(codes.to_dict(model), record), record) == data


def test_the_model_holds_the_member_of_a_strict_enum_and_the_code_of_an_open_one(codes):
    header = codes.parse(QUERY)
    assert header.opcode is codes.Opcode.QUERY and (header.body, header.answer) == (7, 9)
    assert type(header.rcode) is int and header.rcode == codes.Rcode.NXDOMAIN
    status = codes.parse(STATUS)
    assert status.opcode is codes.Opcode.STATUS and status.body == "hi"
    assert status.rcode == 10 and status.answer is None  # an unlisted code: the default case
    assert codes.parse(bytes.fromhex("2b"), "ip_tos").ecn is codes.Ecn.CE
    assert codes.parse(bytes.fromhex("0d00"), "le_run").kind is codes.Kind.FIVE
    assert codes.parse(bytes.fromhex("5012"), "tcp_bits").flags == 0x12


def test_the_json_form_names_listed_codes_and_keeps_the_others(codes):
    form = codes.to_dict(codes.parse(STATUS))
    assert (form["opcode"], form["rcode"], form["body"]) == ("STATUS", 10, "hi")
    assert codes.to_dict(codes.parse(QUERY))["rcode"] == "NXDOMAIN"
    flags = codes.to_dict(codes.parse(bytes.fromhex("5012"), "tcp_bits"))["flags"]
    assert flags == ["SYN", "ACK"]
    form["opcode"], form["rcode"] = 2, "SERVFAIL"  # numbers and names both read back
    model = codes.from_dict(form)
    assert model.opcode is codes.Opcode.STATUS and model.rcode == 2


def test_fast_paths_equal_construct_on_generated_models(codes):
    @settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
    @given(codes.strategies("dns_header"))
    def check(model):
        data = codes.build_construct(model)
        assert written(codes, model, "dns_header") == data
        parsed = codes.parse(data)
        assert parsed == codes.parse_construct(data) == quick(codes, "dns_header", data)
        assert parsed.opcode == model.opcode and parsed.rcode == model.rcode

    check()


@pytest.mark.parametrize("record, data, offset, path, message", UNKNOWN)
def test_an_unlisted_code_of_a_strict_enum_is_a_decode_error_at_its_run(
    codes, record, data, offset, path, message
):
    for parse in (codes.parse, codes.parse_construct):
        with pytest.raises(DecodeError, match=re.escape(message)) as info:
            parse(data, record)
        assert (info.value.offset, info.value.path) == (offset, path)


@pytest.mark.parametrize("value", ["STATUS", 2, "the member"])
def test_build_takes_a_member_its_name_or_its_code(codes, value):
    model = codes.parse(STATUS)
    model.opcode = codes.Opcode.STATUS if value == "the member" else value
    assert codes.build(model) == written(codes, model, "dns_header") == STATUS
    assert codes.build_construct(model) == STATUS


@pytest.mark.parametrize("value", [3, "NOPE", 17, -1, None, b"\x02"])
def test_build_refuses_what_is_no_member(codes, value):
    model = codes.parse(STATUS)
    model.opcode = value
    with pytest.raises(EncodeError) as fast:
        codes.build(model)
    with pytest.raises(EncodeError) as oracle:
        codes.build_construct(model)
    assert str(fast.value) == str(oracle.value)


@pytest.mark.parametrize("value", [True, False])
def test_build_refuses_a_bool_though_python_takes_it_as_a_code(codes, value):
    model = codes.parse(STATUS)
    model.opcode = value  # False is QUERY's 0, True IQUERY's 1
    with pytest.raises(TypeError):  # the fast writer leaves it to construct
        written(codes, model, "dns_header")
    for build in (codes.build, codes.build_construct):
        with pytest.raises(EncodeError) as info:
            build(model)
        assert str(info.value) == f"opcode: expected a member of Opcode, got bool {value}"


def test_an_open_enum_takes_any_code_that_fits_and_no_more(codes):
    model = codes.parse(bytes.fromhex("5012"), "tcp_bits")
    model.flags = codes.TcpFlag.SYN | codes.TcpFlag.FIN
    assert codes.build(model, "tcp_bits") == bytes.fromhex("5003")
    model.flags = 0x100
    with pytest.raises(EncodeError, match="does not fit"):
        codes.build(model, "tcp_bits")


def test_spark_a_strict_enum_is_its_name_an_open_one_its_number(codes):
    pytest.importorskip("pyspark")
    from pyspark.sql.types import ByteType, StringType

    schema = {f.name: f.dataType for f in codes.spark_schema("dns_header").fields}
    assert schema["opcode"] == StringType() and schema["rcode"] == ByteType()
    assert [f.name for f in schema["body"].fields] == ["query", "status", "notify"]
    row = next(iter(codes.to_rows(codes.parse(STATUS))))
    names = [f.name for f in codes.spark_schema("dns_header").fields]
    assert dict(zip(names, row))["opcode"] == "STATUS"
    assert dict(zip(names, row))["rcode"] == 10
    ecn = {f.name: f.dataType for f in codes.spark_schema("ip_tos").fields}["ecn"]
    assert ecn == StringType()
    assert list(codes.to_rows(codes.parse(bytes.fromhex("2b"), "ip_tos"), "ip_tos")) == [(10, "CE")]


def test_inspect_shows_the_bits_and_the_name(codes):
    result = insp.trace(codes, STATUS, "dns_header")
    rows = {r.path: r for r in insp.rows(result.root, result.views) if r.leaf}
    assert rows["opcode"].text == ".001 0... .... .... = STATUS (2)"
    assert (rows["opcode"].start, rows["opcode"].end) == (2, 4)
    assert rows["rcode"].text == ".... .... .... 1010 = 10 (0xa)"
    result = insp.trace(codes, bytes.fromhex("5012"), "tcp_bits")
    rows = {r.path: r for r in insp.rows(result.root, result.views) if r.leaf}
    assert rows["flags"].text == ".... .... 0001 0010 = SYN|ACK (18)"
    result = insp.trace(codes, bytes.fromhex("0d00"), "le_run")
    rows = {r.path: r for r in insp.rows(result.root, result.views) if r.leaf}
    assert rows["kind"].text == ".... .... .... .101 = FIVE (5)"


@pytest.mark.parametrize(
    "old, new, key, message",
    [
        (
            "NOTIFY: {value: 4,",
            "NOTIFY: {value: 17,",
            "opcode.enum",
            r"opcode.NOTIFY \(17\) does not fit b4 \(0 to 15\)",
        ),
        (
            "{name: kind, type: b3le, enum: kind,",
            "{name: kind, type: b2le, enum: kind,",
            "kind.enum",
            r"kind.FIVE \(5\) does not fit b2le \(0 to 3\)",
        ),
        (
            "enum: tcp_flag, open: true,",
            "enum: tcp_flag,",
            "flags.enum",
            "a flags enum on a bit field is open: true",
        ),
    ],
)
def test_refused_at_load_with_file_line_and_key(tmp_path, old, new, key, message):
    assert old in SPEC
    path = tmp_path / "bad.yaml"
    path.write_text(SPEC.replace(old, new))
    with pytest.raises(SpecError, match=message) as info:
        render_spec(path)
    assert "bad.yaml:" in str(info.value)


# -- the compiled tier: a user's build of the spec ------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The spec's module with its compiled extension beside it (~15 s to build)."""
    return compiled_user_module(tmp_path_factory, "bitcodes", SPEC)


def test_the_compiled_readers_read_what_construct_does(built):
    assert set(built.COMPILED_READERS) == {"dns_header", "ip_tos", "tcp_bits", "le_run"}
    for record, data in VECTORS:
        model = built.COMPILED_READERS[record](data, built._LIMITS)
        assert model == built.parse_construct(data, record), (record, data.hex())
    for record, data, *_ in UNKNOWN:  # declined: the exact reader says which code
        assert built.COMPILED_READERS[record](data, built._LIMITS) is None
        with pytest.raises(DecodeError):
            built.parse(data, record)


def test_the_compiled_arrow_writers_write_the_rows(built):
    pa = pytest.importorskip("pyarrow")
    from pyspark.sql.pandas.types import to_arrow_schema

    arrow = tier.compiled("runtime._compiled.arrow")
    assert built._COMPILED.bind_arrow(vars(built))
    for record, data in VECTORS:
        fields = list(to_arrow_schema(built.spark_schema(record), timezone="UTC"))
        out, counts = arrow.builder_for(pa.struct(fields)), []
        stopped = built._COMPILED.write_arrow(record, pa.array([data]), 0, 1, out, counts, DEFAULT)
        assert stopped == 1, (record, data.hex())
        got = out.finish()
        rows = list(built.to_rows(built.parse(data, record), record))
        want = [pa.array(column, f.type) for column, f in zip(zip(*rows), fields)]
        assert [got.field(k) for k in range(len(fields))] == want, (record, data.hex())
