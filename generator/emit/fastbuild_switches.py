"""Switches in the fast writers (a part of :mod:`generator.emit.fastbuild`): the size of a
switch's value written before it (``value: "sizeof(data)"`` in front of a switch), and
what a record passes on to its children's ``_parent._parent.x`` (a pcap packet's data
switched by the file header's link type, two records up).
"""

from __future__ import annotations

import re

from generator.spec.model import Field, camel

_GRANDPARENT = re.compile(r"\bthis\._parent\._parent\.(\w+)")


def measure_switch(emitter, target: Field, unsupported: type[Exception]) -> str:
    """``sizeof(target)`` of a switch before it is written: the value's type picks its
    case's measure (``rt_fast.measured_case``: bytes their length, a model what its
    writer writes; any other type raises and construct builds it). ``unsupported``: the
    emitter's refusal, raised for a case it cannot measure."""

    writers = []
    for sub in target.type.cases.values():
        if sub.kind == "bytes" and sub.terminator is None and not sub.size_is_prefix:
            writers.append("bytes: None")
        elif sub.kind == "record" and sub.name in emitter.writers and not sub.size_is_prefix:
            if emitter.needs_parent(sub.name):
                raise unsupported(f"sizeof({target.name}) of a case reading `_parent`")
            writers.append(f"{camel(sub.name)}: _write_{sub.name}")
        elif sub.kind != "empty":
            raise unsupported(f"sizeof({target.name}) of a {sub.kind} case before it is written")
    return f'rt_fast.measured_case(model["{target.name}"], {{{", ".join(writers)}}})'


def pass_grandparent_reads(spec, parent_reads: dict, built) -> None:
    """A record whose children read ``_parent._parent.x`` reads ``x`` of its own parent
    (and passes its parent on): add ``x`` to its ``parent_reads``."""
    for record in spec.records.values():
        above = {n for f in record.fields for e in built(f) for n in _GRANDPARENT.findall(e)}
        for holder in spec.records.values() if above else ():
            held = {
                t.name
                for f in holder.fields
                for t in (f.type, *f.type.cases.values())
                if t.kind == "record"
            }
            if record.name in held:
                parent_reads[holder.name] |= above
