"""TiCDC Craft frames -> :mod:`runtime.formats.ticdc` events, with every check and its
exact error. The events (their classes, rules, header fields, and a row's column groups:
their types, their names' term ids, their values decoded by the type-code table) are the
spec's ``map:`` of ``message`` (``mapping``: the generated ``MAPPINGS["message"]``), which
this module runs with the offsets and paths of its errors (:class:`_Faults`); what term
ids mean (their range, -1, the empty name, the interning order on build) is the spec's
``ref:`` fields and the ``interned:`` order of the term dictionary (``terms``, a
:class:`runtime.core.refs.Dictionary`). Here: those errors and the spans for ``wirespec
inspect``. The way back (events -> frames) is the spec's too: the generated
``UNMAPPINGS["message"]`` (:mod:`runtime.core.unmap`).

This is the checked path: the quick one (:mod:`runtime.formats.craft_quick`) gives up to
it wherever it is unsure, so every error comes from here.

    >>> from generated.ticdc_craft import frame, VALUE_DECODERS, DICTIONARIES, MAPPINGS
    >>> from runtime.core.limits import DEFAULT
    >>> data = bytes.fromhex("018180e0bb9bb6def10503010101021a19010005")
    >>> terms, kinds = DICTIONARIES["frame.term_dictionary"], VALUE_DECODERS["column_group.values"]
    >>> _read_frame(frame, terms, MAPPINGS["message"], kinds, data, DEFAULT)
    [ResolvedEvent(commit_ts=424316594097225729)]
"""

from __future__ import annotations

import io
from itertools import accumulate as _accumulate

from construct import ConstructError

from runtime.core.chunks import Chunk, CountedChunks, _at, _record_payloads, _record_varints
from runtime.core.errors import DecodeError, EncodeError
from runtime.core.leb128 import read_reversed_uvarint, read_uvarint, skip_varints
from runtime.formats.ticdc import Event
from runtime.formats.ticdc_json import text_or_hex

EVENT_ROW, EVENT_DDL, EVENT_RESOLVED = 1, 2, 3
GROUP_NEW, GROUP_OLD = 1, 2


# -------------------------------------------------------------------------------------
# Whole messages
# -------------------------------------------------------------------------------------
class _Path:
    """``with _Path("bodies", 3):`` prepends ``bodies[3]`` to the path of an escaping error."""

    __slots__ = ("index", "name")

    def __init__(self, name, index=None):
        self.name, self.index = name, index

    def __enter__(self):
        return self

    def __exit__(self, kind, err, tb):
        if isinstance(err, (DecodeError, EncodeError)):
            err.add_path(self.name, index=self.index)
        return False


def _read_frame(frame, terms, mapping, kinds, buf, limits, spans=None) -> list[Event]:
    """Parse a message with the spec's ``frame`` record, then map it to its events with
    every check (``terms``: the spec's term dictionary and its refs; ``mapping``: the spec's
    ``map:``; ``kinds``: the values' :class:`runtime.core.value_kinds.ValueKinds`).

    ``spans`` (a :class:`runtime.core.spans.SpanRecorder`, for ``wirespec inspect``) gets the
    byte range of every field, element by element, with names and values resolved: each
    region is re-walked by the ``_record_*`` functions once it has been checked (all but
    the values, whose errors come last), so the untraced path pays nothing."""
    limits.check("max_message_bytes", len(buf), offset=0)
    model = None
    try:
        model = _parse_frame(frame, buf, limits)
        events = _checked_events(buf, model, kinds, terms, mapping)
    except DecodeError as err:
        if spans is not None:  # show the fields read before the error, as the frame has them
            if model is not None and err.path.startswith("events"):  # a value's error
                _record_frame(spans, buf, model, kinds, terms)
            else:
                _parse_frame(frame, buf, limits, spans)
        raise
    if spans is not None:
        _record_frame(spans, buf, model, kinds, terms)
    return events


def _checked_events(buf, model, kinds, terms, mapping) -> list[Event]:
    """The events of a parsed frame: the spec's mapping run with the exact errors."""
    return mapping(model, _Faults(buf, model, terms, kinds), kinds.decode_all)


def _parse_frame(frame, buf, limits, spans=None):
    stream = io.BytesIO(buf)
    extra = {} if spans is None else {"spans": spans}
    try:
        return frame.parse_stream(stream, limits=limits, **extra)
    except ConstructError as err:
        raise DecodeError(str(err), offset=stream.tell()) from None


class _Layout:
    """Where the parts of a parsed frame start (its size tables say it)."""

    def __init__(self, buf, model):
        tables = model.size_tables
        _, self.header_start = read_uvarint(buf, 0)
        self.tail = read_reversed_uvarint(buf, len(buf))[1]
        self.tables_start = self.tail - model.size_tables_length
        self.header_end = self.header_start + tables[0][0]
        self.body_starts = list(_accumulate(tables[1][:-1], initial=self.header_end))
        self.dict_start = self.tables_start - tables[0][1]


_HEADER_CHUNKS = ("commit_ts", "type", "partition", "schema", "table")
"""The header's chunks in wire order, each of N varints (the spec's ``header`` record)."""


class _Faults:
    """The ``fail`` the spec's mapping calls on a fault: raises its DecodeError at the
    offset of ``path`` (a header chunk's element, a column group's type or name id, or
    ``into`` set: the values of a group, the error of its first bad column) and with its
    path; ``message`` None: the ref's message, else ``{value}`` in it is the element."""

    def __init__(self, buf, model, terms, kinds):
        self.buf, self.model, self.terms, self.kinds = buf, model, terms, kinds

    def __call__(self, path: tuple, message: str | None = None, into: str | None = None):
        buf, model = self.buf, self.model
        at = _Layout(buf, model)
        if path[0] == "header":
            _, name, i = path
            start = skip_varints(
                buf, at.header_start, len(model.size_tables[1]) * _HEADER_CHUNKS.index(name)
            )
            raise _at(_bad_element(self.message(path, message), buf, start, i, name), "header")
        _, i, _, g, field, *element = path
        pos = at.body_starts[i] + sum(model.size_tables[2 + i][:g])
        where = ("bodies", i, "column_groups", g)
        if field == "type":
            raise _at_path(DecodeError(self.message(path, message), offset=pos), *where, field)
        group = model.bodies[i].column_groups[g]
        count, names_pos = read_uvarint(buf, pos + 1)
        if field == "names":
            err = _bad_element(self.message(path, message), buf, names_pos, element[0], field)
            raise _at_path(err, *where)
        types_pos = skip_varints(buf, names_pos, count)
        err = _value_error(
            group, buf, self.kinds, types_pos, skip_varints(buf, types_pos, 2 * count)
        )
        raise _at(_at(err, into), "events", i)

    def message(self, path: tuple, message: str | None) -> str:
        value = self.model
        for part in path:
            value = value[part] if isinstance(part, int) else getattr(value, part)
        if message is not None:
            return message.replace("{value}", f"{value}")
        key = ""
        for part in path[:-1]:
            key += "[*]" if isinstance(part, int) else ("." if key else "") + part
        return self.terms.ref(key).problem(value, self.model.term_dictionary, self.terms.noun)


def _value_error(group, buf, kinds, types_pos, values_pos) -> DecodeError:
    """The error of the first column of ``group`` whose value does not decode: at its type
    code (unknown) or in its value bytes."""
    types, flags, raws = group.types, group.flags, group.values
    for j in range(len(raws)):
        try:
            kinds.decode(types[j], flags[j], raws[j])
        except DecodeError as err:
            if err.message.startswith("unknown column type"):
                err = DecodeError(err.message, offset=skip_varints(buf, types_pos, j))
                return _at(_at(err, "type"), None, j)
            # Value bytes start after all the lengths and the earlier non-NULL values.
            base = skip_varints(buf, values_pos, len(raws))
            err.shift(base + sum(len(r) for r in raws[:j] if r is not None))
            return _at(_at(err, "value"), None, j)
    raise AssertionError("decode_all refused values that decode")  # pragma: no cover


def _bad_element(message, buf, chunk_start, i, name):
    """A DecodeError at element ``i`` of the varint chunk starting at ``chunk_start``."""
    return _at(DecodeError(message, offset=skip_varints(buf, chunk_start, i)), name, index=i)


def _at_path(err, *parts):
    """Prefix ``err``'s path with ``parts`` (names and list indices, outermost first)."""
    for part in reversed(parts):
        if isinstance(part, int):
            err.add_path(index=part)
        else:
            err.add_path(part)
    return err


def _record_frame(spans, buf, model, kinds, dictionary) -> None:
    terms, tables, at = model.term_dictionary, model.size_tables, _Layout(buf, model)

    def labels(ids):  # the names of term ids, as the spec's dictionary shows them
        return dictionary.labels(ids, terms)

    _region(spans, "version", 0, at.header_start, model.version)
    _record_header(spans, buf, at.header_start, at.header_end, model.header, labels)
    spans.open("bodies", at.header_end)
    for i, body in enumerate(model.bodies):
        b_end = at.body_starts[i] + tables[1][i]
        _record_body(spans, buf, i, at.body_starts[i], b_end, body, labels, kinds)
    spans.close(at.dict_start, model.bodies)
    _TERMS.record(spans, buf, "term_dictionary", at.dict_start, at.tables_start, terms)
    _SIZE_TABLES.record(spans, buf, "size_tables", at.tables_start, at.tail, tables)
    spans.open("size_tables_length", at.tail)
    spans.mark(at.tail, len(buf), "reversed length", model.size_tables_length)
    spans.close(len(buf), model.size_tables_length)


_TERMS = CountedChunks(Chunk(0, payload=True, encoding="utf-8"), noun="term")
_SIZE_TABLES = CountedChunks(Chunk(0, zigzag=True, delta=True), repeated=True)
"""The frame's regions as the spec's ``term_dictionary`` and ``size_tables`` types read them."""


def _region(spans, key, start: int, end: int, value) -> None:
    spans.open(key, start)
    spans.close(end, value)


# -- field spans of the frame for ``wirespec inspect`` (the chunks' own: runtime.core.chunks)
def _record_header(spans, buf, pos, end, header, labels):
    spans.open("header", pos)
    pos = _record_varints(spans, buf, "commit_ts", pos, header.commit_ts, delta=True)
    pos = _record_varints(spans, buf, "type", pos, header.type)
    pos = _record_varints(spans, buf, "partition", pos, header.partition, True, True)
    for name in ("schema", "table"):
        ids = header[name]
        pos = _record_varints(spans, buf, name, pos, ids, True, True, labels(ids))
    spans.close(end, header)


def _record_body(spans, buf, i, pos, end, body, labels, kinds):
    spans.open(i, pos)
    if body.query is not None:
        _, p = read_uvarint(buf, pos)
        _region(spans, "ddl_type", pos, p, body.ddl_type)
        pos = p
        spans.open("query", pos)
        ln, p = read_uvarint(buf, pos)
        spans.mark(pos, p, "length", ln)
        spans.close(end, body.query)
    elif body.column_groups is not None:
        spans.open("column_groups", pos)
        for g, group in enumerate(body.column_groups):
            pos = _record_group(spans, buf, g, pos, group, labels, kinds)
        spans.close(end, body.column_groups)
    spans.close(end, body)


def _record_group(spans, buf, g, pos, group, labels, kinds):
    spans.open(g, pos)
    spans.open("type", pos)
    spans.close(pos + 1, group.type)
    n, p = read_uvarint(buf, pos + 1)
    spans.mark(pos + 1, p, "count", n)
    names = labels(group.names)
    p = _record_varints(spans, buf, "names", p, group.names, True, True, names)
    p = _record_varints(spans, buf, "types", p, group.types, labels=names)
    p = _record_varints(spans, buf, "flags", p, group.flags, labels=names)
    raw = group.values
    lengths = [-1 if v is None else len(v) for v in raw]
    p = _record_varints(spans, buf, "value_lengths", p, lengths, labels=names)
    shown = [
        _shown_value(code, flag, v, kinds)
        for code, flag, v in zip(group.types, group.flags, raw, strict=True)
    ]
    p = _record_payloads(spans, "values", p, lengths, shown, names)
    spans.close(p, group)
    return p


def _shown_value(code, flags, raw, kinds):
    """The typed value of a column for the dump, or its raw bytes when it cannot be typed
    (no table given, or bytes the event model would reject: that error comes later)."""
    if raw is None or kinds is None:
        return raw
    try:
        value = kinds.decode(code, flags, raw)
    except DecodeError:
        return raw
    if isinstance(value, bytes):  # a text column's bytes as its text (runtime.formats.ticdc_json)
        shown = text_or_hex(value, flags)
        return shown if isinstance(shown, str) else value
    return value
