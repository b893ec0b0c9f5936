#!/usr/bin/env bash
# The batch benchmark, end to end: builds release trawl and trawl-bench, installs nginx (apt)
# and Scrapy from PyPI into a throwaway virtualenv (.build-bench/, ignored by git), then
#   trawl-bench batch         2000 corpus pages served by nginx on loopback, concurrency 32:
#                             trawl batch pages/s vs libxml2's SAX limit on every core, vs Scrapy
#                             against the same nginx in the same run (--server loopback: the
#                             in-process server instead)
#   trawl-bench batch-memory  peak RSS of trawl batch for 10k and 100k URLs
# Run from the repository's top folder: Benchmarks/batch.sh [--skip-memory] [trawl-bench batch options]
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
bench_setup
bench_venv .build-bench/scrapy-venv scrapy scrapy
# The other arguments go to trawl-bench batch (trawl-bench batch --help).
args=()
memory=true
for arg in "$@"; do
  if [ "$arg" = --skip-memory ]; then memory=false; else args+=("$arg"); fi
done
"$BIN/trawl-bench" batch --pages 2000 --concurrency 32 --scrapy "$PYTHON" "${args[@]}"
if $memory; then
  "$BIN/trawl-bench" batch-memory --counts 10000,100000 --concurrency 32
fi
