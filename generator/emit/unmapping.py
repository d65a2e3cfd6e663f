"""The way back of a record's ``map:`` (:mod:`generator.spec.unmapping`) as three functions
of the generated module, ``UNMAPPINGS[record]`` (a :class:`runtime.core.unmap.WayBack`):

- ``_unmap_<record>(model, fail, kinds) -> (estimate, header row, body)``: one model as
  the parts of its element, every field checked as the class writes it (``fail(path,
  problem, value)``: the quick path gives up, the checked path raises the EncodeError at
  that path of the model; ``kinds``: the values' ``runtime.core.value_kinds.ValueKinds``);
- ``_frame_<record>(parts, fail)``: the source record of the parts of one batch (names not
  yet interned: the dictionary's ``interned:`` order does it), after the ``batch:``
  messages' rules;
- ``_batch_<record>(models, writer, <limits>)``: the ``batch:``, the models in order as
  batches (``writer``: the runtime's ``parts``, ``pack`` and compiled ``batches``).
"""

from __future__ import annotations

from generator.spec.batching import Batch
from generator.spec.model import Record
from generator.spec.unmapping import I64, U64, WayBack, WriteCheck, WriteClass, WriteGroups


def _check(check: WriteCheck, local: str, path: str, shown: str) -> list[str]:
    """The lines that check ``local`` before it is written (``shown``: the value the
    message quotes) and call ``fail`` on a fault."""
    if check.kind in ("uint64", "int64", "uvarint"):
        low, high = (0, U64) if check.kind != "int64" else (-I64, I64 - 1)
        test = f"type({local}) is not int or not {low} <= {local} <= {high}"
        if check.kind == "uvarint":
            return [f"if {test}:", f"    fail({path}, rt_leb128.write_uvarint, ({local},))"]
        return [f"if {test}:", f"    fail({path}, {check.message!r}, {shown})"]
    test = f"not isinstance({local}, str)"
    if check.nullable:
        test = f"{local} is not None and {test}"
    return [f"if {test}:", f"    fail({path}, {check.message!r}, {shown})"]


class _Renderer:
    def __init__(self, spec, record: Record):
        self.spec, self.record, self.back = spec, record, record.mapping.way_back
        self.mapping = record.mapping

    def where(self, line) -> str:
        return f"{self.spec.source.display}:{line}"

    def unmap(self) -> list[str]:
        back: WayBack = self.back
        m, name = self.mapping, self.record.name
        lines = [
            f"def _unmap_{name}(model, fail, kinds):",
            f'    """{self.where(m.line)}: the way back of the map: of {name}: one model ->',
            (
                f"    the parts of its element of {m.source}.{m.each}: (estimate, {back.header_field}"
                " row, body),"
            ),
            "    each field checked as its class writes it.",
            "",
            "    ``fail(path, problem, value)`` raises (quick path: give up; checked path: the",
            "    EncodeError at that path of the model, ``problem`` its message or the writer",
            "    whose error it is) or returns what that writer makes of ``value`` when it",
            '    accepts it after all (a numpy integer, a bytearray)."""',
        ]
        for n, cls in enumerate(back.classes):
            test = f"{'if' if n == 0 else 'elif'} isinstance(model, rt_{cls.module}.{cls.model}):"
            lines.append(f"    {test}  # {cls.member}, {self.where(cls.line)}")
            lines += ["        " + line for line in self.write_class(cls)]
        lines.append(f"    return fail((), {back.message!r}, model)")
        return lines

    def write_class(self, cls: WriteClass) -> list[str]:
        lines = []
        for field in cls.fields:
            lines.append(f"{field.name} = model.{field.name}")
            path = f"({field.name!r},)"
            if field.value is None:
                lines += _check(field.check, field.name, path, field.name)
                continue
            written = f"{field.name}_written"
            lines.append(f"{written} = {field.value}")
            test = _check(field.check, written, path, field.name)[0][3:-1]
            tests = [test, *(f"not ({rule})" for rule in field.rules)]
            tests.append(f"({field.read}) != {field.name}")
            lines.append("if (")
            lines += [f"    {'or ' if n else ''}{t}" for n, t in enumerate(tests)]
            lines += ["):", f"    fail({path}, {field.check.message!r}, {field.name})"]
        lines.append(f"estimate = {cls.estimate}")
        if cls.groups is not None:
            lines += self.write_groups(cls.groups)
        header = ", ".join(cls.header)
        body = ", ".join(f"{name}={value}" for name, value in cls.body.items())
        lines.append(f"return estimate, ({header}), rt.Container({body})")
        return lines

    def write_groups(self, gr: WriteGroups) -> list[str]:
        into = ", ".join(f"({value}, {field!r}, model.{field})" for value, field in gr.into)
        chunk_lists = ", ".join(f"group_{chunk}" for chunk in gr.chunks.values())
        local = {field: f"column_{field}" for field in gr.chunks}
        value_args = f"{local[gr.code]}, {local[gr.flags]}, column.{gr.value}"
        lines = [
            f"{gr.model.lower()}_model = rt_{gr.module}.{gr.model}",
            "quick_encode, unsure = kinds.quick_encode, rt_value_kinds.UNSURE",
            "body_groups = []",
            f"for by, field, columns in ({into}):",
            "    if columns is None:",
            "        continue",
            "    if type(columns) is not list and not isinstance(columns, list | tuple):",
            '        fail((field,), "expected a list, got {got}", columns)',
            f"    {chunk_lists} = {', '.join('[]' for _ in gr.chunks)}",
            "    for j, column in enumerate(columns):",
            f"        if not isinstance(column, {gr.model.lower()}_model):",
            f"            fail((field, j), {gr.model_message!r}, column)",
            f"        if not isinstance(column.{gr.name}, str):  # named at the name",
            f'            fail((field, j, {gr.name!r}), "expected str, got {{got}}", column.{gr.name})',
        ]
        for field in gr.chunks:
            if field != gr.value:
                lines.append(f"        {local[field]} = column.{field}")
        code = local[gr.code]  # the kinds' table is looked up by it: a list is unhashable
        lines += [
            f"        if {code}.__class__ is not int and not isinstance({code}, int):",
            f'            fail((field, j, {gr.code!r}), "expected an integer, got {{got}}", {code})',
        ]
        for field, check in gr.checked:
            path = f"(field, j, {field!r})"
            lines += ["        " + line for line in _check(check, local[field], path, local[field])]
        lines += [
            f"        {local[gr.value]} = quick_encode({value_args})",
            f"        if {local[gr.value]} is unsure:",
            (
                f"            {local[gr.value]} = fail((field, j, {gr.value!r}), kinds.encode, "
                f"({value_args}))"
            ),
            f"        estimate += {self.back.column_estimate}",
        ]
        lines += [
            f"        group_{chunk}.append({local[field]})" for field, chunk in gr.chunks.items()
        ]
        group = ", ".join([f"{gr.by}=by", *(f"{c}=group_{c}" for c in gr.chunks.values())])
        lines += [
            f"    body_groups.append(rt.Container({group}))",
            "if not body_groups:",
            f"    fail((), {gr.empty_message!r}, model)",
        ]
        return lines

    def frame(self) -> list[str]:
        back, m, name = self.back, self.mapping, self.record.name
        kind = back.header.index(m.class_by[1])
        alone = repr(tuple(back.batch.alone))
        header = ", ".join(f"{chunk}=chunks[{n}]" for n, chunk in enumerate(back.header))
        return [
            f"def _frame_{name}(parts, fail):",
            f'    """{self.where(back.batch.line)}: the {m.source} of the parts of a batch (names not yet',
            "    interned), after the batch:'s rules: at least one model, and a model of an",
            '    alone: class alone."""',
            "    if not parts:",
            f"        fail((), {back.empty_message!r}, None)",
            "    if len(parts) > 1:",
            "        for part in parts:",
            f"            if part[1][{kind}] in {alone}:",
            f"                fail((), {back.alone_message!r}, None)",
            "    chunks = [list(chunk) for chunk in zip(*[part[1] for part in parts])]",
            f"    {back.header_field} = rt.Container({header})",
            (
                f"    return rt.Container({back.header_field}={back.header_field}, "
                f"{m.each}=[part[2] for part in parts])"
            ),
        ]

    def batch(self) -> list[str]:
        kind = self.back.header.index(self.mapping.class_by[1])
        where = self.where(self.back.batch.line)
        return render_batch(self.record.name, where, self.back.batch, f"part[1][{kind}]", "part[0]")


def render_batch(name: str, where: str, batch: Batch, class_of: str, estimate: str) -> list[str]:
    """``_batch_<name>(models, writer, <limits>)``, the lines of a ``batch:``
    (:mod:`generator.spec.batching`): ``class_of`` and ``estimate`` are Python over a
    model's ``part`` (what ``writer.parts(i, model)`` gives), its class's value and its
    estimate; ``where`` the spec's file:line."""
    (count, count_default), (size, size_default) = batch.limits
    alone, start = repr(tuple(batch.alone)), batch.start
    opens = batch.exceeding == "opens"
    exceeding = [f"    {size} (the model that exceeds it ends its batch); a model of an alone:"]
    if opens:
        exceeding = [
            f"    {size} (a model that would exceed it, or find the batch full, opens the",
            "    next one); a model of an alone:",
        ]
    lines = [
        (f"def _batch_{name}(models, writer, {count}={count_default}, {size}={size_default}):"),
        f'    """{where}: the batch: of {name}: the models in order, as the',
        f"    bytes of batches of at most {count} models whose estimate is at most",
        *exceeding,
        "    class is a batch of its own, the pending ones written first. ``writer``: the",
        "    runtime's ``parts(i, model)``, ``pack(parts)`` and ``batches(models, *limits)``",
        '    (the compiled tier\'s answer, or None)."""',
    ]
    if batch.positive:
        lines += [
            f"    if {' or '.join(f'{limit} < 1' for limit in batch.positive)}:",
            f'        raise rt.EncodeError("{" and ".join(batch.positive)} must be positive")',
        ]
    lines += [
        f"    messages = writer.batches(models, {count}, {size})",
        "    if messages is not None:",
        "        yield from messages",
        "        return",
        "    parts, pack = writer.parts, writer.pack",
        "    batch = []",
        f"    estimate = {start}",
        "    for i, model in enumerate(models):",
        "        part = parts(i, model)",
        f"        if {class_of} in {alone}:",
        "            if batch:",
        "                yield pack(batch)",
        f"                batch, estimate = [], {start}",
        "            yield pack([part])",
        "            continue",
    ]
    if batch.too_large is not None or opens:
        lines.append(f"        size = {estimate}")
        estimate = "size"
    if batch.too_large is not None:
        alone_size = f"{start} + size" if start != "0" else "size"
        lines += [
            f"        if {alone_size} > {size}:",
            f'            message = {batch.too_large!r}.replace("{{size}}", str({alone_size}))',
            f'            message = message.replace("{{limit}}", str({size}))',
            '            raise rt.EncodeError(message, path=f"events[{i}]")',
        ]
    if opens:
        lines += [
            f"        if batch and (len(batch) >= {count} or estimate + size > {size}):",
            "            yield pack(batch)",
            f"            batch, estimate = [], {start}",
            "        batch.append(part)",
            "        estimate += size",
        ]
    else:
        lines += [
            "        batch.append(part)",
            f"        estimate += {estimate}",
            f"        if estimate > {size} or len(batch) >= {count}:",
            "            yield pack(batch)",
            f"            batch, estimate = [], {start}",
        ]
    return lines + ["    if batch:", "        yield pack(batch)"]


def render_way_back(spec, record: Record) -> str:
    """The source text of ``record``'s way back: ``_unmap_``, ``_frame_`` and ``_batch_``."""
    r = _Renderer(spec, record)
    return "\n\n\n".join("\n".join(lines) for lines in (r.unmap(), r.frame(), r.batch()))


def way_backs(records) -> list[Record]:
    """The records whose ``map:`` has a way back (``batch:``), in spec order."""
    return [r for r in records.values() if r.mapping is not None and r.mapping.way_back]
