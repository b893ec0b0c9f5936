#!/usr/bin/env bash
# `make check`: builds the tests and runs the suite less every test tagged browser, postgres, process or corpus
# (the tags are in Sources/TrawlTesting/Tags.swift), then its wall time. `make test` runs them all.
#
# swift test filters by test name only, so the tagged tests are found in the test bundle's own
# listing: `--list-tests` with an event stream (version 0 carries each test's tags) names every
# test and suite with its tags, and each tagged one becomes a `--skip` pattern for its ID (a
# suite's pattern covers the tests in it). The rest runs through Tests/run.sh, by the bundle
# itself rather than `swift test` (which makes the next build slow: see Tests/run.sh).
#
#   Tests/check.sh [LIMIT]     LIMIT as for Tests/run.sh (default 5m)
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s%N)
limit=${1:-5m}
swift=${SWIFT:-swift}
tags=(browser postgres process corpus)

"$swift" build --build-tests
bin=$("$swift" build --show-bin-path)
bundle=$(ls -d "$bin"/*PackageTests.xctest | head -n 1)
listing=.build/check-listing.jsonl
rm -f "$listing"
"$bundle" --testing-library swift-testing --list-tests \
  --event-stream-output-path "$listing" --event-stream-version 0 >/dev/null

# One --skip per tagged test or suite: its ID, escaped, anchored at the start, ending there or at
# the "/" before a member's name.
skips=()
while IFS= read -r pattern; do skips+=(--skip "$pattern"); done < <(python3 - "$listing" "${tags[@]}" <<'EOF'
import json, re, sys
listing, tags = sys.argv[1], {"." + tag for tag in sys.argv[2:]}
tested = tagged = 0
for line in open(listing):
    record = json.loads(line)
    if record.get("kind") != "test":
        continue
    test = record["payload"]
    tested += test["kind"] == "function"
    if tags & set(test.get("_tags", [])):
        tagged += 1
        print("^" + re.escape(test["id"]) + "(/|$)")
if tested == 0:
    sys.exit("the test listing names no test: is the event stream's format still version 0?")
print(f"check: {tagged} tests and suites tagged {', '.join(sorted(tags))} are left to `make test`", file=sys.stderr)
EOF
)
if ((${#skips[@]} == 0)); then
  echo "check: no tagged test found in the listing; refusing to run the whole suite as the fast one" >&2
  exit 1
fi

status=0
TEST_BUNDLE="$bundle" Tests/run.sh "$limit" "${skips[@]}" || status=$?
tenths=$(( ($(date +%s%N) - started) / 100000000 ))
echo "=== make check: $((tenths / 10)).$((tenths % 10)) s wall time, build included (exit $status)"
exit "$status"
