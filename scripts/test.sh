#!/usr/bin/env bash
# The test command: set up, check generated/ and docs/formats/ are fresh, lint, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PYSPARK_PYTHON="$PWD/.venv/bin/python" PYSPARK_DRIVER_PYTHON="$PWD/.venv/bin/python"
.venv/bin/wirespec generate --check
.venv/bin/wirespec docs --check
.venv/bin/ruff check generator runtime tests benchmarks samples
.venv/bin/python -m pytest -q --doctest-modules runtime generator generated tests "$@"
