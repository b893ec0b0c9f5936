#!/usr/bin/env bash
# The browser benchmark, end to end, in one command (10–15 minutes on two quiet cores if Crawlee
# keeps the 4–7 pages/s it showed before, most of it Crawlee; on a loaded machine far longer —
# shorten both sides alike with --static 200 --js 20):
# builds release trawl and trawl-bench, installs Chromium's headless shell (make deps) and nginx
# (apt), and Playwright and Crawlee for Python from PyPI into a throwaway virtualenv
# (.build-bench/browser-venv, ignored by git; no browser is downloaded: both drive Debian's
# /usr/lib/chromium/chromium-headless-shell through executable_path), then
#   trawl-bench browser   JavaScript pages served by nginx on loopback (two kinds): start → first media,
#                         pages/s at concurrency 1/4/8 and peak PSS of each process tree, trawl
#                         vs Playwright; a mixed list (2000 corpus pages + 50 JavaScript pages),
#                         trawl batch --browser auto vs Crawlee's AdaptivePlaywrightCrawler, and
#                         --browser never vs auto on the static part.
# Run from the repository's top folder: Benchmarks/browser.sh [trawl-bench browser options]
#   --rounds N (3)  --pages C1,C4,C8 (20,48,80)  --crawlee-rounds N (1)  --no-mixed
#   --concurrency 1,4,8  --kinds js,jt (js: the script fetches at once; jt: after a 150 ms timer,
#   with a 300 ms timer still pending once the media are in)  --no-first
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
bench_setup
bench_venv .build-bench/browser-venv "playwright, crawlee.crawlers" playwright 'crawlee[adaptive-crawler]'
"$BIN/trawl-bench" browser --python "$PYTHON" "$@"
