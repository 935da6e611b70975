#!/usr/bin/env bash
# The engine soak in a release build: SoakTests with a million strokes (1920x1080,
# random walk, composited after each), resident memory checked after warm-up.
#   scripts/soak.sh [STROKES]          (default 1000000)
# Release tests need -enable-testing (the test targets use @testable import); a
# separate scratch path keeps this build from thrashing .build/release.
set -euo pipefail
cd "$(dirname "$0")/.."
strokes=${1:-1000000}
swift build -c release --build-tests --scratch-path .build/soak -Xswiftc -enable-testing >/dev/null
SCRATCHCARD_SOAK_STROKES=$strokes swift test -c release --skip-build --scratch-path .build/soak --filter SoakTests 2>&1 \
  | grep -E "soak:|✔|✘|Expectation"
