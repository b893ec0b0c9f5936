#!/usr/bin/env bash
# Builds the libFuzzer targets (-sanitize=fuzzer,address), makes their seed corpora from
# ../shared/corpus (or $TRAWL_CORPUS) and Recordings/, runs each target for the given number of
# seconds and prints one line per target:
#   fuzz <target>: <executions> executions, <crashes> crashes
# Exits 1 if any target crashed (a trap, an ASan report, a timeout or running out of memory).
# Usage: Fuzz/run.sh [SECONDS] (default 60); FUZZ_TARGETS="query url" runs only those;
# FUZZ_MAX_LEN=N caps every target's input length at N bytes instead of its own default, and
# FUZZ_RUNS=N ends each target after N executions if its time is not up first (long campaigns:
# html-scanner runs ~40 inputs/s at 256 KiB and ~3 000/s at 1 KiB).
# Everything it writes is under Fuzz/.build/ (ignored): seeds/, corpus/ (inputs libFuzzer found
# new coverage with, kept between runs), artifacts/<target>/ (crashing inputs), logs/.
set -euo pipefail
cd "$(dirname "$0")"
budget="${1:-60}"
targets="${FUZZ_TARGETS:-query url html-scanner script-json har charset probe probe-readers}"
repository="$(cd .. && pwd)"
corpus="${TRAWL_CORPUS:-$(cd ../.. && pwd)/shared/corpus}"
work=.build/fuzz
mkdir -p .build

if [ ! -f "$corpus/sites/manifest.json" ] || [ ! -d "$corpus/generic" ]; then
    echo "fuzz: no corpus at $corpus (set TRAWL_CORPUS to the shared/corpus folder)" >&2
    exit 2
fi

# (gold warns once per target that it cannot export an ASan symbol: harmless, left out.)
build_status=0
swift build -c release --scratch-path .build \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing > .build/fuzz-build.log 2>&1 \
    || build_status=$?
grep -v "Cannot export local symbol '__asan_extra_spill_area'" .build/fuzz-build.log || true
[ "$build_status" -eq 0 ] || { echo "fuzz: the build failed" >&2; exit 2; }
bin="$(swift build -c release --scratch-path .build --show-bin-path)"
for target in $targets; do
    [ -x "$bin/fuzz-$target" ] || { echo "fuzz: $bin/fuzz-$target was not built" >&2; exit 2; }
done

./seeds.sh "$corpus" "$repository/Recordings" "$work/seeds"

# The Swift runtime's own crash backtracer reads the stack in a way ASan reports as a bug of
# its own; libFuzzer prints the stack instead.
export SWIFT_BACKTRACE=enable=no

options() {
    if [ -n "${FUZZ_MAX_LEN:-}" ]; then
        default_options "$1" | sed "s/-max_len=[0-9]*/-max_len=$FUZZ_MAX_LEN/"
    else
        default_options "$1"
    fi
}

default_options() {
    case "$1" in
        query) echo "-max_len=4096 -dict=Dictionaries/query.dict" ;;
        url) echo "-max_len=4096 -dict=Dictionaries/url.dict" ;;
        html-scanner) echo "-max_len=262144 -dict=Dictionaries/html.dict" ;;
        script-json) echo "-max_len=65536 -dict=Dictionaries/json.dict" ;;
        har) echo "-max_len=65536 -dict=Dictionaries/json.dict" ;;
        charset) echo "-max_len=16384 -dict=Dictionaries/html.dict" ;;
        probe) echo "-max_len=65536 -dict=Dictionaries/media.dict" ;;
        probe-readers) echo "-max_len=65536 -dict=Dictionaries/media.dict" ;;
    esac
}

failed=0
summary=""
for target in $targets; do
    mkdir -p "$work/corpus/$target" "$work/artifacts/$target" "$work/logs"
    log="$work/logs/$target.log"
    : > "$log"
    executions=0
    crashes=0
    started=$(date +%s)
    # A crash ends a libFuzzer run: start again with what is left of the budget, so one
    # crash does not hide the rest of the target's time (at most 10 crashes per target).
    while :; do
        left=$(( budget - ($(date +%s) - started) ))
        [ "$left" -ge 1 ] || break
        before=$(ls "$work/artifacts/$target" | wc -l)
        status=0
        # shellcheck disable=SC2046
        "$bin/fuzz-$target" "$work/corpus/$target" "$work/seeds/$target" $(options "$target") \
            -max_total_time="$left" ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix="$work/artifacts/$target/" >> "$log" 2>&1 || status=$?
        runs=$(grep -a '^stat::number_of_executed_units:' "$log" | tail -1 | awk '{print $2}')
        [ -n "$runs" ] || runs=$(grep -aoE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
        executions=$(( executions + ${runs:-0} ))
        # The next round's stats line must not be mistaken for this one's.
        sed -i 's/^stat::number_of_executed_units:/counted::number_of_executed_units:/' "$log"
        after=$(ls "$work/artifacts/$target" | wc -l)
        if [ "$status" -eq 0 ]; then break; fi
        crashes=$(( crashes + (after > before ? after - before : 1) ))
        [ "$crashes" -lt 10 ] || break
    done
    line="fuzz $target: $executions executions, $crashes crashes"
    echo "$line"
    summary+="$line"$'\n'
    if [ "$crashes" -gt 0 ]; then
        failed=1
        grep -aE 'Fatal error|ERROR: (AddressSanitizer|libFuzzer)|SUMMARY' "$log" | sort | uniq -c | head -5 | sed 's/^/    /'
        ls "$work/artifacts/$target" | sed "s|^|    artifact: Fuzz/$work/artifacts/$target/|" | tail -10
    fi
done
printf '\n%s' "$summary"
exit "$failed"
