#!/usr/bin/env python3
"""How long ``wirespec import-thrift`` and the steps after it take on the real IDLs of
tests/data/thrift/idl, and how fast ``generated/parquet.py`` decodes a footer next to
pyarrow reading the same file's metadata.

Per IDL (includes counted in the file that includes them): import (parse + resolve + YAML
text), load (YAML + schema check + model), render (the module's source, unformatted, as
``--spec`` and the tests use it) and compile; CPU seconds (``time.process_time``), once each
(the grammar is built before, as a warm CLI process has it). Then footers/s of
``parquet.parse`` against ``pyarrow.parquet.ParquetFile(...).metadata`` on one file.

    .venv/bin/python benchmarks/import_thrift.py [--only parquet,hive_metastore]
"""

from __future__ import annotations

import argparse
import io
import struct
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generator.emit.thrift_module import render_thrift
from generator.importers.thrift_idl import idl_parser, import_thrift
from generator.spec.loader import load
from generator.spec.thrift import build_thrift_model

IDL = Path(__file__).resolve().parent.parent / "tests" / "data" / "thrift" / "idl"


def _clock(fn):
    start = time.process_time()
    out = fn()
    return out, time.process_time() - start


def import_stages(only: set[str]) -> None:
    _, grammar = _clock(idl_parser)
    print(f"grammar build (once per process): {grammar:.2f} s\n")
    print("| IDL | structs | import s | load s | render s | compile s |")
    print("|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(IDL.rglob("*.thrift")):
            if (only and path.stem not in only) or "Broken" in path.name or "v0.16" in str(path):
                continue
            text, t_import = _clock(lambda: import_thrift(path))  # noqa: B023
            spec_path = Path(tmp) / (path.stem + ".yaml")
            spec_path.write_text(text)
            spec, t_load = _clock(lambda: build_thrift_model(load(spec_path)))  # noqa: B023
            source, t_render = _clock(lambda: render_thrift(spec, fmt=False))  # noqa: B023
            _, t_compile = _clock(lambda: compile(source, path.name, "exec"))  # noqa: B023
            print(
                f"| {path.relative_to(IDL)} | {len(spec.structs)} | {t_import:.2f} | "
                f"{t_load:.2f} | {t_render:.2f} | {t_compile:.2f} |"
            )


def footer_speed(seconds: float = 1.0) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from generated import parquet

    table = pa.table({f"c{i}": list(range(1000)) for i in range(20)})
    out = io.BytesIO()
    pq.write_table(table, out, row_group_size=100, write_page_index=True)
    data = out.getvalue()
    (length,) = struct.unpack("<I", data[-8:-4])
    footer = data[-8 - length : -8]

    def rate(fn):
        count, start = 0, time.process_time()
        while time.process_time() - start < seconds:
            fn()
            count += 1
        return count / (time.process_time() - start)

    ours = rate(lambda: parquet.parse(footer))
    arrow = rate(lambda: pq.ParquetFile(io.BytesIO(data)).metadata)
    print(f"\nfooter of {len(footer)} B (10 row groups x 20 columns):")
    print(f"| decoder | footers/s |\n|---|---:|\n| generated/parquet.py | {ours:,.0f} |")
    print(f"| pyarrow ParquetFile.metadata (C++) | {arrow:,.0f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="IDL file stems, comma-separated")
    args = ap.parse_args()
    import_stages({s for s in args.only.split(",") if s})
    footer_speed()


if __name__ == "__main__":
    main()
