#!/usr/bin/env bash
# The browser benchmark, end to end, in one command (10–15 minutes on two quiet cores if Crawlee
# keeps the 4–7 pages/s it showed before, most of it Crawlee; on a loaded machine far longer —
# shorten both sides alike with --static 200 --js 20):
# builds release trawl and trawl-bench, installs Chromium's headless shell (make deps) and nginx
# (apt), and Playwright and Crawlee for Python from PyPI into a throwaway virtualenv
# (.build-bench/browser-venv, ignored by git; no browser is downloaded: both drive Debian's
# /usr/lib/chromium/chromium-headless-shell through executable_path), then
#   trawl-bench browser   JavaScript pages served by nginx on loopback: start → first media,
#                         pages/s at concurrency 1/4/8 and peak PSS of each process tree, trawl
#                         vs Playwright; a mixed list (2000 corpus pages + 50 JavaScript pages),
#                         trawl batch --browser auto vs Crawlee's AdaptivePlaywrightCrawler, and
#                         --browser never vs auto on the static part.
# Run from the repository's top folder: Benchmarks/browser.sh [trawl-bench browser options]
#   --rounds N (3)  --pages C1,C4,C8 (20,48,80)  --crawlee-rounds N (1)  --no-mixed
set -euo pipefail
cd "$(dirname "$0")/.."
make deps
if [ ! -x /usr/sbin/nginx ]; then
  SUDO=$( [ "$(id -u)" = 0 ] || echo sudo )
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq nginx
fi
swift build -c release --product trawl
swift build -c release --product trawl-bench
BIN="$(swift build -c release --show-bin-path)"
VENV=.build-bench/browser-venv
if ! "$VENV/bin/python" -c "import playwright, crawlee.crawlers" 2>/dev/null; then
  python3 -m venv "$VENV"
  # Playwright's pip package brings its driver only; browsers are never downloaded here.
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 "$VENV/bin/pip" install --quiet playwright 'crawlee[adaptive-crawler]'
fi
"$BIN/trawl-bench" browser --python "$VENV/bin/python" "$@"
