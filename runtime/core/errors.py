"""The one error family of wirespec.

Everything a generated codec raises for bad bytes, a bad model or a bad spec is a
:class:`WirespecError`:

    >>> from runtime.core.errors import DecodeError
    >>> err = DecodeError("expected tag 0x03, got 0x07", offset=12)
    >>> err.add_path("value"); err.add_path("cells", index=3); err.add_path("rows", index=0)
    >>> str(err)
    'rows[0].cells[3].value at offset 12: expected tag 0x03, got 0x07'

Paths are built from the inside out: the innermost construct raises with the offset it
saw, and every enclosing record or list prepends its own name or index on the way up.
Offsets are relative to the stream the error was raised in; a construct that parses a
sub-stream (a size-prefixed field, say) shifts them to absolute offsets with
:meth:`DecodeError.shift`.
"""

from __future__ import annotations

import difflib
import enum
import reprlib


class WirespecError(Exception):
    """Base of every error wirespec raises on purpose."""


class _PathError(WirespecError):
    """An error that knows where in the model it happened (``rows[0].cells[3].value``)."""

    def __init__(self, message: str, *, path: str = ""):
        super().__init__(message)
        self.message = message
        self._segments: list[str] = [path] if path else []

    @property
    def path(self) -> str:
        """The dotted field path, outermost first; empty at the top level."""
        out = ""
        for seg in reversed(self._segments):
            if seg.startswith("["):
                out += seg
            else:
                out += ("." if out else "") + seg
        return out

    def add_path(self, name: str | None = None, *, index: int | None = None) -> None:
        """Prepend one level: ``add_path("cells", index=3)`` turns ``value`` into
        ``cells[3].value``."""
        if index is not None:
            self._segments.append(f"[{index}]")
        if name:
            self._segments.append(name)

    def add_key(self, key) -> _PathError:
        """Prepend a map's key, as Python would look it up (a long key shortened):
        ``add_key("k")`` turns ``value`` into ``['k'].value``, and ``add_path("prefs")``
        then into ``prefs['k'].value``; an enum member reads ``[Color.RED]``. Returns the error.

        >>> err = EncodeError("expected str, got int").add_key("k"); err.add_path("prefs")
        >>> str(err)
        "prefs['k']: expected str, got int"
        """
        if isinstance(key, enum.Enum):
            text = f"{type(key).__name__}.{key.name}"
        else:
            text = reprlib.repr(key)
        self._segments.append(f"[{text}]")
        return self

    def add_element(self, items, item, start: int = 0) -> _PathError:
        """Prepend the index of ``item`` in ``items`` (from ``start``), found by identity:
        a writer's loop over a list keeps no counter, so the index of the element it failed
        on is looked for only once it has failed (an earlier element that is the same object
        would have failed first). Nothing when it is not there. Returns the error.

        >>> cells = [1.5, "x", 2.5]
        >>> err = EncodeError("expected a number").add_element(cells, cells[1]); err.add_path("cells")
        >>> err.path
        'cells[1]'
        """
        for index, x in enumerate(items):
            if x is item and index >= start:
                self._segments.append(f"[{index}]")
                break
        return self


class DecodeError(_PathError):
    """Bytes that do not match the format.

    ``offset`` is the byte offset (from the start of the input) where the failing field
    starts, ``path`` is the field path, ``message`` says what was expected.
    """

    def __init__(self, message: str, *, offset: int | None = None, path: str = ""):
        super().__init__(message, path=path)
        self.offset = offset

    def shift(self, base: int) -> None:
        """Make the offset absolute for an error raised inside a sub-stream at ``base``."""
        if self.offset is not None:
            self.offset += base

    def __str__(self) -> str:
        where = self.path or "<message>"
        at = f" at offset {self.offset}" if self.offset is not None else ""
        return f"{where}{at}: {self.message}"


class LimitError(DecodeError):
    """A length, count, depth or size read from the input exceeds a configured limit."""


def shown(value) -> str:
    """``value`` as an error says what it got: its type and its repr (a long one shortened).

    >>> shown("x"), shown(None), shown(list(range(9)))
    ("str 'x'", 'None', 'list [0, 1, 2, 3, 4, 5, ...]')
    """
    return "None" if value is None else f"{type(value).__name__} {reprlib.repr(value)}"


_SAID_WITH_A_CONSONANT = ("uni", "usa", "use", "usu", "uti", "ura", "ure", "uri", "uu", "eu", "one")
"""How nouns start whose vowel letter is said as a consonant: a Unit, a User, a UUID."""


def a_or_an(noun: str) -> str:
    """``noun`` after its article by how it starts ("an" before a vowel's sound), as a
    message names an enum's class ("is not an EventType"). A letter is not a sound: a
    noun said with a consonant's sound but a vowel's letter (Unit, User, "uint64") takes
    "a", from :data:`_SAID_WITH_A_CONSONANT` or written out by hand.

    >>> a_or_an("EventType"), a_or_an("GroupType"), a_or_an("OrderMark")
    ('an EventType', 'a GroupType', 'an OrderMark')
    >>> a_or_an("Unit"), a_or_an("UpdateKind"), a_or_an("UserRole")
    ('a Unit', 'an UpdateKind', 'a UserRole')
    """
    lowered = noun.lower()
    vowel = lowered[:1] in "aeiou" and not lowered.startswith(_SAID_WITH_A_CONSONANT)
    return f"{'an' if vowel else 'a'} {noun}"


class EncodeError(_PathError):
    """A model that cannot be written (a value out of range, a missing field, ...)."""

    expression_failed = False
    """Whether a spec expression failed on the model (an ``if:`` reading a list past its
    end): a build-only rule the model breaks says what is wrong in its place
    (``runtime.core.record.Valid``)."""

    @classmethod
    def of(cls, err: Exception, prefix: str = "") -> EncodeError:
        """``err``, a failure while writing, as an EncodeError (itself, or one with the
        message of what Python raised), its message after ``prefix``.

        >>> str(EncodeError.of(OverflowError("int too big to convert"), "key: "))
        '<model>: key: int too big to convert'
        """
        err = err if isinstance(err, EncodeError) else cls(str(err))
        err.message = prefix + err.message
        return err

    @classmethod
    def expected(cls, what: str, value, path: str = "") -> EncodeError:
        """What a writer says of ``value`` where ``what`` belongs (in place of the text of
        what Python raised on it): its type and its repr, a long one shortened; at ``path``.

        >>> str(EncodeError.expected("an integer", "x")), str(EncodeError.expected("a list", None))
        ("<model>: expected an integer, got str 'x'", '<model>: expected a list, got None')
        """
        return cls(f"expected {what}, got {shown(value)}", path=path)

    def __str__(self) -> str:
        return f"{self.path or '<model>'}: {self.message}"


class SiblingError(EncodeError):
    """An EncodeError of another field than the one being written (the list a computed
    count counts, the kept ``<name>_wire`` bytes beside ``<name>``): its path is from the
    enclosing record, which says it as :meth:`plain` without its own field's name.

    >>> err = SiblingError("expected a list, got int 7", path="records.objects")
    >>> str(err.plain())
    'records.objects: expected a list, got int 7'
    """

    @classmethod
    def of(cls, err: Exception, prefix: str = "") -> SiblingError:
        """``err``, a failure writing another field than the one being written (the list a
        computed size measures, the events inside a message), as a SiblingError: its message
        after ``prefix``, its path kept (an EncodeError's), so the enclosing record names
        that field, not the one it was writing. Add the field's own name with
        :meth:`add_path`.

        >>> sibling = SiblingError.of(EncodeError("expected a list, got int 7", path="objects"))
        >>> sibling.add_path("records")
        >>> str(sibling.plain()), str(SiblingError.of(OverflowError("too big"), "n: "))
        ('records.objects: expected a list, got int 7', '<model>: n: too big')
        """
        if not isinstance(err, EncodeError):
            return cls(prefix + str(err))
        sibling = cls(prefix + err.message)
        sibling._segments = [*err._segments]
        return sibling

    def plain(self) -> EncodeError:
        """This error as an EncodeError whose path the enclosing records prepend to."""
        err = EncodeError(self.message)
        err._segments = self._segments
        return err


class SpecError(WirespecError):
    """A spec that is not valid: names the file, the line and the key path.

    >>> str(SpecError("unknown type 'int33'", file="specs/x.yaml", line=42, key="cell.value.type"))
    "specs/x.yaml:42: cell.value.type: unknown type 'int33'"
    """

    def __init__(self, message: str, *, file: str = "", line: int | None = None, key: str = ""):
        super().__init__(message)
        self.message, self.file, self.line, self.key = message, file, line, key

    def __str__(self) -> str:
        where = self.file + (f":{self.line}" if self.line is not None else "")
        return ": ".join(part for part in (where, self.key, self.message) if part)


class OptionError(WirespecError, ValueError):
    """An option a caller gave (a Spark option, a keyword) with an unknown name or a bad value.

    It is a :class:`ValueError` too, as Python's own bad-argument errors are."""


def did_you_mean(name, known) -> str:
    """A hint for a misspelt ``name``: the nearest of ``known`` (all that are equally near),
    or "" when none is near.

    >>> did_you_mean("plainbufer", ["plainbuffer", "png"])
    " (did you mean 'plainbuffer'?)"
    >>> did_you_mean("i64", ["u64", "s64", "str"])
    " (did you mean 's64' or 'u64'?)"
    >>> did_you_mean("zzz", ["plainbuffer"])
    ''
    """
    if not isinstance(name, str):
        return ""
    ratios = {k: difflib.SequenceMatcher(None, name, k).ratio() for k in map(str, known)}
    best = max(ratios.values(), default=0.0)
    if best < 0.6:  # difflib.get_close_matches's cutoff
        return ""
    near = sorted(k for k, ratio in ratios.items() if ratio == best)
    return f" (did you mean {' or '.join(map(repr, near))}?)"
