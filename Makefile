# rtenc — on a fresh machine: `make run` (the main job) and `make test` (all tests).
# Both install the Debian packages they need first (scripts/deps.sh: only what is missing).
SWIFT ?= swift

.PHONY: deps build test run bench soak clean

deps:
	@bash scripts/deps.sh

build: deps
	$(SWIFT) build

# All tests. The end-to-end CLI tests run the built `rtenc` binary (RTENC_BIN) against real peers on loopback.
test: deps
	$(SWIFT) build --build-tests
	RTENC_BIN="$$($(SWIFT) build --show-bin-path)/rtenc" $(SWIFT) test --skip-build

# The main job: a moving test pattern, 1280x720 at 30 fps, H.264 at 2 Mb/s, RTP to 127.0.0.1:5004 until Ctrl-C.
# Watch it from another terminal: ffplay -protocol_whitelist file,udp,rtp stream.sdp
run: build
	"$$($(SWIFT) build --show-bin-path)/rtenc" stream

# Micro benchmarks (package-benchmark, release build) → markdown table for BENCHMARKS.md.
bench: build
	rm -rf bench/.build/jmh && mkdir -p bench/.build/jmh
	cd bench && $(SWIFT) package benchmark --no-progress --format jmh --path .build/jmh
	python3 bench/scripts/micro_report.py bench/.build/jmh/Current_run.jmh.json

# 10 minutes of 720p30 through the encoder, RSS sampled (BENCHMARKS.md, "Soak").
soak: build
	python3 bench/scripts/soak.py "$$($(SWIFT) build --show-bin-path)/rtenc"

clean:
	rm -rf .build bench/.build
