#!/usr/bin/env bash
# The window soak: a private Xvfb, the release scratchcard on it, and N pointer motion
# events (default 100000) through XTest with the button held, fed by xdotool from a
# command file (one process: ~20 µs an event, where one xdotool call per event costs
# ~1 ms). A new card (`r`) every 10,000 events keeps the brush working. Prints the
# program's resident memory, open file descriptors and shared memory segments after a
# warm-up, half way and at the end, its --stats line, and whether a segment survived its exit.
#   scripts/soak-window.sh [EVENTS]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/xvfb.sh
events=${1:-100000}
batch=10000
# SOAK_NEW_CARD=0: keep one card (no `r`), to tell per-event growth from per-card churn.
newcard=$([ "${SOAK_NEW_CARD:-1}" = 0 ] && echo "" || echo "key r\\n")

swift build -c release --product scratchcard >/dev/null
bin=$(swift build -c release --show-bin-path)/scratchcard
work=$(mktemp -d /tmp/scratchcard-soak.XXXXXX)

app=
cleanup() {
  [ -n "$app" ] && kill -9 "$app" 2>/dev/null || true
  stop_xvfb
  rm -rf "$work"
}
trap cleanup EXIT
start_xvfb 1920x1080 170

"$bin" --size 1280x720 --scale 1 --brush 20 --reveal-at 100 --stats >"$work/out" 2>"$work/err" &
app=$!
window=$(xdotool search --sync --onlyvisible --classname scratchcard | head -1)

# N motion events in a random walk over the window, button held, `r` between batches.
moves() {  # count seed
  awk -v n="$1" -v seed="$2" -v w="$window" -v newcard="$newcard" 'BEGIN {
    srand(seed); x = 640; y = 360
    printf "mousemove --window %s %d %d\nmousedown 1\n", w, x, y
    for (i = 0; i < n; i++) {
      dx = int(rand() * 25) - 12; dy = int(rand() * 25) - 12
      if (dx == 0 && dy == 0) dx = 1
      x += dx; y += dy
      if (x < 5) x = 5; if (x > 1274) x = 1274; if (y < 5) y = 5; if (y > 714) y = 714
      printf "mousemove --window %s %d %d\n", w, x, y
    }
    printf "mouseup 1\n%s", newcard
  }'
}
measure() {  # label
  sleep 1    # let the program drain what is queued
  local rss fds segs all
  rss=$(awk '/^VmRSS:/ { print $2 }' /proc/$app/status)
  fds=$(ls /proc/$app/fd | wc -l)
  segs=$(awk -v p=$app 'NR > 1 && $5 == p' /proc/sysvipc/shm | wc -l)
  all=$(awk 'NR > 1' /proc/sysvipc/shm | wc -l)
  echo "$1: rss_kb=$rss fds=$fds shm_segments_of_app=$segs shm_segments_total=$all"
  eval "${1}_rss=$rss"
}

moves "$batch" 1 >"$work/warm.xdo"
start=$(date +%s.%N)
xdotool "$work/warm.xdo"
measure before
sent=0
seed=2
while [ "$sent" -lt "$events" ]; do
  moves "$batch" "$seed" >"$work/batch.xdo"
  xdotool "$work/batch.xdo"
  sent=$((sent + batch)); seed=$((seed + 1))
  rss=$(awk '/^VmRSS:/ { print $2 }' /proc/$app/status)
  echo "  sent $sent: rss_kb=$rss"
  # The allocator settles over the first few cards; the second half shows whether
  # anything grows per event once it has.
  [ -z "${half_rss:-}" ] && [ $((sent * 2)) -ge "$events" ] && half_rss=$rss
done
measure after
echo "rss_growth_kb=$((after_rss - before_rss)) over $events events after a warm-up of $batch"
echo "rss_growth_kb_second_half=$((after_rss - half_rss)) over the last $((events - events / 2)) events"

xdotool key q
for _ in $(seq 100); do kill -0 "$app" 2>/dev/null || break; sleep 0.05; done
wait "$app" && status=0 || status=$?
end=$(date +%s.%N)
app_pid=$app; app=
echo "exit=$status elapsed_s=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')"
echo "stats: $(cat "$work/out")"
echo "shm_segments_of_app_after_exit=$(awk -v p=$app_pid 'NR > 1 && $5 == p' /proc/sysvipc/shm | wc -l)"
[ -s "$work/err" ] && { echo "stderr:"; cat "$work/err"; }
exit "$status"
