"""A ``kafka_message:``'s ``class_by:`` and ``classes:``: which model an event is, and which
``json:`` document its Kafka value holds, by the member of its key's event-type key.

Open Protocol's key says an event's type in ``t`` (the ``message_type`` enum); each member
is a class, as a ``map:``'s ``classes:`` are (generator/spec/mapping.py), with the model
it makes and the document its value is::

    kafka_message:
      class_by: event_key.t
      classes:
        ROW: {model: ticdc_types.RowChangedEvent, value: row_value, write_first: value}
        DDL: {model: ticdc_types.DdlEvent, value: ddl_value}
        RESOLVED: {model: ticdc_types.ResolvedEvent, value: resolved_value}   # no keys: empty

A model's fields are those of the key document its class carries (a key with ``events:``
only for those members) and those of its value document, each once, together every field
the model has (an imported spec's ``models:``), so what a key or value holds is never dropped and no
model field is left unset. :mod:`generator.emit.kafka_classes` renders them.
"""

from __future__ import annotations

import re

from generator.spec.mapping import class_members
from generator.spec.model import JsonDoc, KafkaClass

_DOCUMENT_KEY = re.compile(r"([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)")
EVENT_TYPE_FIELD = "type"
"""The ``field:`` of the event-type key: the class, which no model holds."""
MAP_TYPES, SCALAR_TYPES = {"map"}, {"u8", "u64", "s64", "bool", "string", "bytes"}


def read_kafka_classes(builder, raw: dict, documents: dict[str, JsonDoc]):
    """(class_by as (document, key), [KafkaClass], the class_by key's enum) of a
    ``kafka_message:`` (``builder``: the :class:`generator.spec.validate.SpecBuilder`, for
    ``file:line`` errors)."""
    parts = ("kafka_message",)
    match = _DOCUMENT_KEY.fullmatch(raw["class_by"])
    key_doc = documents.get(match.group(1)) if match else None
    type_key = key_doc and next((k for k in key_doc.keys if k.name == match.group(2)), None)
    if type_key is None:
        raise builder.error(
            parts + ("class_by",), f"{raw['class_by']!r} is not DOCUMENT.KEY of a json: document"
        )
    if type_key.field != EVENT_TYPE_FIELD or type_key.enum is None or type_key.open:
        raise builder.error(
            parts + ("class_by",),
            f"{raw['class_by']!r} is not an event-type key (field: {EVENT_TYPE_FIELD}, a closed enum:)",
        )
    enum = builder.enums[type_key.enum]
    members = class_members(builder, enum, raw["classes"], parts + ("classes",))
    classes = [
        _kafka_class(builder, member, members[member], body, key_doc, type_key, documents)
        for member, body in raw["classes"].items()
    ]
    rows = [c.member for c in classes if _types(documents[c.document]) == MAP_TYPES]
    if len(rows) > 1:
        raise builder.error(
            parts + ("classes", rows[1], "value"),
            f"the value documents of {rows[0]} and {rows[1]} both hold row sections "
            "(map keys): the codec reads one row document",
        )
    return (key_doc.name, type_key.name), classes, enum


def _types(doc: JsonDoc) -> set[str]:
    return {k.type for k in doc.keys}


def _kafka_class(builder, member, value, body, key_doc, type_key, documents) -> KafkaClass:
    parts = ("kafka_message", "classes", member)
    models = builder.imported_models
    model = models[body["model"]].field_names if body["model"] in models else None
    if model is None:
        raise builder.error(parts + ("model",), f"{body['model']!r} is not one of {sorted(models)}")
    doc = documents.get(body["value"])
    if doc is None or doc is key_doc:
        raise builder.error(
            parts + ("value",), f"{body['value']!r} is not a json: document beside {key_doc.name}"
        )
    if doc.keys and _types(doc) != MAP_TYPES and not _types(doc) <= SCALAR_TYPES:
        raise builder.error(
            parts + ("value",),
            f"{doc.name!r} is not a value document: its keys are all scalars, all row "
            "sections (map), or none",
        )
    sources: dict[str, str] = {}
    for key in key_doc.keys:
        if key is type_key:
            continue
        carried = not key.events or member in key.events
        if carried != (key.field in model):
            raise builder.error(
                parts + ("model",),
                f"{body['model']} {'has no' if carried else 'has'} field {key.field!r}, "
                f"which {key_doc.name}.{key.name} {'carries' if carried else 'does not carry'} "
                f"for {member} (its events:)",
            )
        if carried:
            sources[key.field] = key_doc.name
    for key in doc.keys:  # row sections may share a field (p and d: the old image)
        if key.field not in model or sources.get(key.field) == key_doc.name:
            raise builder.error(
                parts + ("value",),
                f"{doc.name}.{key.name}'s field {key.field!r} is "
                + (f"no field of {body['model']}" if key.field not in model
                   else f"{key_doc.name}'s too"),
            )  # fmt: skip
        sources[key.field] = doc.name
    unset = [f for f in model if f not in sources]
    if unset:
        raise builder.error(
            parts + ("model",),
            f"{body['model']} field {unset[0]!r} is in neither {key_doc.name} (for {member}) "
            f"nor {doc.name}",
        )
    module, name = body["model"].split(".")
    fields = tuple((f, sources[f]) for f in model)
    line = builder.lines.line(parts)
    return KafkaClass(
        member, value, module, name, doc.name, fields, body.get("write_first", "key"), line
    )
