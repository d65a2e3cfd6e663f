"""Decode every shipped sample with its format's generated codec and print a summary.

    python -m samples.decode_all --output out

Each ``samples/<format>/<name>.bin`` (a keyed format: ``<name>.key`` + ``<name>.value``) becomes ``out/<format>/<name>.json`` (the ``to_dict``
form); a ``<name>.binlog`` file is decoded as the format's ``binlog_file`` record. The
summary counts messages (files), Spark rows and failures per format.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from runtime.core.errors import WirespecError

SAMPLES = Path(__file__).resolve().parent
BINLOG_RECORD = "binlog_file"
"""``*.binlog`` files (a whole MySQL binlog) are decoded as this record."""


def decode_format(fmt_dir: Path, out_dir: Path) -> tuple[int, int, int]:
    codec = importlib.import_module(f"generated.{fmt_dir.name}")
    messages = rows = failures = 0
    (out_dir / fmt_dir.name).mkdir(parents=True, exist_ok=True)
    keyed = hasattr(codec, "parse_pair")  # Kafka key + value: <name>.key with <name>.value
    paths = sorted(fmt_dir.glob("*.value" if keyed else "*.bin"))
    if BINLOG_RECORD in getattr(codec, "RECORDS", {}):
        paths += sorted(fmt_dir.glob("*.binlog"))  # whole binlog files
    for path in paths:
        messages += 1
        record = BINLOG_RECORD if path.suffix == ".binlog" else codec.DEFAULT_RECORD
        try:
            if keyed:
                model = codec.parse_pair(path.with_suffix(".key").read_bytes(), path.read_bytes())
            else:
                model = codec.parse(path.read_bytes(), record)
        except WirespecError as err:
            failures += 1
            print(f"{path}: {err}", file=sys.stderr)
            continue
        rows += sum(1 for _ in codec.to_rows(model, record))
        target = out_dir / fmt_dir.name / f"{path.stem}.json"
        target.write_text(json.dumps(codec.to_dict(model), indent=2, ensure_ascii=False) + "\n")
    return messages, rows, failures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default="out", help="folder for the JSON files")
    args = parser.parse_args(argv)
    table = Table(title="wirespec samples")
    for column in ("format", "messages", "rows", "failures"):
        table.add_column(column, justify="left" if column == "format" else "right")
    total_failures = 0
    for fmt_dir in sorted(
        p for p in SAMPLES.iterdir() if p.is_dir() and not p.name.startswith("_")
    ):
        messages, rows, failures = decode_format(fmt_dir, Path(args.output))
        total_failures += failures
        table.add_row(fmt_dir.name, str(messages), str(rows), str(failures))
    Console().print(table)
    return 1 if total_failures else 0


if __name__ == "__main__":
    sys.exit(main())
