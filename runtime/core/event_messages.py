"""Messages of events: what a codec whose message (one Kafka message's columns) is a list of
events does that is no format's own; the TiCDC codecs (``runtime.formats.craft``,
``runtime.formats.open_protocol``) derive from :class:`EventMessages`.

- The bytes read stay with what was read from them (a :class:`ReadEvents`, or a message
  model's ``wire_form``) and are written back while the events still read as them
  (:func:`runtime.core.kept.reads_as`): the formats' readers take forms their writers never
  write (Go's JSON spaces and key orders, Craft's longer varints).
- ``decode_message(value, **limits)`` (:class:`KeyValueMessages`: ``(key, value,
  **limits)``) and ``encode_events(events, *limits, **options)`` are the entry points the
  generated module exports: limits by name, and the spec's rendered ``batch:`` over the
  codec's writer.

A format of one byte per event whose reader skips zero bytes (padding its writer never
writes):

    >>> class Padded(EventMessages):
    ...     events_of = staticmethod(iter)
    ...     def read_message(self, data, limits):
    ...         return kept_events([b for b in data if b], data)
    ...     def write_message(self, events):
    ...         return bytes(events)
    >>> codec = Padded()
    >>> events = codec.read_message(b"\\x05\\x00\\x07", None)
    >>> events, codec.build_message(events), list(codec.decode_message(b"\\x05\\x00\\x07"))
    ([5, 7], b'\\x05\\x00\\x07', [5, 7])
    >>> events.append(9)  # no longer what the kept bytes say
    >>> codec.build_message(events)
    b'\\x05\\x07\\t'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from runtime.core.errors import EncodeError
from runtime.core.kept import FIELD, reads_as
from runtime.core.limits import DEFAULT, Limits


class EventMessages:
    """Base of the codec of a format whose message, a Kafka value, is a list of events (see
    the module), which gives ``read_message(value, limits)`` (the model of one message
    within ``limits``, a :class:`runtime.core.limits.Limits`, keeping the bytes) and
    ``write_message(model)`` (the bytes its writers write for the model)."""

    batch: Callable | None = None
    """The spec's rendered ``batch:`` (``batch(events, writer, *limits)``), or None: the
    spec says none, and ``encode_events`` refuses."""

    def events_of(self, model):
        """What ``decode_message`` answers for ``model``: its events."""
        return model.events

    def writer(self, options: dict):
        """What ``batch`` calls for one ``encode_events`` call: ``parts(i, event)`` (event
        ``i``'s parts, its errors at ``events[i]``), ``pack(parts)`` (a batch's message)
        and ``batches(events, *limits)`` (the compiled tier's messages, or None). Takes
        the format's own ``options`` out of the call's (the rest are the batch's)."""
        return self

    def decode_message(self, value: bytes, **limits):
        """The events of one message, in order, read within ``limits``
        (:mod:`runtime.core.limits`, by name)."""
        lim = Limits.from_kwargs(limits) if limits else DEFAULT  # inline: the call is hot
        return self.events_of(self.read_message(value, lim))

    def encode_events(self, events: Iterable, *limits, **options) -> Iterator:
        """The messages of ``events``: the spec's ``batch:`` (its arguments and defaults
        are the spec's: ``max_batch_size``, ``max_message_bytes``, ...; by position or
        name) over the codec's :meth:`writer`, which takes its own ``options``.

            >>> def pairs(events, writer, max_batch_size=2):  # a batch: of 2 events a message
            ...     parts = [writer.parts(i, ev) for i, ev in enumerate(events)]
            ...     for start in range(0, len(parts), max_batch_size):
            ...         yield writer.pack(parts[start:start + max_batch_size])
            >>> class Codec(EventMessages):
            ...     batch = staticmethod(pairs)
            ...     parts = staticmethod(lambda i, ev: bytes([ev]))
            ...     pack = staticmethod(b"".join)
            >>> list(Codec().encode_events([1, 2, 3])), list(Codec().encode_events([1, 2, 3], 3))
            ([b'\\x01\\x02', b'\\x03'], [b'\\x01\\x02\\x03'])
        """
        if self.batch is None:
            raise EncodeError("the spec declares no batch: for these messages")
        return self.batch(events, self.writer(options), *limits, **options)

    def build_message(self, model):
        """The columns of ``model``: its kept ones (:meth:`kept_form`) where they still
        read as it, else what the format's writers write."""
        written = self.write_message(model)
        kept = self.kept_form(model, written)
        return written if kept is None else kept

    def kept_form(self, model, written):
        """``model``'s ``wire_form`` (the columns it was read from) where that is not
        ``written`` (what the writers write for the model) and still reads as it: says
        what the model says, down to what ``==`` does not tell apart (``1`` and ``1.0``,
        ``0.0`` and ``-0.0``); else None."""
        kept = getattr(model, FIELD, None)
        if kept is None or kept == written or self._kept_columns(kept) is None:
            return None
        return kept if reads_as(written, kept, self._rewrite_kept) else None

    def _kept_columns(self, kept) -> tuple | None:
        """Kept columns as a tuple, or None where they are not their shape (bytes)."""
        return (kept,) if type(kept) is bytes else None

    def _rewrite_kept(self, kept, limits):
        """Kept columns read again within ``limits`` and written as the writers write them
        (``reads_as``' ``rewrite``)."""
        return self.write_message(self.read_message(*self._kept_columns(kept), limits))


class KeyValueMessages(EventMessages):
    """Base of the codec of a format whose message is a Kafka key and value: as
    :class:`EventMessages`, its columns (``read_message(key, value, limits)``, its kept
    form and ``write_message``'s answer) a ``(key, value)`` tuple of bytes."""

    def decode_message(self, key: bytes, value: bytes, **limits):
        """The events of one message, in order, read within ``limits``
        (:mod:`runtime.core.limits`, by name)."""
        lim = Limits.from_kwargs(limits) if limits else DEFAULT
        return self.events_of(self.read_message(key, value, lim))

    def _kept_columns(self, kept) -> tuple | None:
        """Kept columns, or None where they are not their shape (a tuple of two)."""
        return kept if type(kept) is tuple and len(kept) == 2 else None


class ReadEvents(list):
    """The events of a message as its reader read them: a list that keeps the message's
    bytes (``wire_form``, not copied), which :meth:`EventMessages.build_message` writes
    back while the list still reads as them; a changed list, or a plain one, is written
    as the format's writers write it. The compiled tier makes it as ``ReadEvents()`` and
    sets the slot (``RuntimeType.kept_as``): it has no other room and no ``__init__``.

        >>> events = kept_events([1, 2], b"\\x01\\x02")
        >>> events, events.wire_form
        ([1, 2], b'\\x01\\x02')
    """

    __slots__ = (FIELD,)


def kept_events(events: list, data: bytes) -> ReadEvents:
    """``events`` as a :class:`ReadEvents` that keeps ``data``."""
    read = ReadEvents(events)
    read.wire_form = data
    return read
