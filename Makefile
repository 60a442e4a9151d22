# rtenc — on a fresh machine: `make run` (the main job) and `make test` (all tests).
# Both install the Debian packages they need first (scripts/deps.sh: only what is missing).
SWIFT ?= swift

.PHONY: deps build test check-architecture leakcheck run bench bench-overlay bench-render bench-micro bench-compare bench-send bench-hevc bench-thresholds bench-scale soak adapt cc cc-real fuzz-build fuzz fuzz-smoke clean

deps:
	@bash scripts/deps.sh

build: deps
	$(SWIFT) build

# All tests: the dependency rules (no build needed, about a second), the package's tests (the end-to-end CLI tests
# run the built `rtenc` binary, RTENC_BIN, against real peers on loopback), then LeakSanitizer over encode and
# stream, then a short smoke run of every fuzz target (about 1.5 min more from a fresh clone on 2 busy cores).
test: deps check-architecture
	$(SWIFT) build --build-tests
	RTENC_BIN="$$($(SWIFT) build --show-bin-path)/rtenc" $(SWIFT) test --skip-build
	$(MAKE) leakcheck
	$(MAKE) fuzz-smoke

# The module table of ARCHITECTURE.md as a check: each module's `import` lines and Package.swift dependencies against
# its allowlist; the self-test first proves the check fails on seeded violations.
check-architecture:
	@bash scripts/check-architecture.sh --self-test
	@bash scripts/check-architecture.sh

# LeakSanitizer (valgrind 3.19 cannot read Swift 6.3 binaries): `rtenc encode` of 300 frames and a 300-frame
# `rtenc stream`, built with AddressSanitizer; any leak or memory error makes the run exit non-zero. Then the CDTLS
# shim alone in C under AddressSanitizer, LeakSanitizer and UBSan (scripts/cdtls-leakcheck.c: 60 in-memory handshakes,
# some lossy, with garbage and close_notify; about 5 s).
ASAN_BIN = .build-asan/debug/rtenc
leakcheck: deps
	$(SWIFT) build --sanitize=address --scratch-path .build-asan --product rtenc
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	ASAN_OPTIONS=detect_leaks=1 timeout 120 $(ASAN_BIN) encode --frames 300 -o "$$tmp/leak.h264" --quiet && \
	ASAN_OPTIONS=detect_leaks=1 timeout 120 $(ASAN_BIN) stream --frames 300 --size 640x360 --to 127.0.0.1:5098 \
		--sdp "$$tmp/leak.sdp" --quiet > /dev/null && \
	echo "leakcheck: 0 leaks in rtenc encode (300 frames) and rtenc stream (300 frames)"
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	clang -fuse-ld=lld -fsanitize=address,undefined -fno-sanitize-recover=undefined -g -I Sources/CDTLS/include \
		scripts/cdtls-leakcheck.c Sources/CDTLS/*.c -lssl -lcrypto -lpthread -o "$$tmp/cdtls-leakcheck" && \
	ASAN_OPTIONS=detect_leaks=1 timeout 120 "$$tmp/cdtls-leakcheck"

# The main job: a moving test pattern, 1280x720 at 30 fps, H.264 at 2 Mb/s, RTP to 127.0.0.1:5004 until Ctrl-C.
# Watch it from another terminal, started at any time: ffplay -protocol_whitelist file,udp,rtp stream.sdp
# (until a receiver reports, an IDR every 0.5 s, so the picture appears within about a second).
run: build
	"$$($(SWIFT) build --show-bin-path)/rtenc" stream

# Benchmarks (release builds; no debug build needed). Figures go to BENCHMARKS.md between the micro/compare markers.
#   bench-micro       package-benchmark micro benchmarks; fails if a malloc count differs from bench/Thresholds
#   bench-compare     whole-process rtenc vs ffmpeg on identical lavfi inputs, interleaved (bench/scripts/compare.py)
#   bench-send        only the start-up, send and annexb pairs of bench-compare, 9 pairs (BENCHMARKS.md send markers)
#   bench-scale       sessions one process keeps in real time, against ffmpeg processes, both judged by one receiver
#                     (bench/scripts/scale.py, scale_receiver.py)
#   bench-hevc        only the HEVC encode pairs of bench-compare (rtenc encode --codec hevc against ffmpeg -c:v libx265)
#   bench-thresholds  re-record the malloc-count thresholds after an intended change (review the diff, commit it)
#   bench-overlay     the overlay kernels (alpha overlay, mask blend, homography warp) at 720p and 1080p against
#                     ffmpeg's overlay / maskedmerge / perspective in the same run (bench/scripts/overlay_kernels.py)
#   bench-render      `rtenc render` of examples/render-60s.json (60 s 720p30: 6 clips, 5 transitions, a corner-pinned
#                     masked overlay) against the same edit as an ffmpeg filtergraph, and the live composition cost per
#                     frame (bench/scripts/render_vs_ffmpeg.py; media made with lavfi under bench/.build/render)
BENCH_PLUGIN = cd bench && $(SWIFT) package --allow-writing-to-package-directory benchmark

# `make bench` runs all of it: micro, the ffmpeg comparison (with latency), scale, the adaptation plots and the
# congestion-control simulation. Quietly: each step's output (swift build, the benchmark plugin, ffmpeg and x264,
# the scripts' progress and tables) goes to $(BENCH_LOG_DIR)/<step>.log; the terminal gets each step's summary
# figures and one line saying what it wrote and where its log is (scripts/bench-step.sh). Run a step's own target
# (`make bench-compare`…) to watch it.
BENCH_LOG_DIR ?= .build/bench-logs
BENCH_STEP = BENCH_LOG_DIR=$(BENCH_LOG_DIR) scripts/bench-step.sh
bench: deps
	@$(BENCH_STEP) micro --writes "BENCHMARKS.md (micro section)" -- $(MAKE) --no-print-directory bench-micro
	@$(BENCH_STEP) compare --writes "BENCHMARKS.md (comparison, latency)" \
		--summary '^\| [^|-][^|]* \| [0-9.]+ s \| [0-9.]+ s \|' -- $(MAKE) --no-print-directory bench-compare
	@$(BENCH_STEP) scale --writes "BENCHMARKS.md (scale section)" --summary '^Largest count' \
		-- $(MAKE) --no-print-directory bench-scale
	@$(BENCH_STEP) adapt --writes "docs/adapt-*.svg, BENCHMARKS.md (adapt section), $(ADAPT_DIR)" \
		-- $(MAKE) --no-print-directory adapt
	@$(BENCH_STEP) cc --writes "docs/cc-summary.json, docs/cc-scatter.svg, $(CC_DIR)" -- $(MAKE) --no-print-directory cc
	@$(BENCH_STEP) cc-real --writes "docs/cc-real-summary.json, $(CC_REAL_DIR)" -- $(MAKE) --no-print-directory cc-real

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

# The start-up, send and annexb pairs alone (9 interleaved pairs), between the send markers of BENCHMARKS.md: the
# quick re-run after a change to the RTP sender or the readers (`make bench-compare` runs them too, with the rest).
bench-hevc: deps
	$(SWIFT) build -c release --product rtenc
	python3 bench/scripts/compare.py --rtenc "$$($(SWIFT) build -c release --show-bin-path)/rtenc" --runs 5 \
		--only "hevc encode" --section hevc --update BENCHMARKS.md

bench-send: deps
	$(SWIFT) build -c release --product rtenc
	python3 bench/scripts/compare.py --rtenc "$$($(SWIFT) build -c release --show-bin-path)/rtenc" --runs 9 \
		--only start-up send annexb --section send --update BENCHMARKS.md

# Issue 6 "Scale": the most 640x360 30 fps sessions one process keeps in real time (BENCHMARKS.md, "Scale").
# SCALE_ARGS passes options to scale.py, e.g. SCALE_ARGS="--autogroup-nice -10" on a machine shared with other work.
bench-overlay: deps
	cd bench && $(SWIFT) build -c release --product CompositionProbe
	python3 bench/scripts/overlay_kernels.py "$$(cd bench && $(SWIFT) build -c release --show-bin-path)/CompositionProbe" --update BENCHMARKS.md

bench-render: deps
	$(SWIFT) build -c release --product rtenc
	cd bench && $(SWIFT) build -c release --product CompositionProbe
	python3 bench/scripts/render_vs_ffmpeg.py --rtenc "$$($(SWIFT) build -c release --show-bin-path)/rtenc" \
		--probe "$$(cd bench && $(SWIFT) build -c release --show-bin-path)/CompositionProbe" --update BENCHMARKS.md

bench-scale: deps
	python3 bench/scripts/scale_receiver.py --self-test
	cd bench && $(SWIFT) build -c release --product ScaleProbe
	python3 bench/scripts/scale.py "$$(cd bench && $(SWIFT) build -c release --show-bin-path)/ScaleProbe" --update BENCHMARKS.md $(SCALE_ARGS)

# 10 minutes of 720p30, RSS sampled (BENCHMARKS.md, "Soak"): `rtenc encode` faster than real time, then
# `rtenc stream` in real time to `rtenc receive --decode` on loopback (10 minutes of wall time), then the same with a
# looping four-clip timeline as the input (no frame skipped late at its loop points; 10 more minutes).
soak: deps
	$(SWIFT) build -c release --product rtenc
	python3 bench/scripts/soak.py "$$($(SWIFT) build -c release --show-bin-path)/rtenc" --mode encode
	python3 bench/scripts/soak.py "$$($(SWIFT) build -c release --show-bin-path)/rtenc" --mode stream
	python3 bench/scripts/soak.py "$$($(SWIFT) build -c release --show-bin-path)/rtenc" --mode timeline

# Bitrate adaptation (issue 6): every policy through the step, square, ramp and trace scenarios on testsrc2 at
# 640x360, plus the step on 1280x720 noise with an IDR every 2 s (keyframes against the cap); simulated clock.
# → docs/adapt-*.svg and the BENCHMARKS.md section between the adapt markers. Per-frame CSVs, JSON and PNGs stay in
# .build/adapt. The clock is simulated, so build type and load do not change the figures; the release build is the
# one bench-compare already made.
ADAPT_DIR := .build/adapt
ADAPT_INPUT := $(ADAPT_DIR)/testsrc2-640x360.y4m
ADAPT_ARGS := --input $(ADAPT_INPUT) --size 640x360 --fps 30 --preset veryfast --threads 1 --scenario step \
	--scenario square --scenario ramp --scenario trace:bench/traces/synthetic-lte.csv --output-dir $(ADAPT_DIR)
ADAPT_NOISE_ARGS := --input testsrc:noise --size 1280x720 --fps 30 --preset veryfast --threads 1 --keyframe-every 2 \
	--tag noise720p --scenario step --output-dir $(ADAPT_DIR)/noise
adapt: deps
	$(SWIFT) build -c release --product rtenc
	@mkdir -p $(ADAPT_DIR) docs
	@test -s $(ADAPT_INPUT) || ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=640x360:rate=30 -frames:v 300 \
		-pix_fmt yuv420p $(ADAPT_INPUT)
	"$$($(SWIFT) build -c release --show-bin-path)/rtenc" bench adapt $(ADAPT_ARGS)
	"$$($(SWIFT) build -c release --show-bin-path)/rtenc" bench adapt $(ADAPT_NOISE_ARGS)
	cp $(ADAPT_DIR)/adapt-*.svg $(ADAPT_DIR)/noise/adapt-*.svg docs/
	python3 bench/scripts/adapt_report.py BENCHMARKS.md \
		"rtenc bench adapt $(ADAPT_ARGS)" $(ADAPT_DIR)/adapt.md \
		"rtenc bench adapt $(ADAPT_NOISE_ARGS)" $(ADAPT_DIR)/noise/adapt.md

# Congestion control in simulation (issue 17): every RFC 8867 case and the ATT-LTE uplink trace with GCC and rtenc's
# own controller side by side, seed 1, feedback as transport-cc on the wire; first with the synthetic codec (a few
# seconds), then with real libx264 in the loop (640x360 test pattern; minutes). Per-case CSV/JSON/SVG stay in .build/cc
# and .build/cc-x264; the summaries, the throughput-vs-delay scatters and the plots of 5.1, 5.2, 5.6 and the ATT-LTE
# trace for both controllers go to docs/ (cc-summary.json, cc-scatter.svg, cc-<case>-<controller>.png: PNG, as the
# per-packet SVGs are ~1-2 MB; cc-x264-summary.json, cc-x264-scatter.svg).
CC_DIR := .build/cc
CC_TRACE := ../shared/traces/mahimahi/ATT-LTE-driving-2016.up
CC_CASES := $(foreach c,5.1 5.2 5.3 5.4 5.5 5.6 5.6-1000 5.6-cubic 5.6-cubic-1000 5.7 5.8,--case $(c)) \
	$(if $(wildcard $(CC_TRACE)),--case trace:$(CC_TRACE))
cc: deps
	$(SWIFT) build -c release --product rtenc
	@mkdir -p $(CC_DIR) docs
	"$$($(SWIFT) build -c release --show-bin-path)/rtenc" bench cc $(CC_CASES) --controllers gcc,rtenc --seed 1 \
		--json docs/cc-summary.json --out $(CC_DIR)
	cp $(CC_DIR)/scatter.svg docs/cc-scatter.svg
	cd $(CC_DIR) && for c in 5.1 5.2 5.6 $(if $(wildcard $(CC_TRACE)),ATT-LTE-driving-2016.up); do for k in gcc rtenc; do \
		sed "s/^set terminal svg.*/set terminal pngcairo size 1100,820 font 'sans,9'/; s/\.svg'\$$/.png'/" $$c-$$k.gp | gnuplot && \
		cp $$c-$$k.png ../../docs/cc-$$c-$$k.png || exit 1; done; done
	@mkdir -p $(CC_DIR)-x264
	"$$($(SWIFT) build -c release --show-bin-path)/rtenc" bench cc $(CC_CASES) --controllers gcc,rtenc --seed 1 \
		--codec x264 --size 640x360 --json docs/cc-x264-summary.json --out $(CC_DIR)-x264
	cp $(CC_DIR)-x264/scatter.svg docs/cc-x264-scatter.svg

# The same controller in real time (issue 17): RFC 8867 §5.1 (100 s) through `rtenc stream --cc gcc` → `rtenc relay`
# (the case's schedule, 300 ms queue, 50 ms) → `rtenc receive --feedback transport-cc` on loopback, the relay's
# packet log analysed beside the simulation of the same case → docs/cc-real-summary.json (simulation, then gcc-real);
# BENCHMARKS.md "Congestion control: simulation against real time" has the table.
CC_REAL_DIR := .build/cc-real
cc-real: deps
	$(SWIFT) build -c release --product rtenc
	scripts/cc-real.sh "$$($(SWIFT) build -c release --show-bin-path)/rtenc" $(CC_REAL_DIR) 5.1 gcc
	@mkdir -p docs
	cp $(CC_REAL_DIR)/summary.json docs/cc-real-summary.json


# Fuzzing (libFuzzer + AddressSanitizer; docs/FUZZING.md). The fuzz package builds only Bitstream, RTP, WebRTC, Timeline and the
# WHEP HTTP edge (with swift-nio) with the
# sanitizers. Each target starts from its committed seeds (fuzz/Corpus/<target>) and writes what it learns to
# fuzz/.build/corpus/<target>, so the committed corpus never changes behind your back; crashes land in
# fuzz/.build/artifacts/. SWIFT_BACKTRACE=enable=no: the Swift backtracer, run after a trap, trips ASan itself.
FUZZ_TARGETS := FuzzAnnexB FuzzAVCC FuzzAVCDecoderConfigurationRecord FuzzParameterSets FuzzSliceHeader FuzzHEVC \
	FuzzRTPPacket FuzzRTCPCompound FuzzDepacketizer FuzzWebRTCSDP FuzzSTUN FuzzTimeline FuzzWHEPHTTP
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_RUNS ?= 20000
FUZZ_BIN = fuzz/.build/release

fuzz-build: deps
	$(SWIFT) build -c release --package-path fuzz --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address \
		-Xswiftc -parse-as-library

# FUZZ_SECONDS per target (default 60), one after another. On a finding: the log's tail and a non-zero exit.
fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
		$(call fuzz_run,$$t,-max_total_time=$(FUZZ_SECONDS)) || exit 1; \
	done

# A short bounded run of each target (the seeds, then FUZZ_SMOKE_RUNS mutated inputs), for CI: a fixed seed, so the
# same build tries the same inputs every time.
fuzz-smoke: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
		$(call fuzz_run,$$t,-runs=$(FUZZ_SMOKE_RUNS) -max_total_time=60 -seed=1) || exit 1; \
	done

# $(1) target, $(2) libFuzzer options. Shell code for one run; the summary lines on success, the log's tail on failure.
fuzz_run = mkdir -p fuzz/.build/artifacts fuzz/.build/corpus/$(1) && echo "== $(1)" && \
	if SWIFT_BACKTRACE=enable=no $(FUZZ_BIN)/$(1) fuzz/.build/corpus/$(1) fuzz/Corpus/$(1) $(2) -timeout=10 -print_final_stats=1 \
		-artifact_prefix=fuzz/.build/artifacts/$(1)- > fuzz/.build/$(1).log 2>&1; \
	then grep -E '^(Done|stat::number_of_executed_units|stat::average_exec_per_sec)' fuzz/.build/$(1).log || true; \
	else tail -n 40 fuzz/.build/$(1).log; false; fi

clean:
	rm -rf .build .build-asan bench/.build fuzz/.build
