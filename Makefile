# swift-mcumgr: the two commands of the README.
#   make demo   - full firmware upgrade against the built-in device simulator
#   make test   - the whole test suite
#   make bench  - the benchmarks (Benchmarks/, results in Benchmarks/results/)
#   make bench-smoke - one tiny row of the upload benchmark (CI: the command works); like make bench,
#                 it costs a release build first (about 7 minutes on two cores the first time)
#   make blevm  - the BLE checks in a qemu guest with a real kernel and BlueZ (docs/blevm.md);
#                 BLEVM_RUNS=10 boots it ten times
# All install what they need first (scripts/bootstrap.sh).

#   make install PREFIX=DIR - release build of mcumgr and mcumgr-sim, installed with completions and man pages
.PHONY: bootstrap demo test build clean bench bench-smoke blevm install man

bootstrap:
	@scripts/bootstrap.sh

build: bootstrap
	swift build

demo: bootstrap
	scripts/demo.sh

# The BLE VM's suite runs after the rest, not beside it: its qemu guest (TCG) keeps both cores
# busy for minutes, which starved the socketpair and event-loop tests' threads past their limits.
# Swift Testing starts every test at once; with this many tests that spawn processes (simulators,
# Python peers) two cores ran out, and tests over socketpairs and UDP waited past their 60 s hang
# guards in every full run (each suite passes alone). TEST_WIDTH bounds how many run at a time.
TEST_WIDTH ?= 12
test: bootstrap
	swift test --experimental-maximum-parallelization-width $(TEST_WIDTH) --skip BlueZVMTests
	swift test --skip-build --filter BlueZVMTests

bench: bootstrap
	scripts/bench.sh

bench-smoke: bootstrap
	scripts/bench.sh --smoke

BLEVM_RUNS ?= 1
blevm: bootstrap
	scripts/blevm/blevm.sh --runs $(BLEVM_RUNS)

clean:
	rm -rf .build

# Install (docs/cli.md, "Installing"): PREFIX/bin/mcumgr and mcumgr-sim, PREFIX/lib/mcumgr/libMcuMgrZIP.so,
# bash, zsh and fish completions, man pages. CONFIGURATION=release by default (about 7 minutes on two
# cores the first time); SWIFT_BUILD_FLAGS=--static-swift-stdlib makes binaries that run without the
# Swift toolchain's libraries. BUILD=0 installs what BUILD_DIR (.build/$(CONFIGURATION)) holds without
# building (the test suite's way: it installs from the debug build it just made, with the man pages of
# the last `make man` when there are some).
PREFIX ?= /usr/local
CONFIGURATION ?= release
SWIFT_BUILD_FLAGS ?=
BUILD ?= 1
BUILD_DIR ?= .build/$(CONFIGURATION)
# swift-argument-parser's generate-manual plugin writes one page per command here.
MANUAL_DIR = .build/plugins/GenerateManual/outputs

install: $(if $(filter 1,$(BUILD)),bootstrap man)
ifeq ($(BUILD),1)
	swift build -c $(CONFIGURATION) $(SWIFT_BUILD_FLAGS) --product mcumgr
	swift build -c $(CONFIGURATION) $(SWIFT_BUILD_FLAGS) --product mcumgr-sim
	swift build -c $(CONFIGURATION) $(SWIFT_BUILD_FLAGS) --product McuMgrZIP
endif
	scripts/install.sh "$(PREFIX)" "$(BUILD_DIR)" $(wildcard $(MANUAL_DIR))

# Man pages from the programs' own help (swift-argument-parser's generate-manual plugin, offline):
# builds every product in CONFIGURATION, then writes .build/plugins/GenerateManual/outputs/*/*.1.
man:
	swift package plugin generate-manual --configuration $(CONFIGURATION) --multi-page

# Reliability: coverage-guided fuzzing (libFuzzer + AddressSanitizer, package Fuzz/) and the test
# suite under AddressSanitizer and ThreadSanitizer. See README, "Reliability".
#   make fuzz         every target until 10 million executions or FUZZ_SECONDS, on FUZZ_JOBS processes
#   make fuzz-smoke   every target for FUZZ_SMOKE_SECONDS, one process
#   make sanitize     swift test under ASan (.build-asan) and TSan (.build-tsan)
FUZZ_TARGETS := $(sort $(notdir $(wildcard Fuzz/Sources/fuzz-*)))
FUZZ_RUNS ?= 10000000
FUZZ_SECONDS ?= 7200
FUZZ_JOBS ?= 2
FUZZ_SMOKE_SECONDS ?= 15

.PHONY: fuzz-build fuzz fuzz-smoke sanitize sanitize-address sanitize-thread

# One -sanitize= list: swift-frontend keeps only the last -sanitize= flag, and SwiftPM's
# `--sanitize=fuzzer --sanitize=address` come in a random order (a Set), so each build had either
# coverage or AddressSanitizer, never both, and a flipped order rebuilt everything. SwiftPM's own
# `--sanitize=fuzzer` stays (it links libFuzzer's main); the list after it wins. The build-manifest
# cache is off: it misses changes in the parent package (a new file, a new dependency of a target)
# and the build then fails or links stale code. Cross-module optimization lets a target specialize
# the library's generic entry points for the types it passes (`append(_: some Collection<UInt8>)`
# of the H4 and serial decoders), as the library's own callers are; unspecialized, the calls the
# targets make a byte at a time spent most of their time looking up generic metadata.
fuzz-build: bootstrap
	swift build -c release --package-path Fuzz --scratch-path Fuzz/.build --sanitize=fuzzer \
		-Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=address -Xswiftc -cross-module-optimization \
		--disable-build-manifest-caching

fuzz: fuzz-build
	scripts/fuzz.sh $(FUZZ_RUNS) $(FUZZ_SECONDS) $(FUZZ_JOBS) $(FUZZ_TARGETS)

fuzz-smoke: fuzz-build
	scripts/fuzz.sh $(FUZZ_RUNS) $(FUZZ_SMOKE_SECONDS) 1 $(FUZZ_TARGETS)

sanitize: sanitize-address sanitize-thread

# Leak checking is off for the suite: at exit every Swift process (the test runner and each
# `mcumgr`/`mcumgr-sim` child) reports ~1 600 "direct leaks", nearly all in test fixtures (the CBOR
# vectors of parameterized tests), ArgumentParser and SwiftNIO, and the report turns a child's
# exit status into 1, failing the CLI's exit-status tests. Leaks are checked per input by the
# fuzzers (`make fuzz`); sorting the suite's exit-time reports one by one is still to do.
#
# Under a sanitizer every process of the run is several times slower (ThreadSanitizer 5–15×), and
# Swift Testing starts every test at once: on two cores, tests then waited minutes for a turn and
# wall-clock bounds ran out (a simulator's start-up, a peer script). So the suites run at most
# SANITIZE_WIDTH tests at a time, and SMP_TEST_TIME_SCALE (see TestTimeScale in SMPTestSupport)
# multiplies the tests' wall-clock bounds; what a test asserts never depends on either.
SANITIZE_WIDTH ?= 6
ASAN_TIME_SCALE ?= 4
TSAN_TIME_SCALE ?= 10
SANITIZE_TEST_FLAGS = --skip-build --experimental-maximum-parallelization-width $(SANITIZE_WIDTH)
# The sanitizer's runtime is linked into each executable; `mcumgr` opens libMcuMgrZIP.so (also
# instrumented) at run time, which needs the runtime's symbols exported (clang does this for C
# programs; swiftc does not): without it every zip read failed under TSan with "undefined
# symbol: __tsan_external_write".
SANITIZE_BUILD_FLAGS = -Xlinker --export-dynamic

sanitize-address: bootstrap
	swift build --build-tests --sanitize=address --scratch-path .build-asan $(SANITIZE_BUILD_FLAGS)
	SMP_TEST_TIME_SCALE=$(ASAN_TIME_SCALE) ASAN_OPTIONS="detect_leaks=0 $(ASAN_OPTIONS)" \
		swift test $(SANITIZE_TEST_FLAGS) --sanitize=address --scratch-path .build-asan

# ThreadSanitizer runs the suite one test target at a time (scripts/sanitize-split.sh): in one
# process the whole suite did not finish on two cores. Summary in .build-tsan/sanitize-logs/.
# BlueZVMTests (a qemu guest with its own kernel: make blevm) is left out.
SANITIZE_TARGETS ?= $(filter-out BlueZVMTests,$(sort $(notdir $(wildcard Tests/*Tests))))
sanitize-thread: bootstrap
	swift build --build-tests --sanitize=thread --scratch-path .build-tsan $(SANITIZE_BUILD_FLAGS)
	SMP_TEST_TIME_SCALE=$(TSAN_TIME_SCALE) TSAN_OPTIONS="suppressions=$(CURDIR)/scripts/tsan-suppressions.txt $(TSAN_OPTIONS)" \
		scripts/sanitize-split.sh .build-tsan thread $(SANITIZE_WIDTH) $(SANITIZE_TARGETS)
