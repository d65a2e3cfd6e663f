"""Records: an ordered sequence of named fields, and the fields whose value the record
works out from the others (``value:``, ``derived:``, ``valid:``, ``sizeof``).

construct's ``Struct`` reports errors as ``(parsing) -> rows -> value`` without offsets
or list indices. :class:`Record` parses the same way but turns every failure into a
:class:`~runtime.core.errors.DecodeError` carrying the byte offset and a path such as
``rows[0].attributes[3].value``, and it remembers the byte span of every field so a
:class:`~runtime.core.checksum.Checksum` can be computed over raw bytes.

    >>> from construct import Int8ul, Int16ul
    >>> point = Record("x" / Int8ul, "y" / Int16ul)
    >>> point.parse(b"\\x01\\x02\\x00")
    Container(x=1, y=2)
    >>> point.parse(b"\\x01\\x02")
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: y at offset 1: truncated: expected 2, found 1

The constructs a record holds live beside it: tag bytes in :mod:`runtime.core.tags`,
repeated fields in :mod:`runtime.core.sequences`, fields of a known byte size in
:mod:`runtime.core.sized`, scalars in :mod:`runtime.core.scalars`. Generated code reaches
them all as ``rt.<name>`` (``rt`` being this module), so this module re-exports them.
"""

from __future__ import annotations

import dataclasses
import io

from construct import (
    Construct,
    ConstructError,
    Container,
    FormatField,
    FormatFieldError,
    Subconstruct,
)

from runtime.core.byte_order import (  # noqa: F401 - generated code calls rt.ByteOrdered, ...
    ByteOrdered,
    ChoosesByteOrder,
)
from runtime.core.chunks import Chunk
from runtime.core.construct_errors import construct_message, packing_message
from runtime.core.errors import DecodeError, EncodeError, SiblingError, SpecError
from runtime.core.expressions import (  # noqa: F401 - generated code calls rt.power, ...
    EXPRESSION_ERRORS,
    bytes_left,
    expression_error,
    power,
    shift_left,
    times,
    unsatisfied,
    unsatisfied_text,
)
from runtime.core.limits import current as current_limits
from runtime.core.model import fields_of
from runtime.core.scalars import (  # noqa: F401 - generated code calls rt.Bool8, ...
    Bool8,
    Empty,
    EnumField,
    LengthPrefixedBytes,
    Magic,
    RestBytes,
    RestText,
    SizedBytes,
    TerminatedBytes,
    pad_to,
)
from runtime.core.sequences import (  # noqa: F401 - generated code calls rt.RepeatCount, ...
    BuiltList,
    Repeat,
    RepeatCount,
    RepeatEos,
    RepeatWhileTag,
)
from runtime.core.sized import (  # noqa: F401 - generated code calls rt.Sized, ...
    Sized,
    SizePrefixed,
    remember_measured,
)
from runtime.core.spans import current as current_spans
from runtime.core.tags import (  # noqa: F401 - generated code calls rt.Tag, ...
    Presence,
    Tag,
    Tagged,
)


def build_failure(err: Exception, subcon, value, path: str = "") -> EncodeError:
    """What a writer says of ``err``, raised by construct or Python while ``subcon`` built
    ``value``, in the words :class:`Record` says it (not construct's or Python's).

    >>> from construct import Int16ub
    >>> try:
    ...     Int16ub.build("x")
    ... except ConstructError as err:
    ...     print(build_failure(err, Int16ub, "x", "port"))
    port: expected an integer, got str 'x'
    """
    if isinstance(err, FormatFieldError):
        text = packing_message(err, value)
    elif isinstance(err, TypeError | AttributeError):
        text = _foreign_message(err, subcon, value)
    else:
        text = construct_message(err)
    return EncodeError(text, path=path)


def _foreign_message(err: Exception, subcon, value) -> str:
    """:func:`_message` of the TypeError or AttributeError Python raised building ``value``
    with ``subcon``: a value that is no list where a repeated field is (a generator, which
    has no length to count) said so. (A bytes field checks its value before using it.)"""
    if isinstance(value, list | tuple) or _unwrapped(subcon, Repeat) is None:
        return construct_message(err)
    return EncodeError.expected("a list", value).message


class _NoParent:
    """``_parent`` of a record parsed or built on its own: an expression that needs the
    enclosing record fails with a clear error instead of an AttributeError."""

    def __init__(self, parsing: bool):
        self.parsing = parsing

    def __getattr__(self, name):
        what = f"reads _parent.{name}: it needs its enclosing record"
        raise DecodeError(what) if self.parsing else EncodeError(what)


class Record(Construct):
    """An ordered sequence of named fields, like construct's ``Struct``.

    Differences that matter for wirespec:

    * errors are :class:`DecodeError`/:class:`EncodeError` with offset and field path;
    * nesting depth is checked against the ``max_depth`` limit;
    * the context keeps each field's byte span (``_spans``) for checksums;
    * building returns the built values (including computed checksums), so an
      enclosing checksum can use them.
    """

    def __init__(self, *subcons, trailer=(), model=None):
        super().__init__()
        self.model = model
        """The generated dataclass a parse returns (a ``Container`` when None)."""
        self.subcons = list(subcons)
        self.trailer = list(trailer)
        """Fields at the end of the record's bytes, in reading order: the first ends at
        the last byte, each next one where the one before it starts. They are read
        before the fields in front (which may use them) and written after them."""
        for sc in self.trailer:
            if not _reads_backwards(sc.subcon):
                raise SpecError(f"trailer field {sc.name!r} cannot be read from the end")
        self._subcons = Container((sc.name, sc) for sc in self.subcons + self.trailer if sc.name)
        self._deferred: dict[str, list] = {}
        """Checksums over fields after them, by the last field they cover: (name, checksum)."""
        for sc in self.subcons:
            after = getattr(getattr(sc, "subcon", None), "after", None)
            if after is not None:
                self._deferred.setdefault(after, []).append((sc.name, sc.subcon))
        self.flagbuildnone = all(sc.flagbuildnone for sc in self.subcons + self.trailer)

    def _child_context(self, context, stream):
        depth = context.get("_depth", 0) + 1
        child = Container(
            _=context,
            _params=context._params,
            _parsing=context._parsing,
            _building=context._building,
            _sizing=context._sizing,
            _subcons=self._subcons,
            _io=stream,
            _index=context.get("_index", None),
            _depth=depth,
            _spans={},
            # spec expressions say `_parent.x` for an enclosing record's x
            _parent=context if "_depth" in context else _NoParent(context._parsing),
        )
        return child, depth

    def _parse(self, stream, context, path):
        context, depth = self._child_context(context, stream)
        current_limits(context).check("max_depth", depth, offset=stream.tell())
        obj = Container()
        if self.trailer:
            return self._parse_with_trailer(stream, context, path, obj)
        self._parse_fields(stream, context, path, obj)
        return obj if self.model is None else self.model(**obj)

    def _parse_with_trailer(self, stream, context, path, obj):
        start = stream.tell()
        data = stream.read()
        limit = len(data)  # the trailer fields read so far start here
        spans = current_spans(context)
        for sc in self.trailer:
            # where the field starts is known once it is read: the span is moved then
            node = None if spans is None else spans.open(sc.name, start + limit)
            try:
                value, begin = sc.subcon._parse_backwards(data, limit, start, context, path)
            except DecodeError as err:
                err.add_path(sc.name)
                raise
            except EXPRESSION_ERRORS as err:
                offset = start + limit
                raise expression_error(err, offset, sc.name) from None
            obj[sc.name] = context[sc.name] = value
            context._spans[sc.name] = (start + begin, start + limit)
            if node is not None:
                node.start = spans.base + start + begin
                spans.close(start + limit, value)
            limit = begin
        front = io.BytesIO(data[:limit])
        try:
            if spans is None:
                self._parse_fields(front, context, path, obj)
            else:
                with spans.shifted(start):
                    self._parse_fields(front, context, path, obj)
        except DecodeError as err:
            err.shift(start)
            raise
        if front.tell() != limit:
            left = limit - front.tell()
            raise DecodeError(
                f"{left} byte(s) between the last field and the trailer",
                offset=start + front.tell(),
                path=self.trailer[-1].name,
            )
        if self.model is not None:
            return self.model(**obj)
        return Container((sc.name, obj[sc.name]) for sc in self._wire_order() if sc.name)

    def _wire_order(self):
        return self.subcons + self.trailer[::-1]

    def _parse_fields(self, stream, context, path, obj):
        spans = current_spans(context)
        for sc in self.subcons:
            start = stream.tell()
            if spans is not None and sc.name:
                spans.open(sc.name, start)
            try:
                value = sc._parsereport(stream, context, path)
            except DecodeError as err:
                if err.offset is None:
                    err.offset = start
                err.add_path(sc.name)
                raise
            except ConstructError as err:
                raise DecodeError(
                    construct_message(err), offset=start, path=sc.name or ""
                ) from None
            except EXPRESSION_ERRORS as err:
                raise expression_error(err, start, sc.name or "") from None
            if sc.name:
                obj[sc.name] = value
                context[sc.name] = value
                context._spans[sc.name] = (start, stream.tell())
                if spans is not None:
                    spans.close(stream.tell(), value)
                for name, checksum in self._deferred.get(sc.name, ()):
                    checksum.verify(name, context)
            elif spans is not None:
                tag = getattr(sc, "tag", None)
                spans.mark(start, stream.tell(), "tag" if isinstance(sc, Tag) else "fixed", tag)

    def _build(self, obj, stream, context, path):
        if obj is None:
            obj = Container()
        elif not isinstance(obj, dict):
            if not dataclasses.is_dataclass(obj):
                raise EncodeError.expected("a model or a dict", obj)
            obj = Container(fields_of(obj))
        context, _ = self._child_context(context, stream)
        context.update(obj)
        for sc in self._wire_order():
            start = stream.tell()
            try:
                value = obj.get(sc.name) if sc.flagbuildnone else obj[sc.name]
                if sc.name:
                    context[sc.name] = value
                built = sc._build(value, stream, context, path)
            except SiblingError as err:  # another field than sc is to blame
                raise self._blame_after(sc, obj, context, path) or err.plain() from None
            except EncodeError as err:
                err.add_path(sc.name)
                raise
            except KeyError as err:
                raise EncodeError(f"missing field {err}", path=sc.name or "") from None
            except FormatFieldError as err:  # raised by sc._build: value is set
                raise EncodeError(packing_message(err, value), path=sc.name or "") from None
            except (TypeError, AttributeError) as err:  # raised by sc._build: value is set
                raise EncodeError(_foreign_message(err, sc, value), path=sc.name or "") from None
            except (ConstructError, *EXPRESSION_ERRORS) as err:
                failed = EncodeError(construct_message(err), path=sc.name or "")
                failed.expression_failed = isinstance(err, EXPRESSION_ERRORS)
                raise failed from None
            if sc.name:
                context[sc.name] = built
                context._spans[sc.name] = (start, stream.tell())
                for name, checksum in self._deferred.get(sc.name, ()):
                    context[name] = checksum.patch(name, stream, context, path)
        return context

    def _sizeof(self, context, path):
        return sum(sc._sizeof(context, path) for sc in self._wire_order())

    def _blame_after(self, computed, obj, context, path) -> EncodeError | None:
        """A field after ``computed`` whose value no fixed-width number takes: written
        after ``computed`` is, it may have steered what that measured (a switch's key)."""
        fields = self._wire_order()
        for later in fields[fields.index(computed) + 1 :]:
            if isinstance(later.subcon, FormatField) and later.name in obj:
                try:
                    later.subcon._build(obj[later.name], io.BytesIO(), context, path)
                except FormatFieldError as err:
                    return EncodeError(packing_message(err, obj[later.name]), path=later.name)
                except EncodeError as err:  # runtime.core.fixed's own
                    err.add_path(later.name)
                    return err
        return None


def _reads_backwards(subcon) -> bool:
    """Whether ``subcon`` can be a trailer field (:meth:`Sized._parse_backwards`, ...)."""
    while isinstance(subcon, (Computed, Valid)):
        subcon = subcon.subcon
    return hasattr(subcon, "_parse_backwards")


class Computed(Subconstruct):
    """A field whose value the builder computes (``value:`` in a spec): parsed like
    ``subcon``; built from ``func(context)``, whatever the model holds.

    >>> from construct import Int8ul
    >>> rec = Record("n" / Computed(Int8ul, lambda this: len(this.xs)), "xs" / RepeatCount(Int8ul, lambda this: this.n))
    >>> rec.build({"xs": [7, 9]}).hex(), rec.parse(b"\\x01\\x05"), rec.build({"xs": None})
    ('020709', Container(n=1, xs=ListContainer([5])), b'\\x00')
    >>> from runtime.core.fixed import Int8ul
    >>> rec = Record("n" / Computed(Int8ul, lambda this: len(this.xs)), "xs" / RepeatCount(Int8ul, lambda this: this.n))
    >>> rec.build({"xs": [0] * 300})
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: n: 300 is out of range for uint8 (the value the builder computes, from the model's fields)
    """

    def __init__(self, subcon, func):
        super().__init__(subcon)
        self.func = func
        self.flagbuildnone = True

    def _build(self, obj, stream, context, path):
        try:
            value = self.func(context)
        except (EncodeError, *EXPRESSION_ERRORS) as err:
            try:  # a list given None: no elements, as the list builds it, at any depth
                value = self.func(_Emptied(context, context._subcons))
            except (EncodeError, *EXPRESSION_ERRORS):
                raise _blame(self.func, context) or err from None
        try:
            return self.subcon._build(value, stream, context, path)
        except EncodeError as err:  # a value the model never held: say whose it is
            if not err.path and not isinstance(err, SiblingError):
                err.message += " (the value the builder computes, from the model's fields)"
                err.args = (err.message,)
            raise

    def _parse_backwards(self, data, end, base, context, path):
        return self.subcon._parse_backwards(data, end, base, context, path)


def _blame(func, context) -> SiblingError | None:
    """Why a computed value could not be computed, when a field it reads is to blame: the
    expression run again on a :class:`_Trace` of ``context``; None when no field is."""
    try:
        func(_Trace(context, "", context._subcons))
    except SiblingError as err:
        return err
    except (EncodeError, *EXPRESSION_ERRORS):
        pass
    return None


class _Emptied:
    """A record's build context (or a model in it) as a computed value's expression reads
    it once it failed on the context itself: a list field holding None reads as ``[]``."""

    __slots__ = ("_fields", "_value")

    def __init__(self, value, fields):
        self._value, self._fields = value, fields

    def __getattr__(self, name):
        value = self._value
        if name.startswith("_"):  # the context's own; `_parent` is read through as well
            got = getattr(value, name)
            parent = name == "_parent" and isinstance(got, Container) and "_subcons" in got
            return _Emptied(got, got._subcons) if parent else got
        got = value[name] if isinstance(value, dict) else getattr(value, name)
        sub = self._fields.get(name)
        if got is None and isinstance(_unwrapped(sub, Repeat | Computed | Chunk), Repeat | Chunk):
            return []  # a list or a chunk (Craft's column names) given None: no elements
        fields = _fields(sub)
        return _Emptied(got, fields) if fields else got


class _Trace:
    """A value as a computed value's expression reads it (``len(records.objects)``), on a
    second run once the first failed: reading a field of what is no model, or the length of
    what is no list or bytes, is a :class:`SiblingError` at the value's path.

    >>> from construct import Int8ul
    >>> count = Computed(Int8ul, lambda this: len(this.xs))
    >>> Record("n" / count, "xs" / RepeatCount(Int8ul, 1)).build({"xs": 7})
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: xs: expected a list, got int 7
    """

    __slots__ = ("_path", "_sub", "_value")

    def __init__(self, value, path: str, sub):
        self._value, self._path, self._sub = value, path, sub

    def __getattr__(self, name):
        value = self._value
        if name.startswith("_"):  # the context's own (`_parent`, `_index`): not the model's
            return getattr(value, name)
        at = f"{self._path}.{name}" if self._path else name
        if isinstance(value, dict):
            if name not in value:  # a dict for a model: missing it, as Record says
                raise SiblingError(f"missing field {name!r}", path=at)
            got = value[name]
        elif dataclasses.is_dataclass(value) and name in fields_of(value):
            got = getattr(value, name)
        else:
            raise self._fails("a model")
        fields = self._sub if isinstance(self._sub, dict) else _fields(self._sub)
        return _Trace(got, at, fields.get(name))

    def __len__(self):
        if isinstance(self._value, list | tuple | bytes | bytearray | str):
            return len(self._value)
        sub = _unwrapped(self._sub, Repeat | SizedBytes | LengthPrefixedBytes | TerminatedBytes)
        kind = getattr(sub, "encoding", 0)
        raise self._fails("a list" if kind == 0 else "str" if kind else "bytes")

    def _fails(self, what: str) -> SiblingError:
        return SiblingError(EncodeError.expected(what, self._value).message, path=self._path)


def _unwrapped(subcon, kinds):
    """``subcon`` or the first of the constructs it wraps that is one of ``kinds``; None."""
    while subcon is not None and not isinstance(subcon, kinds):
        subcon = getattr(subcon, "subcon", None)
    return subcon


def _fields(subcon) -> dict:
    """The fields by name of the record ``subcon`` is or wraps (none: an empty dict)."""
    record = _unwrapped(subcon, Record)
    return {} if record is None else record._subcons


class Derived(Construct):
    """A value computed from fields read before it, not on the wire (Kaitai's
    ``instances``): parse gives ``function(context)``; build writes nothing and keeps
    what the model holds (the bytes say the value, so it needs no parent to build).

    >>> from construct import Int8ul
    >>> offset = Derived(lambda this: this.base + this.delta)
    >>> rec = Record("base" / Int8ul, "delta" / Int8ul, "offset" / offset)
    >>> rec.parse(b"\\x64\\x02").offset, rec.build({"base": 100, "delta": 2})
    (102, b'd\\x02')
    """

    def __init__(self, function):
        super().__init__()
        self.function = function
        self.flagbuildnone = True

    def _parse(self, stream, context, path):
        return self.function(context)

    def _build(self, obj, stream, context, path):
        return obj

    def _sizeof(self, context, path):
        return 0


class Valid(Subconstruct):
    """A field that must satisfy ``check(context)`` once read (``valid:`` in a spec);
    ``text`` (the spec's expression) is quoted in the DecodeError, or ``message`` (the
    spec's ``valid: {check, message}``) said instead.

    >>> from construct import Int8ul
    >>> rec = Record("n" / Valid(Int8ul, "n", lambda this: this.n < 3, "n < 3"))
    >>> rec.parse(b"\\x02"), rec.parse(b"\\x07")
    Traceback (most recent call last):
    ...
    runtime.core.errors.DecodeError: n at offset 0: n = 7 does not satisfy n < 3

    Build checks it too, as parse would refuse what it wrote:

    >>> rec.build({"n": 7})
    Traceback (most recent call last):
    ...
    runtime.core.errors.EncodeError: n: n = 7 does not satisfy n < 3
    """

    def __init__(
        self, subcon, name: str, check, text: str, message: str = "", on_build=True, on_parse=True
    ):
        super().__init__(subcon)
        self.field, self.check, self.text, self.message = name, check, text, message
        self.on_build = on_build  # False: the rule reads a field built after this one
        self.on_parse = on_parse  # False: the layout keeps the rule whenever it is read

    def _parse(self, stream, context, path):
        start = stream.tell()
        return self._checked(self.subcon._parsereport(stream, context, path), context, start)

    def _parse_backwards(self, data, end, base, context, path):
        value, begin = self.subcon._parse_backwards(data, end, base, context, path)
        return self._checked(value, context, base + begin), begin

    def _checked(self, value, context, offset: int):
        if self.on_parse and not self._holds(value, context):
            raise unsatisfied(self.field, value, self.text, offset, self.message)
        return value

    def _build(self, obj, stream, context, path):
        try:
            built = self.subcon._build(obj, stream, context, path)
        except EncodeError as err:
            # A build-only rule is what the layout keeps when read, so an expression that
            # fails on a model breaking it (Craft's body reading its type past the header's
            # end) is explained by the rule, in its words.
            if err.expression_failed and not self.on_parse and not self._holds(obj, context):
                message = unsatisfied_text(self.field, obj, self.text, self.message)
                raise EncodeError(message) from None
            raise
        # checked on build too: bytes that break the rule are bytes parse would refuse
        if self.on_build and not self._holds(built, context):
            raise EncodeError(unsatisfied_text(self.field, built, self.text, self.message))
        return built

    def _holds(self, value, context) -> bool:
        context[self.field] = value
        try:
            return bool(self.check(context))
        except EXPRESSION_ERRORS:
            return False


def sizeof(owner, name: str):
    """Built byte size of field ``name`` of ``owner`` (a record's build context): an int,
    a list of element sizes for a repeated field, 0 for an absent one. For ``value:``
    expressions, e.g. a size table written after the parts it measures.

    >>> from construct import Int8ul
    >>> sizes = lambda this: [sizeof(this, "a"), *sizeof(this, "bs")]
    >>> rec = Record(
    ...     "a" / Int8ul,
    ...     "bs" / RepeatCount(LengthPrefixedBytes(Int8ul), 2),
    ...     "sizes" / Computed(RepeatCount(Int8ul, 3), sizes),
    ... )
    >>> rec.build({"a": 7, "bs": [b"xy", b""]}).hex(" ")
    '07 02 78 79 00 01 03 01'
    """
    value = owner[name]
    if isinstance(value, BuiltList):
        return list(value.sizes)
    if value is None:
        return 0
    if name not in owner._spans:  # not written yet (a length before its text): measure it
        return _unwritten_size(owner, name, value)
    start, end = owner._spans[name]
    return end - start


def _unwritten_size(owner, name: str, value):
    """The byte size of a field the builder has not written yet (a length before what it
    measures): a text's or bytes' length in its encoding (and its terminator byte, if
    any); anything else (a record, a list) is built on its own to measure it (a list: its
    element sizes), inside the ``size:`` it may have, whose check reads the value being
    computed."""
    sub = owner._subcons[name]
    if isinstance(value, (bytes, bytearray, str)):
        while not hasattr(sub, "encoding") and hasattr(sub, "subcon"):
            sub = sub.subcon
        if isinstance(value, str):
            value = value.encode(getattr(sub, "encoding", None) or "utf8")
        return len(value) + isinstance(sub, TerminatedBytes)  # and its terminator
    sub = sub.subcon  # the field's Renamed
    sized = isinstance(sub, Sized)  # then the Sized writes what this builds (once)
    while isinstance(sub, Sized):
        sub = sub.subcon
    scratch = io.BytesIO()
    try:
        built = sub._build(value, scratch, owner, f"(sizeof {name})")
    except EncodeError as err:  # the field measured is to blame, not the size
        sibling = SiblingError.of(err)
        sibling.add_path(name)
        raise sibling from None
    except (TypeError, AttributeError) as err:
        raise SiblingError(_foreign_message(err, sub, value), path=name) from None
    data = scratch.getvalue()
    if sized and type(owner) is Container:  # not a _Trace or _Emptied view of it
        remember_measured(owner, sub, value, built, data)
    if isinstance(built, BuiltList):
        return list(built.sizes)
    return len(data)
