"""The PNG gallery spec (specs/png.yaml, chunks ``repeat: {until:}`` the IEND chunk) against
pypng, both ways: pypng's files parse to what pypng reads (its chunks, header, palette,
gamma, physical size and image data) and rebuild exactly; our build of the same values is
pypng's bytes, and pypng reads it back to the same pixels; pypng's chunk reader takes what
we build from drawn models (CRCs included). Plus the until-reader in the quick and compiled
tiers, held equal to construct on samples, truncations, mutations and drawn models."""

from __future__ import annotations

import io
import zlib
from pathlib import Path

import png
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generated import png as codec
from runtime.core.errors import DecodeError, EncodeError
from runtime.core.limits import DEFAULT
from tests.test_compiled import agree as compiled_agree
from tests.test_quicktier import agree

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "samples" / "png").glob("*.bin"))
T = codec.ChunkType

_LATIN1 = st.characters(min_codepoint=0x20, max_codepoint=0xFF, exclude_characters="\x7f")
_KEYWORDS = st.text(_LATIN1, min_size=1, max_size=79).filter(
    lambda k: k == k.strip() and "  " not in k
)


@st.composite
def images(draw):
    """(pypng Writer options, rows, extra chunks put in after IHDR as (type, data))."""
    mode = draw(st.sampled_from(["grey", "grey_alpha", "rgb", "rgba", "palette"]))
    width, height = draw(st.integers(1, 9)), draw(st.integers(1, 6))
    options = {"interlace": draw(st.booleans())}
    if mode == "palette":
        depth = draw(st.sampled_from([1, 2, 4, 8]))
        size = draw(st.integers(1, 2**depth if depth < 8 else 40))
        colours = st.tuples(*[st.integers(0, 255)] * 3)
        options["palette"] = draw(st.lists(colours, min_size=size, max_size=size))
        planes, top = 1, size - 1
    else:
        depth = draw(st.sampled_from([1, 2, 4, 8, 16] if mode == "grey" else [8, 16]))
        planes = {"grey": 1, "grey_alpha": 2, "rgb": 3, "rgba": 4}[mode]
        options.update(greyscale=mode.startswith("grey"), alpha=mode in ("grey_alpha", "rgba"))
        top = 2**depth - 1
    options["bitdepth"] = depth
    if draw(st.booleans()):
        options["gamma"] = draw(st.integers(1, 200_000)) / 100_000
    if draw(st.booleans()):
        options["x_pixels_per_unit"] = draw(st.integers(1, 2**32 - 1))
        options["y_pixels_per_unit"] = draw(st.integers(1, 2**32 - 1))
        options["unit_is_meter"] = draw(st.booleans())
    sample = st.integers(0, top)
    rows = draw(st.lists(st.lists(sample, min_size=width * planes, max_size=width * planes),
                         min_size=height, max_size=height))  # fmt: skip
    return width, height, options, rows, draw(st.lists(_text_chunks(), max_size=4))


def _text_chunks():
    """(chunk type, the data pypng writes, our model of the same values): text chunks
    with their keywords as text, and tIME."""
    latin1 = st.text(_LATIN1, max_size=60)
    utf8 = st.text(max_size=40).filter(lambda t: "\x00" not in t)
    language = st.sampled_from(["", "en", "de-DE", "x-klingon"])
    return st.one_of(
        st.tuples(_KEYWORDS, latin1).map(_text),
        st.tuples(_KEYWORDS, latin1).map(_compressed_text),
        st.tuples(_KEYWORDS, st.booleans(), language, utf8, utf8).map(_international_text),
        st.tuples(st.integers(0, 65535), st.integers(1, 12), st.integers(1, 31),
                  st.integers(0, 23), st.integers(0, 59), st.integers(0, 60)).map(_stamp),
    )  # fmt: skip


def _text(drawn):
    keyword, text = drawn
    data = keyword.encode("latin-1") + b"\x00" + text.encode("latin-1")
    return b"tEXt", data, codec.Text(keyword=keyword, text=text)


def _compressed_text(drawn):
    keyword, text = drawn
    wire = zlib.compress(text.encode("latin-1"))
    data = keyword.encode("latin-1") + b"\x00\x00" + wire
    model = codec.CompressedText(keyword=keyword, compression_method=0,
                                 text=codec.Latin1Text(text=text), text_wire=wire)  # fmt: skip
    return b"zTXt", data, model


def _international_text(drawn):
    keyword, compressed, language, translated, text = drawn
    wire = zlib.compress(text.encode()) if compressed else text.encode()
    data = (keyword.encode("latin-1") + b"\x00" + bytes([compressed, 0]) + language.encode()
            + b"\x00" + translated.encode() + b"\x00" + wire)  # fmt: skip
    model = codec.InternationalText(
        keyword=keyword, compression_flag=int(compressed), compression_method=0,
        language_tag=language, translated_keyword=translated, text=codec.Utf8Text(text=text),
        text_wire=wire if compressed else None,
    )  # fmt: skip
    return b"iTXt", data, model


def _stamp(drawn):
    data = drawn[0].to_bytes(2, "big") + bytes(drawn[1:])
    names = ("year", "month", "day", "hour", "minute", "second")
    return b"tIME", data, codec.LastModified(**dict(zip(names, drawn)))


def _pypng(width, height, options, rows, extra) -> bytes:
    out = io.BytesIO()
    png.Writer(width, height, **options).write(out, rows)
    data = out.getvalue()
    if not extra:
        return data
    chunks = list(png.Reader(bytes=data).chunks())
    out = io.BytesIO()
    png.write_chunks(out, chunks[:1] + [(kind, data) for kind, data, _ in extra] + chunks[1:])
    return out.getvalue()


def _type(chunk) -> bytes:
    return int(chunk.type).to_bytes(4, "big")


def _data(chunk) -> bytes:
    """A chunk's data as the file holds it: our typed values written back by the spec's
    own data records (the chunk alone, minus its length, type and CRC)."""
    whole = codec.build(chunk, "chunk")
    return whole[8:-4]


def _text_of(chunk):
    """(keyword, text) of a text chunk as our model holds it."""
    data = chunk.data
    text = data.text if isinstance(data.text, str) else data.text.text
    return data.keyword, text


def _split(kind: bytes, data: bytes):
    """(keyword, text) of pypng's chunk bytes, split by the PNG specification's rules."""
    keyword, rest = data.split(b"\x00", 1)
    if kind == b"tEXt":
        return keyword.decode("latin-1"), rest.decode("latin-1")
    if kind == b"zTXt":
        return keyword.decode("latin-1"), zlib.decompress(rest[1:]).decode("latin-1")
    flag, _, rest = rest[0], rest[1], rest[2:]
    _, _, text = rest.split(b"\x00", 2)
    return keyword.decode("latin-1"), (zlib.decompress(text) if flag else text).decode()


def _same_as_the_library(data: bytes, model) -> None:
    """Our model of ``data`` holds what pypng reads from it."""
    chunks = list(png.Reader(bytes=data).chunks())
    assert [(_type(c), _data(c)) for c in model.chunks] == chunks
    assert [c.length for c in model.chunks] == [len(d) for _, d in chunks]
    width, height, _, info = png.Reader(bytes=data).read()
    header = model.chunks[0].data
    assert (header.width, header.height, header.bit_depth) == (width, height, info["bitdepth"])
    colour = header.colour_type
    assert info["greyscale"] == (colour in (0, 4))
    assert info["alpha"] == (colour in (4, 6))
    assert bool(info["interlace"]) == (header.interlace_method == 1)
    by_type = {c.type: c.data for c in model.chunks}
    if "palette" in info:
        assert [(e.red, e.green, e.blue) for e in by_type[T.PLTE].entries] == [
            tuple(p[:3]) for p in info["palette"]
        ]
    if "gamma" in info:
        assert by_type[T.gAMA].gamma / 100_000 == info["gamma"]
    if "physical" in info:
        phys = by_type[T.pHYs]
        assert (phys.pixels_per_unit_x, phys.pixels_per_unit_y, bool(phys.unit)) == tuple(
            info["physical"]
        )
    idat = b"".join(c.data for c in model.chunks if c.type == T.IDAT)
    assert idat == b"".join(d for kind, d in chunks if kind == b"IDAT")
    for chunk, (kind, raw) in zip(model.chunks, chunks):
        if kind in (b"tEXt", b"zTXt", b"iTXt"):
            assert _text_of(chunk) == _split(kind, raw)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(images())
def test_library_bytes_parse_to_what_it_reads_and_rebuild(image):
    data = _pypng(*image)
    model = codec.parse(data)
    _same_as_the_library(data, model)
    assert model.chunks[-1].type == T.IEND and model.chunks[0].type == T.IHDR
    assert codec.build(model) == data


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(images())
def test_the_construct_oracle_agrees(image):
    data = _pypng(*image)
    model = codec.parse(data)
    assert codec.to_dict(codec.parse_construct(data)) == codec.to_dict(model)
    assert codec.build_construct(model) == data


def _model_of(width, height, options, rows, extra, idat: list[bytes]):
    """Our model of the image, made from the values (not from bytes): pypng's chunk order
    (IHDR, the extra chunks, gAMA, PLTE, pHYs, IDAT, IEND); IDAT holds pypng's zlib stream,
    which is image data, not a value our spec reads."""
    depth = options["bitdepth"]
    if "palette" in options:
        colour = codec.ColourType.INDEXED_COLOUR
    else:
        colour = {(True, False): 0, (False, False): 2, (True, True): 4, (False, True): 6}[
            (options["greyscale"], options["alpha"])
        ]
    chunk = codec.Chunk
    header = codec.ImageHeader(width=width, height=height, bit_depth=depth, colour_type=colour,
                               interlace_method=int(options["interlace"]))  # fmt: skip
    chunks = [chunk(type=T.IHDR, data=header)]
    for kind, _, data in extra:  # the values we drew, keywords as text
        chunks.append(chunk(type=int.from_bytes(kind, "big"), data=data))
    if "gamma" in options:
        gamma = round(options["gamma"] * 100_000)
        chunks.append(chunk(type=T.gAMA, data=codec.Gamma(gamma=gamma)))
    if "palette" in options:
        entries = [codec.PaletteEntry(red=r, green=g, blue=b) for r, g, b in options["palette"]]
        chunks.append(chunk(type=T.PLTE, data=codec.Palette(entries=entries)))
    if "x_pixels_per_unit" in options:
        phys = codec.PhysicalDimensions(
            pixels_per_unit_x=options["x_pixels_per_unit"],
            pixels_per_unit_y=options["y_pixels_per_unit"],
            unit=int(options["unit_is_meter"]),
        )
        chunks.append(chunk(type=T.pHYs, data=phys))
    chunks += [chunk(type=T.IDAT, data=d) for d in idat]
    chunks.append(chunk(type=T.IEND, data=None))
    return codec.PngFile(chunks=chunks)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(images())
def test_our_build_of_the_values_is_the_library_bytes_and_it_reads_them(image):
    expected = _pypng(*image)
    idat = [d for kind, d in png.Reader(bytes=expected).chunks() if kind == b"IDAT"]
    ours = codec.build(_model_of(*image, idat))
    assert ours == expected
    width, height, rows, _ = png.Reader(bytes=ours).read()
    assert (width, height) == image[:2]
    assert [list(r) for r in rows] == image[3]


def _letters(kind: bytes) -> bool:
    return all(65 <= b <= 90 or 97 <= b <= 122 for b in kind)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(codec.strategies("png_file"))
def test_the_library_reads_the_chunks_we_build(model):
    """Drawn models: any chunk types and data (pypng's chunk reader checks framing and
    CRCs, not the chunk order). pypng refuses a type of other than letters, which the
    PNG specification forbids and our spec keeps."""
    data = codec.build(model)
    parsed = codec.parse(data)
    assert codec.build(parsed) == data
    assert parsed.chunks[-1].type == T.IEND
    reader = png.Reader(bytes=data)
    for chunk in parsed.chunks:
        if not _letters(_type(chunk)):
            with pytest.raises(png.FormatError):
                reader.chunk()
            return
        assert reader.chunk() == (_type(chunk), _data(chunk))


def test_drawn_models_hold_real_chunk_lists():
    """The strategies draw until-lists that end in their terminator: chunks before IEND,
    keywords (text up to a NUL) without a NUL."""
    lengths = set()

    @settings(max_examples=60, deadline=None, database=None)
    @given(codec.strategies("png_file"))
    def check(model):
        lengths.add(len(model.chunks))
        assert [c.type for c in model.chunks].count(T.IEND) == 1
        assert model.chunks[-1].type == T.IEND
        for chunk in model.chunks:
            if chunk.type in (T.tEXt, T.zTXt, T.iTXt):
                assert "\x00" not in chunk.data.keyword

    check()
    assert max(lengths) > 1


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_samples_against_the_library(path):
    data = path.read_bytes()
    model = codec.parse(data)
    assert codec.build(model) == data
    _same_as_the_library(data, model)
    assert len(list(codec.to_rows(model))) == len(model.chunks)  # one Spark row per chunk
    assert codec.detect_record(data) == "png_file"


def test_the_text_sample_reads_like_the_document():
    model = codec.parse((ROOT / "samples" / "png" / "photo_with_text.bin").read_bytes())
    texts = {
        (codec.ChunkType(c.type).name, c.data.keyword): c.data
        for c in model.chunks
        if c.type in (T.tEXt, T.zTXt, T.iTXt)
    }
    assert texts["tEXt", "Title"].text == "Elbufer bei D\u00e4mmerung"
    assert texts["zTXt", "Comment"].text.text.startswith("Shot on the Elbe")
    description = texts["iTXt", "Description"]
    assert description.compression_flag == codec.CompressionFlag.COMPRESSED
    assert description.language_tag == "de-DE"
    assert description.translated_keyword == "Beschreibung"
    assert description.text.text == "Die Elbe im Abendlicht, \u00fcber Dresden"
    assert texts["iTXt", "Author"].text.text == "Jana M\u00fcller"
    stamp = next(c.data for c in model.chunks if c.type == T.tIME)
    assert (stamp.year, stamp.month, stamp.day, stamp.hour, stamp.minute) == (2026, 11, 26, 17, 48)
    chunk = next(c for c in model.chunks if c.type == T.tEXt)
    assert (chunk.ancillary, chunk.private, chunk.safe_to_copy) == (True, False, True)
    header = model.chunks[0]
    assert (header.ancillary, header.safe_to_copy) == (False, False)


def test_an_edited_text_is_compressed_afresh_and_the_crc_computed():
    data = (ROOT / "samples" / "png" / "photo_with_text.bin").read_bytes()
    model = codec.parse(data)
    ztxt = next(c for c in model.chunks if c.type == T.zTXt)
    ztxt.data.text.text = "Neu geschrieben."
    ztxt.data.text_wire = ztxt.length = ztxt.crc = None
    built = codec.build(model)
    assert codec.build_construct(model) == built
    chunks = dict(png.Reader(bytes=built).chunks())  # pypng checks every CRC
    assert zlib.decompress(chunks[b"zTXt"][len(b"Comment\x00\x00") :]) == b"Neu geschrieben."


@pytest.mark.parametrize("value", [True, False])
def test_an_enum_given_a_bool_is_refused_in_one_wording(value):
    """Python takes False as 0 (GREYSCALE's colour type) and True as 1, which a parse
    never gives: every build refuses both alike."""
    model = codec.parse((ROOT / "samples" / "png" / "palette_4bit.bin").read_bytes())
    model.chunks[0].data.colour_type = value
    for build in (codec.build, codec.build_construct):
        with pytest.raises(EncodeError) as info:
            build(model)
        want = f"chunks[0].data.colour_type: expected a member of ColourType, got bool {value}"
        assert str(info.value) == want


@pytest.mark.parametrize("parse", [codec.parse, codec.parse_construct])
def test_a_bad_crc_is_a_decode_error_at_the_crc_with_both_values(parse):
    data = bytearray((ROOT / "samples" / "png" / "palette_4bit.bin").read_bytes())
    data[8 + 8 + 13] ^= 1  # IHDR's CRC
    with pytest.raises(DecodeError) as err:
        parse(bytes(data))
    assert err.value.offset == 8 + 8 + 13 and err.value.path == "chunks[0].crc"
    assert "checksum mismatch" in str(err.value)


@pytest.mark.parametrize(
    "data",
    [b"", b"\x89PNG\r\n\x1a\n", b"\x89PNG\r\n\x1a\x0a" + bytes(4) + b"IHDR",
     b"\x89PNG\r\n\x1a\n" + bytes.fromhex("00000001") + b"IEND" + bytes(5)],
)  # fmt: skip
def test_bad_bytes_fail_the_same_on_both_paths(data):
    with pytest.raises(DecodeError) as fast:
        codec.parse(data)
    with pytest.raises(DecodeError) as slow:
        codec.parse_construct(data)
    assert (fast.value.offset, fast.value.path, str(fast.value)) == (
        slow.value.offset,
        slow.value.path,
        str(slow.value),
    )


def test_a_wrong_signature_reads_in_hex_in_every_tier():
    data = bytearray((ROOT / "samples" / "png" / "greyscale_gradient.bin").read_bytes())
    data[1] = 0x51  # P -> Q
    text = "signature at offset 0: expected signature 89504e470d0a1a0a, got 89514e470d0a1a0a"
    for parse in (codec.parse, codec.parse_construct):
        with pytest.raises(DecodeError) as err:
            parse(bytes(data))
        assert str(err.value) == text


def test_a_file_without_iend_ends_before_its_terminator():
    data = (ROOT / "samples" / "png" / "greyscale_gradient.bin").read_bytes()[:-12]
    with pytest.raises(DecodeError, match="ends before its terminator"):
        codec.parse(data)


def _outcome(parse, data):
    try:
        return codec.to_dict(parse(data))
    except DecodeError as err:
        return err.offset, err.path, str(err)


def _tiers_agree(data: bytes) -> bool:
    """The quick reader gives the exact reader's model or hands over; the compiled one
    (where built) takes what the quick one takes, with that model; ``parse`` gives
    construct's model or error."""
    taken = agree(codec, data, "png_file")
    if codec.COMPILED_READERS:
        assert compiled_agree(codec, data, "png_file") == taken
    assert _outcome(codec.parse, data) == _outcome(codec.parse_construct, data)
    return taken


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_the_until_reader_of_every_tier_agrees_on_samples_cuts_and_mutations(path):
    data = path.read_bytes()
    assert "png_file" in codec.QUICK_READERS
    assert _tiers_agree(data)
    for cut in range(0, len(data), 7):
        _tiers_agree(data[:cut])
    for at in range(0, len(data), 11):
        _tiers_agree(data[:at] + bytes([data[at] ^ 0x5A]) + data[at + 1 :])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(images(), st.integers(0, 2000), st.integers(0, 255))
def test_the_until_reader_of_every_tier_agrees_on_library_bytes(image, at, byte):
    data = _pypng(*image)
    assert _tiers_agree(data)
    at %= len(data)
    _tiers_agree(data[:at])
    _tiers_agree(data[:at] + bytes([byte]) + data[at + 1 :])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(codec.strategies("png_file"))
def test_the_until_reader_of_every_tier_agrees_on_drawn_models(model):
    assert _tiers_agree(codec.build(model))


def test_the_compiled_tier_reads_png_where_built():
    if not codec.COMPILED_READERS:
        pytest.skip("the compiled tier is not built here (WIRESPEC_PURE_PYTHON or no compiler)")
    assert "png_file" in codec.COMPILED_READERS
    for path in SAMPLES:
        model = codec.COMPILED_READERS["png_file"](path.read_bytes(), DEFAULT)
        assert model is not None and model.chunks[-1].type == T.IEND


@pytest.mark.spark
def test_one_spark_row_per_chunk(spark):
    data = (ROOT / "samples" / "png" / "photo_with_text.bin").read_bytes()
    model = codec.parse(data)
    frame = spark.createDataFrame(list(codec.to_rows(model)), codec.spark_schema())
    rows = frame.select("type", "length", "data.text.text", "data.ihdr.width").collect()
    assert len(rows) == len(model.chunks)
    assert rows[0]["width"] == 24 and rows[-1]["type"] == "IEND"  # the code as text
    assert "Elbufer bei D\u00e4mmerung" in {r["text"] for r in rows}
