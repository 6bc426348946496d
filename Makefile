# tact — the two commands are `make run` and `make test`.
GO      ?= go
BIN     := bin/tact
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
FUZZTIME ?= 10s

.PHONY: build run test unit e2e fuzz bench vet clean

build: ## build bin/tact
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) .

# --config trusts this folder's config.yaml (it points tool_dirs at tools/, so
# the example skill is found); a config.yaml that tact finds on its own in a
# working folder may not set provider, approval or tool folders.
run: build ## build and start tact (offline demo model when no API key is set)
	./$(BIN) --config config.yaml $(ARGS)

test: vet unit fuzz e2e ## everything CI runs

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || (echo "gofmt needed:"; gofmt -l .; exit 1)

unit:
	$(GO) test -race -timeout 25m ./...

# Short fuzzing runs of every fuzz target (the seed corpora also run in `unit`).
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzDetectorLossless$$' -fuzztime $(FUZZTIME) ./agent/protocol
	$(GO) test -run '^$$' -fuzz '^FuzzShellMatch$$' -fuzztime $(FUZZTIME) ./approval
	$(GO) test -run '^$$' -fuzz '^FuzzSessionReader$$' -fuzztime $(FUZZTIME) ./session

e2e: build ## drive the real binary in tmux against a fake model server
	bash test/e2e/run.sh

bench: ## the benchmarks quoted in the README
	$(GO) test -run '^$$' -bench . -benchmem ./agent/protocol ./ui ./tools

clean:
	rm -rf bin
