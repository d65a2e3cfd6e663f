"""The compiled tier's steps of tag-keyed messages (mysql::serialization): keyed headers
and fields, msb varints, sizes and shared integers."""

from __future__ import annotations

import re

from generator.emit.compiled_prelude import KEYED_PRELUDE
from generator.emit.plan_keyed import Fallback, KeyedField, KeyedHeader, MsbNumber, Rest, SizeOf
from generator.emit.untracked import untracked_literal


def _shortest(value: str, length: str) -> str:
    """C: whether the msb varint ``value`` read from ``length`` bytes is in its shortest
    form: one byte, or a value the ``length - 1`` bytes before would not hold (7 bits each;
    56 for the 9-byte form, the same 7 * 8)."""
    return f"({length} == 1 or {value} >> (7 * ({length} - 1)) != 0)"


class KeyedSteps:
    """Steps of tag-keyed messages.

    A base of :class:`generator.emit.compiled.CompiledEmitter`, whose state and other parts
    it uses."""

    # -- mysql::serialization messages, and sizes from expressions -----------------------

    def keyed(self, step) -> None:
        """A step of :data:`generator.emit.plan.KEYED_STEPS`."""
        self.preludes.setdefault(KEYED_PRELUDE)
        if isinstance(step, SizeOf):
            self.size_of(step)
        elif isinstance(step, MsbNumber):
            self.msb_number(step)
        elif isinstance(step, KeyedHeader):
            self.keyed_header(step)
        elif isinstance(step, KeyedField):
            self.keyed_field(step)
        elif isinstance(step, Fallback):
            self.w.line(f"if {step.var} is None:")
            with self.w.indent():
                self.w.line(f"{step.var} = {step.source}")
            self.w.line(f"elif {step.var} == {step.source}:  # written at its default")
            with self.w.indent():
                self.w.line(self.decline_text)
        else:
            assert isinstance(step, Rest), step
            self.w.line(f"if pos < {step.end}:")
            with self.w.indent():
                self.w.line(
                    f"{step.var} = PyBytes_FromStringAndSize(<const char*>buf + pos,"
                    f" {step.end} - pos)"
                )
                self.w.line(f"pos = {step.end}")
            self.w.line("else:")
            with self.w.indent():
                self.w.line(f"{step.var} = None")

    def size_of(self, step: SizeOf) -> None:
        """A size from an expression, as a C size: C arithmetic for ``<C number> - <n>``,
        else the expression's Python value (no int, or too big: not mine)."""
        self.declare(step.var, "Py_ssize_t")
        terms = re.fullmatch(r"(\w+) - (\d+)", step.expression)
        small = ("uint8_t", "uint16_t", "uint32_t", "int8_t", "int16_t", "int32_t")
        if terms and self.decls.get(terms[1]) in small:
            self.w.line(f"{step.var} = <Py_ssize_t>{terms[1]} - {terms[2]}")
            return
        c_value = self.c_expression(step.expression)
        if c_value is not None:  # 64 bits hold it: a Py_ssize_t too
            self.w.line(f"{step.var} = <Py_ssize_t>{c_value}")
            return
        if self.list_evaluate(f"{step.var}_t", step.expression):
            self.decline_if(f"{step.var}_t < -PY_SSIZE_T_MAX")  # Python's range check
            self.w.line(f"{step.var} = <Py_ssize_t>{step.var}_t")
            return
        self.evaluate(f"{step.var}_value", step.expression)
        self.decline_if(
            f"type({step.var}_value) is not int"
            f" or not -PY_SSIZE_T_MAX <= {step.var}_value <= PY_SSIZE_T_MAX"
        )
        self.w.line(f"{step.var} = {step.var}_value")

    def msb_number(self, step: MsbNumber) -> None:
        raw = f"{step.var}_u"
        self.declare(raw, "uint64_t")
        self.msb_read(raw, step.end, step.bits)
        if step.length:
            self.decline_if(f"{raw} > <uint64_t>PY_SSIZE_T_MAX")
            self.declare(step.var, "Py_ssize_t")
            self.w.line(f"{step.var} = <Py_ssize_t>{raw}")
        else:
            self.msb_value(step.var, raw, step.signed, step.bits)

    def msb_value(self, var: str, raw: str, signed: bool, bits: int) -> None:
        """``var``: the value of the msb varint read into the C ``raw`` (a shared int;
        ``signed``: ZigZag; ``bits``: the most it holds)."""
        self.w.line(f"{var} = shared_int(&{self.shared_int(var)}, {raw}, {int(signed)})")

    def msb_read(self, raw: str, end: str, bits: int = 64, shortest: bool = True) -> None:
        """An msb-count varint at ``pos`` into the C ``raw``, its one-byte form inline; a
        form longer than the shortest declines when ``shortest`` (the Python reader keeps
        it: wire_form)."""
        self.declare("k_at", "Py_ssize_t")
        self.w.line(f"if pos < {end} and not buf[pos] & 1:")
        with self.w.indent():
            self.w.line(f"{raw} = buf[pos] >> 1")
            self.w.line("pos += 1")
        test = f"not msb_uvar(buf, &pos, {end}, &{raw})"
        if bits < 64:
            test += f" or {raw} >> {bits}"
        self.w.line("else:")
        with self.w.indent():
            if shortest:
                self.w.line("k_at = pos")
                test += f" or not {_shortest(raw, 'pos - k_at')}"
            self.decline_if(test)

    def shared_int(self, var: str) -> str:
        """The ``SharedInt`` global of a variable of this record (declared once; the capital
        parts them: ``_shared_<record>_<var>`` of record ``x`` and ``f_f_y`` would be that
        of ``x_f`` and ``f_y``)."""
        name = f"_shared_{var}_In_{self.name}"
        self.preludes.setdefault(KEYED_PRELUDE)  # shared_int's cimport, keyed or not
        if name not in self.shared_ints:
            self.shared_ints.append(name)
        return name

    def keyed_header(self, step: KeyedHeader) -> None:
        for var, ctype in (
            ("k_start", "Py_ssize_t"),
            ("k_size_at", "Py_ssize_t"),
            ("k_lnifid_at", "Py_ssize_t"),
            ("k_version", "uint64_t"),
            ("k_declared", "uint64_t"),
            ("k_lnifid", "uint64_t"),
        ):
            self.declare(var, ctype)
        end = step.end
        self.w.line("k_start = pos")
        self.msb_read("k_version", end)
        self.decline_if("k_version != 1")
        self.w.line("k_size_at = pos")
        self.msb_read("k_declared", end, shortest=False)
        self.w.line("k_lnifid_at = pos")
        self.msb_read("k_lnifid", end, shortest=False)
        self.decline_if(f"k_lnifid > {step.fields}")
        self.w.line("# both varints shortest, or widened as build widens them (msb_head_as_built)")
        size_shortest = _shortest("k_declared", "(k_lnifid_at - k_size_at)")
        self.decline_if(
            f"not ({size_shortest} and {_shortest('k_lnifid', '(pos - k_lnifid_at)')}"
            f" or k_declared == <uint64_t>({end} - k_start)"
            f" and ({size_shortest} or pos - k_lnifid_at == 9))"
        )
        self.w.line("# the message is the rest of the input: its true length or MySQL's formula")
        self.decline_if(
            f"k_declared != <uint64_t>({end} - k_start) and k_declared != <uint64_t>("
            f"(k_size_at - k_start) + msb_size({end} - pos) + (pos - k_lnifid_at)"
            f" + ({end} - pos))"
        )
        self.msb_value(step.declared, "k_declared", False, 64)
        self.msb_value(step.lnifid, "k_lnifid", False, 64)

    def keyed_field(self, step: KeyedField) -> None:
        """The next field id peeked (its one-byte form first); the value read when it is
        this field's."""
        self.declare("k_present", "bint")
        self.declare("k_key", "uint64_t")
        self.declare("k_key_at", "Py_ssize_t")
        self.w.line("k_present = False")
        self.w.line(f"if pos < {step.end}:")
        with self.w.indent():
            if step.id < 64:
                self.w.line(f"if buf[pos] == 0x{2 * step.id:02x}:")
                with self.w.indent():
                    self.w.line("pos += 1")
                    self.w.line("k_present = True")
                self.w.line("else:")
                self.w.depth += 1
            self.w.line("k_key_at = pos")
            self.decline_if(f"not msb_uvar(buf, &k_key_at, {step.end}, &k_key)")
            self.decline_if(f"k_key < {step.id}")  # out of order
            self.w.line(f"if k_key == {step.id}:")
            with self.w.indent():
                self.decline_if(f"not {_shortest('k_key', 'k_key_at - pos')}")
                self.w.line("pos = k_key_at")
                self.w.line("k_present = True")
            if step.id < 64:
                self.w.depth -= 1
        self.w.line("if k_present:")
        with self.w.indent():
            self.branch(step.steps, step.end)
            # what build writes otherwise: the Python reader keeps its bytes (wire_form)
            if step.absent == "value":
                self.decline_if(f"{step.var} == {step.default}")
            if step.lnifid:
                self.decline_if(f"{step.lnifid} <= {step.id}")
        self.w.line("else:")
        with self.w.indent():
            if step.absent == "required":
                self.w.line(self.decline_text)
            else:
                self.keyed_absent(step)

    def keyed_absent(self, step: KeyedField) -> None:
        """An optional field not there: its default (``absent`` ``value``), or None for
        a :class:`Fallback` to fill (``from``)."""
        self.w.line(f"{step.var} = {step.default or 'None'}")
        if untracked_literal(step.default or "None"):
            self.w.line(f"untrack({step.var})")
