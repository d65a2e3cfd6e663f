"""The Arrow writers' columns (:mod:`generator.emit.compiled_arrow`): the values put, where
the model reader builds its model.

At a record's build, each Spark column of the record (its column table's entries) gets the
value of its field: a C number by the column's kind (an int, a double, a bool, a decimal of
a uint64, a time of an integer, ``logical: pg_lsn``'s text), a ``Scalar`` as it is, an
enum's name by its byte, a list or a record written as it was read closed. A switch's struct
has one child per case with a payload, only the selected one filled. A value its column does
not take declines (``return -1``); a column this module cannot fill raises
:class:`NotCompiled`.
"""

from __future__ import annotations

from generator.emit.compiled_arrow_values import C_FLOATS, C_INTS
from generator.emit.compiled_support import NotCompiled
from generator.emit.plan import Build
from generator.spec.model import TIMESTAMP_US_EPOCHS

RAW_KINDS = ("int", "float", "bool", "string", "binary")
"""The column kinds a value is put into as it is (``put_scalar``, ``put_int``, ...)."""
_TIMES = {
    "micros": "put_micros",
    "time_ms": "put_time_us",
    "time_us": "put_time_us",
    "time_ns": "put_time_us",
    "time_us_postgres": "put_time_us",
}
"""``timestamp_us``'s and ``timestamp_ns``'s two columns of a number: its int, and its
time (``time_ns``: the microseconds of the nanoseconds, rounded down as Python's ``//``,
written out since the module divides as C does)."""
_PY_TIMES = {"micros": "{var}", "time_ms": "{var} * 1000", "time_us": "{var}"}
_PY_TIMES |= {"time_ns": "{var} // 1000", "time_us_postgres": "({var} + {shift})"}
"""A time column's microseconds of a Python int ``var`` (Python's ``//``, as the rows')."""
_TIME_SHIFTS = {"time_us_postgres": TIMESTAMP_US_EPOCHS["postgres_micros"]}
"""Time columns of microseconds after another epoch: what Unix's time of them adds."""


class ArrowColumns:
    """:class:`generator.emit.compiled_arrow.ArrowEmitter`'s part for its columns (see the
    module docstring): a record's values put into its column builders."""

    def build(self, step: Build) -> None:
        if step.var != "model":  # a record read inline: written with its parent
            for (var, record), build in self.case_builds.items():
                if build is step and record in self.case_targets.get(var, {}):
                    # a switch's case: its columns now, the other cases' nulls at the end
                    self.write_columns(record, dict(step.fields), self.case_targets[var][record])
                    self.called_cases.add((var, record))
            self.w.line(f"{step.var} = True")
            return
        if self.name not in self.row_fields:
            self.write_columns(self.name, dict(step.fields), "out")
        self.declare("model", "int")
        member = self.returned.get(self.name)
        if member is None:
            self.w.line("model = 1")
            return
        var = dict(step.fields)[member]
        if self.decls.get(var) not in C_INTS:
            raise NotCompiled(f"{var}: a checksum member that is no C number")
        self.w.line(f"model = {var}")

    def write_columns(self, record: str, fields: dict, struct: str) -> None:
        entries = self.tables[record]
        for (var, kind, builder), entry in zip(self.columns(record, fields, struct), entries):
            if kind == "fourcc":  # text by the field's enum
                self.fourcc_column(var, builder, record, entry[1])
                continue
            self.write(var, kind, builder, fields, nullable=entry[3])
        if struct != "out" or not self.spreading:  # else _arrow_<record> closes it
            self.w.line(f"{struct}.valid()")

    def write(self, var: str, kind, builder: str, fields: dict, nullable: bool) -> None:
        """Append the value of ``var`` (a column of ``kind``) to ``builder``."""
        ctype = self.decls.get(var)
        if kind == ("spread",):  # written as it was read
            return
        if kind == "lsn":
            self.lsn_text(var, builder, ctype)
            return
        if kind in _TIMES and ctype in (*C_INTS, "uint64_t"):
            fits = f"{var} >> 63 == 0" if ctype == "uint64_t" else "True"
            value, shift = f"<int64_t>{var}", _TIME_SHIFTS.get(kind)
            if kind == "time_ms":  # null where the microseconds would not fit an int64
                in_range = f"-{2**63 // 1000} <= {value} <= {(2**63 - 1) // 1000}"
                fits = in_range if fits == "True" else f"({fits}) and {in_range}"
                value = f"({value} * 1000 if {fits} else 0)"
            if kind == "time_ns":
                value = f"({value} // 1000 if {value} >= 0 else -((-({value} + 1)) // 1000) - 1)"
            if shift:  # null where Unix's microseconds would not fit an int64 (no C overflow)
                fits = f"({fits}) and {value} <= {2**63 - 1 - shift}"
                value = f"({value} + {shift} if {fits} else 0)"
            self.decline_if(f"{_TIMES[kind]}({builder}, {value}, {fits})")
            return
        if ctype in C_INTS or ctype in C_FLOATS or ctype == "bint":
            put = (
                "put_double" if ctype in C_FLOATS else "put_bool" if ctype == "bint" else "put_int"
            )
            if kind not in RAW_KINDS:
                raise NotCompiled(f"{var}: a {ctype} in a {kind} column")
            if put == "put_int":  # a float or a bool fits any column of its kind
                self.decline_if(f"put_int({builder}, {var})")
            else:
                self.w.line(f"{put}({builder}, {var})")
            return
        if ctype == "uint64_t":  # what a long cannot hold: a decimal column
            if kind != "decimal":
                raise NotCompiled(f"{var}: a uint64_t in a {kind} column")
            self.decline_if(f"put_decimal({builder}, {var})")
            return
        if isinstance(kind, tuple) and kind[0] == "switch":  # None: a case without payload
            self.switch_columns(var, kind, builder, fields)
            return
        self.w.line(f"if {var} is None:")
        with self.w.indent():
            # where <record>_to_row would fail on a None, the Python way decides
            self.w.line(f"{builder}.null()" if nullable else "return -1")
        self.w.line("else:")
        with self.w.indent():
            self.present(var, kind, builder, fields)

    def lsn_text(self, var: str, builder: str, ctype: str | None) -> None:
        """``logical: pg_lsn``'s text column: the number as PostgreSQL writes it, ``X/Y``
        (``rt_codec.lsn_text``), null where the number is absent."""
        number = self.number_value(var)
        text = f'f"{{{number} >> 32:X}}/{{{number} & 0xFFFFFFFF:X}}"'
        if ctype == "uint64_t" and var not in self.wide:  # read always
            self.decline_if(f"put_object({builder}, {text})")
            return
        self.w.line(f"if {var} is None:")
        with self.w.indent():
            self.w.line(f"{builder}.null()")
        self.w.line("else:")
        with self.w.indent():
            self.decline_if(f"put_object({builder}, {text})")

    def present(self, var: str, kind, builder: str, fields: dict) -> None:
        if var in self.wide:  # a uint64 that may be absent
            if kind != "decimal":
                raise NotCompiled(f"{var}: a uint64_t in a {kind} column")
            self.decline_if(f"put_decimal({builder}, <uint64_t>{var}_s.i)")
        elif kind in RAW_KINDS and f"{var}_s" in self.decls:
            self.decline_if(f"put_scalar({builder}, &{var}_s)")
        elif kind in RAW_KINDS:
            if var in self.stand_ins or var in self.decls:
                raise NotCompiled(f"{var}: no value for a {kind} column")
            self.decline_if(f"put_object({builder}, {var})")  # an expression's Python value
        elif kind in _TIMES and (
            f"{var}_s" in self.decls or (var not in self.stand_ins and var not in self.decls)
        ):  # a Python int (derived), or one read if present: in C where its time fits
            number = f"(<object>{var}_s.i)" if f"{var}_s" in self.decls else var
            value = _PY_TIMES[kind].format(var=number, shift=_TIME_SHIFTS.get(kind, 0))
            fits = f"{-(2**63)} <= {value} <= {2**63 - 1}"
            self.decline_if(
                f"{_TIMES[kind]}({builder}, <int64_t>({value}) if {fits} else 0, {fits})"
            )
        elif kind == "uuid" and self.values.get(var, ("",))[0] == "uuid":
            self.decline_if(f"put_uuid({builder}, {var}_b)")
        elif kind == "enum":
            step = self.numbers.get(var)
            if step is None or not step.enum or step.enum in self.wide_enums:
                raise NotCompiled(f"{var}: an enum column of no enum byte")
            names = f"_{step.enum.upper()}_NAME"
            self.arrow_enums.add(step.enum)
            self.decline_if(f"put_bytes({builder}, {names}[{var}_c], {names}_N[{var}_c], True)")
        elif isinstance(kind, tuple) and kind[0] == "list" and var in self.targets:
            self.decline_if(f"{builder}.close_list()")
        elif isinstance(kind, tuple) and kind[0] == "record" and var in self.builds:
            self.write_columns(kind[1], dict(self.builds[var].fields), builder)
        elif isinstance(kind, tuple) and kind[0] == "record" and var in self.targets:
            self.w.line("pass  # written as it was read")
        else:
            raise NotCompiled(f"{var}: a {kind!r} column")

    def switch_columns(self, var: str, kind, builder: str, fields: dict) -> None:
        """One struct child per case with a payload, only the selected one filled (a
        record written by its call as it was read), and the default's after them."""
        _, selector, cases, default = kind
        step = self.numbers.get(fields.get(selector, ""))
        if step is None or step.var in self.loose:
            raise NotCompiled(f"{var}: a switch on no number read always")
        # an enum's byte, or the number itself (an open enum's)
        code = f"{step.var}_c" if step.enum else step.var
        if not step.enum and self.decls.get(code) not in C_INTS:
            raise NotCompiled(f"{var}: a switch on no C number")
        k = 0
        for value, case_kind in cases:
            if case_kind is None:
                continue
            selected = f"{code} == {value:#x} and {var} is not None"
            if isinstance(case_kind, tuple) and (var, case_kind[1]) in self.called_cases:
                self.w.line(f"if not ({selected}):")
                with self.w.indent():
                    self.w.line(f"{self.case_targets[var][case_kind[1]]}.null()")
                k += 1
                continue
            if case_kind not in RAW_KINDS or f"{var}_s" not in self.decls:
                raise NotCompiled(f"{var}: a {case_kind!r} case")
            child = self.local(f"{builder}_{k}", "Builder", k, builder)
            self.w.line(f"if {selected}:")
            with self.w.indent():
                self.decline_if(f"put_scalar({child}, &{var}_s)")
            self.w.line("else:")
            with self.w.indent():
                self.w.line(f"{child}.null()")
            k += 1
        if default is not None:
            if default not in RAW_KINDS or f"{var}_s" not in self.decls:
                raise NotCompiled(f"{var}: a {default!r} default")
            child = self.local(f"{builder}_{k}", "Builder", k, builder)
            named = " or ".join(f"{code} == {value:#x}" for value, _ in cases)
            self.w.line(f"if {named or 'False'} or {var} is None:")
            with self.w.indent():
                self.w.line(f"{child}.null()")
            self.w.line("else:")
            with self.w.indent():
                self.decline_if(f"put_scalar({child}, &{var}_s)")
        self.w.line(f"{builder}.valid()")
