"""TiCDC Craft: the construct a generated module drives, mapping frames to events.

A Craft message (``specs/ticdc_craft.yaml``, record ``frame``; ``research/craft.md``) is::

    version (uvarint) | header | bodies | term dictionary | size tables | len(size tables)

The spec declares that layout. :class:`CraftMessage` maps the spec's frame to the shared
event model of ``generated.models.ticdc_types`` (names through the term dictionary, values by
the spec's type-code table) and back; its ``encode_events`` batches like tiflow does. Its
parts live by concept beside it:

- the chunks and regions the spec names are the generic :mod:`runtime.core.chunks`;
- :mod:`runtime.formats.craft_events`: the checked mapping, with exact errors and spans;
- the quick mapping is the spec's ``map:`` run with :func:`runtime.core.unmap.give_up`,
  which gives up to the checked one;
- the way back (events -> frames, and ``encode_events``' batches) is the spec's, the
  generated ``UNMAPPINGS["message"]``, run here quick and checked;
- the JSON form of events is the spec's, the generated ``JSON_FORMS["message"]``
  (generator/emit/event_json.py), their row images' columns too (``specs/ticdc_types.yaml``'s
  ``json:``); they read back here, each value by its wire kind (:func:`image_from_json`).
"""

from __future__ import annotations

from functools import partial

from construct import Construct, SizeofError

from runtime.core import limits as _limits
from runtime.core.codec import (
    build_fast,
    bytes_from_json,
    float_from_json,
    int_from_json,
    key_from_json,
    refuse_unknown_keys,
    str_from_json,
    text_or_hex_from_json,
    to_jsonable,
)
from runtime.core.errors import DecodeError, EncodeError, SiblingError
from runtime.core.event_messages import EventMessages, ReadEvents, kept_events
from runtime.core.kept import FIELD
from runtime.core.kept import to_json as kept_json
from runtime.core.spans import current as current_spans
from runtime.core.unmap import WriteFaults, give_up
from runtime.formats.craft_events import _checked_events, _Path, _read_frame


# -------------------------------------------------------------------------------------
# The construct, and the functions a generated module re-exports
# -------------------------------------------------------------------------------------
class CraftMessage(EventMessages, Construct):
    """A whole Craft message as its list of TiCDC events (the classes of ``models``, the
    generated module of specs/ticdc_types.yaml's ``models:``); it owns the rest of its
    stream (a Kafka message value), and keeps its bytes with them
    (:class:`runtime.core.event_messages.ReadEvents`): tiflow's decoder takes frames its
    encoder never writes (varints longer than they need, Go's ``binary.Uvarint``; a term
    dictionary with terms no event names or not in first-use order; ...), which read the
    same as the encoder's frame of them, and :meth:`encode` writes them back.

    The layout is the spec's: ``frame`` is the construct of the spec's ``frame`` record
    (version, header, bodies, term dictionary, size tables), which this class parses and
    builds; what it adds is the mapping to events: term ids resolved and checked as
    ``terms`` says (the spec's ``ref:`` fields, a :class:`runtime.core.refs.Dictionary`;
    on build it interns names in the spec's ``interned:`` order), values decoded by
    ``values`` (the spec's ``decode_by:`` of a column group's values, a
    :class:`runtime.core.value_kinds.ValueKinds`: each type code's kind and wire type). Events are
    row events only, or a single DDL/resolved event, as the reference writes.

    Decoding reads the frame with the generated fast path's reader of ``frame`` once the
    generated module has given it (:meth:`use_fast_readers`), else with construct; the
    construct protocol (``_parse``, ``parse_construct``) always uses construct. Then the
    quick mapping makes the events, and where it gives up the checked one says why.
    ``mapping`` is the spec's ``map:`` of its events (the generated ``MAPPINGS["message"]``:
    each event's class, rules and header fields), which both mappings run; ``unmapping``
    its way back (``UNMAPPINGS["message"]``, a :class:`runtime.core.unmap.WayBack`: each
    event checked and made the parts of a frame, the frame of a batch's parts, and the
    batching of ``encode_events``), run quick (giving up) and, where that gives up, checked.
    ``json_form`` is the spec's JSON form of the events (the generated
    ``JSON_FORMS["message"]``: each model class's ``to_json``, the reader of an event's
    JSON and the row images' ``_IMAGE_JSON``; None: none).
    ``fast=False`` leaves only the checked paths (the oracle the tests compare with);
    ``compiled=False`` never tries the compiled tier (the Python path the tests and
    benchmarks compare it with).

    >>> from generated.ticdc_craft import frame, VALUE_DECODERS, DICTIONARIES, MAPPINGS
    >>> values = VALUE_DECODERS["column_group.values"]
    >>> from generated.ticdc_craft import UNMAPPINGS
    >>> terms, mapping = DICTIONARIES["frame.term_dictionary"], MAPPINGS["message"]
    >>> codec = CraftMessage(frame, values, terms, mapping, UNMAPPINGS["message"])
    >>> data = bytes.fromhex("018180e0bb9bb6def10503010101021a19010005")
    >>> codec.parse(data), codec.build(codec.parse(data)) == data
    ([ResolvedEvent(commit_ts=424316594097225729)], True)

    Raises :class:`DecodeError` (offset, path) for any malformed message and
    :class:`EncodeError` for events it cannot write.
    """

    def __init__(
        self,
        frame,
        values,
        terms,
        mapping,
        unmapping,
        *,
        fast: bool = True,
        compiled: bool = True,
        json_form=None,
        models=None,
    ):
        super().__init__()
        self.frame = frame
        self.terms = terms
        self.mapping = mapping
        self.unmapping = unmapping
        self.batch = unmapping.batch  # encode_events: the spec's batch:
        # the generated JSON_FORMS[...]: (model class -> its JSON form, the events' reader,
        # the row images' (to_json(columns, value), views of the fields shown by name))
        self.json_of, self.event_from_json, (self._image_json, self._views) = json_form or (
            {},
            None,
            (None, None),
        )
        self.models = models
        self.fast = fast
        self.tries_compiled = compiled
        self.values = values
        self.encodings = values.codes

    def use_fast_readers(self, frame) -> None:
        """Read frames with ``frame``, the generated fast path's reader of the spec's
        ``frame`` record (``(buf, pos, end, limits, depth) -> (model, pos)``: the model
        and the errors of the construct), instead of the construct."""
        self._read_fast_frame = frame

    def use_compiled_reader(self, reader, field: str) -> None:
        """Try ``reader`` first (the compiled tier's reader of the record that is this one
        ``field``, rendered from the spec's ``map:``: ``(data, limits) -> model``, None to
        decline; None: the tier is not built), wherever it declines this Python path
        decodes. Its events are a :class:`ReadEvents` that keeps ``data`` (the craft
        primitive's ``kept_as``, generator/spec/types.py), as this path's readers give them."""
        if reader is not None and self.tries_compiled:
            self._compiled = reader
            self._compiled_field = field

    _read_fast_frame = None
    _compiled = None

    def use_fast_writers(self, frame) -> None:
        """Write frames with ``frame``, the generated fast path's writer of the spec's
        ``frame`` record (``(model, out)`` appends construct's bytes to ``out``, or raises
        for construct to build it and say why), instead of the construct."""
        self._write_fast_frame = frame

    _write_fast_frame = None

    def use_compiled_way_back(self, batches, message) -> None:
        """Write messages with the compiled tier's way back, the generated
        ``COMPILED_WAY_BACKS[...]`` (``batches(events, max_count, max_bytes, values, terms)``
        and ``message(events, values, terms)``: the messages, or None to decline), tried
        before the Python way back (see :meth:`batches`); None (the tier is not built): the
        Python way back only."""
        self._compiled_batches, self._compiled_message = batches, message

    _compiled_batches = _compiled_message = None

    def strategy(self, events: dict):
        """A hypothesis strategy of the event lists this message carries (a test extra):
        ``events`` is the generated module's ``_STRATEGY_EVENTS``."""
        from runtime.formats.ticdc_strategies import ticdc_events

        return ticdc_events(events, self.values.wire_type, self.encodings)

    # -- bytes-level API -------------------------------------------------------------
    def decode(self, data, limits: _limits.Limits = _limits.DEFAULT) -> list:
        """The events of one whole message (the record readers keep its bytes with them:
        :class:`ReadEvents`)."""
        buf = data if type(data) is bytes else bytes(data)
        if not self.fast or self._read_fast_frame is None:
            return self._decode_checked(buf, limits)
        if self._compiled is not None and type(data) is bytes:
            model = self._compiled(buf, limits)
            if model is not None:
                return getattr(model, self._compiled_field)
        if len(buf) > limits.max_message_bytes:
            limits.check("max_message_bytes", len(buf), offset=0)
        model = self._read_fast_frame(buf, 0, len(buf), limits, 1)[0]
        try:
            return self.mapping(model, give_up, self.values.quick_values)
        except Exception:  # noqa: BLE001 - the checked mapping says what is wrong
            return _checked_events(self.frame, buf, model, self.values, self.terms, self.mapping)

    def _decode_checked(self, buf: bytes, limits, spans=None) -> list:
        """The construct path: the frame parsed by construct, then checked and mapped."""
        return _read_frame(self.frame, self.terms, self.mapping, self.values, buf, limits, spans)

    events_of = staticmethod(iter)  # decode_message: an iterator of the events
    read_message = decode

    def encode(self, events) -> bytes:
        """One message of ``events`` (not batched: all go in this message); the bytes a
        :class:`ReadEvents` kept, where the way back writes these events otherwise and
        the bytes still read as them (a changed list, or a plain one, is written as
        tiflow's encoder writes it).

            >>> from generated.ticdc_craft import parse, build
            >>> data = bytes.fromhex("01ff0003010101020c0b010005")  # commit ts 127 in 2 bytes
            >>> message = parse(data)
            >>> message.events, build(message) == data
            ([ResolvedEvent(commit_ts=127)], True)
            >>> message.events[0].commit_ts = 128
            >>> build(message).hex()
            '01800103010101020c0b010005'
        """
        return self.build_message(events)

    def write_message(self, events) -> bytes:
        """What the way back writes for ``events``, as tiflow's encoder writes them."""
        if events is None:  # no elements, as every list in a build
            events = []
        elif not isinstance(events, list | tuple):
            raise EncodeError.expected("a list", events, path="events")
        if self.fast:
            if type(events) is not list:
                events = list(events)  # the compiled writers take a list itself
            data = (
                None
                if self._compiled_message is None
                else self._compiled_message(events, self.values, self.terms)
            )
            if data is not None:
                return data
        return self.pack([self.parts(i, ev) for i, ev in enumerate(events)])

    # -- the way back's writer (what UNMAPPINGS["message"].batch calls) ------------------
    def parts(self, i: int, event):
        """The parts of ``event``, the ``i``-th of its message: the spec's way back run
        quick, and where it gives up, checked (its exact EncodeError at ``events[i]``)."""
        if self.fast:
            try:
                return self.unmapping.unmap(event, give_up, self.values)
            except Exception:  # noqa: BLE001, S110 - the checked way back says what is wrong
                pass
        try:
            return self.unmapping.unmap(event, WriteFaults(("events", i)), self.values)
        except UnicodeEncodeError as err:  # a name's lone surrogate, which no reader gives
            fault = EncodeError(f"{err.object!r} is not text UTF-8 can write ({err.reason})")
            WriteFaults(("events", i)).raise_at((), fault)

    def pack(self, parts: list) -> bytes:
        """The message of the parts of a batch: the spec's frame of them, names interned in
        the ``interned:`` order, written by the fast writer (else construct)."""
        frame = self.unmapping.frame(parts, _MESSAGE_FAULTS)
        self.terms.intern(frame)
        try:
            if self.fast and self._write_fast_frame is not None:
                return build_fast(self._write_fast_frame, self.frame, frame)
            return self.frame.build(frame)
        except EncodeError as err:
            raise _at_event(err, frame) from None

    def batches(self, events, max_batch_size: int, max_message_bytes: int):
        """The compiled tier's messages of ``events`` in batches, or None (declined): the
        way back rendered from the spec (``COMPILED_WAY_BACKS``), the models checked
        straight into C arrays and each message written from them."""
        if not self.fast:
            return None
        if type(events) is ReadEvents:  # batched anew: the kept bytes are one message's
            events = list(events)
        if self._compiled_batches is not None:
            return self._compiled_batches(
                events, max_batch_size, max_message_bytes, self.values, self.terms
            )
        return None

    def read(self, buf, pos: int, end: int, limits: _limits.Limits = _limits.DEFAULT):
        """The fast-path protocol of generated modules: ``(model of buf[pos:end], end)``,
        the events a :class:`ReadEvents` that keeps their bytes."""
        data = buf if pos == 0 and end == len(buf) else buf[pos:end]
        try:
            return kept_events(self.decode(data, limits), bytes(data)), end
        except DecodeError as err:
            err.shift(pos)
            raise

    def to_json(self, events) -> list[dict]:
        """The JSON form of events: readable codes, text and commit times, each as its
        class's ``json_form`` shows it (a value that is not bytes as ``to_jsonable`` does)."""
        json_of, image = self.json_of, partial(self._image_json, value=_value_json)
        try:
            return [json_of[type(ev)](ev, image) for ev in events]
        except KeyError:  # a subclass of a model class, or no model at all
            return [self._json_of(ev)(ev, image) for ev in events]

    def _json_of(self, event):
        if self.event_from_json is None:
            raise EncodeError("no JSON form: this CraftMessage was given no json_form")
        for model, form in self.json_of.items():
            if isinstance(event, model):
                return form
        raise EncodeError(
            f"not a {self.models.__name__.rpartition('.')[2]} event: {type(event).__name__}"
        )

    def put(self, out: dict, name: str, events) -> None:
        """The view protocol of ``runtime.core.codec.to_jsonable`` (a module's ``JSON_VIEWS``):
        the events, and the bytes they keep where build writes those back (not what tiflow
        writes) as ``wire_form``, so that ``encode`` of ``decode``'s JSON gives the input
        (:meth:`keeping` reads them back)."""
        out[name] = self.to_json(events)
        if getattr(events, FIELD, None) is not None:
            try:
                kept = self.kept_form(events, self.write_message(events))
            except EncodeError:  # events no writer takes: nothing is written back
                kept = None
            if kept is not None:
                out[FIELD] = kept_json(kept)

    def from_json(self, value, path: str = "") -> list:
        """The events of the JSON form :meth:`to_json` makes of them (numbers for codes,
        ``{"$hex"}`` for text are taken too)."""
        if not isinstance(value, list):
            raise EncodeError.expected("a list of events", value)
        if self.event_from_json is None:
            self._json_of(None)  # its error: no JSON form
        out, event_from_json, image = [], self.event_from_json, self._image_from_json
        for i, d in enumerate(value):
            with _Path("events", i):
                out.append(event_from_json(d, image))
        return out

    @staticmethod
    def keeping(events: list, kept) -> list:
        """``events`` (:meth:`from_json`'s) kept with the bytes of ``kept`` (a JSON form's
        ``wire_form``, ``{"$hex": ...}``; None: none kept), which build writes back while
        the events read as them. (Read after the events: an error names the key read last.)

            >>> from generated.ticdc_craft import parse, to_dict, from_dict, build
            >>> data = bytes.fromhex("01ff0003010101020c0b010005")  # commit ts 127 in 2 bytes
            >>> to_dict(parse(data))["wire_form"]
            {'$hex': '01ff0003010101020c0b010005'}
            >>> build(from_dict(to_dict(parse(data)))) == data
            True
        """
        return events if kept is None else kept_events(events, bytes_from_json(kept))

    def _image_from_json(self, items, path: str) -> list | None:
        """The ``image`` of ``json_form``: a row image's columns, values by their kinds."""
        return image_from_json(items, self._views, self.values.wire_type, self.models.Column, path)

    # -- construct protocol ------------------------------------------------------------
    def _parse(self, stream, context, path):
        start = stream.tell()
        buf = stream.read()
        spans = current_spans(context)
        try:
            if spans is not None:  # wirespec inspect: the checked path reports its fields
                with spans.shifted(start):
                    return kept_events(
                        self._decode_checked(buf, _limits.current(context), spans), buf
                    )
            return kept_events(self._decode_checked(buf, _limits.current(context)), buf)
        except DecodeError as err:
            err.shift(start)
            raise

    def _build(self, obj, stream, context, path):
        try:
            stream.write(self.encode(obj))
        except EncodeError as err:  # its path names the events already: not "events.events"
            raise SiblingError.of(err) from None
        return obj

    def _sizeof(self, context, path):
        raise SizeofError("a craft message has a variable size", path=path)


def _at_event(err: EncodeError, frame) -> EncodeError:
    """A term the frame's writer refuses (a name with a lone surrogate U+DC80..U+DCFF,
    whose bytes its reader would refuse as no UTF-8) said at the first event naming it:
    the message's model is its events, not the frame's term dictionary."""
    path = err.path
    if not path.startswith("term_dictionary[") or not path.endswith("]"):
        return err
    term = int(path[len("term_dictionary[") : -1])
    header = frame["header"]
    for i, body in enumerate(frame["bodies"]):
        names = [name for group in body["column_groups"] or () for name in group["names"]]
        if term in (header["schema"][i], header["table"][i], *names):
            return EncodeError(err.message, path=f"events[{i}]")
    return err


_MESSAGE_FAULTS = WriteFaults(("events",))
"""The ``fail`` of a frame's rules on the way back: an error of the message's events."""


# -------------------------------------------------------------------------------------
# The row images' JSON form, read back
# -------------------------------------------------------------------------------------
def _value_json(column):
    """A column value that is not bytes, in the JSON form (its bytes are the spec's)."""
    return to_jsonable(column.value)


def image_from_json(items, views, wire_type, column, path: str = "") -> list | None:
    """A row image (the columns of one group) from its JSON form: ``type`` and ``flags``
    by ``views`` (the generated ``_IMAGE_VIEWS``: names or numbers), each value read as its
    kind (``wire_type(code, flags)``: the spec's ``decode_by:`` kinds, None for a code it
    does not list) says, each column made by ``column(name, type, flags, value)``.

        >>> from generated.models.ticdc_types import Column
        >>> from generated.ticdc_craft import JSON_FORMS
        >>> views, kinds = JSON_FORMS["message"][2][1], {3: "varint", 15: "bytes"}
        >>> image_from_json([{"name": "id", "type": "LONG", "value": "7"},
        ...     {"name": "s", "type": 15, "value": "x"}], views, lambda t, f: kinds.get(t), Column)
        [Column(name='id', type=3, flags=0, value=7), Column(name='s', type=15, flags=0, value=b'x')]
    """
    if items is None:
        return None
    if not isinstance(items, list):
        raise EncodeError(f"expected a list of columns, got {items!r}", path=path)
    out, types, flags_view = [], views["type"], views["flags"]
    for j, c in enumerate(items):
        key = ""  # the key whose value an error is about ("": the column itself)
        try:
            if not isinstance(c, dict):
                raise EncodeError.expected("an object", c)
            try:  # to_dict's form: its four keys
                code = c["type"]
                flags = c["flags"]
                name = c["name"]
                value = c["value"]
            except KeyError:  # one left out (flags 0, value null), or another in its place
                refuse_unknown_keys(c, frozenset(column.__dataclass_fields__), "column")
                code, flags = key_from_json(c, "type"), c.get("flags", 0)
                name, value = key_from_json(c, "name"), c.get("value")
            if len(c) != 4:  # a fifth key (or fewer, each known: checked once more)
                refuse_unknown_keys(c, frozenset(column.__dataclass_fields__), "column")
            key = "type"
            code = types.from_json(code)
            key = "flags"
            flags = flags_view.from_json(flags)
            kind = wire_type(code, flags)
            if kind is None:
                key = "type"
                raise EncodeError(f"unknown column type code {code}")
            key = "name"
            name = str_from_json(name)
            key = "value"
            value = _value_from_json(value, kind)
        except EncodeError as err:
            if err.path != key:  # key_from_json names it already
                err.add_path(key)
            err.add_path(path, index=j)
            raise
        out.append(column(name, code, flags, value))
    return out


def _value_from_json(value, kind: str):
    """A column value of wire type ``kind`` from its JSON form."""
    if value is None:
        return None
    if kind == "bytes":  # text for a text column, else {"$hex"}
        return text_or_hex_from_json(value)
    if kind == "str":
        return str_from_json(value)
    if kind == "f64":
        return float_from_json(value)
    if kind in ("varint", "uvarint"):
        return int_from_json(value)
    raise EncodeError(f"this type code is always NULL, got {value!r}")
