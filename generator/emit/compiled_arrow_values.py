"""The Arrow writers' values (:mod:`generator.emit.compiled_arrow`): C values, no Python
objects.

A number read always is a C number; one that may be absent (read in a branch) and a text or
bytes value are a ``Scalar`` (runtime/_compiled/arrow.pxd: a kind and a number, or a pointer
and a length into the input), put into its column where the model is built
(:mod:`generator.emit.compiled_arrow_columns`). A text is checked as its encoding wants
before it is put (UTF-8 and ASCII here; every byte is Latin-1). A mysql::serialization
field's absent default is a C number too: a field whose default is another field's notes
that it was absent in ``<var>_a``.
"""

from __future__ import annotations

from generator.emit.compiled_support import NotCompiled
from generator.emit.plan_keyed import Fallback, KeyedField, Rest

C_FLOATS = ("float", "double")
"""The C types of a float value."""
C_INTS = ("int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t")
"""The C types of an integer any int column takes (``uint64_t`` only a decimal column)."""


class ArrowValues:
    """:class:`generator.emit.compiled_arrow.ArrowEmitter`'s part for the values it reads
    (see the module docstring): numbers, texts and bytes, mysql::serialization's fields."""

    def bits(self, step, at: str) -> None:
        if step.width == 64 and not step.signed:  # a uint64_t: no C value of a column here
            raise NotCompiled(f"{step.var}: 64 unsigned bits")
        super().bits(step, at)

    def keyed(self, step) -> None:
        """mysql::serialization's steps on C numbers: an optional field whose default is
        another's (``from``) notes that it was absent in ``<var>_a``."""
        if isinstance(step, Fallback):
            ctype = self.decls.get(step.var)
            if ctype not in (*C_INTS, "uint64_t") or self.decls.get(step.source) != ctype:
                raise NotCompiled(f"{step.var}: a default of no C number")
            self.w.line(f"if {step.var}_a:")
            with self.w.indent():
                self.w.line(f"{step.var} = {step.source}")
            self.w.line(f"elif {step.var} == {step.source}:  # written at its default")
            with self.w.indent():
                self.w.line("return -1")
        elif isinstance(step, Rest):  # fields a newer writer added: no column of them
            self.w.line(f"pos = {step.end}")
        else:
            if isinstance(step, KeyedField) and step.absent == "from":
                self.declare(f"{step.var}_a", "bint")
                self.w.line(f"{step.var}_a = False")
            super().keyed(step)

    def keyed_absent(self, step) -> None:
        if step.absent == "from":
            self.w.line(f"{step.var}_a = True")
        elif step.default.lstrip("-").isdigit() and self.decls.get(step.var) in (
            *C_INTS,
            "uint64_t",
        ):
            self.w.line(f"{step.var} = {step.default}")
        else:
            raise NotCompiled(f"{step.var}: a default of no C number")

    def msb_value(self, var: str, raw: str, signed: bool, bits: int) -> None:
        """A C number: int64_t (ZigZag decoded when ``signed``), uint64_t past 63 bits."""
        if signed:
            self.declare(var, "int64_t")
            self.w.line(f"{var} = <int64_t>({raw} >> 1) ^ -<int64_t>({raw} & 1)")
        else:
            self.declare(var, "int64_t" if bits < 64 else "uint64_t")
            self.w.line(f"{var} = {raw}" if bits == 64 else f"{var} = <int64_t>{raw}")

    def scalar(self, var: str, kind: str, **values: str) -> None:
        self.declare(f"{var}_s", "Scalar")
        self.w.line(f"{var}_s.kind = SCALAR_{kind}")
        for name, value in values.items():
            self.w.line(f"{var}_s.{name} = {value}")
        self.w.line(f"{var} = True")

    def number(self, step, at, end: str = "") -> None:
        if step.var not in self.loose or step.enum:
            super().number(step, at, end)
            return
        if step.const is not None:
            raise NotCompiled(f"{step.var}: a constant that may be absent")
        if step.keep:
            self.keep(step.var, at, self.at(step.size))
        if step.prim == "bool":
            self.decline_if(f"buf[{at}] > 1")
        if at is None:
            ctype, value = self.varint(step.var, step.zigzag, end)
        else:
            ctype, value = self.load(step.prim, at)
        if ctype in C_FLOATS:
            self.scalar(step.var, "FLOAT", d=value)
        elif ctype == "bint":
            self.scalar(step.var, "BOOL", i=value)
        elif ctype in C_INTS:
            self.scalar(step.var, "INT", i=value)
        elif ctype == "uint64_t":  # its bits in ``i``: only a decimal column takes it
            self.scalar(step.var, "INT", i=f"<int64_t>{value}")
            self.wide.add(step.var)
        else:
            raise NotCompiled(f"{step.var}: a {ctype} value")

    def number_value(self, var: str) -> str:
        """A number that may be absent is its ``Scalar``'s (``var`` is True here)."""
        if var in self.wide:
            return f"<uint64_t>{var}_s.i"
        return f"{var}_s.i" if f"{var}_s" in self.decls else var

    def text_value(self, step, start: str, n: str) -> None:
        var = step.var
        if step.keep:
            self.keep(var, start, f"{start} + {n}")
        n = self.unpadded(step, start, n)
        if step.kind != "bytes":
            encoding = step.encoding.replace("-", "").lower()
            if encoding == "utf8":
                self.decline_if(f"not utf8_valid(buf + {start}, {n})")
            elif encoding == "ascii":
                self.declare(f"{var}_i", "Py_ssize_t")
                self.w.line(f"for {var}_i in range({n}):")
                with self.w.indent():
                    self.decline_if(f"buf[{start} + {var}_i] >= 0x80")
            elif encoding != "latin1":  # every byte is Latin-1: converted as it is put
                raise NotCompiled(f"{var}: encoding {step.encoding}")
        if step.kind == "bytes":  # an expression's len() of it: this length, in C
            self.byte_lengths[var] = n
        kind = "BYTES" if step.kind == "bytes" else "TEXT"
        if step.kind != "bytes" and step.encoding.replace("-", "").lower() == "latin1":
            kind = "LATIN1"
        self.scalar(var, kind, p=f"<const char*>buf + {start}", n=n)
