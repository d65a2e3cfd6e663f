"""The JSON form of events (a module's ``to_dict``/``from_dict`` of them) as code: per
class, ``_event_json_<member>(ev, image)`` (the event's JSON object) and
``_event_from_json_<member>(e, image)`` (the model of such an object), ``image`` being the
codec's column images (out: the columns' list; back: ``image(value, path)``).

Both event formats render theirs here: Open Protocol's ``kafka_message: classes:``
(:mod:`generator.emit.kafka_classes`: each field as its key's JSON type says) and a
``map:`` with a way back, Craft's (:func:`render_map_json_form`: each field as the way back
checks it, which is the read's source field's type). What they share is a field's views
(:class:`JsonField`): a ``logical:`` time shown beside its number
(``runtime.core.codec.TimeBeside``) and an open ``enum:`` shown by its member's name
(``runtime.core.codec.OpenEnum``), held in ``_EVENT_VIEWS``. A ``map:``'s names end
``_In_<record>`` (``_event_json_<member>_In_<record>``): a spec may map two records.

The row images' columns (a class a model field holds a list of: ``ticdc_types.Column``)
are shown as their ``models:`` fields' ``json:`` say (:func:`render_image_json`:
``_IMAGE_JSON``, what the codec shows and reads a row image by).

A ``map:``'s form shows the model's fields in its order (a field the map does not set
too: the JSON form shows the whole model) and reads back the fields the map sets, each
checked as its kind says: a field the model cannot hold None in must be there
(``missing key``). The class of a JSON object is the one whose keys (its fields no other
class has that must be there, and its ``groups:``) it holds; of the class with no such
keys it holds no other key than its own.
"""

from __future__ import annotations

import dataclasses
import re
import textwrap

from generator.spec.model import Mapping, Record, Spec
from runtime.core.codec import TimeBeside


@dataclasses.dataclass
class JsonField:
    """One model field of an event's JSON form: ``value`` its JSON value (Python over
    ``ev``), ``got`` the model's value back (Python over ``e``); ``enum`` (an enum class,
    open) and ``logical`` (a ``logical:`` time) wrap both in their view."""

    name: str
    value: str
    got: str
    enum: str = ""
    logical: str = ""


def event_functions(
    where: str,
    cls,
    fields: list[JsonField],
    views: dict,
    *,
    head="{}",
    last=(),
    back_tail=(),
    head_keys=(),
    strict=True,
    suffix="",
) -> list[str]:
    """The source of ``_event_json_<member>`` and ``_event_from_json_<member>`` of ``cls``
    (``member``, ``module``, ``model``): ``fields`` shown in their order after ``head``
    (the output dict's first items; those named in ``last`` shown last), read back in
    their order (a field without ``got`` is only shown); ``views`` collects the fields'
    views (field -> Python), ``back_tail`` the lines that check the model ``ev`` made back
    (then the function returns it); ``strict``: refuse a key the form does not have (the
    fields', their times' and ``head_keys``); ``suffix`` ends each name (a ``map:``'s
    ``_In_<record>``: two records' forms have classes of one name)."""
    name, views_name = cls.member.lower(), f"_EVENT_VIEWS{suffix}"
    shown, back = {}, []
    for f in fields:
        value, got = f.value, f.got
        if f.enum:
            views[f.name] = f"rt_codec.OpenEnum({f.enum})"
            value = f"{views_name}[{f.name!r}].to_json({value})"
            got = f"{views_name}[{f.name!r}].from_json({got}, {f.name!r})"
        if f.logical:
            views[f.name] = f"rt_codec.TimeBeside({f.logical!r})"
            shown[f.name] = f"    {views_name}[{f.name!r}].put(out, {f.name!r}, {value})"
            got = f"{views_name}[{f.name!r}].checked(e, {f.name!r}, {got})"
        else:
            shown[f.name] = f"    out[{f.name!r}] = {value}"
        if f.got:
            back.append(f"        {f.name}={got},")
    out = [f"def _event_json_{name}{suffix}(ev, image):",
           f'    """{where}: the JSON form of a {cls.member} event ``ev``."""',
           f"    out = {head}", *[line for f, line in shown.items() if f not in last],
           *[shown[f] for f in last], "    return out"]  # fmt: skip
    made = f"rt_{cls.module}.{cls.model}("
    back = [f"def _event_from_json_{name}{suffix}(e, image):",
            f'    """{where}: the {cls.model} of the JSON form', f'    ``e`` of a {cls.member} event."""',
            f"    {'ev = ' if back_tail else 'return '}{made}", *back, "    )"]  # fmt: skip
    if strict:
        known = {f.name for f in fields} | set(head_keys)
        known |= {f.name + TimeBeside.SUFFIX for f in fields if f.logical}
        keys = f"_EVENT_KEYS_{name}{suffix}"
        back[3:3] = [f"    if not {keys}.issuperset(e):",
                     f"        rt_codec.refuse_unknown_keys(e, {keys}, {name + ' event'!r})"]  # fmt: skip
        back.insert(0, f"{keys} = frozenset({sorted(known)!r})\n\n")
    if back_tail:
        back += [*back_tail, "    return ev"]
    return ["\n".join(out), "\n".join(back)]


def event_views(views: dict, suffix="") -> str:
    """The source of ``_EVENT_VIEWS<suffix>`` (field -> its view)."""
    return "\n".join([f"_EVENT_VIEWS{suffix} = {{", *(f"    {f!r}: {v}," for f, v in views.items()), "}", (
        '"""How the JSON form shows these event fields (their ``logical:`` or open'
        '\n``enum:``)."""'
    )])  # fmt: skip


# -- a row image's JSON form -----------------------------------------------------------

_LIST_OF = re.compile(r"list\[(\w+)\]")


def image_model(spec: Spec, classes) -> str:
    """The imported class (``MODULE.CLASS``) a field of one of ``classes`` (each with
    ``module``, ``model``) holds a list of: the row images' columns ("": none)."""
    for cls in classes:
        for f in spec.imported_models[f"{cls.module}.{cls.model}"].fields:
            found = _LIST_OF.match(f.annotation)
            if found:
                return f"{cls.module}.{found[1]}"
    return ""


def render_image_json(spec: Spec, qualified: str, suffix: str = "") -> str:
    """The source of ``_IMAGE_JSON<suffix>``: ``(to_json(items, value), views)``, a list of
    ``qualified`` objects (a row image) as its fields' ``json:`` say
    (:mod:`generator.spec.model_classes`): ``names:`` by the view of this spec's enum (in
    ``views``, which the codec reads those fields back by), ``text_unless:`` bytes as
    ``runtime.core.codec.text_or_hex``, any other value of a ``value`` field as
    ``value(item)`` (the codec's kinds), an int as ``to_jsonable``, the rest as they are.

        >>> from pathlib import Path
        >>> from generator.spec.loader import load
        >>> from generator.spec.validate import build_model
        >>> path = "specs/ticdc_craft.yaml"
        >>> source = render_image_json(build_model(load(Path(path), path)), "ticdc_types.Column")
        >>> print(source[source.index('    return ['):source.index('        for c in')].rstrip())
            return [
                {
                    'name': c.name,
                    'type': type_json(c.type),
                    'flags': flags_json(c.flags),
                    'value': (
                        rt_codec.text_or_hex(c.value, c.flags & 1)
                        if isinstance(c.value, (bytes, bytearray))
                        else value(c)
                    ),
                }
    """
    module, name = qualified.split(".")
    model = spec.imported_models[qualified]
    views, local, shown = [], [], []
    for f in model.fields:
        got = f"c.{f.name}"
        if f.json_names:
            views.append(
                f"    {f.name!r}: rt_codec.OpenEnum({spec.enums[f.json_names].class_name}),"
            )
            local.append(f"{f.name}_json = views[{f.name!r}].to_json")
            got = f"{f.name}_json({got})"
        elif f.json_text_unless:
            flag, bit = f.json_text_unless
            text = f"rt_codec.text_or_hex({got}, c.{flag} & {bit})"
            got = (
                f"(\n                {text}\n                if isinstance({got}, (bytes, bytearray))"
                f"\n                else value(c)\n            )"
                if f.annotation.startswith("int | float | bytes")
                else f"None if {got} is None else {text}" if f.default is None else text
            )
        elif f.annotation.startswith("int | float | bytes"):
            got = "value(c)"
        elif f.annotation.startswith("int"):
            got = f"rt_codec.to_jsonable({got})"
        shown.append(f"            {f.name!r}: {got},")
    views = [f"_IMAGE_VIEWS{suffix} = {{", *views, "}"]
    lines = [
        f"def _image_to_json{suffix}(items, value):",
        f'    """{module}.{name}: the JSON form of a list of them (a row image; None stays None),',
        '    each field as its json: says, a value that is not bytes as ``value(item)``."""',
        "    if items is None:",
        "        return None",
        f"    views = _IMAGE_VIEWS{suffix}",
        *(f"    {line}" for line in local),
        "    return [",
        "        {",
        *shown,
        "        }",
        "        for c in items",
        "    ]",
    ]
    table = [
        f"_IMAGE_JSON{suffix} = (_image_to_json{suffix}, _IMAGE_VIEWS{suffix})",
        f'"""The JSON form of a row image ({module}.{name}\'s json:): the function above and the',
        'views of its fields shown by name, which the codec reads them back by."""',
    ]
    return "\n\n\n".join(["\n".join(views), "\n".join(lines), "\n".join(table)])


# -- a map:'s JSON form ----------------------------------------------------------------

_INTEGERS = ("uint64", "int64", "uvarint")
"""The way back's checks (``generator.spec.unmapping.WriteCheck.kind``) of an integer."""


def render_map_json_form(spec: Spec, record: Record) -> str:
    """The source of ``record``'s ``map:`` JSON form (see the module doc): the functions of
    each class, ``_event_from_json_In_<record>`` (the class by the keys), the views. Each
    name ends ``_In_<record>`` (:func:`map_suffix`): two records' maps may have classes of
    one name, and a record's name has no capital, so no two records' names meet."""
    m: Mapping = record.mapping
    suffix = map_suffix(record.name)
    views, blocks, keyed = {}, [], []
    for cls, written in zip(m.classes, m.way_back.classes, strict=True):
        checks = {f.name: f for f in written.fields}
        groups = cls.groups.into.values() if cls.groups else ()
        fields, keys = [], []  # keys: what only this class may have (see _class_by_keys)
        for mf in spec.imported_models[f"{cls.module}.{cls.model}"].fields:
            name, shown = mf.name, _shown(mf)
            if name in checks:
                fields.append(_map_field(spec, m, mf, checks[name]))
                keys += [name] if mf.default is not None else []  # no None: it must be there
            elif name in groups:
                fields.append(
                    JsonField(name, f"image(ev.{name})", f"image(e.get({name!r}), {name!r})")
                )
                keys.append(name)
            else:  # shown, not read back: the wire has no place for it
                fields.append(JsonField(name, shown, ""))
        keyed.append((cls, keys, [f for f in fields if f.got]))
        blocks.append((cls, fields))
    own = _own_keys(keyed)
    blocks = [  # the class with no keys of its own refuses others in _class_by_keys
        block
        for cls, fields in blocks
        for block in event_functions(
            f"{spec.source.display}:{cls.line}",
            cls,
            fields,
            views,
            strict=bool(own[cls.member]),
            suffix=suffix,
        )
    ]
    blocks.append(_class_by_keys(spec, record, keyed))
    image = image_model(spec, m.classes)
    blocks.append(
        render_image_json(spec, image, suffix) if image else f"_IMAGE_JSON{suffix} = None"
    )
    return "\n\n\n".join([event_views(views, suffix), *blocks])


def map_suffix(record: str) -> str:
    """The end of each name of ``record``'s ``map:`` JSON form.

    >>> map_suffix("message")
    '_In_message'
    """
    return f"_In_{record}"


def _map_field(spec: Spec, m: Mapping, mf, source) -> JsonField:
    """A field the map sets, read back as the way back checks it (``source``, a
    ``WriteField``), through the views of the field it is read from."""
    name, kind, nullable = mf.name, source.check.kind, mf.default is None
    got = f"e.get({name!r})" if nullable else f"rt_codec.key_from_json(e, {name!r})"
    field = _source_field(spec, m, source.target)
    if field.open_enum:
        enum = "".join(part.capitalize() for part in field.open_enum.split("_"))
        return JsonField(name, f"ev.{name}", got, enum, field.logical)
    if kind in _INTEGERS:
        got = f"rt_codec.int_from_json({got}, {name!r})"
        got = f"None if e.get({name!r}) is None else {got}" if nullable else got
    elif kind in ("name", "str"):
        got = f"rt_codec.str_from_json({got}, {name!r}" + (", nullable=True)" if nullable else ")")
    if field.logical:  # its view shows the number as to_jsonable does
        return JsonField(name, f"ev.{name}", got, logical=field.logical)
    return JsonField(name, _shown(mf), got)


def _shown(mf) -> str:
    """A model field's JSON value: an int as ``to_jsonable`` shows it (past 2**53 a string)."""
    return (
        f"rt_codec.to_jsonable(ev.{mf.name})"
        if mf.annotation.startswith("int")
        else f"ev.{mf.name}"
    )


def _source_field(spec: Spec, m: Mapping, target: tuple[str, str]):
    """The record field a way back's target (``("header", chunk)``, ``("body", field)``)
    writes: a chunk of the source's field, or a field of the element record."""
    source = {f.name: f for f in spec.records[m.source].fields}
    record = source[m.each if target[0] == "body" else target[0]].type.name
    return next(f for f in spec.records[record].fields if f.name == target[1])


def _class_by_keys(spec: Spec, record: Record, keyed: list) -> str:
    """``_event_from_json_In_<record>(e, image)``: the event of a JSON object, its class by
    the keys only that class has (see the module doc)."""
    suffix = map_suffix(record.name)
    own = _own_keys(keyed)
    rest = [(cls, read) for cls, _, read in keyed if not own[cls.member]]
    if len(rest) > 1:
        raise ValueError(
            f"{record.name}: classes {[c.member for c, _ in rest]} have no keys of their own"
        )
    where = f"{spec.source.display}:{record.mapping.line}"
    told = "; ".join(
        f"{c.member}: {', '.join(own[c.member])}" for c, _, _ in keyed if own[c.member]
    )
    doc = (f'"""{where}: the model of the JSON form ``e`` of one event, its class by the'
           f' keys only it has ({told}{"; else " + rest[0][0].member if rest else ""})."""')  # fmt: skip
    lines = [
        f"def _event_from_json{suffix}(e, image):",
        *textwrap.wrap(doc, 88, initial_indent="    ", subsequent_indent="    "),
        "    if not isinstance(e, dict):",
        '        raise rt.EncodeError(f"expected an object, got {type(e).__name__}")',
    ]
    test = {c: " or ".join(f"{k!r} in e" for k in own[c]) for c in own if own[c]}
    for n, member in enumerate(test):  # a later class's keys: refused beside this one's
        lines += [f"    if {test[member]}:"]
        for other in list(test)[n + 1 :]:
            lines += [f"        if {test[other]}:",
                      f"            raise rt.EncodeError({_mixed(member, own, other)!r})"]  # fmt: skip
        lines.append(f"        return _event_from_json_{member.lower()}{suffix}(e, image)")
    if rest:
        cls, read = rest[0]
        known = {f.name for f in read} | {f.name + TimeBeside.SUFFIX for f in read if f.logical}
        names = ", ".join(f.name for f in read)
        what = f"a {cls.member.lower().replace('_', ' ')} event has only {names}"
        lines += [f"    ev = _event_from_json_{cls.member.lower()}{suffix}(e, image)",  # its fields' errors first
                  f"    unknown = e.keys() - {sorted(known)!r}",
                  "    if unknown:",
                  f'        raise rt.EncodeError(f"{what}, not {{sorted(unknown)}}")',
                  "    return ev"]  # fmt: skip
    else:
        lines.append(f'    raise rt.EncodeError("no event class has its keys ({told})")')
    table = [
        f"    rt_{c.module}.{c.model}: _event_json_{c.member.lower()}{suffix}," for c, _, _ in keyed
    ]
    return "\n".join(lines) + "\n\n\n" + "\n".join([
        f"_EVENT_JSON{suffix} = {{", *table, "}",
        f'"""{where}: each model class of the map: of {record.name} -> its JSON form."""',
    ])  # fmt: skip


def _own_keys(keyed: list) -> dict:
    """Class member -> the keys only that class has (of ``keyed``'s (class, keys, read))."""
    own = {}
    for cls, keys, _ in keyed:
        shared = {k for other, ks, _ in keyed if other is not cls for k in ks}
        own[cls.member] = [k for k in keys if k not in shared]
    return own


def _mixed(member: str, own: dict, other: str) -> str:
    return (f"keys of both {member} ({', '.join(own[member])}) and {other}"
            f" ({', '.join(own[other])})")  # fmt: skip
