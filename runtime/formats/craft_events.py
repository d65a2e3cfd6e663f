"""TiCDC Craft frames -> TiCDC events (``generated.models.ticdc_types``), with every check and its
exact error. The events (their classes, rules, header fields, and a row's column groups:
their types, their names' term ids, their values decoded by the type-code table) are the
spec's ``map:`` of ``message`` (``mapping``: the generated ``MAPPINGS["message"]``), which
this module runs with the offsets and paths of its errors (:class:`_Faults`); what term
ids mean (their range, -1, the empty name, the interning order on build) is the spec's
``ref:`` fields and the ``interned:`` order of the term dictionary (``terms``, a
:class:`runtime.core.refs.Dictionary`). Here: those errors and the spans for ``wirespec
inspect``. The way back (events -> frames) is the spec's too: the generated
``UNMAPPINGS["message"]`` (:mod:`runtime.core.unmap`).

This is the checked path: the quick one (the same mapping run with
:func:`runtime.core.unmap.give_up`) gives up to it wherever it is unsure, so every error
comes from here.

    >>> from generated.ticdc_craft import frame, VALUE_DECODERS, DICTIONARIES, MAPPINGS
    >>> from runtime.core.limits import DEFAULT
    >>> data = bytes.fromhex("018180e0bb9bb6def10503010101021a19010005")
    >>> terms, kinds = DICTIONARIES["frame.term_dictionary"], VALUE_DECODERS["column_group.values"]
    >>> _read_frame(frame, terms, MAPPINGS["message"], kinds, data, DEFAULT)
    [ResolvedEvent(commit_ts=424316594097225729)]
"""

from __future__ import annotations

import io

from construct import ConstructError

from runtime.core.chunks import _at
from runtime.core.codec import text_or_hex
from runtime.core.errors import DecodeError, EncodeError
from runtime.core.limits import Limits
from runtime.core.spans import SpanRecorder
from runtime.formats.ticdc_rows import FLAG_BINARY


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


def _read_frame(frame, terms, mapping, kinds, buf, limits, spans=None) -> list:
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
        events = _checked_events(frame, buf, model, kinds, terms, mapping)
    except DecodeError as err:
        if spans is not None:  # show the fields read before the error, as the frame has them
            if model is not None and err.path.startswith("events"):  # a value's error
                _record_frame(spans, frame, buf, limits, model, kinds, terms)
            else:
                _parse_frame(frame, buf, limits, spans)
        raise
    if spans is not None:
        _record_frame(spans, frame, buf, limits, model, kinds, terms)
    return events


def _checked_events(frame, buf, model, kinds, terms, mapping) -> list:
    """The events of a frame parsed from ``buf`` (with ``frame``, or as it does): the spec's
    mapping run with the exact errors."""
    return mapping(model, _Faults(frame, buf, model, terms, kinds), kinds.decode_all)


def _parse_frame(frame, buf, limits, spans=None):
    stream = io.BytesIO(buf)
    extra = {} if spans is None else {"spans": spans}
    try:
        return frame.parse_stream(stream, limits=limits, **extra)
    except ConstructError as err:
        raise DecodeError(str(err), offset=stream.tell()) from None


class _Faults:
    """The ``fail`` the spec's mapping calls on a fault: raises its DecodeError at the
    offset of ``path`` in the frame and with that path (a header chunk's element, a column
    group's type or name id), or, ``into`` set, the error of the first column of that
    group whose value does not decode; ``message`` None: the ref's message, else
    ``{value}`` in it is the element. The offsets are the frame's own spans: the frame
    parsed once more with a recorder (``wirespec inspect``'s), only when an error is
    raised."""

    def __init__(self, frame, buf, model, terms, kinds):
        self.frame, self.buf, self.model, self.terms, self.kinds = frame, buf, model, terms, kinds

    def __call__(self, path: tuple, message: str | None = None, into: str | None = None):
        spans, room = SpanRecorder(), len(self.buf)  # read within no tighter limits than that
        limits = Limits(max_message_bytes=room, max_count=room, max_string=room)
        _parse_frame(self.frame, self.buf, limits, spans)
        if into is None:
            at = spans.root.find(*path).start
            raise _at_path(DecodeError(self.message(path, message), offset=at), *path)
        _, i, _, g = path[:4]
        group = self.model.bodies[i].column_groups[g]
        err = _value_error(group, spans.root.find(*path[:4]), self.kinds)
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


def _value_error(group, node, kinds) -> DecodeError:
    """The error of the first column of ``group`` (its spans ``node``) whose value does not
    decode: at its type code (unknown) or in its value bytes."""
    types, flags, raws = group.types, group.flags, group.values
    for j in range(len(raws)):
        try:
            kinds.decode(types[j], flags[j], raws[j])
        except DecodeError as err:
            if err.message.startswith("unknown column type"):
                err = DecodeError(err.message, offset=node.find("types", j).start)
                return _at(_at(err, "type"), None, j)
            err.shift(node.find("values", "payloads", j).start)
            return _at(_at(err, "value"), None, j)
    raise AssertionError("decode_all refused values that decode")  # pragma: no cover


def _at_path(err, *parts):
    """Prefix ``err``'s path with ``parts`` (names and list indices, outermost first)."""
    for part in reversed(parts):
        if isinstance(part, int):
            err.add_path(index=part)
        else:
            err.add_path(part)
    return err


def _record_frame(spans, frame, buf, limits, model, kinds, dictionary) -> None:
    """The frame's own spans (its trace), with what the events add: the names of term ids
    and of a row's columns beside their elements, the values typed, a group's count a mark
    of it and its value chunk's lengths and payloads its ``value_lengths`` and ``values``."""
    _parse_frame(frame, buf, limits, spans)
    node = spans.current

    def labels(ids):  # the names of term ids, as the spec's dictionary shows them
        return dictionary.labels(ids, model.term_dictionary)

    for name in ("schema", "table"):
        _label(node.find("header", name), labels(model.header[name]))
    tail = node.find("size_tables_length")
    tail.marks = [(tail.start, tail.end, "reversed length", tail.value)]
    for i, body in enumerate(model.bodies):
        for g, group in enumerate(body.column_groups or ()):
            _record_group(node.find("bodies", i, "column_groups", g), group, labels, kinds)


def _record_group(node, group, labels, kinds) -> None:
    count = node.find("count")
    node.children.remove(count)
    node.marks.append((count.start, count.end, "count", count.value))
    names = labels(group.names)
    for key in ("names", "types", "flags"):
        _label(node.find(key), names)
    values = node.find("values")
    node.children.remove(values)
    lengths, payloads = values.find("lengths"), values.find("payloads")
    lengths.key, payloads.key = "value_lengths", "values"
    for child in (lengths, payloads):
        child.parent = node
        node.children.append(child)
    payloads.value = [
        _shown_value(code, flag, v, kinds)
        for code, flag, v in zip(group.types, group.flags, group.values, strict=True)
    ]
    for child in payloads.children:
        child.value = payloads.value[child.key]
    _label(lengths, names)
    _label(payloads, names)


def _label(node, labels) -> None:
    """Prefix the role of each element of a chunk's ``node`` with its label (a name)."""
    for child in node.children:
        label = labels[child.key]
        if label is None:
            continue
        roles = child.marks or [(child.start, child.end, "", child.value)]
        child.marks = [(a, b, f"{label}: {role}".rstrip(), child.value) for a, b, role, _ in roles]


def _shown_value(code, flags, raw, kinds):
    """The typed value of a column for the dump, or its raw bytes when it cannot be typed
    (no table given, or bytes the event model would reject: that error comes later)."""
    if raw is None or kinds is None:
        return raw
    try:
        value = kinds.decode(code, flags, raw)
    except DecodeError:
        return raw
    if isinstance(value, bytes):  # a text column's bytes as its text (ticdc_types' json:)
        shown = text_or_hex(value, flags & FLAG_BINARY)
        return shown if isinstance(shown, str) else value
    return value
