# Set-up the benchmark scripts share; sourced (not run) from the repository's top folder:
#   source Benchmarks/lib.sh
#   bench_setup                        make deps, nginx from apt, release trawl and trawl-bench; sets BIN
#                                      (trawl-bench's folder, in the benchmarks' own package)
#   bench_venv DIR IMPORT PACKAGE…     a throwaway virtualenv under .build-bench/ (ignored by git)
#                                      with PACKAGE… from PyPI, unless `python -c "import IMPORT"`
#                                      already works there
# Traffic stays on loopback: nginx serves on 127.0.0.1 only (trawl-bench starts it).

# make deps (Chromium's headless shell, PostgreSQL…), nginx (apt, only if missing), then the
# release builds of trawl (the top package: trawl-bench spawns .build/release/trawl) and
# trawl-bench (the package in Benchmarks/); BIN is trawl-bench's folder.
bench_setup() {
  make deps
  if [ ! -x /usr/sbin/nginx ]; then
    local sudo
    sudo=$( [ "$(id -u)" = 0 ] || echo sudo )
    $sudo apt-get update -qq && $sudo apt-get install -y -qq nginx
  fi
  swift build -c release --product trawl
  swift build -c release --package-path Benchmarks --product trawl-bench
  BIN="$(swift build -c release --package-path Benchmarks --show-bin-path)"
}

# bench_venv DIR IMPORT PACKAGE…: sets PYTHON to DIR's python.
bench_venv() {
  local dir="$1" import="$2"
  shift 2
  if ! "$dir/bin/python" -c "import $import" 2>/dev/null; then
    python3 -m venv "$dir"
    # Playwright's pip package brings its driver only; browsers are never downloaded here.
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 "$dir/bin/pip" install --quiet "$@"
  fi
  PYTHON="$dir/bin/python"
}
