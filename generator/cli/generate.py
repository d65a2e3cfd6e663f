"""``wirespec generate [--check] [-v] [--specs DIR --out DIR] [--compiled]``: render
``generated/`` from ``specs/`` (:mod:`generator.emit.generate`), or a spec folder of your own
into the ``--out`` it requires; ``--check`` fails when a module is stale or was edited; ``--compiled`` also builds each module's compiled tier
(:mod:`generator.emit.user_build`), which a user's spec folder and output need since no
install builds them."""

from __future__ import annotations

import sys
from pathlib import Path

from generator import ROOT
from generator.cli.common import (
    EXIT_STALE,
    EXIT_USAGE,
    CliError,
    add_spec_folder_options,
    output_folder,
    rerun,
)


def add_parser(verbs) -> None:
    gen = verbs.add_parser(
        "generate",
        help="render generated/ from specs/, or your spec folder into your package",
        description="Render generated/ from specs/ (the shipped formats), or a spec folder "
        "of your own into a package of your own: wirespec generate --specs myspecs --out mypkg",
    )
    gen.add_argument("--check", action="store_true", help="fail if OUT is stale or edited")
    add_spec_folder_options(
        gen,
        "output folder, your package (made if missing): OUT/<format>.py, "
        "OUT/_compiled/<format>.pyx (default: generated/, for specs/ only)",
    )
    gen.add_argument(
        "--compiled",
        action="store_true",
        help="also build the compiled tier (Cython) of each module, beside it in "
        "OUT/_compiled/; needs Cython, setuptools and a C compiler: where the build fails, "
        "the module runs pure Python",
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
    if args.check and args.compiled:
        raise CliError("--check only compares: leave out --compiled", EXIT_USAGE)
    if not specs.is_dir():
        raise CliError(f"no spec folder {args.specs}")
    if not any(specs.glob("*.yaml")):
        raise CliError(f"no specs (*.yaml) in {args.specs}")
    out = output_folder(specs, args.out, ROOT / "specs", ROOT / "generated")
    if not args.check and out.parent.is_dir():
        out.mkdir(exist_ok=True)  # your package, on the first run (not its parents: a typo)
    outcomes = generate(specs, out, check=args.check)
    problems = [o for o in outcomes if o.status not in ("fresh", "written")]
    for o in outcomes:
        if o.status != "fresh" or args.verbose:
            print(f"{o.status:8} {o.path}", file=sys.stderr if o in problems else sys.stdout)
    if args.compiled:
        pyx = [o.path for o in outcomes if o.path.suffix == ".pyx" and o.status != "orphan"]
        build_compiled(out, pyx, verbose=args.verbose)
    if args.verbose:
        from generator.emit import fallbacks  # the emitters: loaded only when asked

        for fmt, tiers in spec_fallbacks(specs).items():
            for line in fallbacks.report(fmt, tiers):
                print(f"fallback {line}")
    if args.check and problems:
        print(
            f"{out} is out of date or was edited by hand; run `{rerun('generate', args)}`",
            file=sys.stderr,
        )
        return EXIT_STALE
    return 0


def build_compiled(out: Path, pyx_files: list[Path], *, verbose: bool) -> None:
    """Build the stale compiled modules and say how each went; a build that fails is a
    warning, not an error: its module runs pure Python, with the same results."""
    from generator.emit.user_build import build_all

    for path, status, why in build_all(out, pyx_files):
        if why:
            module = path.parent.parent / f"{path.stem}.py"
            print(f"{status} {path}: {why}; {module} runs pure Python", file=sys.stderr)
        elif status != "fresh" or verbose:
            print(f"{status:8} {path}")
