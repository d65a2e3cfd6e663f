"""Hypothesis strategies of valid models, driven by what the generator writes.

Every generated module exports ``strategies(record=DEFAULT_RECORD)``; it hands this
module a table it generated from the spec (records and their fields: integer ranges by
width and signedness, enum members, switch cases, repetitions, optional and conditional
fields, sizes and counts given by earlier fields) and gets back a strategy of models that
``build`` writes and ``parse`` reads back:

    >>> from generated import plainbuffer
    >>> from hypothesis import given
    >>> @given(plainbuffer.strategies())
    ... def test_round_trip(model):
    ...     assert plainbuffer.build(plainbuffer.parse(plainbuffer.build(model))) == plainbuffer.build(model)

The strategies reach the extremes on purpose: 0 and the ends of every integer range (so
unsigned 64-bit max and the most negative zigzag values), NaN with payloads and -0.0,
empty and maximal strings, every enum member and flag, optional fields present and
absent. Computed fields (constants, checksums) are left to the builder; a field whose
value an earlier field's size or count expression depends on is solved after the later
field is drawn (``event_size`` from the body it frames).

Hypothesis is a test extra: it is imported only when a strategy is asked for.

A runtime primitive's value (Craft's message) comes from its configured instance's
``strategy()`` (given the module's ``_STRATEGY_EVENTS`` when its models are events), a
Kafka codec's messages from its module's ``strategies(module, events)``
(:mod:`runtime.formats.ticdc_strategies`); Thrift modules describe their structs as IDL
type strings for :func:`thrift_struct`.
"""

from __future__ import annotations

import codecs
import functools
import struct

from construct import Container

from runtime.core import float32

MAX_ITEMS = 3
"""Longest list a strategy draws (repeat: eos / tagged), beyond any min_count."""
MAX_NESTING = 4
"""Records deep past which a choice draws only the cases that hold no record."""
MAX_TEXT = 40
"""Longest unbounded string or byte field drawn (besides the maximal ones)."""


def _st():
    from hypothesis import strategies as st

    return st


# -- scalars ------------------------------------------------------------------------------


def integers(lo: int, hi: int):
    """Any integer in [lo, hi], with the ends, 0 and the byte/varint boundaries favoured."""
    st = _st()
    edges = {lo, hi, 0, 1, -1, 127, 128, 255, 256, 16383, 16384, 2**31 - 1, -(2**31), 2**32 - 1}
    edges |= {2**63 - 1, -(2**63), 2**63, 2**64 - 1}
    special = sorted(v for v in edges if lo <= v <= hi)
    return st.one_of(st.sampled_from(special), st.integers(lo, hi))


def floats(bits: int = 64):
    """Every float64 (or float32) bit pattern class: NaN with payloads, +-inf, -0.0."""
    st = _st()
    if bits == 32:
        nans = st.integers(1, 2**23 - 1).map(  # quiet and signalling: widened on the bits
            lambda p: float32.widen(0x7F800000 | p | (1 << 31 if p & 1 else 0))
        )
        return st.one_of(st.floats(width=32), nans, st.just(-0.0))
    nans = st.integers(1, 2**52 - 1).map(
        lambda p: struct.unpack("<d", struct.pack("<Q", 0x7FF0000000000000 | p))[0]
    )
    return st.one_of(st.floats(), nans, st.sampled_from([-0.0, float("inf"), float("-inf")]))


def enum_members(cls, flags: bool = False):
    st = _st()
    members = list(cls)
    if not flags:
        return st.sampled_from(members)
    return st.sets(st.sampled_from(members)).map(
        lambda chosen: functools.reduce(lambda a, b: a | b, chosen, cls(0))
    )


def text(
    min_size: int = 0, max_bytes: int | None = None, encoding: str = "utf8", exact=None, padded=None
):
    """Text whose encoded length fits; ``exact``: exactly that many bytes (ASCII);
    ``padded``: at most that many (ASCII, no NUL: a ``pad: nul`` string)."""
    st = _st()
    if padded is not None:
        return st.text(st.characters(min_codepoint=1, max_codepoint=127), max_size=padded)
    if exact is not None:
        return st.text(
            st.characters(min_codepoint=1, max_codepoint=127), min_size=exact, max_size=exact
        )
    if encoding == "ascii":
        alphabet = st.characters(max_codepoint=127)
    elif codecs.lookup(encoding).name == "iso8859-1":  # Latin-1: one byte a character
        alphabet = st.characters(max_codepoint=255)
    else:
        alphabet = st.characters(codec="utf-8")
    cap = MAX_TEXT if max_bytes is None else min(max_bytes, MAX_TEXT)
    out = st.text(alphabet, min_size=min_size, max_size=cap)
    if max_bytes is not None:
        out = out.filter(lambda s: len(s.encode(encoding)) <= max_bytes)
        out = st.one_of(out, st.just("x" * max_bytes))  # the maximal string
    return out


def without(values, t: dict):
    """``values`` never holding the ``terminator:`` byte of type description ``t``: the
    character or byte taken out, and what still encodes to it (a UTF-8 sequence) skipped."""
    byte = t["terminator"]
    if t["kind"] == "bytes":
        return values.map(lambda v: v.replace(bytes((byte,)), b""))
    encoding = t.get("encoding", "utf8")
    return values.map(lambda v: v.replace(chr(byte), "")).filter(
        lambda v: byte not in v.encode(encoding)
    )


def binary(max_bytes: int | None = None, exact=None):
    st = _st()
    if exact is not None:
        return st.binary(min_size=exact, max_size=exact)
    cap = MAX_TEXT if max_bytes is None else min(max_bytes, MAX_TEXT)
    out = st.binary(max_size=cap)
    if max_bytes is not None:
        out = st.one_of(out, st.just(b"\xff" * max_bytes))
    return out


# -- the record language --------------------------------------------------------------------


class _Solve(Exception):
    """An expression could not be solved for the field it depends on."""


def _value(t: dict, module, ctx, depth: int = 0):
    """Strategy of one value of type description ``t`` (see the generated table);
    ``depth``: the records it is inside (a recursive record's values stay finite)."""
    st = _st()
    kind = t["kind"]
    if kind == "choice":
        return _choice(module, tuple(t["cases"] if depth < MAX_NESTING else t["leaves"]), depth)
    if kind == "int":
        ints = integers(t["lo"], t["hi"])
        return st.one_of(st.sampled_from(t["favour"]), ints) if t.get("favour") else ints
    if kind == "float":
        return floats(t["bits"])
    if kind == "bool":
        return st.booleans()
    if kind == "enum":
        return enum_members(t["cls"], t.get("flags", False))
    if kind in ("str", "bytes") and t.get("nullable"):  # the length -1 is None
        return st.none() | _value({**t, "nullable": False}, module, ctx)
    if kind in ("str", "bytes") and t.get("terminator") is not None:
        return without(_value({**t, "terminator": None}, module, ctx), t)
    if kind == "str":
        return text(0, t.get("max"), t.get("encoding", "utf8"), t.get("exact"), t.get("padded"))
    if kind == "bytes":
        return binary(t.get("max"), t.get("exact"))
    if kind == "record":
        return _record(module, t["name"], ctx, depth + 1)
    if kind == "presence":
        return st.booleans()
    if kind == "empty":
        return st.none()
    if kind == "runtime":  # a runtime primitive's configured instance knows its values
        events = (t["events"],) if "events" in t else ()  # the events its models are
        return t["instance"].strategy(*events)
    if kind == "map":
        keys, values = _value(t["key"], module, ctx), _value(t["value"], module, ctx)
        return st.dictionaries(keys, values, max_size=MAX_ITEMS)
    raise AssertionError(kind)


@functools.cache
def _choice(module, cases: tuple, depth: int):
    """One of the choice's cases, made once per depth: a choice is drawn inside every
    element of a recursive record, and building its strategy each time costs more than
    the draw. (A case never reads ``_parent``: the generator refuses that.)"""
    return _st().one_of([_record(module, name, None, depth + 1) for name in cases])


def _lists(inner, min_size: int):
    return _st().lists(inner, min_size=min_size, max_size=max(min_size, MAX_ITEMS))


def _until(module, inner, t: dict, repeat: tuple, ctx, depth: int):
    """An until-list (``("until", test, include, constants, fields, last)``): elements the
    test holds false for, then a terminator it holds true for, so the list parses back as
    drawn. With ``last`` = (a field or None, a constant) the terminator is made: the
    element, or a record with that field, set to the constant. Otherwise it is drawn from
    any value and from values near the test's constants and the earlier fields it reads
    (``_item == 0xff``, ``_item >= head``, a text starting with ``'.'``); an element the
    test fails to evaluate on is neither."""
    st = _st()
    _, test, _, constants, fields, last = repeat

    def holds(item):
        ctx._item = item
        try:
            return bool(test(ctx))
        except Exception:  # noqa: BLE001 - the test fails on it: no valid element
            return None

    elements = st.lists(inner.filter(lambda v: holds(v) is False), max_size=MAX_ITEMS)
    if last is not None and last[0] is None:
        terminator = st.just(last[1])
    elif last is not None:
        terminator = _record(module, t["name"], ctx, depth + 1, fixed={last[0]: last[1]})
    else:
        near = []
        if t["kind"] == "int":
            ints = [c for c in constants if type(c) is int]
            ints += [v for v in (ctx.get(name) for name in fields) if type(v) is int]
            near = [st.just(v + d) for v in ints for d in (-1, 0, 1) if t["lo"] <= v + d <= t["hi"]]
        elif t["kind"] in ("str", "bytes"):
            affixes = [c for c in constants if isinstance(c, str if t["kind"] == "str" else bytes)]
            near += [st.just(c) for c in affixes]
            near += [inner.map(lambda v, c=c: c + v) for c in affixes]
            near += [inner.map(lambda v, c=c: v + c) for c in affixes]
        fitting = st.one_of(inner, *near).filter(lambda v: _fits(t, v))
        terminator = fitting.filter(lambda v: holds(v) is True)
    return st.tuples(elements, terminator).map(lambda drawn: [*drawn[0], drawn[1]])


def _fits(t: dict, value) -> bool:
    """``value`` is one of type description ``t``'s (a sized text or byte string's size)."""
    kind = t["kind"]
    if kind == "int":
        return type(value) is int and t["lo"] <= value <= t["hi"]
    if kind not in ("str", "bytes"):
        return True
    if not isinstance(value, str if kind == "str" else bytes):
        return False
    size = len(value.encode(t.get("encoding", "utf8"), "replace") if kind == "str" else value)
    if t.get("exact") is not None:
        return size == t["exact"]
    if t.get("padded") is not None:
        return size <= t["padded"] and ("\0" if kind == "str" else b"\0") not in value
    if t.get("terminator") is not None:
        encoded = value.encode(t.get("encoding", "utf8"), "replace") if kind == "str" else value
        return t["terminator"] not in encoded
    return t.get("max") is None or size <= t["max"]


def _solve(fn, ctx, name: str, want: int, lo_hi) -> int:
    """The value of ``ctx[name]`` that makes ``fn(ctx) == want`` (fn linear in it)."""
    ctx[name] = 0
    base = fn(ctx)
    value = want - base
    ctx[name] = value
    if fn(ctx) != want or not (lo_hi[0] <= value <= lo_hi[1]):
        raise _Solve(name)
    return value


def _built_size(module, record: str, field: str, value, ctx) -> int:
    """Bytes the field's construct (inside its size wrapper) writes for ``value``."""
    if isinstance(value, (bytes, bytearray)):
        return len(value)
    if isinstance(value, str):
        return len(value.encode("utf8"))
    sc = next(s for s in module.RECORDS[record].subcons if s.name == field)
    inner = sc.subcon  # Renamed -> Sized / RepeatCount / ...
    while hasattr(inner, "size") and hasattr(inner, "subcon"):
        inner = inner.subcon
    # its earlier fields, and the records around it (a switch on an enclosing field)
    names = {k: v for k, v in ctx.items() if not k.startswith("_") or k == "_parent"}
    return len(inner.build(value, **names))


def _selector(ctx, on: str):
    """A switch's selector: a field of this record, or one of an enclosing record drawn
    before it (``_parent._parent.header.linktype``: contexts, then a model's fields)."""
    value = ctx
    for step in on.split("."):
        value = value[step] if isinstance(value, dict) else getattr(value, step)
    return value


def _record(module, name: str, parent, depth: int = 0, fixed: dict | None = None):
    st = _st()
    table = module._STRATEGY_RECORDS
    spec = table[name]

    @st.composite
    def draw_record(draw):
        ctx = Container(_parent=parent if parent is not None else Container())
        values = {}
        chosen = _oneof_members(draw, spec["fields"])
        for f in spec["fields"]:
            fname = f["name"]
            if fixed and fname in fixed:  # the element that ends an until-list
                values[fname] = ctx[fname] = fixed[fname]
                continue
            if "oneof" in f and chosen[f["oneof"]] != fname:
                values[fname] = ctx[fname] = None
                continue
            if f.get("computed"):  # (an until-list's terminator is drawn with the list)
                values.setdefault(fname, None)
                ctx[fname] = None if f.get("const") is None else f["const"]
                continue
            cond = f.get("cond")
            after = f.get("bytes_left")  # if: bytes_left(): absent after an absent one
            if after is not None and after and ctx[after] is None or (cond and not cond(ctx)):
                values[fname] = ctx[fname] = None
                continue
            t = f["type"]
            if t["kind"] == "switch":
                selector = _selector(ctx, t["on"])
                case = t["cases"].get(selector, t.get("default"))
                inner = _value(case, module, ctx, depth)
            else:
                inner = _value(t, module, ctx, depth)
            repeat = f.get("repeat")
            if repeat is None:
                strategy = inner
            elif repeat[0] == "until":
                strategy = _until(module, inner, t, repeat, ctx, depth)
            elif repeat[0] == "count" and not callable(repeat[1]):
                strategy = _lists(inner, repeat[1]).map(lambda xs, n=repeat[1]: xs[:n])
            else:
                strategy = _lists(inner, repeat[2] if repeat[0] != "count" else 0)
                if f.get("optional"):
                    strategy = st.one_of(st.just([]), _lists(inner, max(1, repeat[2])))
            if (f.get("optional") or after is not None) and repeat is None:
                strategy = st.none() | strategy
            default = f.get("default")
            if default is not None:  # sometimes exactly the default: then it is not written
                same = ctx[default[1]] if default[0] == "from" else default[1]
                strategy = st.one_of(st.just(same), strategy)
            value = draw(strategy)
            if repeat is not None and repeat[0] == "until" and not repeat[2]:
                *value, values[f"{fname}_terminator"] = value  # kept apart (include: false)
            values[fname] = ctx[fname] = value
            if f.get("valid") is not None and not f["valid"](ctx):
                from hypothesis import reject

                reject()  # a value the format refuses (`valid:`)
            try:
                # no target: the count is another record's (a parent's computed count)
                counted = repeat is not None and repeat[0] == "count" and callable(repeat[1])
                if counted and repeat[2] is not None:
                    solved = _solve(repeat[1], ctx, repeat[2], len(value), repeat[3])
                    values[repeat[2]] = solved
                size = f.get("size")
                if size is not None:
                    fn, target, bounds = size
                    want = _built_size(module, name, fname, value, ctx)
                    values[target] = _solve(fn, ctx, target, want, bounds)
            except _Solve:
                from hypothesis import reject

                reject()
        model = spec["model"](**values)
        if spec.get("message") is not None:
            model = _message_header(draw, module, name, model, spec["message"])
        return model

    return draw_record()


def _message_header(draw, module, name: str, model, known: int):
    """A ``mysql::serialization`` message as a newer or another writer sends it, drawn
    as a parsed model carries it (the header fields every generated message model has):
    fields of ids past the ``known`` ones (their raw varint values, kept as
    ``unknown_fields``), a ``last_non_ignorable_field_id`` from the one the known fields
    need up to ``known``, and a ``serializable_field_size`` build keeps: the true size,
    MySQL's off-by-one value, or one the header varints are widened to."""
    from runtime.core.msbvarint import encode_uvar

    st = _st()
    message = module.RECORDS[name]
    ids = sorted(draw(st.lists(st.integers(known, known + 300), max_size=MAX_ITEMS, unique=True)))
    raw = b"".join(encode_uvar(i) + encode_uvar(draw(integers(0, 2**64 - 1))) for i in ids)
    model.unknown_fields = raw or None
    model.serializable_field_size = model.last_non_ignorable_field_id = None
    needed = message.parse(message.build(model)).last_non_ignorable_field_id
    model.last_non_ignorable_field_id = draw(st.integers(needed, known))
    size = message.parse(message.build(model)).serializable_field_size
    model.serializable_field_size = draw(st.one_of(st.just(size), st.integers(size - 1, size + 16)))
    if message.parse(message.build(model)).serializable_field_size != model.serializable_field_size:
        model.serializable_field_size = size  # no header widths make it that long
    return model


def _oneof_members(draw, fields) -> dict:
    """Oneof group -> the one member a drawn model sets (None: no member)."""
    groups: dict = {}
    for f in fields:
        if "oneof" in f:
            groups.setdefault(f["oneof"], [None]).append(f["name"])
    return {group: draw(_st().sampled_from(members)) for group, members in groups.items()}


def record(module, name: str):
    """The strategy of ``name`` models of a generated record-language module (a record
    whose expressions read ``_parent`` is drawn inside its enclosing record only)."""
    from runtime.core.errors import WirespecError

    if module._STRATEGY_RECORDS[name].get("needs_parent"):
        raise WirespecError(f"{name} reads _parent: draw the record that holds it")
    if module._STRATEGY_RECORDS[name].get("no_strategy"):
        raise WirespecError(
            f"no generic strategy for {name}: {module._STRATEGY_RECORDS[name]['no_strategy']}"
        )
    return _record(module, name, None)


# -- Thrift structs -----------------------------------------------------------------------

_THRIFT_INTS = {
    "byte": (-(2**7), 2**7 - 1),
    "i8": (-(2**7), 2**7 - 1),
    "i16": (-(2**15), 2**15 - 1),
    "i32": (-(2**31), 2**31 - 1),
    "i64": (-(2**63), 2**63 - 1),
}


def thrift_type(module, t: tuple, depth: int, key: bool = False):
    """Values of one type tree (``("list", ("struct", "Address"))``) of a Thrift module."""
    import uuid

    st = _st()
    kind = t[0]
    if kind in _THRIFT_INTS:
        return integers(*_THRIFT_INTS[kind])
    if kind == "bool":
        return st.booleans()
    if kind == "double":
        return st.floats(allow_nan=False) if key else floats(64)
    if kind == "string":
        return text()
    if kind == "binary":
        return binary()
    if kind == "uuid":
        return st.builds(uuid.UUID, bytes=st.binary(min_size=16, max_size=16))
    small = MAX_ITEMS if depth < 3 else 0
    if kind in ("list", "set"):
        return st.lists(thrift_type(module, t[1], depth + 1), max_size=small)
    if kind == "map":
        keys = thrift_type(module, t[1], depth + 1, key=True)
        return st.dictionaries(keys, thrift_type(module, t[2], depth + 1), max_size=small)
    if kind == "enum":
        return st.sampled_from(list(module.THRIFT_ENUMS[t[1]]))
    return thrift_struct(module, t[1], depth + 1)


def thrift_struct(module, name: str, depth: int = 0):
    """Valid models of struct ``name`` of a generated Thrift module: required fields set,
    optional ones present or absent, unions with exactly one field set; nesting stops
    growing past a few levels (recursive structs stay finite)."""
    st = _st()
    kind, fields = module.STRUCT_FIELDS[name]
    cls = module.MODELS[name]

    def field(f):
        return st.deferred(lambda: thrift_type(module, f[2], depth))

    if kind == "union":
        return st.sampled_from(fields).flatmap(
            lambda f: field(f).map(lambda v, attr=f[1]: cls(**{attr: v}))
        )
    kw = {}
    for f in fields:
        if f[3]:
            kw[f[1]] = field(f)
        else:
            kw[f[1]] = st.none() if depth > 4 else st.none() | field(f)
    return st.fixed_dictionaries(kw).map(lambda d: cls(**d))


def thrift_record(module, record: str):
    """``strategies(record)`` of a Thrift module: a struct, or ``message`` envelopes."""
    if record != "message":
        return thrift_struct(module, record)
    st = _st()
    return st.builds(
        module.Message,
        name=text(),
        type=st.sampled_from(list(module.MessageType)),
        seqid=integers(-(2**31), 2**31 - 1),
        body=st.sampled_from(sorted(module.STRUCT_FIELDS)).flatmap(
            lambda n: thrift_struct(module, n)
        ),
    )
