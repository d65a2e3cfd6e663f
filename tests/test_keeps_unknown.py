"""``keeps_unknown(model)`` of every generated module: whether a parsed model keeps bytes its
spec does not know, said by the module from its spec (``UNKNOWN_BYTES``,
``runtime.core.unknown_bytes``); the Spark layer's input-kind rule asks it
(``runtime.spark.input_kind``). Per format a model that keeps unknown bytes, in itself or in
a model inside it, says True and a plain one False; run in both tiers."""

from __future__ import annotations

import ast
import importlib
import struct
import zlib
from pathlib import Path

import pytest

import generated.mysql_serialization as mysql
import generated.protobuf_wire as protobuf
import generated.thrift_compact as thrift
import generated.ticdc_open_protocol as open_protocol
from generated import bson, parquet, png
from generator.emit.user_spec import import_spec
from runtime.formats.open_protocol_frames import join_frames
from runtime.spark.decode import known_formats, read_spec, spec_module

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
THRIFT_IDL = ROOT / "tests" / "data" / "thrift" / "everything.thrift"

ADDRESS = bytes.fromhex("180161180162")  # Thrift: 1: "a", 2: "b" (stop byte apart)
UNKNOWN_I32 = bytes.fromhex("7502")  # Thrift: field 9 (a delta of 7 after 2), i32 1
PROTOBUF_UNKNOWN = bytes.fromhex("a00601")  # protobuf: field 100, varint 1


def test_every_module_says_so_and_no_plain_sample_keeps_unknown_bytes():
    kept = []
    for fmt in known_formats():
        module = importlib.import_module(f"generated.{fmt}")
        assert callable(module.keeps_unknown) and isinstance(module.UNKNOWN_BYTES, dict)
        for path in sorted((SAMPLES / fmt).glob("*.bin")):
            if module.keeps_unknown(module.parse(path.read_bytes())):
                kept.append(f"{fmt}/{path.name}")
    assert kept == ["protobuf_wire/order_mixed_writers.bin"]  # a newer writer's fields in it


def test_formats_whose_spec_keeps_no_unknown_bytes_have_no_holders():
    holders = {
        fmt: bool(importlib.import_module(f"generated.{fmt}").UNKNOWN_BYTES)
        for fmt in known_formats()
    }
    keeping = {"bson", "mysql_serialization", "parquet", "png", "protobuf_wire", "thrift_compact"}
    keeping.add("ticdc_open_protocol")  # Go reads past a JSON member: kept in wire_form
    assert {fmt for fmt, has in holders.items() if has} == keeping


def test_the_input_kind_rule_imports_no_format():
    """The Spark layer asks the module (``detect_kind(..., keeps_unknown=...)``)."""
    tree = ast.parse((ROOT / "runtime" / "spark" / "input_kind.py").read_text())
    imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [name for name in imported if name.startswith(("runtime.formats", "generated"))]


def test_mysql_serializable_unknown_fields():
    event = mysql.parse((SAMPLES / "mysql_serialization" / "gtid_tagged_local.bin").read_bytes())
    assert not mysql.keeps_unknown(event)
    body = event.body
    body.unknown_fields = bytes([40, 2])  # field 20 = 1, from a newer writer
    newer = mysql.parse(mysql.build(body, "gtid_tagged_body"), "gtid_tagged_body")
    assert newer.unknown_fields == bytes([40, 2])
    assert mysql.keeps_unknown(newer)
    event.body = newer  # inside the event: found there too
    assert mysql.keeps_unknown(event)


def test_protobuf_unknown_records_at_any_depth():
    order = protobuf.parse((SAMPLES / "protobuf_wire" / "order_card.bin").read_bytes())
    assert not protobuf.keeps_unknown(order)
    assert protobuf.keeps_unknown(protobuf.parse(protobuf.build(order) + PROTOBUF_UNKNOWN))
    address = protobuf.build(order.shipping, "address") + PROTOBUF_UNKNOWN
    order.shipping = protobuf.parse(address, "address")
    assert protobuf.keeps_unknown(order.shipping)
    nested = protobuf.parse(protobuf.build(order))  # a nested message keeps its own
    assert nested.wire_layout is None and protobuf.keeps_unknown(nested)
    money = protobuf.build(nested.total, "money") + PROTOBUF_UNKNOWN
    plain = protobuf.parse((SAMPLES / "protobuf_wire" / "order_card.bin").read_bytes())
    plain.subtotals["EUR"] = protobuf.parse(money, "money")  # a map's value
    assert protobuf.keeps_unknown(protobuf.parse(protobuf.build(plain)))


def test_a_kept_form_is_not_unknown_bytes():
    money = protobuf.parse(bytes.fromhex("108c00"), "money")  # units 12 in two bytes
    assert money.wire_layout == ((2, bytes.fromhex("108c00")),)
    assert not protobuf.keeps_unknown(money)
    twice = protobuf.parse(bytes.fromhex("100c100c"), "money")  # the earlier kept as bytes
    assert protobuf.keeps_unknown(twice)


def test_protobuf_unknown_fields_inside_a_map_entry():
    # the walk by name did not see these: the entry is kept whole, as (number, bytes)
    def attributes(entry: str) -> bytes:  # Order's map<string, string>, number 8
        return bytes([0x42, len(bytes.fromhex(entry))]) + bytes.fromhex(entry)

    unknown_inside = protobuf.parse(attributes("0a01611201621801"))  # a, b, then 3: 1
    assert unknown_inside.attributes == {"a": "b"} and unknown_inside.wire_layout[0][0] == 8
    assert protobuf.keeps_unknown(unknown_inside)
    value_first = protobuf.parse(attributes("1201620a0161"))  # a kept form, known records only
    assert value_first.wire_layout[0][0] == 8 and not protobuf.keeps_unknown(value_first)


@pytest.mark.parametrize("module", [thrift, parquet], ids=["thrift_compact", "parquet"])
def test_thrift_unknown_fields(module):
    record = "Address" if module is thrift else "KeyValue"
    assert not module.keeps_unknown(module.parse(ADDRESS + b"\x00", record))
    assert module.keeps_unknown(module.parse(ADDRESS + UNKNOWN_I32 + b"\x00", record))


def test_thrift_unknown_fields_of_a_struct_in_a_list():
    address = thrift.parse(ADDRESS + UNKNOWN_I32 + b"\x00", "Address")
    user = thrift.User(id=1, name="n", addresses=[thrift.Address("x", "y"), address])
    assert thrift.keeps_unknown(user)
    assert thrift.keeps_unknown(thrift.parse(thrift.build(user, "User"), "User"))
    user.addresses = [thrift.Address("x", "y")]
    assert not thrift.keeps_unknown(thrift.parse(thrift.build(user, "User"), "User"))


def test_a_module_imported_from_thrift_idl():
    module = spec_module(*read_spec("thrift_compact", str(THRIFT_IDL)))
    assert module.UNKNOWN_BYTES and set(module.UNKNOWN_BYTES) >= {module.Record, module.Envelope}
    empty = module.parse(b"\x00", "Envelope")
    assert not module.keeps_unknown(empty)
    newer = module.parse(UNKNOWN_I32 + b"\x00", "Envelope")  # field 7: not in the IDL
    assert module.keeps_unknown(newer)


def png_chunk(fourcc: bytes, data: bytes) -> bytes:
    """A chunk as a PNG writer puts it: length, type, data, CRC-32 of type and data."""
    return (
        struct.pack(">I", len(data)) + fourcc + data + struct.pack(">I", zlib.crc32(fourcc + data))
    )


def png_with(chunk: bytes) -> bytes:
    """A sample PNG with ``chunk`` just before its IEND (the last 12 bytes)."""
    plain = (SAMPLES / "png" / "rgba_badge.bin").read_bytes()
    return plain[:-12] + chunk + plain[-12:]


def test_a_png_with_a_private_chunk_keeps_unknown_bytes():
    # the chunk switch's default keeps an unlisted chunk type's data as bytes
    private = png.parse(png_with(png_chunk(b"prVt", b"an application's own")))
    assert private.chunks[-2].data == b"an application's own" and private.chunks[-2].private
    assert png.keeps_unknown(private) and png.keeps_unknown(private.chunks[-2])
    assert png.keeps_unknown(png.parse(png.build(private)))


def test_a_png_of_listed_chunks_read_as_bytes_keeps_none():
    # sRGB is listed and read as bytes by the same default; IDAT by a bytes case of its own
    standard = png.parse(png_with(png_chunk(b"sRGB", b"\x00")))
    assert standard.chunks[-2].data == b"\x00" and isinstance(standard.chunks[-3].data, bytes)
    assert not png.keeps_unknown(standard)
    chunk = standard.chunks[-2]
    chunk.type = int.from_bytes(b"prVt", "big")  # a model made so says so too
    assert png.keeps_unknown(standard)
    chunk.type = png.ChunkType.sRGB
    assert not png.keeps_unknown(standard)


@pytest.mark.parametrize("fourcc", [b"oFFs", b"pCAL", b"sCAL", b"gIFg", b"gIFx", b"sTER", b"dSIG"])
def test_a_png_with_a_registered_extension_chunk_keeps_none(fourcc):
    # the registered extensions (Extensions to the PNG Specification 1.5.0) are no
    # application's own chunks: listed in the spec's enum, so not counted as unknown
    extended = png.parse(png_with(png_chunk(fourcc, bytes(9))))
    assert extended.chunks[-2].type == int.from_bytes(fourcc, "big")
    assert not png.keeps_unknown(extended)


def bson_binary(subtype: int, data: bytes = b"\x01\x02") -> bytes:
    """A document of one binary element ``b`` of ``subtype`` inside an array ``a``."""

    def document(elements: bytes) -> bytes:
        return struct.pack("<i", len(elements) + 5) + elements + b"\x00"

    binary = b"\x050\x00" + struct.pack("<i", len(data)) + bytes([subtype]) + data
    return document(b"\x04a\x00" + document(binary))


@pytest.mark.parametrize(
    "subtype, kept",
    [(0x00, False), (0x02, False), (0x04, False), (0x80, False), (0x0A, True), (0x81, True)],
    ids=["generic", "old", "uuid", "user_defined", "a_newer_writers", "unlisted_own"],
)
def test_bson_binary_subtypes_the_spec_does_not_list(subtype, kept):
    data = struct.pack("<i", 2) + b"\x01\x02" if subtype == 0x02 else b"\x01\x02"
    stream = bson.parse(bson_binary(subtype, data))
    payload = stream.documents[0].elements.elements[0].value.elements.elements[0].value.payload
    assert payload.subtype == subtype
    assert bson.keeps_unknown(stream) is kept and bson.keeps_unknown(payload) is kept


def test_a_model_that_cannot_hold_unknown_bytes_is_not_walked():
    # None in UNKNOWN_BYTES: no model inside it keeps any (a chunk's data records; Open
    # Protocol's events, whose message's kept bytes answer for them); a document, which
    # can hold a binary at any depth, is walked
    assert png.UNKNOWN_BYTES[png.ImageHeader] is None and png.PngFile not in png.UNKNOWN_BYTES
    assert bson.UNKNOWN_BYTES[bson.String] is None and bson.Document not in bson.UNKNOWN_BYTES
    events = open_protocol.UNKNOWN_BYTES
    assert events[open_protocol.rt_ticdc_types.RowChangedEvent] is None


def test_a_binlog_event_of_a_type_the_spec_does_not_list():
    binlog = (SAMPLES / "mysql_serialization" / "binlog.000001.binlog").read_bytes()
    events = mysql.parse(binlog, "binlog_file")
    assert not mysql.keeps_unknown(events)
    xid = next(e for e in events.events if e.type_code == mysql.EventType.XID_EVENT)
    xid.type_code = 200  # a newer server's event: its body kept as bytes
    newer = mysql.parse(mysql.build(events, "binlog_file"), "binlog_file")
    assert mysql.keeps_unknown(newer)


ROW_KEY = b'{"ts":415508878783938562,"scm":"test","tbl":"t1","t":1}'
ROW_VALUE = b'{"u":{"d":{"t":5,"f":0,"v":1.5},"id":{"t":3,"h":true,"f":11,"v":7}}}'
RESOLVED = (b'{"ts":415508878783938563,"t":3}', b"")
OPEN_PROTOCOL_FORMS = {  # kind -> (key JSON, value JSON) of a row event, keeps unknown
    "tiflow's": (ROW_KEY, ROW_VALUE, False),
    "spaces and key order": (b'{"t": 1, "tbl": "t1", "scm": "test", "ts": 415508878783938562}',
                             ROW_VALUE, False),
    "escaped names": (ROW_KEY.replace(b'"tbl"', b'"\\u0074bl"'), ROW_VALUE, False),
    "pingcap/ticdc's rewrite": (ROW_KEY.replace(b'"t":1', b'"t":1,"ohk":false'), ROW_VALUE, False),
    "a key of the key's": (ROW_KEY.replace(b'"t":1', b'"t":1,"x":[1,{"y":null}]'), ROW_VALUE, True),
    "a key of the value's": (ROW_KEY, ROW_VALUE.replace(b'{"u":', b'{"z":"?","u":'), True),
    "a key of a column's": (ROW_KEY, ROW_VALUE.replace(b'"f":0,', b'"f":0,"w":2,'), True),
    "a name in other case": (ROW_KEY.replace(b'"tbl"', b'"TBL"'), ROW_VALUE, True),
}  # fmt: skip


@pytest.mark.parametrize("kind", OPEN_PROTOCOL_FORMS)
def test_open_protocol_keys_the_spec_does_not_declare(kind):
    # Go reads past them; the message keeps them only in its wire_form
    key_doc, value_doc, kept = OPEN_PROTOCOL_FORMS[kind]
    key, value = join_frames([RESOLVED, (key_doc, value_doc), RESOLVED])
    message = open_protocol.parse_pair(key, value)
    assert open_protocol.keeps_unknown(message) is kept
    assert open_protocol.build_pair(message) == (key, value)
    again = open_protocol.from_dict(open_protocol.to_dict(message))  # the JSON form keeps it
    assert open_protocol.keeps_unknown(again) is kept


def test_an_open_protocol_message_made_by_hand_keeps_nothing():
    key, value = join_frames([(ROW_KEY, ROW_VALUE.replace(b'"f":0,', b'"f":0,"w":2,'))])
    message = open_protocol.Message(open_protocol.parse_pair(key, value).events)
    assert message.wire_form is None and not open_protocol.keeps_unknown(message)
    for kept in [(b"not", b"a message"), "text", (b"\x00",)]:  # kept bytes that do not read
        message.wire_form = kept
        assert not open_protocol.keeps_unknown(message)


SWITCHES = """\
format: kept_defaults_test
title: kept defaults (test)
doc: Tagged values behind a strict and an open code.
endian: be
default_record: pair
enums:
  kind:
    doc: A value's kind.
    type: u8
    values:
      NUMBER: {value: 1, doc: "a number"}
      TEXT: {value: 2, doc: "text, kept as bytes"}
records:
  pair:
    doc: Two tagged values.
    fields:
      - {name: strict, type: u8, enum: kind, doc: "a code the enum must list"}
      - name: first
        switch_on: strict
        size: 2
        cases: {NUMBER: u16, default: {type: bytes, size: eos}}
        doc: "the first value"
      - {name: open, type: u8, enum: kind, open: true, doc: "any code"}
      - name: second
        switch_on: open
        size: 2
        cases: {NUMBER: u16, default: {type: bytes, size: eos}}
        doc: "the second value"
"""


def test_a_users_switch_counts_where_its_code_may_be_unlisted(tmp_path):
    module = user_module(tmp_path, "kept_defaults_test", SWITCHES)
    assert list(module.UNKNOWN_BYTES) == [module.Pair]
    assert list(module.UNKNOWN_BYTES[module.Pair]) == ["open"]  # a strict code is listed
    assert not module.keeps_unknown(module.parse(bytes.fromhex("0200010200 01")))
    assert module.keeps_unknown(module.parse(bytes.fromhex("020001 09 0001")))


SERIALIZABLE = """\
format: kept_unknown_test
title: kept unknown (test)
doc: A serializable message.
endian: le
default_record: msg
records:
  msg:
    doc: The message.
    layout: serializable
    fields:
      - {name: small, id: 0, type: msb_uvarint8, doc: "a field"}
"""
NAMED = """\
format: kept_names_test
title: kept names (test)
doc: A message with a field of its own named as a serializable message's kept bytes.
endian: le
default_record: note
records:
  note:
    doc: The message.
    layout: protobuf
    fields:
      - {name: unknown_fields, number: 1, type: bytes, doc: "a field of the spec"}
"""
NAMED_IDL = "struct Note {\n  1: binary unknown_fields\n}\n"


def user_module(tmp_path, name: str, text: str):
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    return import_spec(path)


def test_a_users_serializable_message_keeps_unknown_fields(tmp_path):
    # a spec of serializable records only (its quick tier once made models with a _NEW
    # only a spec with another record defined: NameError on every parse)
    module = user_module(tmp_path, "kept_unknown_test", SERIALIZABLE)
    assert list(module.UNKNOWN_BYTES) == [module.Msg]
    message = module.parse(module.build({"small": 3}))
    assert not module.keeps_unknown(message)
    message.unknown_fields = bytes([2, 5])  # field 1 = 5, from a newer writer
    newer = module.parse(module.build(message))
    assert newer.unknown_fields == bytes([2, 5]) and module.keeps_unknown(newer)


def test_a_field_named_as_a_layouts_kept_bytes_is_the_specs_own(tmp_path):
    # the walk before the generated tables went by this name, and said True here
    module = user_module(tmp_path, "kept_names_test", NAMED)
    assert list(module.UNKNOWN_BYTES) == [module.Note]
    note = module.parse(bytes.fromhex("0a0101"))
    assert note.unknown_fields == b"\x01" and not module.keeps_unknown(note)
    assert module.keeps_unknown(module.parse(bytes.fromhex("0a0101") + PROTOBUF_UNKNOWN))
    idl = tmp_path / "named.thrift"
    idl.write_text(NAMED_IDL)
    thrift_module = spec_module(*read_spec("thrift_compact", str(idl)))
    note = thrift_module.parse(bytes.fromhex("18010100"), "Note")
    assert note.unknown_fields == b"\x01" and not thrift_module.keeps_unknown(note)
