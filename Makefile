# swift-mcumgr: the two commands of the README.
#   make demo   - full firmware upgrade against the built-in device simulator
#   make test   - the whole test suite
#   make bench  - the benchmarks (Benchmarks/, results in Benchmarks/results/)
#   make bench-smoke - one tiny row of the upload benchmark (CI: the command works)
# All install what they need first (scripts/bootstrap.sh).

.PHONY: bootstrap demo test build clean bench bench-smoke

bootstrap:
	@scripts/bootstrap.sh

build: bootstrap
	swift build

demo: bootstrap
	scripts/demo.sh

test: bootstrap
	swift test

bench: bootstrap
	scripts/bench.sh

bench-smoke: bootstrap
	scripts/bench.sh --smoke

clean:
	rm -rf .build
