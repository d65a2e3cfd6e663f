"""Kept forms: a message read from bytes ``build`` would write otherwise keeps those bytes.

A reader takes forms no writer writes: a LEB128 varint longer than it needs (``81 00`` for
1, which Avro's and Kafka's readers take and their writers never write). ``build`` writes
the shortest form, so ``build(parse(x)) != x`` for such an ``x``. A parsed model keeps its
message's bytes in its ``wire_form`` field for them, and ``build`` writes them back while
the model still reads as them (:func:`reads_as`); a changed model is written canonically.
Where the model's values alone do not build (a MySQL event whose ``event_size`` holds a
body longer than build would write it), its bytes are written while they read back as the
very model (:func:`reads_back`).

It is decided on the readers' slow path, never by building at parse time: a reader that
meets a varint longer than it needs (or in a mysql::serialization message another form
MySQL's writer never writes, ``runtime.formats.serializable``) calls :func:`note` (the
generated fast path's inline forms take shortest varints only, and its slow path notes a
longer one; the construct path's stream readers in ``runtime.core.leb128`` and
``runtime.core.msbvarint`` note it; the quick and compiled tiers decline it, so the exact
reader decides). A module's ``parse`` (``runtime.core.contract`` reads :data:`SEEN` around
its Python readers; :func:`keeping` wraps ``parse_construct``): when a note was made while
it read, the model it returns keeps the input as ``wire_form``; else ``wire_form`` is None
(every message its writers wrote). The model that keeps it is the
one ``parse`` returned: its records inside hold None.

Equality: ``wire_form`` is a field of the model like any other, so it takes part in
``==``: a model read from non-canonical bytes is not equal to the same values read from
canonical ones (they do not build the same bytes).

The contract every kept form keeps (this module's, MySQL's ``wire_form``, Thrift's
``WireLayout.wire_form`` and ``RawStruct.wire_form``, protobuf's kept records in
``wire_layout``): the bytes are kept only where build writes them otherwise, as read; build
writes them back while they still read as what it writes of the model (:func:`reads_as`:
read again and written as build writes, they give the same bytes), else writes the model; they take part in ``==``; their JSON form is
:func:`to_json`'s ``{"$hex": ...}``. What a format keeps beyond that is its own layer:
Thrift keeps them per struct, in its ``WireLayout`` beside the field order (a nested struct
decides its own), protobuf per record (a changed field is written canonically, the other
records as read).

    >>> from runtime.core.leb128 import UVarInt
    >>> seen = SEEN.count
    >>> UVarInt().parse(b"\\x81\\x00"), SEEN.count - seen     # 1 in two bytes: noted
    (1, 1)
    >>> UVarInt().parse(b"\\x81\\x01"), SEEN.count - seen     # 129, shortest: not
    (129, 1)
"""

from __future__ import annotations

import dataclasses
import functools
import threading

from runtime.core.errors import DecodeError, EncodeError, WirespecError
from runtime.core.limits import DEFAULT, Limits

FIELD = "wire_form"
"""The model field that keeps a message's bytes (None: build writes them as read)."""


class _Seen(threading.local):
    count = 0
    """How many varints longer than they need this thread's readers have met."""


SEEN = _Seen()
"""This thread's count: a module's ``parse`` reads ``SEEN.count`` before and after, no call."""


def note() -> None:
    """A reader met a form ``build`` writes otherwise: the message it reads keeps its bytes."""
    SEEN.count += 1


def keeping(parse):
    """``parse(data, record, **limits)`` whose model keeps ``data`` as its ``wire_form``
    when its reading noted a form ``build`` writes otherwise (:func:`note`), if its class
    has that field (a record whose runtime type keeps its bytes itself has none)."""

    @functools.wraps(parse)
    def kept_parse(data, *args, **kwargs):
        seen = SEEN.count
        model = parse(data, *args, **kwargs)
        if SEEN.count != seen:
            keep(model, data)
        return model

    return kept_parse


def keep(model, data) -> None:
    """``model``, whose reading noted a form build writes otherwise, keeps ``data`` (a
    model with no such field keeps its bytes itself: Craft's message, in its events)."""
    if hasattr(type(model), FIELD):
        setattr(model, FIELD, bytes(data))


def writing_kept(build, parse, default_record: str, values=None):
    """``build(model, record)`` that writes a model's ``wire_form`` while it still means
    what the model means (:func:`reads_as`), and the model otherwise. ``values(model,
    record)``: what :func:`reads_back` compares (the model itself when None)."""

    @functools.wraps(build)
    def kept_build(model, record: str = default_record) -> bytes:
        kept = getattr(model, FIELD, None)
        try:
            built = build(model, record)
        except EncodeError:
            # its values alone do not build (a size that holds only the kept bytes, as a
            # MySQL event_size does a longer body): the kept bytes, if they read as the model
            if kept is not None and reads_back(kept, model, record, parse, values):
                return bytes(kept)
            raise
        if kept is not None:

            def rewrite(data: bytes, limits: Limits) -> bytes:  # by the module's parse
                return build(parse(data, record, **dataclasses.asdict(limits)), record)

            if reads_as(built, kept, rewrite):
                return bytes(kept)
        return built

    return kept_build


_DEFAULT_LIMITS = tuple((f.name, f.default) for f in dataclasses.fields(Limits))
"""Each limit's name and default, what :func:`_no_tighter_limits` raises to a size."""

_DEFAULTS_HOLD = min(default for _, default in _DEFAULT_LIMITS)
"""The most kept bytes the default limits are no tighter than (the depth's)."""


def _no_tighter_limits(n: int) -> Limits:
    """Limits no tighter than ``n`` kept bytes need: whatever parse they came from.

    >>> _no_tighter_limits(3) == Limits(), _no_tighter_limits(100).max_depth
    (True, 100)
    """
    if n <= _DEFAULTS_HOLD:  # frozen: the one default object serves them all
        return DEFAULT
    return Limits(**{name: max(default, n) for name, default in _DEFAULT_LIMITS})


def reads_back(kept, model, record: str, parse, values=None) -> bool:
    """Whether ``kept``, a model's ``wire_form``, reads (by ``parse``) as the very
    ``model``: what is left to compare when the model's values alone do not build. With
    ``values(model, record)``, the two compare as it gives them (a generated module's
    JSON form read back, which leaves out what build computes: a const, a checksum); a
    model it does not take is not the one the bytes read as.

        >>> parse = lambda data, record, **limits: {"n": 1, "wire_form": data}
        >>> reads_back(b"\\x81\\x00", {"n": 1, "wire_form": b"\\x81\\x00"}, "count", parse)
        True
        >>> reads_back(b"\\x81\\x00", {"n": 2, "wire_form": b"\\x81\\x00"}, "count", parse)
        False
    """
    if not isinstance(kept, (bytes, bytearray)):
        return False
    same = values or (lambda model, record: model)
    limits = dataclasses.asdict(_no_tighter_limits(len(kept)))
    try:
        again = parse(bytes(kept), record, **limits)
    except DecodeError:  # these bytes are not the model's
        return False
    try:
        return same(again, record) == same(model, record)
    except (WirespecError, TypeError, ValueError):  # values with no JSON form: not these
        return False


def reads_as(built, kept, rewrite) -> bool:
    """Whether ``kept``, a model's kept bytes, still read as what build wrote of the model,
    ``built``: ``rewrite(kept, limits)`` reads them again (within ``limits``, none tighter
    than they need) and writes what it read as build writes it, not as the kept bytes
    again; the two are the same message when that gives ``built``. Derived and computed
    fields (a CRC, a count) need not be in the model for that; floats compare by their
    bits. Bytes that are not a model's at all (a DecodeError or EncodeError) do not.
    ``kept`` is bytes, or a tuple of bytes: a message in several columns (a Kafka key
    and value), which ``rewrite`` takes as that tuple.

        >>> def rewrite(data, limits):  # 1 in one byte or two, or another count
        ...     return b"\\x01" if data in (b"\\x01", b"\\x81\\x00") else data[:1]
        >>> reads_as(b"\\x01", b"\\x81\\x00", rewrite)
        True
        >>> reads_as(b"\\x02", b"\\x81\\x00", rewrite)  # the model changed
        False
    """
    if isinstance(kept, (bytes, bytearray)):
        kept, n = bytes(kept), len(kept)
    elif type(kept) is tuple and all(type(column) is bytes for column in kept):
        n = max(map(len, kept), default=0)
    else:
        return False
    try:
        return rewrite(kept, _no_tighter_limits(n)) == built
    except (DecodeError, EncodeError):  # these bytes are not the model's: write the model
        return False


def to_json(kept) -> dict:
    """Kept bytes' JSON form (read back by ``runtime.core.codec.bytes_from_json``, which
    this module cannot import: ``codec`` imports the varint readers, which note here).

    >>> to_json(b"\\x81\\x00")
    {'$hex': '8100'}
    >>> to_json(7)  # a model given a count, not bytes: not 7 zero bytes
    Traceback (most recent call last):
    ...
    TypeError: cannot represent int as kept bytes in JSON
    """
    if not isinstance(kept, (bytes, bytearray, memoryview)):
        raise TypeError(f"cannot represent {type(kept).__name__} as kept bytes in JSON")
    return {"$hex": bytes(kept).hex()}


class JsonView:
    """The JSON form of ``wire_form``: ``{"$hex": ...}`` when a model keeps bytes, left out
    when it keeps none (every record of a message its writers wrote)."""

    def put(self, out: dict, name: str, value) -> None:
        if value is not None:
            out[name] = to_json(value)


JSON_VIEW = JsonView()
"""The one :class:`JsonView` every generated ``JSON_VIEWS`` names."""
