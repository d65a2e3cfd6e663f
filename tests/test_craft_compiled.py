"""The compiled Craft reader, rendered from the spec's ``map:`` fused with the frame's reading
(generated/_compiled/ticdc_craft.pyx, ``read_message``; generator/emit/compiled_fused.py),
and the compiled way back, rendered from the spec's ``map:`` and ``batch:`` fused with the
frame's writing (``COMPILED_WAY_BACKS``; generator/emit/compiled_unmapping.py), held to the
Python path: on every vector and sample,
every truncation, byte mutations, limits and generated events the reader gives exactly the
Python path's events (same classes, same field values in the same order) or declines
(None), and it declines wherever the Python path raises. Skipped when not built."""

import copy
import dataclasses
import gc
import json
import pickle
import random
import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generated import ticdc_craft as craft
from generated.models.ticdc_types import Column, DdlEvent, ResolvedEvent, RowChangedEvent
from runtime.core.chunks import Chunk, CountedChunks
from runtime.core.errors import DecodeError, EncodeError
from runtime.core.leb128 import write_reversed_uvarint
from runtime.core.limits import DEFAULT, Limits
from runtime.core.value_kinds import ValueKinds
from runtime.formats import craft as rt_craft
from tests.test_craft_generated import _events

READER = craft.COMPILED_READERS.get("message")
pytestmark = pytest.mark.skipif(
    READER is None or "message" not in craft.COMPILED_WAY_BACKS,
    reason="generated._compiled.ticdc_craft is not built",
)

ROOT = Path(__file__).resolve().parents[1]
VECTORS = json.loads((ROOT / "tests/data/vectors/ticdc_craft.json").read_text())
MESSAGES = {v["name"]: bytes.fromhex(v["hex"]) for v in VECTORS}
MESSAGES.update(
    {p.name: p.read_bytes() for p in sorted((ROOT / "samples/ticdc_craft").glob("*.bin"))}
)

# The Python path: the generated frame reader and runtime/formats/craft.py's mapping.
PYTHON = rt_craft.CraftMessage(
    craft.frame, craft.VALUE_DECODERS["column_group.values"], craft.DICTIONARIES["frame.term_dictionary"], craft.MAPPINGS["message"],
    craft.UNMAPPINGS["message"], compiled=False,
)  # fmt: skip
PYTHON.use_fast_readers(craft._read_frame)


@pytest.fixture
def decode():
    """The compiled reader of whole messages: the events, or None (declined)."""

    def events(data, limits):
        model = READER(data, limits)
        assert model is None or type(model) is craft.Message
        if model is None:
            return None
        # the events keep the bytes read, as the Python readers keep them
        assert type(model.events) is rt_craft.ReadEvents and model.events.wire_form is data
        return model.events

    return events


def shape(value):
    """What must be equal, exactly: classes, fields in order, floats by their bits."""
    if isinstance(value, list):
        return [shape(v) for v in value]
    if isinstance(value, (Column, RowChangedEvent, DdlEvent, ResolvedEvent)):
        fields = dataclasses.fields(value)  # slots: the fields are all there is
        return type(value), [(f.name, shape(getattr(value, f.name))) for f in fields]
    if isinstance(value, float):
        return float, struct.pack("<d", value)
    return type(value), value


def python(data, limits=DEFAULT):
    try:
        return PYTHON.decode(data, limits)
    except DecodeError:
        return None


def held(decode, data, limits=DEFAULT, *, must_take=False):
    """The compiled outcome equals the Python one, or declines; returns the compiled."""
    got = decode(data, limits)
    want = python(data, limits)
    if got is None:
        assert not must_take or want is None, data.hex()
    else:
        assert want is not None, f"compiled accepts what Python refuses: {data.hex()}"
        assert shape(got) == shape(want), data.hex()
    return got


def test_the_generated_module_uses_the_compiled_reader():
    # parse tries it first from C (an entry of parse_first), decode_message too
    assert READER is craft._COMPILED.read_message and "message" in craft._COMPILED._ENTRIES
    assert craft._CRAFT_MESSAGE._compiled is READER
    data = MESSAGES["seed_row_changed_update"]
    events = craft.parse(data).events
    assert type(events) is rt_craft.ReadEvents and events.wire_form is data
    assert PYTHON._compiled is None


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_vectors_and_samples_decode_equal_and_rebuild(decode, name):
    data = MESSAGES[name]
    events = held(decode, data, must_take=True)
    assert events is not None
    assert craft.parse(data).events == events
    assert craft.build(craft.Message(events=events)) == data


def test_parse_tries_the_compiled_reader_first():
    """``craft.parse`` of a message is the compiled reader (from C), equal to the construct
    path's model; with limits it declines where the quick tier would, and input that is
    not bytes the Python path decides."""
    for data in MESSAGES.values():
        model = READER(data, DEFAULT)
        want = craft.parse_construct(data)
        assert type(model) is craft.Message and shape(model.events) == shape(want.events)
        assert shape(craft.parse(data).events) == shape(want.events)
        assert READER(data, Limits.from_kwargs({"max_count": 1})) is None
        assert shape(craft.parse(bytearray(data)).events) == shape(want.events)
        assert shape(list(craft.decode_message(data))) == shape(want.events)
    with pytest.raises(DecodeError) as raised:
        craft.parse(MESSAGES["seed_row_changed_update"], max_string=7)
    with pytest.raises(DecodeError) as construct:
        craft.parse_construct(MESSAGES["seed_row_changed_update"], max_string=7)
    assert str(raised.value) == str(construct.value)


def test_a_repeated_term_dictionary_is_read_once_and_checked_under_each_limits(decode):
    seed = MESSAGES["seed_row_changed_update"]
    first, again = held(decode, seed, must_take=True), held(decode, seed, must_take=True)
    assert all(a.name is b.name for a, b in zip(first[0].new, again[0].new))
    # the reader reads as the quick tier does, which retries (declines) under some limits
    # the exact reader meets
    for max_string in (1, 7, 8, 9, 19):
        held(decode, seed, Limits.from_kwargs({"max_string": max_string}))
    for max_count in (7, 8, 9, 10):
        held(decode, seed, Limits.from_kwargs({"max_count": max_count}))
    held(decode, seed, Limits.from_kwargs({"max_count": 9}))  # after a decline: read again
    assert held(decode, seed, must_take=True) == first


def test_events_pickle_copy_and_compare_as_before(decode):
    events = held(decode, MESSAGES["seed_row_changed_update"], must_take=True)
    assert pickle.loads(pickle.dumps(events)) == events
    assert copy.deepcopy(events) == events and copy.copy(events[0]) == events[0]
    assert dataclasses.replace(events[0], row_id=7) != events[0]


def test_the_event_classes_freed_fast_are_as_before(decode):
    """bind frees the map's classes (generated.models.ticdc_types') fast, as every class a compiled
    module fills (slots.pxd ``free_fast``): what a user holds outlives its message intact,
    the models freed are made again equal, and a user's subclass and models work."""
    seed = MESSAGES["seed_row_changed_update"]
    want = shape(held(decode, seed, must_take=True))
    event = held(decode, seed, must_take=True)[0]  # its message freed, the event held
    column, columns = event.new[0], event.old
    for _ in range(3):  # its models freed, their memory made models again
        assert shape(held(decode, seed, must_take=True)) == want
    assert shape([event]) == want and event.new[0] is column and event.old is columns

    class Mine(Column):
        __slots__ = ("note",)

    mine = [Mine("a", 3, 0, 1) for _ in range(100)]
    for m in mine:
        m.note = [m]  # a cycle: the collector frees it through our dealloc
    plain = [Column("b", 15, 0, b"x") for _ in range(100)]
    del mine, m, plain
    gc.collect()
    assert shape(held(decode, seed, must_take=True)) == want
    assert Mine("c", 3).name == "c" and Column("d", 3) == Column("d", 3)


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_every_truncation_and_missing_prefix(decode, name):
    data = MESSAGES[name]
    for cut in range(len(data)):
        held(decode, data[:cut], must_take=True)
        held(decode, data[cut + 1 :], must_take=True)


def test_byte_mutations(decode):
    rnd = random.Random(17)
    taken = refused = 0
    for _ in range(6000):
        data = bytearray(rnd.choice(list(MESSAGES.values())))
        for _ in range(rnd.randint(1, 3)):
            data[rnd.randrange(len(data))] = rnd.choice(
                [0x00, 0x01, 0x02, 0x7F, 0x80, 0xFF, rnd.randrange(256)]
            )
        got = held(decode, bytes(data), must_take=True)
        taken += got is not None
        refused += got is None
    assert taken > 300 and refused > 1000


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from(sorted(MESSAGES)), st.randoms(use_true_random=False))
def test_mutations_inserted_and_removed_bytes(decode, name, rnd):
    data = bytearray(MESSAGES[name])
    for _ in range(rnd.randint(1, 3)):
        at = rnd.randrange(len(data))
        if rnd.random() < 0.5:
            data.insert(at, rnd.randrange(256))
        else:
            del data[at]
    held(decode, bytes(data), must_take=True)


@pytest.mark.parametrize(
    "limits",
    [
        {"max_count": 1}, {"max_count": 2}, {"max_count": 7}, {"max_count": 8},
        {"max_string": 1}, {"max_string": 7}, {"max_string": 19}, {"max_string": 20},
        {"max_message_bytes": 300}, {"max_message_bytes": 301},
        {"max_depth": 1}, {"max_depth": 2}, {"max_depth": 3},
    ],
)  # fmt: skip
def test_limits(decode, limits):
    lim = Limits.from_kwargs(limits)
    for data in MESSAGES.values():
        held(decode, data, lim)  # the quick tier retries under some limits the exact reader meets


def test_non_shortest_varints_and_a_ten_byte_size(decode):
    seed = MESSAGES["seed_row_changed_update"]
    # version 1 as "81 00": Go and the Python path accept non-shortest varints
    assert held(decode, b"\x81\x00" + seed[1:], must_take=True) is not None
    # the tables' length as a ten-byte reversed uvarint, and one over 64 bits
    length = seed[-1]
    long_tail = bytes([0x00] + [0x80] * 8 + [0x80 | length])
    assert held(decode, seed[:-1] + long_tail, must_take=True) is not None
    assert held(decode, seed[:-1] + bytes([0x02] + [0x80] * 8 + [0x80 | length])) is None


def test_non_shortest_and_overlong_varints_in_a_column_group(decode):
    """Each chunk of a group (names, types, flags, lengths) with one varint written long:
    non-shortest forms up to ten bytes are read as the Python path reads them, a tenth byte
    past 1 and an eleventh byte are refused by both (the columns read their chunks in one
    pass after checking each chunk's varints)."""
    (data,) = craft.encode_events([ROW])
    before, tables = _split(data)
    group = 1 + tables[0][0]  # after the version and the header
    for chunk in (2, 4, 6, 8):  # names, types, flags, lengths: two varints each
        for element in (0, 1):
            at = group + chunk + element
            for size, last in ((2, 0), (9, 0), (10, 0), (10, 1), (10, 2), (11, 0)):
                long_form = bytes([before[at] | 0x80] + [0x80] * (size - 2) + [last])
                grown = [tables[0], [tables[1][0] + size - 1], [tables[2][0] + size - 1]]
                patched = before[:at] + long_form + before[at + 1 :]
                got = held(decode, _assemble(patched, grown), must_take=True)
                if last != 1:  # (a value past 2**63: a flags word, or a code with no kind)
                    assert (got is not None) == (last == 0 and size <= 10), (chunk, at, size)


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(_events())
def test_generated_events(decode, events):
    (data,) = craft.encode_events(events, max_batch_size=100)
    got = held(decode, data, must_take=True)
    assert got is not None and shape(got) == shape(events)
    assert craft.build(craft.Message(events=got)) == data


def test_float_payloads_and_extremes(decode):
    nan = struct.unpack("<d", bytes.fromhex("0100000000f8ff7f"))[0]
    events = [
        RowChangedEvent(2**64 - 1, "s", "t", 2**63 - 1, new=[Column("f", 5, 0, nan)]),
        RowChangedEvent(0, None, None, None, old=[Column("f", 4, 0, -0.0), Column("i", 8, 0, -(2**63)),
                        Column("u", 8, 0x80, 2**64 - 1), Column("y", 13, 0x80, -1)]),
    ]  # fmt: skip
    (data,) = craft.encode_events(events)
    assert shape(held(decode, data, must_take=True)) == shape(events)


# ------------------------------------------------------------------------------ encoding
PYTHON.use_fast_writers(craft._write_frame)


class RenderedWayBack:
    """The way back rendered from the spec's ``map:`` and ``batch:`` (``COMPILED_WAY_BACKS``)
    of the values' kinds ``values`` (the spec's own by default)."""

    def __init__(self, values=None):
        self.batches, self.message = craft.COMPILED_WAY_BACKS.get("message", (None, None))
        self.values = values or craft.VALUE_DECODERS["column_group.values"]
        self.terms = craft.DICTIONARIES["frame.term_dictionary"]

    def encode_events(self, events, max_batch_size, max_message_bytes):
        return self.batches(events, max_batch_size, max_message_bytes, self.values, self.terms)

    def encode(self, events):
        return self.message(events, self.values, self.terms)


_ENCODER = RenderedWayBack()


def encoder():
    return _ENCODER


def held_encoding(events, **batching):
    """The compiled encoder writes the Python path's messages, or declines where the Python
    path raises (or leaves the event to its checked mapping)."""
    size, most = batching.get("max_batch_size", 16), batching.get("max_message_bytes", 10 << 20)
    got = encoder().encode_events(events, size, most)
    try:
        want = list(PYTHON.encode_events(events, **batching))
    except EncodeError:
        assert got is None
        return None
    assert got is None or got == want
    return got


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_encoding_vectors_and_samples(name):
    data = MESSAGES[name]
    events = PYTHON.decode(data)
    assert encoder().encode(events) == data == craft.build(craft.Message(events=events))
    assert held_encoding(events, max_batch_size=100) == [data]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_events(), st.integers(1, 5), st.sampled_from([1, 200, 10 << 20]))
def test_encoding_generated_events(events, batch, most):
    got = held_encoding(events, max_batch_size=batch, max_message_bytes=most)
    assert got is not None  # valid events of the usual types: the compiled encoder takes them
    assert [ev for m in got for ev in PYTHON.decode(m)] == events
    assert encoder().encode(events) == PYTHON.encode(events)


@pytest.mark.parametrize(
    "event",
    [
        RowChangedEvent(1, "s", "t"),  # no image
        RowChangedEvent(1, "s", "t", new=[Column("c", 99, 0, 1)]),  # unknown type code
        RowChangedEvent(1, "s", "t", new=[Column("c", 3, 0, 2**63)]),  # over int64
        RowChangedEvent(1, "s", "t", new=[Column("c", 3, 0x80, -1)]),  # negative unsigned
        RowChangedEvent(1, "s", "t", new=[Column("c", 4, 0, "1.0")]),  # not a float
        RowChangedEvent(1, "s", "t", new=[Column("c", 6, 0, b"x")]),  # a NULL type's value
        RowChangedEvent(1, "s", "t", new=[Column("c", 15, 0, bytearray(b"x"))]),  # not bytes
        RowChangedEvent(1, "s", "t", new=[Column("c", 3, 0, True)]),  # a bool
        RowChangedEvent(1, "s", "t", new=[Column("c", 254, 0, "text\udc80")]),  # surrogate
        RowChangedEvent(1, "s\udc80", "t", new=[]),  # a surrogate in a name
        RowChangedEvent(1, 5, "t", new=[]),  # not a name
        RowChangedEvent(1, "s", "t", partition=-1, new=[]),
        RowChangedEvent(2**64, "s", "t", new=[]),
        DdlEvent(1, "s", "t", -1, "q"),
        DdlEvent(1, "s", "t", 3, "q\ud800"),
        ResolvedEvent(-1),
        "not an event",
    ],
)
def test_encoding_declines_what_the_quick_mapping_leaves(event):
    events = [RowChangedEvent(7, "s", "t", new=[Column("a", 3, 0, 1)]), event]
    assert encoder().encode_events(events, 16, 10 << 20) is None
    assert encoder().encode([event]) is None
    held_encoding(events)


def test_encoding_mixed_events_and_batch_arguments():
    row = RowChangedEvent(7, "s", "t", new=[Column("a", 3, 0, 1)])
    assert encoder().encode([row, ResolvedEvent(1)]) is None  # one message cannot mix them
    assert encoder().encode([]) is None
    assert encoder().encode_events([row], 0, 10) is None
    assert encoder().encode_events([row], 16, 0) is None
    assert encoder().encode_events([], 16, 10) == []
    assert held_encoding([row, ResolvedEvent(1), row, DdlEvent(2, None, None, 3, "q"), row])


_ODD_VALUES = [
    None,
    0,
    -1,
    2**63 - 1,
    -(2**63),
    2**64 - 1,
    2**64,
    -(2**63) - 1,
    True,
    1.5,
    float("nan"),
    -0.0,
    "",
    "é日本",
    "s\udc80",
    "s\ud800",
    b"",
    b"\x00\xff",
    bytearray(b"x"),
]
_ODD_NAMES = ["a", "a", "", "é", "名前", None, "x\udc80", 5]


def _odd_event(rnd):
    """An event of any class whose fields are drawn from values good and bad."""
    ts = rnd.choice([0, 1, 2**64 - 1, 2**64, -1, "1"])
    schema, table = rnd.choice(_ODD_NAMES), rnd.choice(_ODD_NAMES)
    kind = rnd.random()
    if kind < 0.7:
        images = {
            image: [
                Column(rnd.choice(_ODD_NAMES[:5]), rnd.choice([*craft.VALUE_DECODERS["column_group.values"].codes, 99, 256]),
                       rnd.choice([0, 0x80, 85, -1]), rnd.choice(_ODD_VALUES))
                for _ in range(rnd.randint(0, 4))
            ]
            for image in ("new", "old") if rnd.random() < 0.7
        }  # fmt: skip
        return RowChangedEvent(ts, schema, table, rnd.choice([None, 0, 7, -1, 2**63]), **images)
    if kind < 0.85:
        return DdlEvent(
            ts, schema, table, rnd.choice([3, -1, 2**64]), rnd.choice(["q", "é", "q\ud800"])
        )
    return ResolvedEvent(ts) if kind < 0.98 else "not an event"


@pytest.mark.parametrize("seed", range(4))
def test_encoding_random_events_good_and_bad(seed):
    """Good and bad values of every kind, in random lists and batch limits: the compiled way
    back writes the Python path's messages or declines where it raises."""
    rnd = random.Random(seed)
    for _ in range(100):
        events = [_odd_event(rnd) for _ in range(rnd.randint(0, 6))]
        size, most = rnd.choice([(16, 10 << 20), (1, 1), (3, 200), (5, 60)])
        try:
            held_encoding(events, max_batch_size=size, max_message_bytes=most)
        except UnicodeEncodeError:  # the Python path's own (a lone surrogate not in U+DC80..)
            assert encoder().encode_events(events, size, most) is None


# ------------------------------------------------------- frames the mutations rarely make
def _frame(events):
    (data,) = craft.encode_events(events)
    return craft.parse(data, "frame")


def _split(data):
    """A message's bytes before its size tables, and the tables."""
    frame = craft.parse(data, "frame")
    tail = len(write_reversed_uvarint(frame.size_tables_length))
    return data[: len(data) - tail - frame.size_tables_length], frame.size_tables


def _assemble(before, tables):
    """``before`` (version .. term dictionary) and these size tables."""
    out = bytearray()
    CountedChunks(Chunk(0, zigzag=True, delta=True), repeated=True).pack(tables, out)
    return before + bytes(out) + write_reversed_uvarint(len(out))


ROW = RowChangedEvent(5, "s", "t", new=[Column("d", 5, 0, 1.5), Column("n", 3, 0, 7)])


def test_frames_the_python_path_refuses(decode):
    refused = []
    # an empty term dictionary written out (count 0) instead of omitted; a resolved event
    # with a body byte
    (resolved,) = craft.encode_events([ResolvedEvent(9)])
    before, tables = _split(resolved)
    refused.append(_assemble(before + b"\x00", [[tables[0][0], 1], [0]]))
    refused.append(_assemble(before + b"\x00", [[tables[0][0], 0], [1]]))
    # a row whose first column group is empty (size 0) and the second holds the group
    (row,) = craft.encode_events([ROW])
    before, tables = _split(row)
    refused.append(_assemble(before, tables[:2] + [[0, tables[1][0]]]))
    # a double of 9 bytes, and of 7
    for size in (9, 7):
        frame = _frame([ROW])
        frame.bodies[0].column_groups[0].values[0] = bytes(size)
        refused.append(craft.build(frame, "frame"))
    # a column name's term id past the dictionary, and a NULL type with a value
    frame = _frame([ROW])
    frame.bodies[0].column_groups[0].names[1] = len(frame.term_dictionary)
    refused.append(craft.build(frame, "frame"))
    frame = _frame([ROW])
    frame.bodies[0].column_groups[0].types[1] = 6
    refused.append(craft.build(frame, "frame"))
    # two NEW column groups in one row
    frame = _frame([RowChangedEvent(5, "s", "t", new=ROW.new, old=ROW.new)])
    frame.bodies[0].column_groups[1].type = craft.GroupType.NEW
    refused.append(craft.build(frame, "frame"))
    for data in refused:
        assert python(data) is None, data.hex()
        assert decode(data, DEFAULT) is None, data.hex()


def test_each_fault_of_the_map_phase_is_declined(decode):
    """A class's rule, a ref and a value that does not decode: each is the spec's mapping's
    fault (the Python path raises its error), declined here."""

    def partition(f):
        f.header.partition[0] = -2 if f.bodies[0].column_groups else 4

    def schema(f):
        f.header.schema[0] = 9

    def name(f):
        f.bodies[0].column_groups[0].names[0] = 7

    def value(f):
        f.bodies[0].column_groups[0].values[0] = b"\x80"

    for events, faults in (
        ([DdlEvent(5, "s", "t", 3, "create")], (partition, schema)),
        ([ROW], (partition, schema, name, value)),
    ):
        for fault in faults:
            frame = _frame(events)
            fault(frame)
            data = craft.build(frame, "frame")
            assert python(data) is None and decode(data, DEFAULT) is None, data.hex()


def test_other_kinds_are_encoded_by_the_kinds_the_way_back_is_given():
    """The compiled way back encodes values by the kind table of the ``ValueKinds`` it is
    given (bound on first use, again for another): a spec whose ``kinds:`` give a kind
    another wire type is written as its Python path writes it (and decoded by the Python
    paths: the compiled reader is the generated module's, of its own kinds)."""
    values = craft.VALUE_DECODERS["column_group.values"]
    other = dict(values.kinds, sint=values.kinds["uint"])  # YEAR read as a uvarint
    changed = ValueKinds(values.noun, other, values.codes, values.unsigned)
    codec = rt_craft.CraftMessage(
        craft.frame, changed, craft.DICTIONARIES["frame.term_dictionary"], craft.MAPPINGS["message"],
        craft.UNMAPPINGS["message"], compiled=False,
    )  # fmt: skip
    codec.use_fast_readers(craft._read_frame)
    codec.use_fast_writers(craft._write_frame)
    event = RowChangedEvent(1, "s", "t", new=[Column("y", 13, 0, 2021)])
    data = codec.encode([event])
    assert RenderedWayBack(changed).encode([event]) == data
    assert RenderedWayBack(changed).encode_events([event], 16, 10 << 20) == [data]
    assert encoder().encode([event]) == next(craft.encode_events([event])) != data
    assert codec.decode(data) == [event]
    assert craft.decode_message(data) != [event]  # the spec's own kinds read it otherwise
