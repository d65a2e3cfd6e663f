"""One decode in a bare process, for the memory check of ``python -m benchmarks``.

It imports nothing but the standard library and the generated module it decodes, so the
peak resident set after the imports is the process's size when decoding starts: the peak's
growth is what the decode held (input read included). Importing the benchmark suite first
(the SDKs, numpy) would leave freed memory the decode reuses unseen, so the growth would
under-report.

    python -m benchmarks.memory_child plainbuffer INPUT    # prints {"base", "peak", "size", "cpu"}
"""

from __future__ import annotations

import importlib
import json
import resource
import sys
import time
from pathlib import Path

DECODES = {
    "plainbuffer": ("generated.plainbuffer", lambda m, d: m.parse(d)),
    "plainbuffer-iter": ("generated.plainbuffer", lambda m, d: _drain(m.iter_rows(d))),
    "mysql": ("generated.mysql_serialization", lambda m, d: m.parse(d, "binlog_file")),
    "mysql-iter": (
        "generated.mysql_serialization",
        lambda m, d: _drain(m.iter_rows(d, "binlog_file")),
    ),
}


def _drain(rows) -> None:
    for _ in rows:
        pass


def _peak_rss_kib() -> int:
    """The process's peak resident set so far (``ru_maxrss``: KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def main(kind: str, path: str) -> None:
    module_name, decode = DECODES[kind]
    module = importlib.import_module(module_name)
    base = _peak_rss_kib()
    data = Path(path).read_bytes()
    start = time.process_time()
    model = decode(module, data)
    spent = time.process_time() - start
    peak = _peak_rss_kib()
    print(json.dumps({"base": base, "peak": peak, "size": len(data), "cpu": spent}))
    del model


if __name__ == "__main__":
    main(*sys.argv[1:3])
