"""The quick tier and the compiled tier of a byte order chosen by the data (a record's
``endian: {switch_on:}``) and of a switch on an enclosing record's field (``switch_on:
_parent._parent.header.linktype``): each record's plan reads the selector, then its other
fields once per byte order (generator/emit/order_plans.py), so a pcap file in either order
and TIFF-like files are read by both tiers, never left to the exact reader, byte for byte
as construct reads them; an order selector naming no order is the DecodeError construct
gives, at its offset and path. The features themselves: tests/test_byte_order.py; the pcap
spec: tests/test_user_spec_pcap.py."""

from __future__ import annotations

import shutil
import struct

import pytest
from hypothesis import HealthCheck, given, settings

from generator.emit.user_spec import import_spec
from runtime.core import tier
from runtime.core.errors import DecodeError
from tests.test_byte_order import CASES, TIFFISH, tiffish_bytes
from tests.test_user_spec_pcap import MAGICS, SPEC, capture
from tests.user_packages import build_package, import_module, skip_unless_compiled

OPEN = TIFFISH.replace(  # a mark of any value: the ones not listed read big-endian
    "{name: mark, type: u16be, enum: order_mark,",
    "{name: mark, type: u16be, enum: order_mark, open: true,",
).replace("cases: {INTEL: le, MOTOROLA: be}", "cases: {INTEL: le, MOTOROLA: be, default: be}")
UNORDERED = OPEN.replace(", default: be}", "}")
"""An open mark without a default: a value not listed names no order (construct's error)."""
PLAIN = TIFFISH.replace("    endian: {switch_on: mark, cases: {INTEL: le, MOTOROLA: be}}\n", "")
"""Only the switch on an enclosing record's field (``_parent.kind``)."""
TWICE = TIFFISH.replace(
    '      - {name: trailer, type: trailer, doc: "a fixed big-endian trailer"}',
    '      - {name: first, type: pair, doc: "two numbers in the file\'s order"}\n'
    '      - {name: second, type: pair, doc: "two more"}\n'
    '      - {name: trailer, type: trailer, doc: "a fixed big-endian trailer"}',
).replace(
    "  trailer:\n",
    "  pair:\n    doc: Two numbers in the file's order.\n    fields:\n"
    "      - {name: a, type: u16, doc: a}\n      - {name: b, type: u16, doc: b}\n"
    "  trailer:\n",
)
"""A record taking the file's order read from two places: read inline at each."""
SPECS = {
    "tiffish": TIFFISH,
    "openmark": OPEN,
    "unordered": UNORDERED,
    "plainmark": PLAIN,
    "twice": TWICE,
}


def renamed(text: str, name: str) -> str:
    return text.replace("format: tiffish", f"format: {name}", 1)


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    """Each spec rendered in memory (``--spec``), pcap's included."""
    specs = tmp_path_factory.mktemp("order_specs")
    out = {"pcap": import_spec(SPEC)}
    for name, text in SPECS.items():
        (specs / f"{name}.yaml").write_text(renamed(text, name))
        out[name] = import_spec(specs / f"{name}.yaml")
    return out


def quick(module, record, data):
    """The quick tier's model of ``data`` (it reads it all)."""
    model, pos = module.QUICK_READERS[record][0](data, 0, len(data), module._LIMITS)
    assert pos == len(data)
    return model


def samples():
    """(module, record, bytes) of every byte order and selector the specs take."""
    out = [("pcap", "pcap_file", capture(c, s)) for c in sorted(MAGICS) for s in (65535, 60)]
    out += [("tiffish", "file", tiffish_bytes(*case)) for case in CASES]
    out += [("openmark", "file", tiffish_bytes(*case)) for case in CASES]
    unlisted = tiffish_bytes(">", 2, [(1, "abc")])
    out.append(("openmark", "file", b"JJ" + unlisted[2:]))  # not listed: the default, be
    out += [("plainmark", "file", b"MM" + tiffish_bytes("<", 1, [(1, 5)])[2:])]
    for order, kind, entries in CASES:
        data = tiffish_bytes(order, kind, entries)
        out.append(("twice", "file", data[:-4] + struct.pack(order + "4H", 1, 2, 3, 4) + data[-4:]))
    return out


def test_the_quick_and_compiled_tiers_plan_the_records_that_used_to_fall_back(modules):
    for name, record in (
        ("pcap", "pcap_file"),
        ("tiffish", "file"),
        ("openmark", "file"),
        ("twice", "file"),
    ):
        fallbacks = modules[name].FALLBACKS
        assert record not in fallbacks["quick"] and record in modules[name].QUICK_READERS
        assert fallbacks["compiled"][record].startswith("rendered in memory")  # not refused
    assert "file" in modules["plainmark"].QUICK_READERS
    for name in ("tiffish", "plainmark"):  # read where the file reads them
        assert modules[name].FALLBACKS["quick"]["entry"].startswith("read inline where file")
    pair = modules["twice"].FALLBACKS["quick"]["pair"]  # inline twice, in the file's order
    assert pair.startswith("read inline where file reads it, at each use, in its order there")
    # the held records read in the file's order, or their own: inline, never called
    assert set(modules["pcap"].QUICK_READERS) == {"pcap_file"}
    # no order for every value: the fast reader, the quick tier and construct all refuse
    fallbacks = modules["unordered"].FALLBACKS
    assert "open enum without a default" in fallbacks["parse"]["file"]
    assert fallbacks["quick"]["file"] == "no plan: no exact fast path"


@pytest.mark.parametrize("name, record, data", samples(), ids=lambda v: str(v)[:16])
def test_the_quick_tier_reads_what_construct_does(modules, name, record, data):
    module = modules[name]
    expected = module.parse_construct(data, record)
    assert quick(module, record, data) == expected == module.parse(data, record)
    assert module.build(expected, record) == data


CHAINED = TIFFISH.replace(
    '      - {name: trailer, type: trailer, doc: "a fixed big-endian trailer"}',
    '      - {name: chain, type: node, doc: "nodes in the file\'s order"}\n'
    '      - {name: trailer, type: trailer, doc: "a fixed big-endian trailer"}',
).replace(
    "  trailer:\n",
    "  node:\n    doc: A number, then another node if more is 1.\n    fields:\n"
    "      - {name: n, type: u16, doc: n}\n      - {name: more, type: u8, doc: m}\n"
    '      - {name: next, type: node, if: "more == 1", doc: the next}\n'
    "  trailer:\n",
)


def test_a_recursive_record_taking_the_order_is_left_to_the_fast_reader(tmp_path):
    """It would be called, and its reader would need one per order: no plan, and
    ``FALLBACKS`` says why; the fast reader reads it in the file's order."""
    path = tmp_path / "chained.yaml"
    path.write_text(renamed(CHAINED, "chained"))
    chained = import_spec(path)
    assert chained.FALLBACKS["quick"]["node"].endswith(
        "and reads itself (a reader of its own would need one per order): not yet"
    )
    assert chained.FALLBACKS["quick"]["file"] == "no plan: chain: record node has no plan"
    data = b"MM" + struct.pack(">HBH", 42, 1, 0) + struct.pack(">HBHB", 1, 1, 2, 0) + bytes(4)
    model = chained.parse(data)
    assert (model.chain.n, model.chain.next.n) == (1, 2)
    assert model == chained.parse_construct(data) and chained.build(model) == data


def test_a_selector_naming_no_order_is_constructs_decode_error(modules):
    bad = b"JJ" + tiffish_bytes(">", 2, [(1, "abc")])[2:]
    for name, says in (
        ("tiffish", "is not a known OrderMark"),
        ("unordered", "names no byte order"),
    ):
        module = modules[name]
        errors = []
        for parse in (module.parse, module.parse_construct):
            with pytest.raises(DecodeError) as err:
                parse(bad)
            errors.append((str(err.value), err.value.offset, err.value.path))
        assert errors[0] == errors[1] and errors[0][1:] == (0, "mark"), errors
        assert says in errors[0][0]
    with pytest.raises(DecodeError) as err:  # pcapng's section header: no pcap magic
        modules["pcap"].parse(bytes.fromhex("0a0d0d0a") + bytes(20))
    assert (err.value.offset, err.value.path) == (0, "magic")


def test_quick_reads_every_drawn_capture_as_construct_does(modules):
    pcap = modules["pcap"]

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(pcap.strategies("pcap_file"))
    def check(model):
        data = pcap.build_construct(model)
        parsed = pcap.parse_construct(data)
        assert quick(pcap, "pcap_file", data) == parsed == pcap.parse(data)
        assert pcap.build(parsed) == data

    check()


# -- the compiled tier: a user's build of the specs -------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The specs' modules with their compiled extensions beside them (one build)."""
    skip_unless_compiled()
    specs = tmp_path_factory.mktemp("order_tier_specs")
    shutil.copy(SPEC, specs / "pcap.yaml")
    for name, text in SPECS.items():
        (specs / f"{name}.yaml").write_text(renamed(text, name))
    out = build_package(specs, tmp_path_factory.mktemp("order_tier_pkg"))
    return {
        name: import_module(out / f"{name}.py", f"user_order_tiers_{name}")
        for name in ["pcap", *SPECS]
    }


def test_the_compiled_tier_reads_what_construct_does(built):
    for name, record in (
        ("pcap", "pcap_file"),
        ("tiffish", "file"),
        ("openmark", "file"),
        ("twice", "file"),
    ):
        assert record not in built[name].FALLBACKS["compiled"], built[name].FALLBACKS
        assert record in built[name].COMPILED_READERS
    assert "file" in built["plainmark"].COMPILED_READERS
    for name, record, data in samples():
        module = built[name]
        model = module.COMPILED_READERS[record](data, module._LIMITS)
        assert model == module.parse_construct(data, record), (name, data.hex())
        assert module.build(model, record) == data


def test_the_compiled_tier_declines_what_it_cannot_read_and_construct_says_why(built, modules):
    bad = b"JJ" + tiffish_bytes(">", 2, [(1, "abc")])[2:]
    assert built["tiffish"].COMPILED_READERS["file"](bad, built["tiffish"]._LIMITS) is None
    for case in ("le_nano", "be_micro"):
        data = capture(case, snaplen=60)
        for cut in range(len(data)):
            try:
                modules["pcap"].parse_construct(data[:cut])
            except DecodeError as err:
                with pytest.raises(DecodeError) as again:
                    built["pcap"].parse(data[:cut])
                assert (again.value.offset, again.value.path) == (err.offset, err.path), cut


def test_the_compiled_tier_reads_every_drawn_capture_as_construct_does(built):
    pcap = built["pcap"]

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(pcap.strategies("pcap_file"))
    def check(model):
        data = pcap.build_construct(model)
        parsed = pcap.parse_construct(data)
        assert pcap.COMPILED_READERS["pcap_file"](data, pcap._LIMITS) == parsed

    check()


def test_a_wide_enum_is_read_by_its_value_in_the_compiled_tier(built):
    """A pcap magic is a u32 enum: the compiled reader looks the member up by value."""
    data = capture("be_nano")
    model = built["pcap"].COMPILED_READERS["pcap_file"](data, built["pcap"]._LIMITS)
    assert model.magic is built["pcap"].PcapMagic.NANO_BE
    assert model.capture.packets[0].ts_frac == struct.unpack(">I", data[28:32])[0]


def test_a_record_taking_the_order_read_alone_is_in_the_specs_order_in_every_tier(built):
    """The pcap header alone has no magic before it: construct reads it in the spec's
    ``endian:`` (le); so do the fast reader and the compiled Arrow writer its plan gives."""
    pa = pytest.importorskip("pyarrow")
    pytest.importorskip("pyspark")
    from pyspark.sql.pandas.types import to_arrow_schema

    from runtime.core.limits import DEFAULT

    pcap, arrow = built["pcap"], tier.compiled("runtime._compiled.arrow")
    data = capture("be_micro")[4:24]
    model = pcap.parse(data, "header")
    assert model == pcap.parse_construct(data, "header") and model.version_major == 0x200
    assert pcap._COMPILED.bind_arrow(vars(pcap))
    fields = list(to_arrow_schema(pcap.spark_schema("header"), timezone="UTC"))
    out, counts = arrow.builder_for(pa.struct(fields)), []
    assert pcap._COMPILED.write_arrow("header", pa.array([data]), 0, 1, out, counts, DEFAULT) == 1
    got = out.finish()
    rows = list(pcap.to_rows(model, "header"))
    want = [pa.array(column, f.type) for column, f in zip(zip(*rows), fields)]
    assert [got.field(k) for k in range(len(fields))] == want
