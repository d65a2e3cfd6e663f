"""The record of what a compiled module was built from, so a changed source is never run as
old machine code.

``setup.py`` writes it beside each extension it builds (``<module file>.sources.json``): the
sha256 of the ``.pyx`` and of every ``.pxd`` it cimports, keyed by their paths relative to the
folder that holds the top-level package. ``runtime.core.tier`` compares it before loading the
module. This file imports only the standard library: ``setup.py`` loads it by path, before
wirespec's dependencies are installed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

SUFFIX = ".sources.json"


def record_path(extension: Path) -> Path:
    """Where the record of the extension file ``extension`` lives."""
    return extension.with_name(extension.name + SUFFIX)


def digest(path: Path) -> str:
    """The sha256 of a file's bytes, in hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write(extension: Path, root: Path, sources: Iterable[Path]) -> None:
    """Record the ``sources`` (all under ``root``) that ``extension`` was just built from."""
    digests = {
        path.resolve().relative_to(root.resolve()).as_posix(): digest(path)
        for path in sorted(sources)
    }
    text = json.dumps({"sources": digests}, indent=1, sort_keys=True) + "\n"
    record_path(extension).write_text(text, encoding="utf-8")


def changed_sources(extension: Path, root: Path) -> list[str] | None:
    """The recorded sources of ``extension`` that differ from (or are missing from) ``root``
    now, or None when it has no record (built by hand, not by ``setup.py``)."""
    record = record_path(extension)
    if not record.is_file():
        return None
    try:
        digests = json.loads(record.read_text(encoding="utf-8"))["sources"]
    except (ValueError, KeyError, TypeError):
        return [record.name]  # unreadable: nothing proves the build matches
    return [
        name
        for name, recorded in sorted(digests.items())
        if not (root / name).is_file() or digest(root / name) != recorded
    ]
