# Trawl — the two commands a fresh machine needs (see README.md).
#   make demo   replay every recorded case in Recordings/ through the pipeline (no network)
#   make test   the whole test suite (TEST_LIMIT=25m: the most the run may take), the scripts' tests, then the API contract
#   make check  the fast part of the suite: every test not tagged browser, postgres, process or corpus
#   make fuzz SECONDS=N   every libFuzzer target in Fuzz/ for N seconds (fails if any crashed)
#   make docs   the DocC catalogs of Trawl, TrawlCore, TrawlServer and TrawlQueue, into .build/docs
#   make serve-demo   trawl serve on the bundled recordings (no network): open the printed address
SWIFT ?= swift

.PHONY: deps build demo test script-tests check contract format format-check fuzz bench bench-build bench-start bench-batch bench-browser bench-index bench-probe docs clean serve-demo bench-serve

# Installs what is missing with apt (root, as on CI; sudo otherwise): the C libraries, PostgreSQL's
# server, Chromium's headless shell, ffmpeg, ImageMagick and shellcheck (scripts/install-deps.sh).
deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

demo: deps
	$(SWIFT) build --product trawl
	$$($(SWIFT) build --show-bin-path)/trawl demo

# Built first, then run by Tests/run.sh: the output line by line as it happens (a hung run's log
# shows where it stopped) and the whole run stopped after TEST_LIMIT, its unfinished tests named.
TEST_LIMIT ?= 25m
test: deps
	$(SWIFT) build --build-tests
	SWIFT=$(SWIFT) Tests/run.sh $(TEST_LIMIT)
	Tests/Scripts/run-all.sh
	.ci/contract

# The shell scripts' tests (Tests/Scripts/): shellcheck over every script, `make deps` proved
# against a stub apt-get with every part missing, Tests/run.sh's log shown whole.
script-tests: deps
	Tests/Scripts/run-all.sh

# Tests/check.sh: builds the tests, runs every one not tagged browser, postgres, process or corpus
# (Sources/TrawlTesting/Tags.swift) and prints the wall time: no Chromium, no PostgreSQL, no child
# process, no corpus scan. The quick loop while editing; `make test` stays the whole suite.
CHECK_LIMIT ?= 5m
check: deps
	SWIFT=$(SWIFT) Tests/check.sh $(CHECK_LIMIT)

# The API contract: schemathesis (from PyPI) against trawl serve --replay Recordings on loopback.
contract: deps
	.ci/contract

# libFuzzer targets with ASan (Fuzz/run.sh): seeds from ../shared/corpus and Recordings/,
# one line per target with its executions and crashes; crashing inputs in Fuzz/.build/fuzz/artifacts/.
SECONDS ?= 60
fuzz: deps
	Fuzz/run.sh $(SECONDS)

# The benchmarks are a package of their own (Benchmarks/Package.swift): building or testing
# Trawl never compiles them.
bench: deps
	$(SWIFT) run -c release --package-path Benchmarks trawl-bench

# A debug build of every benchmark tool, as CI makes to prove they still compile.
BENCH_PRODUCTS := trawl-bench trawl-browser-bench trawl-index-bench
bench-build: deps
	@for product in $(BENCH_PRODUCTS); do $(SWIFT) build --package-path Benchmarks --product $$product || exit 1; done

# A whole trawl process, start to exit (--help, a replayed resolve): median wall time and peak RSS.
bench-start: deps
	Benchmarks/process-start.sh

# trawl batch end to end vs libxml2's limit and Scrapy (installed from PyPI into .build-bench/).
bench-batch: deps
	Benchmarks/batch.sh

# What --probe adds per page: trawl batch with and without it, media served by nginx with ranges.
bench-probe: deps
	Benchmarks/probe.sh

# The local index at a million synthetic rows: insert rate, size, !local p50/p99 with facets.
ROWS ?= 1000000
bench-index: deps
	$(SWIFT) run -c release --package-path Benchmarks trawl-index-bench --rows $(ROWS)

# The DocC catalogs of the libraries people embed — Trawl (Sources/Trawl/Trawl.docc), TrawlCore,
# TrawlServer and TrawlQueue — as static sites in .build/docs/<Target> (open
# .build/docs/Trawl/documentation/trawl/index.html through any static file server).
DOC_TARGETS := Trawl TrawlCore TrawlServer TrawlQueue TrawlQueueWorker
docs: deps
	@mkdir -p .build/docs
	@for target in $(DOC_TARGETS); do \
	  base=$$(echo $$target | tr '[:upper:]' '[:lower:]'); \
	  $(SWIFT) package --allow-writing-to-directory .build/docs/$$target generate-documentation --target $$target \
	    --disable-indexing --transform-for-static-hosting --hosting-base-path $$base --output-path .build/docs/$$target \
	    --warnings-as-errors || exit 1; \
	done

# trawl vs Playwright (same Chromium) and Crawlee's adaptive crawler, JavaScript pages on loopback.
bench-browser: deps
	Benchmarks/browser.sh

# The API and the web page on the bundled recordings: try /?q=!giphy cats or a recorded page URL.
PORT ?= 8080
serve-demo: deps
	$(SWIFT) build --product trawl
	$$($(SWIFT) build --show-bin-path)/trawl serve --replay Recordings --port $(PORT) --data-dir .build/serve-demo

# wrk against a release `trawl serve`: /healthz and cached resolves, 64 connections.
bench-serve: deps
	Benchmarks/serve.sh

# swift-format with the repository's .swift-format, over every Swift file but the fixtures.
SWIFT_FILES = git ls-files '*.swift' ':!:Tests/Fixtures' ':!:Package.swift' ':!:*/Package.swift'

format:
	$(SWIFT) format -i --parallel $$($(SWIFT_FILES))

# Fails naming each file `make format` would change (CI runs it).
format-check:
	@bad=0; for f in $$($(SWIFT_FILES)); do $(SWIFT) format "$$f" | cmp -s - "$$f" || { echo "not formatted: $$f (make format)"; bad=1; }; done; exit $$bad

clean:
	rm -rf .build Fuzz/.build Benchmarks/.build
