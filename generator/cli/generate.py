"""``wirespec generate [--check] [-v]``: render ``generated/`` from ``specs/``
(:mod:`generator.emit.generate`); ``--check`` fails when a module is stale or was edited."""

from __future__ import annotations

import sys
from pathlib import Path

from generator import ROOT
from generator.cli.common import EXIT_STALE, CliError


def add_parser(verbs) -> None:
    gen = verbs.add_parser("generate", help="render generated/ from specs/")
    gen.add_argument("--check", action="store_true", help="fail if generated/ is stale or edited")
    gen.add_argument("--specs", default=str(ROOT / "specs"), help="spec folder (default: specs/)")
    gen.add_argument(
        "--out", default=str(ROOT / "generated"), help="output folder (default: generated/)"
    )
    gen.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="list fresh files too, and every fallback: each record that parse() or build() "
        "handles with construct instead of the fast path, or that has no quick-tier or "
        "compiled reader, with why (also in each module's header and FALLBACKS)",
    )
    gen.set_defaults(run=run_command)


def run_command(args) -> int:
    from generator.emit.generate import (  # the generate extra: loaded when used
        generate,
        spec_fallbacks,
    )

    specs = Path(args.specs)
    if not specs.is_dir():
        raise CliError(f"no spec folder {args.specs}")
    if not any(specs.glob("*.yaml")):
        raise CliError(f"no specs (*.yaml) in {args.specs}")
    outcomes = generate(specs, Path(args.out), check=args.check)
    problems = [o for o in outcomes if o.status not in ("fresh", "written")]
    for o in outcomes:
        if o.status != "fresh" or args.verbose:
            print(f"{o.status:8} {o.path}", file=sys.stderr if o in problems else sys.stdout)
    if args.verbose:
        from generator.emit import fallbacks  # the emitters: loaded only when asked

        for fmt, tiers in spec_fallbacks(specs).items():
            for line in fallbacks.report(fmt, tiers):
                print(f"fallback {line}")
    if args.check and problems:
        print(
            "generated code is out of date or was edited by hand; run `wirespec generate`",
            file=sys.stderr,
        )
        return EXIT_STALE
    return 0
