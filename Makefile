# mcp-bash build and test entry points. `make test` is what CI runs.
GO            ?= go
BIN           := bin/mcp-bash
# The version stamped into the binary (docs/CLI.md, "version"): the tag without its v (1.2.3),
# git describe's form past a tag (1.2.3-4-gabcdef0), or 0.0.0-<commit> when no v* tag exists
# (-dirty for uncommitted changes); outside a git checkout none, and the binary reports what the
# Go toolchain recorded.
VERSION       ?= $(shell v=$$(git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null) && echo "$${v\#v}" || \
                   { c=$$(git rev-parse --short=12 HEAD 2>/dev/null) && echo "0.0.0-$$c$$(git diff --quiet HEAD 2>/dev/null || echo -dirty)"; })
COMMIT        ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS       := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
STATICCHECK   := $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
BENCHTIME     ?= 1s
BENCHCOUNT    ?= 5
FUZZTIME      ?= 60s
CI_FUZZTIME   ?= 5s
# How long make fuzz runs the hostile-size harness (make test runs its fixed 75 s order).
HOSTILE_FOR   ?= 15m
BENCHSTAT     := $(GO) run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da

.PHONY: build install test test-race prereqs unit lint bench bench-peers fuzz stress clean conformance wasm-examples bashdiff-external original-suites cross wine

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/mcp-bash

# The same binary into $(go env GOBIN), else $(go env GOPATH)/bin: on PATH for scaffolded
# smoke tests and client configurations.
install:
	CGO_ENABLED=0 $(GO) install -trimpath -ldflags '$(LDFLAGS)' ./cmd/mcp-bash

# The TypeScript clients and the official conformance suite, pinned in test/clients/node.
NODE_DEPS     := test/clients/node/node_modules/.package-lock.json
$(NODE_DEPS): test/clients/node/package.json test/clients/node/package-lock.json
	cd test/clients/node && npm ci --no-audit --no-fund || \
	  { echo "make: npm ci failed in test/clients/node (the first run needs network access to the npm registry)" >&2; exit 1; }
	@touch $@

# The WebAssembly examples (Go guests built with GOOS=wasip1); the .wasm files are never committed.
WASM_EXAMPLES := examples/20-wasm-tool/tools/stats/tool.wasm=./examples/20-wasm-tool/src/stats \
                 examples/21-wasm-command/bin/tally.wasm=./examples/21-wasm-command/src/tally
wasm-examples:
	@set -e; for pair in $(WASM_EXAMPLES); do out=$${pair%%=*}; pkg=$${pair#*=}; mkdir -p $$(dirname $$out); \
	  echo "GOOS=wasip1 GOARCH=wasm $(GO) build -o $$out $$pkg"; \
	  GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 $(GO) build -trimpath -o $$out $$pkg; done

# What make test needs on the machine (README.md, "Prerequisites"): one line per missing tool.
prereqs:
	@GO=$(GO) test/prereqs.sh

# Everything: static checks, unit tests and end-to-end tests against the binary built above
# (with the official conformance suite, in the same run so that it overlaps the other
# packages), the Go client matrix, and short fuzzing. Packages run $(TEST_P) at a time: most
# of an end-to-end package's time is spent waiting on the servers it starts. Test timeouts
# are backstops (tests wait on events); the whole run's is generous for a loaded machine.
TEST_P        ?= 4
TEST_TIMEOUT  ?= 30m
TEST_ENV      := MCPBASH_TEST_BINARY=$(CURDIR)/$(BIN) MCPBASH_REQUIRE_SHELLCHECK=1
test: prereqs build wasm-examples lint cross wine $(NODE_DEPS)
	$(TEST_ENV) MCPBASH_CONFORMANCE=1 $(GO) test -count=1 -p $(TEST_P) -timeout $(TEST_TIMEOUT) ./...
	cd test/clients/go && $(TEST_ENV) $(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./...
	$(MAKE) --no-print-directory test-race
	GO=$(GO) test/fuzz.sh $(CI_FUZZTIME)

# Every release target builds with CGO_ENABLED=0 (linux, darwin, windows; amd64 and arm64), each
# GOOS vets, and the test binaries of darwin and windows link (test/crossbuild.sh; the host's own
# target is left to lint and the tests).
cross:
	GO=$(GO) test/crossbuild.sh

# The Windows build under Wine: the engines' and the sandbox filesystem's unit tests as
# windows/amd64 test binaries, and the stdio end-to-end tests of the Windows server
# (test/wine.sh; needs wine64 and mingw-w64: .ci/run installs them).
wine: build
	GO=$(GO) VERSION=$(VERSION) MCPBASH_TEST_BINARY=$(CURDIR)/$(BIN) test/wine.sh

# The concurrent paths under the race detector: the unit tests of the stream, queue and tenant
# packages, and the HTTP end-to-end tests against a -race build of the server (the harness fails
# a test whose server reported a data race; a race there once corrupted keep-alive connections).
RACE_BIN      := bin/race/mcp-bash
test-race:
	CGO_ENABLED=1 $(GO) build -race -o $(RACE_BIN) ./cmd/mcp-bash
	CGO_ENABLED=1 $(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) ./host/internal/sse/... ./host/internal/fairq/... ./host/internal/tenants/...
	MCPBASH_TEST_BINARY=$(CURDIR)/$(RACE_BIN) $(GO) test -count=1 -timeout $(TEST_TIMEOUT) -run 'HTTP' ./test/e2e

# Every fuzz target (test/fuzz.sh finds them) for $(FUZZTIME) each; crashers land in the
# package's testdata/fuzz and are committed as regression seeds once fixed. Then the
# hostile-size harness for $(HOSTILE_FOR) in a random order (a failure prints its seed and case).
fuzz:
	GO=$(GO) test/fuzz.sh $(FUZZTIME)
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) -run '^TestHostileSizes$$' ./interp/ -args -hostile=$(HOSTILE_FOR)

# The stress suite at full counts (make test runs it with small ones).
stress: build
	MCPBASH_TEST_BINARY=$(CURDIR)/$(BIN) $(GO) test -count=1 -v -timeout 30m ./test/stress/ -full
	MCPBASH_TEST_BINARY=$(CURDIR)/$(BIN) MCPBASH_TENANTS_LOAD_ROUNDS=10 $(GO) test -count=1 -v -timeout 30m \
	  -run TestTenantsQuotasAndFairness ./test/security/

# The differential harness (test/bashdiff) over a corpus kept outside the repository: the Oils
# spec tests' spec/*.test.sh, or files of test/bashdiff's format. It measures, never fails:
# identical, loudly different and silently different cases per subject (the bare evaluator,
# the sandbox engine through the binary). OUT=FILE writes every case's result as JSON. bash runs
# the cases as the user who runs make: run it as an unprivileged one.
bashdiff-external: build
	@test -n "$(CORPUS)" || { echo "usage: make bashdiff-external CORPUS=DIR [OUT=FILE]" >&2; exit 2; }
	@MCPBASH_TEST_BINARY=$(CURDIR)/$(BIN) $(GO) test -count=1 -v -timeout 60m -run '^TestExternal$$' ./test/bashdiff/ \
	  -bashdiff.external=$(abspath $(CORPUS)) $(if $(OUT),-bashdiff.out=$(abspath $(OUT))) \
	  | grep -E '^\s+corpus_test\.go:[0-9]+: (eval|engine) |^(ok|FAIL|---)'

# The original Bash framework's own suites (test/original-suites.sh) against this binary, from a
# checkout of mcp-bash-framework kept outside the repository (it is copied, never modified).
# Fails on a suite that fails and test/original-suites.known does not list. SUITES=... runs only
# those; SUITE_TIMEOUT (seconds, default 300) bounds each.
original-suites: build
	@test -n "$(ORIGINAL)" || { echo "usage: make original-suites ORIGINAL=DIR [SUITES='test_tools.sh ...']" >&2; exit 2; }
	test/original-suites.sh $(BIN) $(abspath $(ORIGINAL)) $(SUITES)

unit:
	$(GO) test -count=1 $$($(GO) list ./... | grep -v /test/)

lint:
	@out=$$($(STATICCHECK) -version 2>&1) || { echo "make lint: cannot build staticcheck (the first run needs network access to the Go module proxy): $$(echo "$$out" | tail -n1)" >&2; exit 1; }
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...
	cd test/clients/go && $(GO) vet ./... && $(STATICCHECK) ./...

# Benchmarks (never timed assertions): $(BENCHCOUNT) runs each, summarised as medians by benchstat.
bench: build
	@mkdir -p dist
	MCPBASH_TEST_BINARY=$(CURDIR)/$(BIN) $(GO) test -run '^$$' -bench . -benchtime $(BENCHTIME) -count $(BENCHCOUNT) \
	  ./host/... ./test/bench/... | tee dist/bench.txt
	$(BENCHSTAT) dist/bench.txt
	$(MAKE) --no-print-directory bench-peers

# mcp-bash vs mcp-go and go-sdk servers with an equivalent Go hello tool, same client, one run:
# the markdown table of docs/PERFORMANCE.md (medians of $(BENCHCOUNT) runs, ratios, the bars),
# over stdio, then over Streamable HTTP on loopback (with the memory of an idle session).
bench-peers: build
	@mkdir -p dist
	cd test/clients/go && MCPBASH_TEST_BINARY=$(CURDIR)/$(BIN) $(GO) run ./cmd/bench-peers -runs $(BENCHCOUNT) -o $(CURDIR)/dist/bench-peers.md
	cd test/clients/go && MCPBASH_TEST_BINARY=$(CURDIR)/$(BIN) $(GO) run ./cmd/bench-peers -http -runs $(BENCHCOUNT) -o $(CURDIR)/dist/bench-peers-http.md

# The official MCP conformance suite (server scenarios, 2025-11-25) directly against
# `serve --http`, and against stdio through the test bridge in test/conformance;
# test/conformance/baseline.yml lists expected failures.
conformance: build $(NODE_DEPS)
	MCPBASH_CONFORMANCE=1 MCPBASH_TEST_BINARY=$(CURDIR)/$(BIN) $(GO) test -count=1 -v -run '^TestConformanceSuite(Stdio)?$$' ./test/conformance/

clean:
	rm -rf bin dist
	rm -f $(foreach pair,$(WASM_EXAMPLES),$(firstword $(subst =, ,$(pair))))

# A reproducible OCI image, built without a Docker daemon (deploy/image): the static binary,
# the build machine's CA roots, user 65532, no shell; every timestamp is SOURCE_DATE_EPOCH (the
# last commit's time), so the same commit gives the same digest. dist/image is an OCI layout
# (push with crane, skopeo or podman); dist/image.tar loads with `docker load`.
IMAGE_EPOCH   ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
IMAGE_ARCH    ?= amd64
.PHONY: image release-snapshot
image:
	@mkdir -p dist/image-build
	CGO_ENABLED=0 GOOS=linux GOARCH=$(IMAGE_ARCH) $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o dist/image-build/mcp-bash ./cmd/mcp-bash
	rm -rf dist/image dist/image.tar
	SOURCE_DATE_EPOCH=$(IMAGE_EPOCH) $(GO) run ./deploy/image -binary dist/image-build/mcp-bash -arch $(IMAGE_ARCH) \
	  -version $(VERSION) -revision "$$(git rev-parse HEAD 2>/dev/null)" -out dist/image -tar dist/image.tar

# The release dry run (deploy/release/dry-run.sh): GoReleaser's snapshot of HEAD, twice, from
# clones at two paths, the second with an empty build cache; fails unless every release file
# (archives, checksums.txt, SBOMs, image tarballs, Homebrew formula) is the same bytes. Leaves
# the first run's release in dist/, where bundle finds its binaries. Not part of `make test`:
# it compiles everything twice (18 minutes for the Linux targets on 2 loaded cores, most of it
# the run with an empty build cache). RELEASE_GOOS=linux narrows it to some operating systems.
release-snapshot:
	GO=$(GO) deploy/release/dry-run.sh
