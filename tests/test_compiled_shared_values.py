"""The compiled reader shares the immutable values it makes (short text and bytes, ints) by a
small table keyed by their bytes or value (generator/emit/compiled.py: ``_utf8``, ``_bytes``,
``_int64``). Held here: a shared value is always the value the input holds, also when many
values fall into the same table slot, and the kinds never mix (text ``"ab"`` and bytes
``b"ab"``, ints that differ in one bit)."""

from __future__ import annotations

import importlib

import pytest

from runtime.core.limits import DEFAULT


def compiled_plainbuffer():
    module = importlib.import_module("generated.plainbuffer")
    if not getattr(module, "COMPILED_READERS", None):
        pytest.skip("the compiled tier of plainbuffer is not built")
    return module


def cell(m, name, kind, value, timestamp=None):
    return m.Cell(name=name, value=m.CellValue(type=kind, value=value), timestamp=timestamp)


def values_past_every_table():
    """More distinct values than any table has slots (1024), so some share a slot, each
    value met twice in a different order: every slot is overwritten and hit again."""
    ints = [1_700_000_000_000 + (k << (k % 40)) for k in range(2500)]
    ints += [-v for v in ints[:300]] + [257, -6, 2**63 - 1, -(2**63), 2**31, 2**32 - 1]
    blobs = [k.to_bytes(3, "big") for k in range(2500)] + [b"", b"x" * 24, b"y" * 25]
    texts = [blob.hex() for blob in blobs]
    return ints, blobs, texts


def test_shared_values_are_the_values_of_the_input():
    m = compiled_plainbuffer()
    ints, blobs, texts = values_past_every_table()
    INTEGER, BLOB, STRING = m.ValueType.INTEGER, m.ValueType.BLOB, m.ValueType.STRING
    rows = []
    for order in (1, -1):  # the second pass meets every value after the others
        for i, (number, blob, text) in enumerate(zip(ints[::order], blobs[::order], texts)):
            rows.append(
                m.Row(
                    primary_key=[cell(m, "k", INTEGER, number)],
                    attributes=[
                        cell(m, "b", BLOB, blob, timestamp=ints[i]),
                        cell(m, "s", STRING, text),
                        # the same bytes as text and as bytes: never the other kind
                        cell(m, "t", STRING, blob.hex()),
                        cell(m, "u", BLOB, blob.hex().encode()),
                    ],
                )
            )
    data = m.build(m.Message(rows=rows))
    compiled = m.COMPILED_READERS["message"](data, DEFAULT)
    assert compiled is not None
    python = m.parse.__wrapped__(data)
    assert compiled == python
    for got, want in zip(compiled.rows, python.rows):
        for a, b in zip(got.primary_key + got.attributes, want.primary_key + want.attributes):
            assert type(a.value.value) is type(b.value.value)
            assert type(a.timestamp) is type(b.timestamp)
