#!/usr/bin/env bash
# The suites that record sound, time frames or wait for a server, RUNS times in a row
# (default 5) with two busy loops (`yes > /dev/null`) beside them: they must measure what
# they claim wherever the timing falls (issue 34). Each run goes through
# scripts/run-tests.py (so each ends with its count of passed, failed and skipped tests);
# the first run that fails ends it, with that run's status. The loops are this script's
# children, killed by their pids when it ends however it ends.
#
#     make test-under-load [RUNS=5]       (builds the tests first)
#     scripts/test-under-load.sh [RUNS]   (on what is built)
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-5}
suites='ScratchCardAppTests.SoundTests|DeckSoundAppTests|CelebrationTests|PacingTests|ClockJumpTests'
suites+='|FramePacerTests|RefreshRateTests|LatencyHistogramTests|ServiceNotifyAppTests'

yes > /dev/null & busy1=$!
yes > /dev/null & busy2=$!
trap 'kill "$busy1" "$busy2" 2>/dev/null || true' EXIT

for run in $(seq 1 "$runs"); do
  echo "test-under-load: run $run of $runs, two busy loops beside (pids $busy1 $busy2)"
  status=0
  scripts/run-tests.py --skip-build --no-parallel --filter "$suites" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "test-under-load: run $run of $runs failed" >&2
    exit "$status"
  fi
done
echo "test-under-load: $runs runs in a row passed"
