"""zstd in ``process:`` (runtime/core/process.py decodes it through ``zstandard``): the
``max_decompressed_bytes`` limit holds whether a frame declares its content size, leaves
it out (Kafka's Java producers) or lies about it; frames follow one another; a truncated
frame is an error (zstandard's stream reader would return what it had); every outcome
agrees with cramjam's decoder, an independent one; and one decoder per thread."""

from __future__ import annotations

import resource
import struct
import tracemalloc
from concurrent.futures import ThreadPoolExecutor

import cramjam
import pytest
import zstandard
from hypothesis import example, given, settings
from hypothesis import strategies as st

from runtime.core import process
from runtime.core.errors import DecodeError, LimitError

PLAIN = b"".join(b"record %05d " % i for i in range(250))  # 3,000 bytes
MIB = 1 << 20


def frame(plain: bytes, *, content_size: bool = True) -> bytes:
    return zstandard.ZstdCompressor(write_content_size=content_size).compress(plain)


def declaring(plain: bytes, declared: int) -> bytes:
    """A frame of ``plain`` whose header declares ``declared`` bytes of content: the
    frame written without a content size, its header given an 8-byte one."""
    body = frame(plain, content_size=False)
    descriptor = body[4]
    assert descriptor & 0xE3 == 0  # no content size, no single segment, no dictionary
    return (
        body[:4] + bytes([descriptor | 0xC0]) + body[5:6] + struct.pack("<Q", declared) + body[6:]
    )


def zeros_streamed(size: int, *, content_size: bool) -> bytes:
    """``size`` zero bytes compressed a MiB at a time (never held whole); the header
    declares the size when ``content_size``."""
    compressor = zstandard.ZstdCompressor(write_content_size=content_size)
    stream = compressor.compressobj(size=size if content_size else -1)
    chunk = bytes(MIB)
    out = [stream.compress(chunk) for _ in range(size // MIB)]
    return b"".join(out) + stream.flush()


def test_declaring_writes_the_content_size_libzstd_reads():
    assert zstandard.frame_content_size(declaring(PLAIN, 12345)) == 12345
    assert process.decode("zstd", declaring(PLAIN, len(PLAIN)), MIB) == PLAIN


@pytest.mark.parametrize("content_size", [True, False], ids=["declared", "not-declared"])
def test_a_bomb_is_a_limit_error_without_allocating_it(content_size):
    bomb = zeros_streamed(256 * MIB, content_size=content_size)
    assert (zstandard.frame_content_size(bomb) == 256 * MIB) == content_size
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(LimitError, match="max_decompressed_bytes=1048576"):
        process.decode("zstd", bomb, MIB)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 16 * 1024  # KiB


def test_output_at_the_limit_decodes_and_one_byte_more_does_not():
    for content_size in (True, False):
        data = frame(PLAIN, content_size=content_size)
        assert process.decode("zstd", data, len(PLAIN)) == PLAIN
        with pytest.raises(LimitError):
            process.decode("zstd", data, len(PLAIN) - 1)


@pytest.mark.parametrize("declared", [len(PLAIN) + 1, len(PLAIN) - 1, 1, 0])
def test_a_lying_content_size_is_a_decode_error(declared):
    with pytest.raises(DecodeError) as info:
        process.decode("zstd", declaring(PLAIN, declared), MIB)
    assert not isinstance(info.value, LimitError)


def test_a_content_size_above_the_limit_is_refused_before_decoding():
    """A header declaring 1 TiB over three thousand bytes: a LimitError, nothing allocated."""
    with pytest.raises(LimitError, match="max_decompressed_bytes=1048576"):
        process.decode("zstd", declaring(PLAIN, 1 << 40), MIB)


@pytest.mark.parametrize("declared", [60_000_000, len(PLAIN) * 1000])
def test_a_content_size_its_bytes_cannot_back_is_not_allocated(declared):
    """A frame of a few hundred bytes declaring 60 MB (within the limit) is not decoded
    into a buffer of the claimed size: the stream finds the lie."""
    lying = declaring(PLAIN, declared)
    tracemalloc.start()
    try:
        with pytest.raises(DecodeError):
            process.decode("zstd", lying, 64 * MIB)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < MIB


def test_a_frame_denser_than_trusted_streams_and_decodes():
    dense = frame(bytes(MIB))
    assert zstandard.frame_content_size(dense) > 256 * len(dense)
    assert process.decode("zstd", dense, MIB) == bytes(MIB)


def test_frames_follow_one_another_and_anything_else_is_an_error():
    one, other = frame(PLAIN), frame(PLAIN[:100], content_size=False)
    assert process.decode("zstd", one + other, MIB) == PLAIN + PLAIN[:100]
    assert process.decode("zstd", other + one, MIB) == PLAIN[:100] + PLAIN
    with pytest.raises(LimitError):  # the limit counts every frame
        process.decode("zstd", one + one, 2 * len(PLAIN) - 1)
    for bad in (one + b"\0\0\0\0", one + b"xyz", b"", b"\x28\xb5\x2f"):
        with pytest.raises(DecodeError):
            process.decode("zstd", bad, MIB)


@pytest.mark.parametrize("content_size", [True, False], ids=["declared", "not-declared"])
def test_a_truncated_frame_is_a_decode_error(content_size):
    data = frame(PLAIN, content_size=content_size)
    for cut in range(len(data)):
        with pytest.raises(DecodeError):
            process.decode("zstd", data[:cut], MIB)


@settings(max_examples=200, deadline=None)
@given(
    plain=st.one_of(
        st.binary(max_size=3000),
        st.builds(bytes.__mul__, st.binary(min_size=1, max_size=9), st.integers(1, 900)),
    ),
    content_size=st.booleans(),
    frames=st.integers(1, 2),
    edits=st.lists(
        st.tuples(st.integers(0, 10**6), st.integers(0, 255), st.booleans()), max_size=3
    ),
    limit=st.integers(0, 8000),
)
# an empty frame whose header is edited to declare one byte: libzstd's stream let it pass
@example(plain=b"", content_size=True, frames=1, edits=[(356, 1, False)], limit=1)
def test_every_outcome_is_cramjams(plain, content_size, frames, edits, limit):
    """Valid, mutated and truncated frames: the bytes cramjam decodes when they fit the
    limit, a LimitError when they do not, a DecodeError when cramjam finds them corrupt."""
    data = bytearray(frame(plain, content_size=content_size) * frames)
    for at, value, cut in edits:
        if cut:
            del data[at % (len(data) + 1) :]
        elif data:
            data[at % len(data)] = value
    data = bytes(data)
    try:
        theirs = bytes(cramjam.zstd.decompress(data))
    except cramjam.DecompressionError:
        theirs = None
    try:
        ours = process.decode("zstd", data, limit)
    except LimitError:
        ours = LimitError
    except DecodeError:
        ours = DecodeError
    if theirs is None:
        assert ours in (DecodeError, LimitError)  # corrupt, and maybe over the limit first
    elif len(theirs) > limit:
        assert ours is LimitError
    else:
        assert ours == theirs


def test_each_thread_decodes_with_its_own_decompressor():
    frames = [frame(PLAIN[: 100 + i], content_size=i % 2 == 0) for i in range(64)]

    def decode_all(_):
        return all(process.decode("zstd", f, MIB) == PLAIN[: 100 + i] for i, f in enumerate(frames))

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(decode_all, range(16)))


def test_fresh_output_is_zstandards_at_its_default_level():
    """What kafka-python writes (``zstandard.ZstdCompressor().compress``), byte for byte."""
    assert process.encoder("zstd")(PLAIN) == zstandard.ZstdCompressor().compress(PLAIN)
    assert process.encoder("zstd", 9)(PLAIN) == zstandard.ZstdCompressor(level=9).compress(PLAIN)


CORRUPT_SECOND_FRAME = bytes.fromhex("28b52ffd2000010000" "28b52ffd2000050000")
"""An empty frame, then one whose last block is a compressed block of 0 bytes (corrupt):
libzstd's stream refuses it fed whole, and takes it fed 8 bytes or fewer at a time, as
``_zstd_stream`` fed it under a small limit when its pieces were sized by the limit. Found
fuzzing Kafka batches' edited JSON forms: build's ``compressed`` checks kept bytes under the
limit ``len(plain)`` (0 here), so it wrote back ``records_wire`` bytes that parse, under the
default limit, refuses. Each frame now goes to libzstd whole."""


@pytest.mark.parametrize("limit", [0, 1, 1000, 64 << 20])
def test_a_corrupt_frame_is_refused_under_any_limit(limit):
    with pytest.raises(process.DecodeError, match="corrupt"):
        process.decode("zstd", CORRUPT_SECOND_FRAME, limit)


@pytest.mark.parametrize(
    "data",
    [
        frame(PLAIN, content_size=False) + frame(PLAIN[:7], content_size=False),
        bytes.fromhex("28b52ffd2000010000") * 3,
        (0x184D2A53).to_bytes(4, "little") + (2).to_bytes(4, "little") + b"ab" + frame(PLAIN),
    ],
    ids=["two frames", "empty frames", "a skippable frame first"],
)
def test_frames_decode_alike_under_every_limit_they_fit(data):
    """The stream's pieces do not depend on the limit: a limit decodes the frames or says
    they are too large, never a third answer."""
    plain = bytes(cramjam.zstd.decompress(data))
    for limit in (len(plain), len(plain) + 1, 64 << 20):
        assert process.decode("zstd", data, limit) == plain
    if plain:
        with pytest.raises(LimitError):
            process.decode("zstd", data, len(plain) - 1)


@pytest.mark.parametrize("cut", [1, 3, 5])
def test_a_truncated_frame_is_refused_by_the_stream(cut):
    data = frame(PLAIN, content_size=False)
    with pytest.raises(process.DecodeError, match="corrupt"):
        process.decode("zstd", data[:-cut], 64 << 20)
