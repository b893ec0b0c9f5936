#!/usr/bin/env bash
# Tests/run.sh shows every line its runner prints: twenty runs in a row of a stand-in runner that
# starts writing late and ends with Swift Testing's summary line, each checked for every line in
# order and the exit status; a failing runner's status is passed on.
#
#   Tests/Scripts/run-log-test.sh [RUN_SH]     RUN_SH: the script to test (default Tests/run.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
under_test=$(realpath "${1:-Tests/run.sh}")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# A copy in a folder of its own: its log (.build/test-output.txt) is not the repository's.
mkdir -p "$scratch/repository/Tests"
cp "$under_test" "$scratch/repository/Tests/run.sh"
chmod +x "$scratch/repository/Tests/run.sh"

# The stand-in runner: waits before its first line, prints a run's lines with pauses between
# them, and exits with STUB_STATUS.
cat > "$scratch/runner" <<'STUB'
#!/bin/sh
sleep 0.3
echo "◇ Test run started."
echo "◇ Test first() started."
sleep 0.1
echo "✔ Test first() passed after 0.100 seconds."
echo "◇ Test second() started."
echo "✔ Test second() passed after 0.001 seconds."
sleep 0.2
echo "✔ Test run with 2 tests in 1 suite passed after 0.400 seconds."
exit "${STUB_STATUS:-0}"
STUB
chmod +x "$scratch/runner"
expected=$(sed -n 's/^echo "\(.*\)"$/\1/p' "$scratch/runner")

failures=0
for round in $(seq 1 20); do
  status=0
  output=$(TEST_BUNDLE="$scratch/runner" TMPDIR="$scratch" "$scratch/repository/Tests/run.sh" 60s 2>&1) || status=$?
  shown=$(grep -E '^(◇|✔|✘) ' <<< "$output" || true)
  if [ "$shown" != "$expected" ]; then
    echo "not ok: round $round showed $(grep -c . <<< "$shown") of $(grep -c . <<< "$expected") lines:" >&2
    echo "$output" >&2
    failures=$((failures + 1))
  elif [ "$status" != 0 ] || ! grep -q '^=== test run: .* wall time (exit 0)$' <<< "$output"; then
    echo "not ok: round $round exited $status: $output" >&2
    failures=$((failures + 1))
  fi
done

status=0
output=$(STUB_STATUS=3 TEST_BUNDLE="$scratch/runner" TMPDIR="$scratch" "$scratch/repository/Tests/run.sh" 60s 2>&1) || status=$?
if [ "$status" != 3 ] || ! grep -q '(exit 3)$' <<< "$output"; then
  echo "not ok: a runner that exited 3 made run.sh exit $status: $output" >&2
  failures=$((failures + 1))
fi

if [ "$failures" -gt 0 ]; then
  echo "run.sh: $failures of 21 runs wrong" >&2
  exit 1
fi
echo "run.sh: every line shown in 20 runs in a row, a failing runner's status passed on"
