"""The fast writers of ``layout: serializable`` messages (mysql::serialization), rendered from
the plan the lowering made for their readers (``generator.emit.lowering``, ``_keyed_steps``):
the plan's steps written back, nothing decided again.

- each :class:`~generator.emit.plan.KeyedField`: its id and value when present (a required
  field always; an optional one when it is not None and differs from its ``absent`` value:
  the literal default, or the field a :class:`~generator.emit.plan.Fallback` names);
- :class:`~generator.emit.plan.Rest` (``unknown_fields``, a newer writer's fields): its bytes
  after the known fields, where they came from;
- :class:`~generator.emit.plan.KeyedHeader` in front: the version, the message's size and
  ``last_non_ignorable_field_id``, as ``runtime.formats.serializable.message_head`` writes
  them (a model's own valid values kept), its one-byte form inline.

The bytes are ``runtime.formats.serializable.SerializableMessage``'s build; a value the writer
does not take (not an ``int`` of the width, not a ``str``, ...) raises, and ``build`` writes
the model with construct, so the error is construct's. Like that class's build, the writer
returns the model it was given (what an enclosing record's expressions see of it).
"""

from __future__ import annotations

from generator.emit.plan import Build, FieldSteps, Repeat, Text
from generator.emit.plan_keyed import Fallback, KeyedField, KeyedHeader, MsbNumber, Rest
from generator.emit.pysource import LineWriter
from generator.spec import pytext
from generator.spec.model import Record


class MessageUnsupported(Exception):
    """The message's plan holds a step this writer does not write back."""


class MessageWriters:
    """Writes ``layout: serializable`` messages (a base of
    :class:`generator.emit.fastbuild.BuildEmitter`, whose ``spec`` and ``lowering`` it reads)."""

    def message_function(self, record: Record) -> str:
        """``_write_<record>(model, out)`` from the record's plan; raises
        :class:`MessageUnsupported` (with why) when there is none to write it from."""
        plan = self.lowering.plans.get(record.name)
        if plan is None:
            why = self.lowering.refused.get(record.name, "no plan")
            raise MessageUnsupported(
                f"layout serializable: no plan to write it from ({why}); a record holding it "
                "writes the rest fast"
            )
        steps = plan.steps
        build = next(step for step in steps if isinstance(step, Build))
        names = {var: name for name, var in build.fields}
        """Plan variable -> model key."""
        sources = {step.var: step.source for step in steps if isinstance(step, Fallback)}
        """An absent ``default_from`` field's variable -> the variable of the one it takes."""
        keyed = [step for step in steps if isinstance(step, FieldSteps)]
        known = len(keyed)
        w = LineWriter()
        w.line(
            f'"""Fast build of ``{record.name}``, a mysql::serialization message (its plan written '
            "back): the bytes of ``runtime.formats.serializable``, which builds instead when this "
            'raises."""'
        )
        # the model class's slots read as attributes; another mapping through a namespace
        w.line(f"m = model if model.__class__ is {build.class_name} else rt_fast.Parent(**model)")
        self._open_body(w)
        w.line("lnifid = 0  # one more than the last non-ignorable field written")
        written: set[str] = set()
        header = rest = None
        unknown = next(names[s.var] for s in steps if isinstance(s, Rest))
        for step in steps:
            if isinstance(step, KeyedHeader):
                header = step
            elif isinstance(step, FieldSteps):
                (field_step,) = step.steps
                if not isinstance(field_step, KeyedField):
                    raise MessageUnsupported(f"{step.name}: a {type(field_step).__name__} step")
                field = record.field(step.name)
                comment = f"{field.name} (id {field.id})"
                w.line(pytext.source_comment(self.spec.source.display, field.line, comment))
                last = field_step.id == known - 1
                self._keyed_field(w, field_step, field, names, sources, written, last and unknown)
                written.add(field_step.var)
            elif isinstance(step, Rest):
                rest = step
            elif not isinstance(step, (Fallback, Build)):
                raise MessageUnsupported(f"a {type(step).__name__} step")
        if header is None or rest is None:
            raise MessageUnsupported("a plan without its head or its rest")
        w.line(f'given = getattr(m, "{names[header.lnifid]}", None)')
        w.line(f"if given.__class__ is int and lnifid <= given <= {header.fields}:")
        w.line("    lnifid = given  # the model's own, valid for these fields: kept")
        last_written = "last_written" if keyed and self._last_is_optional(keyed) else known - 1
        w.line(f'unknown = getattr(m, "{names[rest.var]}", None)')
        w.line("if unknown is not None:  # a newer writer's fields, back after the known ones")
        with w.indent():
            self._body_extend(w, f"rt_serializable.unknown_bytes(unknown, {last_written}, {known})")
        w.line(f'given = getattr(m, "{names[header.declared]}", None)')
        w.line(f"size = {self._body_length()} + 3  # version, size and lnifid one byte each")
        one_byte = "size < 128" + (" and lnifid < 128" if header.fields >= 128 else "")
        self._head(w, f"{one_byte} and (given.__class__ is not int or given == size)")
        w.line("return model")
        return f"def _write_{record.name}(model, out):\n" + "\n".join(w.lines)

    # -- where the body goes: a bytearray ``body``, then the head and it appended to ``out``
    # (generator.emit.compiled_messages puts them in the compiled writers' C buffer)

    @staticmethod
    def _open_body(w: LineWriter) -> None:
        w.line("body = bytearray()")

    @staticmethod
    def _body_byte(w: LineWriter, value: str, comment: str = "") -> None:
        w.line(f"body.append({value}){comment}")

    @staticmethod
    def _body_extend(w: LineWriter, data: str, comment: str = "") -> None:
        w.line(f"body += {data}{comment}")

    @staticmethod
    def _body_length() -> str:
        return "len(body)"

    @staticmethod
    def _head(w: LineWriter, one_byte: str) -> None:
        """The message's head (its one-byte form where ``one_byte`` holds), then its body."""
        w.line(f"if {one_byte}:")
        w.line("    out += bytes((0x02, size << 1, lnifid << 1))")
        w.line("else:")
        w.line("    out.append(0x02)  # format version 1")
        w.line("    out += rt_serializable.message_head(1, len(body), lnifid, given)")
        w.line("out += body")

    @staticmethod
    def _last_is_optional(keyed: list[FieldSteps]) -> bool:
        return keyed[-1].steps[0].absent != "required"

    def _keyed_field(self, w, step: KeyedField, field, names, sources, written, last) -> None:
        """The field's id and value; an optional one only when it is present. ``field``:
        the spec's, for its unknown-field policy (which the reader's plan need not say);
        ``last``: for the last known field, the model's key of its unknown fields (which may
        need it written at its default, ``rt_serializable.written_for_unknown``)."""
        var = step.var
        key = f"0x{step.id << 1:02x}" if step.id < 64 else None
        counted = field.unknown_field_policy == "error"
        if step.absent == "required":
            w.line(f"{var} = m.{names[var]}")
            self._field_bytes(w, step, key)
            if counted:
                w.line(f"lnifid = {step.id + 1}")
            return
        if step.absent == "value":
            absent = step.default
        else:  # default_from: the model's value of that field, as construct compares it
            source = sources[var]
            absent = source if source in written else f"m.{names[source]}"
        if last:
            w.line("last_written = -1")
        w.line(f'{var} = getattr(m, "{names[var]}", None)')
        if last:
            w.line(f"if {var} is not None and (")
            w.line(f"    {var} != {absent}")
            w.line(
                f'    or rt_serializable.written_for_unknown(getattr(m, "{last}", None), {step.id + 1})'
            )
            w.line("):")
        else:
            w.line(f"if {var} is not None and {var} != {absent}:")
        with w.indent():
            self._field_bytes(w, step, key)
            if last:
                w.line(f"last_written = {step.id}")
            if counted:
                w.line(f"lnifid = {step.id + 1}")

    def _field_bytes(self, w: LineWriter, step: KeyedField, key: str | None) -> None:
        if key is not None:
            self._body_byte(w, key, f"  # field id {step.id}")
        else:
            self._body_extend(w, f"rt_fast.msb_uvar_bytes({step.id}, 64)", "  # field id")
        self._values(w, step.steps)

    def _values(self, w: LineWriter, steps) -> None:
        """A value's steps written back: varints, a length and its text, a fixed count."""
        pending: MsbNumber | None = None
        for step in steps:
            if isinstance(step, MsbNumber) and step.length:
                pending = step  # written with the text it measures
            elif isinstance(step, MsbNumber):
                self._msb(w, step.var, step.bits, step.signed)
            elif isinstance(step, Text) and pending is not None and step.length == pending.var:
                self._text(w, step)
                pending = None
            elif isinstance(step, Repeat) and step.until == "count" and step.steps:
                if step.steps == (MsbNumber(step.item, 8, step.end),):
                    self._uint8s(w, step)
                    continue
                w.line(f"if len({step.var}) != {step.count}:")
                w.line('    raise ValueError("count")')
                w.line(f"for {step.item} in {step.var}:")
                with w.indent():
                    self._values(w, step.steps)
            else:
                raise MessageUnsupported(f"a {type(step).__name__} step in a value")
        if pending is not None:
            raise MessageUnsupported("a length without its text")

    def _uint8s(self, w: LineWriter, step: Repeat) -> None:
        """A fixed count of uint8s, iterated as construct does: bytes() takes ints 0..255
        as construct does (but bools, which construct refuses); each from a table. A list
        or tuple only, as construct takes them (``runtime.core.codec.list_from_json``)."""
        self._list_only(w, step.var)
        w.line(f"if len({step.var}) != {step.count}:")
        w.line('    raise ValueError("count")')
        items = w.fresh("items")
        w.line(f"{items} = list({step.var})")
        w.line(f"if bool in map(type, {items}):")
        w.line('    raise TypeError("bool")')
        w.line(f"body += b''.join(map(_MSB_U8, bytes({items})))")
        self.constant("_MSB_U8", "rt_fast.MSB_U8.__getitem__")

    @staticmethod
    def _list_only(w: LineWriter, var: str) -> None:
        """Bytes, a range or a str iterate as items too: construct refuses them."""
        w.line(f"if not isinstance({var}, (list, tuple)):")
        w.line('    raise TypeError("a list")')

    @staticmethod
    def _msb(w: LineWriter, var: str, bits: int, signed: bool, length: bool = False) -> None:
        """An msb-count varint (``runtime.core.msbvarint``), its one-byte form inline;
        ``length``: a byte count, an int."""
        low, high = (-64, 64) if signed else (0, 128)
        typed = "" if length else f"{var}.__class__ is int and "
        w.line(f"if {typed}{low} <= {var} < {high}:")
        if signed:  # zigzag, then the value above the one-byte marker
            w.line(f"    body.append({var} << 2 if {var} >= 0 else (-{var} << 2) - 2)")
        else:
            w.line(f"    body.append({var} << 1)")
        w.line("else:")
        helper = "msb_svar_bytes" if signed else "msb_uvar_bytes"
        w.line(f"    body += rt_fast.{helper}({var}, {bits})")

    def _text(self, w: LineWriter, step: Text) -> None:
        """``rt.LengthPrefixedBytes`` after an msb varint length, as it builds."""
        if step.fixed is not None or step.pad or step.signed:
            raise MessageUnsupported("a fixed, padded or signed text")
        data = w.fresh("data")
        if step.kind == "str":
            w.line(f"if not isinstance({step.var}, str):")
            w.line('    raise TypeError("text")')
            w.line(f"{data} = {step.var}.encode({step.encoding!r})")
        else:
            w.line(f"if not isinstance({step.var}, (bytes, bytearray)):")
            w.line('    raise TypeError("bytes")')
            w.line(f"{data} = bytes({step.var})")
        if step.max_length is not None:
            w.line(f"if len({data}) > {step.max_length}:")
            w.line('    raise ValueError("max_length")')
        length = w.fresh("n")
        w.line(f"{length} = len({data})")
        self._msb(w, length, 64, False, length=True)
        w.line(f"body += {data}")
