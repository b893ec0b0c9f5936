#!/usr/bin/env bash
# How long a whole `trawl` process takes, start to exit, and its peak RSS: `trawl --help` and a
# replayed `trawl resolve` of a recorded Giphy page (no network, no browser). Builds the release
# binary as shipped (`--static-swift-stdlib`, docs/cli.md), then runs each command RUNS times
# (default 20) and prints the median wall time and the largest peak RSS (`/usr/bin/time`).
# The cores are shared: with `--compare BINARY` another build (an older one, a dynamically linked
# one) runs alternately with this one, so the two figures come from the same minutes.
# Run from the repository's top folder: Benchmarks/process-start.sh [--runs N] [--compare BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=20
others=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --compare) others+=("$2"); shift 2 ;;
    *) echo "usage: $0 [--runs N] [--compare BINARY]" >&2; exit 2 ;;
  esac
done
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install -y time)" >&2; exit 2; }
swift build -c release --product trawl --static-swift-stdlib >&2
shipped="$(swift build -c release --show-bin-path)/trawl"
url=https://giphy.com/gifs/dancing-cat-Trawl0Cat1Demo
har=Recordings/giphy/gif-page-dancing-cat.har
# Replays open no index; a scratch HOME keeps any other run from touching the user's.
export HOME; HOME="$(mktemp -d)"
trap 'rm -rf "$HOME"' EXIT
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $runs runs of each" >&2

# one BINARY ARGS…: "wall-ms max-rss-KiB" of one run (the output must be what a run prints).
one() {
  local started ended rss
  started=$(date +%s%N)
  rss=$(/usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1)
  ended=$(date +%s%N)
  echo "$(( (ended - started) / 1000 )) $rss"
}

median() { sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m / 1000 }'; }

binaries=("$shipped" "${others[@]}")
results=$(mktemp)
for _ in $(seq "$runs"); do
  for binary in "${binaries[@]}"; do
    echo "$binary help $(one "$binary" --help)" >>"$results"
    echo "$binary resolve $(one "$binary" resolve "$url" --replay "$har" --json)" >>"$results"
  done
done
for binary in "${binaries[@]}"; do
  for what in help resolve; do
    wall=$(awk -v b="$binary" -v w="$what" '$1 == b && $2 == w { print $3 }' "$results" | median)
    rss=$(awk -v b="$binary" -v w="$what" '$1 == b && $2 == w && $4 > m { m = $4 } END { printf "%.1f", m / 1024 }' "$results")
    printf '%-8s %8s ms median wall %8s MiB peak RSS  %s\n' "$what" "$wall" "$rss" "$binary"
  done
done
rm -f "$results"
