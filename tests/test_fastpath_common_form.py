"""A ``layout: serializable`` message's common form (generator/emit/fastpath.py
``message_common_function``: read without bounds checks, anything else handed to the exact
reader) on every field kind it reads, through a module rendered from a small test spec:
valid messages (with the optional fields present and absent, the varints in each of their
lengths), every truncation, the size shrunk to each cut, and random mutations all give the
construct path's model or error (class, offset, path).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.emit.generate import render_spec
from runtime.core.errors import DecodeError
from runtime.core.fast import MSB_LENGTH
from runtime.core.msbvarint import encode_uvar
from tests.test_generator import load_module

SPEC = """\
format: common_form_test
title: common form (test)
doc: One message with every field kind the common form reads.
endian: le
default_record: msg
records:
  msg:
    doc: The message.
    layout: serializable
    fields:
      - {name: small, id: 0, type: msb_uvarint8, doc: "uint8: the 2-byte form is range-checked"}
      - {name: signed, id: 1, type: msb_varint32, doc: "zigzag, range-checked when long"}
      - {name: pair, id: 2, type: msb_uvarint16, repeat: {count: 4}, doc: "fixed count"}
      - {name: text, id: 3, type: str, size: msb_uvarint64, doc: "no bound"}
      - {name: raw, id: 4, type: bytes, size: msb_uvarint32, max_length: 5, doc: "bounded"}
      - {name: big, id: 5, type: msb_uvarint64, default: 7, doc: "optional, default 7"}
      - {name: copy, id: 6, type: msb_varint64, default_from: signed, doc: "optional"}
      - {name: uuid, id: 7, type: msb_uvarint8, repeat: {count: 16}, doc: "a UUID"}
"""


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    root = tmp_path_factory.mktemp("common_form")
    path = root / "common_form_test.yaml"
    path.write_text(SPEC)
    return load_module(*render_spec(path), root)


def outcome(parse, data: bytes, **limits):
    try:
        return "ok", parse(data, **limits)
    except DecodeError as err:
        return type(err).__name__, err.offset, err.path


def agree(mod, data: bytes, **limits):
    fast = outcome(mod.parse, data, **limits)
    assert fast == outcome(mod.parse_construct, data, **limits), data.hex()
    return fast


def test_the_module_reads_msg_in_its_common_form(mod):
    assert mod.FAST_READERS["msg"] is mod._read_msg
    assert hasattr(mod, "_read_msg_exact")


def _model(mod, **changes):
    fields = {
        "small": 200, "signed": -70000, "pair": [1, 300, 16383, 0], "text": "héllo",
        "raw": b"\x00\xff", "big": 2**50, "copy": None, "uuid": list(range(120, 136)),
    }  # fmt: skip
    return mod.Msg(**{**fields, **changes})


def test_hand_model_in_the_common_form(mod, monkeypatch):
    data = mod.build(_model(mod), "msg")

    def exact(*args):
        raise AssertionError("left the common form")

    monkeypatch.setattr(mod, "_read_msg_exact", exact)
    assert mod.parse(data).signed == -70000 and mod.parse(data).copy == -70000


def test_every_truncation_and_shrunk_size(mod):
    data = mod.build(_model(mod), "msg")
    for cut in range(len(data)):
        agree(mod, data[:cut])
    for cut in range(3, min(len(data), 64)):
        agree(mod, b"\x02" + bytes([cut << 1]) + data[2:cut])  # size says the cut length


def test_limits(mod):
    data = mod.build(_model(mod), "msg")
    for limits in ({"max_count": 3}, {"max_count": 15}, {"max_string": 2}, {"max_string": 5}):
        agree(mod, data, **limits)


@pytest.mark.parametrize(
    "changes",
    [
        {"small": 0, "signed": 0, "pair": [0, 0, 0, 0], "text": "", "raw": b""},
        {"signed": 2**31 - 1, "big": 2**64 - 1},  # the 9-byte form: the exact reader
        {"signed": -(2**31), "copy": 2**62, "big": 7},
        {"text": "x" * 64, "raw": b"12345"},  # a 2-byte string length
    ],
)
def test_edges(mod, changes):
    assert agree(mod, mod.build(_model(mod, **changes), "msg"))[0] == "ok"


def _fields(mod, **changes) -> bytes:
    data = mod.build(_model(mod, **changes), "msg")
    return data[2 + MSB_LENGTH[data[1]] :]  # after version, size and lnifid


def _message(fields: bytes) -> bytes:
    """Version 1, the true size, lnifid 0, then ``fields``."""
    size = 3 + len(fields)
    size += len(encode_uvar(size)) - 1
    return b"\x02" + encode_uvar(size) + b"\x00" + fields


@pytest.mark.parametrize(
    "value",
    ["0d00", "0b0000", "fd03", "fd07", "ff" + "00" * 8, "ff" + "ff" * 8],
)
def test_non_minimal_and_out_of_range_varints(mod, value):
    fields = _fields(mod, small=3)
    assert fields[:2] == b"\x00\x06"  # id 0, small = 3
    agree(mod, _message(b"\x00" + bytes.fromhex(value) + fields[2:]))


def test_invalid_text_and_ids_out_of_order(mod):
    fields = _fields(mod, text="abc")
    at = fields.index(b"\x06\x06abc")  # id 3, length 3
    agree(mod, _message(fields[:at] + b"\x06\x06ab\xff" + fields[at + 5 :]))
    agree(mod, _message(fields[:at] + b"\x08" + fields[at + 1 :]))  # id 4 where 3 is due
    agree(mod, _message(fields + b"\x40\x00"))  # an unknown field 32: skipped by the size


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_generated_messages_and_mutations(mod, data):
    model = data.draw(mod.strategies("msg"))
    raw = mod.build(model, "msg")
    assert agree(mod, raw)[0] == "ok"
    mutations = data.draw(
        st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=3)
    )
    mutated = bytearray(raw)
    for where, byte in mutations:
        mutated[where % len(mutated)] = byte
    agree(mod, bytes(mutated))
