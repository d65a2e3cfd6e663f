"""The input kind of a file that could be one raw message or length-delimited frames
(:mod:`runtime.spark.input_kind`): decided by its bytes, or refused; no JVM."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from runtime.core.errors import OptionError, WirespecError
from runtime.spark.decode import codec
from runtime.spark.input_kind import AmbiguousInputKind, detect_kind

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


def frames(*values: bytes) -> bytes:
    return b"".join(struct.pack(">I", len(v)) + v for v in values)


def decoder(fmt):
    return codec(fmt).model


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def test_frames_whose_whole_does_not_decode_are_delimited(tmp_path):
    messages = [p.read_bytes() for p in sorted((SAMPLES / "pgoutput").glob("00[0-4]_*.bin"))]
    path = write(tmp_path, "changes.bin", frames(*messages))
    assert detect_kind(path, decode=decoder("pgoutput")) == "delimited"


def test_a_file_that_reads_both_ways_is_refused_naming_it(tmp_path):
    # a MessagePack stream of values: the length prefixes read as small ints, so the whole
    # decodes as one stream, and every frame decodes alone as well
    docs = [(SAMPLES / "msgpack" / n).read_bytes() for n in ("document.bin", "long_forms.bin")]
    path = write(tmp_path, "docs.bin", frames(*docs))
    with pytest.raises(AmbiguousInputKind) as err:
        detect_kind(path, decode=decoder("msgpack"))
    assert isinstance(err.value, OptionError)
    message = str(err.value)
    assert message.startswith(f"{path}: ambiguous input kind") and "\n" not in message
    assert "option inputKind raw or delimited" in message
    assert "--input-kind raw or delimited" in str(err.value.asking_with("--input-kind"))
    assert detect_kind(path) == "delimited"  # a caller with no decoder: as before


def test_a_file_only_the_whole_of_which_decodes_is_raw(tmp_path):
    # 00 00 00 01 91 | 00 00 00 01 05: as frames, the first is a one-element array cut
    # short; as one MessagePack stream: 0, 0, 0, 1, [0], 0, 0, 1, 5
    data = frames(b"\x91", b"\x05")
    decode = decoder("msgpack")
    assert len(decode(None, data).values) == 9
    with pytest.raises(WirespecError):
        decode(None, b"\x91")
    assert detect_kind(write(tmp_path, "stream.bin", data), decode=decode) == "raw"


def test_a_whole_that_decodes_only_by_keeping_unknown_bytes_is_refused(tmp_path):
    path = write(tmp_path, "m.bin", frames(b"\x01", b"\x02"))

    def keeps_tail(key, value):  # a format that keeps what it does not know as bytes
        if len(value) == 1:
            raise WirespecError("too short")
        return {"known": 0, "unknown_fields": value[1:]}

    def keeps_unknown(model):
        return bool(model["unknown_fields"])

    with pytest.raises(AmbiguousInputKind, match="2 length-delimited frame"):
        detect_kind(path, decode=keeps_tail, keeps_unknown=keeps_unknown)
    clean = lambda key, value: keeps_tail(key, value) | {"unknown_fields": None}
    assert detect_kind(path, decode=clean, keeps_unknown=keeps_unknown) == "raw"


def test_names_the_spec_and_partial_frames_decide_before_any_decode(tmp_path):
    def never(key, value):
        raise AssertionError("decoded")

    docs = frames(b"\x01", b"\x02")
    assert detect_kind(write(tmp_path, "a.ldr", docs), decode=never) == "delimited"
    assert detect_kind(write(tmp_path, "b.bin", docs[:-1]), decode=never) == "raw"
    assert detect_kind(write(tmp_path, "c.bin", docs), recognise=bool, decode=never) == "raw"
    (tmp_path / "d.key").write_bytes(b"")
    assert detect_kind(write(tmp_path, "d.bin", docs), decode=never) == "raw"


def test_every_shipped_sample_keeps_its_kind():
    """What ``scripts/run.sh`` (``wirespec ingest all samples``) detects: each sample is
    one message, the MySQL binlog file a framed file."""
    pytest.importorskip("pyspark.sql.datasource")
    from runtime.spark.source import _Plan

    kinds = {}
    for folder in sorted(p for p in SAMPLES.iterdir() if p.is_dir() and p.name[0] not in "._"):
        plan = _Plan({"format": folder.name, "path": str(folder)})
        kinds.update({f"{folder.name}/{name}": kind for _, name, kind in plan.files()})
    assert len({k.split("/")[0] for k in kinds}) == 13
    binlogs = {k for k, v in kinds.items() if v == "binlog"}
    assert binlogs == {"mysql_serialization/binlog.000001.binlog"}
    assert {v for k, v in kinds.items() if k not in binlogs} == {"raw"}
