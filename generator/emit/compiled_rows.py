"""The compiled tier's row iterators: ``iter_rows`` of a record whose last field is the
``repeat: eos`` its Spark rows come from (a binlog file's events), rendered from the same
plan as its reader.

``rows_<record>(data, limits)`` reads the fields before the repeat (declining the whole
input as the reader would: None, and the Python row iterator runs), then is an iterator of
the elements, each read by the plan's element steps. An element those steps decline is read
by the generated module's exact reader of the element (``_read_<element>``, given the
parent's fields when it reads them), which gives the element or raises its exact
``DecodeError``, with the path ``_rows_<record>`` gives it; reading goes on after it. As the
Python row iterator, it holds each element to ``max_message_bytes``, and neither the input
as a whole nor the element count.

Elements the plan reads inline are read by one function, ``_elements_<record>``, which the
record's reader calls once for them all and its row iterator once for each: the repeat's
loop, given the variables of the fields before it that the element's steps read (a binlog
event's body size reads the format description's checksum algorithm). The fields before the
elements are read by one function too, ``_head_<record>``, which the reader and the row
iterator call: it gives the variables the rest of the reader reads, C values through
pointers and the others in a tuple.
"""

from __future__ import annotations

import re

from generator.emit.compiled_support import NotCompiled
from generator.emit.plan import Build, FieldSteps, Repeat
from generator.emit.pysource import LineWriter

ROWS_PRELUDE = '''\
from runtime.core.errors import DecodeError as _DecodeError


class _Declined(Exception):
    """An element the compiled steps do not read: the exact reader reads it."""


cdef object _DECLINED = _Declined()


def _exact_row(read, bytes data, Py_ssize_t at, Py_ssize_t end, limits, Py_ssize_t index,
               str field, tuple args):
    """The element at ``at`` by the exact reader, with the errors and path of the
    generated ``_rows_<record>``: (element, where it ends)."""
    try:
        try:
            item, pos = read(data, at, end, limits, *args)
        except _DecodeError as err:
            err.add_path(index=index)
            raise
        if pos - at > limits.max_message_bytes:
            limits.check("max_message_bytes", pos - at, offset=at)
    except _DecodeError as err:
        err.add_path(field)
        raise
    return item, pos


cdef object _row_limits(data, dict limits, defaults):
    """(bytes, Limits) of a call, or None to decline (the Python path says what is wrong)."""
    if type(data) is not bytes:
        if not isinstance(data, (bytearray, memoryview)):
            return None
        data = bytes(data)
    if not limits:
        return data, defaults
    try:
        return data, type(defaults).from_kwargs(limits, defaults)
    except Exception:  # noqa: BLE001 - declined: the Python path raises the exact error
        return None


def _started(rows):
    """``rows`` once it has read the fields before its elements, or None (declined)."""
    try:
        for _ in rows:
            return rows
    except ValueError:  # text that does not decode
        return None
    return None
'''


_ASSIGNED = re.compile(r"^\s*(\w+)\s*(?:=(?!=)|[-+]=)|&(\w+)")
"""A name a line of generated Cython assigns (or hands a reader as its ``stop``)."""
_NAME = re.compile(r"\b[A-Za-z_]\w*\b")
_READER_ARGUMENTS = {"buf", "pos", "end", "lim", "stop"}
_C_VALUE = re.compile(r"^(?:u?int(?:8|16|32|64)_t|Py_ssize_t|size_t|bint|int|double|float|.*\*)$")
"""A C type a variable of the head of a row record hands out through a pointer."""


def _code(line: str) -> str:
    """A generated line without its comment."""
    return line.partition("  #")[0] if not line.lstrip().startswith("#") else ""


def _assigned(lines) -> set[str]:
    """The names ``lines`` assign."""
    return {
        name
        for line in lines
        for match in _ASSIGNED.finditer(_code(line))
        for name in match.groups()
        if name
    }


class RowSteps:
    """Row iterators (see the module docstring).

    A base of :class:`generator.emit.compiled.CompiledEmitter`, whose state and other parts
    it uses."""

    shares_row_elements = True
    """A row record's reader reads its elements by the function its row iterator calls
    (the Arrow writers, which write what they read, keep their own steps)."""

    def row_element(self, step: Repeat) -> bool:
        """``step`` is the inline repeat of the row field of the record being rendered."""
        if not self.shares_row_elements or step.steps is None:
            return False
        row = self.row_field(self.name)
        return row is not None and row[1] is step

    def elements_call(self, step: Repeat, out: str, most: str) -> str:
        """The call of ``_elements_<record>`` (rendered here, once): the repeat's loop as
        a function of the reader's arguments, the list ``out`` it appends to (or None),
        the most elements it reads, and the variables of the fields before it that the
        element's steps read (their C types kept); it is the last element read (True:
        none), None to decline. One call reads all the elements of a reader (so no event
        pays a call), one of a row iterator."""
        outer_w, outer_decls, outer_decline = self.w, dict(self.decls), self.decline_text
        outer_names = set(outer_decls) | _assigned(outer_w.lines)
        self.w = LineWriter()
        self.w.counter = outer_w.counter
        self.decline_text = "return None"
        self.w.line(f"{step.item} = True")
        self.w.line(f"while pos < end and {step.item}_n < most:")
        with self.w.indent():
            self.branch(step.steps, "end")
            self.w.line("if out is not None:")
            with self.w.indent():
                self.w.line(f"out.append({step.item})")
            self.w.line(f"{step.item}_n += 1")
        self.w.line("stop[0] = pos")
        self.w.line(f"return {step.item}")
        body, local_decls = self.w.lines, self.decls
        outer_w.counter = self.w.counter
        self.w, self.decls, self.decline_text = outer_w, outer_decls, outer_decline
        assigned = _assigned(body)
        used = {name for line in body for name in _NAME.findall(_code(line))}
        read = sorted((used & outer_names) - assigned - _READER_ARGUMENTS)
        self.element_params[self.name] = [
            (self.c_type(outer_decls.get(v, "object")), v) for v in read
        ]
        params = "".join(f", {ctype} {v}" for ctype, v in self.element_params[self.name])
        name, field = f"_elements_{self.name}", self.row_field(self.name)[0].name
        indent = " " * (len(name) + 17)
        head = [
            f"cdef inline object {name}(const unsigned char* buf, Py_ssize_t pos, Py_ssize_t end,",
            f"{indent}_Limits* lim, Py_ssize_t* stop, list out, Py_ssize_t most{params}):",
            f'    """The elements of ``{self.name}.{field}`` to ``end``, at most ``most`` of them,',
            f"    into ``out`` unless None (``_read_{self.name}`` reads them all, ``_rows_{self.name}``",
            '    one at a time): the last one (True: none), or None to decline."""',
        ]
        intos = sorted(v for v in self.intos if v in used)
        if intos:
            head.append(f"    global {', '.join(intos)}")
        head.append(f"    cdef Py_ssize_t {step.item}_n = 0")
        for var, ctype in local_decls.items():
            if var != f"{step.item}_n" and (var in assigned or var not in outer_decls):
                ctype, _, init = ctype.partition(" = ")
                head.append(f"    cdef {ctype} {var}" + f" = {init}" * bool(init))
        self.elements[self.name] = "\n".join(head + body)
        self.element_reads[self.name] = "".join(f", {v}" for v in read)
        return self.elements_of(step, out, most)

    def shares_head(self, plan) -> bool:
        """``plan``'s reader reads the fields before its row field by ``_head_<record>``,
        which its row iterator calls too (so the module carries them once)."""
        return (
            self.shares_row_elements and not plan.checks_depth and bool(self.row_field(plan.name))
        )

    def head_call(self, plan) -> None:
        """The call of ``_head_<record>`` where the reader reads the fields before its row
        field: they are rendered into that function, and the call is completed by
        :meth:`head_outputs` once the rest of the reader is rendered."""
        outer_w, outer_decline = self.w, self.decline_text
        self.w = LineWriter()
        self.w.counter = outer_w.counter
        self.decline_text = "return None"
        self.steps(plan.steps[:-2], "end")
        self.flush()
        self.checked = 0
        self.heads[plan.name] = self.w.lines
        outer_w.counter = self.w.counter
        self.w, self.decline_text = outer_w, outer_decline
        self.head_at = len(self.w.lines)

    def head_outputs(self, plan) -> None:
        """``_head_<record>`` (rendered once, here) and its call in the reader: what the rest
        of the reader reads of the head's variables comes out of it, the C values through
        pointers and the others in the tuple it returns (None to decline)."""
        name, body = plan.name, self.heads[plan.name]
        rest = self.w.lines[self.head_at :]
        assigned = _assigned(body) - _READER_ARGUMENTS
        used = {n for line in rest for n in _NAME.findall(_code(line))}
        outputs = sorted(assigned & used)
        pointers = [v for v in outputs if _C_VALUE.match(self.c_type(self.decls.get(v, "object")))]
        values = [v for v in outputs if v not in pointers]
        self.head_pointers[name], self.head_values[name] = pointers, values
        self.head_decls[name] = {v: self.decls[v] for v in pointers}
        params = "".join(f", {self.c_type(self.decls[v])}* {v}_out" for v in pointers)
        indent = " " * (len(name) + 17)
        field = self.row_field(name)[0].name
        through = f"with {', '.join(pointers)} through the pointers given, " if pointers else ""
        head = [
            f"cdef object _head_{name}(const unsigned char* buf, Py_ssize_t pos, Py_ssize_t end,",
            f"{indent}_Limits* lim, Py_ssize_t* stop{params}):",
            f'    """The fields of a ``{name}`` before ``{field}``, read once for ``_read_{name}``',
            f"    and ``_rows_{name}``: ({', '.join(values)}{',' * (len(values) == 1)}),",
            f'    {through}or None to decline."""',
        ]
        used_here = {n for line in body for n in _NAME.findall(_code(line))}
        intos = sorted(v for v in self.intos if v in used_here)
        if intos:
            head.append(f"    global {', '.join(intos)}")
        for var, ctype in self.decls.items():
            if var in used_here:
                ctype, _, init = ctype.partition(" = ")
                head.append(f"    cdef {ctype} {var}" + f" = {init}" * bool(init))
        tail = ["    stop[0] = pos", *[f"    {v}_out[0] = {v}" for v in pointers]]
        tail.append(f"    return ({', '.join(values)}{',' * (len(values) == 1)})")
        self.head_functions[name] = "\n".join(head + body + tail)
        call = self.head_call_lines(name, "return None")
        self.w.lines[self.head_at : self.head_at] = ["    " + line for line in call]
        # the head's own variables are declared in it
        for var in list(self.decls):
            if (
                var in used_here
                and var not in outputs
                and not any(var in _NAME.findall(_code(line)) for line in rest)
            ):
                del self.decls[var]

    def head_call_lines(self, name: str, decline: str) -> list[str]:
        """The lines (at depth 0) that call ``_head_<name>`` and unpack what it gives."""
        pointers, values = self.head_pointers[name], self.head_values[name]
        args = "".join(f", &{v}" for v in pointers)
        lines = [
            f"head = _head_{name}(buf, pos, end, lim, &pos{args})",
            "if head is None:",
            f"    {decline}",
        ]
        if values:
            lines.append(f"{', '.join(values)}{',' * (len(values) == 1)} = <tuple>head")
        return lines

    def elements_of(self, step: Repeat, out: str, most: str) -> str:
        """The call of the record's ``_elements_<record>`` reading into ``out``."""
        args = self.element_reads[self.name]
        return f"_elements_{self.name}(buf, pos, {step.end}, lim, &pos, {out}, {most}{args})"

    @staticmethod
    def c_type(declared: str) -> str:
        """The type of a declaration (``Py_ssize_t = 0``: ``Py_ssize_t``)."""
        return declared.partition(" = ")[0]

    def row_field(self, name: str, counted: bool = False) -> tuple[FieldSteps, Repeat] | None:
        """The plan's last field when it is the row field, read by one ``eos`` repeat (of at
        least n elements too where ``counted``: no row iterator reads one, as the error
        comes after the elements, the Python iterator's alone)."""
        record = self.spec.records[name]
        if self.fast.row_iterated(record) is None:
            return None
        *_, last, build = self.lowering.plans[name].steps
        if not isinstance(build, Build) or not isinstance(last, FieldSteps):
            return None
        if len(last.steps) != 1 or not isinstance(last.steps[0], Repeat):
            return None
        repeat = last.steps[0]
        if repeat.until != "eos" or (repeat.min_count and not counted):
            return None
        return last, repeat

    def rows_function(self, name: str) -> str:
        """``_rows_<name>``: a generator that yields None once the fields before the
        elements are read (returns before it to decline), then each element."""
        plan = self.lowering.plans[name]
        field, repeat = self.row_field(name)
        if plan.checks_depth:
            raise NotCompiled("rows of a recursive spec")
        self.start(plan)
        self.w = LineWriter()
        self.w.depth = 1
        self.decline_text = "return"
        self.decline_if(f"lim.max_depth < {plan.depth}")
        if name in self.head_functions:
            self.calls |= self.callees[name]  # the head's
            for var in self.head_pointers[name]:
                self.declare(var, self.c_type(self.head_decls[name][var]))
            for line in self.head_call_lines(name, "return"):
                self.w.line(line)
        else:
            self.steps(plan.steps[:-2], "end")
            self.flush()
        self.w.line("yield None  # the fields before the elements are read")
        record = self.spec.records[name]
        before = [f.name for f in record.fields[: record.fields.index(record.field(field.name))]]
        element = repeat.record
        if element in self.fast.needs_parent:
            parent = ", ".join(f"{f}=f_{f}" for f in before)
            self.w.line(f"args = (2, _Parent({parent}))")
        else:
            self.w.line("args = (2,)")
        self.w.line(f"while pos < {repeat.end}:")
        with self.w.indent():
            self.w.line("at = pos")
            self.w.line("try:")
            with self.w.indent():
                self.decline_text = "raise _DECLINED"
                if repeat.steps is None:
                    self.calls.add(element)
                    call = self.call(element, repeat.end, repeat.var, repeat.depth)
                    self.w.line(f"{repeat.item} = {call}")
                    self.decline_if(f"{repeat.item} is None")
                else:  # what the record's reader calls (and the records it reads)
                    self.calls |= self.callees[name]
                    self.w.line(f"{repeat.item} = {self.elements_of(repeat, 'None', '1')}")
                    self.decline_if(f"{repeat.item} is None")
                self.decline_if("pos - at > lim.max_message_bytes")
            self.w.line(
                "except (_Declined, ValueError):  # (ValueError: text that does not decode)"
            )
            with self.w.indent():
                self.w.line(
                    f"{repeat.item}, pos = _exact_row(_ROW_READERS[{element!r}], data, at,"
                    f" {repeat.end}, limits, n, {field.name!r}, args)"
                )
            self.w.line("n += 1")
            self.w.line(f"yield {repeat.item}")
        self.decline_text = "return None"
        self.preludes.setdefault(ROWS_PRELUDE)
        head = [
            f"def _rows_{name}(bytes data, limits):",
            f'    """The elements of ``{name}.{field.name}``, after a None once the fields',
            '    before them are read (none: declined)."""',
            "    cdef const unsigned char* buf = data",
            "    cdef Py_ssize_t pos = 0, at, n = 0",
            "    cdef Py_ssize_t end = len(data)",
            "    cdef _Limits lim_value",
            "    cdef _Limits* lim = &lim_value",
        ]
        for var, ctype in self.decls.items():
            ctype, _, init = ctype.partition(" = ")
            head.append(f"    cdef {ctype} {var}" + f" = {init}" * bool(init))
        head.append("    _limits(limits, lim)")
        self.callees[f"rows {name}"] = self.calls
        return "\n".join(head + self.w.lines)

    def rows_entry(self, name: str) -> str:
        """``rows_<name>(data, limits)``: what ``iter_rows`` iterates, or None."""
        return "\n".join(
            [
                f"def rows_{name}(data, dict limits):",
                f'    """The elements of a ``{name}`` one at a time (an iterator), or None',
                '    to decline the input: the Python row iterator decides."""',
                "    called = _row_limits(data, limits, _ROW_DEFAULTS)",
                "    if called is None:",
                "        return None",
                f"    return _started(_rows_{name}(*called))",
            ]
        )

    def rows_section(self) -> list[str]:
        """The row iterators, their bindings and ``row_iterators()``."""
        if not self.rows:
            return []
        elements = sorted({self.row_field(name)[1].record for name in self.rows})
        parts = [self.rows[name] for name in self.rows]
        parts += [self.rows_entry(name) for name in self.rows]
        parts.append(
            "\n".join(
                [
                    "cdef dict _ROW_READERS = {}",
                    '"""Element record -> the generated module\'s exact reader (set by bind)."""',
                    "cdef object _ROW_DEFAULTS = None",
                    "cdef object _Parent = None",
                    "",
                    "",
                    "def bind_row_readers(namespace):",
                    "    global _ROW_DEFAULTS, _Parent",
                    '    _ROW_DEFAULTS = namespace["_LIMITS"]',
                    '    _Parent = namespace["rt_fast"].Parent',
                    *[f'    _ROW_READERS["{e}"] = namespace["_read_{e}"]' for e in elements],
                    "",
                    "",
                    "def row_iterators():",
                    '    """Record -> its ``iter_rows`` reader, ``reader(data, limits)`` (after',
                    '    ``bind``)."""',
                    "    return {",
                    *[f'        "{name}": rows_{name},' for name in self.rows],
                    "    }",
                ]
            )
        )
        return parts
