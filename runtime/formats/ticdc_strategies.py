"""Hypothesis strategies of TiCDC events, shared by Craft and Open Protocol; the generic
strategies are :mod:`runtime.core.strategies`.

What values an event's fields hold is the spec's: the generator renders each format's
``_STRATEGY_EVENTS`` from ``specs/ticdc_types.yaml``'s ``models:`` (``range:``, ``enum:``,
``nonempty:``) and the format's own types (:mod:`generator.emit.strategies_events`). What
this module adds: a column's value by its value kind (the codec's ``kind_of(code,
flags)``), and a row's images as its ``op`` needs them (an insert has ``new``, a delete
``old``, an update both, neither empty).

    >>> from hypothesis import HealthCheck, given, settings
    >>> from generated import ticdc_craft
    >>> # Messages of events are big draws: on a loaded machine drawing them is slow, no failure.
    >>> @settings(
    ...     max_examples=5,
    ...     database=None,
    ...     deadline=None,
    ...     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    ... )
    ... @given(ticdc_craft.strategies())
    ... def round_trip(message):
    ...     data = ticdc_craft.build(message)
    ...     assert ticdc_craft.build(ticdc_craft.parse(data)) == data
    >>> round_trip()

Hypothesis is a test extra: it is imported only when a strategy is asked for.
"""

from __future__ import annotations

import functools

from runtime.core.strategies import MAX_ITEMS, integers

NAMES = ("id", "v", "长", "x" * 130, "")
"""Texts every text field draws besides any short text: a length past one varint byte."""


def ticdc_values(kind: str | None, flags: int):
    """Column values of one value kind: Craft's wire types (:mod:`runtime.core.value_kinds`)
    or Open Protocol's renderings (its ``float64`` is finite: Go's encoding/json writes no
    infinity; Craft's ``f64`` is any float)."""
    from hypothesis import strategies as st

    int64 = integers(-(2**63), 2**63 - 1)
    uint64 = integers(0, 2**64 - 1)
    texts = st.text(max_size=12)
    table = {
        "sint": int64,  # Open Protocol's renderings
        "int": uint64 if flags & 0x80 else int64,
        "uint": uint64,
        "float64": st.floats(allow_nan=False, allow_infinity=False),
        "float32": st.floats(width=32, allow_nan=False, allow_infinity=False),
        "text": texts,
        "string": st.binary(max_size=12) if flags & 1 else texts.map(str.encode),
        "base64": st.binary(max_size=12),
        "varint": int64,  # Craft's wire types
        "uvarint": uint64,
        "f64": st.floats(allow_nan=False),
        "str": texts,
        "bytes": st.binary(max_size=12),
        "null": st.none(),
    }
    return st.none() | table.get(kind, st.none())


def field_values(t: dict):
    """Values of one model field described by ``t`` (a ``_STRATEGY_EVENTS`` entry).

    >>> from hypothesis import find
    >>> flags = field_values({"kind": "int", "flags": (0x01, 0x02, 0x80)})
    >>> find(flags, lambda v: v & 0x83 == 0x83)  # the flags OR-ed together
    131
    >>> find(field_values({"kind": "str", "optional": True, "nonempty": True}), lambda v: v is not None)
    'id'
    """
    from hypothesis import strategies as st

    kind = t["kind"]
    if kind == "int" and "flags" in t:
        out = st.sets(st.sampled_from(t["flags"])).map(
            lambda bits: functools.reduce(int.__or__, bits, 0)
        )
    elif kind == "int" and "members" in t:
        out = st.sampled_from(t["members"])
    elif kind == "int":
        out = integers(t["lo"], t["hi"])
    elif kind == "str":
        out = st.sampled_from(NAMES) | st.text(max_size=12)
    elif kind == "bool":
        out = st.booleans()
    else:
        raise AssertionError(kind)
    out = out.filter(bool) if t.get("nonempty") else out
    return st.none() | out if t.get("optional") else out


def ticdc_events(table: dict, kind_of, type_codes, *, max_events: int = 4):
    """Lists of the events of ``table`` (a generated module's ``_STRATEGY_EVENTS``; its
    column's ``code`` field drawn from ``type_codes``, its ``value`` by the value kind
    ``kind_of(code, flags)``)."""
    from hypothesis import strategies as st

    column_class, column_fields, code, value = table["column"]
    codes = sorted(int(c) for c in type_codes)
    flags = next(f for f, t in column_fields.items() if "flags" in t)

    @st.composite
    def column(draw, name=None):
        out = {f: draw(field_values(t)) for f, t in column_fields.items()}
        out[code] = draw(st.sampled_from(codes))
        out[value] = draw(ticdc_values(kind_of(out[code], out[flags]), out[flags]))
        return column_class(**(out if name is None else {**out, "name": name}))

    @st.composite
    def image(draw, min_size=0):
        if not table["unique_names"]:
            return draw(st.lists(column(), min_size=min_size, max_size=MAX_ITEMS))
        chosen = draw(
            st.lists(st.text(max_size=6), min_size=min_size, max_size=MAX_ITEMS, unique=True)
        )  # a JSON object's keys, in the order Go writes a map's
        return [draw(column(n)) for n in sorted(chosen, key=str.encode)]

    def event(cls, fields: dict):
        @st.composite
        def draw_event(draw):
            out = {f: draw(field_values(t)) for f, t in fields.items() if t["kind"] != "columns"}
            if "new" in fields and "old" in fields:  # a row: its images as its op needs them
                op = draw(st.sampled_from(["insert", "update", "delete"]))
                out["new"] = draw(image(1 if op == "update" else 0)) if op != "delete" else None
                out["old"] = draw(image(1)) if op != "insert" else None
            return cls(**out)

        return draw_event()

    alone = [event(c, f) for c, f in table["classes"] if c in table["alone"]]
    together = [event(c, f) for c, f in table["classes"] if c not in table["alone"]]
    if not alone:
        return st.lists(st.one_of(together), max_size=max_events)
    lists = st.lists(st.one_of(together), min_size=1, max_size=max_events)
    return st.one_of(lists, *(e.map(lambda ev: [ev]) for e in alone))
