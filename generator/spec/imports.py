"""``imports:`` between specs: a spec uses another spec's enums by a qualified name.

Kaitai's ``meta: imports:`` is the model. A spec lists the specs it uses by name (never a
path: ``imports: [mysql_types]`` is ``mysql_types.yaml`` in the importing spec's own
folder); ``mysql_types.column_type`` is then the enum ``column_type`` of that spec, wherever
the spec language takes an enum name (``enum:``, ``bit:``, ``rendering:``, a runtime
primitive's argument, an expression's ``ENUM.MEMBER``), and ``extends:`` makes a local enum
of an imported one: its members' names, codes and docs come from there, the local enum
chooses which members it takes and adds its own attributes (how Craft encodes each MySQL
type code):

.. code-block:: yaml

    imports: [mysql_types]
    enums:
      column_type:
        doc: MySQL type code of a column.
        extends: mysql_types.column_type
        attributes: {craft: {doc: ..., values: [int, text]}}
        values:
          LONG: {craft: int}
          DATE: {craft: text, doc: "text like 2000-01-01"}   # appended to the shared doc

Resolution happens before the model is built and yields plain spec data: an extended enum
becomes a whole enum body, and a qualified name used elsewhere becomes the local name of a
copy of the imported enum (``mysql_types.column_type`` -> ``mysql_types_column_type``), so
every emitter sees ordinary enums and generated modules import nothing of each other.

Errors name the file, the line and the key path, as the loader's do: an import that is not
there, a cycle of imports, an unknown qualified name, a name that clashes. An import never
reads outside the folder of the spec that names it (a symlink out of it is refused).
"""

from __future__ import annotations

import copy
import dataclasses
import re
from pathlib import Path

from generator import ROOT
from generator.spec.loader import LoadedSpec, load

_NOT_SCANNED = frozenset({"doc", "title", "format", "imports", "extends", "model", "models"})
"""Keys whose text is prose, an import name or a model class (``IMPORT.CLASS`` of an
imported spec's ``models:``, :mod:`generator.spec.model_classes`), never an enum to rewrite."""


@dataclasses.dataclass
class Resolved:
    """A spec's data with its imports resolved, and where its imported enums came from."""

    data: dict
    imports: list[str]
    origins: dict[str, str]
    """Local enum name -> the qualified name it copies or extends."""
    models: dict = dataclasses.field(default_factory=dict)
    """``IMPORT.CLASS`` -> its :class:`generator.spec.model_classes.ModelClass`, for every
    class an imported spec's ``models:`` declares (when ``check`` built it): what a ``map:``
    or ``kafka_message:`` class may make."""


def resolve(loaded: LoadedSpec, check=None, _chain: tuple[str, ...] = ()) -> Resolved:
    """The spec data of ``loaded`` with every import resolved (see the module doc);
    ``check(loaded)`` validates an imported spec whole (the model builder), so its errors
    name its own file and line.

    >>> from pathlib import Path
    >>> resolved = resolve(load(Path("specs/ticdc_craft.yaml"), "specs/ticdc_craft.yaml"))
    >>> long = resolved.data["enums"]["column_type"]["values"]["LONG"]
    >>> resolved.origins["column_type"], long["value"], long["doc"]
    ('mysql_types.column_type', 3, 'INT; 2000 -> a0 1f')
    """
    data, lines = loaded.data, loaded.lines
    names = data.get("imports", [])
    if not names and not any("extends" in body for body in data.get("enums", {}).values()):
        return Resolved(data, [], {})
    data = copy.deepcopy(data)
    models: dict = {}
    chain = _chain or (data["format"],)
    local = set(data.get("enums", {})) | set(data.get("records", {}))
    imported: dict[str, dict] = {}  # import name -> its resolved enums
    for i, name in enumerate(names):
        where = ("imports", i)
        if name in names[:i]:
            raise lines.error(where, f"{name!r} is imported twice")
        if name in local:
            raise lines.error(where, f"{name!r} is also a record or enum of this spec")
        if name in chain:
            raise lines.error(where, f"import cycle: {' -> '.join([*chain, name])}")
        other_spec = _load_import(loaded, name, where)
        other = resolve(other_spec, check, (*chain, name))
        built = check(other_spec) if check is not None else None
        if other.data["format"] != name:
            raise lines.error(where, f"{name}.yaml says format: {other.data['format']!r}")
        imported[name] = other.data.get("enums", {})
        for cls, model in getattr(built, "models", {}).items():
            models[f"{name}.{cls}"] = model
    origins: dict[str, str] = {}
    for enum_name, body in data.get("enums", {}).items():
        if "extends" in body:
            where = ("enums", enum_name, "extends")
            base = _lookup(body["extends"], imported, lines, where)
            data["enums"][enum_name] = _extend(body, base, lines, ("enums", enum_name))
            origins[enum_name] = body["extends"]
    copies: dict[str, str] = {}  # local name -> qualified name
    if not names:
        return Resolved(data, [], origins, models)
    pattern = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, names)) + r")\.(\w+)")

    def rewrite(text: str, parts: tuple) -> str:
        def local_name(match: re.Match) -> str:
            qualified = match.group(0)
            _lookup(qualified, imported, lines, parts)
            name = f"{match.group(1)}_{match.group(2)}"
            if name in local:
                raise lines.error(parts, f"{qualified} would be the local enum {name!r}, "
                                  "which this spec already defines")  # fmt: skip
            if copies.get(name, qualified) != qualified:
                raise lines.error(parts, f"{qualified} and {copies[name]} would both be the "
                                  f"local enum {name!r}")  # fmt: skip
            copies[name] = qualified
            return name

        return pattern.sub(local_name, text)

    data = _rewritten(data, (), rewrite)
    for name, qualified in copies.items():
        spec_name, _, enum_name = qualified.partition(".")
        data.setdefault("enums", {})[name] = copy.deepcopy(imported[spec_name][enum_name])
        origins[name] = qualified
    return Resolved(data, list(names), origins, models)


def _load_import(loaded: LoadedSpec, name: str, where: tuple) -> LoadedSpec:
    """The spec ``name`` from the importing spec's own folder, and nowhere else."""
    folder = loaded.path.parent.resolve()
    path = folder / f"{name}.yaml"
    if not path.is_file():
        shipped = (ROOT / "specs" / f"{name}.yaml").is_file() and folder != ROOT / "specs"
        hint = f": copy wirespec's specs/{name}.yaml there" if shipped else ""
        raise loaded.lines.error(where, f"no spec {name!r} ({name}.yaml) beside this one{hint}")
    if path.resolve().parent != folder:
        raise loaded.lines.error(where, f"{name}.yaml links outside the spec folder")
    display = str(Path(loaded.display).parent / f"{name}.yaml")
    return load(path, display)  # its own errors name its own file and line


def _lookup(qualified: str, imported: dict, lines, parts: tuple) -> dict:
    """The enum body a qualified name ``spec.enum`` names."""
    spec_name, _, enum_name = qualified.partition(".")
    if spec_name not in imported:
        raise lines.error(parts, f"{qualified!r}: {spec_name!r} is not imported")
    enums = imported[spec_name]
    if enum_name not in enums:
        known = ", ".join(sorted(enums)) or "none"
        raise lines.error(
            parts, f"unknown name {qualified!r}: {spec_name} has no enum {enum_name!r} ({known})"
        )
    return enums[enum_name]


def _extend(body: dict, base: dict, lines, where: tuple) -> dict:
    """An enum ``extends:`` another: the members it lists (all when it lists none), their
    codes and docs from the base, its attributes its own; a member's own ``doc:`` is added
    to the base's."""
    for key in ("type", "flags"):
        if key in body and body[key] != base.get(key, False if key == "flags" else None):
            raise lines.error(where + (key,), f"{key} comes from {body['extends']}")
    out = {k: v for k, v in body.items() if k != "extends"}
    out["type"] = base["type"]
    if base.get("flags"):
        out["flags"] = True
    chosen = body.get("values") or {member: {} for member in base["values"]}
    values = {}
    for member, given in chosen.items():
        if member not in base["values"]:
            raise lines.error(
                where + ("values", member), f"{body['extends']} has no member {member!r}"
            )
        if "value" in given:
            raise lines.error(
                where + ("values", member, "value"), f"the code comes from {body['extends']}"
            )
        shared = base["values"][member]
        doc = shared["doc"] + (f"; {given['doc']}" if "doc" in given else "")
        values[member] = {**given, "value": shared["value"], "doc": doc}
    out["values"] = values
    return out


def _rewritten(node, parts: tuple, rewrite):
    """``node`` with ``rewrite(text, parts)`` applied to every string that may name an enum."""
    if isinstance(node, dict):
        return {
            k: v if k in _NOT_SCANNED else _rewritten(v, parts + (k,), rewrite)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_rewritten(v, parts + (i,), rewrite) for i, v in enumerate(node)]
    if isinstance(node, str):
        return rewrite(node, parts)
    return node
