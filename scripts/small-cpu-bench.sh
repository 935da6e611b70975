#!/usr/bin/env bash
# A small kiosk board's CPU, stood in for by a quota: the X server and the program run
# in a cgroup of this script's own with a quarter of one core (cgroup v1:
# cpu.cfs_quota_us 25000 of cpu.cfs_period_us 100000 under /sys/fs/cgroup/cpu; cgroup
# v2: cpu.max "25000 100000"), and a drag paced like a 1000 Hz mouse goes through
# scripts/window-bench.sh (xdotool, the stand-in for the mouse, stays outside the quota;
# WINDOW_BENCH_INPUT=inputtest drives a mouse-like pointer through a dummy Xorg instead,
# its driver inputdrive outside the quota too).
# Shows, per build:
#   - the whole path revealed: the recording (--record) holds every motion driven, and
#     what the window shows at the end equals `scratchcard render` of that recording
#     (replay_diff_pixels=0);
#   - the screen keeps up: event-to-put latency p99 within two refresh intervals (the
#     program's max_fps: 60 Hz under Xvfb, so 33.3 ms);
#   - how often the quota throttled the group (cpu.stat).
#
# usage: scripts/small-cpu-bench.sh [EVENTS]   (default 10000; needs root for the cgroup,
#        a release build, and what window-bench.sh needs)
#        BEFORE=path/to/old/scratchcard also runs that build, alternating with this one.
#        SMALL_CPU_QUOTA_US (default 25000) and SMALL_CPU_PERIOD_US (default 100000).
set -euo pipefail
cd "$(dirname "$0")/.."
events=${1:-10000}
quota=${SMALL_CPU_QUOTA_US:-25000}
period=${SMALL_CPU_PERIOD_US:-100000}
after=$(swift build -c release --show-bin-path)/scratchcard
[ -x "$after" ] || { echo "small-cpu-bench: build first: swift build -c release" >&2; exit 2; }
builds=(after)
[ -n "${BEFORE:-}" ] && builds=(before after)

fs=$(stat -fc %T /sys/fs/cgroup)
make_group() {   # prints the new group's folder
  local name="scratchcard-small-cpu-$$-$1"
  if [ "$fs" = cgroup2fs ]; then
    local dir="/sys/fs/cgroup/$name"
    grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control || echo +cpu > /sys/fs/cgroup/cgroup.subtree_control
    mkdir "$dir"
    echo "$quota $period" > "$dir/cpu.max"
  else
    local dir="/sys/fs/cgroup/cpu/$name"
    mkdir "$dir"
    echo "$period" > "$dir/cpu.cfs_period_us"
    echo "$quota" > "$dir/cpu.cfs_quota_us"
  fi
  echo "$dir"
}
groups=()
cleanup() { for g in "${groups[@]}"; do rmdir "$g" 2>/dev/null || true; done; }
trap cleanup EXIT
[ -w /sys/fs/cgroup ] || [ -w /sys/fs/cgroup/cpu ] || { echo "small-cpu-bench: needs root (a cgroup of its own)" >&2; exit 2; }

for build in "${builds[@]}"; do
  bin=$after; [ "$build" = before ] && bin=$BEFORE
  group=$(make_group "$build"); groups+=("$group")
  line=$(SCRATCHCARD=$bin WINDOW_BENCH_CGROUP=$group WINDOW_BENCH_PAUSE=0.001 WINDOW_BENCH_RECORD=1 \
         WINDOW_BENCH_IDLE=0 WINDOW_BENCH_PAUSES=0 WINDOW_BENCH_STARTUP=0 scripts/window-bench.sh "$events")
  throttled=$(awk '$1 == "nr_periods" || $1 == "nr_throttled" || $1 == "throttled_time" || $1 == "throttled_usec" { printf "%s=%s ", $1, $2 }' "$group/cpu.stat")
  echo "small-cpu build=$build quota=${quota}/${period}us $line $throttled"
  get() { tr ' ' '\n' <<< "$line" | sed -n "s/^$1=//p"; }
  # Two intervals of the program's pace (an old build does not say it: 60 Hz, Xvfb's).
  fps=$(get max_fps); two_intervals_us=$(awk -v f="${fps:-60}" 'BEGIN { printf "%d", 2 * 1e6 / f }')
  whole=no; [ "$(get recorded_events)" = "$((events + 1))" ] && [ "$(get replay_diff_pixels)" = 0 ] && whole=yes
  keeps_up=no; [ "$(get latency_p99_us)" -le "$two_intervals_us" ] && keeps_up=yes
  echo "small-cpu build=$build whole_path_revealed=$whole latency_p99_us=$(get latency_p99_us) within_two_intervals_${two_intervals_us}us=$keeps_up"
done
