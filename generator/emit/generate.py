"""``wirespec generate``: every spec under ``specs/`` -> a module under ``generated/``.

>>> from pathlib import Path
>>> "plainbuffer.yaml" in [p.name for p in spec_files(Path("specs"))]
True
"""

from __future__ import annotations

import contextlib
import errno
from dataclasses import dataclass
from pathlib import Path

from generator import ROOT
from generator.spec.loader import load
from generator.spec.validate import build_model
from runtime.core.errors import SpecError

COMPILED_DIR = "_compiled"
"""Where the compiled tier's sources go, inside the output folder (one .pyx a format)."""
MODELS_DIR = "models"
"""Where a spec's ``models:`` go, inside the output folder (``generated.models.<spec>``): they
are no format (no records), so they stay out of the formats' folder."""


def spec_files(specs_dir: Path) -> list[Path]:
    if not specs_dir.is_dir():  # else a mistyped --specs would "generate" nothing and pass
        raise FileNotFoundError(errno.ENOENT, "no such spec folder", str(specs_dir))
    return sorted(specs_dir.glob("*.yaml"))


def render_spec(path: Path, root: Path = ROOT) -> tuple[str, str]:
    """(format name, module text) for one spec file."""
    name, text, _ = render_spec_outputs(path, root)
    return name, text


def render_spec_outputs(
    path: Path, root: Path = ROOT, *, beside: bool = False
) -> tuple[str, str | None, str | None]:
    """(format name, module text, compiled tier text or None) for one spec file; a spec of
    enums only, for others to import, has no module (text None). A spec without records but
    with ``models:`` is :func:`render_models_module`'s, not this one's (text None too).
    ``beside``: the module goes outside ``generated/`` (:func:`compiled_beside`)."""
    loaded = load(path, _display(path, root))
    if "protocol" in loaded.data:  # id-keyed protocols (Thrift): their own model and template
        from generator.emit.thrift_module import render_thrift
        from generator.spec.thrift import build_thrift_model

        spec = build_thrift_model(loaded)
        return spec.format, render_thrift(spec), None
    from generator.emit.render import (
        render_with_compiled,  # Jinja2 and black: loaded only when rendering
    )

    spec = build_model(loaded)
    if spec.is_library:
        return spec.format, None, None
    return (spec.format, *render_with_compiled(spec, beside=beside))


def render_models_module(path: Path, root: Path = ROOT) -> str | None:
    """The module of a spec's ``models:`` (``generated/models/<spec>.py``), or None."""
    loaded = load(path, _display(path, root))
    if "protocol" in loaded.data or "models" not in loaded.data:
        return None
    from generator.emit.model_classes import render_models
    from generator.emit.render import with_header

    return with_header(render_models(build_model(loaded)))


def spec_fallbacks(specs_dir: Path, root: Path = ROOT) -> dict[str, dict[str, dict[str, str]]]:
    """Format -> its ``FALLBACKS`` (generator/emit/fallbacks.py), for ``generate -v``; a Thrift
    spec's module has no construct path (every struct has its reader and writer)."""
    from generator.emit.fallbacks import collect

    out = {}
    for path in spec_files(specs_dir):
        loaded = load(path, _display(path, root))
        if "protocol" not in loaded.data:
            spec = build_model(loaded)
            if not spec.is_library:
                out[spec.format] = collect(spec)
    return out


@contextlib.contextmanager
def named_as_given(path: Path, root: Path = ROOT):
    """A :class:`SpecError` of the spec at ``path`` names it as the user gave it (``--specs
    myspecs``: ``myspecs/sensor.yaml``), where the generated files name a spec outside the
    repository by its file name alone (:func:`_display`: the same text from any folder).

    >>> with named_as_given(Path("myspecs/sensor.yaml"), root=ROOT / "docs"):  # outside root
    ...     raise SpecError("unknown key 'dco'", file="sensor.yaml", line=46)
    Traceback (most recent call last):
    ...
    runtime.core.errors.SpecError: myspecs/sensor.yaml:46: unknown key 'dco'
    """
    try:
        yield
    except SpecError as err:
        display = _display(path, root)
        if err.file == display == path.name:  # not a spec it imports, which names itself
            err.file = str(path)
        raise


def _display(path: Path, root: Path) -> str:
    """How errors and generated headers name a spec: relative to the repository."""
    try:
        return str(path.resolve().relative_to(root))
    except ValueError:
        return path.name


@dataclass
class Outcome:
    path: Path
    status: str
    """fresh | written | stale | edited | missing | orphan"""


def compiled_beside(out_dir: Path) -> bool:
    """Whether the modules written to ``out_dir`` find their compiled tier beside them (the
    ``_compiled`` folder of ``out_dir``, by path) rather than as ``generated._compiled.<format>``:
    every output folder but wirespec's own ``generated/``.

    >>> compiled_beside(ROOT / "generated"), compiled_beside(Path("mypkg"))
    (False, True)
    """
    return out_dir.resolve() != (ROOT / "generated").resolve()


def generate(specs_dir: Path, out_dir: Path, *, check: bool) -> list[Outcome]:
    """Render every spec; write (or, with ``check``, only compare) the modules."""
    from generator.emit.render import content_is_untouched

    outcomes = []
    expected = {}
    beside = compiled_beside(out_dir)
    for spec_path in spec_files(specs_dir):
        with named_as_given(spec_path):
            name, text, pyx = render_spec_outputs(spec_path, beside=beside)
            models = render_models_module(spec_path)
        if models is not None:
            expected[out_dir / MODELS_DIR / f"{name}.py"] = models
        if text is None:
            continue
        expected[out_dir / f"{name}.py"] = text
        if pyx is not None:
            expected[out_dir / COMPILED_DIR / f"{name}.pyx"] = pyx
    for path, text in expected.items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            outcomes.append(Outcome(path, "fresh"))
            continue
        if check:
            if current is None:
                status = "missing"
            elif not content_is_untouched(current):
                status = "edited"
            else:
                status = "stale"
            outcomes.append(Outcome(path, status))
        else:
            path.parent.mkdir(exist_ok=True)  # the compiled tier's or the models' folder
            path.write_text(text, encoding="utf-8")
            outcomes.append(Outcome(path, "written"))
    made = [*out_dir.glob("*.py"), *out_dir.glob(f"{COMPILED_DIR}/*.pyx")]
    for path in sorted([*made, *out_dir.glob(f"{MODELS_DIR}/*.py")]):
        if path.name != "__init__.py" and path not in expected:
            outcomes.append(Outcome(path, "orphan"))
    return outcomes
