"""A newcomer's first spec, WAVE audio (``tests/data/user_specs/wav.yaml``, not a shipped
format), used as they would: rendered in memory with ``--spec``, held to Python's own
``wave`` module on files it writes, byte-exact, and fuzzed."""

from __future__ import annotations

import io
import json
import struct
import wave

import pytest

from generator import ROOT
from generator.cli.main import main
from runtime.core.errors import DecodeError

SPEC = ROOT / "tests" / "data" / "user_specs" / "wav.yaml"


@pytest.fixture(scope="module")
def wav():
    from generator.emit.user_spec import import_spec

    return import_spec(SPEC)


def written_by_wave(channels: int, width: int, rate: int, frames: bytes) -> bytes:
    """A WAVE file as the standard library's ``wave`` writes it (fmt, then data)."""
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(frames)
    return out.getvalue()


def with_info(data: bytes, name: bytes) -> bytes:
    """``data`` with a LIST INFO chunk appended holding INAM ``name`` (NUL-terminated, as
    RIFF's ZSTR), its pad byte when that is odd, and the RIFF size updated."""
    inam = b"INAM" + struct.pack("<I", len(name)) + name + b"\0" * (len(name) % 2)
    body = data[8:] + b"LIST" + struct.pack("<I", 4 + len(inam)) + b"INFO" + inam
    return b"RIFF" + struct.pack("<I", len(body)) + body


@pytest.mark.parametrize(
    "channels, width, rate", [(1, 1, 8000), (2, 2, 44100), (1, 3, 96000), (6, 4, 48000)]
)
def test_the_fmt_chunk_reads_as_wave_does(wav, channels, width, rate):
    frames = bytes(range(channels * width * 6))
    data = written_by_wave(channels, width, rate, frames)
    model = wav.parse(data)
    fmt, samples = (c.data for c in model.body.chunks)
    with wave.open(io.BytesIO(data)) as peer:
        assert (fmt.channels, fmt.bits_per_sample // 8, fmt.sample_rate) == (
            peer.getnchannels(),
            peer.getsampwidth(),
            peer.getframerate(),
        )
        assert samples == peer.readframes(peer.getnframes()) == frames
    assert fmt.block_align == channels * width and fmt.byte_rate == rate * channels * width
    assert wav.build(model) == data


def test_an_odd_chunk_keeps_its_pad_byte_and_an_edit_recomputes_the_sizes(wav):
    data = with_info(written_by_wave(1, 2, 8000, b"\x01\x00\xff\xff"), b"test\0")
    model = wav.parse(data)
    info = model.body.chunks[2].data.chunks[0]
    assert (info.id, info.size, info.data, info.pad) == (0x494E414D, 5, b"test\0", 0)
    assert wav.build(model) == data
    form = wav.to_dict(model)
    assert form["body"]["chunks"][2]["id"] == "LIST"  # a listed id reads as its name
    listed = form["body"]["chunks"][2]["data"]
    assert (listed["list_type"], listed["chunks"][0]["id"]) == ("INFO", "INAM")  # letters
    form["body"]["chunks"][2]["data"]["chunks"][0]["data"] = {"$hex": b"a longer name\0".hex()}
    again = wav.build(wav.from_dict(form))
    assert again == with_info(written_by_wave(1, 2, 8000, b"\x01\x00\xff\xff"), b"a longer name\0")
    with wave.open(io.BytesIO(again)) as peer:
        assert peer.readframes(2) == b"\x01\x00\xff\xff"


def test_wave_leaves_out_the_pad_byte_of_odd_data_and_the_spec_refuses_it(wav):
    """RIFF pads odd data to an even length; Python's ``wave`` writes none after odd sample
    data at the file's end. The spec cannot say "a pad byte if bytes remain" (no
    expression reads the bytes left), so such a file is a DecodeError at ``pad``."""
    data = written_by_wave(1, 1, 8000, b"\x80\x81\x82")
    assert data[4:8] == struct.pack("<I", len(data) - 8) and len(data) % 2 == 1
    with pytest.raises(DecodeError, match=r"body.chunks\[1\].pad at offset 47: truncated"):
        wav.parse(data)


def test_a_truncated_file_is_a_decode_error_at_its_field(wav):
    data = with_info(written_by_wave(2, 2, 8000, bytes(16)), b"x\0")
    with pytest.raises(DecodeError) as err:
        wav.parse(data[:50])
    assert "truncated" in str(err.value) and "body" in str(err.value)


def test_the_cli_decodes_and_fuzzes_it(tmp_path, capsys):
    data = with_info(written_by_wave(1, 1, 8000, b"\x80\x81"), b"ab\0")
    (tmp_path / "a.wav").write_bytes(data)
    assert main(["decode", "wav", str(tmp_path / "a.wav"), "--spec", str(SPEC)]) == 0
    chunks = json.loads(capsys.readouterr().out)["body"]["chunks"]
    assert [c["id"] for c in chunks] == ["FMT", "DATA", "LIST"]
    argv = ["fuzz", "wav", "--spec", str(SPEC), "--seconds", "1", "--seed", "1", "--no-save"]
    assert main(argv) == 0
