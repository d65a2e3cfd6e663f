"""How the fuzzer (generator/cli/fuzz.py) turns a valid message into a mutant: bit flips,
interesting bytes, truncation, splices of two messages, length fields set to huge or
negative values, repeated, duplicated and deleted sections, inserted bytes, bit flips in the
header and nesting depth bombs, one to three of them stacked (:func:`mutate`).

    >>> import random
    >>> rng = random.Random(0)
    >>> mutants = {mutate(rng, b"seed message", [b"other"]) for _ in range(50)}
    >>> len(mutants) > 40 and all(len(m) <= MAX_INPUT for m in mutants)
    True
"""

from __future__ import annotations

import random

INTERESTING_BYTES = (0x00, 0x01, 0x7F, 0x80, 0xFF, 0xFE, 0x3F, 0x40, 0x0F, 0x10)
HUGE = (
    b"\xff\xff\xff\xff",
    b"\xff\xff\xff\x7f",
    b"\x7f\xff\xff\xff",
    b"\x00\x00\x00\x80",
    b"\x80\x00\x00\x00",
    b"\xff\xff\xff\xff\xff\xff\xff\xff",
    b"\x7f\xff\xff\xff\xff\xff\xff\xff",
    b"\xff\xff\xff\xff\xff\xff\xff\x7f",
    b"\xff\xff\xff\xff\x0f",  # LEB128 uvarint 2**32 - 1
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",  # LEB128 2**64 - 1
    b"\xfe\xff\xff\xff\xff\xff\xff\xff\xff",  # msb varint, 8 extra bytes
    b"\x00\x10\x00\x00",
)


def _bitflip(rng, data, corpus):
    if not data:
        return data
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
    return bytes(data)


def _interesting_byte(rng, data, corpus):
    if not data:
        return bytes([rng.choice(INTERESTING_BYTES)])
    data = bytearray(data)
    data[rng.randrange(len(data))] = rng.choice(INTERESTING_BYTES)
    return bytes(data)


def _truncate(rng, data, corpus):
    return data[: rng.randrange(len(data) + 1)] if data else data


def _splice(rng, data, corpus):
    other = rng.choice(corpus)
    return data[: rng.randint(0, len(data))] + other[rng.randint(0, len(other)) :]


def _huge_length(rng, data, corpus):
    value = rng.choice(HUGE)
    if not data:
        return value
    i = rng.randrange(len(data))
    if rng.random() < 0.5:  # overwrite
        return data[:i] + value + data[i + len(value) :]
    return data[:i] + value + data[i:]


def _repeat_section(rng, data, corpus):
    if not data:
        return data
    i = rng.randrange(len(data))
    j = rng.randint(i, min(len(data), i + 64))
    times = rng.choice((1, 2, 4, 16, 256))
    return data[:j] + data[i:j] * times + data[j:]


def _delete_section(rng, data, corpus):
    if not data:
        return data
    i = rng.randrange(len(data))
    j = rng.randint(i, min(len(data), i + 16))
    return data[:i] + data[j:]


def _insert_random(rng, data, corpus):
    i = rng.randint(0, len(data))
    return data[:i] + rng.randbytes(rng.randint(1, 8)) + data[i:]


def _concat(rng, data, corpus):
    return data + rng.choice(corpus)


NEST_UNIT = 4
"""Longest run of bytes :func:`_nest_bomb` repeats."""
NEST_TIMES = (100, 500)
"""How often it repeats it: past ``max_depth``, and past the Python stack where a level
takes two frames or more (a msgpack ``0x91``, a Thrift struct field header, a JSON ``[``
opening one level each); no more, as such dense inputs parse at about the per-byte time
bound while tracemalloc runs (a loaded machine then finds them slow)."""
HEADER_BYTES = 64
"""The leading bytes :func:`_header_flip` flips bits in (magic, versions, first lengths)."""


def _nest_bomb(rng, data, corpus):
    """A short run of bytes near the start repeated thousands of times in place: where it
    opens a nested value, a nesting depth bomb."""
    if not data:
        return data
    i = rng.randrange(min(len(data), HEADER_BYTES))
    unit = data[i : i + rng.randint(1, NEST_UNIT)]
    return data[:i] + unit * rng.choice(NEST_TIMES) + data[i:]


def _header_flip(rng, data, corpus):
    if not data:
        return data
    data = bytearray(data)
    i = rng.randrange(min(len(data), HEADER_BYTES))
    data[i] ^= 1 << rng.randrange(8)
    return bytes(data)


def _duplicate_section(rng, data, corpus):
    """A section copied to another place: a field, key or id twice, or out of order."""
    if not data:
        return data
    i = rng.randrange(len(data))
    j = rng.randint(i, min(len(data), i + 32))
    k = rng.randint(0, len(data))
    return data[:k] + data[i:j] + data[k:]


MUTATORS: tuple = (
    _bitflip,
    _interesting_byte,
    _truncate,
    _splice,
    _huge_length,
    _repeat_section,
    _delete_section,
    _insert_random,
    _concat,
    _nest_bomb,
    _header_flip,
    _duplicate_section,
)
"""Each takes (rng, data, corpus) and returns the mutated bytes."""

MAX_INPUT = 1 << 20


def mutate(rng: random.Random, data: bytes, corpus: list[bytes]) -> bytes:
    """One to three stacked mutations of ``data``."""
    for _ in range(rng.randint(1, 3)):
        data = rng.choice(MUTATORS)(rng, data, corpus)
    return data[:MAX_INPUT]
