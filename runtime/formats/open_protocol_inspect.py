"""``wirespec inspect`` for TiCDC Open Protocol: the byte spans of a Kafka key and value,
member by member (nothing here runs when decoding normally).

    >>> from generated.ticdc_open_protocol import _KAFKA
    >>> key = bytes.fromhex("0000000000000001" "000000000000000e") + b'{"ts":1,"t":3}'
    >>> key_trace, value_trace = trace_pair(_KAFKA, key, bytes(8))
    >>> [c.key for c in key_trace.root.children]
    ['version', 'events']
"""

from __future__ import annotations

from runtime.core.errors import DecodeError
from runtime.formats import gojson
from runtime.formats.open_protocol import OpenProtocol
from runtime.formats.open_protocol_frames import _U64


def trace_pair(codec: OpenProtocol, key: bytes, value: bytes, **limits):
    """The byte spans of one Kafka message, for ``wirespec inspect``: a
    :class:`runtime.core.spans.Trace` for the key and one for the value.

    The key's spans are ``version``, then per event ``events[i]`` (its u64 length) and
    ``events[i].key`` with one node per JSON member (``events[i].key.ts``); the value's
    are ``events[i]`` and ``events[i].value`` (``events[i].value.u.<column>.v``, ``.q``).
    Member names are ``key`` marks, JSON punctuation ``syntax`` marks
    (:mod:`runtime.formats.json_spans`), so each stream's leaves cover every byte once. The
    model and the error are those of :meth:`OpenProtocol.parse_pair` (the walk is only
    for the spans); the error lands on the trace of the stream its path names.
    Nothing here runs when decoding normally.
    """
    from runtime.core.spans import SpanRecorder, Trace
    from runtime.formats import json_spans

    key, value = bytes(key), bytes(value)
    model = error = None
    try:
        model = codec.parse_pair(key, value, **limits)
    except DecodeError as err:
        error = err
    traces = []
    for stream, data in (("key", key), ("value", value)):
        rec = SpanRecorder()
        pos = 0
        if stream == "key" and len(data) >= 8:
            rec.open("version", 0)
            rec.close(8, _U64.unpack_from(data, 0)[0])
            pos = 8
        complete = stream == "value" or len(data) >= 8
        index = 0
        events = rec.open("events", pos)
        while pos < len(data):
            if len(data) - pos < 8:
                complete = False
                break
            (length,) = _U64.unpack_from(data, pos)
            if length > len(data) - pos - 8:
                complete = False
                break
            rec.open(index, pos)
            rec.mark(pos, pos + 8, "length", length)
            start, end = pos + 8, pos + 8 + length
            rec.open(stream, start)
            doc = data[start:end]
            json_spans.report(rec, doc, start)  # False: the document stays one leaf
            rec.close(end, _doc_value(doc))
            event = model.events[index] if model is not None else None
            rec.close(end, event)
            pos = end
            index += 1
        rec.close(pos, model.events if model is not None else None)
        if not events.children:
            rec.root.children.remove(events)
        result = Trace(data, rec.root, model=model)
        if complete:
            rec.root.end = len(data)
            rec.root.value = model
        traces.append(result)
    if error is not None:
        where = error.path or ""
        on_key = where == "version" or ".key" in where.split("]", 1)[-1][:4]
        traces[0 if on_key else 1].error = error
        for t in traces:
            t.model = None
    return traces[0], traces[1]


def _doc_value(doc: bytes):
    try:
        return gojson.loads(doc) if doc else b""
    except DecodeError:
        return doc
