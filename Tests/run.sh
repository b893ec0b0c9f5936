#!/usr/bin/env bash
# Runs the built test suite (`swift test --skip-build`, more arguments passed on) as `make test`
# does on CI: every line as it is printed, and a time limit for the whole run.
#
# Swift Testing's output to a pipe or file is block-buffered: a run that hangs leaves a log cut
# mid-buffer, far from the hang. stdbuf makes the C streams of swift test and of the test
# process it starts line-buffered, so each test's "started" and "passed" lines show as they
# happen. Every test that waits on a process, a server, Chromium or a database has a time
# limit of its own (.timeLimit); this limit is the net under those, for a test blocked where no
# cancellation reaches. When it is hit, the tests started and not finished are listed, the
# test process's threads are shown (gdb, if installed) and the run is stopped.
#
#   Tests/run.sh [LIMIT] [swift test arguments...]     LIMIT: 90, 90s, 25m or 1h (default 25m)
#
# With TEST_BUNDLE set (a built *PackageTests.xctest), that bundle runs its Swift Testing tests
# itself instead of `swift test --skip-build` (Tests/check.sh): after a `swift test`, the next
# `swift build --build-tests` compiles a dependency again (HummingbirdCore, 10–90 s here), so
# a loop of build and `swift test` pays that every time.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
limit=${1:-25m}
shift || true
swift=${SWIFT:-swift}
log=.build/test-output.txt
mkdir -p .build

seconds() {  # 90, 90s, 25m, 1h → seconds
  case $1 in
    *s) echo "${1%s}" ;; *m) echo $(( ${1%m} * 60 )) ;; *h) echo $(( ${1%h} * 3600 )) ;; *) echo "$1" ;;
  esac
}

# Test names from Swift Testing's lines: "◇ Test NAME started." and "✔ Test NAME passed after …"
# or "✘ Test NAME failed after …"; prints those started and not ended.
unfinished() {
  awk '
    /^◇ Test .* started\.$/ && !/^◇ Test run started/ { name = substr($0, index($0, "Test ") + 5); sub(/ started\.$/, "", name); open[name] = 1; next }
    /^[✔✘] Test .* (passed|failed) after / {
      name = substr($0, index($0, "Test ") + 5); sub(/ (passed|failed) after .*$/, "", name); delete open[name]
    }
    END { for (name in open) print "  " name }
  ' "$log"
}

# A temporary folder of the run's own, $TMPDIR for the tests and every program they start,
# removed when the run ends: the fixtures' scratch folders (stores, indexes, caches, outputs)
# go with it. Mode 0755: a run as root hands each throwaway PostgreSQL cluster's folder inside
# it to the postgres user, who must be able to reach it. Each cluster's stop helper removes its
# own folder once the server has stopped (after the test process ends); the rest waits for
# those, so no server loses its data folder while running. Port reservations live in
# /tmp/trawl-ports, shared with every other run (PortReservation). Folders of runs that died
# before removing theirs go at the next run's start, once no cluster is left in them (the next
# cluster a test starts stops those of dead runs first: PostgresCluster).
base=${TMPDIR:-/tmp}
for folder in "$base"/trawl-test-run.*; do
  [ -f "$folder/run.pid" ] || continue
  kill -0 "$(cat "$folder/run.pid")" 2>/dev/null && continue
  compgen -G "$folder/trawl-pg-*" >/dev/null || rm -rf "$folder"
done
scratch=$(mktemp -d "$base/trawl-test-run.XXXXXX") || exit 1
chmod 0755 "$scratch"
echo $$ > "$scratch/run.pid"
export TMPDIR=$scratch
remove_scratch() {
  # Stopped from outside (a signal): the tests stop first, as at the time limit below.
  if [ -n "${runner:-}" ] && kill -0 "$runner" 2>/dev/null; then
    kill -INT "$runner" 2>/dev/null
    for _ in $(seq 60); do kill -0 "$runner" 2>/dev/null || break; sleep 1; done
    if kill -0 "$runner" 2>/dev/null; then
      echo "=== left $scratch: the tests did not stop" >&2
      return
    fi
  fi
  for _ in $(seq 150); do
    compgen -G "$scratch/trawl-pg-*" >/dev/null || break
    sleep 0.2
  done
  if compgen -G "$scratch/trawl-pg-*" >/dev/null; then
    echo "=== left $scratch: a PostgreSQL cluster of the run has not stopped" >&2
  else
    rm -rf "$scratch"
  fi
}
trap remove_scratch EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The run's wall time, printed last: how long the suite took, apart from the build before it.
started=$(date +%s%N)
wall() {
  local tenths=$(( ($(date +%s%N) - started) / 100000000 ))
  echo "=== test run: $((tenths / 10)).$((tenths % 10)) s wall time (exit $1)"
}

# The run writes to the log; tail shows it as it grows and ends with the run. The log is made
# empty here, before either starts: a tail started before the runner's shell had opened the file
# would find nothing to follow and give up, and the run would show no line of its own.
: > "$log"
if [ -n "${TEST_BUNDLE:-}" ]; then
  command=("$TEST_BUNDLE" --testing-library swift-testing)
else
  command=("$swift" test --skip-build)
fi
stdbuf -oL -eL "${command[@]}" "$@" >> "$log" 2>&1 &
runner=$!
tail -n +1 -f --pid="$runner" "$log" &
shown=$!
deadline=$(( SECONDS + $(seconds "$limit") ))
while kill -0 "$runner" 2>/dev/null; do
  if (( SECONDS >= deadline )); then
    sleep 1  # tail shows the last lines first
    echo "=== the test run did not end within $limit; tests started and not finished:"
    unfinished
    if [ -n "${TEST_BUNDLE:-}" ]; then tests=$runner; else tests=$(pgrep -P "$runner" | head -1); fi
    if [ -n "$tests" ] && command -v gdb >/dev/null; then
      echo "=== the threads of the test process $tests (gdb):"
      timeout 120 gdb -p "$tests" -batch -ex 'thread apply all bt 16' 2>/dev/null | grep -E '^(Thread|#)'
    fi
    # swift test stops the test process it started on SIGINT (not on SIGTERM: the test
    # process runs in a process group of its own, which the signal would not reach).
    kill -INT "$runner" 2>/dev/null
    for _ in $(seq 60); do kill -0 "$runner" 2>/dev/null || break; sleep 1; done
    if [ -n "$tests" ]; then kill -KILL "$tests" 2>/dev/null; fi
    kill -KILL "$runner" 2>/dev/null
    wait "$runner" 2>/dev/null
    wait "$shown" 2>/dev/null
    wall 124
    exit 124
  fi
  sleep 2
done
wait "$runner"
status=$?
wait "$shown" 2>/dev/null
wall "$status"
exit "$status"
