#!/usr/bin/env bash
# Present against paced puts (BENCHMARKS.md, "Present"): runs presentbench on a private
# Xvfb (Present with its fake vblank clock, MIT-SHM pixmaps), ROUNDS times (default 3),
# at 1920x1080: input simulated at 1000 Hz, the puts paced at 60 Hz.
#   scripts/present-bench.sh [ROUNDS]    (needs swift build -c release --product presentbench)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/xvfb.sh
rounds=${1:-3}
bin=$(swift build -c release --show-bin-path)/presentbench
[ -x "$bin" ] || { echo "present-bench: build first: swift build -c release --product presentbench" >&2; exit 2; }
trap stop_xvfb EXIT
for _ in $(seq "$rounds"); do
  start_xvfb 1920x1080
  "$bin" --seconds 3 --size 1920x1080
  stop_xvfb
done
