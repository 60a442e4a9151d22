# rtenc — on a fresh machine: `make run` (the main job) and `make test` (all tests).
# Both install the Debian packages they need first (scripts/deps.sh: only what is missing).
SWIFT ?= swift
SAMPLE_DIR = .build/samples

.PHONY: deps build test run bench clean

deps:
	@bash scripts/deps.sh

build: deps
	$(SWIFT) build

# All tests. The end-to-end CLI tests run the built `rtenc` binary (RTENC_BIN) against real peers on loopback.
test: deps
	$(SWIFT) build --build-tests
	RTENC_BIN="$$($(SWIFT) build --show-bin-path)/rtenc" $(SWIFT) test --skip-build

# The main job.
run: build
	@mkdir -p $(SAMPLE_DIR)
	ffmpeg -loglevel error -y -f lavfi -i testsrc2=size=1280x720:rate=30 -frames:v 60 \
		-c:v libx264 -preset veryfast -bsf:v h264_mp4toannexb -f h264 $(SAMPLE_DIR)/testsrc2-720p.h264
	"$$($(SWIFT) build --show-bin-path)/rtenc" inspect --summary $(SAMPLE_DIR)/testsrc2-720p.h264

# Micro benchmarks (package-benchmark, release build) → markdown table for BENCHMARKS.md.
bench: build
	rm -rf bench/.build/jmh && mkdir -p bench/.build/jmh
	cd bench && $(SWIFT) package benchmark --no-progress --format jmh --path .build/jmh
	python3 bench/scripts/micro_report.py bench/.build/jmh/Current_run.jmh.json

clean:
	rm -rf .build bench/.build
