#!/usr/bin/env bash
# Line and branch coverage of the hand-written Python in runtime/ and generator/ over the test
# suite, in both tiers (compiled, then WIRESPEC_PURE_PYTHON=1), combined into one report.
# A measurement, not a test: the test command (scripts/test.sh) does not run it, and coverage
# is not a dependency. Install it anywhere (`pip install --target DIR coverage`) and say where:
#
#     COVERAGE_LIB=DIR scripts/coverage.sh                   # the suite without the JVM tests
#     COVERAGE_LIB=DIR scripts/coverage.sh -m spark         # the JVM tests: runtime/spark
#
# The arguments replace `-m "not spark"`. Processes the tests start (the CLI runs, Spark's
# Python workers) are measured too: a sitecustomize.py in the output folder starts coverage
# in every Python that inherits PYTHONPATH. The data and reports go to COVERAGE_OUT (default
# a new temporary folder, printed): report.txt (per file, missing lines and branches),
# html/ and the raw .coverage.* files. The Cython modules (.pyx) are not measured.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${COVERAGE_LIB:?set COVERAGE_LIB to a folder where the coverage package is installed}"
out=${COVERAGE_OUT:-$(mktemp -d)}
mkdir -p "$out"
cat >"$out/sitecustomize.py" <<'EOF'
import os

if os.environ.get("COVERAGE_PROCESS_START"):
    import coverage

    coverage.process_startup()
EOF
cat >"$out/coveragerc" <<EOF
[run]
branch = True
source = $PWD/runtime
    $PWD/generator
parallel = True
data_file = $out/.coverage
sigterm = True
[report]
skip_covered = True
EOF
if [ $# -eq 0 ]; then set -- -m "not spark"; fi
export PYTHONPATH="$out:$COVERAGE_LIB:$PWD" COVERAGE_PROCESS_START="$out/coveragerc"
export PYSPARK_PYTHON="$PWD/.venv/bin/python" PYSPARK_DRIVER_PYTHON="$PWD/.venv/bin/python"
suite=(.venv/bin/python -m pytest -q --doctest-modules runtime generator generated tests "$@")
# A failing test still leaves its coverage: report whatever ran.
"${suite[@]}" || echo "coverage.sh: the compiled-tier run failed (exit $?)" >&2
WIRESPEC_PURE_PYTHON=1 "${suite[@]}" || echo "coverage.sh: the pure-Python run failed ($?)" >&2
unset COVERAGE_PROCESS_START
cov=(.venv/bin/python -m coverage)
"${cov[@]}" combine --rcfile="$out/coveragerc" --quiet "$out"
"${cov[@]}" report --rcfile="$out/coveragerc" --show-missing >"$out/report.txt" || true
"${cov[@]}" html --rcfile="$out/coveragerc" --directory="$out/html" --quiet || true
tail -n 1 "$out/report.txt"
echo "coverage.sh: reports in $out (report.txt, html/index.html)"
