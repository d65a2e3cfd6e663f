"""Hypothesis strategies of TiCDC events, shared by Craft and Open Protocol (one event model,
``generated.models.ticdc_types``, which each codec hands in as ``models``); the generic strategies
are :mod:`runtime.core.strategies`.

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

from runtime.core.strategies import MAX_ITEMS, integers


def ticdc_values(kind: str | None, flags: int, finite: bool = False):
    """Column values of one value kind (the kinds of :mod:`runtime.formats.craft` and
    :mod:`runtime.formats.open_protocol`); ``finite``: no infinite floats, which Go's
    encoding/json cannot write (Open Protocol)."""
    from hypothesis import strategies as st

    int64 = integers(-(2**63), 2**63 - 1)
    uint64 = integers(0, 2**64 - 1)
    texts = st.text(max_size=12)
    table = {
        "sint": int64,
        "int": uint64 if flags & 0x80 else int64,
        "uint": uint64,
        "float64": st.floats(allow_nan=False, allow_infinity=not finite),
        "float32": st.floats(width=32, allow_nan=False, allow_infinity=False),
        "text": texts,
        "varint": int64,  # the wire types of runtime.core.value_kinds
        "uvarint": uint64,
        "f64": st.floats(allow_nan=False, allow_infinity=not finite),
        "str": texts,
        "bytes": st.binary(max_size=12),
        "string": st.binary(max_size=12) if flags & 1 else texts.map(str.encode),
        "base64": st.binary(max_size=12),
        "null": st.none(),
    }
    return st.none() | table.get(kind, st.none())


def ticdc_events(
    models,
    kind_of,
    type_codes,
    *,
    flags=(0, 0x01, 0x02, 0x80, 0x81, 0xFF),
    open_protocol: bool = False,
    max_events: int = 4,
):
    """Lists of events of ``models`` (the module of the TiCDC event classes); ``kind_of(code,
    flags)`` is a column's value kind.

    ``open_protocol``: columns with unique names in Go's sorted order, the Open Protocol
    extras (row id, handle-key-only, claim check) and partitions within int64.
    """
    from hypothesis import strategies as st

    uint64 = integers(0, 2**64 - 1)
    int64 = integers(-(2**63), 2**63 - 1)
    names = st.sampled_from(["id", "v", "长", "x" * 130, ""]) | st.text(max_size=6)

    @st.composite
    def column(draw, name=None):
        code = int(draw(st.sampled_from(sorted(int(c) for c in type_codes))))
        flag = draw(st.sampled_from(flags))
        return models.Column(
            draw(names) if name is None else name,
            code,
            flag,
            draw(ticdc_values(kind_of(code, flag), flag, finite=open_protocol)),
        )

    @st.composite
    def image(draw, min_size=0):
        if not open_protocol:
            return draw(st.lists(column(), min_size=min_size, max_size=MAX_ITEMS))
        chosen = draw(
            st.lists(st.text(max_size=6), min_size=min_size, max_size=MAX_ITEMS, unique=True)
        )
        return [draw(column(n)) for n in sorted(chosen, key=str.encode)]

    optional_names = st.none() | st.text(min_size=1, max_size=6)

    @st.composite
    def row(draw):
        op = draw(st.sampled_from(["insert", "update", "delete"]))
        new = draw(image(1 if op == "update" else 0)) if op != "delete" else None
        old = draw(image(1)) if op != "insert" else None
        extras = {}
        if open_protocol:
            extras = {
                "row_id": draw(st.none() | int64.filter(bool)),
                "handle_key_only": draw(st.booleans()),
                "claim_check_location": draw(optional_names),
            }
        return models.RowChangedEvent(
            commit_ts=draw(uint64),
            schema=draw(optional_names),
            table=draw(optional_names),
            partition=draw(st.none() | integers(0, 2**63 - 1)),
            new=new,
            old=old,
            **extras,
        )

    ddl = st.builds(
        models.DdlEvent,
        uint64,
        optional_names,
        optional_names,
        int64 if open_protocol else uint64,
        st.text(max_size=12),
    )
    resolved = st.builds(models.ResolvedEvent, uint64)
    rows = st.lists(row(), min_size=1, max_size=max_events)
    if open_protocol:
        return st.lists(st.one_of(row(), ddl, resolved), max_size=max_events)
    return rows | ddl.map(lambda e: [e]) | resolved.map(lambda e: [e])


def open_protocol_messages(module, models):
    """Open Protocol ``Message`` models (key + value) of a generated module whose events are
    the classes of ``models``."""
    rendering = {int(k): v for k, v in module.COLUMN_TYPE_RENDERING.items()}
    events = ticdc_events(
        models, lambda code, flags: rendering.get(code), rendering, open_protocol=True
    )
    return events.map(lambda evs: module.Message(events=evs))
