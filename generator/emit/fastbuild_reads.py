"""A fast writer's reads of its own record's fields: attributes of the record's model class.

The writers read a field as ``model["name"]`` (or ``model.get("name")``), which takes a
dict as well as a model; on a model that is ``Model.__getitem__``, a Python call around
``getattr`` (about 30 times an attribute read of a ``slots=True`` dataclass). Where the
model is of the record's own class, the field is read as its attribute instead; anything
else is read as before. The compiled writers read the same fields as slots
(``generator.emit.compiled_writers``)."""

from __future__ import annotations

import keyword
import re

_MODEL_READ = re.compile(r"\bmodel(\[|\.get\()\"(\w+)\"[\])]")
"""``model["name"]`` and ``model.get("name")`` in a rendered line."""


def attribute_reads(cls: str, body: str) -> str:
    """A writer's body (its docstring first) with the fields read as attributes of ``cls``.

    >>> print(attribute_reads("Point", '    "Doc."\\n    f_x = model["x"]'))
        "Doc."
        attributes = type(model) is Point
        f_x = model.x if attributes else model["x"]
    """
    if not _MODEL_READ.search(body):
        return body

    def read(match: re.Match) -> str:
        name, item = match.group(2), match.group(0)
        if keyword.iskeyword(name):  # no attribute of that name: as it was
            return item
        if match.group(1) == "[":
            return f"(model.{name} if attributes else {item})"
        return f'(getattr(model, "{name}", None) if attributes else {item})'

    doc, rest = body.split("\n", 1)
    rest = _MODEL_READ.sub(read, rest)
    rest = re.sub(
        r"= \((model\.\w+ if attributes else model\[\"\w+\"\])\)$",
        r"= \1",
        rest,
        flags=re.MULTILINE,
    )
    return f"{doc}\n    attributes = type(model) is {cls}\n{rest}"


class AttributeReads:
    """The fast writers' hook: :func:`attribute_reads` of each record's writer."""

    def model_reads(self, cls: str, body: str) -> str:
        return attribute_reads(cls, body)
