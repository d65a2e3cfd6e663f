"""A ``kafka_message:``'s ``classes:`` as code: per class, the reader that makes its model
of the key's fields and the value document, the writer of its key and value, its JSON
form both ways (``_event_json_<member>``, ``_event_from_json_<member>``), and the
``EVENT_CLASSES`` table the Kafka codec dispatches on (by the key's event-type member when
reading, by the model's class when writing).

The functions call the document code of :mod:`generator.emit.json_documents`
(``_json_read_<doc>``, ``_json_write_<doc>``): a scalar document is read into a dict, a
document of row sections into ``(new, old)`` by the codec's ``columns``, a document with
no keys is an empty value. Each is ``_event_read_<member>``/``_event_write_<member>``, the
member's name in lower case (an enum member is an upper-case identifier).
"""

from __future__ import annotations

import dataclasses
import textwrap

from generator.emit.event_json import (
    JsonField,
    event_functions,
    event_views,
    image_model,
    render_image_json,
)
from generator.spec import pytext
from generator.spec.model import KafkaMessage, Spec


def render_kafka_classes(spec: Spec) -> str:
    """The module text of ``spec``'s ``kafka_message: classes:`` (see the module doc)."""
    km: KafkaMessage = spec.kafka_message
    key_doc, type_key = km.class_by
    enum = next(k.enum for k in spec.json_documents[key_doc].keys if k.name == type_key)
    enum_class = _camel(enum)
    blocks, table, views = [], [], {}
    for cls in km.classes:
        name = cls.member.lower()
        if not name.isidentifier():
            raise ValueError(f"enum member {cls.member!r} is no identifier")
        where = pytext.docstring(f"{spec.source.display}:{cls.line}")
        doc = spec.json_documents[cls.document]
        sections = bool(doc.keys) and doc.keys[0].type == "map"
        model = f"rt_{cls.module}.{cls.model}"
        what = (
            "its ``{}`` document ``obj`` (``columns``, ``state``: the codec's reader of row "
            "sections)" if sections else "its ``{}`` document ``obj``" if doc.keys
            else "no value (``{}`` has no keys: ``obj`` is None)"
        ).format(cls.document)  # fmt: skip
        read = [
            f"def _event_read_{name}(fields, obj, columns, state):",
            f'    """{where}: a {cls.member} event ({km.class_by[0]}.{type_key} is {cls.value}):',
            *textwrap.wrap(f"the {cls.model} of its key's ``fields`` and {what}.\"\"\"", 84,
                           initial_indent="    ", subsequent_indent="    "),
        ]  # fmt: skip
        if sections:
            images = ["new", "old"]  # what a row document's reader returns
            read.append(f"    {', '.join(images)} = _json_read_{cls.document}(obj, columns, state)")
            values = {f: f for f in images}
        elif doc.keys:
            read.append(f"    value = _json_read_{cls.document}(obj)")
            values = {k.field: f"value[{k.field!r}]" for k in doc.keys}
        else:
            values = {}
        args = [
            f"{field}=" + (values[field] if source == cls.document else f"fields[{field!r}]")
            for field, source in cls.fields
        ]
        read.append(f"    return {model}(")
        read += [f"        {arg}," for arg in args]
        read.append("    )")
        key = f"_json_write_{key_doc}(ev, go122, {cls.value})"
        if sections:
            value = f"_json_write_{cls.document}(ev, column_map, layout, go122)"
        elif doc.keys:
            value = f"_json_write_{cls.document}(ev, go122)"
        else:
            value = '""'
        write = [
            f"def _event_write_{name}(ev, column_map, layout, go122):",
            f'    """{where}: the key and value JSON text of a {cls.member} event',
            f'    ``ev``, the {cls.write_first} written first (its EncodeError comes first)."""',
        ]
        if cls.write_first == "value":
            write += [f"    value = {value}", f"    return {key}, value"]
        else:
            write += [f"    key = {key}", f"    return key, {value}"]
        blocks += ["\n".join(read), "\n".join(write), *_json_form(spec, cls, where, views)]
        table.append(
            f"    rt_kafka.EventClass({enum_class}.{cls.member}, {model}, {cls.document!r},"
            f" _event_read_{name}, _event_write_{name}, _event_json_{name},"
            f" _event_from_json_{name}),"
        )
    table = ["EVENT_CLASSES = (", *table, ")", (
        '"""The classes above (the spec\'s ``kafka_message: classes:``): the event-type member,'
        "\nthe model, the value document, the reader and the writer, the JSON form both ways;"
        '\nthe Kafka codec\'s table of event types, the compiled kernel\'s too."""'
    )]  # fmt: skip
    if views:
        blocks.insert(0, event_views(views))
    image = image_model(spec, spec.kafka_message.classes)
    blocks.append(render_image_json(spec, image) if image else "_IMAGE_JSON = None")
    return "\n\n\n".join(blocks + ["\n".join(table)])


def _json_form(spec: Spec, cls, where: str, views: dict) -> list[str]:
    """``_event_json_<member>(ev, image)`` and ``_event_from_json_<member>(e, image)``: the
    JSON form of a class's events (:mod:`generator.emit.event_json`): ``type`` the member
    in lower case, ``op`` for row sections, the model's fields by their keys' types
    (sections shown last; an integer past 2**53 a decimal string, as ``to_jsonable`` shows
    one); a field left out reads as the model's default."""
    keys = {}  # field -> the key that carries it
    for source in dict.fromkeys(source for _, source in cls.fields):
        for k in spec.json_documents[source].keys:
            keys.setdefault(k.field, k)
    model = spec.imported_models[f"{cls.module}.{cls.model}"]
    defaults = {f.name: f.default for f in model.fields}
    sections = [f for f, _ in cls.fields if keys[f].type == "map"]
    fields = []
    for field, _ in cls.fields:
        key, default, value = keys[field], defaults[field], f"ev.{field}"
        got = f"e.get({field!r}" + (", " + repr(default) if default is not None and
                                    default is not dataclasses.MISSING else "") + ")"  # fmt: skip
        enum = ""
        if key.type == "map":
            value, got = f"image({value})", f"image({got}, {field!r})"
        elif key.enum and key.open:
            enum = _camel(key.enum)
        elif key.type in ("u64", "s64"):  # past 2**53 a string, as every JSON form shows ints
            value = value if key.logical else f"rt_codec.to_jsonable({value})"  # a view: as is
            got_int = f"rt_codec.int_from_json({got}, {field!r})"
            nullable = default is not dataclasses.MISSING
            got = f"None if {got} is None else {got_int}" if nullable else got_int
        elif key.type == "bool":
            got = f"rt_codec.bool_from_json({got}, {field!r})"
        fields.append(JsonField(field, value, got, enum, key.logical or ""))
    name = cls.member.lower()
    head = f"{{'type': {name!r}" + (", 'op': ev.op}" if sections else "}")
    tail = ["    if 'op' in e and e['op'] != ev.op:",
            "        message = f\"op {e['op']!r} disagrees with new/old ({ev.op})\"",
            "        raise rt.EncodeError(message, path='op')"] if sections else ()  # fmt: skip
    head_keys = ("type", "op") if sections else ("type",)
    return event_functions(
        where, cls, fields, views, head=head, last=sections, back_tail=tail, head_keys=head_keys
    )


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))
