#!/usr/bin/env bash
# The batch benchmark of issue 5, end to end: builds release trawl and trawl-bench, installs
# Scrapy from PyPI into a throwaway virtualenv (.build-bench/, ignored by git), then
#   trawl-bench batch         2000 corpus pages over loopback, concurrency 32:
#                             trawl batch pages/s vs libxml2's SAX limit on every core, vs Scrapy
#   trawl-bench batch-memory  peak RSS of trawl batch for 10k and 100k URLs
# Run from the repository's top folder: Benchmarks/batch.sh [--skip-memory]
set -euo pipefail
cd "$(dirname "$0")/.."
make deps
swift build -c release --product trawl
swift build -c release --product trawl-bench
BIN="$(swift build -c release --show-bin-path)"
VENV=.build-bench/scrapy-venv
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet scrapy
fi
"$BIN/trawl-bench" batch --pages 2000 --concurrency 32 --scrapy "$VENV/bin/python"
if [ "${1:-}" != "--skip-memory" ]; then
  "$BIN/trawl-bench" batch-memory --counts 10000,100000 --concurrency 32
fi
