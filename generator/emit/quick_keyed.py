"""The quick tier's steps of tag-keyed messages (mysql::serialization), as the compiled
tier's are (``generator/emit/compiled_keyed.py``): keyed headers and fields, msb-count
varints (one byte inline, ``_quick_msb`` past it), fallbacks to another field's value, the
rest of a message, and sizes from expressions. Each gives ``rt_fast.Retry`` where the exact
reader would raise or keep what the quick tier does not (a header or key widened otherwise
than build() widens it, a field out of order or written at its default), so the exact
reader decides.
"""

from __future__ import annotations

from generator.emit.plan_keyed import Fallback, KeyedField, KeyedHeader, MsbNumber, Rest, SizeOf
from generator.emit.quick_helpers import RETRY


class QuickKeyed:
    """Tag-keyed messages in the quick tier (see the module docstring): a base of
    :class:`generator.emit.quicktier.QuickTierEmitter`, whose state (``w``, ``uses_msb``)
    and steps (``evaluate``, ``retry_if``, ``branch``) it uses."""

    def keyed(self, step) -> None:
        """A step of :data:`generator.emit.plan.KEYED_STEPS`."""
        if isinstance(step, SizeOf):
            self.evaluate(step.var, step.expression)
            self.retry_if(f"type({step.var}) is not int")
        elif isinstance(step, MsbNumber):
            self.msb(step.var, step.bits, step.end)
            if step.signed:
                self.w.line(f"{step.var} = ({step.var} >> 1) ^ -({step.var} & 1)")
        elif isinstance(step, KeyedHeader):
            end = step.end
            self.w.line("k_start = pos")
            self.msb("k_version", 64, end)
            self.retry_if("k_version != 1")
            self.w.line("k_size_at = pos")
            self.msb(step.declared, 64, end, shortest=False)
            self.w.line("k_lnifid_at = pos")
            self.msb(step.lnifid, 64, end, shortest=False)
            self.retry_if(f"{step.lnifid} > {step.fields}")
            self.retry_if(  # both shortest, or widened as build widens them
                f"({step.declared} < rt_fast.MSB_SHORTEST[k_lnifid_at - k_size_at]"
                f" or {step.lnifid} < rt_fast.MSB_SHORTEST[pos - k_lnifid_at])"
                f" and not rt_fast.msb_head_as_built({step.declared}, {step.lnifid}, "
                f"k_lnifid_at - k_size_at, pos - k_lnifid_at, {end} - k_start)"
            )
            self.retry_if(
                f"{step.declared} != {end} - k_start and {step.declared} != rt_fast.mysql_size("
                f"k_size_at - k_start, pos - k_lnifid_at, {end} - pos)"
            )
        elif isinstance(step, KeyedField):
            self.keyed_field(step)
        elif isinstance(step, Fallback):
            self.w.line(f"if {step.var} is None:")
            with self.w.indent():
                self.w.line(f"{step.var} = {step.source}")
            self.w.line(f"elif {step.var} == {step.source}:  # written at its default")
            with self.w.indent():
                self.w.line(RETRY)
        else:
            assert isinstance(step, Rest), step
            self.w.line(f"{step.var} = bytes(buf[pos : {step.end}]) if pos < {step.end} else None")
            self.w.line(f"pos = max(pos, {step.end})")

    def msb(self, var: str, bits: int, end: str, shortest: bool = True) -> None:
        """An msb-count varint at ``pos`` into ``var`` (one byte inline), ``shortest``."""
        self.uses_msb = True
        self.w.line(f"if pos < {end} and not buf[pos] & 1:")
        with self.w.indent():
            self.w.line(f"{var} = buf[pos] >> 1")
            self.w.line("pos += 1")
            if bits < 7:
                self.retry_if(f"{var} >> {bits}")
        self.w.line("else:")
        with self.w.indent():
            helper = "_quick_msb" if shortest else "_quick_msb_any"
            self.w.line(f"{var}, pos = {helper}(buf, pos, {end}, {bits})")

    def keyed_field(self, step: KeyedField) -> None:
        """The next field id peeked (its one-byte form first)."""
        self.w.line("k_present = False")
        self.w.line(f"if pos < {step.end}:")
        with self.w.indent():
            self.w.line(f"if buf[pos] == 0x{2 * step.id:02x}:" if step.id < 64 else "if False:")
            with self.w.indent():
                self.w.line("pos += 1")
                self.w.line("k_present = True")
            self.w.line("else:")
            with self.w.indent():
                self.uses_msb = True
                self.w.line(f"k_key, k_after = _quick_msb_any(buf, pos, {step.end}, 64)")
                self.retry_if(f"k_key < {step.id}")  # out of order
                self.w.line(f"if k_key == {step.id}:")
                with self.w.indent():
                    self.retry_if("k_key < rt_fast.MSB_SHORTEST[k_after - pos]")
                    self.w.line("pos = k_after")
                    self.w.line("k_present = True")
        self.w.line("if k_present:")
        with self.w.indent():
            self.branch(step.steps)
            if step.absent == "value":  # build leaves it out: Python keeps the wire_form
                self.retry_if(f"{step.var} == {step.default}")
            if step.lnifid:
                self.retry_if(f"{step.lnifid} <= {step.id}")
        self.w.line("else:")
        with self.w.indent():
            if step.absent == "required":
                self.w.line(RETRY)
            else:
                self.w.line(f"{step.var} = {step.default or 'None'}")
