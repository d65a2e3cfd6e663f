"""The compiled tier's steps at a constant offset: numbers, bit fields, computed values,
text, model builds and checksums."""

from __future__ import annotations

import ast
import re

from generator.emit.compiled_prelude import CRC32_PRELUDE, LATIN1_PRELUDE, SHORTEST_UVARINT_PRELUDE
from generator.emit.compiled_support import (
    C_TYPES,
    C_VALUES,
    DECODERS,
    SHARED_INTS,
    SMALL_INTS,
    NotCompiled,
)
from generator.emit.plan import (
    Bits,
    Build,
    Computed,
    Derived,
    Length,
    Nothing,
    Number,
    TagByte,
    Text,
    Valid,
)
from generator.emit.plan_checksums import Checksum, Mark
from generator.emit.plan_keyed import KEYED_STEPS
from generator.emit.pysource import struct_format
from generator.emit.untracked import is_atomic, kinds_of, may_be_atomic

FLOAT32_CIMPORT = "from runtime._compiled.float32 cimport float32_widened\n"
"""What a float32's loader widens it with (runtime/_compiled/float32.pxd)."""


class ValueSteps:
    """Steps at a constant offset, numbers and checksums.

    A base of :class:`generator.emit.compiled.CompiledEmitter`, whose state and other parts
    it uses."""

    # -- numbers -------------------------------------------------------------------------

    def load(self, prim: str, at: str) -> tuple[str, str]:
        """(C type, C expression) of the fixed-width number ``prim`` at ``buf + at``."""
        if prim == "bool":
            return "bint", f"buf[{at}] == 1"
        fmt = struct_format(prim, self.spec.endian)
        order, code = fmt[0], fmt[1]
        ctype = "double" if code == "f" else C_TYPES[code]  # a float32 widened on its bits
        if code == "B":
            return ctype, f"buf[{at}]"
        if code == "b":
            return ctype, f"<int8_t>buf[{at}]"
        name = f"_load_{'be' if order == '>' else 'le'}_{code}"
        if code == "f":  # before its loader
            self.loaders.setdefault("float32", FLOAT32_CIMPORT)
        if name not in self.loaders:
            self.loaders[name] = self.loader(name, ctype, order, code)
        return ctype, f"{name}(buf + {at})"

    def loader(self, name: str, ctype: str, order: str, code: str) -> str:
        """An inline C function reading one number (byte by byte: any host byte order)."""
        size = {"H": 2, "h": 2, "I": 4, "i": 4, "f": 4, "Q": 8, "q": 8, "d": 8}[code]
        unsigned = {2: "uint16_t", 4: "uint32_t", 8: "uint64_t"}[size]
        shifts = range(size) if order == "<" else reversed(range(size))
        parts = [f"(<{unsigned}>p[{i}] << {8 * k})" for k, i in enumerate(shifts)]
        lines = [f"cdef inline {ctype} {name}(const unsigned char* p) noexcept:"]
        lines.append(f"    cdef {unsigned} u = {parts[0]}")
        lines += [f"    u |= {part}" for part in parts[1:]]
        if code == "f":  # a NaN widened on its bits: a C cast quiets a signalling one
            lines.append("    return float32_widened(u)")
        elif code == "d":
            lines += [
                f"    cdef {ctype} value",
                f"    memcpy(&value, &u, {size})",
                "    return value",
            ]
        else:
            lines.append(f"    return <{ctype}>u")
        return "\n".join(lines) + "\n"

    # -- steps at a constant offset ------------------------------------------------------

    def fixed(self, step, at: str, end: str) -> None:
        if isinstance(step, KEYED_STEPS):
            self.keyed(step)
        elif isinstance(step, TagByte):
            self.decline_if(f"buf[{at}] != 0x{step.byte:02x}")
        elif isinstance(step, Number):
            self.number(step, at)
        elif isinstance(step, Length):
            fmt = struct_format(step.prim, self.spec.endian)
            self.declare(step.var, "Py_ssize_t")
            if fmt[1] == "Q":  # beyond a C size is beyond what is left: the quick tier retries
                self.declare(f"{step.var}_u", "uint64_t")
                self.w.line(f"{step.var}_u = {self.load(step.prim, at)[1]}")
                self.decline_if(f"{step.var}_u > <uint64_t>PY_SSIZE_T_MAX")
                self.w.line(f"{step.var} = <Py_ssize_t>{step.var}_u")
            else:
                self.w.line(f"{step.var} = {self.load(step.prim, at)[1]}")
        elif isinstance(step, Text):
            self.decline_if(f"lim.max_string < {step.fixed}")
            self.text_value(step, at, str(step.fixed))
        elif isinstance(step, Nothing):
            self.w.line(f"{step.var} = None")
        elif isinstance(step, Bits):
            self.bits(step, at)
        elif isinstance(step, Computed):
            self.computed(step)
        elif isinstance(step, Checksum):
            self.checksum(step)
        elif isinstance(step, Derived):
            self.evaluate(step.var, step.expression)
        elif isinstance(step, Mark):
            self.declare(step.var, "Py_ssize_t")
            self.w.line(f"{step.var} = {at}")
        elif isinstance(step, Valid):
            compared = re.fullmatch(r"(\w+) (<|<=|>|>=|==|!=) (-?\d+)", step.expression)
            ctype = self.decls.get(compared.group(1), "") if compared else ""
            if ctype in C_TYPES.values() and ctype not in ("float", "double"):
                # a C integer against a literal it can hold: the comparison Python would
                # make, in C (an unsigned one against a negative literal stays in Python)
                name, op, literal = compared.groups()
                low = 0 if ctype.startswith("u") else -(1 << 63)
                if low <= int(literal) < (1 << 63):
                    self.decline_if(f"not ({name} {op} {literal})")
                    return
            if self.list_evaluate("valid_t", step.expression):
                self.decline_if("not valid_t")
                return
            self.expressions = True
            self.w.line("try:")
            with self.w.indent():
                self.w.line(f"valid = {self.python(step.expression)}")
            self.w.line("except _EXPRESSION_FAILURES:")
            with self.w.indent():
                self.w.line("valid = False")
            self.decline_if("not valid")
        else:
            assert isinstance(step, Build), step
            self.build(step)

    def bits(self, step: Bits, at: str) -> None:
        """A bit field of the run ``step.run`` (its first field reads the run's bytes, as
        one unsigned integer in the run's order)."""
        if step.var in self.loose:
            raise NotCompiled(f"{step.var}: a bit field that may be absent")
        if step.first:
            self.declare(step.run, "uint64_t")
            order = range(step.group) if step.order == "little" else reversed(range(step.group))
            parts = [
                (
                    f"(<uint64_t>buf[{at} + {i}] << {8 * k})"
                    if i
                    else f"(<uint64_t>buf[{at}] << {8 * k})"
                )
                for k, i in enumerate(order)
            ]
            self.w.line(f"{step.run} = {' | '.join(parts)}".replace(" << 0)", ")"))
        value = step.run if step.shift == 0 else f"({step.run} >> {step.shift})"
        if step.mask is not None:
            value = f"({value} & {step.mask:#x}u)"
        if step.enum:
            self.bits_member(step, value)
        elif step.width == 64 and not step.signed:
            self.declare(step.var, "uint64_t")
            self.w.line(f"{step.var} = {value}")
        else:
            self.declare(step.var, "int64_t")
            self.w.line(f"{step.var} = <int64_t>{value}")
            if step.signed and step.width < 64:  # two's complement in its width
                self.w.line(f"if {step.var} >> {step.width - 1}:")
                with self.w.indent():
                    self.w.line(f"{step.var} -= (<int64_t>1) << {step.width}")
        if step.const is not None:
            self.decline_if(f"{step.var} != {step.const:#x}")

    def bits_member(self, step: Bits, value: str) -> None:
        """An enum's bit field: its code in ``<var>_c`` (as an enum :class:`Number`'s, for a
        switch and an Arrow name), the member from the enum's table by byte."""
        var = step.var
        if not all(0 <= v.value < 256 for v in self.spec.enums[step.enum].values):
            raise NotCompiled(f"{var}: an enum with members past a byte")
        self.enums.add(step.enum)
        self.declare(f"{var}_c", "int64_t")
        self.declare(f"{var}_p", "PyObject*")
        self.w.line(f"{var}_c = <int64_t>{value}")
        if step.signed:  # two's complement in its width: a negative code is no member
            self.w.line(f"if {var}_c >> {step.width - 1}:")
            with self.w.indent():
                self.w.line(f"{var}_c -= (<int64_t>1) << {step.width}")
        if step.signed or step.width > 8:
            self.decline_if(f"{var}_c < 0 or {var}_c > 255")
        self.w.line(f"{var}_p = _{step.enum.upper()}_BY_BYTE[{var}_c]")
        self.decline_if(f"{var}_p == NULL")
        self.w.line(f"{var} = <object>{var}_p")

    def computed(self, step: Computed) -> None:
        """A length an expression computes: a C number read as such, else the Python
        value (an int in range, else a decline)."""
        self.declare(step.var, "Py_ssize_t")
        ctype = self.decls.get(step.expression, "")
        if ctype in ("int8_t", "int16_t", "int32_t", "uint8_t", "uint16_t", "int64_t"):
            self.w.line(f"{step.var} = {step.expression}")
            return
        c_value = self.c_expression(step.expression)
        if c_value is not None:  # 64 bits hold it: a Py_ssize_t too
            self.w.line(f"{step.var} = <Py_ssize_t>{c_value}")
            return
        if self.list_evaluate(f"{step.var}_t", step.expression):
            self.decline_if(f"{step.var}_t < -1")
            self.w.line(f"{step.var} = <Py_ssize_t>{step.var}_t")
            return
        self.evaluate(f"{step.var}_o", step.expression)
        self.decline_if(
            f"type({step.var}_o) is not int or not -1 <= {step.var}_o <= PY_SSIZE_T_MAX"
        )
        self.w.line(f"{step.var} = {step.var}_o")

    def c_expression(self, expression: str) -> str | None:
        """A spec expression as C arithmetic in 64 bits, when it is sums, differences,
        comparisons and ``a if test else b`` of numbers read as C integers of at most 32
        bits (an enum member as its byte) and literals below 2**31: Python's value, with no
        overflow possible. None for any other expression (evaluated in Python)."""
        if re.fullmatch(r"pos < end\d*", expression):  # bytes_left(): positions, C already
            return f"({expression})"
        small = ("uint8_t", "uint16_t", "uint32_t", "int8_t", "int16_t", "int32_t")
        operators = {ast.Add: "+", ast.Sub: "-"}
        comparisons = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<="}
        comparisons.update({ast.Gt: ">", ast.GtE: ">="})

        def c(node) -> str:
            if isinstance(node, ast.Constant) and type(node.value) is int:
                if abs(node.value) >= 1 << 31:
                    raise ValueError(node.value)
                return str(node.value)
            if isinstance(node, ast.Name) and node.id not in self.loose:
                number = self.numbers.get(node.id)
                if number is not None and number.enum and f"{node.id}_c" in self.decls:
                    return f"<int64_t>{node.id}_c"
                if self.decls.get(node.id) in small:
                    return f"<int64_t>{node.id}"
            if isinstance(node, ast.BinOp) and type(node.op) in operators:
                return f"({c(node.left)} {operators[type(node.op)]} {c(node.right)})"
            if isinstance(node, ast.IfExp):
                return f"({c(node.body)} if {c(node.test)} else {c(node.orelse)})"
            if isinstance(node, ast.Compare) and len(node.ops) == 1:
                op = comparisons.get(type(node.ops[0]))
                if op is not None:
                    return f"({c(node.left)} {op} {c(node.comparators[0])})"
            raise ValueError(ast.dump(node))

        tree = ast.parse(expression, mode="eval").body
        if sum(1 for _ in ast.walk(tree)) > 32:  # a few terms: 64 bits cannot overflow
            return None
        try:
            return c(tree)
        except ValueError:
            return None

    def python(self, expression: str) -> str:
        """A spec expression with Python's semantics: its C numbers as Python ints (no
        overflow where Python has none)."""
        if "rt." in expression:  # a bounded operator (rt.times, rt.shift_left, ...)
            self.preludes.setdefault("import runtime.core.record as rt\n")
        numbers = [
            v for v, ctype in self.decls.items() if not ctype.startswith(("bytes", "PyObject"))
        ]
        if not numbers:
            return expression
        pattern = re.compile(r"(?<![.\w])(" + "|".join(map(re.escape, numbers)) + r")\b")
        return pattern.sub(r"(<object>\1)", expression)

    def evaluate(self, var: str, expression: str) -> None:
        """``var`` is a spec expression's value (a Python object); an error evaluating it
        is a decline."""
        self.expressions = True
        if var in self.decls:
            raise NotCompiled(f"{var}: a C number and an expression's value")
        terms = re.fullmatch(r"(\w+) \+ (\w+)", expression)
        small = ("int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t")
        if terms and all(self.decls.get(term) in small for term in terms.groups()):
            # the sum of two C numbers (an offset plus a delta) without Python ints, unless
            # it is wider than 64 bits
            a, b = terms.groups()
            self.declare(f"{var}_sum", "int64_t")
            self.w.line(f"if wirespec_add_overflows({a}, {b}, &{var}_sum):")
            with self.w.indent():
                self.w.line(f"{var} = (<object>{a}) + (<object>{b})")
            self.w.line("else:")
            with self.w.indent():
                self.w.line(f"{var} = {var}_sum")
            return
        self.w.line("try:")
        with self.w.indent():
            self.w.line(f"{var} = {self.python(expression)}")
        self.w.line("except _EXPRESSION_FAILURES:")
        with self.w.indent():
            self.w.line(self.decline_text)

    def takes_longer_varints(self) -> bool:
        """Whether this reader takes a varint longer than it needs; else it declines it (the
        format keeps it: the Python reader keeps the message's bytes)."""
        return not self.spec.kept_varints

    def uvarint_reader(self) -> str:
        """The C function that reads a uvarint at ``pos`` or declines: in its shortest form
        only where a longer one is declined (:meth:`takes_longer_varints`)."""
        if self.takes_longer_varints():
            return "_uvarint"
        self.preludes.setdefault(SHORTEST_UVARINT_PRELUDE)
        return "_uvarint_shortest"

    def varint(self, var: str, zigzag: bool, end: str) -> tuple[str, str]:
        """A varint at ``pos`` before ``end`` read into ``<var>_u``: (C type, C value)."""
        self.declare(f"{var}_u", "uint64_t")
        self.decline_if(f"not {self.uvarint_reader()}(buf, &pos, {end}, &{var}_u)")
        if zigzag:
            return "int64_t", f"_unzigzag({var}_u)"
        return "uint64_t", f"{var}_u"

    def number(self, step: Number, at: str | None, end: str = "") -> None:
        """A number at ``buf + at``, or a varint at ``pos`` before ``end`` (``at`` None)."""
        var = step.var
        if step.keep:
            self.keep(var, at, self.at(step.size))
        if step.prim == "bool":
            self.decline_if(f"buf[{at}] > 1")
        if at is None:
            ctype, value = self.varint(var, step.zigzag, end)
        else:
            ctype, value = self.load(step.prim, at)
        if step.enum and at is None:
            values = [v.value for v in self.spec.enums[step.enum].values]
            if not all(0 <= v < 256 for v in values):
                raise NotCompiled(f"{var}: an enum with members past a byte")
            table = f"_{step.enum.upper()}_BY_BYTE"
            self.enums.add(step.enum)
            self.declare(f"{var}_c", ctype)
            self.declare(f"{var}_p", "PyObject*")
            self.w.line(f"{var}_c = {value}")
            self.decline_if(
                f"{var}_c > 255" if ctype == "uint64_t" else f"{var}_c < 0 or {var}_c > 255"
            )
            self.w.line(f"{var}_p = {table}[{var}_c]")
            self.decline_if(f"{var}_p == NULL")
            self.w.line(f"{var} = <object>{var}_p")
        elif step.enum and ctype != "uint8_t":  # a member by its value (a pcap magic)
            table = f"_{step.enum.upper()}_BY_VALUE"
            self.wide_enums.add(step.enum)
            self.declare(f"{var}_c", ctype)
            self.w.line(f"{var}_c = {value}")
            self.w.line(f"{var} = {table}.get({var}_c)")
            self.decline_if(f"{var} is None")
        elif step.enum:
            table = f"_{step.enum.upper()}_BY_BYTE"
            self.enums.add(step.enum)
            self.declare(f"{var}_c", ctype)
            self.declare(f"{var}_p", "PyObject*")
            self.w.line(f"{var}_c = {value}")
            self.w.line(f"{var}_p = {table}[{var}_c]")
            self.decline_if(f"{var}_p == NULL")
            self.w.line(f"{var} = <object>{var}_p")
        elif var in self.loose and ctype in SHARED_INTS:
            self.w.line(f"{var} = _int64({value})")
        elif var in self.loose:
            self.w.line(f"{var} = {value}")
        else:
            self.declare(var, ctype)
            self.w.line(f"{var} = {value}")
        if step.const is not None:
            self.decline_if(f"{var} != {step.const:#x}")

    def keep(self, var: str, start: str, stop: str) -> None:
        """The bytes of ``var`` a checksum covers: ``<var>_at`` to ``<var>_end``."""
        self.declare(f"{var}_at", "Py_ssize_t = 0")  # set where the checksum reads it
        self.declare(f"{var}_end", "Py_ssize_t = 0")
        self.w.line(f"{var}_at = {start}")
        self.w.line(f"{var}_end = {stop}")

    def unpadded(self, step: Text, start: str, n: str) -> str:
        """The length of a text of ``n`` bytes at ``buf + start`` without the ``pad:`` bytes
        at its end, which are no part of its value (``n`` itself where it has none)."""
        if not step.pad:
            return n
        var = step.var
        self.declare(f"{var}_n", "Py_ssize_t")
        self.w.line(f"{var}_n = {n}")
        tests = " or ".join(f"buf[{start} + {var}_n - 1] == {b:#04x}" for b in step.pad)
        self.w.line(f"while {var}_n > 0 and ({tests}):")
        with self.w.indent():
            self.w.line(f"{var}_n -= 1")
        return f"{var}_n"

    def text_value(self, step: Text, start: str, n: str) -> None:
        """A string or bytes of ``n`` bytes at ``buf + start`` (already checked)."""
        var = step.var
        if step.keep:
            self.keep(var, start, f"{start} + {n}")
        if step.kind == "bytes":
            self.w.line(f"{var} = _bytes(buf + {start}, {n})")
            return
        decoder = DECODERS.get(step.encoding.replace("-", "").lower())
        if decoder is None:
            raise NotCompiled(f"{var}: encoding {step.encoding}")
        n = self.unpadded(step, start, n)
        if decoder == "PyUnicode_DecodeLatin1":
            self.preludes.setdefault(LATIN1_PRELUDE)
        if decoder == "_utf8":
            self.w.line(f"{var} = _utf8(buf + {start}, {n})")
        else:
            self.w.line(f"{var} = {decoder}(<const char*>buf + {start}, {n}, NULL)")

    def build(self, step: Build) -> None:
        fields = [name for name, _ in step.fields]
        if self.classes.setdefault(step.class_name, fields) != fields:
            raise NotCompiled(f"{step.class_name}: two field lists")
        tests = self.atomic_tests(step)
        # a model that may hold only atomic values is allocated untracked (CPython's rule
        # for tuples, below), and tracked only if the run-time tests say it must be
        alloc = "wirespec_alloc" if tests is None else "wirespec_alloc_untracked"
        reused = any(step.class_name in classes for classes in self.reuse.values())
        if reused:
            # a dead model of the class when the entry found one (and only once)
            self.intos.add(f"_into_{step.class_name}")
            self.w.line(f"if _into_{step.class_name} != NULL:")
            with self.w.indent():
                self.w.line(f"{step.var} = <object>_into_{step.class_name}")
                self.w.line(f"_into_{step.class_name} = NULL")
            self.w.line("else:")
            with self.w.indent():
                self.w.line(f"{step.var} = {alloc}(_{step.class_name})")
        else:
            self.w.line(f"{step.var} = {alloc}(_{step.class_name})")
        # a model built again and again (in a repeat, or into a dead one) gets the int made
        # last for a field when its value repeats: a binlog's server id, sizes, timestamps
        shared = reused or self.enclosing_repeats > 0
        for name, var in step.fields:
            decl = self.decls.get(var, "").partition(" = ")[0]
            if shared and self.decls.get(var) in ("uint8_t", "uint16_t", "uint32_t"):
                var = f"shared_int(&{self.shared_int(var)}, {var}, 0)"
            elif decl in SMALL_INTS:
                var = f"_int({var})"
            self.w.line(f"wirespec_put({step.var}, _{step.class_name}_{name}, {var})")
        self.track(step, tests, reused)

    def atomic_tests(self, step: Build) -> list[str] | None:
        """CPython's rule for tuples, for a model: one that holds only atomic values (numbers,
        text, bytes, None, enum members, models and lists the collector does not track) can
        be in no reference cycle the reader made, so the cyclic GC need not walk it. The
        run-time tests for the fields the plan cannot decide (a nested model, a list of
        them, an expression's value): ``[]`` when it decides them all, None when the model
        holds a tracked list in every read."""
        tests = []
        for _, var in step.fields:
            if self.decls.get(var, "").partition(" = ")[0] in C_VALUES:
                continue
            held = kinds_of(var, self.kinds)
            if is_atomic(held, self.atomic_classes, self.kinds):
                continue
            if not may_be_atomic(held):
                return None
            tests.append(f"atomic({var})")
        return tests

    def track(self, step: Build, tests: list[str] | None, reused: bool) -> None:
        """The GC state of a model whose slots are written: tracked when ``tests`` fail (or
        it holds a tracked list), untracked else. A dead model written again (``reused``)
        may come in either state."""
        if tests is None:
            if reused:
                self.w.line(f"keep_tracked({step.var})")
            return
        if not tests:
            if reused:
                self.w.line(f"untrack({step.var})")
            return
        self.w.line(f"if not ({' and '.join(tests)}):")
        with self.w.indent():
            self.w.line(f"keep_tracked({step.var})")
        if reused:
            self.w.line("else:")
            with self.w.indent():
                self.w.line(f"untrack({step.var})")

    # -- checksums -----------------------------------------------------------------------

    def checksum(self, step: Checksum) -> None:
        if step.items[0].kind == "span":
            # the C function of the exact reader, over the bytes where they are
            self.expressions = True
            span = step.items[0]
            self.w.line(
                f"{step.var}_crc = _CHECKSUMS[{step.algorithm!r}](PyMemoryView_FromMemory("
                f"<char*>buf + {span.var}, {span.target} - {span.var}, PyBUF_READ))"
            )
            self.decline_if(f"{self.number_value(step.var)} != {step.var}_crc")
            return
        if step.algorithm == "crc32":
            self.crc32(step)
            return
        if step.algorithm != "crc8":
            raise NotCompiled(f"{step.var}: a {step.algorithm} checksum")
        crc = f"{step.var}_crc"
        for item in self.crc8_start(step, crc):
            if item.kind == "raw":
                line = f"{crc} = _crc8({crc}, buf, {item.var}_at, {item.var}_end)"
                if item.optional:
                    self.w.line(f"if {item.var} is not None:")
                    with self.w.indent():
                        self.w.line(line)
                else:
                    self.w.line(line)
            elif item.kind == "each" and item.target == "u8":
                cls = self.lowering.plans[self.repeats[item.var]].class_name
                self.w.line(f"for e in {item.var}:")
                with self.w.indent():
                    self.w.line(f"{crc} = _CRC8[{crc} ^ {self.element_member(cls, item.member)}]")
            elif item.kind == "value" and step.one_byte:
                names = {
                    n.id for n in ast.walk(ast.parse(item.expression)) if isinstance(n, ast.Name)
                }
                if not names <= set(self.decls) | self.loose:
                    raise NotCompiled(f"{step.var}: a value over {sorted(names)}")
                self.w.line(f"{crc} = _CRC8[{crc} ^ ({item.expression})]")
            else:
                raise NotCompiled(f"{step.var}: a checksum item {item.kind}")
        self.decline_if(f"{self.number_value(step.var)} != {crc}")

    def number_value(self, var: str) -> str:
        """C: the value of the number read into ``var``."""
        return var

    def crc8_start(self, step: Checksum, crc: str) -> tuple:
        """Start the CRC-8 in ``crc``; returns the items still to add to it."""
        self.declare(crc, "unsigned int")
        self.w.line(f"{crc} = 0")
        return step.items

    def crc32(self, step: Checksum) -> None:
        """zlib's CRC-32 of raw items, over the bytes where they are: items that follow
        each other (a header's fields, then the body) are one run, one call."""
        if not all(item.kind == "raw" and not item.optional for item in step.items):
            raise NotCompiled(f"{step.var}: a CRC-32 of other than raw items")
        self.preludes.setdefault(CRC32_PRELUDE)
        crc, start, stop = f"{step.var}_crc", f"{step.var}_from", f"{step.var}_to"
        self.declare(crc, "uint32_t")
        self.declare(start, "Py_ssize_t")
        self.declare(stop, "Py_ssize_t")
        first, *rest = step.items
        self.w.line(f"{crc} = 0")
        self.w.line(f"{start} = {first.var}_at")
        self.w.line(f"{stop} = {first.var}_end")
        for item in rest:
            self.w.line(f"if {item.var}_at == {stop}:")
            with self.w.indent():
                self.w.line(f"{stop} = {item.var}_end")
            self.w.line("else:")
            with self.w.indent():
                self.w.line(f"{crc} = crc32_update({crc}, buf + {start}, {stop} - {start})")
                self.w.line(f"{start} = {item.var}_at")
                self.w.line(f"{stop} = {item.var}_end")
        self.w.line(f"{crc} = crc32_update({crc}, buf + {start}, {stop} - {start})")
        self.decline_if(f"{self.number_value(step.var)} != {crc}")
