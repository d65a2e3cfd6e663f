"""A ``kafka_message:``'s ``classes:`` as code: per class, the reader that makes its model
of the key's fields and the value document, the writer of its key and value, and the
``EVENT_CLASSES`` table the Kafka codec dispatches on (by the key's event-type member when
reading, by the model's class when writing).

The functions call the document code of :mod:`generator.emit.json_documents`
(``_json_read_<doc>``, ``_json_write_<doc>``): a scalar document is read into a dict, a
document of row sections into ``(new, old)`` by the codec's ``columns``, a document with
no keys is an empty value. Each is ``_event_read_<member>``/``_event_write_<member>``, the
member's name in lower case (an enum member is an upper-case identifier).
"""

from __future__ import annotations

import textwrap

from generator.spec import pytext
from generator.spec.model import KafkaMessage, Spec


def render_kafka_classes(spec: Spec) -> str:
    """The module text of ``spec``'s ``kafka_message: classes:`` (see the module doc)."""
    km: KafkaMessage = spec.kafka_message
    key_doc, type_key = km.class_by
    enum = next(k.enum for k in spec.json_documents[key_doc].keys if k.name == type_key)
    enum_class = "".join(part.capitalize() for part in enum.split("_"))
    blocks, table = [], []
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
        blocks += ["\n".join(read), "\n".join(write)]
        table.append(
            f"    rt_kafka.EventClass({enum_class}.{cls.member}, {model}, {cls.document!r},"
            f" _event_read_{name}, _event_write_{name}),"
        )
    table = ["EVENT_CLASSES = (", *table, ")", (
        '"""The classes above (the spec\'s ``kafka_message: classes:``): the event-type member,'
        "\nthe model, the value document, the reader and the writer; the Kafka codec's table"
        '\nof event types, the compiled kernel\'s too."""'
    )]  # fmt: skip
    return "\n\n\n".join(blocks + ["\n".join(table)])
