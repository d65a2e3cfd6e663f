"""``wirespec inspect`` on TiCDC Craft: the checked decoder reports every field.

The expected layout is research/craft.md §14 (the seed examples decoded byte by byte),
written from that note, not from the codec.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from generator.cli import inspect as insp

cr = pytest.importorskip("generated.ticdc_craft")

VECTORS = Path(__file__).resolve().parent / "data/vectors/ticdc_craft.json"
SEEDS = json.loads(VECTORS.read_text())[:3]  # the row (301), DDL (41) and resolved (20) seeds
ROW, DDL, RESOLVED = (bytes.fromhex(v["hex"]) for v in SEEDS)
G0 = "events.bodies[0].column_groups[0]"
G1 = "events.bodies[0].column_groups[1]"
NAMES = ["varchar", "string", "date", "timestamp", "datetime", "float", "long", "null"]


def _leaves(data):
    result = insp.trace(cr, data, "message")
    assert result.error is None
    return result.leaves()


def _at(leaves, first, last):
    """The one leaf spanning bytes ``first..last`` (inclusive, as in the research listing)."""
    found = [s for s in leaves if s.start == first and s.end == last + 1]
    assert len(found) == 1, (first, last, [s for s in leaves if s.start <= last < s.end])
    return found[0]


@pytest.mark.parametrize("data", [ROW, DDL, RESOLVED], ids=["row", "ddl", "resolved"])
def test_seed_spans_cover_every_byte_once(data):
    assert [len(ROW), len(DDL), len(RESOLVED)] == [301, 41, 20]
    result = insp.trace(cr, data, "message")
    assert result.error is None
    assert cr.to_dict(result.model) == cr.to_dict(cr.parse(data))
    leaves = result.leaves()
    assert leaves[0].start == 0 and leaves[-1].end == len(data)
    for a, b in itertools.pairwise(leaves):
        assert a.end == b.start, (a, b)
    assert insp.coarse_paths(result) == []  # no region left in one piece
    regions = ("events.header", "events.term_dictionary", "events.size_tables", "events.bodies[0]")
    for s in leaves:  # field level: no region's value is shown in one piece
        assert s.role != "value" or s.path not in regions, s


def test_row_seed_header_and_trailer():
    leaves = _leaves(ROW)
    expect = [
        (0, 0, "events.version", 1),
        (1, 9, "events.header.commit_ts[0]", 424316552636792833),
        (10, 10, "events.header.type[0]", 1),
        (11, 11, "events.header.partition[0]", -1),
        (12, 12, "events.header.schema[0]", 0),
        (13, 13, "events.header.table[0]", 1),
        (300, 300, "events.size_tables_length", 10),
    ]
    for first, last, path, value in expect:
        span = _at(leaves, first, last)
        assert (span.path, span.value) == (path, value)
    assert _at(leaves, 1, 9).role == "base"
    assert _at(leaves, 12, 12).role == "a: base" and _at(leaves, 13, 13).role == "b: base"
    assert "reversed" in _at(leaves, 300, 300).role


def test_row_seed_column_groups():
    leaves = _leaves(ROW)
    for group, base, type_ in ((G0, 14, 1), (G1, 122, 2)):
        span = _at(leaves, base, base)
        assert (span.path, span.value) == (f"{group}.type", type_)
        span = _at(leaves, base + 1, base + 1)
        assert (span.path, span.role, span.value) == (group, "count", 8)
        names = [s for s in leaves if s.path.startswith(f"{group}.names[")]
        assert [(s.start, s.value) for s in names] == [(base + 2 + j, 2 + j) for j in range(8)]
        assert names[0].role == "varchar: base"
        assert all(s.role == f"{n}: delta +1 ->" for s, n in zip(names[1:], NAMES[1:]))
    # bytes 24-32: the type codes (254 takes two bytes), 33-40 the flags
    types = [s for s in leaves if s.path.startswith(f"{G0}.types[")]
    assert [(s.start, s.end, s.value) for s in types] == [
        (24, 25, 15), (25, 27, 254), (27, 28, 10), (28, 29, 7),
        (29, 30, 12), (30, 31, 4), (31, 32, 3), (32, 33, 6),
    ]  # fmt: skip
    flags = [s for s in leaves if s.path.startswith(f"{G0}.flags[")]
    assert [(s.start, s.value) for s in flags] == [(33 + j, 0) for j in range(8)]
    lengths = [s for s in leaves if s.path.startswith(f"{G0}.value_lengths[")]
    assert [(s.start, s.end) for s in lengths] == [(41 + j, 42 + j) for j in range(8)]
    assert [s.value for s in lengths] == [8, 7, 10, 19, 19, 8, 2, -1]
    assert [s.role for s in lengths] == [f"{n}:" for n in NAMES]
    # value bytes, labelled with the column's resolved name (the NULL has none); text
    # columns (no BINARY flag) show their text, as the JSON form does
    expect = [
        (49, 56, 0, "varchar1"),
        (57, 63, 1, "string1"),
        (64, 73, 2, "2021/01/02"),
        (74, 92, 3, "2021/01/02 00:00:00"),
        (93, 111, 4, "2021/01/02 00:00:00"),
        (112, 119, 5, 2.0),
        (120, 121, 6, 2000),
        (157, 164, 0, "varchar0"),
        (220, 227, 5, 1.0),
        (228, 229, 6, 1000),
    ]
    for first, last, j, value in expect:
        span = _at(leaves, first, last)
        group = G0 if first < 122 else G1
        assert (span.path, span.value, span.role) == (f"{group}.values[{j}]", value, f"{NAMES[j]}:")
    assert not any(s.path.endswith("values[7]") for s in leaves)


def test_row_seed_term_dictionary_and_size_tables():
    leaves = _leaves(ROW)
    span = _at(leaves, 230, 230)
    assert (span.path, span.role, span.value) == ("events.term_dictionary", "count", 10)
    lengths = [s for s in leaves if s.path.startswith("events.term_dictionary.lengths[")]
    assert [(s.start, s.value) for s in lengths] == list(
        zip(range(231, 241), [1, 1, 7, 6, 4, 9, 8, 5, 4, 4], strict=True)
    )
    terms = [s for s in leaves if s.path.startswith("events.term_dictionary.terms[")]
    assert [s.value for s in terms] == ["a", "b", *NAMES]
    assert [(s.start, s.end) for s in terms[2:4]] == [(243, 250), (250, 256)]
    expect = [
        (290, 290, "events.size_tables[0]", "count", 2),
        (291, 291, "events.size_tables[0][0]", "base", 13),
        (292, 292, "events.size_tables[0][1]", "delta +47 ->", 60),
        (293, 293, "events.size_tables[1]", "count", 1),
        (294, 295, "events.size_tables[1][0]", "base", 216),
        (296, 296, "events.size_tables[2]", "count", 2),
        (297, 298, "events.size_tables[2][0]", "base", 108),
        (299, 299, "events.size_tables[2][1]", "delta +0 ->", 108),
    ]
    for first, last, path, role, value in expect:
        span = _at(leaves, first, last)
        assert (span.path, span.role, span.value) == (path, role, value)


def test_ddl_seed():
    leaves = _leaves(DDL)
    got = [(s.start, s.end, s.path, s.role, s.value) for s in leaves]
    assert got[:10] == [
        (0, 1, "events.version", "value", 1),
        (1, 10, "events.header.commit_ts[0]", "base", 424316583965360129),
        (10, 11, "events.header.type[0]", "value", 2),
        (11, 12, "events.header.partition[0]", "base", -1),
        (12, 13, "events.header.schema[0]", "a: base", 0),
        (13, 14, "events.header.table[0]", "b: base", 1),
        (14, 15, "events.bodies[0].ddl_type", "value", 1),
        (15, 16, "events.bodies[0].query", "length", 14),
        (16, 30, "events.bodies[0].query", "value", "create table a"),
        (30, 31, "events.term_dictionary", "count", 2),
    ]
    assert got[-1] == (40, 41, "events.size_tables_length", "reversed length", 5)


def test_resolved_seed():
    got = [(s.start, s.end, s.path, s.value) for s in _leaves(RESOLVED)]
    assert got == [
        (0, 1, "events.version", 1),
        (1, 10, "events.header.commit_ts[0]", 424316594097225729),
        (10, 11, "events.header.type[0]", 3),
        (11, 12, "events.header.partition[0]", -1),
        (12, 13, "events.header.schema[0]", -1),
        (13, 14, "events.header.table[0]", -1),
        (14, 15, "events.size_tables[0]", 2),
        (15, 16, "events.size_tables[0][0]", 13),
        (16, 17, "events.size_tables[0][1]", 0),
        (17, 18, "events.size_tables[1]", 1),
        (18, 19, "events.size_tables[1][0]", 0),
        (19, 20, "events.size_tables_length", 5),
    ]


@pytest.mark.parametrize(
    "pos,byte,path,offset",
    [
        (14, 0x07, "events.bodies[0].column_groups[0].type", 14),
        (16, 0x7E, "events.bodies[0].column_groups[0].names[0]", 16),
        (27, 0x80, "events.bodies[0].column_groups[0].values[7]", 115),
    ],
)
def test_corrupt_row_names_the_failing_field(pos, byte, path, offset):
    data = bytearray(ROW)
    data[pos] = byte
    result = insp.trace(cr, bytes(data), "message")
    assert result.error is not None
    assert (result.error.path, result.error.offset) == (path, offset)
    text = insp.plain_text(result, fmt="ticdc_craft", record="message")
    assert f"field:  {path}" in text and f"offset: {offset}" in text
    # what the frame read before the error is still shown field by field, up to the error
    leaves = result.leaves()
    assert _at(leaves, 1, 9).path == "events.header.commit_ts[0]"
    assert leaves[0].start == 0
    for a, b in itertools.pairwise(leaves):
        assert a.end <= b.start, (a, b)


def test_every_vector_is_covered():
    for vector in json.loads(VECTORS.read_text()):
        data = bytes.fromhex(vector["hex"])
        result = insp.trace(cr, data, "message")
        if result.error is not None:
            continue
        leaves = result.leaves()
        assert leaves[0].start == 0 and leaves[-1].end == len(data), vector["name"]
        for a, b in itertools.pairwise(leaves):
            assert a.end == b.start, (vector["name"], a, b)
