"""Print wirespec's package-level import graph, as grimp finds it (lazy imports included).

    python scripts/import_graph.py [--counts]

A part is a subpackage (``generator.cli``, ``runtime.core``, ...), ``generated`` (every
generated module), or the top package itself (``generator``: ROOT and the version;
``runtime``: the error types it re-exports). Each line is a part and the parts it imports
(``--counts``: with the number of module-to-module imports). ARCHITECTURE.md shows the
output without counts, and tests/test_architecture.py checks that the page is current.
"""

from __future__ import annotations

import collections

import grimp

ROOTS = ("generator", "runtime", "generated")


def part(module: str) -> str:
    """The part of ``module``: its first two names under generator/ and runtime/, else its
    top package (a package's own ``__init__`` and ``generator.__main__`` are the package)."""
    names = module.split(".")
    if names[0] == "generated" or len(names) == 1 or names[1] == "__main__":
        return names[0]
    return ".".join(names[:2])


def package_graph(counts: bool = False) -> str:
    """One line per part: ``part -> imported part, ...`` (with ``counts``:
    ``imported part (n)``), sorted."""
    graph = grimp.build_graph(*ROOTS, cache_dir=None)
    edges: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            if part(module) != part(imported):
                edges[part(module)][part(imported)] += 1
    parts = sorted({part(m) for m in graph.modules})
    width = max(map(len, parts))
    lines = []
    for name in parts:
        targets = ", ".join(f"{t} ({n})" if counts else t for t, n in sorted(edges[name].items()))
        targets = targets or "-"
        lines.append(f"{name:<{width}} -> {targets}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import sys

    print(package_graph(counts="--counts" in sys.argv[1:]), end="")
