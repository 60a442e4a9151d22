# rtenc — on a fresh machine: `make run` (the main job) and `make test` (all tests).
# Both install the Debian packages they need first (scripts/deps.sh: only what is missing).
SWIFT ?= swift

.PHONY: deps build test run bench bench-micro bench-compare bench-thresholds clean

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

# Benchmarks (release builds; no debug build needed). Figures go to BENCHMARKS.md between the micro/compare markers.
#   bench-micro       package-benchmark micro benchmarks; fails if a malloc count differs from bench/Thresholds
#   bench-compare     whole-process rtenc vs ffmpeg on identical lavfi inputs, interleaved (bench/scripts/compare.py)
#   bench-thresholds  re-record the malloc-count thresholds after an intended change (review the diff, commit it)
BENCH_PLUGIN = cd bench && $(SWIFT) package --allow-writing-to-package-directory benchmark

bench: bench-micro bench-compare

bench-micro: deps
	$(BENCH_PLUGIN) baseline update current --no-progress
	rm -rf bench/.build/jmh && mkdir -p bench/.build/jmh
	$(BENCH_PLUGIN) baseline read current --format jmh --path .build/jmh --no-progress
	python3 bench/scripts/micro_report.py bench/.build/jmh/current.jmh.json --update BENCHMARKS.md
	$(BENCH_PLUGIN) thresholds check current --path Thresholds --no-progress

bench-thresholds: deps
	$(BENCH_PLUGIN) thresholds update --metric mallocCountTotal --path Thresholds --no-progress
	python3 bench/scripts/malloc_thresholds.py bench/Thresholds

bench-compare: deps
	$(SWIFT) build -c release --product rtenc
	cd bench && $(SWIFT) build -c release --product LatencyProbe
	python3 bench/scripts/compare.py --rtenc "$$($(SWIFT) build -c release --show-bin-path)/rtenc" \
		--latency-probe "$$(cd bench && $(SWIFT) build -c release --show-bin-path)/LatencyProbe" --update BENCHMARKS.md

clean:
	rm -rf .build bench/.build
