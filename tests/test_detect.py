"""A record's ``detect:``: validated by the loader, emitted as ``detect_record``."""

from __future__ import annotations

from pathlib import Path

import pytest

import generated.mysql_serialization as mysql
import generated.thrift_compact as thrift
from generated import plainbuffer
from generator.emit.generate import render_spec
from generator.spec.loader import load
from generator.spec.validate import build_model
from runtime.core.errors import SpecError

ROOT = Path(__file__).resolve().parents[1]
PLAINBUFFER = ROOT / "specs" / "plainbuffer.yaml"
CELL = "  cell:\n    doc: One column of a row.\n"


def with_detect(tmp_path: Path, detect: str) -> Path:
    text = PLAINBUFFER.read_text()
    assert CELL in text
    path = tmp_path / "plainbuffer.yaml"
    path.write_text(text.replace(CELL, CELL + f"    detect: {detect}\n", 1))
    return path


@pytest.mark.parametrize(
    "detect, message",
    [
        ('{magic: "0g"}', "'0g' is not hex bytes: 1 to 16 pairs of 0-9 a-f"),
        ('{magic: "03", mask: "ffff"}', "mask and magic must be the same length"),
        ('{magic: "03", offset: -1}', "less than the minimum"),
        ('{magic: "03", at: 1}', "unknown key 'at'"),
        ("{offset: 1}", "missing key 'magic'"),
    ],
)
def test_a_bad_detect_names_its_line(tmp_path, detect, message):
    path = with_detect(tmp_path, detect)
    with pytest.raises(SpecError) as info:
        build_model(load(path, "plainbuffer.yaml"))
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "detect:" in text)
    assert message in str(info.value) and f"plainbuffer.yaml:{line}:" in str(info.value)


def test_detect_is_emitted_as_detect_record(tmp_path):
    _, text = render_spec(with_detect(tmp_path, '{magic: "03", offset: 0, mask: "ff"}'))
    namespace: dict = {}
    exec(compile(text, "plainbuffer_with_detect", "exec"), namespace)  # noqa: S102 - our render
    assert namespace["detect_record"](b"\x03\x04") == "cell"
    assert namespace["detect_record"](b"\x75\x00") is None


def test_the_shipped_modules_recognise_their_records():
    binlog = (ROOT / "samples" / "mysql_serialization" / "binlog.000001.binlog").read_bytes()
    event = (ROOT / "samples" / "mysql_serialization" / "gtid_tagged_local.bin").read_bytes()
    assert mysql.detect_record(binlog) == "binlog_file" and mysql.detect_record(event) is None
    reply = (ROOT / "samples" / "thrift_compact" / "get_user_reply.bin").read_bytes()
    assert thrift.detect_record(reply) == "message"
    assert thrift.detect_record(thrift.build(thrift.Address("a", "b"))) is None
    assert plainbuffer.RECORD_DETECTORS == {} and plainbuffer.detect_record(b"") is None
