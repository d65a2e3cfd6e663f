"""The record of what a compiled module was built from, so a changed source is never run as
old machine code.

``setup.py`` writes it beside each extension it builds (``<module file>.sources.json``): the
sha256 of the ``.pyx`` and of every ``.pxd`` it cimports, keyed by their paths relative to the
folder that holds the top-level package. A user's module built outside wirespec
(``wirespec generate --out DIR --compiled``) also records, apart, the ``.pxd`` of wirespec's it
cimports, relative to the folder holding wirespec's packages (``installed``), so an upgrade that
changes them is not run against the old build. ``runtime.core.tier`` compares it before loading
the module. This file imports only the standard library: ``setup.py`` loads it by path, before
wirespec's dependencies are installed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

SUFFIX = ".sources.json"
COMPILE_ARGS = ["-O2", "-g0", "-Wno-unused-function"]
"""The C compiler's flags for every compiled module (``-g0``: half the compile time, a seventh
of the size), of setup.py's builds and of a user's (the shared helpers a module does not call
are no news to the person running ``wirespec generate --compiled``)."""


def record_path(extension: Path) -> Path:
    """Where the record of the extension file ``extension`` lives."""
    return extension.with_name(extension.name + SUFFIX)


def digest(path: Path) -> str:
    """The sha256 of a file's bytes, in hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def snapshot(
    root: Path, sources: Iterable[Path], installed: Path | None = None
) -> dict[str, dict[str, str]]:
    """The digests of the ``sources`` an extension is built from, taken as the build reads
    them: all under ``root``, or (a user's module) those not under ``root`` under
    ``installed``, wirespec's folder. A source changed while the C compiles (``generate``
    run beside a build) then no longer matches, and the build is not taken for current.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> (folder / "m.pyx").write_text("x = 1")
    5
    >>> taken = snapshot(folder, [folder / "m.pyx"])
    >>> (folder / "m.pyx").write_text("x = 2")  # regenerated while the C compiled
    5
    >>> write(folder / "m.so", taken); changed_sources(folder / "m.so", folder)
    ['m.pyx']
    """
    groups: dict[str, dict[str, str]] = {"sources": {}}
    for path in sorted(sources):
        resolved = path.resolve()
        if resolved.is_relative_to(root.resolve()) or installed is None:
            groups["sources"][resolved.relative_to(root.resolve()).as_posix()] = digest(path)
        else:
            key = resolved.relative_to(installed.resolve()).as_posix()
            groups.setdefault("installed", {})[key] = digest(path)
    return groups


def write(extension: Path, groups: dict[str, dict[str, str]]) -> None:
    """Record beside ``extension`` the :func:`snapshot` of the sources it was built from."""
    text = json.dumps(groups, indent=1, sort_keys=True) + "\n"
    record_path(extension).write_text(text, encoding="utf-8")


def changed_sources(extension: Path, root: Path, installed: Path | None = None) -> list[str] | None:
    """The recorded sources of ``extension`` that differ from (or are missing from) ``root``
    now (those recorded apart: from ``installed``), or None when it has no record (built by
    hand, not by ``setup.py`` or ``wirespec generate --compiled``)."""
    record = record_path(extension)
    if not record.is_file():
        return None
    try:
        groups = json.loads(record.read_text(encoding="utf-8"))
        checked = [(root, name, want) for name, want in groups["sources"].items()]
        checked += [(installed, name, want) for name, want in groups.get("installed", {}).items()]
    except (ValueError, KeyError, TypeError, AttributeError):
        return [record.name]  # unreadable: nothing proves the build matches
    return [
        name
        for folder, name, recorded in sorted(checked, key=lambda item: item[1])
        if folder is None or not (folder / name).is_file() or digest(folder / name) != recorded
    ]
