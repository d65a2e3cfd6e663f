#!/usr/bin/env bash
# The test command: set up, check generated/ and docs/formats/ are fresh, lint, run every test
# twice: with the compiled tier (when a C compiler built it), then in pure Python.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PYSPARK_PYTHON="$PWD/.venv/bin/python" PYSPARK_DRIVER_PYTHON="$PWD/.venv/bin/python"
.venv/bin/wirespec generate --check
.venv/bin/wirespec docs --check
.venv/bin/ruff check .  # what pyproject.toml's [tool.ruff] does not exclude
.venv/bin/black --check --quiet .  # likewise [tool.black]
suite=(.venv/bin/python -m pytest -q --doctest-modules runtime generator generated tests "$@")
cc=${CC:-$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_config_var("CC") or "cc")')}
if command -v "${cc%% *}" >/dev/null; then
  # tests/test_tier.py fails this run when any compiled module is missing, stale or broken.
  .venv/bin/wirespec --version
  WIRESPEC_EXPECT_TIER=compiled "${suite[@]}"
fi
WIRESPEC_PURE_PYTHON=1 .venv/bin/wirespec --version
WIRESPEC_PURE_PYTHON=1 WIRESPEC_EXPECT_TIER="pure Python" "${suite[@]}"
