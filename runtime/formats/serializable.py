"""``mysql::serialization`` messages ("serializables") and their containers.

A message is a list of id-keyed fields. The type of a field is not on the wire, only its id::

    top level    := format_version(=1)  size  lnifid  field*
    nested field := field_id            size  lnifid  field*   (ids restart at 0 inside)
    in container :=                     size  lnifid  field*
    field        := field_id  value

Every integer above is an :class:`~runtime.core.msbvarint.MsbVarInt`. ``size``
(``serializable_field_size``) counts the message's bytes from its first byte (the version
or field id, or the size itself in a container) to its end; ``lnifid``
(``last_non_ignorable_field_id``) is one more than the highest id of a present field
whose unknown-field policy is ``"error"``, or 0. A reader that knows fewer fields than
``lnifid`` must refuse the message; any other unknown trailing fields are skipped by
jumping to the end that ``size`` gives. The parsed model keeps their bytes (``unknown_fields``,
from the first unknown id to the message's end: the wire does not say where one unknown
value ends) and build writes them back in place, so a newer writer's message round-trips.
What MySQL's reader takes and its writer never writes (a varint longer than it needs, an
optional field written at its default) the readers note (``runtime.core.kept``): the model
a generated module's ``parse`` returns keeps its bytes then (``wire_form``).

    >>> from runtime.core.msbvarint import MsbVarInt
    >>> point = SerializableMessage(
    ...     Field(0, "x", MsbVarInt()),
    ...     Field(1, "y", MsbVarInt(), default=0),
    ... )
    >>> point.build({"x": 5, "y": 0}).hex()      # y equals its default: not written
    '020a00000a'
    >>> point.parse(bytes.fromhex("020a00000a"))
    Container(serializable_field_size=5, last_non_ignorable_field_id=0, x=5, y=0)
    >>> seen = kept.SEEN.count  # x = 1 in two bytes (05 00): MySQL reads it, never writes it
    >>> point.parse(bytes.fromhex("020c00000500")).x, kept.SEEN.count - seen
    (1, 1)

Fixed-size arrays (the 16 bytes of a UUID) need no class of their own: use construct's
``Array(16, MsbVarInt(8))``, which has no count on the wire either.
"""

from __future__ import annotations

import io
from collections.abc import Mapping

from construct import Construct, ConstructError, Container, ListContainer, SizeofError

from runtime.core import kept
from runtime.core.errors import DecodeError, EncodeError, SpecError
from runtime.core.fast import msb_head_as_built
from runtime.core.limits import current
from runtime.core.msbvarint import (
    decode_uvar,
    encode_uvar,
    encode_uvar_wide,
    read_uvar,
    read_uvar_as_is,
    uvar_size,
    write_uvar,
)
from runtime.core.record import build_failure
from runtime.core.spans import current as current_spans
from runtime.core.stream import remaining

SIZE_KEY = "serializable_field_size"
LNIFID_KEY = "last_non_ignorable_field_id"
UNKNOWN_KEY = "unknown_fields"
"""The model key of the bytes a newer writer's fields took (None when there are none)."""
FORMAT_VERSION = 1
"""The id of every top-level message (``serialization_format_version``): byte ``02``."""

_HEADER_KEYS = (SIZE_KEY, LNIFID_KEY, UNKNOWN_KEY, kept.FIELD)
_REQUIRED = object()
_POLICIES = ("ignore", "error")
# Construct's own errors and the plain ones a stock subconstruct raises for a bad model
# value (construct's Array calls len() on it, for example); turned into ours at the field.
_BUILD_ERRORS = (ConstructError, TypeError, ValueError, AttributeError)


class Field:
    """One field of a :class:`SerializableMessage` and its presence rule.

    * ``Field(0, "gtid_flags", MsbVarInt(8))``: always written; missing on parse is an error.
    * ``Field(11, "commit_group_ticket", MsbVarInt(), default=0)``: written only when the
      value differs from ``default``; absent means ``default``.
    * ``Field(7, "original_commit_timestamp", MsbVarInt(),
      default_from="immediate_commit_timestamp")``: written only when the value differs from
      that field's value; absent means that value.

    ``unknown_field_policy="error"`` makes a present field count towards
    ``last_non_ignorable_field_id`` (MySQL's ``Unknown_field_policy``; the default is
    ``"ignore"``). A nested message is given as a ``SerializableMessage(...,
    top_level=False)`` subconstruct; it is always written and takes neither default.
    """

    def __init__(
        self,
        id: int,
        name: str,
        subcon: Construct,
        *,
        default=_REQUIRED,
        default_from: str | None = None,
        unknown_field_policy: str = "ignore",
    ):
        self.id, self.name, self.subcon = id, name, subcon
        self.default, self.default_from = default, default_from
        self.non_ignorable = unknown_field_policy == "error"
        self.is_message = isinstance(subcon, SerializableMessage)
        if unknown_field_policy not in _POLICIES:
            raise SpecError(f"field {name}: unknown_field_policy must be one of {_POLICIES}")
        if default is not _REQUIRED and default_from is not None:
            raise SpecError(f"field {name}: give default or default_from, not both")
        if self.is_message and (subcon.top_level or self.optional):
            raise SpecError(f"field {name}: a nested message is top_level=False, without default")

    @property
    def optional(self) -> bool:
        return self.default is not _REQUIRED or self.default_from is not None

    def absent_value(self, model: Mapping):
        """The value this field has when it is not on the wire."""
        return model[self.default_from] if self.default_from else self.default

    def __repr__(self):
        rule = f", default={self.default!r}" if self.default is not _REQUIRED else ""
        rule += f", default_from={self.default_from!r}" if self.default_from else ""
        rule += ", unknown_field_policy='error'" if self.non_ignorable else ""
        return f"Field({self.id}, {self.name!r}, {self.subcon!r}{rule})"


class SerializableMessage(Construct):
    """A ``mysql::serialization`` message: a header, then its present fields in id order.

    Field ids must be 0, 1, 2, ... in declaration order: MySQL assigns them by position.
    ``top_level=True`` (an event body) starts with the format version 1 and occupies the
    rest of its stream (wrap it in ``FixedSized`` when something follows it).
    ``top_level=False`` is a message nested as a :class:`Field` or inside a container.

    Parse returns a ``Container`` with ``serializable_field_size``,
    ``last_non_ignorable_field_id``, every field (absent ones set to their defaults) and,
    when the message holds fields this reader does not know, ``unknown_fields`` (their
    bytes; build writes them after the known fields, where they came from).
    Build computes the size (the self-consistent value, see below) and the lnifid; a model
    that carries either one keeps it when it is also valid for the built bytes, so that
    ``build(parse(x)) == x`` for MySQL's own off-by-one sizes too. What build would write
    otherwise (non-minimal varints, optional fields written with their default value:
    MySQL's reader takes both, its ``read_varlen_bytes`` reads any length a first byte
    announces, but its writer writes neither; a header neither shortest nor widened as
    build widens it; a nested message the parent's end left out) parse notes
    (``runtime.core.kept``), and the generated module's ``parse`` keeps the message's
    bytes as ``wire_form``, written back while the model still reads as them. A changed
    model is written in the canonical form, known fields minimal and a kept size made up
    by longer header varints (:meth:`_Header.widened`); set ``serializable_field_size``
    to None after shortening a parsed model's values to get the computed size instead.

        >>> from runtime.core.msbvarint import MsbVarInt
        >>> SerializableMessage(Field(0, "a", MsbVarInt())).parse(bytes.fromhex("020600"))
        Traceback (most recent call last):
        ...
        runtime.core.errors.DecodeError: a at offset 3: required field 0 is missing

    Sizes: MySQL writes ``len(id) + len(varint(P)) + len(lnifid) + P`` for P payload bytes,
    which is one short of the real length when adding the size's own bytes crosses a varint
    boundary (P = 125..127 at the top level, for instance). The builder writes the real
    length; the parser accepts both.

    Parse raises :class:`DecodeError` for a wrong version, a size that does not match,
    an lnifid beyond the known fields, out-of-order ids, a missing required field, and
    anything its fields raise (with the field name prepended to the path). Build raises
    :class:`EncodeError`, also for ``unknown_fields`` that would not read back as such.
    """

    def __init__(self, *fields: Field, top_level: bool = True, model=None):
        super().__init__()
        self.fields, self.top_level = fields, top_level
        self.model = model
        """A generated model class that parse returns (a ``Container`` when None)."""
        names = [f.name for f in fields]
        if [f.id for f in fields] != list(range(len(fields))):
            raise SpecError(
                f"field ids must be 0, 1, 2, ... in order, got {[f.id for f in fields]}"
            )
        if len(set(names)) != len(names) or set(_HEADER_KEYS) & set(names):
            raise SpecError(f"field names must be unique and not {'/'.join(_HEADER_KEYS)}")
        by_name = dict(zip(names, fields))
        for f in fields:
            ref = by_name.get(f.default_from, f) if f.default_from else None
            if ref is f or (ref is not None and (ref.optional or ref.is_message)):
                raise SpecError(f"field {f.name}: default_from must name a required field")

    def _sizeof(self, context, path):
        raise SizeofError("a message's size depends on its values", path=path)

    # -- parsing ---------------------------------------------------------------------------

    def _parse(self, stream, context, path):
        start = stream.tell()
        if self.top_level:
            version = read_uvar(stream, 64, "format version")
            if version != FORMAT_VERSION:
                raise DecodeError(
                    f"format version (top-level id) is {version}, expected {FORMAT_VERSION}",
                    offset=start,
                )
            spans = current_spans(context)
            if spans is not None:
                spans.mark(start, stream.tell(), "version", version)
        return self._read(stream, context, path, start)[0]

    def _read(self, stream, context, path, start):
        """Parse from the size varint on (``start``: where the message's bytes begin): the
        model, and whether it holds a known field (a non-ignorable nested message counts
        towards its parent's lnifid only then, as build counts it)."""
        size_at = stream.tell()
        declared, size_len = read_uvar_as_is(stream, 64, SIZE_KEY)
        lnifid_at = stream.tell()
        lnifid, lnifid_len = read_uvar_as_is(stream, 64, LNIFID_KEY)
        if lnifid > len(self.fields):
            raise DecodeError(
                f"{LNIFID_KEY} is {lnifid}: the writer has a non-ignorable field {lnifid - 1}, "
                f"this reader knows fields 0..{len(self.fields) - 1} only",
                offset=lnifid_at,
            )
        header = _Header(id_len=size_at - start, lnifid_len=stream.tell() - lnifid_at)
        fields_at = stream.tell()
        spans = current_spans(context)
        if spans is not None:
            spans.open(SIZE_KEY, size_at)
            spans.close(lnifid_at, declared)
            spans.open(LNIFID_KEY, lnifid_at)
            spans.close(fields_at, lnifid)
        end = self._fields_end(stream, start, declared, header, size_at)
        ctx = _child_context(context, stream)
        result = Container({SIZE_KEY: declared, LNIFID_KEY: lnifid})
        present = []
        built_lnifid = 0  # the lnifid build writes for the fields present
        for f in self.fields:
            at = stream.tell()
            value = holds = _ABSENT
            if at < end:
                value, holds = self._parse_field(f, stream, ctx, path, at)
            if value is _ABSENT:
                value = _missing(f, ctx, path, at)
            else:
                present.append(f)
                if f.non_ignorable and holds:
                    built_lnifid = f.id + 1
            result[f.name] = ctx[f.name] = value
        _resolve_defaults(self.fields, result)
        here = stream.tell()
        if here > end and declared != header.mysql_size(here - fields_at):
            raise DecodeError(
                f"fields end {here - end} byte(s) past {SIZE_KEY}={declared}", offset=size_at
            )
        # Fields this reader does not know, appended by a newer writer: kept as they came
        # (the wire does not say where one unknown value ends, so as one run of bytes).
        if here < end:
            result[UNKNOWN_KEY] = stream.read(end - here)
            if spans is not None:
                spans.open(UNKNOWN_KEY, here)
                spans.close(end, result[UNKNOWN_KEY])
        stream.seek(max(here, end))
        length = max(here, end) - start
        if lnifid < built_lnifid or not msb_head_as_built(
            declared, lnifid, size_len, lnifid_len, length
        ):
            kept.note()  # a header build writes otherwise
        self._note_defaults(present, result)
        model = result if self.model is None else self.model(**result)
        return model, bool(present)

    def _note_defaults(self, present, result) -> None:
        """Note an optional field written at its default (build leaves it out), unless it
        is the last known one and the unknown fields need it (:func:`written_for_unknown`)."""
        needed = written_for_unknown(result.get(UNKNOWN_KEY), len(self.fields))
        last = self.fields[-1]
        for f in present:
            at_default = f.optional and result[f.name] == f.absent_value(result)
            if at_default and not (needed and f is last):
                kept.note()

    def _fields_end(self, stream, start, declared, header, size_at) -> int:
        """Check the declared size; return the offset where this message's fields end."""
        header_len = stream.tell() - start
        available = header_len + remaining(stream)
        if self.top_level:
            # The message is the rest of the stream, so the size can be checked exactly:
            # the true length, or MySQL's formula value (one less at varint boundaries).
            if declared not in (available, header.mysql_size(available - header_len)):
                raise DecodeError(
                    f"{SIZE_KEY} is {declared} but the message has {available} bytes",
                    offset=size_at,
                )
            return start + available
        if not header_len <= declared <= available:
            raise DecodeError(
                f"{SIZE_KEY} {declared} does not fit: the header alone is {header_len} bytes "
                f"and {available} remain",
                offset=size_at,
            )
        return start + declared

    def _parse_field(self, f: Field, stream, ctx, path, at):
        """The value of ``f`` and whether it holds a field (a nested message may not) if
        the next id is its own (else ``_ABSENT`` twice; nothing consumed)."""
        found, used = read_uvar_as_is(stream, 64, "field id")
        if found == f.id:
            if used > uvar_size(found):
                kept.note()  # an id longer than it needs
            return _parse_value(f, stream, ctx, path, at)
        stream.seek(at)  # only peeked: the id belongs to a later field
        if found < f.id or f.is_message:
            raise DecodeError(f"expected field id {f.id}, found {found}", offset=at)
        return _ABSENT, _ABSENT

    def _absent(self, context, path, at):
        """The model of a nested message whose parent ended before it."""
        ctx = _child_context(context, None)
        result = Container({SIZE_KEY: None, LNIFID_KEY: None})
        for f in self.fields:
            result[f.name] = ctx[f.name] = _missing(f, ctx, path, at)
        _resolve_defaults(self.fields, result)
        return result if self.model is None else self.model(**result)

    # -- building --------------------------------------------------------------------------

    def _build(self, obj, stream, context, path):
        prefix = encode_uvar(FORMAT_VERSION) if self.top_level else b""
        self._build_with_prefix(obj, stream, context, path, prefix)
        return obj

    def _build_with_prefix(self, obj, stream, context, path, prefix: bytes) -> int:
        """Write ``prefix`` (the id, if any) and the message; return whether it has fields."""
        if not isinstance(obj, Mapping) and callable(getattr(obj, "items", None)):
            obj = dict(obj.items())  # a generated model class
        if not isinstance(obj, Mapping):
            raise EncodeError.expected("a model or a mapping of field values", obj)
        ctx = _child_context(context, stream, building=True)
        ctx.update(obj)
        body = io.BytesIO()
        lnifid = written = 0
        last_written = -1
        last = len(self.fields) - 1
        keep_last = written_for_unknown(obj.get(UNKNOWN_KEY), len(self.fields))
        for f in self.fields:
            if not _is_written(f, obj) and not (
                keep_last and f.id == last and obj.get(f.name) is not None
            ):
                continue
            last_written = f.id
            try:
                if f.is_message:  # it writes its own id: its size counts from there
                    has_fields = f.subcon._build_with_prefix(
                        obj.get(f.name, {}), body, ctx, path, encode_uvar(f.id)
                    )
                else:
                    body.write(encode_uvar(f.id))
                    f.subcon._build(obj[f.name], body, ctx, path)
                    has_fields = True
            except EncodeError as err:
                err.add_path(f.name)
                raise
            except _BUILD_ERRORS as err:
                raise build_failure(err, f.subcon, obj.get(f.name), f.name) from None
            written += 1
            # An empty nested message cannot hold anything a reader must understand.
            if f.non_ignorable and has_fields:
                lnifid = f.id + 1
        given = obj.get(LNIFID_KEY)
        if type(given) is int and lnifid <= given <= len(self.fields):
            lnifid = given  # the model's own, valid for these fields: kept
        payload = body.getvalue() + unknown_bytes(
            obj.get(UNKNOWN_KEY), last_written, len(self.fields)
        )
        head = message_head(len(prefix), len(payload), lnifid, obj.get(SIZE_KEY))
        stream.write(prefix + head + payload)
        return written > 0


def holds_unknown(unknown_fields) -> bool:
    """Whether a message's ``unknown_fields`` value holds fields a newer writer added (its
    generated module's ``UNKNOWN_BYTES``, ``runtime.core.unknown_bytes``).

    >>> holds_unknown(b"\\x05\\x01"), holds_unknown(None), holds_unknown(b"")
    (True, False, False)
    """
    return bool(unknown_fields)


def message_head(id_len: int, payload: int, lnifid: int, given) -> bytes:
    """The ``serializable_field_size`` and ``last_non_ignorable_field_id`` varints of a
    message of ``payload`` field bytes after an id (or version) of ``id_len`` bytes: the
    true size, unless the model's own size (``given``) is MySQL's off-by-one value or can
    be kept by writing these two varints longer (see :class:`SerializableMessage`). The
    generated fast writers call it too.

        >>> message_head(1, 2, 0, None).hex()  # size 5 (version, size, lnifid, 2 bytes)
        '0a00'
        >>> message_head(1, 2, 0, 9).hex()  # kept: lnifid 0 in 5 bytes
        '120f00000000'
    """
    header = _Header(id_len=id_len, lnifid_len=uvar_size(lnifid))
    size = header.self_consistent_size(payload)
    head = encode_uvar(size) + encode_uvar(lnifid)
    if type(given) is int and given != size:
        if given == header.mysql_size(payload):
            head = encode_uvar(given) + encode_uvar(lnifid)  # MySQL's own off-by-one value
        else:
            head = header.widened(payload, given, lnifid) or head
    return head


class _Header:
    """The lengths that decide a message's ``serializable_field_size``."""

    def __init__(self, id_len: int, lnifid_len: int):
        self.id_len, self.lnifid_len = id_len, lnifid_len

    def self_consistent_size(self, payload: int) -> int:
        """The true byte count: solve ``s = id + len(varint(s)) + lnifid + payload``."""
        fixed = self.id_len + self.lnifid_len + payload
        size = fixed + 1
        while fixed + uvar_size(size) != size:  # grows monotonically; at most 8 steps
            size = fixed + uvar_size(size)
        return size

    def widened(self, payload: int, size: int, lnifid: int) -> bytes | None:
        """The size and lnifid varints that make a message of ``payload`` field bytes
        exactly ``size`` long, or None when no widths do.

        A model's size is larger than what the builder writes for its values when they
        changed since parse (shorter varints now) or when it was set by hand; an unchanged
        parsed model is written as its ``wire_form`` instead. The builder takes up the
        difference, up to 16 bytes, in the longer forms of these two varints, so that the
        message keeps its size (and the framing around it, an event_size, stays valid)."""
        room = size - (self.id_len + uvar_size(size) + self.lnifid_len + payload)
        if room < 0:
            return None
        lnifid_width = min(9, self.lnifid_len + room)
        room -= lnifid_width - self.lnifid_len
        size_width = min(9, uvar_size(size) + room)
        room -= size_width - uvar_size(size)
        if room:
            return None
        return encode_uvar_wide(size, size_width) + encode_uvar_wide(lnifid, lnifid_width)

    def mysql_size(self, payload: int) -> int:
        """What MySQL writes: it measures the size varint's length on the payload, so this
        is one less than the true length where adding that varint crosses a boundary."""
        return self.id_len + uvar_size(payload) + self.lnifid_len + payload


class MsbVector(Construct):
    """A varint element count, then the elements (a ``vector``, ``list`` or ``set``).

        >>> from runtime.core.msbvarint import MsbVarInt
        >>> MsbVector(MsbVarInt()).parse(bytes.fromhex("0402fd03"))
        ListContainer([1, 255])
        >>> MsbVector(MsbVarInt()).build([1, 255]).hex()
        '0402fd03'

    Messages inside containers are ``top_level=False`` and carry no id. The count is
    checked against the ``max_count`` limit and against the remaining bytes (each element
    takes at least one) before anything is read. Errors as for the elements, with
    ``[index]`` in the path.
    """

    def __init__(self, element: Construct):
        super().__init__()
        _check_element(element)
        self.element = element

    def _parse(self, stream, context, path):
        count = _read_count(stream, context, 1)
        return ListContainer(
            _parse_item(self.element, stream, context, path, i, None) for i in range(count)
        )

    def _build(self, obj, stream, context, path):
        if isinstance(obj, (str, Mapping)) or not hasattr(obj, "__len__"):
            raise EncodeError.expected("a sequence", obj)
        write_uvar(len(obj), stream, 64, "element count")
        for i, item in enumerate(obj):
            _build_item(self.element, item, stream, context, path, i, None)
        return obj

    def _sizeof(self, context, path):
        raise SizeofError("a vector's size depends on its values", path=path)


class MsbMap(Construct):
    """A varint pair count, then key, value, key, value, ... Parses to a ``dict``.

        >>> from runtime.core.msbvarint import MsbVarInt
        >>> from runtime.core.scalars import LengthPrefixedBytes
        >>> m = MsbMap(LengthPrefixedBytes(MsbVarInt(), "utf8"), MsbVarInt())
        >>> m.parse(bytes.fromhex("02026104"))
        {'a': 2}
        >>> m.build({"a": 2}).hex()
        '02026104'

    A repeated key is a :class:`DecodeError`. Limits and errors as for :class:`MsbVector`,
    with ``[index].key`` / ``[index].value`` in the path.
    """

    def __init__(self, key: Construct, value: Construct):
        super().__init__()
        _check_element(key)
        _check_element(value)
        self.key, self.value = key, value

    def _parse(self, stream, context, path):
        count = _read_count(stream, context, 2)
        result = {}
        for i in range(count):
            at = stream.tell()
            key = _parse_item(self.key, stream, context, path, i, "key")
            if key in result:
                raise DecodeError(f"map key {key!r} repeated", offset=at, path=f"[{i}]")
            result[key] = _parse_item(self.value, stream, context, path, i, "value")
        return result

    def _build(self, obj, stream, context, path):
        if not isinstance(obj, Mapping):
            raise EncodeError.expected("a mapping", obj)
        write_uvar(len(obj), stream, 64, "pair count")
        for i, (key, value) in enumerate(obj.items()):
            _build_item(self.key, key, stream, context, path, i, "key")
            _build_item(self.value, value, stream, context, path, i, "value")
        return obj

    def _sizeof(self, context, path):
        raise SizeofError("a map's size depends on its values", path=path)


# -- helpers -------------------------------------------------------------------------------

_ABSENT = object()  # placeholder for an optional field until its default is resolved


def _child_context(context, stream, building: bool = False) -> Container:
    # Like construct's Struct, so subconstructs can refer to earlier fields as this.name.
    return Container(
        _=context,
        _params=context.get("_params"),
        _root=context.get("_root", context),
        _parsing=not building,
        _building=building,
        _sizing=False,
        _subcons=None,
        _io=stream,
        _index=context.get("_index"),
    )


def _parse_value(f: Field, stream, ctx, path, at):
    """Parse a field's value, and whether it holds a field (a nested message may not); its
    id, at offset ``at``, has just been read."""
    value_at = stream.tell()
    spans = current_spans(ctx)
    if spans is not None:
        spans.open(f.name, at)
        spans.mark(at, value_at, "field id", f.id)
    try:
        holds = True
        if f.is_message:
            value, holds = f.subcon._read(stream, ctx, path, at)
        else:
            value = f.subcon._parsereport(stream, ctx, path)
        if spans is not None:
            spans.close(stream.tell(), value)
        return value, holds
    except DecodeError as err:
        err.add_path(f.name)
        raise
    except ConstructError as err:
        raise DecodeError(str(err), offset=value_at, path=f.name) from None


def _missing(f: Field, ctx, path, at):
    """The value of a field that is not on the wire at offset ``at``."""
    if f.is_message:
        kept.note()  # build writes a nested message the parent's end left out
        try:
            return f.subcon._absent(ctx, path, at)
        except DecodeError as err:
            err.add_path(f.name)
            raise
    if not f.optional:
        raise DecodeError(f"required field {f.id} is missing", offset=at, path=f.name)
    return _ABSENT


def _resolve_defaults(fields, result: Container) -> None:
    # After all fields, because default_from may name a field further down.
    for f in fields:
        if result[f.name] is _ABSENT:
            result[f.name] = f.absent_value(result)


def _is_written(f: Field, model: Mapping) -> bool:
    if not f.optional:
        if f.name not in model and not f.is_message:
            raise EncodeError("required field is missing", path=f.name)
        return True
    value = model.get(f.name)
    return value is not None and value != f.absent_value(model)


def written_for_unknown(raw, known: int) -> bool:
    """Whether unknown fields ``raw`` need the last of the ``known`` fields written even
    when it holds its default: they start with an id below ``known``, which a reader looking
    for that field takes for an id out of order, so the message they came from had it.

    >>> written_for_unknown(b"\\x00\\x02", 12), written_for_unknown(b"\\x18\\x02", 12)
    (True, False)
    """
    if not raw or not isinstance(raw, (bytes, bytearray)):
        return False
    try:
        first_id, _ = decode_uvar(raw, 0)
    except DecodeError:
        return False
    return first_id < known


def unknown_bytes(raw, last_written: int, known: int) -> bytes:
    """A model's ``unknown_fields``, checked to read back as unknown fields after the
    ``known`` fields (ids ``0 .. known-1``; ``last_written``: the last one written, or -1):
    a field id first, one past the known ids unless the last known field is written (a
    reader peeks at it for each absent known field). The generated fast writers call it
    too."""
    if raw is None:
        return b""
    if not isinstance(raw, (bytes, bytearray)):
        raise EncodeError.expected("bytes", raw, path=UNKNOWN_KEY)
    if last_written >= known - 1:
        return bytes(raw)  # the reader peeks at no id after the last known field: any bytes
    try:
        first_id, _ = decode_uvar(raw, 0)
    except DecodeError:
        raise EncodeError("must start with a field id", path=UNKNOWN_KEY) from None
    if first_id < known:
        raise EncodeError(
            f"starts with field id {first_id}, which a reader takes for a known field",
            path=UNKNOWN_KEY,
        )
    return bytes(raw)


def _check_element(element: Construct) -> None:
    if isinstance(element, SerializableMessage) and element.top_level:
        raise SpecError("a message inside a container has no id: use top_level=False")


def _read_count(stream, context, min_bytes_each: int) -> int:
    at = stream.tell()
    count = read_uvar(stream, 64, "element count")
    current(context).check("max_count", count, offset=at)
    left = remaining(stream)
    if count * min_bytes_each > left:
        raise DecodeError(f"count {count} needs more than the {left} bytes that remain", offset=at)
    return count


def _parse_item(sub, stream, context, path, index, part):
    at = stream.tell()
    try:
        return sub._parsereport(stream, context, path)
    except DecodeError as err:
        err.add_path(part)
        err.add_path(index=index)
        raise
    except ConstructError as err:
        path = f"[{index}]{'.' + part if part else ''}"
        raise DecodeError(str(err), offset=at, path=path) from None


def _build_item(sub, item, stream, context, path, index, part):
    try:
        sub._build(item, stream, context, path)
    except EncodeError as err:
        err.add_path(part)
        err.add_path(index=index)
        raise
    except _BUILD_ERRORS as err:
        raise build_failure(err, sub, item, f"[{index}]{'.' + part if part else ''}") from None
