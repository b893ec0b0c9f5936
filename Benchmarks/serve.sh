#!/usr/bin/env bash
# The server benchmark: wrk (apt) with 64 connections against a release `trawl serve`:
#   /healthz
#   /v1/resolve of a recorded page (--replay: answered from the recording in memory)
#   /v1/resolve of a loopback page in the HTTP cache (--cache, return-cache-else-load: the
#     first request fetches it from a python http.server on 127.0.0.1, every other one is a hit)
# and prints requests/s, p99 latency, errors (socket errors + non-2xx) and the server's peak RSS.
# All traffic stays on loopback. Run from the repository's top folder:
#   Benchmarks/serve.sh [SECONDS]        (or make bench-serve)
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${1:-10}"
make deps
if ! command -v wrk >/dev/null; then
  SUDO=$( [ "$(id -u)" = 0 ] || echo sudo )
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq wrk
fi
# SCRATCH_PATH=.build-bench picks another build folder (to build while a debug build runs).
BUILD=(-c release ${SCRATCH_PATH:+--scratch-path "$SCRATCH_PATH"})
swift build "${BUILD[@]}" --product trawl
BIN="$(swift build "${BUILD[@]}" --show-bin-path)"
WORK="$(mktemp -d /tmp/trawl-bench-serve.XXXXXX)"
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

# Starts `trawl serve ARGS…` on a free port; sets URL and PID.
start_server() {
  "$BIN/trawl" serve --port 0 --rate 0 --max-resolves 64 --max-resolves-per-client 64 --max-connections-per-client 128 --data-dir "$WORK/data" --log-level warning "$@" \
    >"$WORK/serve.out" 2>"$WORK/serve.err" &
  PID=$!
  PIDS+=("$PID")
  for _ in $(seq 1 200); do
    if grep -q '^listening on ' "$WORK/serve.out" 2>/dev/null; then break; fi
    sleep 0.05
  done
  URL="$(sed -n 's/^listening on //p' "$WORK/serve.out" | head -1)"
  [ -n "$URL" ] || { echo "trawl serve did not start:"; cat "$WORK/serve.err"; exit 1; }
}

stop_server() {
  kill -TERM "$PID"
  wait "$PID" || true
}

# Peak resident set of PID in MiB (VmHWM).
peak_rss() { awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

# One wrk run against URL; prints a table row.
measure() {
  local name="$1" target="$2"
  curl -fsS -o /dev/null "$target"   # warm: the first resolve fills the cache
  wrk -t2 -c64 -d"${DURATION}s" --latency "$target" >"$WORK/wrk.txt"
  local rps p99 non2xx socket
  rps=$(awk '/^Requests\/sec/ { print $2 }' "$WORK/wrk.txt")
  p99=$(awk '$1 == "99%" { print $2 }' "$WORK/wrk.txt")
  non2xx=$(awk '/Non-2xx or 3xx responses/ { print $5 }' "$WORK/wrk.txt")
  socket=$(awk '/Socket errors/ { gsub(",", ""); print $4 + $6 + $8 + $10 }' "$WORK/wrk.txt")
  printf "| %-44s | %10s | %8s | %6s | %8s |\n" "$name" "$rps" "$p99" "$(( ${non2xx:-0} + ${socket:-0} ))" "$(peak_rss "$PID")"
}

echo "wrk -t2 -c64 -d${DURATION}s on $(nproc) cores (load now: $(cut -d' ' -f1-3 /proc/loadavg))"
printf "| %-44s | %10s | %8s | %6s | %8s |\n" "route" "requests/s" "p99" "errors" "RSS MiB"
printf "|%s|%s|%s|%s|%s|\n" "----------------------------------------------" "------------" "----------" "--------" "----------"

start_server --replay Recordings
measure "/healthz" "$URL/healthz"
measure "/v1/resolve, recorded Giphy page (replay)" "$URL/v1/resolve?q=https%3A%2F%2Fgiphy.com%2Fgifs%2Fdancing-cat-Trawl0Cat1Demo"
stop_server

# A real page from the corpus when there is one, else the recorded blog post's HTML.
mkdir -p "$WORK/site"
CORPUS="${TRAWL_CORPUS:-../shared/corpus}"
PAGE="$(ls "$CORPUS"/generic/*.html 2>/dev/null | head -1 || true)"
if [ -n "$PAGE" ]; then cp "$PAGE" "$WORK/site/page.html"; else
  python3 -c 'import json,sys; e=json.load(open("Recordings/generic/blog-post-with-gifs.har"))["log"]["entries"][0]; print(e["response"]["content"]["text"])' >"$WORK/site/page.html"
fi
SITE_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$SITE_PORT" --bind 127.0.0.1 --directory "$WORK/site" >/dev/null 2>&1 &
PIDS+=("$!")
sleep 0.5
# serve refuses loopback pages unless told: this one is ours.
start_server --allow-address 127.0.0.1/32 --connect-to "page.test:80:127.0.0.1:$SITE_PORT" --cache "$WORK/cache" --cache-policy return-cache-else-load --browser never
measure "/v1/resolve, loopback page in the HTTP cache ($(wc -c <"$WORK/site/page.html") B)" "$URL/v1/resolve?q=http%3A%2F%2Fpage.test%2Fpage.html"
stop_server
