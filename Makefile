# ScratchCard. The two commands a fresh machine needs are `make run` and `make test`.
SWIFT ?= swift

.PHONY: run test deps build release bench clean test-asan test-tsan fuzz fuzz-all soak soak-window

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
## One test at a time: the X11 tests start servers, window managers and the program, and
## on a 2-core machine running them side by side makes their timing a coin toss.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel

## The benchmark on the traces beside the project.
bench: release
	$(SWIFT) run -c release scratchbench --repeat 3 ../shared/traces/card-1080p.trace ../shared/traces/card-4k.trace ../shared/traces/mouse-1000hz.trace

## The suite under AddressSanitizer (and LeakSanitizer), in its own build folder.
test-asan: deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build/asan
	LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp:print_suppressions=0 \
	  $(SWIFT) test --skip-build --sanitize=address --scratch-path .build/asan

## The suite under ThreadSanitizer (the tests read pipes on other threads).
test-tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan
	$(SWIFT) test --skip-build --sanitize=thread --scratch-path .build/tsan

## One fuzz target for FUZZ_SECONDS (default 600): make fuzz FUZZ=png|trace|config|deck|replay
FUZZ ?= png
FUZZ_SECONDS ?= 600
fuzz: deps
	scripts/fuzz.sh $(FUZZ) $(FUZZ_SECONDS)

## Every fuzz target in turn, one core.
fuzz-all: deps
	for t in png trace config deck replay; do scripts/fuzz.sh $$t $(FUZZ_SECONDS) || exit 1; done

## A million strokes through the engine (release), resident memory watched.
soak: deps
	scripts/soak.sh

## 100,000 motion events through a real window under Xvfb.
soak-window: deps
	scripts/soak-window.sh

clean:
	rm -rf .build
