#!/usr/bin/env bash
# The main job: set up, regenerate the codecs (and rebuild the compiled tier from them),
# rebuild the samples and decode every
# shipped sample of every format (JSON next to each input, under out/), then ingest
# every sample on local Spark into Parquet tables under out/tables and print the summary.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/wirespec generate
# Recompile the compiled tier where generate changed its sources (a no-op otherwise).
.venv/bin/python setup.py --quiet build_ext --inplace
.venv/bin/wirespec --version
.venv/bin/python -m samples.make_samples
.venv/bin/python -m samples.decode_all --output out
.venv/bin/wirespec ingest all samples --output out/tables
