"""Reading one field in a fast reader: its tag, condition and limits, ``process:``ed
regions, repeats (by count, to the end, tagged, in Avro blocks) and row loops, around the
reading of each value (:mod:`generator.emit.fastpath_values`)."""

from __future__ import annotations

import re

from generator.emit.pysource import LineWriter, codec_cases
from generator.spec.model import Field, Record
from generator.spec.types import PRIMITIVES


class FieldReaders:
    """Reads fields and their repeats (a base of
    :class:`generator.emit.fastpath.FastPathEmitter`, whose state and other parts it uses)."""

    def rows_loop(self, w: LineWriter, field: Field) -> None:
        """``repeat_loop`` of an eos repeat that yields each element instead of keeping it.

        The elements are not kept, so ``max_count`` does not bound how many there are, and
        ``max_message_bytes`` applies to each element (one binlog event), not to the input:
        a file of any size streams through."""
        var = f"f_{field.name}"
        w.line(f"{var}_begin = pos")
        w.line(f"{var}_n = 0")
        w.line("while pos < end:")
        with w.indent():
            w.line(f"{var}_at = pos")
            w.line("try:")
            with w.indent():
                w.line("try:")
                with w.indent():
                    self.value(w, field.type, f"{var}_item", field)
                w.line("except DecodeError as err:")
                with w.indent():
                    w.line(f"err.add_path(index={var}_n)")
                    w.line("raise")
                self.limit(w, "max_message_bytes", f"pos - {var}_at", f"{var}_at")
            w.line("except DecodeError as err:")
            with w.indent():
                w.line(f"err.add_path({field.name!r})")
                w.line("raise")
            w.line(f"{var}_n += 1")
            w.line(f"yield {var}_item")
        if field.min_count:
            w.line(f"if {var}_n < {field.min_count}:")
            with w.indent():
                w.line(
                    f'raise DecodeError("expected at least {field.min_count} element(s)", '
                    f"offset={var}_begin, path={field.name!r})"
                )

    def tag(self, w: LineWriter, tag: int) -> None:
        w.line(f"if pos >= end or buf[pos] != 0x{tag:02x}:")
        with w.indent():
            w.line(f"raise rt_fast.tag_error(buf, pos, end, 0x{tag:02x})")
        w.line("pos += 1")

    def limit(self, w: LineWriter, name: str, value: str, offset: str) -> None:
        """A limit check that costs one comparison unless it fails."""
        w.line(f"if {value} > limits.{name}:")
        with w.indent():
            w.line(f'limits.check("{name}", {value}, offset={offset})')

    def field(self, w: LineWriter, field: Field, record: Record) -> None:
        var = f"f_{field.name}"
        ref = field.type
        if field.kept_of:
            w.line(f"pass  # {field.name} is set with {field.kept_of}")
            return
        if ref.kind == "presence":
            w.line(f"{var} = pos < end and buf[pos] == 0x{field.tag:02x}")
            w.line(f"if {var}:")
            with w.indent():
                w.line("pos += 1")
            return
        if field.tag is not None and field.optional:
            w.line(f"if pos < end and buf[pos] == 0x{field.tag:02x}:")
            with w.indent():
                w.line("pos += 1")
                self.field_body(w, field, var)
            w.line("else:")
            with w.indent():
                w.line(f"{var} = {'[]' if field.repeat is not None else 'None'}")
        else:
            if field.tag is not None:
                self.tag(w, field.tag)
            self.field_body(w, field, var)

    def spanned_fields(self, record: Record) -> set[str]:
        """Fields whose byte span later code needs (raw checksum items, const errors, a
        checksum over later fields)."""
        spanned = {f.name for f in record.fields if f.const is not None} | record.checksummed
        return spanned | {f.name for f in record.fields if f.checksum and self.span_of(f)}

    def field_body(self, w: LineWriter, field: Field, var: str) -> None:
        if field.process is not None and field.process.rest:
            self.processed_rest(w, field, var)
        elif field.process is not None:
            self.processed_value(w, field, var)
        else:
            self.plain_body(w, field, var)

    def processed_rest(self, w: LineWriter, field: Field, var: str) -> None:
        """``process: {size: eos}``: the field (a list too) read from the rest of the
        record's bytes decoded, ``buf`` and ``end`` standing for the decoded bytes
        meanwhile; with the codec ``none`` in place (no copy, no wire kept)."""
        process = field.process
        if process.cases is None:
            codec = f"{process.codec!r}, None"
        else:
            cases = codec_cases(self.codec_cases, "_CODECS_", process.cases.items())
            codec = f"{self.expression(process.codec)}, {cases}"
        at, outer = f"{var}_at", f"{var}_outer"
        w.line(f"{at} = pos")
        w.line(f"{var}_codec = rt_process.codec_at({codec}, pos)")
        w.line(f"{var}_wire = {outer} = None")
        w.line(f'if {var}_codec != "none":')
        with w.indent():
            w.line(f"{outer} = buf, end")
            w.line(f"{var}_wire = bytes(buf[pos:end])")
            w.line(f"buf = rt_process.decoded({var}_codec, {var}_wire, pos, limits)")
            w.line("pos, end = 0, len(buf)")
        w.line("try:")
        with w.indent():
            self.plain_body(w, field, var)
        w.line("except DecodeError as err:")
        with w.indent():
            w.line(f"if {outer} is not None:  # no offset of the input: the region's")
            with w.indent():
                w.line(f"err.offset = {at}")
                w.line(f'err.add_path(f"<{{{var}_codec}}>")')
            w.line("raise")
        w.line("if pos != end:")
        with w.indent():
            w.line(f"if {outer} is None:")
            with w.indent():
                w.line('raise DecodeError(f"{end - pos} byte(s) left unparsed", offset=pos)')
            w.line(
                f'raise DecodeError(f"{{end - pos}} decoded byte(s) left unparsed", offset={at})'
            )
        w.line(f"if {outer} is not None:")
        with w.indent():
            w.line(f"buf, end = {outer}")
            w.line("pos = end")

    def plain_body(self, w: LineWriter, field: Field, var: str) -> None:
        """The field's value (a list when repeated) from ``buf[pos:end]``."""
        ref = field.type
        if field.repeat is None:
            self.value(w, ref, var, field)
            return
        if field.repeat == "blocks":
            self.blocks_loop(w, field, var)
            return
        if field.repeat == "until":
            self.until_loop(w, field, var)
            return
        w.line(f"{var}_begin = pos")
        count = field.repeat.get("count") if isinstance(field.repeat, dict) else None
        if count is not None:
            w.line(f"{var}_count = {self.expression(count)}")
            if not isinstance(count, int):  # construct's RepeatCount checks what it is given
                w.line(f"if type({var}_count) is not int or {var}_count < 0:")
                with w.indent():
                    w.line(
                        f'raise DecodeError(f"invalid element count {{{var}_count!r}}", offset=pos)'
                    )
            self.limit(w, "max_count", f"{var}_count", "pos")
        if isinstance(count, int) and self.is_msb(ref) and not ref.enum and field.const is None:
            # Fixed-count varints (a UUID's 16 bytes): one tight loop for the usual 1- and
            # 2-byte forms; anything else is re-read below element by element for its error.
            prim = PRIMITIVES[ref.name]
            if not prim.signed:
                arr = w.fresh("arr")
                w.line(f"{arr} = rt_fast.msb_uvar_array(buf, pos, end, {count}, {prim.bits})")
                w.line(f"if {arr} is not None:")
                with w.indent():
                    w.line(f"{var}, pos = {arr}")
                w.line("else:")
                with w.indent():
                    self.repeat_loop(w, field, var, count)
                return
        self.repeat_loop(w, field, var, count)

    def element(self, w: LineWriter, field: Field, var: str) -> None:
        """One element of a repeated field onto the list ``var`` (its index in errors)."""
        ref = field.type
        if "this._index" in " ".join(self._type_expressions(ref)):
            w.line(f"f__index = len({var})")
        if self.reads_index and any(r in self.needs_parent for r in self._record_refs(ref)):
            w.line(f"parent_of_{field.name}._index = len({var})  # `_parent._index`")
        w.line("try:")
        with w.indent():
            self.value(w, ref, f"{var}_item", field)
        w.line("except DecodeError as err:")
        with w.indent():
            w.line(f"err.add_path(index=len({var}))")
            w.line("raise")
        w.line(f"{var}.append({var}_item)")

    def blocks_loop(self, w: LineWriter, field: Field, var: str) -> None:
        """``runtime.core.sequences.RepeatBlocks``: ZigZag counts (a byte size after a negative
        one), the elements, until a 0 count; the split goes to ``<name>_blocks``."""
        count, size, stop = f"{var}_n", f"{var}_size", f"{var}_stop"
        w.line(f"{var} = []")
        w.line(f"{var}_blocks = []")
        w.line("while True:")
        with w.indent():
            w.line(f"{var}_at = pos")
            self.leb128(w, count, True)
            w.line(f"if {count} == 0:")
            with w.indent():
                w.line("break")
            self.limit(w, "max_count", f"len({var}) + abs({count})", f"{var}_at")
            w.line(f"{stop} = None")
            w.line(f"if {count} < 0:")
            with w.indent():
                w.line(f"{var}_size_at = pos")
                self.leb128(w, size, True)
                w.line(f"if {size} < 0 or {size} > end - pos:")
                with w.indent():
                    w.line(
                        f'raise DecodeError(f"block byte size {{{size}}} out of range", '
                        f"offset={var}_size_at)"
                    )
                w.line(f"{stop} = pos + {size}")
            w.line(f"for _ in range(abs({count})):")
            with w.indent():
                self.element(w, field, var)
            w.line(f"if {stop} is not None and pos != {stop}:")
            with w.indent():
                w.line(
                    f'raise DecodeError(f"block of {{abs({count})}} element(s) ends at {{pos}}, '
                    f'its byte size says {{{stop}}}", offset={var}_at)'
                )
            w.line(f"{var}_blocks.append({count})")

    def until_loop(self, w: LineWriter, field: Field, var: str) -> None:
        """``runtime.core.sequences.RepeatUntil``: no bytes left before the terminator is an
        error at the end, ``max_count`` is checked before each element, the test runs on
        the element just read (``_item``); with ``include: false`` the terminator goes to
        ``<name>_terminator``. A test that fails to evaluate is the field's expression
        error (``FastPathEmitter.expression_failure``), as construct reports it."""
        until = field.repeat_until
        w.line(f"{var} = []")
        w.line("while True:")
        with w.indent():
            w.line("if pos >= end:")
            with w.indent():
                w.line('raise DecodeError("the sequence ends before its terminator", offset=pos)')
            self.limit(w, "max_count", f"len({var}) + 1", "pos")
            self.element(w, field, var)
            test = re.sub(r"\bthis\._item\b", f"{var}_item", until["until"])
            w.line(f"if {self.expression(test)}:")
            with w.indent():
                w.line("break")
        if not until["include"]:
            w.line(f"{var}_terminator = {var}.pop()")

    def processed_value(self, w: LineWriter, field: Field, var: str) -> None:
        """``runtime.core.process.Processed`` inside its size: the bytes decoded by the codec,
        the record read from them (``runtime.core.process.read_processed``)."""
        ref, process = field.type, field.process
        if process.cases is None:
            codec = f"{process.codec!r}, None"
        else:
            cases = codec_cases(self.codec_cases, "_CODECS_", process.cases.items())
            codec = f"{self.expression(process.codec)}, {cases}"
        extra = f", parent_of_{field.name}" if ref.name in self.needs_parent else ""
        call = (
            f"{var}, {var}_wire = rt_process.read_processed(_read_{ref.name}, buf, pos, {{end}}, "
            f"{codec}, limits, depth + 1{extra})"
        )
        self.record_value(w, ref, var, field, call)

    def repeat_loop(self, w: LineWriter, field: Field, var: str, count) -> None:
        ref = field.type
        if field.on_cut:
            self.cut_loop(w, field, var)
            return
        w.line(f"{var} = []")
        if field.repeat == "eos":
            w.line("while pos < end:")
        elif field.repeat == "tagged":
            tag = self.spec.records[ref.name].tag
            w.line(f"while pos < end and buf[pos] == 0x{tag:02x}:")
        else:  # the count is checked against max_count before the loop
            w.line(f"for _ in range({var}_count):")
        with w.indent():
            if field.repeat in ("eos", "tagged"):
                self.limit(w, "max_count", f"len({var}) + 1", "pos")
            self.element(w, field, var)
        if field.min_count:
            what = f"{field.min_count} element(s)"
            if field.repeat == "tagged":
                what += f" starting with tag 0x{tag:02x}"
            w.line(f"if len({var}) < {field.min_count}:")
            with w.indent():
                w.line(f'raise DecodeError("expected at least {what}", offset={var}_begin)')

    def cut_loop(self, w: LineWriter, field: Field, var: str) -> None:
        """``repeat: eos`` with ``on_cut: keep`` (``runtime.core.sequences.RepeatEos``'s
        ``cut``): whole elements read fast; an element that fails is a cut when its read
        ran past ``end`` (``rt_sequences.ran_short``, which reads it again by
        ``<var>_again``), and its bytes to ``end`` go to ``<var>_cut``; any other failure
        is the element's DecodeError, as without the key."""
        w.line(f"def {var}_again(buf, pos, end):  # the element read again (ran_short)")
        with w.indent():
            self.value(w, field.type, f"{var}_item", field)
            w.line("return pos")
        w.line(f"{var} = []")
        w.line(f"{var}_cut = None")
        w.line("while pos < end:")
        with w.indent():
            self.limit(w, "max_count", f"len({var}) + 1", "pos")
            if "this._index" in " ".join(self._type_expressions(field.type)):
                w.line(f"f__index = len({var})")
            if self.reads_index and any(
                r in self.needs_parent for r in self._record_refs(field.type)
            ):
                w.line(f"parent_of_{field.name}._index = len({var})  # `_parent._index`")
            w.line(f"{var}_at = pos")
            w.line("try:")
            with w.indent():
                self.value(w, field.type, f"{var}_item", field)
            w.line("except DecodeError as err:")
            with w.indent():
                w.line(f"if not rt_sequences.ran_short(err, {var}_again, buf, {var}_at, end):")
                with w.indent():
                    w.line(f"err.add_path(index=len({var}))")
                    w.line("raise")
                w.line(f"{var}_cut = bytes(buf[{var}_at:end])")
                w.line("pos = end")
                w.line("break")
            w.line(f"{var}.append({var}_item)")
        if field.min_count:
            w.line(f"if len({var}) < {field.min_count}:")
            with w.indent():
                msg = f"expected at least {field.min_count} element(s)"
                w.line(f'raise DecodeError("{msg}", offset={var}_begin)')
