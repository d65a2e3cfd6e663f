"""A newcomer's spec of classic libpcap capture files (``tests/data/user_specs/pcap.yaml``,
not a shipped format), used as they would: rendered in memory with ``--spec``, on a capture
made here with ``struct`` (``pcap_udp.pcap``: three Ethernet/IPv4/UDP packets, a DNS query,
its answer and a datagram, with their IPv4 and UDP checksums) in each byte order and
timestamp unit, byte-exact, truncated at every byte, as Spark rows, and from the user's
package built with ``--compiled`` (the compiled tier; skipped with ``WIRESPEC_PURE_PYTHON=1``).
One set of records reads both byte orders (the magic's ``endian:`` switch) and each packet's
data by the file header's linktype (a switch on an enclosing record's field; the features
themselves: tests/test_byte_order.py). Also the spec
mistakes a newcomer makes on the way, each an error naming file, line and key and saying
what to do (generator/spec/loader.py, fields.py, validate.py)."""

from __future__ import annotations

import datetime
import json
import shutil
import struct

import pytest

from generator import ROOT
from generator.cli.main import main
from generator.emit.user_spec import spec_model
from generator.spec.loader import load_text
from runtime.core.errors import DecodeError, SpecError
from tests.user_packages import build_package, import_module, skip_unless_compiled

HERE = ROOT / "tests" / "data" / "user_specs"
SPEC = HERE / "pcap.yaml"
SAMPLE = HERE / "pcap_udp.pcap"
MAGICS = {  # the case -> its magic's bytes and struct's byte order
    "le_micro": (b"\xd4\xc3\xb2\xa1", "<"),
    "le_nano": (b"\x4d\x3c\xb2\xa1", "<"),
    "be_micro": (b"\xa1\xb2\xc3\xd4", ">"),
    "be_nano": (b"\xa1\xb2\x3c\x4d", ">"),
}


@pytest.fixture(scope="module")
def pcap():
    from generator.emit.user_spec import import_spec

    return import_spec(SPEC)


def internet_checksum(data: bytes) -> int:
    """RFC 1071's ones' complement sum, as IPv4 and UDP headers carry it."""
    data += b"\0" * (len(data) % 2)
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def udp_frame(src: bytes, dst: bytes, ports: tuple[int, int], payload: bytes, ident: int):
    """An Ethernet II frame holding an IPv4 packet holding a UDP datagram."""
    udp = struct.pack("!HHHH", *ports, 8 + len(payload), 0) + payload
    pseudo = src + dst + struct.pack("!BBH", 0, 17, len(udp))
    udp = udp[:6] + struct.pack("!H", internet_checksum(pseudo + udp)) + udp[8:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), ident, 0x4000, 64, 17, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", internet_checksum(ip)) + ip[12:]
    return bytes.fromhex("0242ac110002" "0242ac110003" "0800") + ip + udp


def packets() -> list[tuple[int, int, bytes]]:
    """(seconds, microseconds, frame): a DNS query for example.com, its answer header, and
    a datagram to port 9999."""
    a, b = bytes([172, 17, 0, 2]), bytes([172, 17, 0, 3])
    query = bytes.fromhex("1a2b01000001000000000000076578616d706c6503636f6d0000010001")
    answer = query[:2] + b"\x81\x80" + query[4:]
    return [
        (1764342000, 123456, udp_frame(a, b, (53000, 53), query, 1)),
        (1764342000, 124001, udp_frame(b, a, (53, 53000), answer, 2)),
        (1764342001, 5, udp_frame(a, b, (40000, 9999), b"hello, pcap", 3)),
    ]


def capture(case: str = "le_micro", snaplen: int = 65535) -> bytes:
    """A capture file as libpcap writes it: the magic of ``case`` (its byte order and
    timestamp unit), version 2.4, ``snaplen``, LINKTYPE_ETHERNET, then each packet cut
    to ``snaplen``."""
    magic, order = MAGICS[case]
    scale = 1000 if case.endswith("nano") else 1
    out = magic + struct.pack(order + "HHiIII", 2, 4, 0, 0, snaplen, 1)
    for seconds, micros, frame in packets():
        kept = frame[:snaplen]
        out += struct.pack(order + "IIII", seconds, micros * scale, len(kept), len(frame)) + kept
    return out


def test_the_sample_is_the_capture_made_here():
    assert SAMPLE.read_bytes() == capture()


def frame(ethernet) -> bytes:
    """An Ethernet model's bytes, as captured."""
    return (
        ethernet.destination
        + ethernet.source
        + struct.pack("!H", ethernet.ethertype)
        + (ethernet.payload)
    )


def test_the_sample_decodes_to_its_packets(pcap):
    model = pcap.parse(SAMPLE.read_bytes())
    assert model.magic == pcap.PcapMagic.MICRO_LE
    header = model.header
    assert (header.version_major, header.version_minor, header.snaplen) == (2, 4, 65535)
    assert header.linktype == pcap.Linktype.ETHERNET
    got = [(p.ts_sec, p.ts_frac, frame(p.data)) for p in model.capture.packets]
    assert got == packets()
    for p in model.capture.packets:
        assert isinstance(p.data, pcap.Ethernet)  # read by the file header's linktype
        assert p.incl_len == p.orig_len == len(frame(p.data))
        assert p.data.ethertype == pcap.Ethertype.IPV4
        assert internet_checksum(p.data.payload[:20]) == 0
    assert pcap.parse(SAMPLE.read_bytes()) == pcap.parse_construct(SAMPLE.read_bytes())
    # read and written fast, once per byte order (FALLBACKS: only packets alone), and by
    # the quick tier
    assert "pcap_file" in pcap.FAST_READERS and "pcap_file" in pcap.FAST_WRITERS
    assert "pcap_file" in pcap.QUICK_READERS


@pytest.mark.parametrize("case", sorted(MAGICS))
@pytest.mark.parametrize("snaplen", [65535, 60])
def test_every_byte_order_and_unit_reads_and_rebuilds_byte_for_byte(pcap, case, snaplen):
    data = capture(case, snaplen)
    model = pcap.parse(data)
    order, unit = case.split("_")
    assert model.magic == pcap.PcapMagic[f"{unit}_{order}".upper()]
    assert model == pcap.parse_construct(data)
    first = model.capture.packets[0]
    assert first.ts_frac == 123456 * (1000 if case.endswith("nano") else 1)
    assert (first.incl_len, first.orig_len) == (min(snaplen, 71), 71)
    assert pcap.build(model) == pcap.build_construct(model) == data
    again = pcap.from_dict(json.loads(json.dumps(pcap.to_dict(model))))
    assert pcap.build(again) == data


def test_truncation_at_every_byte_is_a_decode_error_with_offset_and_path(pcap):
    """Every prefix is a DecodeError naming where it stopped, except those ending between
    packets: a capture file may end after any packet (a capture stopped there)."""
    data = capture("be_nano")
    ends = {24, 24 + 16 + 71, 24 + 2 * (16 + 71)}
    for cut in range(len(data)):
        if cut in ends:
            assert pcap.build(pcap.parse(data[:cut])) == data[:cut]
            continue
        with pytest.raises(DecodeError) as err:
            pcap.parse(data[:cut])
        assert err.value.offset is not None and err.value.offset <= cut, cut
        assert err.value.path.split(".")[0] in ("magic", "header", "capture"), str(err.value)
        assert "truncated" in str(err.value), (cut, str(err.value))
    with pytest.raises(
        DecodeError, match=r"packets\[1\].data at offset 127: truncated sized field: needs 71"
    ):
        pcap.parse(data[:130])
    for parse in (pcap.parse, pcap.parse_construct):  # inside the magic: not another magic
        with pytest.raises(
            DecodeError, match="magic at offset 0: truncated: needs 4 bytes, 3 remain"
        ):
            parse(data[:3])


def test_an_unknown_magic_and_an_unlisted_linktype(pcap):
    with pytest.raises(
        DecodeError, match=r"magic at offset 0: 168627466 \(0xa0d0d0a\) is not a known PcapMagic"
    ):
        pcap.parse(bytes.fromhex("0a0d0d0a") + bytes(20))  # pcapng's section header
    data = bytearray(capture("be_micro"))
    data[20:24] = struct.pack(">I", 147)  # LINKTYPE_USER0: kept as its number (open: true)
    model = pcap.parse(bytes(data))
    assert model.header.linktype == 147
    assert pcap.to_dict(model)["header"]["linktype"] == 147
    assert [p.data for p in model.capture.packets] == [f for _, _, f in packets()]  # raw bytes
    assert pcap.build(model) == bytes(data)
    assert pcap.build(pcap.from_dict(json.loads(json.dumps(pcap.to_dict(model))))) == bytes(data)


def test_spark_rows_are_one_per_packet_with_the_header_joined(pcap):
    pytest.importorskip("pyspark")
    names = pcap.spark_schema("pcap_file").fieldNames()
    assert names[:7] == ["ts_sec", "ts_frac", "incl_len", "orig_len", "data", "ts", "ts_ts"]
    assert names[7:] == [
        "magic",
        "version_major",
        "version_minor",
        "thiszone",
        "sigfigs",
        "snaplen",
        "linktype",
    ]
    for case in ("le_micro", "be_nano"):
        rows = list(pcap.iter_rows(capture(case), "pcap_file"))
        # data: one column per case with a payload (the Ethernet frame, the other links' bytes)
        assert [(r[4][0][2], r[4][0][3], r[4][1], r[5], r[-1]) for r in rows] == [
            (0x0800, f[14:], None, (s * 10**6 + u) * 1000, 1) for s, u, f in packets()
        ]
    assert rows[0][6] == datetime.datetime(
        2025, 11, 28, 15, 0, 0, 123456, tzinfo=datetime.timezone.utc
    )


def test_the_cli_path_of_a_newcomer(tmp_path, capsys):
    """decode, encode, inspect and schema with --spec, as specs/README.md walks them."""
    spec = ["--spec", str(SPEC)]
    assert main(["decode", "pcap", str(SAMPLE), *spec]) == 0
    form = json.loads(capsys.readouterr().out)
    first = form["capture"]["packets"][0]
    assert first["ts_sec_time"] == "2025-11-28T15:00:00Z"
    assert first["ts_time"] == "2025-11-28T15:00:00.123456000Z"  # a time:, not on the wire
    assert form["header"]["linktype"] == "ETHERNET"
    assert first["data"]["ethertype"] == "IPV4"
    (tmp_path / "a.json").write_text(json.dumps(form))
    out = tmp_path / "again.pcap"
    assert main(["encode", "pcap", str(tmp_path / "a.json"), "-o", str(out), *spec]) == 0
    assert out.read_bytes() == SAMPLE.read_bytes()
    assert main(["inspect", "pcap", str(SAMPLE), *spec]) == 0
    shown = capsys.readouterr().out
    assert "header.linktype = ETHERNET (1)" in shown
    assert "capture.packets[2].ts_frac = 5" in shown


def test_the_compiled_tier_of_the_users_package_reads_as_pure_python(pcap, tmp_path):
    """``generate --specs DIR --out PKG --compiled``: the package's module builds, and reads,
    rebuilds and fails every truncation as the in-memory module does; the capture is read
    by the compiled reader, in either byte order (tests/test_byte_order_tiers.py)."""
    skip_unless_compiled()
    (tmp_path / "myspecs").mkdir()
    shutil.copy(SPEC, tmp_path / "myspecs")
    out = build_package(tmp_path / "myspecs", tmp_path / "mypkg")
    compiled = import_module(out / "pcap.py", "user_mypkg_pcap")
    assert compiled._COMPILED is not None
    assert "pcap_file" in compiled.COMPILED_READERS
    assert "pcap_file" not in compiled.FALLBACKS["compiled"]
    for case in sorted(MAGICS):
        data = capture(case, snaplen=60)
        assert compiled.to_dict(compiled.parse(data)) == pcap.to_dict(pcap.parse(data))
        assert compiled.build(compiled.parse(data)) == data
        for cut in range(len(data)):
            try:
                pcap.parse(data[:cut])
            except DecodeError as err:
                with pytest.raises(DecodeError) as again:
                    compiled.parse(data[:cut])
                assert str(again.value) == str(err)


@pytest.mark.spark
def test_ingest_lands_one_row_per_packet(tmp_path):
    pyspark = pytest.importorskip("pyspark")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.pcap").write_bytes(capture())
    (tmp_path / "in" / "b.pcap").write_bytes(capture(snaplen=60))
    argv = ["ingest", "pcap", str(tmp_path / "in"), "--spec", str(SPEC), "--record", "pcap_file"]
    assert main([*argv, "--output", str(tmp_path / "lake"), "--master", "local[1]"]) == 0
    spark = pyspark.sql.SparkSession.builder.getOrCreate()
    table = spark.read.parquet(str(tmp_path / "lake" / "pcap"))
    got = sorted((r.incl_len, r.orig_len, r.linktype) for r in table.collect())
    assert got == sorted(
        [(71, 71, 1), (71, 71, 1), (53, 53, 1), (60, 71, 1), (60, 71, 1), (53, 53, 1)]
    )


# -- the mistakes a newcomer makes, each told by file, line and key, with what to do ------------

GOOD = SPEC.read_text()


@pytest.mark.parametrize(
    "old, new, where, says",
    [
        (  # YAML reads NULL (also yes/no, on/off, true/false) unquoted as null, not a name
            "'NULL': {value: 0",
            "NULL: {value: 0",
            ":45: enums.linktype.values: ",
            "the key NULL reads as YAML's null, not as text: quote it ('NULL': ...)",
        ),
        (
            'doc: "the link-layer header type"}',
            "doc: off}",
            ":71: records.header.fields[5].doc: ",
            "False is not of type 'string': YAML reads null, ~, true/false, yes/no and on/off",
        ),
        (  # a field indented less than its siblings
            "      - {name: version_minor, type: u16",
            "    - {name: version_minor, type: u16",
            ":67: ",
            "is this line indented less or more than the lines beside it?",
        ),
        (  # a record's keys indented as deep as the record
            "  header:\n    doc: The global header after the magic.\n    fields:",
            "  header:\n  doc: The global header after the magic.\n  fields:",
            ":64: records.doc: ",
            (
                "expected keys (a mapping) here, got 'The global header after the magic.'"
                ": if this line belongs to the key above it, indent it under that key"
            ),
        ),
        (
            "  header:\n    doc:",
            "  header:\n\tdoc:",
            ":64: ",
            "YAML indents with spaces, never tabs",
        ),
        (
            'doc: "capture time, seconds since 1970"}',
            "doc: capture time: seconds since 1970}",
            ":75: ",
            "a value inside {...} holding ': ' or ',' needs quotes",
        ),
        (  # a typo in a type name
            "{name: snaplen, type: u32",
            "{name: snaplen, type: u23",
            ":70: records.header.fields[4].type: ",
            "unknown type 'u23' (did you mean 'u32'",
        ),
        (
            "enum: linktype, open: true",
            "enum: link_type, open: true",
            ":71: records.header.fields[5].enum: ",
            "unknown enum 'link_type' (did you mean 'linktype'?)",
        ),
        (  # size naming a field read after it
            (
                '      - {name: orig_len, type: u32, doc: "the packet\'s length on the wire"}\n'
                "      - name: data\n"
            ),
            (
                '      - {name: data0, type: bytes, size: orig_len, doc: "x"}\n'
                '      - {name: orig_len, type: u32, doc: "the packet\'s length on the wire"}\n'
                "      - name: data\n"
            ),
            ":78: records.packet.fields[3].size: ",
            (
                "expression uses 'orig_len', which is read after this field (fields[4]): an "
                "expression reads only fields before it, so move 'orig_len' in front"
            ),
        ),
        (
            "        size: incl_len\n",
            "        size: incl_length\n",
            ":81: records.packet.fields[4].size: ",
            "'incl_length' is no earlier field and no length type (did you mean 'incl_len'?)",
        ),
        (  # a repeat with no way to end
            "type: packet, repeat: eos",
            "type: packet, repeat: true",
            ":95: records.packets.fields[0].repeat: ",
            "not a valid form for this key: True; the forms: eos, tagged",
        ),
        (  # a repeat to the end of the file with a field after it: never read
            '      - {name: packets, type: packet, repeat: eos, doc: "the packet records"}\n',
            (
                '      - {name: packets, type: packet, repeat: eos, doc: "the packet records"}\n'
                '      - {name: footer, type: u32le, doc: "x"}\n'
            ),
            ":95: records.packets.fields[0].repeat: ",
            (
                "repeat: eos reads to the end of the record, so footer after it would never be read:"
                " move them in front, or end this field another way"
            ),
        ),
        (  # the packet's parent is the list's record, which has no header
            "switch_on: _parent._parent.header.linktype",
            "switch_on: _parent.header.linktype",
            ":80: records.packet.fields[4].switch_on: ",
            "'_parent.header.linktype': packets has no field 'header' read before it",
        ),
        (  # the magic read in the order it chooses
            "{name: magic, type: u32be, enum: pcap_magic",
            "{name: magic, type: u32, enum: pcap_magic",
            ":57: records.pcap_file.endian.switch_on: ",
            "'magic' is a u32, read in the order it chooses: give it an order of its own",
        ),
        (  # a magic no order is given for
            "NANO_BE: be, MICRO_LE: le, NANO_LE: le}",
            "NANO_BE: be, MICRO_LE: le}",
            ":57: records.pcap_file.endian.cases: ",
            "no byte order for ['NANO_LE']: every member of pcap_magic needs one, or add a default:",
        ),
    ],
)
def test_a_newcomers_mistake_names_file_line_key_and_the_fix(tmp_path, old, new, where, says):
    assert GOOD.count(old) >= 1, old
    path = tmp_path / "pcap.yaml"
    path.write_text(GOOD.replace(old, new, 1))
    with pytest.raises(SpecError) as err:
        spec_model(load_text(path.read_text(), path, "myspecs/pcap.yaml"))
    assert str(err.value).startswith("myspecs/pcap.yaml" + where), str(err.value)
    assert says in str(err.value)


SWITCH = """\
format: t
title: t
doc: t
endian: le
default_record: r
enums:
  kind:
    doc: k
    type: u8
    values:
      A: {value: 1, doc: a}
      B: {value: 2, doc: b}
records:
  r:
    doc: r
    fields:
      - {name: kind, type: u8, enum: kind, doc: k}
      - name: body
        switch_on: kind
        doc: b
        cases:
          A: u8
"""


def test_a_switch_on_a_derived_copy_of_the_file_headers_linktype_is_refused(tmp_path):
    """Copying the header's linktype into each packet (``derived:``) and switching on the
    copy parses, but the builder never computes derived values, so it could not pick the
    case (EncodeError on every build): refused at load, naming the selector."""
    data_field = (
        '      - {name: link, type: u32, derived: "_parent._parent.header.linktype", doc: "copy"}\n'
        "      - name: data\n        switch_on: link\n        enum: linktype\n"
    )
    text = GOOD.replace(
        "      - name: data\n        switch_on: _parent._parent.header.linktype\n", data_field, 1
    )
    with pytest.raises(SpecError) as err:
        spec_model(load_text(text, tmp_path / "pcap.yaml", "pcap.yaml"))
    assert str(err.value).startswith(
        "pcap.yaml:81: records.packet.fields[5].switch_on: 'link' is a derived value: a "
        "switch is on a field read from the wire"
    ), str(err.value)


@pytest.mark.parametrize(
    "case, where, says",
    [
        ("          C: u16\n", ":23: records.r.fields[1].cases.C: ", "'C' is not a member of kind"),
        ("          b: u16\n", ":23: records.r.fields[1].cases.b: ", "(did you mean 'B'?)"),
        ("", ":21: records.r.fields[1].cases: ", "no case for ['B']: every member of kind needs"),
    ],
)
def test_a_switch_case_and_an_enum_member_that_do_not_meet(tmp_path, case, where, says):
    with pytest.raises(SpecError) as err:
        spec_model(load_text(SWITCH + case, tmp_path / "t.yaml", "t.yaml"))
    assert str(err.value).startswith("t.yaml" + where), str(err.value)
    assert says in str(err.value)
