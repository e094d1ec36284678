# lockcheck: `make run` for the main job, `make test` for the tests.
GO ?= go
PKGS ?= ./...
# The packages whose tests take longest under make test (./workloads about 10 minutes, the others 4 to 1), listed
# first so that go test builds and starts them first: the long pole then runs beside the short packages instead
# of after them (go test starts packages in the order named; a package named twice runs once). Three packages run at
# once (-p 3) on 2 cores: their runs mostly wait on timers and Redis (make test used 1.2-1.3 of the 2 cores at -p 2).
SLOW_PKGS := ./workloads/ ./cmd/lockcheck/ ./workloads/scenario/ ./workloads/permits/ ./workloads/locktest/ ./workloads/catalog/
comma := ,

.PHONY: all deps redis build run test locktest-planted test-short vet lint fmt bench bench-threads nightly scoreboard scoreboard-parts catch-rates fp-campaign checker-soak rediscover rediscover-parts release-pages timeline-browser clean

all: vet test

## deps: everything the tests and the drivers need, installed when missing (scripts/deps.sh: redis-server,
## nftables, gcc, then each driver's impl/drivers/*/build.sh); without apt-get what cannot be installed is skipped.
deps:
	scripts/deps.sh

## redis: redis-server and redis-cli only, installed when missing (all that `make run` needs besides Go).
redis:
	scripts/deps.sh redis

build:
	$(GO) build -o bin/lockcheck ./cmd/lockcheck

## run: the default run: own redis-server, default workload on the reentrant and fair locks, checked. A driver
## is built the first time a run asks for one of its subjects (its impl/drivers/*/build.sh).
run: redis build
	./bin/lockcheck run

## test: unit and integration tests (with -race); starts its own redis-servers; beside them locktest from a module of its own (workloads/locktest/testdata/userlock: a user's lock passes, its planted bug is caught), then the regression corpus without -race (the race run re-checks 1 history in 8) and 20 s of fuzzing the history reader and checkers (the semaphore models' fuzz targets run in checker-soak).
test: deps
	$(GO) vet $(PKGS)
	@# Beside the main packages (whose long pole is ./workloads) run the user's-lock module, then the corpus without
	@# -race and the fuzzing; their output follows the main packages'.
	log=$$(mktemp); \
	( ( cd workloads/locktest/testdata/userlock && $(GO) vet ./... && $(GO) test -race -short -count=1 -timeout 5m ./... ); user=$$?; \
	  echo "the regression corpus without -race, and fuzzing:"; \
	  $(GO) test -count=1 -run='^TestRegressionCorpus$$' ./cmd/lockcheck/ && \
	  $(GO) test -run='^$$' -fuzz='^FuzzHistory$$' -fuzztime=20s -parallel=1 ./model/ && exit $$user ) >$$log 2>&1 & \
	$(GO) test -race -count=1 -p 3 -timeout 20m $(if $(filter ./...,$(PKGS)),$(SLOW_PKGS)) $(PKGS); main=$$?; \
	wait $$!; beside=$$?; echo "workloads/locktest/testdata/userlock:"; cat $$log; rm -f $$log; \
	test $$main -eq 0 && test $$beside -eq 0

## locktest-planted: the user's-lock module's planted bugs (GET then DEL, SET XX renewal, a timeout taken for a grant),
## each caught by locktest.Run at its default budget (about a minute each), no hook in the lock: real pauses.
locktest-planted: deps
	cd workloads/locktest/testdata/userlock && $(GO) test -race -count=1 -timeout 15m -run '^TestPlantedBugsAreCaught$$' -v ./...

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

## scoreboard-parts: what .github/workflows/scoreboard.yml does, in parts on one machine: for each of SERVERS
## (default redis-7.0 valkey-8.1) the scoreboard in SHARDS shards (default 24) of SEEDS seeds (default 3) from
## SEED_BASE (default today, YYYYMMDD00) into out/scoreboard/SERVER-I (a part already there is kept: rerunning the
## target with the same SEED_BASE resumes), then the pages: results/scoreboard (a row per library × server; the
## README's table is its redis-7.0 rows) and results/releases. Before the pages, every recorded run is checked again by this build
## (`lockcheck scoreboard recheck`): a verdict that differs from its part's record stops the target, naming the cells
## to run again (into out/scoreboard/again-SERVER-NAME, a later part that replaces them). The servers run side by side, each its shards one after another:
## a shard took 16-19 minutes on 2 cores with the two side by side (2026-11-29/30), so the whole run takes about 7 hours.
SERVERS ?= redis-7.0 valkey-8.1
SHARDS ?= 24
scoreboard-parts: deps build
	base=$${SEED_BASE:-$$(date -u +%Y%m%d)00}; pids=; \
	for s in $(SERVERS); do ( for i in $$(seq 1 $(SHARDS)); do \
	  [ -d out/scoreboard/$$s-$$i ] && continue; \
	  ./bin/lockcheck scoreboard --server $$s --seeds $${SEEDS:-3} --seed-base $$base --shard $$i/$(SHARDS) --out out/scoreboard/$$s-$$i.part || exit 1; \
	  mv out/scoreboard/$$s-$$i.part out/scoreboard/$$s-$$i; \
	done ) & pids="$$pids $$!"; done; \
	for p in $$pids; do wait $$p || exit 1; done
	./bin/lockcheck scoreboard recheck $(foreach s,$(SERVERS),$(addprefix out/scoreboard/$(s)-,$(shell seq 1 $(SHARDS)))) $(wildcard out/scoreboard/again-*)
	./bin/lockcheck scoreboard render --page results/scoreboard $(foreach s,$(SERVERS),$(addprefix out/scoreboard/$(s)-,$(shell seq 1 $(SHARDS)))) $(wildcard out/scoreboard/again-*)
	$(MAKE) release-pages

## rediscover: every bug of results/known-bugs.json hunted again (docs/hunt.md, Rediscovery): its buggy release
## SUBJECT@BUGGY with the hunt's general mix for BUDGET (default 10m), then its fixed release from the same SEED
## for as long; the table into results/rediscovery.md and results/rediscovery.json. BUGS=ID,... hunts a few;
## STAND_INS=NAME@VERSION=SUBJECT,... runs SUBJECT for a release the subject registry does not name yet.
rediscover: deps build
	./bin/lockcheck rediscover --budget $${BUDGET:-10m} --out results/rediscovery.md --json results/rediscovery.json $(if $(BUGS),--bugs $(BUGS),) $(if $(STAND_INS),--stand-in $(STAND_INS),) $(if $(SEED),--seed $(SEED),)

## rediscover-parts: make rediscover in parts that survive a stop, for the long campaign: each bug of the catalog
## (BUGS=ID,... for a few) hunted alone, BUDGET (default 10m) a release from SEED (default 2611300), into
## out/rediscover/SEED-BUDGET/; a bug's part once done is kept in results/findings/rediscovery-SEED-BUDGET/ with
## its hunts' plan.json files (the page's rerun commands read them), gzipped (ID.json.gz: --merge reads it), and
## skipped when run again; then the page (PAGE, default results/rediscovery: .md and .json) merged from every part
## kept, in the order they were hunted (their first hunt's time): a bug hunted again (ID@COMMIT) keeps its last row. Exit 1 from rediscover (a fixed
## release flagged with its bug's signature) is a result, kept; 2 stops the target. About 2 x BUDGET a producible
## bug plus shrinking and replays: some 12 hours at 10 minutes for the catalog's 30 producible bugs on 2 cores.
PAGE ?= results/rediscovery
rediscover-parts: deps build
	seed=$${SEED:-2611300}; budget=$${BUDGET:-10m}; out=out/rediscover/$$seed-$$budget; keep=results/findings/rediscovery-$$seed-$$budget; \
	ids="$(subst $(comma), ,$(BUGS))"; [ -n "$$ids" ] || ids=$$(./bin/lockcheck rediscover --list | awk 'NR > 1 {print $$1}'); \
	mkdir -p $$out $$keep; \
	for id in $$ids; do \
	  [ -f $$keep/$$id.json ] || [ -f $$keep/$$id.json.gz ] && continue; \
	  ./bin/lockcheck rediscover --bugs $$id --budget $$budget --seed $$seed --runs $$out --json $$out/$$id.json; \
	  rc=$$?; [ $$rc -le 1 ] || exit $$rc; \
	  for p in $$(grep -o "$$out/runs/hunt/[^\" ]*/plan.json" $$out/$$id.json | sort -u); do \
	    d=$$keep/$$(basename $$(dirname $$p)); mkdir -p $$d; cp $$p $$d/; \
	  done; \
	  sed "s#$$out/runs/hunt/#$$keep/#g" $$out/$$id.json | gzip -9n > $$keep/$$id.json.gz; \
	done; \
	parts=$$(for f in $$keep/*.json*; do echo "$$(zcat -f $$f | grep -o "$$keep/20[0-9T.]*" | sed 's#.*/##' | sort | head -1) $$f"; done | sort | awk '{print $$2}' | paste -sd, -); \
	./bin/lockcheck rediscover --merge $$parts --out $(PAGE).md --json $(PAGE).json; \
	rc=$$?; [ $$rc -le 1 ] || exit $$rc

## release-pages: results/releases/LIB.md for each library people run (lockcheck releases LIB --md): its releases,
## the catalogued bugs of each, and lockcheck's cached hunts; REFRESH=1 asks the registries again. No hunt is run:
## `lockcheck releases LIB@VERSION --hunt --budget 30s --seeds 1` hunts one release into results/releases/LIB/.
RELEASE_LIBS ?= redisson spring-lock-pubsub redsync python-redis-lock node-redisson
release-pages: build
	for lib in $(RELEASE_LIBS); do ./bin/lockcheck releases $$lib --md results/releases/$$lib.md $(if $(REFRESH),--refresh,) >/dev/null || exit 1; done

## catch-rates: every mutant on `lockcheck run --workload hunt --duration 10s`, or on its exposing scenario
## (Mutant.Scenario: caught when fault-allowance fires, a violation beyond the fault), over SEEDS seeds (default
## 20; the reference locks and the mutants' base, on the hunt and on those scenarios, over half as many, as
## controls): catch rate and median time to the first violation, into results/catch-rates.md. About 12 s a run:
## 70 minutes at the default.
catch-rates: deps
	LOCKCHECK_CATCH_RATES=$${SEEDS:-20} $(GO) test -count=1 -timeout 150m -run '^TestCatchRates$$' -v ./cmd/lockcheck/

## fp-campaign: every lock not known to be broken (reference, peers, drivers) on `lockcheck run --workload hunt
## --duration 10s --wire` over SEEDS fresh seeds (default 30, from a block derived from the date; FIRST=<seed> to
## choose), then on every scenario, safe and unsafe (SCENARIOS=unsafe, a list, or 0 for none), over SCENARIO_SEEDS of
## the same seeds (default 1), into results/false-positives.md. The targets are 0 beyond the fault on the hunt runs (its
## long holds' outages may cost a hold within it), and on the scenarios 0 beyond the fault and 0 not as expected. About 12 s a run: 80 minutes for the first half at the default,
## about 3 hours for the second. Runs stay in out/fp-campaign/FIRST, where a campaign stopped part way goes on:
## the scenarios run in FP_SHARDS shards (default 8), and no shard starts after BUDGET (e.g. 90m; default none): the
## page then covers the shards run, and says so.
fp-campaign: deps
	LOCKCHECK_FP_SEEDS=$${SEEDS:-30} LOCKCHECK_FP_FIRST=$${FIRST:-} LOCKCHECK_FP_SCENARIOS=$${SCENARIOS:-} LOCKCHECK_FP_SCENARIO_SEEDS=$${SCENARIO_SEEDS:-1} \
	LOCKCHECK_FP_SHARDS=$${FP_SHARDS:-8} LOCKCHECK_FP_BUDGET=$${BUDGET:-} $(GO) test -count=1 -timeout 600m -run '^TestFalsePositives$$' -v ./cmd/lockcheck/

## checker-soak: the linearizability checker's differential tests (split vs unsplit, model vs brute force) on
## CHECKS random histories each (default 20000; `make test` runs 500), then every fuzz target of model/ for
## FUZZTIME each (default 1m).
checker-soak:
	LOCKCHECK_DIFF_CHECKS=$${CHECKS:-20000} $(GO) test -count=1 -timeout 60m -run '^(TestGroundTruthHistoriesAreValid|TestSplitEqualsWhole|TestBruteForceAgreesWithModel|TestNarrowWindowExplainsAsWhole|TestOrderWitnessImpliesLinearizable|TestValidateInOrderAgreesWithSorted|TestShortcutsOnReadWriteLocks|TestSettledGhostsAreAbsent)$$' -v ./model/
	for f in $$($(GO) test -list '^Fuzz' ./model/ | grep '^Fuzz'); do \
	  $(GO) test -run '^$$' -fuzz "^$$f\$$" -fuzztime $${FUZZTIME:-1m} ./model/ || exit 1; \
	done

## timeline-browser: the timeline page (history.html) of a synthetic 60 s run of 3 locks (over 200k ops) opened
## in headless Chromium (installed when missing) 3 times: the time until its first drawing is on screen and its
## size, into results/timeline.md; fails past 2 s. RUN=DIR also measures the run directory DIR's own history.html,
## after checking that it holds every op of DIR's history. Then the page's own self test: wheel, drag, fit, hover,
## the findings list.
timeline-browser:
	LOCKCHECK_TIMELINE_RECORD=1 LOCKCHECK_TIMELINE_RUN=$(if $(RUN),$(abspath $(RUN))) $(GO) test -tags browser -count=1 -timeout 10m -run '^TestTimeline(OpensIn|InteractsIn)Browser$$' -v ./results/

## bench: the full benchmark table (all subjects, interleaved rounds) recorded into the committed results/bench/;
## QUICK=1 for under a minute into results/runs/bench/<time> (never recorded).
bench: deps build
	./bin/lockcheck bench $(if $(QUICK),--quick,--record)

## bench-threads: the Go ports vs Redisson (and Spring) as threads of one client process at 1, 8 and 32 threads,
## with each lock's share of its server limit, into results/bench/threads/; then the fair vs non-fair page
## (results/bench/fair-vs-nonfair.md, its run in results/bench/fair/). QUICK=1: quick runs, nothing committed.
bench-threads: deps build
	./bin/lockcheck bench $(if $(QUICK),--quick --out results/runs/bench/threads-quick,--out results/bench/threads) --threads 1,8,32 \
		--subjects reentrant,redisson,fair,redisson-fair,fenced,redisson-fenced,spring-lock-pubsub
	./bin/lockcheck bench $(if $(QUICK),--quick) --threads 1,2,8,32 --subjects reentrant,fair,redisson,redisson-fair \
		--out $(if $(QUICK),results/runs/bench/fair-quick,results/bench/fair) --fair-page $(if $(QUICK),results/runs/bench/fair-quick,results/bench)

clean:
	rm -rf bin faults/clockshim/libclockshim.so
