"""Where the models of a generated module keep bytes its spec does not know: the module's
``UNKNOWN_BYTES`` (model class -> {field -> ``holds(value)``}, or None for a class that
keeps none at any depth), which ``keeps_unknown`` walks (``runtime.core.unknown_bytes``).
All of it is derived from the spec; nothing needs saying there.

- a ``layout: serializable`` record keeps a newer writer's fields as ``unknown_fields``, a
  ``layout: protobuf`` record its unknown fields in ``wire_layout``;
- a switch whose ``default:`` is raw bytes keeps the bytes of a code its enum does not
  list, where the selector can hold one (:func:`unlisted_selectors`): the selector's test is
  ``rt_unknown_bytes.unlisted(Enum)``;
- a Kafka message of ``json:`` documents keeps a member they do not declare in its
  ``wire_form`` only (Go reads past one): the codec's ``holds_unknown``.

A record from which no holder can be reached (its fields, their records, ...) maps to None:
the walk does not enter it, so a PNG's walk stops at its chunks' data records.
"""

from __future__ import annotations

from generator.spec.model import Record, Spec, camel, record_dependencies


def unknown_holders(spec: Spec) -> list[tuple[str, list[tuple[str, str]] | None]]:
    """(model class, [(field, ``holds(value)``)] or None) of the module's ``UNKNOWN_BYTES``;
    empty when no model of the spec keeps unknown bytes (``keeps_unknown`` then answers
    without a walk)."""
    held: dict[str, list[tuple[str, str]]] = {}
    for name in spec.record_order():
        record = spec.records[name]
        fields = [
            (f, f"rt_unknown_bytes.unlisted({camel(e)})") for f, e in unlisted_selectors(record)
        ]
        if record.layout == "serializable":
            fields.insert(0, ("unknown_fields", "rt_serializable.holds_unknown"))
        elif record.layout == "protobuf":  # its map entries read by its own table
            fields.insert(0, ("wire_layout", f"{name}.holds_unknown"))
        if fields:
            held[name] = fields
    rows: list[tuple[str, list[tuple[str, str]] | None]]
    rows = [(camel(name), fields) for name, fields in held.items()]
    km = spec.kafka_message
    if km and spec.json_documents:  # the message's test covers its events
        rows.append(("Message", [("wire_form", "_KAFKA.holds_unknown")]))
        rows += [(f"rt_{c.module}.{c.model}", None) for c in km.classes]
    if not rows:
        return []
    reaching = _reaching(spec, set(held))
    return rows + [(camel(n), None) for n in spec.record_order() if n not in reaching]


def _reaching(spec: Spec, holders: set[str]) -> set[str]:
    """The records that are holders or hold one at some depth (records may nest in a
    cycle, a BSON document's elements holding documents: repeated until nothing is added)."""
    reaching = set(holders)
    while True:
        more = {
            name
            for name, record in spec.records.items()
            if name not in reaching and reaching.intersection(record_dependencies(record))
        }
        if not more:
            return reaching
        reaching |= more


def unlisted_selectors(record: Record) -> list[tuple[str, str]]:
    """(selector field, its enum) of each switch of ``record`` whose ``default:`` is raw
    bytes and whose selector may hold a code the enum does not list (an ``open: true`` enum,
    or a plain integer named by the switch's own ``enum:``): such a code's bytes are bytes
    the spec does not know (a PNG chunk type of an application's own). A strict enum refuses
    an unlisted code, so its switch's default holds only listed ones; a switch on an
    enclosing record's field is not counted (its selector is not this record's)."""
    fields = {f.name: f for f in record.fields}
    out = {}
    for f in record.fields:
        default = f.type.cases.get("default") if f.type.kind == "switch" else None
        selector = fields.get(f.type.switch_on)
        if default is None or default.kind != "bytes" or f.type.on_enclosing:
            continue
        if selector is not None and selector.type.enum is None:
            out[selector.name] = f.type.enum
    return list(out.items())
