#!/usr/bin/env bash
# The window's figures (BENCHMARKS.md): drives motion events through XTest (xdotool)
# into the built scratchcard under a private Xvfb and reports, on one line each:
#
#   window ... events, repaints, latency p50/p99 (--stats), events per second handled
#              (events over the drive's wall time, and over the program's CPU time),
#              peak RSS (VmHWM), idle CPU ticks over 5 seconds with nobody touching it
#   startup ... time from start of set-up to the first frame on screen (--stats
#              first_frame_ms) for the built-in card and for two 4K PNGs, and the wall
#              time of `scratchcard --version` (process start-up and exit, no window)
#
# usage: scripts/window-bench.sh [EVENTS]      (default 100000; needs a release build:
#        swift build -c release; and xvfb, xdotool, imagemagick's convert)
#        SCRATCHCARD=path/to/scratchcard runs another build (an older one, to compare).
#
# By default xdotool sends the motions as fast as it can: a flood, which the server
# itself thins (motion events queued before it dispatches them are merged: about half
# arrive) and serves in slices between its clients. WINDOW_BENCH_PAUSE=0.001 paces them
# like a 1000 Hz mouse (xdotool's sleep between moves: about 900 a second), and all arrive.
# WINDOW_BENCH_SIZE=3840x2160 drives a window (and screen) of that size instead of 1920x1080.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/xvfb.sh
events=${1:-100000}
size=${WINDOW_BENCH_SIZE:-1920x1080}
setup_bench window-bench

# Starts scratchcard --stats with the given options; sets app_pid and window.
start_app() {
  "$bin" --stats "$@" > "$work/stats.txt" 2> "$work/stderr.txt" &
  app_pid=$!
  window=$(xdotool search --sync --onlyvisible --classname scratchcard | head -1)
}
# Quits it with q (pointer over the window: no window manager, focus follows the
# pointer) and waits for its --stats line.
quit_app() {
  xdotool mousemove --window "$window" 1 1 key q
  wait "$app_pid" || { echo "window-bench: scratchcard failed: $(cat "$work/stderr.txt")" >&2; exit 1; }
  app_pid=""
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }   # utime + stime, clock ticks
field() { tr ' ' '\n' < "$work/stats.txt" | sed -n "s/^$1=//p"; }
now_ns() { date +%s%N; }

# --- the window: idle CPU, then a long drag --------------------------------------
start_xvfb "$size"
start_app --size "$size" --scale 1
sleep 1
idle_before=$(cpu_ticks "$app_pid"); sleep 5; idle_after=$(cpu_ticks "$app_pid")
idle_ticks=$((idle_after - idle_before))

# A zig-zag scratch over the window, every point different from the one before.
eval "$(xdotool getwindowgeometry --shell "$window")"    # X, Y, WIDTH, HEIGHT
awk -v n="$events" -v x0="$X" -v y0="$Y" -v w="$WIDTH" -v h="$HEIGHT" -v pause="${WINDOW_BENCH_PAUSE:-}" 'BEGIN {
  print "mousemove " x0 + 40 " " y0 + 40; print "mousedown 1"
  for (i = 0; i < n; i++) {
    t = i % 2000; row = int(i / 2000) % 40
    x = (int(i / 2000) % 2 == 0) ? 40 + t * (w - 80) / 2000 : w - 40 - t * (w - 80) / 2000
    y = 40 + row * (h - 80) / 40 + (i % 7) * 3
    printf "mousemove %d %d\n", x0 + x, y0 + y
    if (pause != "") printf "sleep %s\n", pause
  }
  print "mouseup 1"
}' > "$work/drive.xdo"
cpu_before=$(cpu_ticks "$app_pid"); t0=$(now_ns)
xdotool "$work/drive.xdo"
# Wait until the program has caught up: its CPU time stops growing.
prev=-1; cur=$(cpu_ticks "$app_pid")
while [ "$cur" != "$prev" ]; do prev=$cur; sleep 0.2; cur=$(cpu_ticks "$app_pid"); done
t1=$(now_ns); cpu_after=$cur
hwm_kb=$(awk '/^VmHWM/ { print $2 }' "/proc/$app_pid/status")
quit_app
stop_xvfb
ticks_per_s=$(getconf CLK_TCK)
handled=$(field events)
wall_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
cpu_s=$(awk -v a="$cpu_before" -v b="$cpu_after" -v hz="$ticks_per_s" 'BEGIN { printf "%.3f", (b - a) / hz }')
echo "window=$size driven=$events events=$handled repaints=$(field repaints) pixels_put=$(field pixels_put)" \
  "latency_p50_us=$(field latency_p50_us) latency_p99_us=$(field latency_p99_us)" \
  "events_per_s_wall=$(awk -v e="$handled" -v s="$wall_s" 'BEGIN { printf "%d", e / s }')" \
  "app_cpu_s=$cpu_s events_per_app_cpu_s=$(awk -v e="$handled" -v s="$cpu_s" 'BEGIN { printf "%d", (s > 0 ? e / s : 0) }')" \
  "peak_rss_kb=$hwm_kb idle_cpu_ticks_5s=$idle_ticks shm=$(field shm)"

# --- start-up -------------------------------------------------------------------
make_4k_pngs "$work"
startup() {   # label, screen size, options...
  local label=$1 screen=$2; shift 2
  start_xvfb "$screen"
  start_app "$@"
  quit_app
  stop_xvfb
  echo "startup card=$label window=$(field window) first_frame_ms=$(field first_frame_ms)"
}
for i in 1 2 3; do startup built-in 1920x1080; done
for i in 1 2 3; do startup png-4k 3840x2160 --cover "$work/cover4k.png" --prize "$work/prize4k.png"; done
t0=$(now_ns); "$bin" --version >/dev/null; t1=$(now_ns)
echo "startup process_version_ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')"
