# lockcheck: `make run` for the main job, `make test` for the tests.
GO ?= go
PKGS ?= ./...

.PHONY: all deps build run test test-short vet fmt check bench nightly faults clean

all: vet test

deps:
	@./scripts/deps.sh

build:
	$(GO) build -o bin/lockcheck ./cmd/lockcheck

## run: the default run: own redis-server, default workload on the reentrant and fair locks, checked.
run: deps build
	./bin/lockcheck run

## test: unit and integration tests (with -race); starts its own redis-servers.
test: deps
	$(GO) vet $(PKGS)
	$(GO) test -race -count=1 -timeout 14m $(PKGS)

## test-short: unit tests only, no Redis needed.
test-short:
	$(GO) test -race -short -count=1 $(PKGS)

vet:
	$(GO) vet $(PKGS)

fmt:
	gofmt -l -w .

clean:
	rm -rf bin
