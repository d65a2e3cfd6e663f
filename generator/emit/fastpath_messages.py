"""The fast readers of ``layout: serializable`` messages (mysql::serialization): the exact
reader of a message's keyed fields, and its common form (``_read_<record>_common``): the
usual layout read in one pass, anything else handed to the exact reader."""

from __future__ import annotations

from generator.emit.pysource import LineWriter, decode_call
from generator.spec import pytext
from generator.spec.model import Field, Record, camel
from generator.spec.types import PRIMITIVES
from runtime.core.fast import GROUPED_ARRAY_MAX


class MessageReaders:
    """Reads ``layout: serializable`` messages (a base of
    :class:`generator.emit.fastpath.FastPathEmitter`, whose state and other parts it uses)."""

    def message_function(self, record: Record) -> str:
        """A ``layout: serializable`` record: ``runtime.formats.serializable.SerializableMessage``
        (top level: version 1, size, lnifid, then the present fields by id) unrolled."""
        w = LineWriter()
        w.line(
            f'"""Fast path of ``{record.name}``, a mysql::serialization message: the model and '
            'errors of ``runtime.formats.serializable``."""'
        )
        w.line("# No depth check: construct's SerializableMessage does not count nesting.")
        w.line("start = pos")
        self.msb(w, "version", 64, False, "format version")
        w.line("if version != 1:")
        with w.indent():
            w.line(
                'raise DecodeError(f"format version (top-level id) is {version}, expected 1", '
                "offset=start)"
            )
        w.line("size_at = pos")
        self.msb(w, "declared", 64, False, "serializable_field_size", as_is=True)
        w.line("lnifid_at = pos")
        self.msb(w, "lnifid", 64, False, "last_non_ignorable_field_id", as_is=True)
        n = len(record.fields)
        w.line(f"if lnifid > {n}:")
        with w.indent():
            w.line(
                'raise DecodeError(f"last_non_ignorable_field_id is {lnifid}: the writer has a '
                "non-ignorable field {lnifid - 1}, "
                f'this reader knows fields 0..{n - 1} only", offset=lnifid_at)'
            )
        w.line("# The message is the rest of the input: the true length or MySQL's formula.")
        w.line(
            "if declared != end - start and declared != rt_fast.mysql_size("
            "size_at - start, pos - lnifid_at, end - pos):"
        )
        with w.indent():
            w.line(
                'raise DecodeError(f"serializable_field_size is {declared} but the message has '
                '{end - start} bytes", offset=size_at)'
            )
        w.line("if not rt_fast.msb_head_as_built(")
        w.line("    declared, lnifid, lnifid_at - size_at, pos - lnifid_at, end - start")
        w.line("):")
        w.line("    rt_kept.note()  # a header build writes otherwise")
        for field in record.fields:
            w.line(
                pytext.source_comment(
                    self.spec.source.display, field.line, f"{field.name} (id {field.id})"
                )
            )
            w.line("at = pos")
            w.line("present = False")
            w.line("if pos < end:")
            with w.indent():
                if field.id < 64:
                    w.line(f"if buf[pos] == 0x{2 * field.id:02x}:")
                    with w.indent():
                        w.line("pos += 1")
                        w.line("present = True")
                    w.line("else:")
                    with w.indent():
                        w.line(f"present, pos = rt_fast.msb_field_id(buf, pos, end, {field.id})")
                else:
                    w.line(f"present, pos = rt_fast.msb_field_id(buf, pos, end, {field.id})")
            w.line("if present:")
            with w.indent():
                w.line("try:")
                with w.indent():
                    self.field_body(w, field, f"f_{field.name}")
                w.line("except DecodeError as err:")
                with w.indent():
                    w.line(f"err.add_path({field.name!r})")
                    w.line("raise")
                if field.unknown_field_policy == "error":
                    w.line(f"if lnifid <= {field.id}:  # build writes a larger one")
                    w.line("    rt_kept.note()")
            w.line("else:")
            with w.indent():
                if field.has_default or field.default_from:
                    w.line(f"f_{field.name} = None  # resolved below")
                else:
                    w.line(
                        f'raise DecodeError("required field {field.id} is missing", '
                        f"offset=at, path={field.name!r})"
                    )
        w.line("# Fields this reader does not know (a newer writer's): kept as they came.")
        w.line("unknown = bytes(buf[pos:end]) if pos < end else None")
        last = record.fields[-1]
        for field in record.fields:
            if not (field.default_from or field.has_default):
                continue
            absent = f"f_{field.default_from}" if field.default_from else repr(field.default)
            w.line(f"if f_{field.name} is None:")
            w.line(f"    f_{field.name} = {absent}")
            # written at its default: build leaves it out (but for unknown fields that need it)
            needed = f" and not rt_serializable.written_for_unknown(unknown, {len(record.fields)})"
            w.line(f"elif f_{field.name} == {absent}{needed if field is last else ''}:")
            w.line("    rt_kept.note()")
        args = ", ".join(["declared", "lnifid"] + [f"f_{f.name}" for f in record.fields])
        w.line(f"model = {camel(record.name)}({args}, unknown)")
        w.line("return model, end")
        if not self.message_common_supported(record):
            return self.signature(record) + "\n" + "\n".join(w.lines)
        exact = f"def _read_{record.name}_exact(buf, pos, end, limits, depth):"
        return self.message_common_function(record) + "\n\n" + exact + "\n" + "\n".join(w.lines)

    def message_common_supported(self, record: Record) -> bool:
        """Whether every field of the message has a common form that
        :meth:`message_common_function` reads: an id below 64 (one byte), then an msb
        varint, a fixed count of unsigned ones, or a string or bytes with a length."""
        return all(self._common_field(field) for field in record.fields)

    def _common_field(self, field: Field) -> bool:
        ref = field.type
        if field.id >= 64 or ref.enum or field.const is not None:
            return False
        if ref.kind in ("str", "bytes"):
            return (
                field.repeat is None
                and ref.size_is_prefix
                and str(ref.size).startswith("msb_uvarint")
            )
        if not self.is_msb(ref):
            return False
        return field.repeat is None or (
            isinstance(field.repeat, dict)
            and isinstance(field.repeat.get("count"), int)
            and not PRIMITIVES[ref.name].signed
        )

    def message_common_function(self, record: Record) -> str:
        """``_read_<message>``, which reads the message in its common form: version 1, the
        size its true length, every field id in its one-byte form and in order, varints
        of at most 8 bytes, string lengths of one byte, no unknown field, within the
        limits. It reads without bounds checks; at the first thing outside that form (a
        byte read past ``end`` included: ``pos`` ends beyond ``end`` then) it hands the
        message to ``_read_<message>_exact``, which reads it again from the start and
        gives the model or the error. Where it gives a model, that is the exact reader's."""
        self.exact_call = f"return _read_{record.name}_exact(buf, start, end, limits, depth)"
        w = LineWriter()
        w.line(f'"""Fast path of ``{record.name}``, a mysql::serialization message, in its')
        w.line("common form (version 1, its true size, every field id in one byte and in order,")
        w.line("varints of at most 8 bytes, one-byte string lengths, no unknown field, within the")
        w.line("limits), read without bounds checks; anything else (a read past ``end`` too: it")
        w.line(f'leaves ``pos`` beyond ``end``) by ``_read_{record.name}_exact``."""')
        w.line("start = pos")
        w.line("try:")
        with w.indent():
            w.line("if buf[pos] != 0x02:  # format version 1")
            with w.indent():
                self.uncommon(w)
            self.msb_common(w, "declared", 64, False)
            w.line("if declared != end - start:")
            with w.indent():
                self.uncommon(w)
            w.line("lnifid = buf[pos]")
            w.line(f"if lnifid & 1 or lnifid > {2 * len(record.fields)}:")
            with w.indent():
                self.uncommon(w)
            w.line("lnifid >>= 1")
            w.line("pos += 1")
            for field in record.fields:
                self.message_common_field(w, record, field)
            w.line("if pos != end:")
            with w.indent():
                self.uncommon(w)
        w.line("except (IndexError, UnicodeDecodeError):  # read past the buffer; bad text")
        with w.indent():
            self.uncommon(w)
        for field in record.fields:
            if field.default_from:
                w.line(f"if f_{field.name} is None:")
                with w.indent():
                    w.line(f"f_{field.name} = f_{field.default_from}")
                w.line(f"elif f_{field.name} == f_{field.default_from}:  # written at its default")
                with w.indent():
                    self.uncommon(w)
        args = ", ".join(["declared", "lnifid"] + [f"f_{f.name}" for f in record.fields])
        w.line(f"return {camel(record.name)}({args}), end")
        return self.signature(record) + "\n" + "\n".join(w.lines)

    def uncommon(self, w: LineWriter) -> None:
        """Leave the common form: the exact reader reads the message from its start."""
        w.line(self.exact_call)

    def message_common_field(self, w: LineWriter, record: Record, field: Field) -> None:
        var = f"f_{field.name}"
        id_byte = f"0x{2 * field.id:02x}"
        w.line(
            pytext.source_comment(
                self.spec.source.display, field.line, f"{field.name} (id {field.id})"
            )
        )
        optional = field.has_default or field.default_from
        if optional:
            w.line(f"if pos < end and buf[pos] == {id_byte}:")
            w.depth += 1
        else:
            w.line(f"if buf[pos] != {id_byte}:")
            with w.indent():
                self.uncommon(w)
        ref = field.type
        if ref.kind in ("str", "bytes"):
            n = w.fresh("n")
            w.line(f"{n} = buf[pos + 1]")
            bound = 2 * ref.max_length if ref.max_length is not None else None
            w.line(f"if {n} & 1{f' or {n} > {bound}' if bound is not None else ''}:")
            with w.indent():
                self.uncommon(w)
            w.line(f"{n} >>= 1")
            w.line(f"if {n} > limits.max_string:")
            with w.indent():
                self.uncommon(w)
            decode = decode_call(ref.encoding) if ref.kind == "str" else ""
            w.line(f"{var} = buf[pos + 2 : pos + 2 + {n}]{decode}")
            w.line(f"pos += 2 + {n}")
        elif field.repeat is not None:
            count = field.repeat["count"]
            arr = w.fresh("arr")
            w.line(f"if {count} > limits.max_count:")
            with w.indent():
                self.uncommon(w)
            bits = PRIMITIVES[ref.name].bits
            if count <= GROUPED_ARRAY_MAX and bits >= 7:
                array = f"_ARRAY_{field.name}_In_{record.name}"
                self.msb_arrays[array] = (count, bits)
                last, values = w.fresh("last"), w.fresh("values")
                w.line("# the array read last first (a binlog's events share their UUID):")
                w.line("# the same bytes are the same elements")
                w.line(f"{last}, {values} = {array}.last")
                w.line(f"if buf.startswith({last}, pos + 1):")
                with w.indent():
                    w.line(f"{var} = list({values})")
                    w.line(f"pos += 1 + len({last})")
                w.line("else:")
                with w.indent():
                    w.line(f"{arr} = {array}.match(buf, pos + 1, end)")
                    w.line(f"if {arr} is None:")
                    with w.indent():
                        self.uncommon(w)
                    w.line(f"{var} = list(map({array}.value, {arr}.groups()))")
                    w.line(f"pos = {arr}.end()")
                    w.line(f"{array}.last = ({arr}.group(), tuple({var}))")
            else:
                w.line(f"{arr} = rt_fast.msb_uvar_array(buf, pos + 1, end, {count}, {bits})")
                w.line(f"if {arr} is None:")
                with w.indent():
                    self.uncommon(w)
                w.line(f"{var}, pos = {arr}")
        else:
            p = PRIMITIVES[ref.name]
            self.msb_common(w, var, p.bits, p.signed)
        if field.has_default:
            w.line(f"if {var} == {field.default!r}:  # written at its default")
            with w.indent():
                self.uncommon(w)
        if field.unknown_field_policy == "error":  # build writes a larger lnifid
            w.line(f"if lnifid <= {field.id}:")
            with w.indent():
                self.uncommon(w)
        if optional:
            w.depth -= 1
            w.line("else:")
            with w.indent():
                if field.default_from:
                    w.line(f"{var} = None  # resolved below")
                else:
                    w.line(f"{var} = {field.default!r}")

    def msb_common(self, w: LineWriter, var: str, bits: int, signed: bool) -> None:
        """An msb varint at ``pos + 1`` (after a one-byte id or version) without bounds
        checks (see :meth:`message_common_function`); the 9-byte form, values wider
        than ``bits`` and forms longer than the shortest go to the exact reader."""
        first = w.fresh("b")
        w.line(f"{first} = buf[pos + 1]")
        w.line(f"if not {first} & 1:")
        with w.indent():
            # a table instead of the arithmetic: signed values are mostly small
            w.line(f"{var} = _MSB_ZIGZAG1[{first}]" if signed else f"{var} = {first} >> 1")
            w.line("pos += 2")
        if bits >= 14:  # every 2-byte value fits
            w.line(f"elif {first} & 3 == 1:")
            with w.indent():
                w.line(f"{var} = ({first} | buf[pos + 2] << 8) >> 2")
                w.line(f"if {var} < 0x80:  # not the shortest form")
                with w.indent():
                    self.uncommon(w)
                if signed:
                    w.line(f"{var} = ({var} >> 1) ^ -({var} & 1)")
                w.line("pos += 3")
        w.line("else:")
        with w.indent():
            n = w.fresh("n")
            w.line(f"{n} = _MSB_LENGTH[{first}]")
            w.line(f"if {n} == 9:")
            with w.indent():
                self.uncommon(w)
            w.line(f'{var} = int.from_bytes(buf[pos + 1 : pos + 1 + {n}], "little") >> {n}')
            w.line(f"if {var} < _MSB_SHORTEST[{n}]:  # a shorter form holds it")
            with w.indent():
                self.uncommon(w)
            if bits < 56:
                w.line(f"if {var} >> {bits}:")
                with w.indent():
                    self.uncommon(w)
            if signed:
                w.line(f"{var} = ({var} >> 1) ^ -({var} & 1)")
            w.line(f"pos += 1 + {n}")
        self.uses_msb_length = True
        self.uses_msb_zigzag |= signed
