"""TiCDC Craft's quick mapping: frames read by the generated fast path -> events, and
events -> the parts a frame is assembled from, with no error bookkeeping.

Both give up at the first thing they are not sure about (``_GiveUp`` on decode, None on
encode); the checked mapping (:mod:`runtime.formats.craft_events`) then maps the same input
again and raises its precise error, so both paths fail the same way by construction; tests
hold them to the same events and bytes. The spec's ``map:`` of ``message`` makes the events
on both (here run with :func:`_give_up` and the values' quick decoder), and the spec's
``decode_by:`` of the values drives both (``kinds``: a
:class:`runtime.core.value_kinds.ValueKinds`, whose ``quick`` table gives the wire type of
each type code, None for unknown).

    >>> from generated.ticdc_craft import frame, VALUE_DECODERS, DICTIONARIES, MAPPINGS
    >>> from runtime.core.limits import DEFAULT
    >>> kinds, mapping = VALUE_DECODERS["column_group.values"], MAPPINGS["message"]
    >>> model = frame.parse(bytes.fromhex("018180e0bb9bb6def10503010101021a19010005"))
    >>> _quick_events(model, kinds, mapping)
    [ResolvedEvent(commit_ts=424316594097225729)]
"""

from __future__ import annotations

from construct import Container

from runtime.core.leb128 import write_uvarint
from runtime.core.value_kinds import (
    Q_BYTES,
    Q_F64,
    Q_NULL,
    Q_SIGNED_UNLESS,
    Q_STR,
    Q_UVARINT,
)
from runtime.formats.craft_chunks import _I64, U64
from runtime.formats.craft_events import (
    EVENT_DDL,
    EVENT_RESOLVED,
    EVENT_ROW,
    GROUP_NEW,
    GROUP_OLD,
    _Parts,
)
from runtime.formats.ticdc import (
    Column,
    DdlEvent,
    Event,
    ResolvedEvent,
    RowChangedEvent,
)


class _GiveUp(Exception):
    """The quick mapping met something it leaves to the checked one."""


def _give_up(*_fault):
    """The quick path's ``fail`` of the spec's mapping: any fault goes to the checked path."""
    raise _GiveUp


def _quick_events(model, kinds, mapping) -> list[Event]:
    """The events of a parsed frame (read with the spec's rules: rows are not mixed with
    other events, a row body has groups), when everything in it is as the reference writes it
    (no error bookkeeping: anything else raises, and the caller maps the frame again with
    the checks of the construct path, which raise the exact error or decode the rest).
    ``kinds``: the values' :class:`runtime.core.value_kinds.ValueKinds`; ``mapping``: the
    spec's ``map:``, run with :func:`_give_up`."""
    return mapping(model, _give_up, kinds.quick_values)


# -------------------------------------------------------------------------------------
# The quick mapping of events to parts (what _event_parts makes of them)
# -------------------------------------------------------------------------------------
# Like _quick_events it never reports an error: an event it is not sure about (a type it
# does not expect exactly, a value out of range) goes to the checked _event_parts, which
# encodes it or raises the precise EncodeError. Tests hold both to the same bytes. The
# parts then become a frame (_assemble) that the spec's ``frame`` record builds.
_write_uvarint = write_uvarint


def _uvb(v: int) -> bytes:
    return _SMALL_BYTES[v] if v < 0x80 else _write_uvarint(v)


def _zzb(v: int) -> bytes:
    """ZigZag varint of an int64."""
    v = (v << 1) ^ (v >> 63)
    return _SMALL_BYTES[v] if v < 0x80 else _write_uvarint(v)


_SMALL_BYTES = [bytes((i,)) for i in range(128)]


def _quick_parts(ev, kinds):
    """:func:`_event_parts` for the events it is sure about, else None."""
    cls = type(ev)
    if cls is not RowChangedEvent and cls is not DdlEvent and cls is not ResolvedEvent:
        return None
    ts = ev.commit_ts
    if type(ts) is not int or not 0 <= ts <= U64:
        return None
    quick, mask = kinds.quick, kinds.unsigned
    p = _Parts()
    p.commit_ts = ts
    p.partition = -1
    if cls is ResolvedEvent:
        p.type, p.schema, p.table, p.body, p.estimate = EVENT_RESOLVED, None, None, None, 32
        return p
    schema, table = ev.schema, ev.table
    if (schema is not None and type(schema) is not str) or (
        table is not None and type(table) is not str
    ):
        return None
    p.schema, p.table = schema, table  # "" is written as -1, as the spec's ref: says
    estimate = 32 + (len(schema.encode("utf-8", "surrogateescape")) if schema else 0)
    estimate += len(table.encode("utf-8", "surrogateescape")) if table else 0
    if cls is DdlEvent:
        ddl_type = ev.ddl_type
        if type(ddl_type) is not int or not 0 <= ddl_type <= U64 or type(ev.query) is not str:
            return None
        p.type, p.estimate = EVENT_DDL, estimate
        p.body = Container(ddl_type=ddl_type, query=ev.query)
        return p
    if cls is not RowChangedEvent:
        return None
    part = ev.partition
    if part is not None:
        if type(part) is not int or not 0 <= part < _I64:
            return None
        p.partition = part
    groups = []
    for group_type, columns in ((GROUP_NEW, ev.new), (GROUP_OLD, ev.old)):
        if columns is None:
            continue
        if type(columns) is not list:
            return None
        names, types, flags, values = [], [], [], []
        for col in columns:
            if type(col) is not Column:
                return None
            name, code, fl, v = col.name, col.type, col.flags, col.value
            if type(name) is not str or type(code) is not int or type(fl) is not int:
                return None
            kind = quick[code] if 0 <= code < 256 else None
            if kind is None or not 0 <= fl <= U64:
                return None
            if v is None:
                raw = None
            elif kind == Q_BYTES:
                if type(v) is not bytes:
                    return None
                raw = v
            elif kind == Q_STR:
                if type(v) is not str:
                    return None
                raw = v.encode("utf-8", "surrogateescape")
            elif kind == Q_F64:
                if type(v) is not float:
                    return None
                raw = kinds.double.pack(v)
            elif kind == Q_NULL or type(v) is not int:
                return None
            elif kind == Q_UVARINT or (kind == Q_SIGNED_UNLESS and fl & mask):
                if not 0 <= v <= U64:
                    return None
                raw = _uvb(v)
            else:
                if not -_I64 <= v < _I64:
                    return None
                raw = _zzb(v)
            estimate += (len(name.encode("utf-8", "surrogateescape")) if name else 0) + 16
            if raw:
                estimate += len(raw)
            names.append(name)
            types.append(code)
            flags.append(fl)
            values.append(raw)
        groups.append((group_type, names, types, flags, values))
    if not groups:
        return None
    p.type, p.body, p.estimate = EVENT_ROW, groups, estimate
    return p
