#!/usr/bin/env bash
# The PostgreSQL queue's benchmark: builds release trawl and trawl-bench, installs nginx (apt) and
# PostgreSQL (make deps), then
#   trawl-bench queue-overhead   1M URLs pushed into a throwaway cluster (durable defaults), then
#                                claimed and completed by 1, 4 and 16 in-process workers whose
#                                transport answers instantly: jobs/s (goal >= 20 000 with 16)
#   trawl-bench queue            the 2000-page corpus behind nginx: two queue workers vs one
#                                trawl batch on SQLite, alternately in the same run (goal >= 0.9x)
# Run from the repository's top folder: Benchmarks/queue.sh [--urls N] [--rounds N]
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
bench_setup
"$BIN/trawl-bench" queue-overhead "$@"
"$BIN/trawl-bench" queue "$@"
