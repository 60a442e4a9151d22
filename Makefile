# rtenc — two commands on a fresh machine: `make run` (the main job) and `make test` (all tests).
SWIFT ?= swift
BIN_DIR = $(shell $(SWIFT) build --show-bin-path)

.PHONY: deps build test run bench clean

deps:
	@bash scripts/deps.sh

build: deps
	$(SWIFT) build

test: deps
	$(SWIFT) build --build-tests
	RTENC_BIN="$(BIN_DIR)/rtenc" $(SWIFT) test --skip-build

run: build
	"$(BIN_DIR)/rtenc"

clean:
	rm -rf .build
