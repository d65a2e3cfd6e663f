"""The compiled tier's steps that move ``pos`` themselves: varints, choices, nested
records, switches, repeats, blocks and ``process:`` regions."""

from __future__ import annotations

from generator.emit.compiled_lists import MEMBER_LISTS_PRELUDE
from generator.emit.compiled_prelude import (
    MEMCHR_PRELUDE,
    REUSE_PRELUDE,
    REVERSED_UVARINT_PRELUDE,
)
from generator.emit.compiled_support import NotCompiled
from generator.emit.order_plans import OrderChoice, compiled_order_choice
from generator.emit.plan import Chunk, Length, Nested, Number, Processed, Repeat, Text
from generator.emit.plan_branches import Choice, Optional, Presence, Switch, When
from generator.emit.plan_keyed import KEYED_STEPS
from generator.emit.plan_trailers import EndsAt, FromEnd
from generator.emit.untracked import CHECK, is_atomic, may_be_atomic, untracked_literal


class MovingSteps:
    """Steps that move ``pos`` themselves.

    A base of :class:`generator.emit.compiled.CompiledEmitter`, whose state and other parts
    it uses."""

    keeps_blocks = True
    """Whether Avro's block counts are kept in a list (a model's ``<name>_blocks``)."""

    # -- steps that move `pos` themselves ------------------------------------------------

    def moving(self, step, end: str) -> None:
        if isinstance(step, KEYED_STEPS):
            self.keyed(step)
        elif isinstance(step, Number):
            self.number(step, None, end)
        elif isinstance(step, Length):
            ctype, value = self.varint(step.var, step.zigzag, end)
            if ctype == "uint64_t":  # not a Py_ssize_t: too long for anything anyway
                self.decline_if(f"{value} > <uint64_t>PY_SSIZE_T_MAX")
            self.declare(step.var, "Py_ssize_t")
            self.w.line(f"{step.var} = <Py_ssize_t>{value}")
        elif isinstance(step, Processed):
            self.processed(step)
        elif isinstance(step, When):
            test = self.c_expression(step.expression)
            if test is None and self.list_evaluate(f"{step.test}_t", step.expression):
                test = f"{step.test}_t"
            elif test is None:
                self.evaluate(step.test, step.expression)
                test = step.test
            self.w.line(f"if {test}:")
            with self.w.indent():
                self.branch(step.steps, end)
            self.w.line("else:")
            with self.w.indent():
                self.w.line(f"{step.var} = None")
        elif isinstance(step, Text):
            self.text(step)
        elif isinstance(step, Presence):
            self.declare(step.var, "bint")
            self.w.line(f"{step.var} = pos < {step.end} and buf[pos] == 0x{step.tag:02x}")
            self.w.line(f"if {step.var}:")
            with self.w.indent():
                self.w.line("pos += 1")
        elif isinstance(step, Optional):
            self.w.line(f"if pos < {step.end} and buf[pos] == 0x{step.tag:02x}:")
            with self.w.indent():
                self.off = 1  # the tag, tested just now
                self.checked = 1
                self.steps(step.steps, step.end)
                self.flush()
            self.w.line("else:")
            with self.w.indent():
                self.w.line(f"{step.var} = {step.absent}")
                if untracked_literal(step.absent):
                    self.w.line(f"untrack({step.var})")
        elif isinstance(step, Repeat):
            self.repeat(step)
        elif isinstance(step, Nested):
            self.nested(step)
        elif isinstance(step, Chunk):
            self.chunk(step)
        elif isinstance(step, FromEnd):
            self.from_end(step)
        elif isinstance(step, EndsAt):
            self.decline_if(f"pos != {step.limit}")
            self.w.line(f"pos = {step.end}")
        elif isinstance(step, Choice):
            self.choice(step)
        elif isinstance(step, OrderChoice):
            compiled_order_choice(self, step, end)
        else:
            assert isinstance(step, Switch), step
            self.switch(step, end)

    def depth_arg(self, depth: int) -> str:
        """The depth argument of a call to a record's reader (none where readers take no
        depth)."""
        return f", depth + {depth}" if depth else ""

    def from_end(self, step: FromEnd) -> None:
        """A trailer field: the bytes that end at ``limit``, which then moves back; a
        region's read front to back by its steps, ``pos`` kept aside meanwhile."""
        limit, var = step.limit, step.var
        self.declare(limit, "Py_ssize_t")
        if step.start:
            self.w.line(f"{limit} = {step.start}")
        if not step.length:
            self.preludes.setdefault(REVERSED_UVARINT_PRELUDE)
            self.declare(var, "uint64_t")
            shortest = not self.takes_longer_varints()
            self.decline_if(f"not _reversed_uvarint(buf, &{limit}, pos, &{var}, {shortest})")
            return
        n = f"{var}_size"
        self.declare(n, "Py_ssize_t")
        if self.decls.get(step.length) == "uint64_t":  # a length read as a C number
            self.decline_if(f"{step.length} > <uint64_t>({limit} - pos)")
            self.w.line(f"{n} = <Py_ssize_t>{step.length}")
        elif self.list_evaluate(f"{n}_t", step.length):
            self.decline_if(f"not 0 <= {n}_t <= {limit} - pos")
            self.w.line(f"{n} = <Py_ssize_t>{n}_t")
        else:
            self.evaluate(f"{n}_o", step.length)
            self.decline_if(f"type({n}_o) is not int or not 0 <= {n}_o <= {limit} - pos")
            self.w.line(f"{n} = {n}_o")
        self.declare(step.inner_end, "Py_ssize_t")
        self.declare(f"{var}_pos", "Py_ssize_t")
        self.w.line(f"{step.inner_end} = {limit}")
        self.w.line(f"{limit} -= {n}")
        if step.absent:
            self.w.line(f"if {n} == 0:")
            with self.w.indent():
                self.w.line(f"{var} = {step.absent}")
                if untracked_literal(step.absent):
                    self.w.line(f"untrack({var})")
            self.w.line("else:")
            self.w.depth += 1
        self.int_tables_region(step)
        self.w.line(f"{var}_pos = pos")
        self.w.line(f"pos = {limit}")
        self.branch(step.steps, step.inner_end)
        self.decline_if(f"pos != {step.inner_end}")
        self.w.line(f"pos = {var}_pos")
        if step.absent:
            self.w.depth -= 1

    def choice(self, step: Choice) -> None:
        """A table of the first byte gives the case's reader when that byte alone decides;
        else ``_pick_<table>`` tries the cases in order, as ``rt_fast.pick``."""
        table = f"_CHOICE_{step.table}_In_{self.name}"
        reader_type = "_DReader" if self.recursive else "_Reader"
        self.calls.update(record for _, _, record in step.cases)
        self.pickers[table] = self.picker(table, reader_type, step.cases)
        reader = f"{step.var}_read"
        self.declare(reader, reader_type)
        self.decline_if(f"pos >= {step.end}")
        self.w.line(f"{reader} = {table}[buf[pos]]")
        self.w.line(f"if {reader} == NULL:")
        with self.w.indent():
            self.w.line(f"{reader} = _pick{table}(buf, pos, {step.end})")
            self.decline_if(f"{reader} == NULL")
        self.w.line(
            f"{step.var} = {reader}(buf, pos, {step.end}, lim, &pos{self.depth_arg(step.depth)})"
        )
        self.decline_if(f"{step.var} is None")

    @staticmethod
    def picker(table: str, reader_type: str, cases) -> str:
        """The table of a choice's first byte (the reader when that byte decides, else
        NULL) and the function that tries, in order, the cases a NULL byte may start (it
        runs for those bytes alone: msgpack's timestamps test two cases, not thirty)."""
        # the first case a byte matches decides when its magic is that byte alone
        firsts = []
        for byte in range(256):
            first = next(((m, r) for m, k, r in cases if byte & k[0] == m[0]), None)
            firsts.append(first[1] if first is not None and len(first[0]) == 1 else None)
        undecided = [byte for byte in range(256) if firsts[byte] is None]
        lines = [
            f"cdef {reader_type} {table}[256]",
            f"cdef {reader_type} _pick{table}(const unsigned char* buf, Py_ssize_t pos,",
            f"{' ' * (len(reader_type) + len(table) + 11)}Py_ssize_t end) noexcept:",
            '    """The first case whose bytes match at ``pos`` (``rt_fast.pick``), or NULL."""',
        ]
        for magic, mask, record in cases:
            if not any(byte & mask[0] == magic[0] for byte in undecided):
                continue  # its first byte is in the table
            tests = [f"end - pos >= {len(magic)}"] + [
                (
                    f"buf[pos + {i}] == {g:#04x}"
                    if m == 0xFF
                    else f"buf[pos + {i}] & {m:#04x} == {g:#04x}"
                )
                for i, (g, m) in enumerate(zip(magic, mask))
            ]
            lines.append(f"    if {' and '.join(tests)}:".replace("pos + 0]", "pos]"))
            lines.append(f"        return _read_{record}")
        lines.append("    return NULL")
        lines.append("")
        lines.append("")
        start = 0
        for byte in range(1, 257):
            if byte == 256 or firsts[byte] != firsts[start]:
                reader = "NULL" if firsts[start] is None else f"_read_{firsts[start]}"
                lines.append(f"for _i in range({start:#04x}, {byte:#05x}):")
                lines.append(f"    {table}[_i] = {reader}")
                start = byte
        return "\n".join(lines)

    def chunk(self, step: Chunk) -> None:
        """A counted run of varints appended as they are read (a payload chunk reads its
        lengths twice: checked first, then again beside the payloads after them)."""
        self.chunk_count(step)
        self.chunk_body(step)

    def chunk_body(self, step: Chunk) -> None:
        """A chunk's elements, once its count ``<var>_k`` is read."""
        var, n, k = step.var, f"{step.var}_i", f"{step.var}_k"
        self.payload_lengths(step)
        # as long as its count (no more than the bytes left): filled in place, not grown
        self.preludes.setdefault(REUSE_PRELUDE)
        self.w.line(f"{var} = PyList_New({k})")
        self.w.line(f"{n} = 0")
        if step.delta:
            self.declare(f"{var}_acc", "int64_t" if step.zigzag else "uint64_t")
            self.w.line(f"{var}_acc = 0")
        self.w.line(f"while {n} < {k}:")
        with self.w.indent():
            if step.payload:
                self.chunk_payload(step)
            else:
                self.chunk_element(step)
            self.w.line(f"{n} += 1")
        self.table_close(step)
        if not step.enum:
            self.w.line(f"untrack({var})")  # ints, bytes, str and None: atomic items
        elif var not in self.loose:  # members of their values below 256, read in C
            self.preludes.setdefault(MEMBER_LISTS_PRELUDE)
            self.member_lists.add(var)

    def chunk_count(self, step: Chunk) -> None:
        """``<var>_k``: a chunk's count, checked against the limits and the bytes left."""
        var, k = step.var, f"{step.var}_k"
        self.declare(f"{var}_i", "Py_ssize_t")
        self.declare(k, "Py_ssize_t")
        self.declare(f"{var}_u", "uint64_t")
        ctype = self.decls.get(step.count, "")
        if ctype in ("uint8_t", "uint16_t", "uint32_t", "uint64_t"):  # a count read in C
            self.decline_if(f"{step.count} > <uint64_t>lim.max_count")
            self.w.line(f"{k} = <Py_ssize_t>{step.count}")
        elif self.list_evaluate(f"{var}_count_t", step.count):
            self.decline_if(f"not 0 <= {var}_count_t <= lim.max_count")
            self.w.line(f"{k} = <Py_ssize_t>{var}_count_t")
        else:
            self.evaluate(f"{var}_count", step.count)
            self.decline_if(
                f"type({var}_count) is not int or not 0 <= {var}_count <= lim.max_count"
            )
            self.w.line(f"{k} = {var}_count")
        self.decline_if(f"{k} > {step.end} - pos")

    def chunk_length(self, step: Chunk) -> None:
        """One length of a payload chunk: -1 (None) to ``lim.max_string``."""
        var = step.var
        self.decline_if(f"not {self.uvarint_reader()}(buf, &pos, {step.end}, &{var}_u)")
        if step.zigzag:
            self.w.line(f"{var}_len = _unzigzag({var}_u)")
            self.decline_if(f"{var}_len < -1 or {var}_len > lim.max_string")
        else:
            self.decline_if(f"{var}_u > <uint64_t>lim.max_string")

    def payload_lengths(self, step: Chunk) -> None:
        """A payload chunk's lengths, each checked before any payload is read (from
        ``<var>_at``, where :meth:`payload_read` reads them again)."""
        if not step.payload:
            return
        var, n, k = step.var, f"{step.var}_i", f"{step.var}_k"
        self.declare(f"{var}_at", "Py_ssize_t")
        self.declare(f"{var}_len", "int64_t")
        self.w.line(f"{var}_at = pos")
        self.w.line(f"{n} = 0")
        self.w.line(f"while {n} < {k}:")
        with self.w.indent():
            self.chunk_length(step)
            self.w.line(f"{n} += 1")

    def chunk_payload(self, step: Chunk) -> None:
        """One payload: its length read again (checked before), then its bytes at ``pos``."""
        var = step.var
        self.payload_read(
            step,
            lambda: self.w.line(f"list_put({var}, {var}_i, None)"),
            lambda: self.w.line(f"list_put({var}, {var}_i, {var}_item)"),
        )

    def payload_read(self, step: Chunk, put_null, put_item) -> None:
        """A chunk's payload read at ``pos`` into ``<var>_item`` (a length of -1 is a null),
        ``put_null``/``put_item`` writing the lines that keep it."""
        var = step.var
        self.w.line(f"_uvarint(buf, &{var}_at, {step.end}, &{var}_u)")
        length = f"_unzigzag({var}_u)" if step.zigzag else f"<int64_t>{var}_u"
        self.w.line(f"{var}_len = {length}")
        self.w.line(f"if {var}_len < 0:")
        with self.w.indent():
            put_null()
        self.w.line("else:")
        with self.w.indent():
            self.decline_if(f"{var}_len > {step.end} - pos")
            item = Text(f"{var}_item", step.payload, step.end, step.encoding or "utf8")
            self.text_value(item, "pos", f"<Py_ssize_t>{var}_len")
            put_item()
            self.w.line(f"pos += {var}_len")

    def chunk_varint(self, step: Chunk) -> str:
        """Reads one varint of a chunk, ZigZag and summed to the one before as the chunk
        says; gives its C value."""
        var = step.var
        self.decline_if(f"not {self.uvarint_reader()}(buf, &pos, {step.end}, &{var}_u)")
        value = f"_unzigzag({var}_u)" if step.zigzag else f"{var}_u"
        if step.delta and step.zigzag:  # int64 wrap, as Go's arithmetic
            self.w.line(f"{var}_acc = <int64_t>(<uint64_t>{var}_acc + <uint64_t>{value})")
            value = f"{var}_acc"
        elif step.delta:  # modulo 2**64
            self.w.line(f"{var}_acc = {var}_acc + {value}")
            value = f"{var}_acc"
        return value

    def chunk_element(self, step: Chunk) -> None:
        """One varint of a chunk: ZigZag, summed to the one before, a member of its enum."""
        var = step.var
        value = self.chunk_varint(step)
        if step.enum:
            values = [v.value for v in self.spec.enums[step.enum].values]
            if not all(0 <= v < 256 for v in values):
                raise NotCompiled(f"{var}: an enum with members past a byte")
            table = f"_{step.enum.upper()}_BY_BYTE"
            self.enums.add(step.enum)
            self.declare(f"{var}_p", "PyObject*")
            self.decline_if(f"<uint64_t>{value} > 255")
            self.w.line(f"{var}_p = {table}[<uint8_t>{value}]")
            self.decline_if(f"{var}_p == NULL")
            self.w.line(f"list_put({var}, {var}_i, <object>{var}_p)")
        else:
            self.table_store(step, value)
            self.w.line(f"list_put({var}, {var}_i, {value})")

    def text(self, step: Text) -> None:
        if step.terminator is not None:  # memchr up to the end; not found: the quick tier's Retry
            var, n = step.var, f"{step.var}_n"
            self.preludes.setdefault(MEMCHR_PRELUDE)
            self.declare(f"{var}_p", "const unsigned char*")
            self.declare(n, "Py_ssize_t")
            self.decline_if(f"pos > {step.end}")
            self.w.line(
                f"{var}_p = <const unsigned char*>memchr(buf + pos, {step.terminator}, "
                f"<size_t>({step.end} - pos))"
            )
            self.decline_if(f"{var}_p == NULL")
            self.w.line(f"{n} = {var}_p - (buf + pos)")
            self.decline_if(f"{n} > lim.max_string")
            self.text_value(step, "pos", n)
            self.w.line(f"pos += {n} + 1")
            return
        if step.to_end:
            self.decline_if(f"pos > {step.end}")
            self.text_value(step, "pos", f"{step.end} - pos")
            self.w.line(f"pos = {step.end}")
            return
        n = step.length
        if step.nullable:
            self.w.line(f"if {n} == -1:")
            with self.w.indent():
                self.w.line(f"{step.var} = None")
            self.w.line("else:")
            self.w.depth += 1
        tests = [f"{n} < 0"] * step.signed
        if step.max_length is not None:
            tests.append(f"{n} > {step.max_length}")
        tests += [f"{n} > lim.max_string", f"{n} > {step.end} - pos"]
        self.decline_if(" or ".join(tests))
        self.text_value(step, "pos", n)
        self.w.line(f"pos += {n}")
        if step.nullable:
            self.w.depth -= 1

    def nested(self, step: Nested) -> None:
        var = step.var
        if step.length is not None:
            n = step.length
            tests = [f"{n} < 0"] * step.signed
            tests += [f"{n} > lim.max_message_bytes", f"{n} > {step.end} - pos"]
            self.decline_if(" or ".join(tests))
            self.declare(step.inner_end, "Py_ssize_t")
            self.w.line(f"{step.inner_end} = pos + {n}")
        if step.keep:
            self.declare(f"{var}_at", "Py_ssize_t = 0")
            self.declare(f"{var}_end", "Py_ssize_t = 0")
            self.w.line(f"{var}_at = pos")
        self.spare_slot(step)
        if step.steps is not None:
            if step.record:
                self.w.line(f"# {step.record}, read here")
            self.steps(step.steps, step.inner_end)
            self.flush()
        else:
            self.calls.add(step.record)
            self.w.line(f"{var} = {self.call(step.record, step.inner_end, var, step.depth)}")
            self.decline_if(f"{var} is None")
        if step.length is not None:
            self.decline_if(f"pos != {step.inner_end}")
        if step.keep:
            self.w.line(f"{var}_end = pos")

    def switch(self, step: Switch, end: str) -> None:
        selector = self.numbers.get(step.selector)
        if selector is None or step.selector in self.loose:
            raise NotCompiled(f"{step.var}: a switch on what is no number read always")
        # an enum's byte, or the plain number itself (`enum:` on the switch names its cases)
        value = f"{step.selector}_c" if selector.enum else step.selector
        for i, case in enumerate(step.cases):
            self.w.line(
                f"{'if' if i == 0 else 'elif'} {value} == {case.value:#x}:  # {case.member}"
            )
            with self.w.indent():
                self.branch(case.steps, end)
        self.w.line("else:" if step.cases else "if True:")
        with self.w.indent():
            if step.default is None:
                self.w.line(f"{step.var} = None")
            else:
                self.branch(step.default, end)

    def repeat(self, step: Repeat) -> None:
        self.enclosing_repeats += 1  # its items' models share their ints (ValueSteps.build)
        try:
            self.fill_list(step)
        finally:
            self.enclosing_repeats -= 1
        self.untrack_list(step)

    def untrack_list(self, step: Repeat) -> None:
        """CPython's rule for tuples, for a list the reader filled: untracked when its items
        are all atomic (the models' rule, :meth:`ValueSteps.atomic_tests`), decided by the
        plan where it can, else by a walk over the items. A dead model's list filled again
        may come tracked or not."""
        if step.blocks:
            self.w.line(f"untrack({step.blocks})")  # ints
        held = self.kinds.get(step.item, {CHECK})
        spare = step.var in self.spare_lists
        if is_atomic(held, self.atomic_classes, self.kinds):
            self.w.line(f"untrack({step.var})")
            return
        if not may_be_atomic(held):
            if spare:
                self.w.line(f"keep_tracked({step.var})")
            return
        self.w.line(f"if all_atomic({step.var}):")
        with self.w.indent():
            self.w.line(f"untrack({step.var})")
        if spare:
            self.w.line("else:")
            with self.w.indent():
                self.w.line(f"keep_tracked({step.var})")

    def fill_list(self, step: Repeat) -> None:
        """The list ``step.var``, its items read and appended."""
        var, n = step.var, f"{step.item}_n"
        if step.record and step.steps is None:
            self.calls.add(step.record)
        if self.row_element(step):  # the loop its row iterator calls too, all at once
            self.w.line(f"{var} = {self.new_list(step)}")
            self.decline_if(f"{self.elements_call(step, var, 'lim.max_count')} is None")
            self.decline_if(f"pos < {step.end}")  # more than max_count
            return
        self.declare(n, "Py_ssize_t")
        if step.until == "count" and step.count.isdigit() and step.steps is not None:
            self.preludes.setdefault(REUSE_PRELUDE)
            self.fixed_list(step)
        else:
            self.w.line(f"{var} = {self.new_list(step)}")
        self.w.line(f"{n} = 0")
        if step.until == "blocks":
            self.blocks(step)
            return
        if step.until == "count" and step.count.isdigit():
            self.decline_if(f"{step.count} > lim.max_count")
            self.w.line(f"while {n} < {step.count}:")
            with self.w.indent():
                if step.steps is None:
                    self.item(step)
                else:
                    self.fixed_item(step)
            return
        if step.until == "count":
            ctype = self.decls.get(step.count, "")
            if ctype in (
                "int8_t",
                "int16_t",
                "int32_t",
                "int64_t",
                "uint8_t",
                "uint16_t",
                "uint32_t",
            ):
                # a count read as a C number: no Python int made to check it
                self.decline_if(f"{step.count} < 0 or {step.count} > lim.max_count")
                self.declare(f"{step.item}_k", "Py_ssize_t")
                self.w.line(f"{step.item}_k = <Py_ssize_t>{step.count}")
                self.w.line(f"while {n} < {step.item}_k:")
                with self.w.indent():
                    self.item(step)
                return
            if self.list_evaluate(f"{step.item}_times_t", step.count):
                self.decline_if(f"not 0 <= {step.item}_times_t <= lim.max_count")
                self.declare(f"{step.item}_k", "Py_ssize_t")
                self.w.line(f"{step.item}_k = <Py_ssize_t>{step.item}_times_t")
                self.w.line(f"while {n} < {step.item}_k:")
                with self.w.indent():
                    self.item(step)
                return
            self.expressions = True
            count = f"{step.item}_times"
            self.w.line("try:")
            with self.w.indent():
                self.w.line(f"{count} = {self.python(step.count)}")
            self.w.line("except _EXPRESSION_FAILURES:")
            with self.w.indent():
                self.w.line(self.decline_text)
            self.decline_if(f"type({count}) is not int or {count} < 0 or {count} > lim.max_count")
            self.declare(f"{step.item}_k", "Py_ssize_t")
            self.w.line(f"{step.item}_k = {count}")
            self.w.line(f"while {n} < {step.item}_k:")
            with self.w.indent():
                self.item(step)
            return
        if step.until == "until":
            self.until(step)
            return
        if step.until == "eos":
            self.w.line(f"while pos < {step.end}:")
        else:
            self.w.line(f"while pos < {step.end} and buf[pos] == 0x{step.tag:02x}:")
        with self.w.indent():
            self.decline_if(f"{n} >= lim.max_count")
            self.item(step)
        if step.min_count:
            self.decline_if(f"{n} < {step.min_count}")

    def fixed_item(self, step: Repeat) -> None:
        """One item read inline into the list of a literal count (:meth:`fixed_list`)."""
        self.item_index(step)
        self.branch(step.steps, step.end)
        self.w.line(f"list_put({step.var}, {step.item}_n, {step.item})")
        self.w.line(f"{step.item}_n += 1")

    def until(self, step: Repeat) -> None:
        """Items up to the first that passes the test, as the quick tier reads them: the
        end before it, too many items, or a test that fails to evaluate declines."""
        self.expressions = True
        self.w.line("while True:")
        with self.w.indent():
            self.decline_if(f"pos >= {step.end} or {step.item}_n >= lim.max_count")
            self.item(step)
            self.w.line("try:")
            with self.w.indent():
                self.w.line(f"{step.item}_stop = {self.python(step.stop)}")
            self.w.line("except _EXPRESSION_FAILURES:")
            with self.w.indent():
                self.w.line(self.decline_text)
            self.w.line(f"if {step.item}_stop:")
            with self.w.indent():
                self.w.line("break")
        if step.terminator:
            self.w.line(f"{step.terminator} = {step.var}.pop()")

    def new_list(self, step: Repeat) -> str:
        """What a list read by ``step`` starts as: an empty one, kept from a freed model
        where there is one (slots.pxd ``wirespec_new_list``)."""
        return "new_list()"

    def call(self, record: str, end: str, var: str, depth: int = 0) -> str:
        """The call of ``record``'s reader up to ``end`` for ``var`` (a field, or a list's
        element), ``depth`` levels below this one: it advances ``pos`` and is None on a
        decline."""
        return f"_read_{record}(buf, pos, {end}, lim, &pos{self.depth_arg(depth)})"

    def element_member(self, cls: str, member: str) -> str:
        """The C byte ``member`` of list element ``e`` (a ``cls`` model)."""
        return f"<uint8_t>wirespec_get(e, _{cls}_{member})"

    def item(self, step: Repeat) -> None:
        """One item of a repeat, appended and counted in ``<var>_n``."""
        self.item_index(step)
        if step.steps is None:
            self.w.line(f"{step.item} = {self.call(step.record, step.end, step.var, step.depth)}")
            self.decline_if(f"{step.item} is None")
        else:
            self.branch(step.steps, step.end)
        self.w.line(f"{step.var}.append({step.item})")
        self.w.line(f"{step.item}_n += 1")

    def item_index(self, step: Repeat) -> None:
        """The index of the item about to be read, where an expression reads it."""
        if step.index:
            self.declare(step.index, "Py_ssize_t")
            self.w.line(f"{step.index} = {step.item}_n")

    def blocks(self, step: Repeat) -> None:
        """Avro's blocks, as ``FastPathEmitter`` reads them."""
        end = step.end
        count, k, size = f"{step.item}_count", f"{step.item}_k", f"{step.item}_size"
        self.declare(count, "int64_t")
        self.declare(k, "Py_ssize_t")
        self.declare(size, "int64_t")
        self.declare(f"{step.item}_stop", "Py_ssize_t = 0")
        self.declare(f"{step.item}_i", "Py_ssize_t")
        if self.keeps_blocks:
            self.w.line(f"{step.blocks} = []")
        self.w.line("while True:")
        with self.w.indent():
            self.w.line(f"{count} = {self.varint(count, True, end)[1]}")
            self.w.line(f"if {count} == 0:")
            with self.w.indent():
                self.w.line("break")
            self.decline_if(f"{count} < -lim.max_count or {count} > lim.max_count")
            self.w.line(f"{k} = {count} if {count} > 0 else -{count}")
            self.decline_if(f"{k} > lim.max_count - {step.item}_n")
            self.w.line(f"if {count} < 0:")
            with self.w.indent():
                self.w.line(f"{size} = {self.varint(size, True, end)[1]}")
                self.decline_if(f"{size} < 0 or {size} > {end} - pos")
                self.w.line(f"{step.item}_stop = pos + {size}")
            self.w.line(f"for {step.item}_i in range({k}):")
            with self.w.indent():
                self.item(step)
            self.decline_if(f"{count} < 0 and pos != {step.item}_stop")
            if self.keeps_blocks:
                self.w.line(f"{step.blocks}.append({count})")

    def codec_cases_name(self, cases: dict) -> str:
        """The module dict of a ``process:`` codec's cases, made once at import, not per
        region (a dict literal in the reader was built for every batch)."""
        text = repr(cases)
        if text not in self.codec_cases:
            name = self.codec_cases[text] = f"_CODEC_CASES_{len(self.codec_cases)}"
            self.preludes.setdefault(f"cdef dict {name} = {text}\n")
        return self.codec_cases[text]

    def processed(self, step: Processed) -> None:
        """``process:``: the bytes decoded (``none``: read where they are), then read; the
        steps read ``buf``, so it points into the decoded bytes while they do."""
        self.expressions = True
        n, inner_end, codec = step.length, step.inner_end, f"{step.inner_end}_codec"
        plain, outer = f"{inner_end}_plain", f"{inner_end}_outer"
        if step.rest:
            self.declare(n, "Py_ssize_t")
            self.w.line(f"{n} = {step.end} - pos")
        else:
            tests = [f"{n} < 0"] * step.signed
            tests += [f"{n} > lim.max_message_bytes", f"{n} > {step.end} - pos"]
            self.decline_if(" or ".join(tests))
        self.declare(inner_end, "Py_ssize_t")
        self.declare(plain, "bytes")
        self.declare(f"{outer}_buf", "const unsigned char* = NULL")
        self.declare(f"{outer}_pos", "Py_ssize_t = 0")
        self.declare(f"{inner_end}_decoded", "bint")
        keep = f"{step.wire} = PyBytes_FromStringAndSize(<const char*>buf + pos, {n})"
        if not step.rest:
            self.w.line(keep)
        self.w.line("try:")
        with self.w.indent():
            if not step.cases:
                self.w.line(f"{codec} = rt_process.codec_for({self.python(step.codec)}, None)")
            else:  # a case looked up here; anything else (bytes: matched as text) by codec_for
                cases, key = self.codec_cases_name(dict(step.cases)), f"{inner_end}_key"
                self.w.line(f"{key} = {self.python(step.codec)}")
                self.w.line(f"{codec} = {cases}.get({key})")
                self.w.line(f"if {codec} is None:")
                with self.w.indent():
                    self.w.line(f"{codec} = rt_process.codec_for({key}, {cases})")
        self.w.line("except _EXPRESSION_FAILURES:")
        with self.w.indent():
            self.w.line(self.decline_text)
        self.w.line(f'{inner_end}_decoded = {codec} != "none"')
        self.w.line(f"if {inner_end}_decoded:")
        with self.w.indent():
            if step.rest:
                self.w.line(keep)
            self.w.line("try:")
            with self.w.indent():
                self.w.line(
                    f"{plain} = rt_process.decode({codec}, {step.wire}, lim.max_decompressed_bytes)"
                )
            self.w.line("except DecodeError:")
            with self.w.indent():
                self.w.line(self.decline_text)
            self.w.line(f"{outer}_buf = buf")
            self.w.line(f"{outer}_pos = pos + {n}")
            self.w.line(f"buf = {plain}")
            self.w.line("pos = 0")
            self.w.line(f"{inner_end} = len({plain})")
        self.w.line("else:")
        with self.w.indent():
            self.w.line(f"{inner_end} = pos + {n}")
            if step.rest:  # read in place, nothing kept
                self.w.line(f"{step.wire} = None")
        self.w.line(f"# {step.var}, read here")
        self.off = 0
        self.checked = 0
        self.steps(step.steps, inner_end)
        self.flush()
        self.decline_if(f"pos != {inner_end}")
        self.w.line(f"if {inner_end}_decoded:")
        with self.w.indent():
            self.w.line(f"buf = {outer}_buf")
            self.w.line(f"pos = {outer}_pos")
