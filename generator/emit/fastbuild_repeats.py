"""The fast writers of repeated fields: a counted, ``eos`` or ``tagged`` list, ``blocks``
(``runtime.core.sequences.RepeatBlocks``) and ``until`` (``RepeatUntil``), each element
written by :meth:`generator.emit.fastbuild.BuildEmitter.value` as construct's repeats do.
"""

from __future__ import annotations

from generator.emit.pysource import LineWriter
from generator.spec.model import Field


class Unsupported(Exception):
    """The record uses something the build fast path does not write; construct does."""


class RepeatWriters:
    """A part of :class:`generator.emit.fastbuild.BuildEmitter` (its state it uses)."""

    def repeat(self, w: LineWriter, field: Field, var: str, size, scope, written) -> None:
        if field.const is not None:
            raise Unsupported("a repeated const")
        # what is no list or tuple (a str's characters or a dict's keys could pass for
        # elements, a generator would be used up by its count) goes to construct, which says
        # what is wrong. A record's writer refuses a character or a key, and len() a
        # generator, so a counted list of records needs the check only when empty.
        records = all(ref.kind == "record" for ref in [field.type, *field.type.cases.values()])
        counted = (
            field.repeat_checked_on_build
            if isinstance(field.repeat, dict)
            else field.repeat in ("eos", "tagged") and field.min_count
        )
        empty = f"not {var} and " if records and counted else ""
        w.line(
            f"if {empty}type({var}) is not list and {var} is not None"
            f" and not isinstance({var}, (list, tuple)):"
        )
        w.line('    raise TypeError("list")')
        if field.repeat == "blocks":
            self.blocks(w, field, var, size, scope, written)
            return
        if field.repeat == "until":
            self.until(w, field, var, size, scope, written)
            return
        if isinstance(field.repeat, dict):
            count = field.repeat["count"]
            if field.repeat_checked_on_build:
                w.line(f"if len({var} or ()) != {self.expression(count, scope)}:")
                w.line('    raise ValueError("element count")')
        elif field.repeat in ("eos", "tagged"):
            if field.min_count:
                w.line(f"if len({var} or ()) < {field.min_count}:")
                w.line('    raise ValueError("too few elements")')
        else:
            raise Unsupported(f"repeat: {field.repeat}")
        items = w.fresh("items")
        w.line(f"{items} = []")
        if size:
            w.line(f"{size} = []")
        self.elements(w, field, f"enumerate({var} or ())", items, size, scope, written)
        w.line(f"{var} = {items}")

    def elements(
        self, w: LineWriter, field: Field, source: str, items, size, scope, written
    ) -> None:
        """``for i, item in <source>:`` write each element, its built value onto ``items``
        (its size onto ``size``), as construct's repeats do."""
        i, item = w.fresh("i"), w.fresh("item")
        w.line(f"for {i}, {item} in {source}:")
        w.depth += 1
        if any(
            ref.kind == "record" and "_index" in self.parent_reads[ref.name]
            for ref in [field.type, *field.type.cases.values()]
        ):
            w.line(f"ctx._index = {i}")  # construct's RepeatCount sets it for `_parent._index`
        if size:
            start = w.fresh("at")
            w.line(f"{start} = len(out)")
        outer, scope.index = scope.index, i
        self.value(w, field.type, item, field, scope, written)
        scope.index = outer
        w.line(f"{items}.append({item})")
        if size:
            w.line(f"{size}.append(len(out) - {start})")
        w.depth -= 1

    def blocks(self, w: LineWriter, field: Field, var: str, size, scope, written) -> None:
        """``runtime.core.sequences.RepeatBlocks``: the model's ``<name>_blocks`` when its counts
        still add up, else one block; a negative count's byte size goes in before its
        elements once they are written; a 0 count ends the list."""
        elements, blocks, count = w.fresh("elements"), w.fresh("blocks"), w.fresh("count")
        done, at, items = w.fresh("done"), w.fresh("at"), w.fresh("items")
        w.line(f"{elements} = list({var} or ())")
        w.line(f'{blocks} = model.get("{field.name}_blocks")')
        w.line(f"if {blocks} and not isinstance({blocks}, (list, tuple)):")
        w.line('    raise TypeError("list of counts")')
        w.line(
            f"if not {blocks} or sum(abs(c) for c in {blocks}) != len({elements}) or 0 in {blocks}:"
        )
        w.line(f"    {blocks} = [len({elements})] if {elements} else []")
        w.line(f"{items} = []")
        if size:
            w.line(f"{size} = []")
        w.line(f"{done} = 0")
        w.line(f"for {count} in {blocks}:")
        w.depth += 1
        w.line(f"out += rt_leb128.write_zigzag({count})")
        w.line(f"{at} = len(out)")
        source = f"enumerate({elements}[{done} : {done} + abs({count})])"
        self.elements(w, field, source, items, size, scope, written)
        w.line(f"if {count} < 0:")
        w.line(f"    out[{at}:{at}] = rt_leb128.write_zigzag(len(out) - {at})")
        w.line(f"{done} += abs({count})")
        w.depth -= 1
        w.line("out.append(0)")
        w.line(f"{var} = {items}")

    def until(self, w: LineWriter, field: Field, var: str, size, scope, written) -> None:
        """``runtime.core.sequences.RepeatUntil``: only the last element (``include``) or only
        the terminator (the model's ``<name>_terminator``, else the spec's) satisfies the
        expression; it is written after the elements, and left out of what is built."""
        until = field.repeat_until
        elements, items, i, item = (w.fresh(n) for n in ("elements", "items", "i", "item"))
        w.line(f"{elements} = list({var} or ())")
        w.line(f"for {i}, {item} in enumerate({elements}):")
        scope.item = item
        done = self.expression(until["until"], scope)
        last = f"{i} == len({elements}) - 1" if until["include"] else "False"
        w.line(f"    if ({last}) != bool({done}):")
        w.line('        raise ValueError("terminator")')
        if until["include"]:
            w.line(f"if not {elements}:")
            w.line('    raise ValueError("no terminator")')
        else:
            default = self.constant(
                f"_TERMINATOR_{field.name}_In_{scope.record.name}",
                f"rt_sequences.default_terminator({until['default']!r})",
            )
            terminator = w.fresh("terminator")
            scope.item = terminator
            w.line(f'{terminator} = model.get("{field.name}_terminator")')
            w.line(f"if {terminator} is None:")
            w.line(f"    {terminator} = {default}")
            w.line(f"if {terminator} is None or not {self.expression(until['until'], scope)}:")
            w.line('    raise ValueError("no terminator")')
            w.line(f"{elements}.append({terminator})")
        scope.item = None
        w.line(f"{items} = []")
        if size:
            w.line(f"{size} = []")
        self.elements(w, field, f"enumerate({elements})", items, size, scope, written)
        if not until["include"]:
            w.line(f"{items}.pop()")
            if size:
                w.line(f"{size}.pop()")
        w.line(f"{var} = {items}")
