"""Kept forms: a message read from bytes ``build`` would write otherwise keeps those bytes.

A reader takes forms no writer writes: a LEB128 varint longer than it needs (``81 00`` for
1, which Avro's and Kafka's readers take and their writers never write). ``build`` writes
the shortest form, so ``build(parse(x)) != x`` for such an ``x``. A parsed model keeps its
message's bytes in its ``wire_form`` field for them, and ``build`` writes them back while
the model still reads as them (:func:`reads_as`); a changed model is written canonically.

It is decided on the readers' slow path, never by building at parse time: a reader that
meets a varint longer than it needs calls :func:`note` (the generated fast path's inline
forms take shortest varints only, and its slow path notes a longer one; the construct
path's stream readers in ``runtime.core.leb128`` note it; the quick and compiled tiers
decline it, so the exact reader decides). :func:`keeping` wraps a module's ``parse``: when a note was
made while it read, the model it returns keeps the input as ``wire_form``; else
``wire_form`` is None (every message its writers wrote). The model that keeps it is the
one ``parse`` returned: its records inside hold None.

Equality: ``wire_form`` is a field of the model like any other, so it takes part in
``==``, as MySQL's ``wire_form`` and Thrift's ``wire_layout`` do: a model read from
non-canonical bytes is not equal to the same values read from canonical ones (they do not
build the same bytes).

    >>> from runtime.core.leb128 import UVarInt
    >>> seen = noted()
    >>> UVarInt().parse(b"\\x81\\x00"), noted() - seen     # 1 in two bytes: noted
    (1, 1)
    >>> UVarInt().parse(b"\\x81\\x01"), noted() - seen     # 129, shortest: not
    (129, 1)
"""

from __future__ import annotations

import dataclasses
import functools
import threading

from runtime.core.errors import DecodeError, EncodeError
from runtime.core.limits import Limits

FIELD = "wire_form"
"""The model field that keeps a message's bytes (None: build writes them as read)."""


class _Seen(threading.local):
    count = 0
    """How many varints longer than they need this thread's readers have met."""


_SEEN = _Seen()


def note() -> None:
    """A reader met a form ``build`` writes otherwise: the message it reads keeps its bytes."""
    _SEEN.count += 1


def noted() -> int:
    """How many notes this thread's readers have made so far (compare two readings)."""
    return _SEEN.count


def keeping(parse):
    """``parse(data, record, **limits)`` whose model keeps ``data`` as its ``wire_form``
    when its reading noted a form ``build`` writes otherwise (:func:`note`), if its class
    has that field (a record whose runtime type keeps its bytes itself has none)."""

    @functools.wraps(parse)
    def kept_parse(data, *args, **kwargs):
        seen = _SEEN.count
        model = parse(data, *args, **kwargs)
        if _SEEN.count != seen and hasattr(type(model), FIELD):
            setattr(model, FIELD, bytes(data))
        return model

    return kept_parse


def writing_kept(build, parse, default_record: str):
    """``build(model, record)`` that writes a model's ``wire_form`` while it still means
    what the model means (:func:`reads_as`), and the model otherwise."""

    @functools.wraps(build)
    def kept_build(model, record: str = default_record) -> bytes:
        built = build(model, record)
        kept = getattr(model, FIELD, None)
        if kept is not None and reads_as(built, kept, record, parse, build):
            return bytes(kept)
        return built

    return kept_build


def reads_as(built: bytes, kept, record: str, parse, build) -> bool:
    """Whether ``kept``, a model's ``wire_form``, still reads (by ``parse``, its module's)
    as what ``build`` wrote of the model, ``built``: the two are the same message, one
    of them in the forms build writes. Derived and computed fields (a CRC, a count) need
    not be in the model for that; floats compare by their bits.

        >>> def parse(data, record, **limits):  # 1 in one byte or two, or another count
        ...     return 1 if data in (b"\\x01", b"\\x81\\x00") else data[0]
        >>> build = lambda n, record: bytes([n])
        >>> reads_as(b"\\x01", b"\\x81\\x00", "count", parse, build)
        True
        >>> reads_as(b"\\x02", b"\\x81\\x00", "count", parse, build)  # the model changed
        False
    """
    if not isinstance(kept, (bytes, bytearray)):
        return False
    n = len(kept)
    base = Limits()
    # read again within no tighter limits than its bytes need: whatever parse it came from
    limits = {f.name: max(getattr(base, f.name), n) for f in dataclasses.fields(Limits)}
    try:
        return build(parse(bytes(kept), record, **limits), record) == built
    except (DecodeError, EncodeError):  # these bytes are not the model's: write the model
        return False


class JsonView:
    """The JSON form of ``wire_form``: ``{"$hex": ...}`` when a model keeps bytes, left out
    when it keeps none (every record of a message its writers wrote)."""

    def put(self, out: dict, name: str, value) -> None:
        if value is not None:
            out[name] = {"$hex": bytes(value).hex()}


JSON_VIEW = JsonView()
"""The one :class:`JsonView` every generated ``JSON_VIEWS`` names."""
