"""TiCDC Open Protocol: Kafka key/value pairs <-> TiCDC events (``generated.models.ticdc_types``).

One Kafka message is one batch. What the bytes mean is declared in
``specs/ticdc_open_protocol.yaml``: the framing as records, the JSON documents (key order,
omission, types, the event field each key carries) as its ``json:`` section, and how each
column type's ``v`` is rendered as the ``column_type.rendering`` enum attribute, whose
kinds say it in JSON value types. The generated module renders each document's members
and the column values as code (``read_event_key``, ``write_row_value``,
``read_column_value``, ...: ``JSON_CODE``), the ``kafka_message:``'s ``classes:``
(``EVENT_CLASSES``: which model and value document each event type is, and its JSON
form) and its ``batch:``
(``_batch_message``: how events share a message) and hands them, with the tables, to
:class:`OpenProtocol`, which frames and detects the layout; this module hard-codes no
document layout, no event or column type table, no value rendering and no batching rule.

    >>> from generated.ticdc_open_protocol import decode_message, encode_events
    >>> key = bytes.fromhex("0000000000000001" "000000000000001f") + b'{"ts":415508856908021766,"t":3}'
    >>> decode_message(key, bytes(8))
    [ResolvedEvent(commit_ts=415508856908021766)]
    >>> [(k == key, v) for k, v in encode_events(decode_message(key, bytes(8)))]
    [(True, b'\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00')]

Decoding accepts every layout TiCDC has written: tiflow's (HTML-escaped Go
``encoding/json``, columns sorted bytewise), the 2020 legacy layout (no ``f``; VARCHAR
and CHAR bytes in base64), and the pingcap/ticdc rewrite (other key order, no HTML
escaping, columns in table order). :meth:`OpenProtocol.parse_pair` tells tiflow from
legacy per message and keeps it in :class:`Message`, so ``build_pair(parse_pair(k, v))``
gives back the same bytes for both; encoding writes tiflow's bytes (Go >= 1.22) or the
2020 ones (``layout="legacy"``).

Errors name the stream offset where the failing frame or JSON document starts (or the
byte where JSON parsing stopped) and a path such as ``events[1].value.u.id.v``.

The codec's parts live by concept beside it: :mod:`runtime.formats.open_protocol_frames`
(the u64-framed key and value; how events are batched is the spec's ``batch:``, rendered
into the generated module as ``_batch_message``), :mod:`runtime.formats.open_protocol_json`
(the per-member checks, errors and renderings the generated document code calls) and
:mod:`runtime.formats.open_protocol_inspect` (byte spans for ``wirespec inspect``).
"""

from __future__ import annotations

import dataclasses
import math
import struct
import types
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import NamedTuple

from construct import Construct, SizeofError

from runtime.core import tier
from runtime.core.codec import bytes_from_json, refuse_unknown_keys
from runtime.core.errors import DecodeError, EncodeError
from runtime.core.event_messages import KeyValueMessages
from runtime.core.limits import DEFAULT as DEFAULT_LIMITS
from runtime.core.limits import Limits
from runtime.core.limits import current as current_limits
from runtime.formats import gojson
from runtime.formats.gojson import JsonDocument, JsonKey
from runtime.formats.open_protocol_frames import ESCAPES, _escapes, join_frames, split_frames
from runtime.formats.open_protocol_json import (
    _BOUNDS,
    INT64,
    UINT64,
    _canonical_b64,
    _check_str,
    _dict,
    _int_json,
    _load,
    _object,
    _value_from,
    fail,
    float64_in,
    str_in,
)
from runtime.formats.ticdc_rows import spark_schema as _ticdc_spark_schema
from runtime.formats.ticdc_rows import to_row as _ticdc_to_row

LAYOUTS = ("tiflow", "legacy")
"""``tiflow``: today's bytes (Go >= 1.22). ``legacy``: TiCDC 4.0 (2020): no ``f``, VARCHAR
and CHAR in base64, Go < 1.22 escapes."""

_INT, _STRING, _TEXT, _FLOAT64, _BASE64 = (object() for _ in range(5))
_QUICK = {
    frozenset({("type", "s64"), ("unsigned", "u64"), ("text", "str")}): _INT,
    frozenset({("type", "utf8"), ("binary", "quoted")}): _STRING,
    frozenset({("type", "str")}): _TEXT,
    frozenset({("type", "f64")}): _FLOAT64,
    frozenset({("type", "base64")}): _BASE64,
}
"""The tiflow readings (:func:`_tiflow_reading`) :meth:`OpenProtocol._tiflow_columns` checks
inline, by the tag it knows them by (no kind's name: a kind is what the spec declares)."""
_COMPILED = tier.compiled("runtime._compiled.open_protocol")
"""The compiled JSON kernel of the common form (None: pure Python); see
:meth:`OpenProtocol.bind_compiled_pair`."""
_MESSAGE_KEYS = frozenset(["claim_check_form", "escapes", "events", "layout", "wire_form"])
"""The keys of a message's JSON form (:meth:`KafkaCodec.to_dict`'s)."""


LAYOUT_ESCAPES = {"tiflow": "short", "legacy": "unicode"}
"""The escapes of each layout's newest writer: what a message is written in by default."""


class EventClass(NamedTuple):
    """One of the spec's ``kafka_message: classes:`` (the generated ``EVENT_CLASSES``): the
    event-type member (the key's ``t``), the model, the value document's name, ``read(fields,
    obj, columns, state)`` (the model of the key's fields and the value document),
    ``write(ev, column_map, layout, go122)`` (the key and value JSON text), and its JSON
    form both ways, ``to_json(ev, image)`` and ``from_json(d, image)`` (``image``: the
    codec's of a row section)."""

    member: int
    model: type
    document: str
    read: Callable
    write: Callable
    to_json: Callable
    from_json: Callable


@dataclasses.dataclass
class Message:
    """One Kafka message: its events in order, the layout they were written in and the
    escapes its Go wrote U+0008 and U+000C with (:data:`ESCAPES`), when those are not the
    layout's own (:data:`LAYOUT_ESCAPES`; None: the layout's own, or the message has
    neither character).

    ``wire_form`` is the Kafka key and value the message was read from (parse keeps them
    as they came, without a copy), ``claim_check_form`` the claim-check object's text
    when it is not what :class:`ClaimCheck` writes. Go's ``encoding/json`` reads more
    than it writes (spaces, any key order, escapes such as ``\\u0041`` and ``\\/``,
    invalid UTF-8, keys it does not know, a duplicate key, number forms such as ``1.0``),
    so build writes the kept bytes back where they are not what it would write and the
    model still reads as them (:meth:`OpenProtocol.build_pair`); a changed model, or one
    made by hand (None), is written as tiflow writes it. Neither takes part in ``==``.
    """

    events: list
    layout: str = "tiflow"
    escapes: str | None = None
    wire_form: tuple[bytes, bytes] | None = dataclasses.field(
        default=None, compare=False, repr=False
    )
    claim_check_form: bytes | None = dataclasses.field(default=None, compare=False, repr=False)


# ---------------------------------------------------------------------------- the codec


class OpenProtocol(KeyValueMessages):
    """The Open Protocol codec over a spec's tables (built once by the generated module).

    ``documents`` are the spec's ``json:`` documents (``event_key``, ``row_value``,
    ``ddl_value`` and the column document the row value's maps hold); ``code`` their
    readers and writers, rendered from them into the generated module (``JSON_CODE``:
    ``read_event_key``, ``write_row_value``, ...), which read and write every document's
    members, and the column values by the kinds of the spec's rendering attribute
    (``read_column_value``). The tables here serve the fast column reader (the column
    document's ``any`` key names the ``rendering`` table and its ``kinds``, its
    ``bit``/``layouts`` keys the handle flag and the tiflow-only ``f``) and the compiled
    tier's kernel. ``classes`` are the spec's ``classes:`` (:class:`EventClass`): which model
    and value document each event type is. ``batch`` is the spec's rendered ``batch:``
    (``encode_events``). ``key`` names the document of an event's Kafka key (the one the
    spec's ``class_by:`` reads the event type from). ``models`` is the module of the event
    classes (``generated.models.ticdc_types``): the classes' models, and the ``Column`` of their
    row images; ``image_json`` the generated ``_IMAGE_JSON`` (how a row image's columns
    show in the JSON form: ``specs/ticdc_types.yaml``'s ``json:``; None: no JSON form).
    What is no format's own (the kept key and value, ``decode_message``, ``encode_events``)
    is :class:`runtime.core.event_messages.KeyValueMessages`'.
    """

    def __init__(
        self,
        documents: Mapping[str, JsonDocument],
        code: Mapping[str, Callable],
        classes: Iterable[EventClass],
        batch: Callable | None = None,
        *,
        key: str,
        models,
        image_json=None,
    ):
        self.documents = dict(documents)
        # the columns' JSON form: (to_json(columns, value), views of type and flags)
        self._image_json, self._views = image_json or (None, None)
        self.models = models
        self.column = models.Column
        self.batch = batch  # encode_events: the spec's batch:
        self._writers = {layout: _Writer(self, layout) for layout in LAYOUTS}
        self._read_key = code[f"read_{key}"]
        self._read_column, self._write_column = code["read_column"], code["write_column"]
        self._read_value = code["read_column_value"]
        self.key_doc = self.documents[key]
        self.classes = {int(c.member): c for c in classes}
        self._class_of = {c.model: c for c in self.classes.values()}
        self._class_named = {c.member.name.lower(): c for c in self.classes.values()}
        values = {code: self.documents[c.document] for code, c in self.classes.items()}
        self._bare = {code for code, doc in values.items() if not doc.keys}  # empty values
        self._rows = {code for code, doc in values.items() if doc.key("map")}  # row sections
        self.row_doc = next(values[code] for code in self._rows)
        self._check_sections = code[f"check_{self.row_doc.name}_sections"]
        column_doc = self.documents[self.row_doc.key("map").of]
        self.column_doc = column_doc
        self.value_key = column_doc.key("any")
        self.rendering = {int(code): kind for code, kind in self.value_key.rendering.items()}
        self.value_types = {kind: decl["type"] for kind, decl in self.value_key.kinds.items()}
        self.bit_key = column_doc.key("bit")
        self.flags_key = column_doc.key("layouts")
        self.code_key = next(k for k in column_doc.keys if k.field == "type")
        self.handle_bit = self.bit_key.bit if self.bit_key else 0
        self.binary_bit = _flag(self.flags_key, "BINARY")
        self._t, self._f, self._v = self.code_key.name, self.flags_key.name, self.value_key.name
        self._h = self.bit_key.name if self.bit_key else None
        self.unsigned_bit = _flag(self.flags_key, "UNSIGNED")
        self._code_max = _BOUNDS[self.code_key.type][1]
        self._flags_max = _BOUNDS[self.flags_key.type][1]
        # type code -> its tiflow reading (its kind's variants that a column with flags
        # can take): the compiled kernel's table; and the fast column reader's
        # (_tiflow_columns): the reading it checks inline, else the kind
        self._readings = {
            code: _tiflow_reading(self.value_key.kinds[self.rendering.get(code, "raw")])
            for code in range(self._code_max + 1)
        }
        self._kind_of = {
            code: _QUICK.get(reading, self.rendering.get(code, "raw"))
            for code, reading in self._readings.items()
        }
        self._compiled = _compiled_plan(self)
        self._read_pair = self._read_documents = None  # see bind_compiled_pair

    # -- reading -----------------------------------------------------------------------

    def _column(self, name: str, obj, path: str, legacy: list):
        """The checked reading of one column (the generated ``read_column``): every rule,
        with the exact path on failure. ``legacy`` is the message's layout state: [first
        column path, its layout]."""
        obj = _object(obj, path)
        return self.column(name, *self._read_column(obj, path, legacy, self._layout))

    def _layout(self, legacy: list, absent: bool, path: str) -> None:
        """A message is all tiflow (every column has f) or all legacy (none has): the
        layout is the message's, so a mix could not be written back (no reference
        writer produces one)."""
        layout = "legacy" if absent else "tiflow"
        if legacy[1] is None:
            legacy[:] = [path, layout]
        elif legacy[1] != layout:
            raise fail(
                f"column {'has no' if absent else 'has'} {self._f!r} but column "
                f"{legacy[0]!r} {'has' if absent else 'has none'}: a message's columns "
                "are all tiflow (with it) or all legacy (without)",
                path,
            )

    def _columns(self, section: str, cols, legacy: list) -> list:
        """The columns of the row section ``section`` (its map ``cols``, not None), for the
        generated row reader."""
        if type(cols) is dict and legacy[1] != "legacy":
            out = self._tiflow_columns(cols)
            if out is not None:
                if legacy[1] is None and out:
                    legacy[:] = [f"{section}.{out[0].name}", "tiflow"]
                return out
        cols = _object(cols, section)
        prefix = section + "."
        return [self._column(n, c, prefix + n, legacy) for n, c in cols.items()]

    def _tiflow_columns(self, cols: dict) -> list | None:
        """The columns of a well-formed tiflow map, or None for anything else (legacy,
        unusual or wrong), which :meth:`_column` then reads with every check and path.

        Accepts only what :meth:`_column` accepts, with the same result: a column needs
        ``t`` and ``f`` in range, ``v``, and no key but ``h`` (true, with the handle flag)
        besides; the common values are checked inline, the others go through
        :meth:`_value`. This loop is most of the decoding time, hence the locals.
        """
        t_, f_, v_, h_ = self._t, self._f, self._v, self._h
        fmax, handle, kind_of = self._flags_max, self.handle_bit, self._kind_of
        unsigned, binary, column = self.unsigned_bit, self.binary_bit, self.column
        lo, hi, umax = INT64[0], INT64[1], UINT64[1]
        new = object.__new__  # with the four fields set: a third cheaper than the __init__
        out = []
        append = out.append
        try:
            for name, c in cols.items():
                # a c that is no dict raises TypeError, a missing key KeyError
                t, f, v = c[t_], c[f_], c[v_]
                if type(t) is not int or type(f) is not int:
                    return None
                k = kind_of[t]  # the rendering; a code out of range raises KeyError
                if not 0 <= f <= fmax:
                    return None
                if len(c) != 3 and (len(c) != 4 or c.get(h_) is not True or not f & handle):
                    return None
                if v is None:
                    pass
                elif k is _INT:
                    if type(v) is not int or not (
                        (0 <= v <= umax) if f & unsigned else (lo <= v <= hi)
                    ):
                        v = self._read_value(self.rendering.get(t, "raw"), v, f, False, "")
                elif k is _STRING:
                    if type(v) is str and not f & binary:
                        v = v.encode()  # gojson.REPLACED raises: the checked reading
                    else:
                        v = self._read_value(self.rendering.get(t, "raw"), v, f, False, "")
                elif k is _TEXT:
                    if type(v) is not str:
                        v = str_in(v, "")
                elif k is _FLOAT64:
                    if type(v) is not float or v - v != 0.0:  # not a finite float
                        v = float64_in(v, "")
                elif k is _BASE64:
                    v = _canonical_b64(v)
                else:
                    v = self._read_value(self.rendering.get(t, "raw"), v, f, False, "")
                m = new(column)
                m.name = name
                m.type = t
                m.flags = f
                m.value = v
                append(m)
        except (DecodeError, AttributeError, KeyError, TypeError, UnicodeEncodeError):
            return None  # the checked reading names it, or reads gojson.REPLACED
        return out

    def _event(self, key: bytes, value: bytes, frame, legacy: list, replaced: bool):
        """Event ``frame`` of the message; ``replaced``: the message's value holds an
        escaped \\ufffd somewhere (see :func:`_unmark_text`)."""
        ks, ke, vs, ve = frame
        kobj = _load(key, ks, ke, "key")
        try:
            fields = self._read_key(kobj)
            code = fields["type"]
            cls = self.classes[code]
        except DecodeError as err:
            err.shift(ks)
            err.add_path("key")
            raise
        vobj = None
        if code in self._bare:
            if ve != vs:
                name = cls.member.name.lower()
                raise DecodeError(f"a {name} event has no value", offset=vs, path="value")
        else:
            vobj = _load(value, vs, ve, "value", mark_replaced=replaced and code in self._rows)
        try:
            event = cls.read(fields, vobj, self._columns, legacy)
        except DecodeError as err:
            err.shift(vs)
            err.add_path("value")
            raise
        if replaced and code in self._rows:
            _unmark_text(event)
        return event

    def parse_pair(self, key: bytes, value: bytes, **limits) -> Message:
        """The :class:`Message` of one Kafka key and value (layout detected).

        ``limits`` are :class:`runtime.core.limits.Limits` fields (``max_count`` caps the
        events, ``max_message_bytes`` each of key and value). Bad input raises only
        :class:`DecodeError` (or its :class:`LimitError`), with offset and path.
        """
        return self.read_message(
            key, value, Limits.from_kwargs(limits) if limits else DEFAULT_LIMITS
        )

    def read_message(self, key: bytes, value: bytes, limits: Limits) -> Message:
        """:meth:`parse_pair` within ``limits``."""
        if not isinstance(key, (bytes, bytearray, memoryview)) or not isinstance(
            value, (bytes, bytearray, memoryview)
        ):
            raise DecodeError("the key and the value must both be bytes", offset=0)
        key, value = bytes(key), bytes(value)
        if self._read_pair is not None:  # the common form in C; None: not its to decide
            message = self._read_pair(key, value, limits, self._read_documents)
            if message is not None:
                message.wire_form = key, value
                return message
        frames = split_frames(key, value, limits)
        events, legacy = [], [None, None]  # first column's path and layout
        replaced = b"\\ufffd" in value  # Go writes it lower-case; one pass for the message
        for index, frame in enumerate(frames):
            try:
                events.append(self._event(key, value, frame, legacy, replaced))
            except DecodeError as err:
                err.add_path("events", index=index)
                raise
        layout = legacy[1] or "tiflow"
        escapes = _escapes(key, value, frames)
        escapes = None if escapes == LAYOUT_ESCAPES[layout] else escapes
        return Message(events, layout, escapes, wire_form=(key, value))

    def holds_unknown(self, wire_form: tuple[bytes, bytes] | None) -> bool:
        """Whether a message's kept key and value (its ``wire_form``) carry a JSON member the
        spec's documents do not declare: Go reads past one, parse keeps it only there, and
        build writes it back while the events still read as the kept bytes (the generated
        module's ``UNKNOWN_BYTES``). Asked, not noted on read: it reads the kept documents
        again. Kept bytes that do not read (set by hand) keep nothing this codec knows of.

            >>> from generated.ticdc_open_protocol import _KAFKA, parse_pair
            >>> def resolved(key: bytes):
            ...     framed = bytes.fromhex("0000000000000001") + len(key).to_bytes(8, "big") + key
            ...     return parse_pair(framed, bytes(8)).wire_form
            >>> _KAFKA.holds_unknown(resolved(b'{"ts":1,"t":3}'))
            False
            >>> _KAFKA.holds_unknown(resolved(b'{"ts":1,"t":3,"new":0}'))  # a newer writer's
            True
        """
        if type(wire_form) is not tuple or [type(part) for part in wire_form] != [bytes, bytes]:
            return False  # None: nothing kept (or a value set by hand that build refuses)
        key, value = wire_form
        size = max(len(key), len(value))  # read once already, within the parse's limits
        read = Limits(max_message_bytes=size, max_count=size, max_string=size)
        try:
            for ks, ke, vs, ve in split_frames(key, value, read):
                kobj = _load(key, ks, ke, "key")
                if self.key_doc.undeclared(kobj, self.documents):
                    return True
                document = self.documents[self.classes[self._read_key(kobj)["type"]].document]
                if ve > vs and document.undeclared(_load(value, vs, ve, "value"), self.documents):
                    return True
        except DecodeError:
            return False
        return False

    def _sections_of_keys(self, present: list[JsonKey], new) -> None:
        """The generated row-section rule, for the compiled kernel (which hands the row
        document's keys it found)."""
        self._check_sections({k.name for k in present}, new)

    def bind_compiled_pair(self, read_pair) -> None:
        """Read the common form in C: ``read_pair(key, value, limits, documents)`` is the
        generated framing (the plans of the spec's ``key_frames`` and ``value_frames``), which
        hands the documents to the compiled JSON kernel (``runtime._compiled.open_protocol``);
        None (or no kernel built): pure Python."""
        if read_pair is None or self._compiled is None:
            self._read_pair = self._read_documents = None
        else:
            self._read_pair, self._read_documents = read_pair, self._compiled.documents

    # -- writing -----------------------------------------------------------------------

    def _map(self, cols, layout: str, go122: bool, path: str) -> str:
        """``{...}``, a row section: columns sorted bytewise by name, as Go marshals a map."""
        if type(cols) is not list and not isinstance(cols, list | tuple):
            raise EncodeError.expected("a list", cols, path=path)
        rendered = {}
        for i, c in enumerate(cols):
            if not isinstance(c, self.column):
                raise EncodeError.expected("Column", c, path=f"{path}[{i}]")
            name = _check_str(c.name, f"{path}[{i}].name")
            raw = name.encode("utf-8", "surrogatepass")
            if raw in rendered:
                raise EncodeError(f"duplicate column {c.name!r}", path=f"{path}[{i}].name")
            text = self._write_column(c, layout, go122, f"{path}[{i}]")
            rendered[raw] = gojson.quote_str(name, go122=go122) + ":" + text
        return "{" + ",".join(rendered[n] for n in sorted(rendered)) + "}"

    def encode_event(
        self, ev, layout: str = "tiflow", escapes: str | None = None
    ) -> tuple[bytes, bytes]:
        """One event's key JSON and value JSON, byte for byte as TiCDC writes them
        (``escapes``: see :class:`Message`)."""
        return self._encoded(ev, layout, escapes)[1:]

    def _encoded(self, ev, layout: str, escapes: str | None) -> tuple[int, bytes, bytes]:
        """The event's type code (the key's ``t``), key JSON and value JSON."""
        go122 = (escapes or LAYOUT_ESCAPES.get(layout)) == "short"
        cls = self._class_of.get(type(ev)) or self._class_of_event(ev)
        key, value = cls.write(ev, self._map, layout, go122)
        return int(cls.member), key.encode(), value.encode()

    def _class_of_event(self, ev) -> EventClass:
        cls = self._class_of.get(type(ev))
        if cls is None:
            cls = next((c for c in self._class_of.values() if isinstance(ev, c.model)), None)
            if cls is None:
                raise EncodeError.expected("a TiCDC event", ev)
        return cls

    def build_pair(self, message: Message) -> tuple[bytes, bytes]:
        """The Kafka key and value of one :class:`Message`: all its events, in order, in
        its layout (no batching rules: a message is what it is); its ``wire_form`` where
        that is not what tiflow writes and the model still reads as it.

            >>> from generated.ticdc_open_protocol import parse_pair, build_pair
            >>> key = bytes.fromhex("0000000000000001" "0000000000000017") + b'{ "ts": 1, "t": 3 }\\n\\t  '
            >>> message = parse_pair(key, bytes(8))
            >>> build_pair(message)[0] == key
            True
            >>> message.events[0].commit_ts = 2  # no longer what the kept bytes say
            >>> build_pair(message)[0][16:]
            b'{"ts":2,"t":3}'
        """
        return self.build_message(message)

    def write_message(self, message: Message) -> tuple[bytes, bytes]:
        """The Kafka key and value tiflow writes for ``message`` (its events and layout)."""
        if not isinstance(message, Message):
            raise EncodeError.expected("a Message", message)
        layout = _check_layout(message.layout, "layout")
        escapes = _check_escapes(message.escapes)
        events = [] if message.events is None else message.events  # None: no elements
        if not isinstance(events, list | tuple):
            raise EncodeError.expected("a list", events, path="events")
        pairs = []
        for index, ev in enumerate(events):
            try:
                pairs.append(self.encode_event(ev, layout, escapes))
            except EncodeError as err:
                err.add_path("events", index=index)
                raise
        return join_frames(pairs)

    def writer(self, options: dict) -> _Writer:
        """The writer of one ``encode_events`` call in its ``layout`` (an option, default
        ``tiflow``), whose messages the spec's ``batch:`` batches as tiflow does (DDL and
        resolved events alone, rows by ``max_batch_size`` and ``Length()``).

            >>> from generated.ticdc_open_protocol import encode_events
            >>> from generated.models.ticdc_types import ResolvedEvent
            >>> [len(k) for k, v in encode_events([ResolvedEvent(1)] * 2, layout="legacy")]
            [30, 30]
        """
        layout = options.pop("layout", "tiflow")
        writer = self._writers.get(layout) if type(layout) is str else None
        return writer or _Writer(self, layout)

    # -- the JSON form and Spark ---------------------------------------------------------

    def to_dict(self, message: Message) -> dict:
        """The stable JSON form: ``{"layout": ..., "events": [...]}``; column values keep
        their exact kind (bytes ``{"$hex"}``, big ints as strings, a str where the type
        renders as a number ``{"$str"}``, non-finite floats ``{"$f64"}``), and read like
        the data (type and flag names, text columns as text: ``specs/ticdc_types.yaml``'s
        ``json:``; ``commit_ts_time``)."""
        d = {"layout": message.layout}
        if message.escapes is not None:
            d["escapes"] = message.escapes
        image = partial(self._image_json, value=self._value_json)
        d["events"] = [self._class_of_event(e).to_json(e, image) for e in message.events]
        # the kept forms (where build writes them: not what tiflow writes), for from_dict
        if message.wire_form is not None:
            try:
                kept = self.kept_form(message, self.write_message(message))
            except EncodeError:
                kept = None
            if kept is not None:
                d["wire_form"] = {"key": {"$hex": kept[0].hex()}, "value": {"$hex": kept[1].hex()}}
        if type(message.claim_check_form) is bytes:
            d["claim_check_form"] = {"$hex": message.claim_check_form.hex()}
        return d

    def _value_json(self, c):
        """A column value that is not bytes, in the JSON form (its bytes are the spec's)."""
        v = c.value
        if isinstance(v, str):
            return v if self._value_type(c.type) == "str" else {"$str": v}
        if isinstance(v, float):
            return v if math.isfinite(v) else {"$f64": struct.pack(">d", v).hex()}
        if isinstance(v, int) and not isinstance(v, bool):
            return _int_json(v)
        return v

    def from_dict(self, d) -> Message:
        """The :class:`Message` of a JSON form made by :meth:`to_dict`."""
        d = _dict(d, "")
        if not _MESSAGE_KEYS.issuperset(d):
            refuse_unknown_keys(d, _MESSAGE_KEYS, "message")
        layout = _check_layout(d.get("layout", "tiflow"), "layout")
        escapes = _check_escapes(d.get("escapes"))
        events = d.get("events")
        if not isinstance(events, list):
            raise EncodeError("expected a list", path="events")
        out = []
        for i, e in enumerate(events):
            try:
                out.append(self._event_from(_dict(e, "")))
            except EncodeError as err:
                err.add_path("events", index=i)
                raise
        message = Message(out, layout, escapes)
        wire_form = d.get("wire_form")
        if wire_form is not None:
            wire_form = _dict(wire_form, "wire_form")
            message.wire_form = tuple(
                bytes_from_json(wire_form.get(part), f"wire_form.{part}")
                for part in ("key", "value")
            )
        if d.get("claim_check_form") is not None:
            message.claim_check_form = bytes_from_json(d["claim_check_form"], "claim_check_form")
        return message

    def _event_from(self, e: dict):
        cls = self._class_named.get(e.get("type"))
        if cls is None:
            known = ", ".join(self._class_named)
            raise EncodeError(f"unknown event type {e.get('type')!r} ({known})", path="type")
        return cls.from_json(e, self._image_from)

    def _image_from(self, cols, path: str):
        if cols is None:
            return None
        if not isinstance(cols, list):
            raise EncodeError("expected a list of columns", path=path)
        out = []
        for i, c in enumerate(cols):
            where = f"{path}[{i}]"
            c = _dict(c, where)
            try:  # to_dict's form: its four keys (read one by one: cheaper than as a tuple)
                name = c["name"]
                code = c["type"]
                flags = c["flags"]
                v = c["value"]
            except KeyError:  # a key left out (flags 0, the others null), or another in its place
                _known_column_keys(c, self.column, where)
                name, code, flags, v = (
                    c.get("name"),
                    c.get("type"),
                    c.get("flags", 0),
                    c.get("value"),
                )
            if len(c) != 4:  # a fifth key (or fewer, each known: checked once more)
                _known_column_keys(c, self.column, where)
            if not isinstance(name, str):
                raise _unnamed(c, name, where + ".name")
            code = self._views["type"].from_json(code, where + ".type")
            kind = self.rendering.get(code, "raw")
            value = _value_from(kind, self.value_types[kind], v, where + ".value")
            flags = self._views["flags"].from_json(flags, where + ".flags")
            out.append(self.column(name, code, flags, value))
        return out

    def _value_type(self, code: int) -> str:
        """The JSON value type of the values of type ``code`` (their kind's ``type``)."""
        return self.value_types[self.rendering.get(code, "raw")]

    def spark_schema(self):
        """The shared TiCDC row shape (:func:`runtime.formats.ticdc_rows.spark_schema`)."""
        return _ticdc_spark_schema()

    def to_rows(self, message: Message):
        """One Spark row per event, in :meth:`spark_schema` order."""
        for ev in message.events:
            yield _ticdc_to_row(ev)


class _Writer:
    """What the spec's rendered ``batch:`` calls to write one ``encode_events`` call's
    events in ``layout``: an event's parts, a batch's Kafka key and value."""

    __slots__ = ("codec", "layout")

    def __init__(self, codec: OpenProtocol, layout: str):
        self.codec, self.layout = codec, layout

    def batches(self, events, max_batch_size, max_message_bytes) -> None:
        """None: no compiled encoder (the layout checked first, before any event)."""
        _check_layout(self.layout)

    def parts(self, i: int, ev) -> tuple[int, bytes, bytes]:
        """Event ``i``'s type code, key JSON and value JSON (its EncodeError at
        ``events[i]``)."""
        try:
            return self.codec._encoded(ev, self.layout, None)
        except EncodeError as err:
            err.add_path("events", index=i)
            raise

    pack = staticmethod(join_frames)
    """A batch's parts -> its Kafka key and value."""


def _unnamed(c: dict, name, path: str) -> EncodeError:
    """The refusal of column form ``c`` whose ``name`` is absent, null or no string: the
    wire keys each column by its name (tiflow's ``map[string]column``), so it has one.

    >>> str(_unnamed({"type": "LONG"}, None, "new[0].name"))
    "new[0].name: missing key 'name' (the wire keys a column by its name)"
    >>> str(_unnamed({"name": 5}, 5, "new[0].name"))
    'new[0].name: expected a string, got int 5'
    """
    if "name" not in c:
        return EncodeError("missing key 'name' (the wire keys a column by its name)", path=path)
    err = EncodeError.expected("a string", name)
    err.add_path(path)
    return err


def _known_column_keys(c: dict, column, where: str) -> None:
    """Refuse a key of column form ``c`` (at ``where``) that is no field of ``column``."""
    try:
        refuse_unknown_keys(c, frozenset(column.__dataclass_fields__), "column")
    except EncodeError as err:
        err.add_path(where)
        raise


def _compiled_plan(codec: OpenProtocol):
    """The compiled reader's plan over ``codec``'s tables, or None when the compiled tier
    is absent or does not implement them (a rendering it does not know, say)."""
    if _COMPILED is None:
        return None
    try:
        return _COMPILED.Plan(codec, Message, codec._sections_of_keys)
    except (ValueError, KeyError, TypeError):
        return None


def _tiflow_reading(decl: dict) -> frozenset:
    """A kind's JSON value types (``{"type": ..., condition: type}``) a column with flags
    can be read as: all but the ``legacy`` and ``flagless`` variants."""
    return frozenset((c, t) for c, t in decl.items() if c not in ("legacy", "flagless"))


def _flag(flags_key: JsonKey | None, name: str) -> int:
    if flags_key is None or flags_key.enum is None:
        raise ValueError("the column document needs a flags key with an enum")
    return int(flags_key.enum[name])


def _check_layout(layout, path: str = "") -> str:
    if layout not in LAYOUTS:
        raise EncodeError(f"unknown layout {layout!r}; known: {LAYOUTS}", path=path)
    return layout


def _check_escapes(escapes) -> str | None:
    if escapes is not None and escapes not in ESCAPES:
        raise EncodeError(f"unknown escapes {escapes!r}; known: {ESCAPES}", path="escapes")
    return escapes


def _unmark_text(row) -> None:
    """U+FFFD for gojson.REPLACED in the names and text values of a row: only its bytes
    values (the string rendering) keep an escaped \\ufffd apart, as the byte 0xFF."""
    for cols in (row.new, row.old):
        for c in cols or ():
            c.name = gojson.unmark_replaced(c.name)
            if type(c.value) is str:
                c.value = gojson.unmark_replaced(c.value)


KafkaCodec = OpenProtocol
"""The name a spec's ``kafka_message: {codec: open_protocol}`` instantiates."""


# ---------------------------------------------------------------------------- claim check


class ClaimCheck(Construct):
    """tiflow's claim-check object as a record: the Kafka message TiCDC kept in external
    storage because it was too large (``large-message-handle-option = "claim-check"``).

    The file (``<uuid>.json`` under ``claim-check-storage-uri``) is the spec's
    ``document``, ``{"key":"<base64>","value":"<base64>"}``: one ``bytes`` key per Kafka
    column, the whole framed key and value of a one-event message. Parse gives the
    :class:`Message` it carries (events, layout, escapes), build writes the object back
    byte for byte: as Go's ``json.Marshal`` writes it (the keys in order, no spaces), or,
    for an object read in another form Go's ``json.Unmarshal`` reads too (spaces, the
    other key order, escapes, a duplicate key), as read (the message's
    ``claim_check_form``) while the message still reads as it. What the spec's document
    does not take (another key, a key spelled in other case, base64 Go's ``StdEncoding``
    reads but does not write) is a :class:`DecodeError`.

        >>> from generated.ticdc_open_protocol import RECORDS
        >>> obj = b'{"key":"AAAAAAAAAAEAAAAAAAAADnsidHMiOjEsInQiOjN9","value":"AAAAAAAAAAA="}'
        >>> message = RECORDS["claim_check"].parse(obj)
        >>> message.events, RECORDS["claim_check"].build(message) == obj
        ([ResolvedEvent(commit_ts=1)], True)
        >>> spaced = b'{ "value": "AAAAAAAAAAA=",\\n  "key": "AAAAAAAAAAEAAAAAAAAADnsidHMiOjEsInQiOjN9" }'
        >>> RECORDS["claim_check"].build(RECORDS["claim_check"].parse(spaced)) == spaced
        True
    """

    def __init__(self, codec: OpenProtocol, read: Callable, write: Callable):
        super().__init__()
        self.codec, self.read, self.write = codec, read, write

    def parse_object(self, data: bytes, **limits) -> Message:
        """The :class:`Message` a claim-check object carries, its ``claim_check_form`` the
        object's text when that is not what :meth:`build_object` would write.

        Errors in the envelope carry its offset and the path ``key``/``value`` (the
        member); errors in the message it carries are those of
        :meth:`OpenProtocol.parse_pair`, their offsets in the decoded (base64) key or value
        that their path names."""
        data = bytes(data)
        lim = Limits.from_kwargs(limits) if limits else DEFAULT_LIMITS
        lim.check("max_message_bytes", len(data), offset=0)
        columns = self.read(_load(data, 0, len(data), ""))  # the generated reader
        message = self.codec.parse_pair(**columns, **limits)
        if data != self._object_bytes(columns):
            message.claim_check_form = data
        return message

    def build_object(self, message: Message) -> bytes:
        """The claim-check object of ``message`` (:meth:`parse_object` inverts it): its
        ``claim_check_form`` where that holds the Kafka key and value the message is
        written as, else Go's ``json.Marshal`` of them."""
        # build_pair gives the codec's Kafka columns in order; the spec checked that the
        # document's fields are those columns
        columns = dict(zip(("key", "value"), self.codec.build_pair(message)))
        kept = message.claim_check_form
        if type(kept) is bytes and self._holds(kept, columns):
            return kept
        return self._object_bytes(columns)

    def _holds(self, kept: bytes, columns: dict) -> bool:
        """Whether the object text ``kept`` reads as ``columns``."""
        try:
            return self.read(_load(kept, 0, len(kept), "")) == columns
        except DecodeError:
            return False

    def _object_bytes(self, columns: dict) -> bytes:
        """The document (the generated writer: its keys in order, each Kafka column as a
        Go ``[]byte``)."""
        return self.write(types.SimpleNamespace(**columns), True).encode()

    def _parse(self, stream, context, path):
        limits = dataclasses.asdict(current_limits(context))
        return self.parse_object(stream.read(), **limits)

    def _build(self, obj, stream, context, path):
        stream.write(self.build_object(obj))
        return obj

    def _sizeof(self, context, path):
        raise SizeofError("a claim-check object's size depends on its message", path=path)


def strategies(module, events: dict):
    """A hypothesis strategy of ``Message`` models of a generated Open Protocol module (the
    ``strategies`` of its Kafka record; a test extra): ``events`` is its ``_STRATEGY_EVENTS``."""
    from runtime.formats.ticdc_strategies import ticdc_events

    rendering = {int(k): v for k, v in module.COLUMN_TYPE_RENDERING.items()}
    drawn = ticdc_events(events, lambda code, flags: rendering.get(code), rendering)
    return drawn.map(lambda evs: module.Message(events=evs))
