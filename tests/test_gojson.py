"""Go encoding/json and strconv renderings, checked against Go's documented outputs."""

from __future__ import annotations

import json
import math
import struct
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.core.errors import DecodeError
from runtime.formats.gojson import (
    format_float32,
    format_float64,
    go_quote,
    go_unquote,
    loads,
    quote_str,
    quote_utf8,
    to_float32,
    utf8_text,
)

# ---------------------------------------------------------------- encoding/json strings


@pytest.mark.parametrize(
    "text, go",
    [
        ("plain", '"plain"'),
        ('q"b\\', '"q\\"b\\\\"'),
        ("<a>&", '"\\u003ca\\u003e\\u0026"'),
        ("\n\r\t", '"\\n\\r\\t"'),
        ("\x00\x01\x1f", '"\\u0000\\u0001\\u001f"'),
        ("\b\f", '"\\b\\f"'),  # Go >= 1.22
        ("\u2028\u2029", '"\\u2028\\u2029"'),
        ("\x7fé😀\ufffd", '"\x7fé😀\ufffd"'),  # DEL and non-ASCII stay raw
        ("\ud800", '"\\ufffd"'),
        # upstream fixture case_set/expand_char, event 4
        ("~!@#$%^&*()_+\"'[]\\;',./|:>?`", '"~!@#$%^\\u0026*()_+\\"\'[]\\\\;\',./|:\\u003e?`"'),
    ],
)
def test_quote_str_matches_go(text, go):
    assert quote_str(text) == go


def test_quote_str_before_go_1_22_spells_b_and_f_in_hex():
    assert quote_str("\b\f\n", go122=False) == '"\\u0008\\u000c\\n"'


@pytest.mark.parametrize(
    "data, go",
    [
        (b"\xff", '"\\ufffd"'),
        (b"\xe4\xbdx", '"\\ufffd\\ufffdx"'),  # a truncated sequence: one per byte, like Go
        (b"\xed\xa0\x80", '"\\ufffd\\ufffd\\ufffd"'),  # an encoded surrogate is 3 bad bytes
        (b"\xc0\x80", '"\\ufffd\\ufffd"'),  # overlong
        (b"\xe4\xbd\xa0", '"\xe4\xbd\xa0"'.encode("latin-1").decode()),
    ],
)
def test_quote_utf8_replaces_each_invalid_byte(data, go):
    assert quote_utf8(data) == go


@given(st.text())
def test_quote_str_reads_back_and_hides_html(text):
    out = quote_str(text)
    assert json.loads(out) == text
    assert not set("<>&\u2028\u2029") & set(out)
    assert all(c >= " " for c in out)


@given(st.binary())
def test_quote_utf8_reads_back_as_go_replacement(data):
    assert json.loads(quote_utf8(data)) == utf8_text(data)


# ---------------------------------------------------------------- strconv.Quote


@pytest.mark.parametrize(
    "data, go",
    [
        (bytes.fromhex("89504e470d0a1a0a"), "\\x89PNG\\r\\n\\x1a\\n"),  # the doc's example
        (b"\x00\x07\x08\x0b\x0c\x7f", "\\x00\\a\\b\\v\\f\\x7f"),
        (b'"\\', '\\"\\\\'),
        ("é😀 ".encode(), "é😀 "),
        ("\u00a0\u2028\u200b".encode(), "\\u00a0\\u2028\\u200b"),
        ("\ue000".encode(), "\\ue000"),  # private use is not printable
        ("\U000e0001".encode(), "\\U000e0001"),  # a format character above the BMP
        (b"\xe4\xbd", "\\xe4\\xbd"),
    ],
)
def test_go_quote_matches_strconv(data, go):
    assert go_quote(data) == go


@given(st.binary() | st.text().map(str.encode))
def test_go_unquote_inverts_go_quote(data):
    assert go_unquote(go_quote(data)) == data


@pytest.mark.parametrize("text", ["\\q", 'a"b', "\\400", "\\ud800", "\\U00110000", "a\nb", "\\x4"])
def test_go_unquote_rejects_what_go_rejects(text):
    with pytest.raises(DecodeError):
        go_unquote(text)


def test_go_unquote_reads_octal_and_unicode_escapes():
    assert go_unquote("\\101\\u00e9\\U0001F600\\'"[:-2]) == "Aé😀".encode()


# ---------------------------------------------------------------- floats


@pytest.mark.parametrize(
    "x, go",
    [
        (1.0, "1"),
        (-0.0, "-0"),
        (0.0, "0"),
        (0.1, "0.1"),
        (153.123, "153.123"),
        (1e20, "100000000000000000000"),
        (1.2345678901234568e20, "123456789012345680000"),
        (1e21, "1e+21"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (1e-10, "1e-10"),
        (1.5e300, "1.5e+300"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (5e-324, "5e-324"),
        (-2.5e-8, "-2.5e-8"),
    ],
)
def test_format_float64_matches_go(x, go):
    assert format_float64(x) == go


@pytest.mark.parametrize("x", [math.nan, math.inf, -math.inf])
def test_format_float_rejects_what_go_cannot_write(x):
    with pytest.raises(ValueError):
        format_float64(x)
    with pytest.raises(ValueError):
        format_float32(x)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_format_float64_round_trips_with_go_layout(x):
    out = format_float64(x)
    assert float(out) == x and math.copysign(1, float(out)) == math.copysign(1, x)
    exponent_form = x != 0 and not 1e-6 <= abs(x) < 1e21
    assert ("e" in out) == exponent_form
    assert not out.endswith(".0") and "e-0" not in out
    assert Decimal(out).normalize() == Decimal(repr(x)).normalize()  # same shortest digits


def _numpy_shortest32(v: float) -> Decimal:
    return Decimal(np.format_float_scientific(np.float32(v), unique=True)).normalize()


@settings(max_examples=2000)
@given(st.integers(0, 0x7F7FFFFF))
def test_format_float32_digits_match_numpy_dragon4(bits):
    v = struct.unpack("<f", struct.pack("<I", bits))[0]
    out = format_float32(v)
    assert to_float32(float(out)) == v
    assert Decimal(out).normalize() == _numpy_shortest32(v)


def test_format_float32_at_every_power_of_two():
    # The float32 rounding interval is lopsided there; the nearest short decimal can miss.
    for e in range(-149, 128):
        v = math.ldexp(1.0, e)
        assert Decimal(format_float32(v)).normalize() == _numpy_shortest32(v), e


@pytest.mark.parametrize(
    "x, go",
    [(0.1, "0.1"), (1e-7, "1e-7"), (9.99999e-7, "9.99999e-7"), (1e21, "1e+21"), (3e38, "3e+38")],
)
def test_format_float32_matches_go(x, go):
    assert format_float32(x) == go


def test_format_float32_rejects_values_beyond_float32():
    with pytest.raises(OverflowError):
        format_float32(1e39)


# ---------------------------------------------------------------- reading


def test_loads_keeps_integers_exact():
    assert loads(b'{"ts":18446744073709551615,"n":-9223372036854775808}') == {
        "ts": 2**64 - 1,
        "n": -(2**63),
    }


def test_loads_reads_go_negative_zero_as_float():
    assert math.copysign(1, loads(b"[-0]")[0]) == -1
    assert loads(b'["2020-01-01", -0.5, 10]') == ["2020-01-01", -0.5, 10]


def test_loads_reads_invalid_utf8_and_lone_surrogates_as_replacement():
    assert loads(b'["a\xffb", "\\ud800", "\\ud83d\\ude00"]') == ["a\ufffdb", "\ufffd", "😀"]


@pytest.mark.parametrize(
    "doc, offset",
    [
        (b'{"a":1,}', 7),
        (b"NaN", 0),
        (b"[Infinity]", 0),
        (b"", 0),
        (b'{"a":1} x', 8),
        ('{"é":[1 2]}'.encode(), 9),  # a byte offset, past the two-byte é
        (b"[" * 100_000, 0),
        (b"[" + b"1" * 5000 + b"]", 0),
    ],
)
def test_loads_raises_decode_error_with_offset(doc, offset):
    with pytest.raises(DecodeError) as info:
        loads(doc)
    assert info.value.offset == offset
