"""Tablestore PlainBuffer: what happens to bad bytes (flipped checksums, truncation at every
offset, wrong tags, types and lengths, mutated and random bytes): a DecodeError with the
offset and path, and nothing else. The seed and the reference encoder are
plainbuffer_support's."""

import struct

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from plainbuffer_support import HEADER, SEED, SEED_CELL_CHECKSUMS, SPANS, ref_row, span

from generated import plainbuffer as pb
from generated.plainbuffer import CellOp, ValueType
from runtime import DecodeError

# -- corruption: checksums ---------------------------------------------------------------------


CELL_CHECKSUM_PATHS = [p for p, k, _, _ in SPANS if k == "cell_checksum"]


@pytest.mark.parametrize("path, stored", list(zip(CELL_CHECKSUM_PATHS, SEED_CELL_CHECKSUMS)))
def test_flipped_cell_checksum(path, stored):
    at = span(path)[1] - 1
    assert SEED[at] == stored
    bad = bytearray(SEED)
    bad[at] ^= 0x01
    with pytest.raises(DecodeError) as err:
        pb.parse(bytes(bad))
    e = err.value
    assert (e.offset, e.path) == (at, path)
    assert f"stored 0x{stored ^ 1:02x}" in str(e) and f"computed 0x{stored:02x}" in str(e)
    assert "offset" in str(e) and path in str(e)


def test_flipped_row_checksum():
    bad = bytearray(SEED)
    bad[188] ^= 0x01
    with pytest.raises(DecodeError) as err:
        pb.parse(bytes(bad))
    e = err.value
    assert (e.offset, e.path) == (188, "rows[0].checksum")
    assert "stored 0x23" in str(e) and "computed 0x22" in str(e)


# every byte of a name, a value payload or a timestamp is covered by its cell's checksum
# (the type byte and inner length are covered too, but changing them changes the parse)
COVERED = []
for _p, _k, _s, _e in SPANS:
    if _k != "field" or _p.endswith(".op"):
        continue
    if _p.endswith(".name"):
        _skip = 5  # tag, int32 length
    elif _p.endswith(".value"):
        _skip = 10 if SEED[_s + 5] == ValueType.STRING else 6  # tag, length, type[, length]
    else:
        _skip = 1  # tag
    _cell = _p.rsplit(".", 1)[0]
    COVERED += [(_i, _cell) for _i in range(_s + _skip, _e)]


@pytest.mark.parametrize("at, cell_path", COVERED)
def test_flipped_covered_byte_fails_that_cells_checksum(at, cell_path):
    bad = bytearray(SEED)
    bad[at] ^= 0x01  # keeps ASCII ASCII, so only the checksum can notice
    with pytest.raises(DecodeError) as err:
        pb.parse(bytes(bad))
    crc_at = span(f"{cell_path}.checksum")[1] - 1
    assert (err.value.offset, err.value.path) == (crc_at, f"{cell_path}.checksum")
    assert f"stored 0x{SEED[crc_at]:02x}" in err.value.message


def test_flipped_op_byte_fails_the_checksum():
    at = span("rows[0].attributes[3].op")[0] + 1
    bad = bytearray(SEED)
    bad[at] = CellOp.DELETE_ONE_VERSION
    with pytest.raises(DecodeError) as err:
        pb.parse(bytes(bad))
    assert (err.value.offset, err.value.path) == (at + 2, "rows[0].attributes[3].checksum")


def test_delete_marker_added_fails_the_row_checksum():
    bad = SEED[:-2] + b"\x08" + SEED[-2:]
    with pytest.raises(DecodeError) as err:
        pb.parse(bad)
    assert (err.value.offset, err.value.path) == (189, "rows[0].checksum")
    assert "stored 0x22" in err.value.message


# -- corruption: truncation at every offset ---------------------------------------------------


def expected_truncation(n):
    """(path, lowest offset, highest offset) of the error for the seed cut to n bytes."""
    for path, kind, start, end in SPANS:
        if start < n < end:  # the cut falls inside this piece
            return path, start, n
    prev = next((p, k) for p, k, s, e in SPANS if e == n) if n else ("", "start")
    prev_path, prev_kind = prev
    expected = {
        "start": "header",
        "pk_tag": "rows[0].checksum",  # no cells: next comes the row checksum tag
        "attr_tag": "rows[0].attributes",  # the section needs a cell
        "cell_tag": prev_path + ".name",
        "field": prev_path.rsplit(".", 1)[0] + ".checksum",
        "cell_checksum": "rows[0].checksum",
    }[prev_kind]
    return expected, n, n


TRUNCATIONS = list(range(len(SEED)))


@pytest.mark.parametrize("n", TRUNCATIONS)
def test_truncated_seed(n):
    path, lo, hi = expected_truncation(n) if n != 4 else ("rows", 4, 4)
    with pytest.raises(DecodeError) as err:
        pb.parse(SEED[:n])
    e = err.value
    assert e.path == path
    assert lo <= e.offset <= hi
    assert "offset" in str(e)


# -- corruption: tags, types, lengths ---------------------------------------------------------


@pytest.mark.parametrize(
    "at, byte, path, expected_tag",
    [
        (0, 0x76, "header", None),
        (4, 0x03, "rows[0].primary_key", 0x01),
        (5, 0x0B, "rows[0].checksum", 0x09),  # a cell tag that is not 0x03 ends the section
        (6, 0x05, "rows[0].primary_key[0].name", 0x04),
        (14, 0x0B, "rows[0].primary_key[0].checksum", 0x0A),  # no value, op, ts: checksum
        (29, 0x0B, "rows[0].primary_key[0].checksum", 0x0A),
        (56, 0x0B, "rows[0].checksum", 0x09),
        (57, 0x0B, "rows[0].attributes", None),
        (187, 0x0B, "rows[0].checksum", 0x09),
    ],
)
def test_wrong_tag(at, byte, path, expected_tag):
    bad = bytearray(SEED)
    bad[at] = byte
    with pytest.raises(DecodeError) as err:
        pb.parse(bytes(bad))
    assert (err.value.offset, err.value.path) == (at, path)
    if expected_tag is not None:
        assert f"0x{expected_tag:02x}" in err.value.message


@pytest.mark.parametrize("vtype", [0x04, 0x05, 0x08, 0x0C, 0x7F, 0xFF])
def test_bad_value_type(vtype):
    at = span("rows[0].primary_key[0].value")[0] + 5
    bad = bytearray(SEED)
    bad[at] = vtype
    with pytest.raises(DecodeError) as err:
        pb.parse(bytes(bad))
    assert (err.value.offset, err.value.path) == (at, "rows[0].primary_key[0].value.type")


def test_value_type_that_does_not_fill_the_value_length():
    # pk1 STRING -> INTEGER: 8 payload bytes of the 9 the int32 announced
    start = span("rows[0].primary_key[0].value")[0]
    bad = bytearray(SEED)
    bad[start + 5] = ValueType.INTEGER
    with pytest.raises(DecodeError) as err:
        pb.parse(bytes(bad))
    assert (err.value.offset, err.value.path) == (start + 1, "rows[0].primary_key[0].value")


def with_int32(at, value):
    bad = bytearray(SEED)
    bad[at : at + 4] = struct.pack("<i", value)
    return bytes(bad)


NAME_LEN = span("rows[0].primary_key[0].name")[0] + 1  # 7
VALUE_LEN = span("rows[0].primary_key[0].value")[0] + 1  # 15
STRING_LEN = VALUE_LEN + 5  # 20


@pytest.mark.parametrize("value", [-1, -(2**31)])
@pytest.mark.parametrize(
    "at, path",
    [
        (NAME_LEN, "rows[0].primary_key[0].name"),
        (VALUE_LEN, "rows[0].primary_key[0].value"),
        (STRING_LEN, "rows[0].primary_key[0].value.value"),
    ],
)
def test_negative_length(at, path, value):
    with pytest.raises(DecodeError) as err:
        pb.parse(with_int32(at, value))
    assert (err.value.offset, err.value.path) == (at, path)
    assert "negative" in err.value.message


@pytest.mark.parametrize("value", [len(SEED), 2**24, 2**31 - 1])
@pytest.mark.parametrize(
    "at, path",
    [
        (NAME_LEN, "rows[0].primary_key[0].name"),
        (VALUE_LEN, "rows[0].primary_key[0].value"),
        (STRING_LEN, "rows[0].primary_key[0].value.value"),
    ],
)
def test_length_larger_than_input(at, path, value):
    with pytest.raises(DecodeError) as err:
        pb.parse(with_int32(at, value))
    # the offset is the length itself or the first byte it would cover
    assert err.value.path == path
    assert err.value.offset in (at, at + 4)


def test_inner_string_longer_than_its_value():
    # outer length fine (10), inner string length 6 > the 5 bytes left in the value
    with pytest.raises(DecodeError) as err:
        pb.parse(with_int32(STRING_LEN, 6))
    assert err.value.path == "rows[0].primary_key[0].value.value"
    assert err.value.offset in (STRING_LEN, STRING_LEN + 4)


def test_trailing_garbage():
    with pytest.raises(DecodeError) as err:
        pb.parse(SEED + b"\x00")
    assert err.value.offset == len(SEED)
    assert err.value.path.startswith("rows[1]")


def test_limits_are_decode_errors():
    with pytest.raises(DecodeError) as err:
        pb.parse(SEED, max_string=2)
    assert (err.value.offset, err.value.path) == (NAME_LEN, "rows[0].primary_key[0].name")
    with pytest.raises(DecodeError):
        pb.parse(SEED, max_count=1)


# -- property: mutated bytes raise DecodeError and nothing else -------------------------------

BASES = [
    SEED,
    SEED + SEED[4:],
    HEADER + ref_row([("k", ValueType.BOOLEAN, True), ("b", ValueType.BLOB, b"\x00\x01")]),
    HEADER + ref_row([("k", 0, 1)], [("c", None, None, 0x03, 1234), ("i", 0, 5, 0x04, 9)]),
    HEADER + ref_row([("a", ValueType.INF_MIN), ("b", ValueType.INF_MAX)], deleted=True),
    HEADER + ref_row([("é", ValueType.AUTO_INCREMENT)], [("n", ValueType.NULL)]),
]

mutation = st.tuples(
    st.sampled_from(["flip", "set", "insert", "delete", "truncate"]),
    st.integers(0, 400),
    st.integers(0, 255),
)


def mutate(data: bytes, mutations) -> bytes:
    out = bytearray(data)
    for kind, pos, byte in mutations:
        if not out:
            break
        i = pos % len(out)
        if kind == "flip":
            out[i] ^= 1 << (byte % 8)
        elif kind == "set":
            out[i] = byte
        elif kind == "insert":
            out.insert(i, byte)
        elif kind == "delete":
            del out[i]
        else:
            del out[i:]
    return bytes(out)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(BASES), st.lists(mutation, min_size=1, max_size=4))
@example(SEED, [("set", 15, 0xFF), ("set", 16, 0xFF), ("set", 17, 0xFF), ("set", 18, 0xFF)])
@example(SEED, [("set", 10, 0x7F)])
def test_mutated_bytes_raise_only_decode_error(base, mutations):
    data = mutate(base, mutations)
    try:
        m = pb.parse(data)
    except DecodeError as err:
        assert isinstance(err.offset, int) and 0 <= err.offset <= len(data)
        assert err.path
        return
    # whatever is accepted is canonical: it rebuilds byte for byte
    assert pb.build(m) == data


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=64))
def test_random_bytes_raise_only_decode_error(data):
    try:
        m = pb.parse(HEADER + data)
    except DecodeError as err:
        assert isinstance(err.offset, int) and 0 <= err.offset <= len(data) + 4
        return
    assert pb.build(m) == HEADER + data
