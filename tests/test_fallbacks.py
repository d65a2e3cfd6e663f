"""No silent slow paths: every record that a generated module parses or builds with construct
instead of its fast path, or reads without a quick-tier or compiled reader, is declared
(``FALLBACKS``, the module header, ``wirespec generate -v``) with why, and the list for each
shipped spec is pinned here, so a new fallback cannot appear unnoticed.

The fallbacks the issue named are gone: ``bytes``/``str`` of ``size: eos``, a switch on a
plain integer field (an open enum's, say) and a checksum read only ``if:`` its condition
holds are read and written by the fast path, and held equal to construct here (bytes and
models, on hypothesis-generated models and every truncation of their bytes).
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from generator.cli.main import main
from generator.emit import fallbacks
from generator.emit.generate import render_spec, spec_fallbacks
from runtime.core.errors import DecodeError
from tests.test_fastbuild import _outcome as _built
from tests.test_generator import load_module

ROOT = Path(__file__).resolve().parent.parent
_ALONE = fallbacks.alone("parse")
_ALONE_BUILD = fallbacks.alone("build")

CONSTRUCT_PATHS = {
    "mysql_serialization": {
        "parse": {"binlog_event": _ALONE},
        "build": {"binlog_event": _ALONE_BUILD},
    },
    "plainbuffer": {"parse": {}, "build": {}},
    "avro_container": {
        "parse": {"block_records": _ALONE, "data_block": _ALONE},
        "build": {"block_records": _ALONE_BUILD, "data_block": _ALONE_BUILD},
    },
    "kafka_record_batch": {
        "parse": {"kafka_record": _ALONE, "batch": _ALONE},
        "build": {},
    },
    "msgpack": {"parse": {}, "build": {}},
    "protobuf_wire": {"parse": {}, "build": {}},
    "pgoutput": {"parse": {}, "build": {}},
    "bson": {"parse": {}, "build": {}},
    "png": {"parse": {}, "build": {}},  # a chunk's length before its type: reserved, patched
    "ticdc_craft": {
        "parse": {"header": _ALONE, "body": _ALONE},
        "build": {
            "body": _ALONE_BUILD,
            "message": "runtime primitive craft_message: construct around its own writer",
        },
    },
    "ticdc_open_protocol": {"parse": {}, "build": {}},
}
"""Per shipped spec: the records ``parse``/``build`` handle with construct, and why."""


WITHOUT_TIERS = {
    "mysql_serialization": {
        # every record has a plan; these are read inline where their one reader reads them
        tier: {"format_description_event", "binlog_event", "gtid_commit_timestamps", "uint56"}
        | {"packed_integer", "uint24", "gtid_server_versions"}
        for tier in ("quick", "compiled")
    },
    "plainbuffer": {"quick": {"cell_value"}, "compiled": {"cell_value"}},
    # read inline where used (data_block and block_records read their parents')
    "avro_container": {
        tier: {"device", "block_records", "data_block"} for tier in ("quick", "compiled")
    },
    # read inline where used (they read their parents)
    "kafka_record_batch": {tier: {"kafka_record", "batch"} for tier in ("quick", "compiled")},
    # recursive records, choices and bit fields: every record has both tiers
    "msgpack": {"quick": set(), "compiled": set()},
    # the chunk data records are read inline where the chunk reads them
    "png": {
        tier: {
            "image_header",
            "palette",
            "text",
            "latin1_text",
            "compressed_text",
            "utf8_text",
            "international_text",
            "last_modified",
            "physical_dimensions",
            "gamma",
        }
        for tier in ("quick", "compiled")
    },
    # runtime/_compiled/protobuf.pyx reads layout: protobuf; no quick tier does
    "protobuf_wire": {
        "quick": {"money", "address", "line_item", "payment_card", "order"},
        "compiled": set(),
    },
    # every layout record is planned (header and body read inline in the frame); the
    # compiled tier declines the frame's trailer, whose regions runtime objects read
    "ticdc_craft": {
        "quick": {"header", "body", "message"},
        "compiled": {"header", "body", "message"},
    },
    "ticdc_open_protocol": {"quick": set(), "compiled": set()},
    # the bodies only the message (or replication_frame) switch reads are read inline
    # there; the ones the streamed_message switch reads too have readers of their own
    "pgoutput": {
        tier: {"begin", "commit", "origin", "stream_start", "stream_commit", "stream_abort"}
        | {"begin_prepare", "commit_prepared", "rollback_prepared", "xlog_data", "keepalive"}
        for tier in ("quick", "compiled")
    },
    # the values only the element switch reads (and a binary's payload and old subtype)
    # are read inline there
    "bson": {
        tier: {"binary", "binary_payload", "old_binary", "db_pointer", "regex"}
        | {"timestamp", "utc_datetime"}
        for tier in ("quick", "compiled")
    },
}
"""Per shipped spec: the records without a quick-tier or compiled reader (the reasons are
the lowering's, checked to be there)."""

THRIFT = {"parquet", "thrift_compact"}
"""Thrift specs: their modules read and write every struct straight, with no construct path."""
LIBRARIES = {"mysql_types", "ticdc_types"}
"""Specs of enums only, which other specs import: no module, so no fallbacks."""


@pytest.mark.parametrize("fmt", sorted(THRIFT))
def test_a_thrift_module_declares_no_fallback(fmt):
    module = importlib.import_module(f"generated.{fmt}")
    assert module.FALLBACKS == {"parse": {}, "build": {}}
    assert (
        "# Fast paths (FALLBACKS): every struct" in (ROOT / "generated" / f"{fmt}.py").read_text()
    )


@pytest.fixture(scope="module")
def shipped():
    return spec_fallbacks(ROOT / "specs")


def test_every_shipped_spec_has_its_fallbacks_pinned(shipped):
    specs = {p.stem for p in (ROOT / "specs").glob("*.yaml")}
    assert set(shipped) | THRIFT | LIBRARIES == specs
    new = {fmt: shipped[fmt] for fmt in set(shipped) - set(CONSTRUCT_PATHS)}
    assert not new, f"pin the fallbacks of the new spec(s) in this test: {new}"
    assert set(CONSTRUCT_PATHS) == set(WITHOUT_TIERS) == set(shipped)


@pytest.mark.parametrize("fmt", sorted(CONSTRUCT_PATHS))
def test_the_fallbacks_of_each_spec_are_the_pinned_ones(fmt, shipped):
    found = shipped[fmt]
    assert {t: found[t] for t in ("parse", "build")} == CONSTRUCT_PATHS[fmt]
    assert {t: set(found[t]) for t in ("quick", "compiled")} == WITHOUT_TIERS[fmt]
    assert all(why.strip() for records in found.values() for why in records.values())


@pytest.mark.parametrize("fmt", sorted(CONSTRUCT_PATHS))
def test_the_module_declares_them_in_its_header_and_constant(fmt, shipped):
    module = importlib.import_module(f"generated.{fmt}")
    assert module.FALLBACKS == shipped[fmt]
    text = (ROOT / "generated" / f"{fmt}.py").read_text()
    head = text[: text.index('"""')]
    for tier, records in module.FALLBACKS.items():
        for name, why in records.items():
            assert f"#     {name}: {why}\n" in head
        assert (f"#   {tier}: every record\n" in head) == (not records)
    # what the declaration says is what parse and build do (a Kafka message and its claim
    # check are no spec records: runtime/formats/open_protocol.py's codec reads them)
    for name in set(module.RECORDS) - set(getattr(module, "_MESSAGE_RECORDS", ())):
        assert (name in module.FAST_READERS) == (name not in module.FALLBACKS["parse"])
        assert (name in module.FAST_WRITERS) == (name not in module.FALLBACKS["build"]) or (
            module.FALLBACKS["build"][name].startswith("runtime primitive")
        )


GREEDY = """\
format: greedy
title: Greedy
doc: Fields to the end, a switch on a plain integer and a conditional checksum.
endian: be
default_record: item
enums:
  kind:
    doc: Kinds.
    type: u8
    values:
      NUM: {value: 1, doc: a number}
      TEXT: {value: 2, doc: text}
      NIL: {value: 3, doc: nothing}
records:
  item:
    doc: An item.
    fields:
      - {name: code, type: u8, doc: A plain code (no enum).}
      - name: payload
        switch_on: code
        enum: kind
        cases:
          NUM: {type: u32}
          TEXT: {type: str, size: u8}
          NIL: {type: empty}
          default: {type: bytes, size: 2}
        doc: The payload.
      - {name: has_crc, type: u8, doc: Whether a CRC follows.}
      - name: crc
        type: u32
        if: "has_crc == 1"
        checksum: {algorithm: crc32, over: [code, payload, has_crc]}
        doc: A CRC of what is before it.
      - {name: rest, type: bytes, size: eos, doc: The rest.}
  text:
    doc: Text to the end.
    fields:
      - {name: lead, type: u8, doc: One byte.}
      - {name: body, type: str, size: eos, doc: The text.}
"""


@pytest.fixture(scope="module")
def greedy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("greedy")
    (folder / "greedy.yaml").write_text(GREEDY)
    return load_module("greedy_mod", render_spec(folder / "greedy.yaml")[1], folder)


def _parsed(parse, data, record):
    try:
        return "ok", parse(data, record)
    except DecodeError as err:
        return type(err).__name__, str(err), err.offset, err.path


def test_the_named_fallbacks_are_fast_now(greedy):
    assert greedy.FALLBACKS["parse"] == greedy.FALLBACKS["build"] == {}
    assert set(greedy.FAST_READERS) == set(greedy.FAST_WRITERS) == {"item", "text"}


@pytest.mark.parametrize("record", ["item", "text"])
def test_fast_and_construct_agree_on_generated_models(greedy, record):
    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(greedy.strategies(record))
    def check(model):
        data = greedy.build_construct(model, record)
        out = bytearray()
        greedy.FAST_WRITERS[record](model, out)  # the writer itself, not the fallback
        assert bytes(out) == data == greedy.build(model, record)
        parsed = _parsed(greedy.parse, data, record)
        assert parsed == _parsed(greedy.parse_construct, data, record)
        assert parsed[0] == "ok" and greedy.build(parsed[1], record) == data
        for cut in range(len(data)):
            truncated = data[:cut]
            expected = _parsed(greedy.parse_construct, truncated, record)
            assert _parsed(greedy.parse, truncated, record) == expected

    check()


@pytest.mark.parametrize(
    ("record", "data"),
    [
        ("text", b"\x01\xff\xfe"),  # invalid UTF-8 to the end: construct's error word for word
        ("text", b"\x01ok\xc3"),
        ("item", b"\x01\x00\x00\x00\x05\x01\x00\x00\x00\x00"),  # a wrong CRC
        ("item", b"\x07ab\x02"),
        ("item", b"\x02\x05ab"),
    ],
)
def test_fast_and_construct_agree_on_bad_bytes(greedy, record, data):
    assert _parsed(greedy.parse, data, record) == _parsed(greedy.parse_construct, data, record)


@pytest.mark.parametrize(
    "change",
    [
        {"rest": "text"},
        {"rest": bytearray(b"ok")},
        {"code": 256},
        {"code": 2, "payload": 5},
        {"has_crc": 1, "crc": 7},  # computed, whatever the model says
    ],
)
def test_fast_and_construct_agree_on_models_to_build(greedy, change):
    model = greedy.Item(code=1, payload=5, has_crc=0, crc=None, rest=b"r")
    for name, value in change.items():
        setattr(model, name, value)
    expected = _built(greedy.build_construct, model, "item")
    assert _built(greedy.build, model, "item") == expected
    text = greedy.Text(lead=1, body=b"bytes, not text")
    assert _built(greedy.build, text, "text") == _built(greedy.build_construct, text, "text")


def test_generate_verbose_lists_the_fallbacks(tmp_path, capsys):
    specs, out = tmp_path / "specs", tmp_path / "out"
    specs.mkdir()
    out.mkdir()
    (specs / "greedy.yaml").write_text(GREEDY)
    assert main(["generate", "--specs", str(specs), "--out", str(out), "-v"]) == 0
    lines = capsys.readouterr().out.splitlines()
    declared = fallbacks.report("greedy", spec_fallbacks(specs)["greedy"])
    assert [line for line in lines if line.startswith("fallback ")] == [
        f"fallback {line}" for line in declared
    ]
    assert (
        "fallback greedy: quick: item: no plan: crc: a raw item that may be None when present"
        in lines
    )


IGNORED_KEYS = {
    "{name: x, type: bytes, size: 4, encoding: ascii, doc: d}": "encoding: goes with a str",
    "{name: x, type: u8, max_length: 3, doc: d}": "max_length goes with a str or bytes",
    "{name: x, type: u16, size: 2, doc: d}": "a u16 has a size of its own",
    "{name: x, type: u8, repeat: {count: 2}, min_count: 1, doc: d}": "min_count goes with",
    "{name: x, type: u8, min_count: 1, doc: d}": "min_count goes with repeat: eos or tagged",
    "{name: x, type: str, size: 2, const: 1, doc: d}": "const: goes with a number type",
    "{name: x, type: u32, value: '2', checksum: {algorithm: crc32, over: [a]}, doc: d}": (
        "a checksum is computed: no value: with it"
    ),
}


@pytest.mark.parametrize("field", sorted(IGNORED_KEYS))
def test_a_key_no_emitter_would_act_on_is_refused_at_its_line(tmp_path, field):
    from runtime.core.errors import SpecError

    spec = tmp_path / "ignored.yaml"
    spec.write_text(
        GREEDY.split("records:")[0]
        + "records:\n  item:\n    doc: An item.\n    fields:\n"
        + "      - {name: a, type: u8, doc: d}\n"
        + f"      - {field}\n"
    )
    with pytest.raises(SpecError) as err:
        render_spec(spec)
    assert str(err.value).startswith("ignored.yaml:19: records.item.fields[1].")
    assert IGNORED_KEYS[field] in str(err.value)


def test_a_record_planned_inside_its_parent_says_so(shipped):
    """ "Read inline" names the record that reads it (issue #18)."""
    why = shipped["mysql_serialization"]["quick"]["format_description_event"]
    assert why == (
        "read inline where binlog_file reads it, its one use (by design: no call); parse() of"
        " it alone stays in Python"
    )
    assert shipped["plainbuffer"]["quick"]["cell_value"].startswith("read inline where cell ")
