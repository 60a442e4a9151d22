# rtenc — on a fresh machine: `make run` (the main job) and `make test` (all tests).
# Both install the Debian packages they need first (scripts/deps.sh: only what is missing).
SWIFT ?= swift

.PHONY: deps build test run bench clean fuzz-build fuzz fuzz-smoke

deps:
	@bash scripts/deps.sh

build: deps
	$(SWIFT) build

# All tests, then a short smoke run of every fuzz target (about 1.5 min more from a fresh clone on 2 busy cores).
# The end-to-end CLI tests run the built `rtenc` binary (RTENC_BIN) against real peers on loopback.
test: deps
	$(SWIFT) build --build-tests
	RTENC_BIN="$$($(SWIFT) build --show-bin-path)/rtenc" $(SWIFT) test --skip-build
	$(MAKE) fuzz-smoke

# The main job: a moving test pattern, 1280x720 at 30 fps, H.264 at 2 Mb/s, RTP to 127.0.0.1:5004 until Ctrl-C.
# Watch it from another terminal: ffplay -protocol_whitelist file,udp,rtp stream.sdp
run: build
	"$$($(SWIFT) build --show-bin-path)/rtenc" stream

# Micro benchmarks (package-benchmark, release build) → markdown table for BENCHMARKS.md.
bench: build
	rm -rf bench/.build/jmh && mkdir -p bench/.build/jmh
	cd bench && $(SWIFT) package benchmark --no-progress --format jmh --path .build/jmh
	python3 bench/scripts/micro_report.py bench/.build/jmh/Current_run.jmh.json

# Fuzzing (libFuzzer + AddressSanitizer; docs/FUZZING.md). The fuzz package builds only Bitstream and RTPOut with the
# sanitizers. Each target starts from its committed seeds (fuzz/Corpus/<target>) and writes what it learns to
# fuzz/.build/corpus/<target>, so the committed corpus never changes behind your back; crashes land in
# fuzz/.build/artifacts/. SWIFT_BACKTRACE=enable=no: the Swift backtracer, run after a trap, trips ASan itself.
FUZZ_TARGETS := FuzzAnnexB FuzzAVCC FuzzAVCDecoderConfigurationRecord FuzzParameterSets FuzzSliceHeader \
	FuzzRTPPacket FuzzRTCPCompound FuzzDepacketizer
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
	rm -rf .build bench/.build fuzz/.build
