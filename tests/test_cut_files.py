"""Cut files (``on_cut: keep``): a capture or log cut mid-record (its writer killed, copied
while it grew) keeps its whole elements, and the cut element's bytes as ``<name>_cut``, so
``build(parse(x)) == x`` still holds; only a read that runs out of input counts (the list
sees its element's read come back short), any other DecodeError still fails the parse, and
truncation is the same DecodeError in every tier, with or without the key.
The showcase is the newcomer's pcap spec (tests/data/user_specs/pcap.yaml) with
``on_cut: keep`` on its packets, on its sample cut at every byte, read by the fast reader
and construct alike (the quick tier reads whole captures, and leaves a cut one to the
exact reader; the compiled tier the same, tests/test_user_compiled.py); the spec key's
mistakes name file, line and key."""

from __future__ import annotations

import functools

import pytest

from generator import ROOT
from generator.emit.user_spec import import_spec, spec_model
from generator.spec.loader import load
from runtime.core.errors import DecodeError, SpecError

HERE = ROOT / "tests" / "data" / "user_specs"
SPEC = HERE / "pcap.yaml"
SAMPLE = (HERE / "pcap_udp.pcap").read_bytes()


KEEPING = "repeat: eos, on_cut: keep,"


@pytest.fixture(scope="module")
def pcap(tmp_path_factory):
    """pcap.yaml keeping a cut capture's whole packets (the shipped fixture reads them in
    the fast tiers: tests/test_byte_order_tiers.py)."""
    text = SPEC.read_text()
    assert text.count("repeat: eos,") == 1
    spec = tmp_path_factory.mktemp("cut") / "pcap.yaml"
    spec.write_text(text.replace("repeat: eos,", KEEPING))
    return import_spec(spec)


def packet_ends(pcap, data: bytes) -> list[int]:
    """Where each whole packet of ``data`` ends (the header's end first)."""
    ends = [24]
    for packet in pcap.parse(data).capture.packets:
        ends.append(ends[-1] + 16 + packet.incl_len)
    return ends


def test_the_sample_cut_at_every_byte_keeps_its_whole_packets(pcap):
    ends = packet_ends(pcap, SAMPLE)
    assert ends[-1] == len(SAMPLE) and len(ends) == 4
    for cut in range(24, len(SAMPLE) + 1):
        model = pcap.parse(SAMPLE[:cut])
        whole = max(k for k, end in enumerate(ends) if end <= cut)
        assert model.capture.packets == pcap.parse(SAMPLE).capture.packets[:whole], cut
        assert model.capture.packets_cut == (SAMPLE[ends[whole] : cut] or None), cut
        assert pcap.build(model) == SAMPLE[:cut], cut
        assert pcap.build(pcap.parse_construct(SAMPLE[:cut])) == SAMPLE[:cut]


def test_the_json_form_holds_the_cut_bytes_or_null(pcap):
    whole = pcap.to_dict(pcap.parse(SAMPLE))
    assert whole["capture"]["packets_cut"] is None
    cut = pcap.to_dict(pcap.parse(SAMPLE[:-5]))
    assert len(cut["capture"]["packets"]) == 2
    assert cut["capture"]["packets_cut"] is not None


def test_a_cut_inside_the_header_still_fails(pcap):
    for cut in range(24):
        with pytest.raises(DecodeError) as err:
            pcap.parse(SAMPLE[:cut])
        assert type(err.value) is DecodeError and err.value.offset <= cut, cut


def failure(parse, data: bytes):
    try:
        parse(data)
    except DecodeError as err:
        return type(err).__name__, err.offset, err.path, str(err)
    return "ok"


def test_without_the_key_a_cut_is_the_same_error_in_every_tier():
    """The shipped spec (no ``on_cut``) reads a capture in the fast tiers: a cut at any byte
    is the DecodeError construct raises, at the same offset and path."""
    shipped = import_spec(SPEC)
    ends = packet_ends(shipped, SAMPLE)
    for cut in range(len(SAMPLE)):
        fast = failure(shipped.parse, SAMPLE[:cut])
        assert fast != "ok" or cut in ends, cut
        assert fast == failure(shipped.parse_construct, SAMPLE[:cut]), cut


def test_a_bad_value_in_the_last_packet_still_fails(pcap):
    """Only a read that runs out of input is a cut: a size too small for the Ethernet frame
    inside a whole packet (the frame's read runs past its region, not past the input) is a
    plain DecodeError, as it was."""
    start = packet_ends(pcap, SAMPLE)[2]
    bad = bytearray(SAMPLE[: start + 16 + 10])
    bad[start + 8 : start + 12] = (10).to_bytes(4, "little" if bad[0] == 0xD4 else "big")
    with pytest.raises(DecodeError) as err:
        pcap.parse(bytes(bad))
    assert type(err.value) is DecodeError
    assert err.value.path.startswith("capture.packets[2]"), str(err.value)


def test_a_model_made_from_values_builds_without_a_cut(pcap):
    model = pcap.parse(SAMPLE)
    assert pcap.build(model) == SAMPLE
    model.capture.packets_cut = b"\x01\x02"
    assert pcap.build(model) == SAMPLE + b"\x01\x02"


def test_the_fast_reader_and_writer_keep_a_cut_as_construct_does(pcap):
    """The fast reader reads the whole packets and tells a cut as RepeatEos does (its read
    ran past the input's end): at every byte, the same model, JSON form and bytes built, or
    the same DecodeError, as construct."""
    for tier in ("parse", "build"):  # packets alone reads `_parent`: fast inside pcap_file
        assert "pcap_file" not in pcap.FALLBACKS[tier]
        assert "on_cut" not in pcap.FALLBACKS[tier]["packets"]
    assert "pcap_file" in pcap.QUICK_READERS  # whole packets; a cut is the exact reader's
    for cut in range(len(SAMPLE) + 1):
        data = SAMPLE[:cut]
        fast, slow = failure(pcap.parse, data), failure(pcap.parse_construct, data)
        assert fast == slow, cut
        if fast != "ok":
            continue
        model = pcap.parse(data)
        assert model == pcap.parse_construct(data), cut
        assert pcap.to_dict(model) == pcap.to_dict(pcap.parse_construct(data)), cut
        assert pcap.build(model) == data, cut


def test_a_bad_value_in_a_cut_capture_is_the_same_error_fast_and_slow(pcap):
    """A bad value before the cut (a size too small for the Ethernet frame in a whole
    packet, the last one cut) is not a cut: the same DecodeError in both readers."""
    ends = packet_ends(pcap, SAMPLE)
    order = "little" if SAMPLE[0] == 0xD4 else "big"
    for cut in range(ends[1] + 16, len(SAMPLE)):
        bad = bytearray(SAMPLE[:cut])
        bad[ends[1] + 8 : ends[1] + 12] = (10).to_bytes(4, order)
        assert failure(pcap.parse, bytes(bad)) == failure(pcap.parse_construct, bytes(bad)), cut


def test_the_fast_writer_refuses_cut_bytes_that_are_not_bytes_as_construct_does(pcap):
    from runtime.core.errors import EncodeError

    model = pcap.parse(SAMPLE)
    model.capture.packets_cut = "text"
    with pytest.raises(EncodeError) as err:
        pcap.build(model)
    assert "packets_cut" in str(err.value)


def test_the_rows_of_a_cut_capture_say_how_many_bytes_were_cut(pcap):
    """``_cut`` on every row: the bytes of the packet the file ends inside (in no row), or
    null for a whole file; the rows are the whole packets."""
    assert pcap.spark_schema("pcap_file").fieldNames()[-1] == "_cut"
    assert [row[-1] for row in pcap.iter_rows(SAMPLE, "pcap_file")] == [None] * 3
    rows = list(pcap.iter_rows(SAMPLE[:-5], "pcap_file"))
    tail = SAMPLE[packet_ends(pcap, SAMPLE)[2] : -5]
    assert [row[-1] for row in rows] == [len(tail)] * 2


@pytest.mark.spark
def test_ingest_counts_the_cut_files(spark, tmp_path, pcap):
    """A whole capture and one cut inside its last packet: the rows of both whole
    packets' (5), the cut file's rows with ``_cut``, and ``cut`` 1 in the summary (records =
    corrupt + empty + decoded still: a cut file is a decoded record)."""
    from generator.cli.ingest import ingest

    spec = tmp_path / "pcap.yaml"
    spec.write_text(SPEC.read_text().replace("repeat: eos,", KEEPING))
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "whole.pcap").write_bytes(SAMPLE)
    (tmp_path / "in" / "cut.pcap").write_bytes(SAMPLE[:-5])
    options = {"spec": str(spec), "record": "pcap_file"}
    out = tmp_path / "lake"
    summary = ingest("pcap", [tmp_path / "in"], out, spark=spark, schema_options=options)
    assert (summary["records"], summary["events"], summary["cut"]) == (2, 5, 1)
    assert summary["corrupt"] == summary["empty"] == 0
    rows = spark.read.parquet(str(out / "pcap")).collect()
    cut = sorted((r._source_file.endswith("cut.pcap"), r._cut) for r in rows)
    tail = len(SAMPLE) - 5 - packet_ends(pcap, SAMPLE)[2]
    assert cut == [(False, None)] * 3 + [(True, tail)] * 2


SHAPES = """\
format: shapes
title: shapes
doc: Elements of the shapes a cut falls in.
endian: le
default_record: top
records:
  top:
    doc: A version, then the elements.
    fields:
      - {{name: version, type: u8, doc: "v"}}
      - {{name: xs, type: {element}, repeat: eos, on_cut: keep, doc: "x"}}
  prefixed:
    doc: A varint-prefixed text, a varint, a NUL-terminated text (read ahead, given back).
    fields:
      - {{name: name, type: str, size: uvarint, doc: "n"}}
      - {{name: n, type: varint, doc: "n"}}
      - {{name: text, type: str, terminator: 0, encoding: latin-1, doc: "t"}}
  region:
    doc: A sized region of u16s to its end, then a u16.
    fields:
      - {{name: size, type: u8, doc: "s"}}
      - {{name: inner, type: inner, size: size, doc: "i"}}
      - {{name: tail, type: u16, doc: "t"}}
  inner:
    doc: u16s to the end of the region.
    fields:
      - {{name: ys, type: u16, repeat: eos, doc: "y"}}
  counted:
    doc: A count, a chunk of as many uvarints (one bounded read, given back), a small u8.
    fields:
      - {{name: n, type: u8, doc: "n"}}
      - {{name: zs, type: uvarint_chunk, count: n, doc: "z"}}
      - {{name: small, type: u8, valid: "small < 128", doc: "s"}}
"""


@pytest.mark.parametrize("element", ["u16", "prefixed", "region", "counted"])
def test_every_shape_of_element_is_cut_as_construct_cuts_it(tmp_path, element):
    """Bytes of a few values (bad text, long varints, sizes past the end) in every
    tier against construct: the same model (``xs_cut`` too) or the same DecodeError; a cut
    is only a read that ran out (a varint or a terminator read ahead, then given back, is
    not one: ``runtime.core.stream.read_ahead``)."""
    import random

    spec = tmp_path / "shapes.yaml"
    spec.write_text(SHAPES.format(element=element))
    shapes = import_spec(spec)
    assert "top" not in shapes.FALLBACKS["parse"]
    rng, cuts = random.Random(element), 0
    for _ in range(1500):
        data = bytes(
            rng.choice(b"\x00\x01\x02\x03\x04A\x80\xff") for _ in range(rng.randint(0, 20))
        )
        assert failure(shapes.parse, data) == failure(shapes.parse_construct, data), data.hex()
        if failure(shapes.parse, data) == "ok":
            model = shapes.parse(data)
            assert model == shapes.parse_construct(data), data.hex()
            assert shapes.build(model) == data, data.hex()
            cuts += model.xs_cut is not None
    assert cuts > 100


def test_the_quick_tier_reads_a_cut_log_once():
    """The quick reader keeps the cut itself where its elements are read by their own
    reader (``runtime.core.sequences.cut_or_retry``): at every byte of a log, its model
    is construct's, and not the exact reader's after a Retry; a bad value is a Retry."""
    from runtime.core.fast import QUICK_FAILURES
    from runtime.core.limits import DEFAULT, Limits

    log = import_spec(HERE / "cutlog.yaml")
    quick = log.QUICK_READERS["log"][0]
    whole = bytes([1, 2, 7, 7, 0, 3, 1, 2, 3])
    for cut in range(1, len(whole) + 1):
        data = whole[:cut]
        model, pos = quick(data, 0, len(data), DEFAULT)
        assert pos == len(data) and model == log.parse_construct(data), cut
        assert log.to_dict(model) == log.to_dict(log.parse_construct(data)), cut
    with pytest.raises(QUICK_FAILURES):  # a size past max_string: the exact reader's error
        quick(whole, 0, len(whole), Limits(max_string=2))
    assert failure(lambda d: log.parse(d, max_string=2), whole) == failure(
        lambda d: log.parse_construct(d, max_string=2), whole
    )


def test_the_compiled_readers_cut_is_the_quick_tiers():
    """``compiled_cut`` (what a compiled reader calls where an element's read declined: its
    bytes from there, read from 0) keeps what ``cut_or_retry`` keeps where the element sits,
    and is None where that raises Retry; in Python, so in every tier."""
    from runtime.core.fast import Retry
    from runtime.core.limits import DEFAULT, Limits
    from runtime.core.sequences import compiled_cut, cut_or_retry

    log = import_spec(HERE / "cutlog.yaml")
    whole = bytes([1, 2, 7, 7, 0, 3, 1, 2, 3])
    for limits in (DEFAULT, Limits(max_string=2)):
        for start in (1, 4, 5):  # where each entry starts
            for cut in range(start + 1, len(whole) + 1):
                data = whole[:cut]
                try:
                    want = cut_or_retry(log._read_entry, data, start, cut, limits)
                except Retry:
                    want = None
                assert compiled_cut(log._read_entry, data[start:], limits) == want, (start, cut)


VARINT_LOG = """\
format: vlog
title: varint log
doc: A log of varint-sized entries.
endian: le
default_record: log
records:
  log:
    doc: A log.
    fields:
      - {name: entries, type: entry, repeat: eos, on_cut: keep, doc: "the entries"}
  entry:
    doc: An entry.
    fields:
      - {name: size, type: uvarint, doc: "the size"}
      - {name: body, type: bytes, size: size, doc: "the body"}
"""


def test_a_cut_element_that_notes_a_kept_form_is_left_to_the_python_readers(tmp_path):
    """A cut entry whose size is a varint in more bytes than it needs: its exact read notes
    the form (``runtime.core.kept``), which the compiled readers decline, so
    ``compiled_cut`` is None and leaves the count as it was; parse keeps the cut and the
    form, as construct does."""
    from runtime.core import kept
    from runtime.core.limits import DEFAULT
    from runtime.core.sequences import compiled_cut

    spec = tmp_path / "vlog.yaml"
    spec.write_text(VARINT_LOG)
    vlog = import_spec(spec)
    seen = kept.SEEN.count
    assert compiled_cut(vlog._read_entry, b"\x81\x00", DEFAULT) is None
    assert kept.SEEN.count == seen
    assert compiled_cut(vlog._read_entry, b"\x02\x00", DEFAULT) == b"\x02\x00"
    data = b"\x01\x05\x81\x00"
    model = vlog.parse(data)
    assert model == vlog.parse_construct(data) and model.entries_cut == b"\x81\x00"
    assert vlog.build(model) == data


def test_a_choice_read_ahead_near_the_end_is_no_cut(tmp_path):
    """MessagePack's values back to back (specs/msgpack.yaml, ``on_cut: keep`` added: a
    stream still being written): each value's form is a choice, whose reader looks at the
    widest case's leading bytes and gives them back (``runtime.core.stream.read_ahead``).
    Fewer there at the end of the input is no cut: a bad value at the end (a fixstr's bad
    UTF-8) is the DecodeError in construct as in the fast tiers, and a value cut inside
    its leading bytes or after them is a cut in both."""
    import random

    text = (ROOT / "specs" / "msgpack.yaml").read_text()
    whole = 'repeat: eos, doc: "each top-level value'
    assert text.count(whole) == 1
    spec = tmp_path / "msgpack.yaml"
    spec.write_text(text.replace(whole, 'repeat: eos, on_cut: keep, doc: "each top-level value'))
    msgpack = import_spec(spec)
    bad = failure(msgpack.parse_construct, bytes([0x01, 0xA1, 0xFF]))
    assert bad[:3] == ("DecodeError", 2, "values[1].form.data"), bad
    assert msgpack.parse_construct(bytes([0x01, 0xCD, 0x01])).values_cut == bytes([0xCD, 0x01])
    rng = random.Random(7)
    alphabet = b"\x00\x01\x7f\x80\x81\x90\x91\xa1\xa2\xc0\xc2\xc3\xc4\xcc\xd0\xd4\xd9\xff\xc7"
    for _ in range(3000):
        data = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
        assert failure(msgpack.parse, data) == failure(msgpack.parse_construct, data), data.hex()
        if failure(msgpack.parse, data) == "ok":
            assert msgpack.parse(data) == msgpack.parse_construct(data), data.hex()
            assert msgpack.build(msgpack.parse(data)) == data, data.hex()


RECORDS = """\
format: cuts
title: cuts
doc: A spec that puts on_cut where it does not go.
endian: le
default_record: log
records:
  log:
    doc: A log.
    fields:
{fields}
  entry:
    doc: An entry.
    fields:
      - {{name: size, type: u8, doc: "the size"}}
      - {{name: body, type: bytes, size: size, doc: "the body"}}
"""


@pytest.mark.parametrize(
    "fields, key, says",
    [
        (
            '      - {name: entries, type: entry, repeat: {count: 2}, on_cut: keep, doc: "e"}',
            "log.fields[0].on_cut",
            "goes with a repeat: eos",
        ),
        (
            (
                '      - {name: entries, type: entry, repeat: eos, on_cut: keep, doc: "e"}\n'
                '      - {name: tail, type: u8, doc: "t"}'
            ),
            "log.fields[0].on_cut",
            "goes on the record's last field",
        ),
        (
            '      - {name: entries, type: entry, repeat: eos, on_cut: drop, doc: "e"}',
            "log.fields[0].on_cut",
            "keep",
        ),
    ],
)
def test_on_cut_where_it_does_not_go_names_file_line_and_key(tmp_path, fields, key, says):
    path = tmp_path / "cuts.yaml"
    path.write_text(RECORDS.format(fields=fields))
    with pytest.raises(SpecError) as err:
        spec_model(load(path))
    assert err.value.file.endswith("cuts.yaml") and err.value.line is not None, str(err.value)
    assert key in err.value.key, str(err.value)
    assert says in str(err.value)


def test_a_cut_capture_traces_its_whole_packets_and_no_open_span(pcap):
    """``wirespec inspect``'s spans: the cut element's are dropped (its bytes are the
    list's, kept as ``packets_cut``), so every node is closed."""
    from runtime.core.codec import trace

    cut = packet_ends(pcap, SAMPLE)[2] + 20
    result = trace(pcap.RECORDS[pcap.DEFAULT_RECORD], SAMPLE[:cut])
    assert result.error is None
    packets = result.root.find("capture", "packets")
    assert [child.key for child in packets.children] == [0, 1]
    assert packets.end == cut
    assert all(node.end is not None for node in result.root.walk())


# -- the compiled tier: a user's build of the spec ------------------------------------------


LOG = (HERE / "cutlog.yaml").read_text()
"""A log of sized entries, often cut (its records' own columns, no row path)."""


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    """The pcap spec keeping a cut, and a log's, built as a user's package (~25 s)."""
    from tests.user_packages import build_package, import_module, skip_unless_compiled

    skip_unless_compiled()
    specs = tmp_path_factory.mktemp("cut_specs")
    (specs / "pcap.yaml").write_text(SPEC.read_text().replace("repeat: eos,", KEEPING))
    (specs / "cutlog.yaml").write_text(LOG)
    out = build_package(specs, tmp_path_factory.mktemp("cut_pkg"))
    return {
        name: import_module(out / f"{name}.py", f"cut_files_{name}") for name in ("pcap", "cutlog")
    }


@pytest.fixture(scope="module")
def built(package):
    return package["pcap"]


def test_the_compiled_reader_reads_whole_captures_and_leaves_a_cut_to_the_exact_one(built):
    """A whole capture is the compiled reader's (``packets_cut`` None); a cut one it
    declines, and the exact reader keeps the cut, as construct does, at every byte."""
    ends = packet_ends(built, SAMPLE)
    assert "pcap_file" not in built.COMPILED_WRITERS  # its byte order is the data's
    read = built.COMPILED_READERS["pcap_file"]
    for cut in range(len(SAMPLE) + 1):
        data = SAMPLE[:cut]
        model = read(data, built._LIMITS)
        assert (model is not None) == (cut in ends), cut
        assert model is None or model == built.parse_construct(data), cut
        assert failure(built.parse, data) == failure(built.parse_construct, data), cut
        if cut >= 24:
            assert built.parse(data) == built.parse_construct(data), cut
            assert built.build(built.parse(data)) == data, cut


def test_the_compiled_reader_reads_a_cut_log_once(package):
    """The compiled reader keeps the cut itself where its elements are read by their own
    reader (``_cut_at``: ``runtime.core.sequences.compiled_cut``): at every byte of a log,
    its model is construct's (not a decline to the exact reader); a bad value declines,
    and parse says what construct says."""
    from runtime.core.limits import DEFAULT, Limits

    log = package["cutlog"]
    read = log.COMPILED_READERS["log"]
    whole = bytes([1, 2, 7, 7, 0, 3, 1, 2, 3])
    for cut in range(1, len(whole) + 1):
        data = whole[:cut]
        model = read(data, DEFAULT)
        assert model == log.parse_construct(data) == log.parse(data), cut
        assert log.to_dict(model) == log.to_dict(log.parse_construct(data)), cut
        assert log.build(model) == data, cut
    assert read(whole, Limits(max_string=2)) is None  # a size past max_string: not a cut
    assert read(whole[:-1], Limits(max_count=1)) is None  # more entries than max_count
    for limits in ({"max_string": 2}, {"max_count": 1}):
        parse = functools.partial(log.parse, **limits)
        exact = functools.partial(log.parse_construct, **limits)
        assert failure(parse, whole[:-1]) == failure(exact, whole[:-1])


def test_the_compiled_writer_writes_a_cut_log_as_the_fast_writer_does(package):
    """The compiled writer writes the whole entries, then ``entries_cut`` (bytes or a
    bytearray), byte for byte as the Python fast writer does, at every byte of a cut log
    (the writer itself, not construct after it declined); what is not bytes it refuses,
    and build says what construct says."""
    from runtime.core.errors import EncodeError

    log = package["cutlog"]
    write = log.COMPILED_WRITERS["log"]
    whole = bytes([1, 2, 7, 7, 0, 3, 1, 2, 3])
    for cut in range(1, len(whole) + 1):
        model = log.parse(whole[:cut])
        assert (model.entries_cut is None) == (cut in (1, 4, 5, 9)), cut
        compiled, python = bytearray(), bytearray()
        write(model, compiled)
        log._write_log(model, python)
        assert compiled == python == whole[:cut], cut
        assert log.build(model) == whole[:cut], cut
    model = log.parse(whole)
    model.entries_cut = bytearray(b"\x05\x01")
    compiled = bytearray()
    write(model, compiled)
    assert compiled == whole + b"\x05\x01" == log.build(model)
    model.entries_cut = "text"
    with pytest.raises(TypeError):
        write(model, bytearray())
    with pytest.raises(EncodeError) as err:
        log.build(model)
    assert "entries_cut" in str(err.value)


def test_the_compiled_arrow_writer_writes_whole_logs_and_leaves_a_cut_one_to_python(package):
    """The compiled Arrow writer writes a whole log's columns (``_cut`` null) and declines
    a cut one, whose row the Python rows give (``_cut`` its size): one batch, the same
    columns as ``to_rows``."""
    pa = pytest.importorskip("pyarrow")
    from pyspark.sql.pandas.types import to_arrow_schema

    from runtime.core import tier
    from runtime.core.limits import DEFAULT

    log = package["cutlog"]
    whole, cut = bytes([1, 2, 7, 7, 1, 9]), bytes([1, 2, 7, 7, 3, 9])
    assert log.parse(cut).entries_cut == bytes([3, 9])
    arrow = tier.compiled("runtime._compiled.arrow")
    assert log._COMPILED.bind_arrow(vars(log))
    fields = list(to_arrow_schema(log.spark_schema("log"), timezone="UTC"))
    assert fields[-1].name == "_cut"
    out, counts = arrow.builder_for(pa.struct(fields)), []
    assert log._COMPILED.write_arrow("log", pa.array([whole, cut]), 0, 2, out, counts, DEFAULT) == 1
    for row in log.to_rows(log.parse(cut), "log"):
        out.append(row)
    got = out.finish()
    rows = [*log.to_rows(log.parse(whole), "log"), *log.to_rows(log.parse(cut), "log")]
    assert [row[-1] for row in rows] == [None, 2]
    want = [pa.array(column, f.type) for column, f in zip(zip(*rows), fields)]
    assert [got.field(k) for k in range(len(fields))] == want
