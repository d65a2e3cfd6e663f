"""``wirespec docs [--check]``: render ``docs/formats/<format>.md`` from every spec
(:mod:`generator.emit.docs`); ``--check`` fails when a document is missing, stale or edited."""

from __future__ import annotations

import sys
from pathlib import Path

from generator import ROOT
from generator.cli.common import (
    EXIT_STALE,
    add_spec_folder_options,
    examples,
    output_folder,
    rerun,
)
from generator.emit.docs import DOCS_DIR, docs


def add_parser(verbs) -> None:
    cmd = verbs.add_parser(
        "docs",
        help="render docs/formats/*.md from specs/, or your specs' into --out",
        **examples("wirespec docs --check", "wirespec docs --specs myspecs --out mydocs"),
    )
    cmd.add_argument("--check", action="store_true", help="fail if a document is stale")
    add_spec_folder_options(cmd, "output folder (default: docs/formats/, for specs/ only)")
    cmd.set_defaults(run=run_command)


def run_command(args) -> int:
    specs = Path(args.specs)
    out = output_folder(specs, args.out, ROOT / "specs", DOCS_DIR)
    outcomes = docs(specs, out, check=args.check)
    problems = [o for o in outcomes if o.status not in ("fresh", "written")]
    for o in outcomes:
        if o.status != "fresh":
            print(f"{o.status:8} {o.path}", file=sys.stderr if o in problems else sys.stdout)
    if args.check and problems:
        print(f"{out} is out of date; run `{rerun('docs', args)}`", file=sys.stderr)
        return EXIT_STALE
    return 0
