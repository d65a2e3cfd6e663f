"""Loading a spec file: YAML with line numbers, then JSON Schema validation.

Every error names the file, the line and the key path:

    specs/plainbuffer.yaml:42: records.cell.fields[1].type: unknown type 'int33'

:func:`load` returns the plain data plus a :class:`Lines` index; the model builder
(:mod:`generator.spec.validate`) uses the same index for its semantic errors.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from pathlib import Path

import jsonschema
import yaml

from generator.spec import names
from runtime.core.errors import SpecError, did_you_mean

SCHEMA_PATH = Path(__file__).with_name("spec.schema.json")
PATTERN_WORDS = {
    "^[a-z][a-z0-9_]*$": "a name: lower-case letters, digits and _, from a letter",
    "^[a-z_][a-z0-9_]*$": "a name: lower-case letters, digits and _",
    "^[A-Z][A-Za-z0-9]*$": "a class name: letters and digits, from a capital",
    "^([0-9a-f]{2}){1,16}$": "hex bytes: 1 to 16 pairs of 0-9 a-f",
}
"""spec.schema.json's patterns as a spec writer reads them (the others: the pattern)."""


def _is_integer(checker, instance) -> bool:
    """JSON Schema's integer, without 1.0 (a float) and True (a bool)."""
    return type(instance) is int


@functools.cache
def _validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA_PATH.read_text())
    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine("integer", _is_integer)
    return jsonschema.validators.extend(base, type_checker=checker)(schema)


_PLAIN_KEY = re.compile(r"[A-Za-z0-9_]+")


def key_path(parts) -> str:
    """``("records", "cell", "fields", 1, "type")`` -> ``records.cell.fields[1].type``;
    a key that is not a plain word is quoted (``records['a b']``), so the path is one line."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and _PLAIN_KEY.fullmatch(part):
            out += ("." if out else "") + part
        else:
            out += f"[{part!r}]"
    return out


class Lines:
    """The source line of every key path in a YAML document."""

    def __init__(self, file: str):
        self.file = file
        self._lines: dict[tuple, int] = {}

    def record(self, parts: tuple, line: int, keep: bool = False) -> None:
        """``keep``: a line already recorded for ``parts`` stays."""
        if keep:
            self._lines.setdefault(parts, line)
        else:
            self._lines[parts] = line

    def line(self, parts) -> int | None:
        parts = tuple(parts)
        while parts not in self._lines and parts:
            parts = parts[:-1]
        return self._lines.get(parts)

    def error(self, parts, message: str) -> SpecError:
        return SpecError(message, file=self.file, line=self.line(parts), key=key_path(parts))


def _construct(node, parts: tuple, lines: Lines):
    """A scalar (or key) node's value; only YAML's safe types (no ``!!python/...`` tags)."""
    try:
        # constructed from the composed node: serialising and re-reading each scalar made
        # big specs (Hive's metastore) take seconds
        value = yaml.constructor.SafeConstructor().construct_object(node, deep=True)
        if isinstance(value, str):
            value.encode("utf-8")  # a "\ud800" escape makes a lone surrogate: not text
    except (yaml.YAMLError, UnicodeEncodeError) as err:
        problem = getattr(err, "problem", None) or getattr(err, "reason", None) or str(err)
        raise SpecError(
            f"not valid YAML: {problem.splitlines()[0]}",
            file=lines.file,
            line=node.start_mark.line + 1,
            key=key_path(parts),
        ) from None
    return value


def _to_python(node, parts: tuple, lines: Lines):
    lines.record(parts, node.start_mark.line + 1, keep=True)  # a key's line, not its value's
    if isinstance(node, yaml.MappingNode):
        out = {}
        for key_node, value_node in node.value:
            key = _construct(key_node, parts, lines)
            if (key is None or isinstance(key, bool)) and key_node.style is None:
                raise SpecError(
                    f"the key {key_node.value} reads as YAML's {'null' if key is None else key}"
                    f", not as text: quote it ('{key_node.value}': ...)",
                    file=lines.file,
                    line=key_node.start_mark.line + 1,
                    key=key_path(parts),
                )
            if key in out:  # at the second: the one to delete, most often the one just added
                raise SpecError(
                    f"duplicate key {key!r} (first at line {lines.line(parts + (key,))})",
                    file=lines.file,
                    line=key_node.start_mark.line + 1,
                    key=key_path(parts + (key,)),
                )
            lines.record(parts + (key,), key_node.start_mark.line + 1)
            out[key] = _to_python(value_node, parts + (key,), lines)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_to_python(item, parts + (i,), lines) for i, item in enumerate(node.value)]
    return _construct(node, parts, lines)


class LoadedSpec:
    """The validated YAML of one spec, with its path, sha256 and line index."""

    def __init__(self, path: Path, display: str, text: str, data: dict, lines: Lines):
        self.path, self.display, self.text, self.data, self.lines = path, display, text, data, lines
        self.sha256 = hashlib.sha256(text.encode()).hexdigest()


def load(path: Path, display: str | None = None) -> LoadedSpec:
    """Read, parse and schema-validate one spec file."""
    display = display or str(path)
    return load_text(read_text(path, display), path, display)


def read_text(path: Path, display: str) -> str:
    """A spec's (or an IDL's) text; a file that cannot be read or is not UTF-8 is a
    :class:`SpecError` naming ``display``."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError as err:
        raise SpecError(f"cannot read: {err.strerror or err}", file=display) from None
    except UnicodeDecodeError as err:
        raise SpecError(f"not UTF-8 text (byte {err.start})", file=display) from None


def load_text(text: str, path: Path, display: str | None = None) -> LoadedSpec:
    """:func:`load` of a spec's text already read (``path``: where it came from, for the
    files it names beside it, such as Thrift's protocol spec)."""
    display = display or str(path)
    lines = Lines(display)
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        problem = str(getattr(err, "problem", err))
        raise SpecError(
            f"not valid YAML: {problem}{_yaml_context(err)}{_yaml_hint(problem)}",
            file=display,
            line=mark.line + 1 if mark else None,
        ) from None
    if node is None:
        raise SpecError("empty spec", file=display, line=1)
    data = _to_python(node, (), lines)
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        # The deepest error; at one depth a misspelt key before the key it misses.
        err = _within_alternative(
            min(
                errors,
                key=lambda e: (-len(e.absolute_path), e.validator != "additionalProperties"),
            )
        )
        parts = list(err.absolute_path)
        if err.validator == "additionalProperties":
            known = err.schema.get("properties", {})
            unknown = sorted(set(err.instance) - set(known))
            parts.append(unknown[0])
            hint = did_you_mean(unknown[0], sorted(set(known) - set(err.instance)))
            if _split_by_a_comma(err.instance[unknown[0]], parts, text, lines):
                hint = f": {_SPLIT_BY_A_COMMA}"
            raise lines.error(parts, f"unknown key {unknown[0]!r}{hint}")
        if _split_by_a_comma(err.instance, parts, text, lines):
            raise lines.error(parts, f"{parts[-1]!r} has no value: {_SPLIT_BY_A_COMMA}")
        raise lines.error(parts, _schema_message(err))
    found = names.problem("format", data["format"])
    if found is not None:
        raise lines.error(("format",), found)
    return LoadedSpec(path, display, text, data, lines)


_SPLIT_BY_A_COMMA = (
    "a ',' inside {...} ends the value before it, and the rest reads as a key;"
    ' quote that value (doc: "a, b")'
)


def _split_by_a_comma(value, parts: list, text: str, lines: Lines) -> bool:
    """Whether the key at ``parts`` is likely the tail of a value an unquoted comma split:
    a key with no ``:`` after it inside ``{...}`` (``{doc: name, UTF-8}`` reads as ``doc:
    name`` and a key ``UTF-8`` of no value; ``{doc: null}`` is a null written out).

    >>> lines = Lines("s.yaml")
    >>> lines.record(("a", "UTF-8"), 1)
    >>> _split_by_a_comma(None, ["a", "UTF-8"], "a: {doc: name, UTF-8}", lines)
    True
    >>> lines.record(("a", "doc"), 1)
    >>> _split_by_a_comma(None, ["a", "doc"], "a: {doc: null}", lines)
    False
    """
    line = lines.line(parts)
    if value is not None or not parts or not isinstance(parts[-1], str) or line is None:
        return False
    source = text.splitlines()
    alone = re.compile(r"[{,]\s*" + re.escape(parts[-1]) + r"\s*[,}]")
    return 0 < line <= len(source) and alone.search(source[line - 1]) is not None


def _yaml_context(err: yaml.YAMLError) -> str:
    """Where the construct that broke began, when on another line than the problem: an
    unclosed ``[`` is found only on a later line."""
    context, at, mark = (getattr(err, k, None) for k in ("context", "context_mark", "problem_mark"))
    if not context or at is None or mark is None or at.line == mark.line:
        return ""
    return f" ({context} at line {at.line + 1})"


YAML_HINTS = {
    "found character '\\t'": "YAML indents with spaces, never tabs",
    "expected <block end>": (
        "is this line indented less or more than the lines beside it? The keys of one "
        "mapping, and the items of one list, start in one column"
    ),
    "mapping values are not allowed here": (
        "a key indented deeper than the key before it, or a value holding ': ' (quote it)"
    ),
    "expected ',' or '}'": "a value inside {...} holding ': ' or ',' needs quotes",
    "could not find expected ':'": "a line that is neither 'key: value' nor '- item'",
}
"""PyYAML's problems as a spec writer fixes them (the start of the problem -> the hint)."""


def _yaml_hint(problem: str) -> str:
    """The hint of :data:`YAML_HINTS` for PyYAML's ``problem``, after a ``; ``.

    >>> _yaml_hint("expected ',' or '}', but got ':'")
    "; a value inside {...} holding ': ' or ',' needs quotes"
    >>> _yaml_hint("found undefined alias")
    ''
    """
    return next(
        (f"; {hint}" for start, hint in YAML_HINTS.items() if problem.startswith(start)), ""
    )


def _within_alternative(err: jsonschema.ValidationError) -> jsonschema.ValidationError:
    """For a key of several forms (``oneOf``), the error inside the one form of the value's
    own type, so ``valid: {chek: ...}`` says "unknown key 'chek'", not that no form fits;
    among several mappings, the one whose keys the value has or nearly has (``repeat:
    {cout: n}``: the ``count`` form). Left as it is when no form, or more than one, fits."""
    while err.validator == "oneOf" and err.context:
        forms = [
            i
            for i, form in enumerate(err.validator_value)
            if _has_type(err.instance, form.get("type", ()))
        ]
        if len(forms) > 1 and isinstance(err.instance, dict):
            forms = _forms_by_keys(err.instance, err.validator_value, forms)
        inside = [e for e in err.context if len(forms) == 1 and e.schema_path[0] == forms[0]]
        if not inside:
            break
        # at one depth a misspelt key before the key it misses, as load_text does
        err = max(
            inside, key=lambda e: (len(e.absolute_path), e.validator == "additionalProperties")
        )
    return err


def _forms_by_keys(instance: dict, alternatives: list, forms: list[int]) -> list[int]:
    """The mapping forms among ``forms`` that have one of ``instance``'s keys, else those
    with a key close to one of them (a misspelling)."""

    def keys(i: int) -> list[str]:
        return list(alternatives[i].get("properties", {}))

    sharing = [i for i in forms if set(keys(i)) & set(instance)]
    if sharing:
        return sharing
    return [i for i in forms if any(did_you_mean(str(key), keys(i)) for key in instance)]


def _form_text(form: dict) -> str:
    """One form of a ``oneOf`` key as a spec writes it (``eos``, ``{count: ...}``), or ""."""
    if "enum" in form:
        return ", ".join(map(str, form["enum"]))
    if form.get("type") == "object" and form.get("required"):
        return "{" + ", ".join(f"{key}: ..." for key in form["required"]) + "}"
    return form.get("type", "") if isinstance(form.get("type"), str) else ""


def _has_type(instance, types: str | list[str]) -> bool:
    types = [types] if isinstance(types, str) else types
    return any(_validator().is_type(instance, name) for name in types)


def text_const_message(text: str) -> str:
    """A ``const:`` given as text (a magic such as ``"RIFF"``): consts are numbers, so the
    message gives the big-endian integer of its bytes and the type that reads them.

    >>> text_const_message("RIFF")
    "'RIFF' is text, and const: is a number: its 4 bytes are type: u32be, const: 0x52494646"
    >>> text_const_message("GIF89a")[:60]
    "'GIF89a' is text, and const: is a number: magic bytes are an"
    """
    raw = text.encode("latin-1", "replace")
    types = {1: "u8", 2: "u16be", 4: "u32be", 8: "u64be"}
    if len(raw) in types:
        return (
            f"{text!r} is text, and const: is a number: its {len(raw)} bytes are type: "
            f"{types[len(raw)]}, const: 0x{raw.hex()}"
        )
    return (
        f"{text!r} is text, and const: is a number: magic bytes are an integer type of their "
        "width (u8, u16be, u32be, u64be; several for other lengths), each with the number "
        "its bytes make as its const:"
    )


def _schema_message(err: jsonschema.ValidationError) -> str:
    if (
        err.validator == "type"
        and isinstance(err.instance, str)
        and list(err.path)[-1:] == ["const"]
    ):
        return text_const_message(err.instance)
    if err.validator == "type" and (err.instance is None or isinstance(err.instance, bool)):
        return (
            f"{err.message}: YAML reads null, ~, true/false, yes/no and on/off unquoted as "
            "that, not as text: quote it"
        )
    if err.validator == "type" and err.validator_value == "object":
        return (
            f"expected keys (a mapping) here, got {err.instance!r}: if this line belongs to "
            "the key above it, indent it under that key"
        )
    if err.validator == "oneOf":
        forms = [_form_text(form) for form in err.validator_value]
        words = [value for form in err.validator_value for value in form.get("enum", ())]
        hint = did_you_mean(err.instance, words) if isinstance(err.instance, str) else ""
        if isinstance(err.instance, str) and "{count: ...}" in forms:  # repeat: n_items
            counted = f"{{count: {err.instance}}}"
            hint = f"{hint[:-2]}, or {counted}?)" if hint else f" (did you mean {counted}?)"
        listed = f"; the forms: {', '.join(forms)}" if all(forms) else ""
        return f"not a valid form for this key: {err.instance!r}{hint}{listed}"
    if err.validator == "required":
        missing = [key for key in err.validator_value if key not in err.instance]
        return f"missing key {missing[0]!r}"
    if err.validator == "dependentRequired":  # jsonschema: "'b' is a dependency of 'a'"
        for key, needs in err.validator_value.items():
            missing = [n for n in needs if key in err.instance and n not in err.instance]
            if missing:
                return f"missing key {missing[0]!r}, which {key!r} needs"
    if err.validator == "pattern" and err.validator_value in PATTERN_WORDS:
        snake = re.sub(r"[-\s]+", "_", str(err.instance)).lower()  # Sensor-Log: sensor_log
        fits = re.fullmatch(err.validator_value, snake)
        hint = f" (did you mean {snake!r}?)" if fits else ""
        return f"{err.instance!r} is not {PATTERN_WORDS[err.validator_value]}{hint}"
    return err.message
