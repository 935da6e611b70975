# ScratchCard. The two commands a fresh machine needs are `make run` and `make test`.
SWIFT ?= swift

.PHONY: run test deps build release bench clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

## Opens the window on the built-in card (needs an X display).
run: deps
	$(SWIFT) run -c release scratchcard

## Installs what is missing, builds, and runs every test (X11 tests start their own Xvfb).
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## The benchmark on the traces beside the project.
bench: release
	$(SWIFT) run -c release scratchbench --repeat 3 ../shared/traces/card-1080p.trace ../shared/traces/card-4k.trace ../shared/traces/mouse-1000hz.trace

clean:
	rm -rf .build
