# swift-mcumgr: the two commands of the README.
#   make demo   - full firmware upgrade against the built-in device simulator
#   make test   - the whole test suite
# Both install what they need first (scripts/bootstrap.sh).

.PHONY: bootstrap demo test build clean

bootstrap:
	@scripts/bootstrap.sh

build: bootstrap
	swift build

demo: bootstrap
	scripts/demo.sh

test: bootstrap
	swift test

clean:
	rm -rf .build
