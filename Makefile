# ScratchCard. The two commands a fresh machine needs are `make run` and `make test`.
SWIFT ?= swift

.PHONY: run test deps build release bench clean test-asan test-tsan test-under-load fuzz fuzz-all soak soak-window \
        install-build install install-files uninstall refresh-caches deb soak-kiosk test-power-cut \
        bench-small-cpu bench-pacing

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
## The install tests (Tests/ScratchCardInstallTests) install the static binary and use
## the .deb, both made here first: SwiftPM locks .build while the tests run.
## It ends with how many tests passed, failed and were skipped, naming each skipped test
## and why (scripts/run-tests.py); with CI=true a skipped test fails it.
test: deps deb
	$(SWIFT) build --build-tests
	SWIFT="$(SWIFT)" scripts/run-tests.py --skip-build --no-parallel

## The benchmark on the project's traces (Bench/traces, format docs/traces.md).
TRACES = Bench/traces/card-1080p.trace Bench/traces/card-4k.trace Bench/traces/mouse-1000hz.trace
bench: release
	$(SWIFT) run -c release scratchbench --repeat 3 $(TRACES)

## The suites that record sound, time frames or wait for a server, RUNS times in a row
## (default 5) with two busy loops beside them (scripts/test-under-load.sh).
RUNS ?= 5
test-under-load: deps
	$(SWIFT) build --build-tests
	SWIFT="$(SWIFT)" scripts/test-under-load.sh $(RUNS)

## The suite under AddressSanitizer (and LeakSanitizer), in its own build folder.
test-asan: deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build/asan
	LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp:print_suppressions=0 SWIFT="$(SWIFT)" \
	  scripts/run-tests.py --skip-build --sanitize=address --scratch-path .build/asan

## The suite under ThreadSanitizer (the tests read pipes on other threads).
test-tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan
	SWIFT="$(SWIFT)" scripts/run-tests.py --skip-build --sanitize=thread --scratch-path .build/tsan

## One fuzz target for FUZZ_SECONDS (default 600): make fuzz FUZZ=png|jpeg|webp|trace|config|deck|replay|wav|strokes|store|conninfo|urilist|cardfile|claimcode|userdirs
FUZZ ?= png
FUZZ_SECONDS ?= 600
fuzz: deps
	scripts/fuzz.sh $(FUZZ) $(FUZZ_SECONDS)

## Every fuzz target in turn, one core.
fuzz-all: deps
	for t in png jpeg webp trace config deck replay wav strokes store conninfo urilist cardfile claimcode userdirs; do scripts/fuzz.sh $$t $(FUZZ_SECONDS) || exit 1; done

## A million strokes through the engine (release), resident memory watched.
soak: deps
	scripts/soak.sh

## 100,000 motion events through a real window under Xvfb.
soak-window: deps
	scripts/soak-window.sh

## A kiosk dealing 10,000 cards from a stocked deck with a store, played through XTest:
## memory, descriptors, shared memory and the books checked (about an hour; BENCHMARKS.md).
soak-kiosk: deps
	scripts/soak-kiosk.sh

## Start-ups in a loop, to find a rare crash at start (issue 34; not part of `make test`):
## STARTUPS (default 1000) start-ups of the release build on a private Xvfb, each to its
## `ready` event and a `q`, with BUSY (default 2) busy loops beside them under nice;
## crashes counted and kept (scripts/startup-loop.sh). 10,000 take about an hour on 2 cores.
## startup-loop-tsan: the same under ThreadSanitizer (its own build folder; ~2 s a start-up).
STARTUPS ?= 1000
BUSY ?= 2
.PHONY: startup-loop startup-loop-tsan
startup-loop: deps
	$(SWIFT) build -c release --product scratchcard
	scripts/startup-loop.sh -n $(STARTUPS) --busy $(BUSY) --bin "$$($(SWIFT) build -c release --show-bin-path)/scratchcard"

startup-loop-tsan: deps
	$(SWIFT) build -c debug --sanitize=thread --scratch-path .build/tsan --product scratchcard
	scripts/startup-loop.sh -n $(STARTUPS) --busy $(BUSY) --bin .build/tsan/debug/scratchcard

## The power-cut test alone (it runs in `make test` too): the store on powercutfs, a FUSE
## file system that drops unsynced writes, cut 50 times (root, /dev/fuse).
test-power-cut: deps
	$(SWIFT) build --build-tests
	SWIFT="$(SWIFT)" scripts/run-tests.py --skip-build --filter PowerCutTests

## ---- Installing ------------------------------------------------------------------
## make install [PREFIX=/usr/local] [DESTDIR=]: the binary (Swift runtime linked in: no
## toolchain needed on the target; the built-in card is drawn, no data file), the menu
## entries, icons, man page and the kiosk examples. make uninstall takes the same PREFIX and DESTDIR.
PREFIX ?= /usr/local
DESTDIR ?=
VERSION := $(shell sed -n 's/^let versionText = "scratchcard \(.*\)"/\1/p' Sources/scratchcard/Options.swift)
# Its own scratch path: a release build with --static-swift-stdlib, apart from .build/debug;
# linked with full RELRO and immediate binding, as Debian's hardening asks.
INSTALL_BUILD = .build/install
INSTALL_BIN = $(INSTALL_BUILD)/release/scratchcard
# The thumbnailer file managers run (share/thumbnailers/scratchcard.thumbnailer): the same
# thumbnail code in a program of its own that links only what a thumbnail needs.
INSTALL_THUMBNAILER = $(INSTALL_BUILD)/release/scratchcard-thumbnailer
ICON_SIZES = 16 24 32 48 64 128 256
# The card file's type icon (share/icons/hicolor/*/mimetypes), MIME package and thumbnailer.
MIME_ICON = application-x-scratchcard
bindir = $(PREFIX)/bin
datadir = $(PREFIX)/share
root = $(DESTDIR)$(PREFIX)

install-build: deps
	for product in scratchcard scratchcard-thumbnailer; do \
	  $(SWIFT) build -c release --static-swift-stdlib --scratch-path $(INSTALL_BUILD) --product $$product \
	    -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now || exit 1; \
	done

install: install-build
	@$(MAKE) --no-print-directory install-files

## The install step without the build (the tests run it on what `make test` built).
install-files:
	@[ -x $(INSTALL_BIN) ] && [ -x $(INSTALL_THUMBNAILER) ] || { echo "make: build first: make install-build" >&2; exit 2; }
	install -d "$(root)/bin" "$(root)/share/applications" \
	  "$(root)/share/man/man1" "$(root)/share/doc/scratchcard/examples" \
	  "$(root)/share/icons/hicolor/scalable/apps" "$(root)/share/icons/hicolor/scalable/mimetypes" \
	  "$(root)/share/mime/packages" "$(root)/share/thumbnailers"
	install -m 755 $(INSTALL_BIN) "$(root)/bin/scratchcard"
	strip --remove-section=.comment --remove-section=.note "$(root)/bin/scratchcard"
	install -m 755 $(INSTALL_THUMBNAILER) "$(root)/bin/scratchcard-thumbnailer"
	strip --remove-section=.comment --remove-section=.note "$(root)/bin/scratchcard-thumbnailer"
	install -m 644 Assets/scratchcard.desktop Assets/scratchcard-doodle.desktop Assets/scratchcard-make.desktop \
	  "$(root)/share/applications/"
	for n in $(ICON_SIZES); do \
	  install -D -m 644 Assets/icons/scratchcard-$$n.png "$(root)/share/icons/hicolor/$${n}x$$n/apps/scratchcard.png" || exit 1; \
	done
	install -m 644 Assets/icons/scratchcard.svg "$(root)/share/icons/hicolor/scalable/apps/scratchcard.svg"
	for n in $(ICON_SIZES); do \
	  install -D -m 644 Assets/icons/$(MIME_ICON)-$$n.png "$(root)/share/icons/hicolor/$${n}x$$n/mimetypes/$(MIME_ICON).png" || exit 1; \
	done
	install -m 644 Assets/icons/$(MIME_ICON).svg "$(root)/share/icons/hicolor/scalable/mimetypes/$(MIME_ICON).svg"
	install -m 644 Assets/mime/scratchcard.xml "$(root)/share/mime/packages/scratchcard.xml"
	install -m 644 Assets/thumbnailers/scratchcard.thumbnailer "$(root)/share/thumbnailers/scratchcard.thumbnailer"
	gzip -9n < docs/scratchcard.1 > "$(root)/share/man/man1/scratchcard.1.gz"
	chmod 644 "$(root)/share/man/man1/scratchcard.1.gz"
	ln -sf scratchcard.1.gz "$(root)/share/man/man1/scratchcard-thumbnailer.1.gz"
	for f in xinitrc scratchcard-kiosk.service scratchcard-kiosk-system.service; do \
	  sed 's|/usr/local/bin/scratchcard|$(bindir)/scratchcard|' contrib/$$f > "$(root)/share/doc/scratchcard/examples/$$f" || exit 1; \
	done
	chmod 644 "$(root)/share/doc/scratchcard/examples/scratchcard-kiosk.service" "$(root)/share/doc/scratchcard/examples/scratchcard-kiosk-system.service"
	chmod 755 "$(root)/share/doc/scratchcard/examples/xinitrc"
	@$(MAKE) --no-print-directory refresh-caches

uninstall:
	rm -f "$(root)/bin/scratchcard" "$(root)/bin/scratchcard-thumbnailer" "$(root)/share/man/man1/scratchcard.1.gz" \
	  "$(root)/share/man/man1/scratchcard-thumbnailer.1.gz" \
	  "$(root)/share/applications/scratchcard.desktop" "$(root)/share/applications/scratchcard-doodle.desktop" \
	  "$(root)/share/applications/scratchcard-make.desktop" \
	  "$(root)/share/icons/hicolor/scalable/apps/scratchcard.svg" \
	  $(foreach n,$(ICON_SIZES),"$(root)/share/icons/hicolor/$(n)x$(n)/apps/scratchcard.png") \
	  "$(root)/share/icons/hicolor/scalable/mimetypes/$(MIME_ICON).svg" \
	  $(foreach n,$(ICON_SIZES),"$(root)/share/icons/hicolor/$(n)x$(n)/mimetypes/$(MIME_ICON).png") \
	  "$(root)/share/mime/packages/scratchcard.xml" "$(root)/share/thumbnailers/scratchcard.thumbnailer" \
	  "$(root)/share/doc/scratchcard/examples/xinitrc" "$(root)/share/doc/scratchcard/examples/scratchcard-kiosk.service" \
	  "$(root)/share/doc/scratchcard/examples/scratchcard-kiosk-system.service"
	rmdir "$(root)/share/doc/scratchcard/examples" "$(root)/share/doc/scratchcard" 2>/dev/null || true
	@$(MAKE) --no-print-directory refresh-caches

# Into the real system only (empty DESTDIR), as Debian's triggers do: the icon cache
# where the theme has one (or an index), the desktop database and the MIME database,
# when the tools exist. (The .deb leaves all three to Debian's triggers.)
refresh-caches:
	@if [ -z "$(DESTDIR)" ]; then \
	  icons="$(datadir)/icons/hicolor"; \
	  if command -v gtk-update-icon-cache >/dev/null && { [ -e "$$icons/index.theme" ] || [ -e "$$icons/icon-theme.cache" ]; }; then \
	    echo "gtk-update-icon-cache $$icons"; gtk-update-icon-cache -q -t -f "$$icons" || true; fi; \
	  if command -v update-desktop-database >/dev/null && [ -d "$(datadir)/applications" ]; then \
	    echo "update-desktop-database $(datadir)/applications"; update-desktop-database -q "$(datadir)/applications" || true; fi; \
	  if command -v update-mime-database >/dev/null && [ -d "$(datadir)/mime/packages" ]; then \
	    echo "update-mime-database $(datadir)/mime"; update-mime-database "$(datadir)/mime" || true; fi; \
	fi

## make deb: scratchcard_VERSION_amd64.deb in .build/deb, from the same install step.
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB = .build/deb/scratchcard_$(VERSION)_$(DEB_ARCH).deb
deb: install-build
	rm -rf .build/deb/root
	$(MAKE) --no-print-directory install-files DESTDIR=$(CURDIR)/.build/deb/root PREFIX=/usr
	scripts/make-deb.sh .build/deb/root $(VERSION) $(DEB)
	lintian --fail-on error,warning --display-info $(DEB)
	@echo "lintian: no errors or warnings in $(DEB)"

## A 1000 Hz drag with the program and its X server under a quarter of one core (a cgroup
## CPU quota; needs root): the whole path revealed, latency p99 within two refresh intervals.
bench-small-cpu: release
	scripts/small-cpu-bench.sh

## Frame pacing before and after: BEFORE=path/to/old/scratchcard make bench-pacing
bench-pacing: release
	scripts/pacing-bench.sh

clean:
	rm -rf .build
