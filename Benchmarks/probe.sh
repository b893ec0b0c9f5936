#!/usr/bin/env bash
# What --probe adds to a page, end to end: builds release trawl and trawl-bench, installs nginx
# (apt) and runs `trawl-bench probe`: trawl batch with and without --probe, alternating, over the
# generic corpus and over gallery pages whose media (GIF, MP4, WebP on three media hosts) nginx
# serves with ranges honoured, on loopback; at concurrency 32 (throughput) and 1 (one page at a
# time: the latency a probe adds).
# Run from the repository's top folder: Benchmarks/probe.sh [--pages N] [--rounds N]
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
bench_setup
"$BIN/trawl-bench" probe --pages 1000 --concurrency 32 "$@"
"$BIN/trawl-bench" probe --pages 200 --concurrency 1 "$@"
