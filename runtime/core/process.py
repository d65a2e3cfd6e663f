"""``process:`` transforms on sized regions: compression codecs with bounded output.

A field with ``size:`` and ``process:`` holds, on the wire, its bytes transformed by a
codec (Kafka's compressed record batches, Avro's compressed data blocks); the model holds
them decoded. :class:`Processed` is the construct: it reads every byte of its (sized)
stream, decodes them with the codec an expression picks, and parses its subconstruct from
the result.

    >>> from construct import GreedyBytes
    >>> p = Processed(GreedyBytes, "body", codec="deflate")
    >>> p.parse(p.build(b"hello" * 10))
    b'hellohellohellohellohellohellohellohellohellohello'

The decoded size is bounded by the ``max_decompressed_bytes`` limit, and nothing much
larger than the decoded bytes (at most the limit plus one byte; zstd: plus 256 KiB) is ever
allocated: the zlib family decodes through Python's zlib with ``max_length`` (it stops at
the limit), snappy through cramjam's raw decoder once each block's declared size is checked
against the limit (the decoder writes into a buffer of that size and fails on more), lz4
through the ``lz4`` package's frame decoder a piece at a time, each piece at most the limit
left plus one byte (below), zstd through ``zstandard`` (below). So a
decompression bomb is a :class:`~runtime.core.errors.LimitError` at the field after at most the
limit's worth of work. Which library decodes which codec was measured
(``benchmarks/avro_container.py``, ``benchmarks/kafka_record_batch.py``).

lz4: cramjam's frame decoder zeroes a block-sized buffer (64 KiB and more) for every
frame, ~270,000 instructions for a 1.7 kB Kafka batch; the ``lz4`` package's
``decompress_chunk`` with a ``max_length`` ~9,000 (benchmarks/README.md, *Kafka RecordBatch
v2*). A frame that declares its content size over the limit is refused before decoding; one
that declares a
size within it gets a first piece of that size when its bytes can decode to that much
(:data:`_LZ4_MOST_PER_BYTE`) or it is small (:data:`_BELIEVED_SIZE`); one that does not
(Kafka's Java producers), or cannot, a guess that doubles. A size that lies costs nothing:
every piece stops at the limit left.

zstd: cramjam's decoder takes 5-8x as long on a 1.7 kB Kafka batch as a reused ``zstandard``
one (benchmarks/HISTORY.md, *Kafka after zstd through `zstandard`*). A frame that declares
its content size (kafka-python's) is decoded in one call into a buffer of that size, after
checking the size against the limit and, past :data:`_BELIEVED_SIZE`, against its own size
(:data:`_MOST_TRUSTED_PER_BYTE`; libzstd checks the declared size against the decoded one).
A frame that does not, or claims more than its bytes back (Kafka's Java producers stream
theirs) goes to a streaming decoder a frame at a time: each frame found by walking its
block headers and handed to libzstd whole (fed in pieces, libzstd takes some corrupt frames
it refuses whole, so pieces sized by the limit made what decodes depend on it), its output
read :data:`_ZSTD_OUTPUT_PIECE` bytes at a time, so the output passes the limit by at most
one piece. The window a
frame asks for is capped by libzstd's default (128 MiB), as it was with cramjam.

Exact rebuild: the wire bytes are kept in the model beside the decoded value (the field
``<name>_wire``). Building writes them back unchanged when they still decode to what the
model builds; otherwise (a new or edited model) it compresses afresh. Fresh output is a
function of the codec, its ``level`` and the library version: zlib (gzip, zlib, deflate)
through the standard library, the same bytes Java's ``java.util.zip`` and Python peers
write at the same level; snappy and lz4 through cramjam; zstd through ``zstandard`` (what
kafka-python writes), the content size in the frame.
"""

from __future__ import annotations

import io
import struct
import threading
import zlib

import cramjam
import lz4.frame
import zstandard
from construct import Container, Subconstruct

from runtime.core.errors import DecodeError, EncodeError, LimitError, SiblingError
from runtime.core.limits import current as current_limits

_XERIAL_MAGIC = b"\x82SNAPPY\x00"
_XERIAL_HEADER = _XERIAL_MAGIC + struct.pack(">ii", 1, 1)
_XERIAL_BLOCK = 32 * 1024
"""Kafka's Java producer (snappy-java's SnappyOutputStream) writes 32 KiB blocks."""
_FIRST_GUESS_RATIO = 8
"""The first output buffer is this many times the compressed size (at least 1 KiB) when
the format does not say the decoded size; it doubles while the output does not fit."""


class _Overflow(Exception):
    """The decoded bytes do not fit the buffer given."""


def _into(decompress_into, data: bytes, size: int) -> bytes:
    """``data`` decoded into a buffer of ``size`` bytes; _Overflow when it does not fit."""
    out = bytearray(size)
    try:
        n = decompress_into(data, out)
    except cramjam.DecompressionError as err:
        # cramjam stops writing (and decoding) once the buffer is full and says so
        if "failed to write whole buffer" in str(err) or "smaller than required" in str(err):
            raise _Overflow from None
        raise DecodeError(f"corrupt compressed data: {err}") from None
    if n >= size:
        raise _Overflow
    del out[n:]
    return bytes(out)


def _too_large(limit: int) -> LimitError:
    return LimitError(f"decompressed data exceeds the limit max_decompressed_bytes={limit}")


def _bounded(decompress_into, data: bytes, limit: int) -> bytes:
    """Decode with buffers that double from a guess up to ``limit + 1`` bytes."""
    guess = max(1024, _FIRST_GUESS_RATIO * len(data))
    size = min(limit + 1, guess + 1)
    while True:
        try:
            return _into(decompress_into, data, size)
        except _Overflow:
            if size > limit:
                raise _too_large(limit) from None
            size = min(limit + 1, 2 * size)


def _snappy_size(data, limit: int) -> int:
    """The decoded size a raw snappy block declares, checked against ``limit``."""
    try:
        declared = cramjam.snappy.decompress_raw_len(data)
    except cramjam.DecompressionError as err:
        raise DecodeError(f"corrupt snappy data: {err}") from None
    if declared > limit:
        raise LimitError(f"snappy block of {declared} bytes exceeds max_decompressed_bytes={limit}")
    return declared


def _snappy_raw(data: bytes, limit: int) -> bytes:
    """One raw snappy block. Its declared size is checked first: the decoder writes into a
    buffer of that size and fails on a block that would decode to more, so no guessing."""
    _snappy_size(data, limit)
    try:
        return bytes(cramjam.snappy.decompress_raw(data))
    except cramjam.DecompressionError as err:
        raise DecodeError(f"corrupt snappy data: {err}") from None


def _snappy_avro(data: bytes, limit: int) -> bytes:
    """Avro's snappy: a raw block, then the CRC-32 (big-endian) of the decoded bytes."""
    if len(data) < 4:
        raise DecodeError("snappy block without its 4-byte CRC-32")
    plain = _snappy_raw(data[:-4], limit)
    (stored,) = struct.unpack(">I", data[-4:])
    if zlib.crc32(plain) != stored:
        raise DecodeError(
            f"snappy block CRC-32 mismatch: stored {stored:#010x}, computed {zlib.crc32(plain):#010x}"
        )
    return plain


def _snappy_xerial(data: bytes, limit: int) -> bytes:
    """snappy-java's stream (Kafka's Java producers): a 16-byte header, then blocks of a
    big-endian int32 length and a raw snappy block. Without the header: one raw block."""
    if not data.startswith(_XERIAL_MAGIC):
        return _snappy_raw(data, limit)
    pos, parts, total, end = 16, [], 0, len(data)
    if end < 16:
        raise DecodeError("truncated snappy-java header")
    while pos < end:
        if end - pos < 4:
            raise DecodeError("truncated snappy-java block length")
        length = int.from_bytes(data[pos : pos + 4], "big", signed=True)
        if length < 0 or length > end - pos - 4:
            raise DecodeError(f"snappy-java block length {length} past the end")
        block = data[pos + 4 : pos + 4 + length]
        try:
            total += _snappy_size(block, limit - total)
        except LimitError:
            raise LimitError(f"snappy-java stream exceeds max_decompressed_bytes={limit}") from None
        parts.append(block)
        pos += 4 + length
    try:
        if len(parts) == 1:  # a batch's usual case: one copy, from the decoder's buffer
            return bytes(cramjam.snappy.decompress_raw(parts[0]))
        return b"".join([cramjam.snappy.decompress_raw(block) for block in parts])
    except cramjam.DecompressionError as err:
        raise DecodeError(f"corrupt snappy data: {err}") from None


def _zlib_family(wbits: int):
    """Python's zlib with ``max_length``: it stops at the limit by itself (no buffer to
    guess), and on small blocks it is twice as fast as cramjam (benchmarks/avro_container.py).
    Concatenated gzip members are read one after the other, as ``gzip.decompress`` does."""

    def decode(data: bytes, limit: int) -> bytes:
        parts, total, rest = [], 0, data
        while True:
            d = zlib.decompressobj(wbits)
            try:
                part = d.decompress(rest, limit - total + 1)
            except zlib.error as err:
                raise DecodeError(f"corrupt compressed data: {err}") from None
            total += len(part)
            if total > limit:
                raise _too_large(limit)
            parts.append(part)
            if not d.eof:
                raise DecodeError("truncated compressed data")
            rest = d.unused_data
            if wbits != 31 or not rest:
                return b"".join(parts)

    return decode


def _deflate_compress(level):
    def compress(data: bytes) -> bytes:
        c = zlib.compressobj(level, zlib.DEFLATED, -15)
        return c.compress(data) + c.flush()

    return compress


def _xerial_compress(data: bytes) -> bytes:
    out = [_XERIAL_HEADER]
    for start in range(0, len(data), _XERIAL_BLOCK):
        block = bytes(cramjam.snappy.compress_raw(data[start : start + _XERIAL_BLOCK]))
        out += [struct.pack(">i", len(block)), block]
    return b"".join(out)


def _avro_snappy_compress(data: bytes) -> bytes:
    return bytes(cramjam.snappy.compress_raw(data)) + struct.pack(">I", zlib.crc32(data))


_BELIEVED_SIZE = 64 * 1024
"""An lz4 or zstd frame's declared content size up to this is believed whatever the
frame's own size: a buffer that small costs less than working out the bound (on every
Kafka batch)."""
_MOST_TRUSTED_PER_BYTE = 256
"""A zstd frame's declared content size is decoded in one call, into a buffer of that size,
only up to this many times the compressed size (lz4's most, about the fuzzer's memory bound
per input byte); a larger claim streams, so no buffer is sized by a claim the input cannot
back."""
_ZSTD_LOCAL = threading.local()
"""A ``zstandard.ZstdDecompressor`` per thread (one is not safe to share between threads);
reusing it spares the decoder context's allocation and setup on every frame."""


def _zstd_decompressor() -> zstandard.ZstdDecompressor:
    try:
        return _ZSTD_LOCAL.decompressor
    except AttributeError:
        _ZSTD_LOCAL.decompressor = zstandard.ZstdDecompressor()
        return _ZSTD_LOCAL.decompressor


def _zstd(data: bytes, limit: int) -> bytes:
    """zstd frames one after the other (as Kafka's Java consumer reads them), at most
    ``limit`` bytes of output."""
    decompressor = _zstd_decompressor()
    try:
        declared = zstandard.frame_content_size(data)
    except zstandard.ZstdError as err:
        raise DecodeError(f"corrupt compressed data: {err}") from None
    if declared > limit:
        raise _too_large(limit)
    # 0 may be a frame lying about its content, and a size past what its bytes can back
    # would size the one call's buffer by the claim alone: the stream checks both
    if declared > 0 and (
        declared <= _BELIEVED_SIZE or declared <= _MOST_TRUSTED_PER_BYTE * len(data)
    ):
        try:
            return decompressor.decompress(data, allow_extra_data=False)
        except zstandard.ZstdError:
            pass  # several frames, or corrupt: the stream decodes or says which
    return _zstd_stream(decompressor, data, limit)


_ZSTD_OUTPUT_PIECE = 128 * 1024
"""Bytes of output the stream asks libzstd for at a time (the format's largest block): a
fixed size, so what decodes does not depend on the limit, and no piece outgrows the limit
by more than this."""
_ZSTD_SKIPPABLE_MAGIC = 0x184D2A50
"""A skippable frame's magic number, its low 4 bits any (RFC 8878 3.1.2): it holds no
content, only its own size and that many bytes."""


def _zstd_frame_end(data: memoryview, start: int) -> int:
    """Where the zstd frame at ``start`` ends: its header, then its blocks walked by their
    3-byte headers (RFC 8878 3.1.1.2), then its checksum if the header says one follows.

    >>> _zstd_frame_end(memoryview(bytes.fromhex("28b52ffd2000010000")), 0)  # empty frame
    9
    """
    if len(data) - start >= 8 and int.from_bytes(data[start : start + 4], "little") >> 4 == (
        _ZSTD_SKIPPABLE_MAGIC >> 4
    ):
        end = start + 8 + int.from_bytes(data[start + 4 : start + 8], "little")
    else:
        try:
            end = start + zstandard.frame_header_size(data[start:])
        except zstandard.ZstdError as err:
            raise DecodeError(f"corrupt compressed data: {err}") from None
        last = 0
        while not last and end + 3 <= len(data):
            header = int.from_bytes(data[end : end + 3], "little")
            last, kind, size = header & 1, (header >> 1) & 3, header >> 3
            end += 3 + (1 if kind == 1 else size)  # an RLE block holds its one byte
        if not last:
            end = len(data) + 1
        elif data[start + 4] & 0x04:  # Content_Checksum_flag
            end += 4
    if end > len(data):
        raise DecodeError("corrupt compressed data: truncated zstd frame")
    return end


def _zstd_stream(decompressor, data: bytes, limit: int) -> bytes:
    """zstd frames one after the other, each found by :func:`_zstd_frame_end` and handed to
    libzstd whole: fed in pieces, libzstd's stream takes some corrupt frames it refuses
    whole (a compressed block of 0 bytes whose header arrives apart), so pieces sized by the
    limit made what decodes depend on it. Output comes :data:`_ZSTD_OUTPUT_PIECE` bytes at
    a time, so no buffer is sized by a claim."""
    parts, total, data, start = [], 0, memoryview(data), 0
    while start < len(data):
        end = _zstd_frame_end(data, start)
        frame_start = total
        try:
            declared = zstandard.frame_content_size(data[start:end])
            reader = decompressor.stream_reader(data[start:end])
            while part := reader.read(_ZSTD_OUTPUT_PIECE):
                total += len(part)
                if total > limit:
                    raise _too_large(limit)
                parts.append(part)
        except zstandard.ZstdError as err:
            raise DecodeError(f"corrupt compressed data: {err}") from None
        if declared >= 0 and total - frame_start != declared:
            # libzstd's stream leaves this unchecked when the frame's last block is empty
            raise DecodeError(
                f"corrupt compressed data: a zstd frame declares {declared} bytes of content"
                f" and holds {total - frame_start}"
            )
        start = end
    return b"".join(parts)


def _zstd_compress(level):
    compressor = zstandard.ZstdCompressor(**({} if level is None else {"level": level}))
    return compressor.compress


_LZ4_HEADER = struct.Struct("<IBxQ")
"""An LZ4 frame's magic number, its FLG byte, and the content size when FLG's bit 3 says one
follows (the BD byte between them)."""
_LZ4_MAGIC = 0x184D2204
_LZ4_MOST_PER_BYTE = 255
"""No lz4 input byte decodes to more than this (a match length's extension byte adds 255
bytes): a frame declaring more content than that gets the doubling guess instead."""
_LZ4_LOCAL = threading.local()
"""An lz4 decompression context per thread: reusing it spares the context's and its block
buffers' allocation on every frame. A frame that ends leaves it ready for the next; an
error part way through drops it."""


def _lz4_frame(data: bytes, limit: int) -> bytes:
    """LZ4 frames one after the other (as cramjam and Kafka's Java consumer read them), at
    most ``limit`` bytes of output: each piece is asked for at most the limit left plus one
    byte, so a frame that lies about its size stops there too."""
    try:
        context = _LZ4_LOCAL.context
    except AttributeError:
        context = _LZ4_LOCAL.context = lz4.frame.create_decompression_context()
    parts, total, rest = [], 0, data
    try:
        while True:
            piece = max(1024, _FIRST_GUESS_RATIO * len(rest))
            if len(rest) >= _LZ4_HEADER.size:
                magic, flags, declared = _LZ4_HEADER.unpack_from(rest)
                if magic == _LZ4_MAGIC and flags & 0x08:
                    if declared > limit - total:
                        raise _too_large(limit)
                    if declared <= _BELIEVED_SIZE or declared <= _LZ4_MOST_PER_BYTE * len(rest):
                        piece = declared or piece
            eof = False
            while not eof:
                try:
                    part, used, eof = lz4.frame.decompress_chunk(
                        context, rest, min(piece, limit + 1 - total)
                    )
                except RuntimeError as err:
                    raise DecodeError(f"corrupt compressed data: {err}") from None
                total += len(part)
                if total > limit:
                    raise _too_large(limit)
                parts.append(part)
                rest = rest[used:]
                if not eof and not rest:
                    raise DecodeError("corrupt compressed data: truncated lz4 frame")
                piece *= 2
            if not rest:
                return parts[0] if len(parts) == 1 else b"".join(parts)
    except BaseException:
        # a new context for the next frame: liblz4's reset keeps a failed frame's remaining
        # size, so a reset context refuses the next good frame (tests/test_process.py)
        del _LZ4_LOCAL.context
        raise


DECODERS = {
    "none": None,
    "gzip": _zlib_family(31),
    "zlib": _zlib_family(15),
    "deflate": _zlib_family(-15),
    "snappy": _snappy_raw,
    "snappy_framed": lambda data, limit: _bounded(cramjam.snappy.decompress_into, data, limit),
    "snappy_xerial": _snappy_xerial,
    "snappy_avro": _snappy_avro,
    "lz4_frame": _lz4_frame,
    "zstd": _zstd,
}
"""Codec name -> ``decode(data, limit) -> bytes`` (``none``: the bytes as they are)."""

CODECS = tuple(DECODERS)


def encoder(codec: str, level: int | None = None):
    """``codec``'s compressor at ``level`` (the library's default when None)."""
    zlevel = -1 if level is None else level
    if codec == "gzip":
        # mtime 0: the same bytes every time (Python's gzip would stamp the clock)
        return lambda data: _gzip(data, zlevel)
    if codec == "zlib":
        return lambda data: zlib.compress(data, zlevel)
    if codec == "deflate":
        return _deflate_compress(zlevel)
    if codec == "snappy":
        return lambda data: bytes(cramjam.snappy.compress_raw(data))
    if codec == "snappy_framed":
        return lambda data: bytes(cramjam.snappy.compress(data))
    if codec == "snappy_xerial":
        return _xerial_compress
    if codec == "snappy_avro":
        return _avro_snappy_compress
    if codec == "lz4_frame":
        return lambda data: bytes(cramjam.lz4.compress(data, *(() if level is None else (level,))))
    if codec == "zstd":
        return _zstd_compress(level)
    return lambda data: bytes(data)


def _gzip(data: bytes, level: int) -> bytes:
    import gzip

    return gzip.compress(data, compresslevel=9 if level == -1 else level, mtime=0)


def decode(codec: str, data: bytes, limit: int) -> bytes:
    """``data`` decoded by ``codec``, at most ``limit`` bytes (else a LimitError)."""
    decoder = DECODERS.get(codec)
    if decoder is None:
        if codec != "none":
            raise DecodeError(f"unknown codec {codec!r}")
        return bytes(data)
    return decoder(data, limit)


def codec_for(value, cases: dict | None) -> str:
    """The codec ``cases`` maps ``value`` to (bytes compared as ASCII text)."""
    if cases is None:
        return value
    key = value.decode("latin-1") if isinstance(value, (bytes, bytearray)) else value
    try:
        return cases[key]
    except (KeyError, TypeError):
        raise DecodeError(f"no codec for {value!r} (known: {list(cases)})") from None


def _read_decoded(read, wire: bytes, start: int, codec: str, limits):
    """``read(plain, limits) -> (value, used)`` over ``wire`` decoded; errors at ``start``
    (an offset inside decoded bytes is no offset of the input) with ``<codec>`` in the
    path of an error inside them."""
    plain = decoded(codec, wire, start, limits)
    try:
        value, used = read(plain, limits)
    except DecodeError as err:
        err.offset = start
        err.add_path(f"<{codec}>")
        raise
    if used != len(plain):
        raise DecodeError(f"{len(plain) - used} decoded byte(s) left unparsed", offset=start)
    return value


def read_processed(reader, buf, pos: int, end: int, codec, cases, limits, depth: int, *parent):
    """The fast path's :class:`Processed`: ``reader`` (a generated ``_read_<record>``)
    over ``buf[pos:end]`` decoded by the codec ``cases`` maps ``codec`` to; returns the
    value and the wire bytes (kept)."""
    codec = codec_at(codec, cases, pos)
    wire = bytes(buf[pos:end])

    def read(plain, limits):
        return reader(plain, 0, len(plain), limits, depth, *parent)

    return _read_decoded(read, wire, pos, codec, limits), wire


def codec_at(value, cases, pos: int) -> str:
    """:func:`codec_for`, its error at ``pos`` (the region's first byte)."""
    try:
        return codec_for(value, cases)
    except DecodeError as err:
        err.offset = pos
        raise


def decoded(codec: str, wire: bytes, pos: int, limits) -> bytes:
    """The fast path's decoding of a region running to its record's end (``process:
    {size: eos}``): :func:`decode` bounded by ``max_decompressed_bytes``, errors at ``pos``."""
    try:
        return decode(codec, wire, limits.max_decompressed_bytes)
    except DecodeError as err:
        err.offset = pos
        raise


def _param_context(context):
    """A copy of ``context`` whose parse records no spans: offsets inside decoded bytes
    are not offsets of the input, so ``inspect`` shows the region as one leaf."""
    inner = Container(context)
    params = Container(getattr(context, "_params", None) or {})
    params["spans"] = None
    inner._params = params
    return inner


class Processed(Subconstruct):
    """``subcon`` read from the decoded bytes of the whole (sized) stream.

    ``codec`` is a codec name, or a function of the context returning a value that
    ``cases`` maps to a codec name (``{0: "none", 1: "gzip"}``, ``{"null": "none"}``; a
    bytes value is matched as ASCII text). ``name`` is the field: its wire bytes are kept
    in the model as ``<name>_wire`` (``runtime.core.sequences.Kept``).
    """

    def __init__(
        self, subcon, name: str, *, codec, cases=None, level: int | None = None, rest=False
    ):
        super().__init__(subcon)
        self.field = name
        self.codec = codec
        self.cases = cases
        self.level = level
        self.rest = rest
        """The region is the rest of the stream (``process: {size: eos}``): with the codec
        ``none`` it is read in place (offsets and ``inspect`` spans of the input) and no
        wire bytes are kept, since writing the value gives them back."""

    def codec_of(self, context) -> str:
        if not callable(self.codec):
            return self.codec
        return codec_for(self.codec(context), self.cases)

    def _parse(self, stream, context, path):
        start = stream.tell()
        try:
            codec = self.codec_of(context)
        except DecodeError as err:
            err.offset = start
            raise
        if self.rest and codec == "none":
            value = self.subcon._parsereport(stream, context, path)
            at = stream.tell()
            left = len(stream.read())
            if left:
                raise DecodeError(f"{left} byte(s) left unparsed", offset=at)
            context[f"_{self.field}_wire"] = None
            return value
        wire = stream.read()

        def read(plain, limits):
            inner = io.BytesIO(plain)
            value = self.subcon._parsereport(inner, _param_context(context), path)
            return value, inner.tell()

        value = _read_decoded(read, wire, start, codec, current_limits(context))
        context[f"_{self.field}_wire"] = wire
        return value

    def _build(self, obj, stream, context, path):
        inner = io.BytesIO()
        built = self.subcon._build(obj, inner, context, path)
        plain = inner.getvalue()
        try:
            codec = self.codec_of(context)
        except DecodeError as err:
            raise EncodeError(str(err)) from None
        wire = context.get(f"{self.field}_wire")
        if wire is not None and not isinstance(wire, bytes | bytearray):
            what = EncodeError.expected("bytes", wire).message
            raise SiblingError(what, path=f"{self.field}_wire")
        stream.write(compressed(codec, plain, wire, self.level))
        return built


def compressed(codec: str, plain: bytes, wire: bytes | None, level: int | None = None) -> bytes:
    """``plain`` as ``codec`` writes it: the kept ``wire`` bytes when they still decode to
    ``plain`` (whichever compressor made them), else a fresh compression at ``level``."""
    if wire is not None and not isinstance(wire, bytes | bytearray):
        raise TypeError("kept wire bytes that are no bytes")  # Processed says so, by name
    if codec == "none":
        return plain
    if wire is not None and codec in DECODERS:
        try:
            if decode(codec, wire, len(plain)) == plain:
                return wire
        except DecodeError:
            pass  # the kept bytes are stale or corrupt: compress afresh
    return encoder(codec, level)(plain)
