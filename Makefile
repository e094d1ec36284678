# lockcheck: `make run` for the main job, `make test` for the tests.
GO ?= go
PKGS ?= ./...

.PHONY: all deps build run test test-short vet lint fmt bench nightly scoreboard catch-rates fp-campaign checker-soak clean

all: vet test

# deps installs what the tests and runs need when it is missing: redis-server
# (and redis-cli), nftables, node and npm (the node drivers) and python3-redis
# for /usr/bin/python3 (the redis-py driver), from Debian/Ubuntu packages; then
# the npm packages of each node driver (impl/drivers/*/package-lock.json) when
# its node_modules is missing or older than its package-lock.json; and java 17
# and Maven, then the Redisson driver (impl/drivers/redisson-java/build.sh:
# mvn package of the pinned pom (other releases build on first use into
# lockcheck's cache: docs/drivers.md), skipped when up to date) and the RedisLockRegistry driver
# (impl/drivers/spring-redis-lock/build.sh, likewise); then the virtualenv (.venv, from /usr/bin/python3 with python3-venv) of each Python
# driver with a requirements.txt, pinned with hashes, when it is missing or
# older than its requirements.txt; then the rslock driver (impl/drivers/rslock:
# cargo build --release --locked into its target/, when the binary is missing or
# older than its sources), installing cargo when it is missing (Debian's
# cargo-web, Rust 1.96: rslock 0.10 and redis-rs 1.8 need Rust 1.88; else cargo);
# a Rust too old to build it is a warning, and its subjects and tests skip.
deps:
	@missing=""; \
	command -v redis-server >/dev/null 2>&1 || missing="$$missing redis-server"; \
	command -v redis-cli >/dev/null 2>&1 || missing="$$missing redis-tools"; \
	command -v nft >/dev/null 2>&1 || missing="$$missing nftables"; \
	command -v node >/dev/null 2>&1 || missing="$$missing nodejs"; \
	command -v npm >/dev/null 2>&1 || missing="$$missing npm"; \
	/usr/bin/python3 -c 'import redis' >/dev/null 2>&1 || missing="$$missing python3-redis"; \
	/usr/bin/python3 -c 'import ensurepip' >/dev/null 2>&1 || missing="$$missing python3-venv"; \
	command -v gcc >/dev/null 2>&1 || missing="$$missing gcc"; \
	command -v javac >/dev/null 2>&1 || missing="$$missing openjdk-17-jdk-headless"; \
	command -v mvn >/dev/null 2>&1 || missing="$$missing maven"; \
	if [ -n "$$missing" ]; then \
	  command -v apt-get >/dev/null 2>&1 || { echo "lockcheck needs:$$missing (install them with your package manager)" >&2; exit 1; }; \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	  echo "installing$$missing ..." >&2; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing >/dev/null || exit 1; \
	fi; \
	for lock in impl/drivers/*/package-lock.json; do \
	  [ -f "$$lock" ] || continue; \
	  dir=$${lock%/package-lock.json}; \
	  [ -d "$$dir/node_modules" ] && [ ! "$$lock" -nt "$$dir/node_modules" ] && continue; \
	  echo "installing the npm packages of $$dir ..." >&2; \
	  (cd "$$dir" && npm ci --silent --no-audit --no-fund && touch node_modules) || { echo "npm ci failed in $$dir" >&2; exit 1; }; \
	done; \
	for req in impl/drivers/*/requirements.txt; do \
	  [ -f "$$req" ] || continue; \
	  dir=$${req%/requirements.txt}; \
	  [ -f "$$dir/.venv/.installed" ] && [ ! "$$req" -nt "$$dir/.venv/.installed" ] && continue; \
	  echo "creating the virtualenv of $$dir ..." >&2; \
	  rm -rf "$$dir/.venv" && /usr/bin/python3 -m venv "$$dir/.venv" && \
	  "$$dir/.venv/bin/pip" install -q --disable-pip-version-check --require-hashes -r "$$req" && \
	  touch "$$dir/.venv/.installed" || { echo "pip install failed in $$dir" >&2; exit 1; }; \
	done; \
	shim=faults/clockshim; \
	[ "$$shim/libclockshim.so" -nt "$$shim/shim.c" ] || gcc -shared -fPIC -O2 -Wall -o "$$shim/libclockshim.so" "$$shim/shim.c" -ldl || exit 1; \
	impl/drivers/redisson-java/build.sh || { echo "the Redisson driver did not build (impl/drivers/redisson-java/build.sh)" >&2; exit 1; }; \
	if ! command -v cargo >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	  echo "installing cargo ..." >&2; \
	  $$sudo apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq cargo-web >/dev/null 2>&1 || \
	    DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq cargo >/dev/null; \
	fi; \
	rs=impl/drivers/rslock; \
	if [ ! -x "$$rs/target/release/rslock-driver" ] || [ -n "$$(find $$rs/src $$rs/Cargo.toml $$rs/Cargo.lock -newer $$rs/target/release/rslock-driver)" ]; then \
	  echo "building the rslock driver ..." >&2; \
	  (cd "$$rs" && cargo build --release --locked -q) || \
	    echo "warning: the rslock driver did not build (cargo build --release --locked in $$rs; rslock 0.10 needs Rust 1.88 or later): the rslock subjects and tests are skipped" >&2; \
	fi
	@impl/drivers/spring-redis-lock/build.sh || { echo "the RedisLockRegistry driver did not build (impl/drivers/spring-redis-lock/build.sh)" >&2; exit 1; }

build:
	$(GO) build -o bin/lockcheck ./cmd/lockcheck

## run: the default run: own redis-server, default workload on the reentrant and fair locks, checked.
run: deps build
	./bin/lockcheck run

## test: unit and integration tests (with -race); starts its own redis-servers; then locktest from a module of its own (workloads/locktest/testdata/userlock: a user's lock passes, its planted bug is caught); then 20 s of fuzzing the history reader and checkers.
test: deps
	$(GO) vet $(PKGS)
	$(GO) test -race -count=1 -timeout 14m $(PKGS)
	cd workloads/locktest/testdata/userlock && $(GO) vet ./... && $(GO) test -race -short -count=1 -timeout 5m ./...
	$(GO) test -run='^$$' -fuzz='^FuzzHistory$$' -fuzztime=20s ./model/

## test-short: unit tests only, no Redis needed.
test-short:
	$(GO) test -race -short -count=1 $(PKGS)

vet:
	$(GO) vet $(PKGS)

## lint: gofmt, go vet, and go.mod/go.sum as `go mod tidy` leaves them (CI runs it before the tests).
lint: vet
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) mod tidy -diff || { echo "go.mod/go.sum are not tidy: run go mod tidy" >&2; exit 1; }
	cd workloads/locktest/testdata/userlock && $(GO) mod tidy -diff || { echo "workloads/locktest/testdata/userlock: go.mod/go.sum are not tidy: run go mod tidy there" >&2; exit 1; }

fmt:
	gofmt -l -w .

## nightly: FUZZTIME (default 10m) of fuzzing the history reader and checkers, then every scenario × every reference lock (reentrant, fair, fenced, simple, redlock, reentrant-wait; each where its topology allows) × 3 seeds; matrix in results/runs/nightly/<time>/matrix.md.
nightly: deps build
	$(GO) test -run='^$$' -fuzz='^FuzzHistory$$' -fuzztime=$${FUZZTIME:-10m} ./model/
	./bin/lockcheck nightly --seeds $${SEEDS:-3}

## scoreboard: every library people run (external drivers and Go peers at their defaults) × every scenario × SEEDS
## fresh seeds (default 5, from SEED_BASE, default the date as YYYYMMDD00), each finding rerun RERUNS times
## (default 1); the page in results/scoreboard/ (README.md, scoreboard.html, report.html, kept histories).
## In parts: bin/lockcheck scoreboard --seed-base B --subjects A,B --out DIR (or --shard I/N), then
## bin/lockcheck scoreboard render DIR….
scoreboard: deps build
	./bin/lockcheck scoreboard --seeds $${SEEDS:-5} --reruns $${RERUNS:-1} $(if $(SEED_BASE),--seed-base $(SEED_BASE),)

## catch-rates: every mutant on `lockcheck run --workload hunt --duration 10s`, or on its exposing scenario
## (Mutant.Scenario: caught when fault-allowance fires, a violation beyond the fault), over SEEDS seeds (default
## 20; the reference locks and the mutants' base, on the hunt and on those scenarios, over half as many, as
## controls): catch rate and median time to the first violation, into results/catch-rates.md. About 12 s a run:
## 70 minutes at the default.
catch-rates: deps
	LOCKCHECK_CATCH_RATES=$${SEEDS:-20} $(GO) test -count=1 -timeout 150m -run '^TestCatchRates$$' -v ./cmd/lockcheck/

## fp-campaign: every lock not known to be broken (reference, peers, drivers) on `lockcheck run --workload hunt
## --duration 10s` over SEEDS fresh seeds (default 30, from a block derived from the date; FIRST=<seed> to choose),
## then on every unsafe scenario over the same seeds (UNSAFE=0 skips it), into results/false-positives.md. The
## targets are 0 invalid and 0 beyond the fault. About 12 s a run: 80 minutes for the first half at the default.
fp-campaign: deps
	LOCKCHECK_FP_SEEDS=$${SEEDS:-30} LOCKCHECK_FP_FIRST=$${FIRST:-} LOCKCHECK_FP_UNSAFE=$${UNSAFE:-} $(GO) test -count=1 -timeout 600m -run '^TestFalsePositives$$' -v ./cmd/lockcheck/

## checker-soak: the linearizability checker's differential tests (split vs unsplit, model vs brute force) on
## CHECKS random histories each (default 20000; `make test` runs 500), then every fuzz target of model/ for
## FUZZTIME each (default 1m).
checker-soak:
	LOCKCHECK_DIFF_CHECKS=$${CHECKS:-20000} $(GO) test -count=1 -timeout 60m -run '^(TestGroundTruthHistoriesAreValid|TestSplitEqualsWhole|TestBruteForceAgreesWithModel)$$' -v ./model/
	for f in $$($(GO) test -list '^Fuzz' ./model/ | grep '^Fuzz'); do \
	  $(GO) test -run '^$$' -fuzz "^$$f\$$" -fuzztime $${FUZZTIME:-1m} ./model/ || exit 1; \
	done

## bench: the full benchmark table (all subjects, interleaved rounds) recorded into the committed results/bench/;
## QUICK=1 for under a minute into results/runs/bench/<time> (never recorded).
bench: deps build
	./bin/lockcheck bench $(if $(QUICK),--quick,--record)

clean:
	rm -rf bin faults/clockshim/libclockshim.so
