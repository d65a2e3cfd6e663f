"""Lines of code per folder of ``generator/``, ``runtime/`` and ``generated/`` at a git
revision: ``.py``, ``.pyx`` and ``.pxd`` files, hand-written (generator/, runtime/) apart
from generated (generated/, rendered by ``wirespec generate``).

    python scripts/line_counts.py [REV...]   # default HEAD; a Markdown table, a column a REV

ARCHITECTURE.md's before/after table comes from here (``8b0ac62`` and the commit after the
#20 layering).
"""

from __future__ import annotations

import collections
import subprocess
import sys
from pathlib import PurePosixPath

TOPS = ("generator", "runtime", "generated")
SUFFIXES = (".py", ".pyx", ".pxd")


def _git(*args: str) -> str:
    return subprocess.run(("git", *args), check=True, capture_output=True, text=True).stdout


def counts(rev: str) -> dict[str, int]:
    """Folder -> lines of its own source files (not its subfolders') at ``rev``."""
    out: dict[str, int] = collections.Counter()
    for name in _git("ls-tree", "-r", "--name-only", rev, "--", *TOPS).splitlines():
        path = PurePosixPath(name)
        if path.suffix in SUFFIXES:
            out[str(path.parent)] += _git("show", f"{rev}:{name}").count("\n")
    return dict(out)


def table(*revs: str) -> str:
    """A Markdown table: a row per folder, a column of lines per revision, then the
    hand-written and generated totals."""
    by_rev = [counts(rev) for rev in revs]
    folders = sorted(set().union(*by_rev))
    rows = ["| folder | " + " | ".join(f"`{r}`" for r in revs) + " |"]
    rows.append("|---|" + "---:|" * len(revs))
    for folder in folders:
        cells = [f"{c[folder]:,}" if folder in c else "" for c in by_rev]
        rows.append(f"| `{folder}/` | " + " | ".join(cells) + " |")
    for label, generated in (("hand-written (generator/, runtime/)", False), ("generated", True)):
        totals = [
            sum(n for f, n in c.items() if f.startswith("generated") == generated) for c in by_rev
        ]
        rows.append(f"| {label} | " + " | ".join(f"{t:,}" for t in totals) + " |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(table(*(sys.argv[1:] or ["HEAD"])), end="")
