"""The compiled tier's reader of Craft's ``message`` rendered from the spec's ``map:``
(generated/_compiled/ticdc_craft.pyx, ``MAPPED_READERS``; generator/emit/compiled_mapping.py),
held to the Python path as tests/test_craft_compiled.py holds runtime/_compiled/craft.pyx:
on every vector and sample, every truncation, byte mutations, limits and generated events it
gives exactly the Python path's events (same classes, same field values in the same order)
or declines (None), and it declines wherever the Python path raises. Skipped when not built."""

import random
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generated import ticdc_craft as craft
from runtime.core.limits import DEFAULT, Limits
from runtime.formats.ticdc import Column, DdlEvent, RowChangedEvent
from tests.test_craft_compiled import MESSAGES, python, shape
from tests.test_craft_generated import _events

COMPILED = craft._COMPILED
MAPPED = {} if COMPILED is None else COMPILED.MAPPED_READERS
pytestmark = pytest.mark.skipif(
    "message" not in MAPPED, reason="generated._compiled.ticdc_craft is not built"
)


def held(data, limits=DEFAULT, *, must_take=False):
    """The rendered reader's events equal the Python path's, or it declines (``must_take``:
    only where the Python path raises); returns its events."""
    model = MAPPED["message"](data, limits)
    got = None if model is None else model.events
    want = python(data, limits)
    if got is None:
        assert not must_take or want is None, data.hex()
    else:
        assert type(model) is craft.Message
        assert want is not None, f"compiled accepts what Python refuses: {data.hex()}"
        assert shape(got) == shape(want), data.hex()
    return got


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_vectors_and_samples_decode_equal(name):
    assert held(MESSAGES[name], must_take=True) is not None


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_every_truncation_and_missing_prefix(name):
    data = MESSAGES[name]
    for cut in range(len(data)):
        held(data[:cut], must_take=True)
        held(data[cut + 1 :], must_take=True)


def test_byte_mutations():
    rnd = random.Random(17)
    taken = refused = 0
    for _ in range(6000):
        data = bytearray(rnd.choice(list(MESSAGES.values())))
        for _ in range(rnd.randint(1, 3)):
            data[rnd.randrange(len(data))] = rnd.choice(
                [0x00, 0x01, 0x02, 0x7F, 0x80, 0xFF, rnd.randrange(256)]
            )
        got = held(bytes(data))
        taken += got is not None
        refused += got is None
    assert taken > 300 and refused > 1000


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(MESSAGES)), st.randoms(use_true_random=False))
def test_mutations_inserted_and_removed_bytes(name, rnd):
    data = bytearray(MESSAGES[name])
    for _ in range(rnd.randint(1, 3)):
        at = rnd.randrange(len(data))
        if rnd.random() < 0.5:
            data.insert(at, rnd.randrange(256))
        else:
            del data[at]
    held(bytes(data))


@pytest.mark.parametrize(
    "limits",
    [
        {"max_count": 1}, {"max_count": 2}, {"max_count": 7}, {"max_count": 8},
        {"max_string": 1}, {"max_string": 7}, {"max_string": 19}, {"max_string": 20},
        {"max_message_bytes": 300}, {"max_message_bytes": 301},
        {"max_depth": 1}, {"max_depth": 2}, {"max_depth": 3},
    ],
)  # fmt: skip
def test_limits(limits):
    """Under limits the frame's compiled reader declines some messages the Python readers
    take (the quick tier's retries); none it takes differs."""
    lim = Limits.from_kwargs(limits)
    for data in MESSAGES.values():
        held(data, lim)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_events())
def test_generated_events(events):
    (data,) = craft.encode_events(events, max_batch_size=100)
    got = held(data, must_take=True)
    assert got is not None and shape(got) == shape(events)


def test_float_payloads_and_extremes():
    nan = struct.unpack("<d", bytes.fromhex("0100000000f8ff7f"))[0]
    events = [
        RowChangedEvent(2**64 - 1, "s", "t", 2**63 - 1, new=[Column("f", 5, 0, nan)]),
        RowChangedEvent(0, None, None, None, old=[Column("f", 4, 0, -0.0), Column("i", 8, 0, -(2**63)),
                        Column("u", 8, 0x80, 2**64 - 1), Column("y", 13, 0x80, -1)]),
    ]  # fmt: skip
    (data,) = craft.encode_events(events)
    assert shape(held(data, must_take=True)) == shape(events)


def test_the_mapping_declines_each_fault_of_the_map_phase():
    """A rule, a ref and a value that does not decode: each is
    the Python mapping's fault, declined here (the Python path raises its error)."""
    ddl = [DdlEvent(5, "s", "t", 3, "create")]
    rows = [RowChangedEvent(1, "s", "t", None, new=[Column("c", 3, 0, 7)])]
    for events in (ddl, rows):
        (data,) = craft.encode_events(events)
        frame = craft.parse(data, "frame")
        for mutate in _faults(frame):
            bad = craft.build(mutate(craft.parse(data, "frame")), "frame")
            assert held(bad) is None and python(bad) is None, bad.hex()


def _faults(frame):
    def partition(f):
        f.header.partition[0] = -2 if f.bodies[0].column_groups else 4
        return f

    def schema(f):
        f.header.schema[0] = 9
        return f

    out = [partition, schema]
    if frame.bodies[0].column_groups:

        def name(f):
            f.bodies[0].column_groups[0].names[0] = 7
            return f

        def value(f):
            f.bodies[0].column_groups[0].values[0] = b"\x80"
            return f

        out += [name, value]
    return out
