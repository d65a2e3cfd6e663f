"""A ``spark: {row: a.b.c}`` path through a ``choice``: the step after the choice is
taken in every case record, so the path splits into one path per case (pcap's four
files: each byte order and timestamp unit its own record). One Spark table holds them
all, so every case must give the same columns: the same field names, of the same shape
(byte order aside: ``u32le`` and ``u32be`` are both a LongType), all the way down.

    >>> shape_of_type("u32le"), shape_of_type("u32be"), shape_of_type("s16")
    ('u32', 'u32', 's16')
"""

from __future__ import annotations

import re

_ORDER_SUFFIX = re.compile(r"(?<=\d)(le|be)$")
"""A primitive's byte order (``u32le``): the value it reads is the same kind either way."""


def shape_of_type(name: str) -> str:
    """A type name without its byte order."""
    return _ORDER_SUFFIX.sub("", name)


def record_shape(builder, name: str, seen=()) -> tuple:
    """What a row of record ``name`` looks like in Spark: per field its name, its type
    without byte order (a record's by its own shape) and what else sets its columns."""
    if name in seen:  # recursive: the name stands for the shape
        return (name,)
    record = builder.record(name, builder.data["records"][name])
    out = []
    for field in record.fields:
        ref = field.type
        if ref.kind == "record":
            kind = record_shape(builder, ref.name, (*seen, name))
        elif ref.kind == "choice":
            kind = tuple(sorted(ref.cases))
        else:
            kind = (ref.kind, shape_of_type(ref.name), ref.enum)
        out.append(
            (
                field.name,
                kind,
                field.repeat is None,
                bool(field.condition or field.optional),
                field.open_enum,
                field.logical,
                field.spark_type,
                field.spark_skip,
                field.spark_inline,
            )
        )
    return tuple(out)


def paths_through_choice(builder, record, names: list[str], i: int, field, parts, steps):
    """The row paths of ``record`` whose step ``i`` (``field``) is a choice: the rest of
    the path (``names[i + 1:]``) taken in each case record, each a full path; refused at
    ``parts`` when the path ends at the choice or two cases' rows differ in shape."""
    rest = ".".join(names[i + 1 :])
    if not rest:
        raise builder.error(
            parts,
            f"{field.name!r} is a choice: a row path through it goes on to a field its case "
            "records share (file.capture.packets)",
        )
    if names[i + 1] in field.type.cases:
        raise builder.error(
            parts,
            f"{field.name!r} is a choice: a row path goes on in every case record, so name the "
            f"field after it, not the case {names[i + 1]!r} "
            f"({'.'.join([*names[: i + 1], *names[i + 2 :]])})",
        )
    paths, first = [], None
    for case in field.type.cases:
        body = builder.data["records"][case]
        case_record = builder.record(case, body)
        for tail in builder.row_paths(case_record, rest, parts):
            leaf_owner, leaf_field = tail[-1]
            leaf = builder.record(leaf_owner, builder.data["records"][leaf_owner]).field(leaf_field)
            shape = (
                [record_shape(builder, owner) for owner, _ in tail],
                record_shape(builder, leaf.type.name),
            )
            if first is None:
                first = (case, shape)
            elif shape != first[1]:
                raise builder.error(
                    parts,
                    f"the cases of the choice {field.name!r} give rows of other columns: "
                    f"{first[0]!r} and {case!r} differ (one Spark table holds every case's rows: "
                    "the same field names and types, byte order aside)",
                )
            paths.append([*steps, (record.name, field.name), *tail])
    return paths
