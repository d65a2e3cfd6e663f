"""A record's own byte order (``endian:`` on a record), checked and resolved at load.

``endian: le`` or ``be`` on a record says the order of its fixed-width numbers without a
suffix (``u32``, ``s16``), and of the records it holds that say none; ``endian:
{switch_on: FIELD, cases: {MEMBER: le, ...}}`` lets the data choose (Kaitai's ``meta:
endian: switch-on``): FIELD is an earlier integer field of the record, with an enum, read
in an order of its own (``u32be``), and each of its members (or ``default``) names the
order of every later field and of the records they hold (a pcap file's magic).

Lowered once, here: a record read in one known order has its numbers' types rewritten
with the suffix (``u32`` -> ``u32be``), so every tier reads it as if the spec said so; a
record whose order the data chooses is marked ``byte_order = "data"`` (its chooser:
``order_switch``): construct reads its unsuffixed numbers with ``rt.ByteOrdered``; the
fast reader and writers, the quick and the compiled tiers read it once per order
(:func:`specialised`; generator/emit/fastpath_orders.py, fastbuild_orders.py, order_plans.py).

    >>> from generator.spec.loader import load_text
    >>> from generator.spec.validate import build_model
    >>> spec = build_model(load_text('''
    ... format: t
    ... doc: t
    ... endian: le
    ... default_record: file
    ... enums:
    ...   magic: {doc: m, type: u16, values: {BIG: {value: 0x4d4d, doc: b}, LITTLE: {value: 0x4949, doc: l}}}
    ... records:
    ...   file:
    ...     doc: f
    ...     endian: {switch_on: magic, cases: {BIG: be, LITTLE: le}}
    ...     fields:
    ...       - {name: magic, type: u16be, enum: magic, doc: m}
    ...       - {name: head, type: head, doc: h}
    ...   head:
    ...     doc: h
    ...     endian: be
    ...     fields: [{name: n, type: u32, doc: n}]
    ... ''', None, "t.yaml"))
    >>> spec.records["file"].byte_order, spec.records["file"].order_switch
    ('data', ('magic', {19789: 'be', 18761: 'le'}, None))
    >>> spec.records["head"].byte_order, spec.records["head"].fields[0].type.name
    ('be', 'u32be')
"""

from __future__ import annotations

import contextlib
import copy

from generator.spec.model import Record, TypeRef, field_dependencies
from generator.spec.types import PRIMITIVES, ordered

DATA_ORDER = (
    "its byte order is chosen by the data (endian: switch_on): the readers and the fast"
    " writers take it, one per order; this tier does not yet"
)
"""Why a tier (the compiled writers) has no writer of a record read in a byte order the
data chooses."""


def ordered_float(record: Record) -> bool:
    """Whether ``record`` has a float that takes the order around it: a reader or writer
    specialised per order cannot give it a suffix (there is no ``f32be``)."""
    return any(PRIMITIVES[name].kind == "float" for _, name in _ordered_types(record))


def _refs(ref: TypeRef):
    """``ref`` and the types inside it (switch cases, a map's key and value)."""
    yield ref
    for sub in [*ref.cases.values(), ref.key, ref.value]:
        if sub is not None:
            yield from _refs(sub)


def _ordered_types(record: Record):
    """(field, what) of each number of ``record`` that takes the order around it."""
    for field in record.fields:
        for ref in _refs(field.type):
            if ref.kind == "prim" and ordered(ref.name):
                yield field, ref.name
            if ref.size_is_prefix and isinstance(ref.size, str) and ordered(ref.size):
                yield field, ref.size


def rewrite(record: Record, order: str) -> None:
    """Give every number of ``record`` without a suffix the suffix of ``order``."""
    for field in record.fields:
        for item in field.checksum.items if field.checksum is not None else ():
            if ordered(item.encoder) and PRIMITIVES[item.encoder].kind == "int":
                item.encoder += order
        for ref in _refs(field.type):
            if ref.kind == "prim" and ordered(ref.name) and PRIMITIVES[ref.name].kind == "int":
                ref.name += order
            if ref.size_is_prefix and isinstance(ref.size, str) and ordered(ref.size):
                ref.size += order


@contextlib.contextmanager
def specialised(records: dict[str, Record], order: str):
    """While inside, every record of ``records`` read in an order the data chooses is a
    copy rewritten in ``order`` (:func:`rewrite`): what a reader or writer per order is
    rendered from. ``records`` is as it was after.

    >>> from generator.spec.model import Field
    >>> rec = Record("r", "", [Field("n", "", TypeRef("prim", "u16"), None)], None, byte_order="data")
    >>> records = {"r": rec}
    >>> with specialised(records, "be"):
    ...     records["r"].fields[0].type.name
    'u16be'
    >>> records["r"] is rec, rec.fields[0].type.name
    (True, 'u16')
    """
    saved = dict(records)
    try:
        for name, record in saved.items():
            if record.byte_order == "data":
                clone = copy.deepcopy(record)
                rewrite(clone, order)
                clone.byte_order = order
                records[name] = clone
        yield
    finally:
        records.clear()
        records.update(saved)


def order_table(orders: dict[int, str]) -> str:
    """A selector's ``{value: order}`` as Python text for a generated module.

    >>> order_table({0xA1B2C3D4: "be", 0xD4C3B2A1: "le"})
    "{0xa1b2c3d4: 'be', 0xd4c3b2a1: 'le'}"
    """
    return "{" + ", ".join(f"{value:#x}: {order!r}" for value, order in orders.items()) + "}"


def order_table_name(record: str, use: str = "READ") -> str:
    """The module constant holding ``record``'s :func:`order_table` for its readers (or
    writers: ``use``): capitals, then the record's name as it is (no capital), so no
    upper-case name of the module (an enum's ``_<ENUM>_BY_VALUE``, a struct's ``_LE_U32``)
    and no other record's table is it.

    >>> order_table_name("pcap_header"), order_table_name("pcap_header", "WRITE")
    ('_READ_ORDER_OF_pcap_header', '_WRITE_ORDER_OF_pcap_header')
    """
    return f"_{use}_ORDER_OF_{record}"


def _switch(builder, record: Record, raw: dict, parts) -> tuple:
    """``endian: {switch_on, cases}``: (selector, {value: order}, default order)."""
    on = raw["switch_on"]
    names = [f.name for f in record.fields]
    if on not in names:
        from runtime.core.errors import did_you_mean

        raise builder.error(
            parts + ("switch_on",),
            f"{on!r} is not a field of this record: the byte order is chosen by an earlier "
            "field of its own record (the records it holds take it)" + did_you_mean(on, names),
        )
    selector = record.field(on)
    ref = selector.type
    enum = ref.enum or selector.open_enum
    if ref.kind != "prim" or PRIMITIVES[ref.name].kind != "int" or selector.derived or not enum:
        raise builder.error(
            parts + ("switch_on",),
            f"{on!r} is not an integer field with an enum read from the wire: the byte order "
            "is chosen by one (its members name the cases)",
        )
    if ordered(ref.name):
        raise builder.error(
            parts + ("switch_on",),
            f"{on!r} is a {ref.name}, read in the order it chooses: give it an order of its "
            f"own ({ref.name}be or {ref.name}le: the magic's bytes as the spec writes them)",
        )
    members = {v.name: v.value for v in builder.enums[enum].values}
    orders, default = {}, None
    for case, order in raw["cases"].items():
        if case == "default":
            default = order
        elif case in members:
            orders[members[case]] = order
        else:
            from runtime.core.errors import did_you_mean

            raise builder.error(
                parts + ("cases", case),
                f"{case!r} is not a member of {enum}" + did_you_mean(str(case), members),
            )
    missing = sorted(set(members) - set(raw["cases"]))
    if missing and default is None:
        raise builder.error(
            parts + ("cases",),
            f"no byte order for {missing}: every member of {enum} needs one, or add a default:",
        )
    for field in record.fields[: names.index(on)]:
        for early, name in _ordered_types(Record(record.name, "", [field], None)):
            raise builder.error(
                builder.field_parts(record.name, early) + ("type",),
                f"{name} is read before {on!r} chooses the byte order: give it a suffix "
                f"({name}le or {name}be), or move it after {on!r}",
            )
    return on, orders, default


def resolve_byte_orders(builder, records: dict[str, Record]) -> None:
    """Check every record's ``endian:`` and lower it (the module docstring)."""
    raw_records = builder.data.get("records", {})
    own: dict[str, str] = {}
    for name, body in raw_records.items():
        if "endian" not in body:
            continue
        raw, parts = body["endian"], ("records", name, "endian")
        if isinstance(raw, dict):
            records[name].order_switch = _switch(builder, records[name], raw, parts)
            own[name] = "data"
        else:
            own[name] = raw
    if not own:
        return
    reached: dict[str, dict[str, str]] = {name: {} for name in records}
    """Record -> {order it is read in: the record that says so}."""

    def spread(start: str, order: str) -> None:
        stack, seen = [start], set()
        while stack:
            name = stack.pop()
            if name in seen:
                continue
            seen.add(name)
            reached[name].setdefault(order, start)
            for field in records[name].fields:
                stack += [d for d in field_dependencies(field) if d in records and d not in own]

    for name, order in own.items():
        spread(name, order)
    for name in records:
        if not reached[name]:
            spread(name, builder.endian)
    for name, record in records.items():
        order = own.get(name)
        if order is None:
            orders = reached[name]
            if len(orders) > 1:
                says = ", ".join(
                    f"{'the data' if o == 'data' else o} in {by}" for o, by in orders.items()
                )
                raise builder.error(
                    ("records", name),
                    f"{name} is read in more than one byte order ({says}): give it an "
                    "endian: of its own, or make one record per order",
                )
            (order,) = orders
        if order == "data":
            record.byte_order = "data"
            _check_data_ordered(builder, record, raw_records[name])
            continue
        for field in record.fields:
            if field.decode_by is not None and order != builder.endian:
                raise builder.error(
                    builder.field_parts(name, field) + ("decode_by",),
                    f"decode_by: reads its values in the spec's endian ({builder.endian}), "
                    f"not {order}: not supported yet",
                )
        for field, prim in _ordered_types(record):
            if PRIMITIVES[prim].kind == "float" and order != builder.endian:
                raise builder.error(
                    builder.field_parts(name, field) + ("type",),
                    f"a {prim} read in {order} inside a spec whose endian is "
                    f"{builder.endian}: not supported yet (a float has no suffix)",
                )
        if name in own or order != builder.endian:
            record.byte_order = order
            rewrite(record, order)
    for name, body in raw_records.items():
        held = {d for f in records[name].fields for d in field_dependencies(f)}
        if "framed" in body and any(records[d].byte_order == "data" for d in held if d in records):
            raise builder.error(
                ("records", name, "framed"),
                "framed: around records whose byte order the data chooses: not supported yet",
            )


def _check_data_ordered(builder, record: Record, raw: dict) -> None:
    """Refuse what does not take a byte order chosen by the data yet (each would read in
    the spec's ``endian:`` instead, unseen): a trailer, ``framed:``, a checksum, a
    ``decode_by:``, a runtime primitive, chunk or region, a layout other than a sequence."""
    where = ("records", record.name)
    if record.layout != "sequence" or "framed" in raw:
        key = "framed" if "framed" in raw else "layout"
        raise builder.error(
            where + (key,), f"{key}: in a byte order chosen by the data: not supported yet"
        )
    for field in record.fields:
        what = (
            "a trailer field"
            if field.trailer
            else (
                "a checksum"
                if field.checksum is not None
                else (
                    "decode_by:"
                    if field.decode_by is not None
                    else (
                        f"a {field.type.kind}"
                        if field.type.kind in ("runtime", "chunk", "region")
                        else ""
                    )
                )
            )
        )
        if what:
            raise builder.error(
                builder.field_parts(record.name, field),
                f"{what} in a record whose byte order the data chooses: not supported yet"
                " (give the record an endian: of its own, or the numbers a suffix)",
            )
