"""``if: bytes_left()``: a field read only while bytes remain, and where a spec may say it.

Formats grow by appending optional fields to a sized body (MySQL's GTID_LOG_EVENT: 5.7
stops after sequence_number, 8.0 adds commit timestamps, then a transaction length, ...):
a reader reads the next one only if the body has bytes left. The bytes left are those of
the innermost sized region around the record (a ``size:`` on the field that holds it, or
the whole message), so the record must end that region: every field that holds it is
sized, or is the last field of a record that ends its own region in turn. And once a
field is absent no later one can be there, so every field after the first
``bytes_left()`` one has an ``if:`` too. The spec is refused at load otherwise:

    >>> from pathlib import Path
    >>> from generator.spec.loader import load_text
    >>> from generator.spec.validate import build_model
    >>> spec = '''
    ... format: demo
    ... doc: d
    ... endian: le
    ... default_record: outer
    ... records:
    ...   tail:
    ...     doc: d
    ...     fields:
    ...       - {name: a, type: u8, doc: d}
    ...       - {name: b, type: u16, if: "bytes_left()", doc: d}
    ...   outer:
    ...     doc: d
    ...     fields:
    ...       - {name: t, type: tail, doc: d}
    ...       - {name: crc, type: u32, doc: d}
    ... '''
    >>> build_model(load_text(spec, Path("demo.yaml")))
    Traceback (most recent call last):
    ...
    runtime.core.errors.SpecError: demo.yaml:11: records.tail.fields[1].if: bytes_left() reads to the end of the sized region around tail, but outer.t holds it with no size: and crc follows it
"""

from __future__ import annotations

from generator.spec.model import Field, Record


def check_bytes_left(builder, records: dict[str, Record]) -> None:
    """Refuse (``builder.error``, naming the ``if:``) a ``bytes_left()`` field whose record
    does not end its region, or that is followed by a field without ``if:``."""
    for name, record in records.items():
        front = [f for f in record.fields if not f.trailer and not f.derived and not f.kept_of]
        first = next((i for i, f in enumerate(front) if f.if_bytes_left), None)
        if first is None:
            continue
        where = builder.field_parts(name, front[first]) + ("if",)
        if record.layout != "sequence" or record.trailer or record.tag is not None:
            raise builder.error(
                where, "bytes_left() is for a plain record (no trailer:, tag: or layout:)"
            )
        for later in front[first + 1 :]:
            if not later.condition:
                raise builder.error(
                    builder.field_parts(name, later),
                    f"{later.name} has no if: but follows {front[first].name}, read only if "
                    "bytes remain: it would be read where there is nothing left",
                )
        why = _open_end(name, records, set())
        if why:
            raise builder.error(
                where,
                f"bytes_left() reads to the end of the sized region around {name}, but {why}",
            )


def _open_end(name: str, records: dict[str, Record], seen: set[str]) -> str:
    """Why ``name`` may not end the region its ``bytes_left()`` sees ('' when it always does)."""
    if name in seen:
        return f"{name} holds itself, so no region ends with it"
    seen = seen | {name}
    for holder in records.values():
        wire = [f for f in holder.fields if not f.derived and not f.kept_of]
        for field in wire:
            if not _holds(field, name) or _sized(field, name):
                continue
            where = f"{holder.name}.{field.name} holds it with no size:"
            if field.repeat is not None:
                return f"{where} in a list"
            if holder.trailer or field is not wire[-1]:
                after = wire[wire.index(field) + 1 :] or holder.trailer
                return f"{where} and {after[0].name} follows it"
            why = _open_end(holder.name, records, seen)
            if why:
                return why
    return ""


def _holds(field: Field, name: str) -> bool:
    refs = [field.type, *field.type.cases.values()]
    return any(ref.kind == "record" and ref.name == name for ref in refs)


def _sized(field: Field, name: str) -> bool:
    """Whether every way ``field`` holds record ``name`` is inside a ``size:`` of its own."""
    if field.type.size is not None:
        return True
    cases = [ref for ref in field.type.cases.values() if ref.name == name]
    return bool(cases) and all(ref.size is not None for ref in cases)
