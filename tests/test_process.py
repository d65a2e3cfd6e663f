"""``process:`` transforms on sized regions (runtime/core/process.py): every codec both ways,
the codec picked by an expression, exact rebuild from the kept wire bytes, and bounded
decompression (a bomb is a LimitError at the field, without allocating the bomb)."""

from __future__ import annotations

import gzip
import resource
import struct
import tracemalloc
import zlib

import cramjam
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.emit.generate import render_spec
from runtime.core import process
from runtime.core.errors import DecodeError, EncodeError, LimitError, SpecError
from tests.test_fastbuild import written
from tests.test_generator import load_module

SPEC = """\
format: packed
title: Packed
doc: A codec byte, a length, then a compressed payload holding items.
endian: be
default_record: batch
records:
  batch:
    doc: One batch.
    fields:
      - {name: codec, type: u8, doc: "0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd, 5 deflate, 6 xerial"}
      - name: items
        type: items
        size: u32
        process:
          codec: "codec"
          cases: {0: none, 1: gzip, 2: snappy, 3: lz4_frame, 4: zstd, 5: deflate, 6: snappy_xerial}
        doc: The items, compressed.
      - name: note
        type: str
        size: u16
        process: zlib
        doc: A zlib-compressed note behind a length prefix.
  items:
    doc: Items until the end.
    fields:
      - {name: values, type: u32, repeat: eos, doc: "Numbers."}
"""

CODES = {
    "none": 0,
    "gzip": 1,
    "snappy": 2,
    "lz4_frame": 3,
    "zstd": 4,
    "deflate": 5,
    "snappy_xerial": 6,
}


def spec_module(tmp_path_factory, name: str, spec: str):
    """The generated module of ``spec``, imported as ``name``."""
    path = tmp_path_factory.mktemp(name) / f"{name}.yaml"
    path.write_text(spec)
    _, text = render_spec(path)
    return load_module(name, text, path.parent)


@pytest.fixture(scope="module")
def packed(tmp_path_factory):
    return spec_module(tmp_path_factory, "packed_process", SPEC)


def wire(codec: str, values: list[int], note: str = "hi") -> bytes:
    plain = b"".join(struct.pack(">I", v) for v in values)
    body = process.encoder(codec)(plain)
    znote = zlib.compress(note.encode())
    return (
        struct.pack(">BI", CODES[codec], len(body)) + body + struct.pack(">H", len(znote)) + znote
    )


@pytest.mark.parametrize("codec", sorted(CODES))
def test_each_codec_parses_and_rebuilds(packed, codec):
    data = wire(codec, [1, 2, 3, 2**32 - 1])
    model = packed.parse(data)
    assert model.items.values == [1, 2, 3, 2**32 - 1] and model.note == "hi"
    assert packed.build(model) == data
    model.items_wire = model.note_wire = None  # a new model: compressed afresh
    assert packed.parse(packed.build(model)).items.values == [1, 2, 3, 2**32 - 1]


def test_foreign_compressor_bytes_kept(packed):
    """gzip with a clock in its header, deflate at level 1: not what our compressor writes,
    still the same bytes back; an edited model is compressed afresh."""
    plain = struct.pack(">3I", 7, 8, 9)
    body = gzip.compress(plain, mtime=1234567)
    note = zlib.compress(b"n", 1)
    data = struct.pack(">BI", 1, len(body)) + body + struct.pack(">H", len(note)) + note
    model = packed.parse(data)
    assert packed.build(model) == data
    model.items.values.append(10)
    rebuilt = packed.parse(packed.build(model))
    assert rebuilt.items.values == [7, 8, 9, 10] and rebuilt.items_wire != body


def test_json_form_round_trips(packed):
    data = wire("zstd", [5, 6])
    assert packed.build(packed.from_dict(packed.to_dict(packed.parse(data)))) == data


def test_unknown_codec_value_is_a_decode_error(packed):
    data = bytearray(wire("none", [1]))
    data[0] = 9
    with pytest.raises(DecodeError, match="no codec for 9") as info:
        packed.parse(bytes(data))
    assert info.value.path == "items" and info.value.offset == 5


def streamed_bomb(codec: str) -> bytes:
    """256 MiB of zeros compressed a MiB at a time (never held whole)."""
    compressor = getattr(cramjam, {"lz4_frame": "lz4"}.get(codec, codec)).Compressor()
    chunk = b"\0" * (1 << 20)
    for _ in range(256):
        compressor.compress(chunk)
    return bytes(compressor.finish())


@pytest.mark.parametrize(
    "codec", ["deflate", "gzip", "lz4_frame", "zstd", "snappy", "snappy_xerial"]
)
def test_bomb_is_a_limit_error_without_allocating_it(packed, codec):
    if codec.startswith("snappy"):  # one raw block declares its size: refused before decoding
        body = process.encoder(codec)(b"\0" * (16 * 1024 * 1024))
    else:
        body = streamed_bomb(codec)
    data = struct.pack(">BI", CODES[codec], len(body)) + body + b"\0\0"
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(LimitError, match="max_decompressed_bytes=1048576") as info:
        packed.parse(data, max_decompressed_bytes=1 << 20)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 16 * 1024  # a high-water mark: the bomb's 256 MiB would show
    assert info.value.path == "items" and info.value.offset == 5


@pytest.mark.parametrize("codec", ["gzip", "zstd", "lz4_frame", "snappy", "snappy_avro", "zlib"])
def test_corrupt_data_is_a_decode_error(codec):
    body = bytearray(process.encoder(codec)(b"some text " * 50))
    body[len(body) // 2] ^= 0xFF
    body = bytes(body[: len(body) - 3])
    with pytest.raises(DecodeError):
        process.decode(codec, body, 1 << 20)


def test_avro_snappy_checks_its_crc():
    body = bytearray(process.encoder("snappy_avro")(b"abc" * 10))
    body[-1] ^= 1
    with pytest.raises(DecodeError, match="CRC-32 mismatch"):
        process.decode("snappy_avro", bytes(body), 1 << 20)


def test_xerial_reads_kafka_python_framing():
    plain = bytes(range(256)) * 300
    framed = process.encoder("snappy_xerial")(plain)
    assert (
        framed.startswith(b"\x82SNAPPY\x00")
        and process.decode("snappy_xerial", framed, 1 << 20) == plain
    )
    assert (
        process.decode("snappy_xerial", bytes(cramjam.snappy.compress_raw(plain)), 1 << 20) == plain
    )


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from(sorted(CODES)),
    st.lists(st.integers(0, 2**32 - 1), max_size=40),
    st.text(max_size=30),
)
def test_generated_round_trips(packed, codec, values, note):
    data = wire(codec, values, note)
    model = packed.parse(data)
    assert (model.items.values, model.note) == (values, note)
    assert packed.build(model) == data
    assert written(packed, model, "batch") == data  # the fast writer's own bytes
    model.items_wire = model.note_wire = None  # a new model: compressed afresh, as construct does
    assert written(packed, model, "batch") == packed.build_construct(model)


def test_the_fast_writer_writes_processed_fields_as_construct_does(packed):
    """Kept wire bytes back unchanged while they decode to the value, else compressed
    afresh; a codec value with no case is construct's EncodeError (the writer gives up)."""
    assert "batch" in packed.FAST_WRITERS
    model = packed.parse(wire("gzip", [1, 2]))
    model.items.values.append(3)  # the kept bytes are stale now
    assert written(packed, model, "batch") == packed.build_construct(model)
    model.codec = 9
    with pytest.raises(DecodeError):
        written(packed, model, "batch")
    with pytest.raises(EncodeError, match="no codec for 9"):
        packed.build(model)


def test_the_quick_tier_reads_a_processed_record_decoded(tmp_path_factory):
    """A processed record of plain fields: the quick tier reads it decoded, never its
    compressed bytes as the record."""
    spec = SPEC.replace("{name: values, type: u32, repeat: eos,", "{name: values, type: u32,")
    spec = spec[: spec.index("      - name: note")] + spec[spec.index("  items:") :]
    module = spec_module(tmp_path_factory, "packed_single", spec)
    assert "batch" in module.FAST_READERS and "batch" in module.QUICK_READERS
    data = wire("zstd", [7])[: -2 - len(zlib.compress(b"hi"))]  # without the note
    quick, _ = module.QUICK_READERS["batch"]
    model, used = quick(data, 0, len(data), module._LIMITS)
    assert used == len(data) and model == module.parse_construct(data)
    assert module.parse(data).items.values == 7 and module.build(module.parse(data)) == data


def test_spec_errors(tmp_path):
    bad = SPEC.replace("        process: zlib\n", "        process: brotli9\n")
    path = tmp_path / "bad.yaml"
    path.write_text(bad)
    with pytest.raises(SpecError, match="process"):
        render_spec(path)
    bad = SPEC.replace(
        "      - {name: values, type: u32, repeat: eos,",
        "      - {name: values, type: u32, repeat: eos, process: zlib,",
    )
    path.write_text(bad)
    with pytest.raises(SpecError, match="process: goes on"):
        render_spec(path)


REST_SPEC = """\
format: packed_rest
title: Packed to the end
doc: A codec byte, then items compressed to the end of the input (Kafka's records).
endian: be
default_record: batch
records:
  batch:
    doc: One batch.
    fields:
      - {name: codec, type: u8, doc: "0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd, 5 deflate, 6 xerial"}
      - name: values
        type: u32
        repeat: eos
        process:
          size: eos
          codec: "codec"
          cases: {0: none, 1: gzip, 2: snappy, 3: lz4_frame, 4: zstd, 5: deflate, 6: snappy_xerial}
        doc: The numbers, compressed as one stream to the end.
"""


@pytest.mark.parametrize("codec", sorted(CODES))
def test_a_region_to_the_end_decodes_on_both_paths_and_rebuilds(tmp_path_factory, codec):
    module = spec_module(tmp_path_factory, "packed_rest", REST_SPEC)
    assert "batch" in module.FAST_READERS and "batch" in module.FAST_WRITERS
    plain = b"".join(v.to_bytes(4, "big") for v in range(300))
    data = bytes([CODES[codec]]) + (process.encoder(codec)(plain) if codec != "none" else plain)
    model = module.parse(data)
    assert model == module.parse_construct(data) and model.values == list(range(300))
    assert (model.values_wire is None) == (codec == "none")  # in place: nothing kept
    assert module.build(model) == module.build_construct(model) == data
    for cut in range(1, len(data), 7):  # the same model or error on both paths
        outcomes = []
        for parse in (module.parse, module.parse_construct):
            try:
                outcomes.append(parse(data[:cut]))
            except DecodeError as err:
                outcomes.append((str(err), err.path, err.offset))
        assert outcomes[0] == outcomes[1], cut


@pytest.mark.parametrize(
    "edit, message",
    [
        (  # the region runs to the end: nothing may follow it
            (
                "        doc: The numbers, compressed as one stream to the end.\n",
                "        doc: The numbers.\n      - {name: tail, type: u8, doc: a byte}\n",
            ),
            r"bad\.yaml:\d+: records\.batch\.fields\[1\]\.process\.size: .*tail follow",
        ),
        (  # one size for the region
            ("        type: u32\n        repeat: eos\n", "        type: bytes\n        size: u8\n"),
            r"bad\.yaml:\d+: .*the region has one size",
        ),
        (
            ("        repeat: eos\n", "        repeat: until\n"),
            r"bad\.yaml:\d+: ",
        ),
    ],
)
def test_a_region_to_the_end_is_checked_at_load(tmp_path, edit, message):
    path = tmp_path / "bad.yaml"
    path.write_text(REST_SPEC.replace(*edit))
    with pytest.raises(SpecError, match=message):
        render_spec(path)


def xxh32_short(data: bytes) -> int:
    """XXH32 (seed 0) of fewer than 16 bytes: an LZ4 frame header's checksum is its second
    byte (the LZ4 frame format, section "Header Checksum")."""
    primes = (2654435761, 2246822519, 3266489917, 668265263, 374761393)
    mask = 0xFFFFFFFF

    def rotl(x, r):
        return ((x << r) | (x >> (32 - r))) & mask

    h, pos = (primes[4] + len(data)) & mask, 0
    while len(data) - pos >= 4:
        h = rotl((h + int.from_bytes(data[pos : pos + 4], "little") * primes[2]) & mask, 17)
        h, pos = h * primes[3] & mask, pos + 4
    for byte in data[pos:]:
        h = rotl((h + byte * primes[4]) & mask, 11) * primes[0] & mask
    h = (h ^ (h >> 15)) * primes[1] & mask
    h = (h ^ (h >> 13)) * primes[2] & mask
    return h ^ (h >> 16)


def lz4_declaring(plain: bytes, declared: int) -> bytes:
    """``plain`` as an LZ4 frame whose header declares ``declared`` bytes of content."""
    import lz4.frame

    frame = bytearray(lz4.frame.compress(plain, store_size=True))
    assert frame[14] == (xxh32_short(bytes(frame[4:14])) >> 8) & 0xFF  # the checksum above
    frame[6:14] = declared.to_bytes(8, "little")
    frame[14] = (xxh32_short(bytes(frame[4:14])) >> 8) & 0xFF
    return bytes(frame)


def test_lz4_frame_understating_its_size_stops_at_the_limit():
    """The declared content size is only a first guess: a frame that decodes to more is
    cut at the limit, not decoded whole."""
    assert process.decode("lz4_frame", lz4_declaring(b"abc" * 100, 300), 1 << 20) == b"abc" * 100
    bomb = lz4_declaring(b"\0" * (64 << 20), 100)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(LimitError, match="max_decompressed_bytes=1048576"):
        process.decode("lz4_frame", bomb, 1 << 20)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 16 * 1024
    with pytest.raises(DecodeError):  # liblz4 checks the declared size, at the frame's end
        process.decode("lz4_frame", lz4_declaring(b"abc" * 100, 100), 1 << 20)


def test_lz4_frame_declaring_more_than_the_limit_is_refused_before_decoding():
    with pytest.raises(LimitError, match="max_decompressed_bytes=1024"):
        process.decode("lz4_frame", lz4_declaring(b"x" * 10, 1 << 40), 1024)


def test_lz4_frame_declaring_more_than_its_bytes_can_hold_is_not_allocated():
    """A 30-byte frame declaring 60 MB (within the limit): the first piece is what its
    bytes can decode to at most, not the claim (fuzzing found a flipped bit in a Kafka
    batch's lz4 header allocating 4 MB)."""
    lying = lz4_declaring(b"abc" * 10, 60_000_000)
    tracemalloc.start()
    try:
        with pytest.raises(DecodeError):
            process.decode("lz4_frame", lying, 64 << 20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 255 * len(lying) + 4096
    honest = lz4_declaring(b"\0" * 100_000, 100_000)  # 255:1 at most: one piece or a few
    assert process.decode("lz4_frame", honest, 1 << 20) == b"\0" * 100_000


def test_lz4_frames_after_an_error_decode_afresh():
    """The decoder's context is reused per thread: an error part way through a frame must
    not leave the next frame to continue it."""
    frames = process.encoder("lz4_frame")(b"first " * 500) + process.encoder("lz4_frame")(b"2nd")
    with pytest.raises(DecodeError):
        process.decode("lz4_frame", frames[:40], 1 << 20)
    with pytest.raises(LimitError):
        process.decode("lz4_frame", frames, 100)
    assert process.decode("lz4_frame", frames, 1 << 20) == b"first " * 500 + b"2nd"
