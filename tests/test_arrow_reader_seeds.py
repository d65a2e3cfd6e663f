"""``write_arrow`` (the compiled tier's bytes-to-Arrow writers) against ``to_rows`` on every
record it writes: the shipped samples, the fuzzer's seeds (samples that parse as the
record, and messages built from drawn models), the test vectors, every truncation of
them, and PNG's
chunk payloads cut out of its samples (the payload records are read inline by ``chunk``,
so the fuzzer's seeds are their only other inputs). Each is taken with the Arrow of
``to_rows`` + ``pa.array``, or declined with nothing written where the Python way decides
(tests/test_arrow_reader.py ``check``)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from generator.cli.fuzz import seeds
from runtime.spark.decode import load_module
from tests.test_arrow_reader import RECORDS, check, pytestmark  # noqa: F401 - skipped alike
from tests.test_fastpath import inputs

ROOT = Path(__file__).resolve().parent.parent
PNG_PAYLOADS = {
    b"IHDR": "image_header",
    b"PLTE": "palette",
    b"tEXt": "text",
    b"zTXt": "compressed_text",
    b"iTXt": "international_text",
    b"tIME": "last_modified",
    b"pHYs": "physical_dimensions",
    b"gAMA": "gamma",
}


def png_payloads(record: str) -> list[bytes]:
    """The data of each chunk of the PNG samples whose type ``record`` reads."""
    out = []
    for path in sorted((ROOT / "samples" / "png").glob("*.bin")):
        data, pos = path.read_bytes(), 8  # after the signature
        while pos + 12 <= len(data):
            (length,) = struct.unpack(">I", data[pos : pos + 4])
            kind = data[pos + 4 : pos + 8]
            if PNG_PAYLOADS.get(kind) == record:
                out.append(data[pos + 8 : pos + 8 + length])
            pos += 12 + length
    return out


@pytest.mark.parametrize("fmt,record", RECORDS)
def test_seeds_and_their_truncations_write_the_arrow_of_to_rows(fmt, record):
    default = load_module(fmt).DEFAULT_RECORD
    found = seeds(fmt, record) + (png_payloads(record) if fmt == "png" else [])
    found += [data for rec, data in inputs(fmt) if (rec or default) == record]
    taken = 0
    for data in found:
        taken += check(fmt, record, data)
        for n in range(min(len(data), 64)):
            check(fmt, record, data[:n])
            check(fmt, record, data[: len(data) - n - 1])
    assert taken, f"{fmt} {record}: no seed written"
