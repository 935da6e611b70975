#!/usr/bin/env bash
# The window's figures (BENCHMARKS.md): drives motion events through XTest (xdotool)
# into the built scratchcard under a private Xvfb and reports, on one line each:
#
#   window ... events, repaints (puts), latency p50/p99 (--stats: from the event's
#              arrival to the completion of the put that shows it), events per second
#              handled (events over the drive's wall time, and over the program's CPU
#              time), the program's and the X server's CPU per motion driven (us, from
#              /proc/PID/stat in clock ticks and from /proc/PID/task/*/schedstat in ns),
#              puts per second during the drive, peak RSS (VmHWM), idle CPU ticks over
#              5 seconds with nobody touching it
#   pause ...  a second run: WINDOW_BENCH_PAUSES (default 10) single motions, each after
#              500 ms of stillness, button held: their latency p50 and max, and how many
#              of their puts the program held back (held_puts, 0 when the first put after
#              a pause goes at once)
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
# like a 1000 Hz mouse (xdotool's sleep between moves: about 900 a second), and all arrive;
# WINDOW_BENCH_PAUSE=0.008 like a 125 Hz one.
# WINDOW_BENCH_SIZE=3840x2160 drives a window (and screen) of that size instead of 1920x1080.
# WINDOW_BENCH_BUTTON=0 moves without the button held: the same motion events reach the
# program, which strokes and puts nothing: the input's own cost, the floor under the rest.
# WINDOW_BENCH_STARTUP=0 skips the start-up figures, WINDOW_BENCH_IDLE=0 the idle wait,
# WINDOW_BENCH_PAUSES=0 the pause run. WINDOW_BENCH_ARGS adds options to the program's.
# WINDOW_BENCH_CGROUP=DIR (a cgroup v1 cpu folder or a v2 one) runs the X server and the
# program in that group (scripts/small-cpu-bench.sh makes one with a CPU quota).
# WINDOW_BENCH_INPUT=inputtest: the screen is a private Xorg on the dummy driver (60 Hz)
# and the motions come from its absolute pointer on the inputtest driver, as a mouse's
# do, instead of from xdotool's XTest requests (whose replies and wake-ups cost the X
# server as much again as the motion's delivery): Bench/inputdrive sends them on a
# grid of the monotonic clock, 1/WINDOW_BENCH_PAUSE a second (default 1000), all of
# them. Needs root, xserver-xorg-video-dummy and `swift build -c release --product
# inputdrive`. The start-up figures stay on Xvfb.
# WINDOW_BENCH_RECORD=1 records the drag (--record) and compares what the window shows
# at the end with `scratchcard render` of the recording: replay_diff_pixels=0 when the
# screen holds every stroke.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/xvfb.sh
events=${1:-100000}
size=${WINDOW_BENCH_SIZE:-1920x1080}
setup_bench window-bench

# Puts a process into $WINDOW_BENCH_CGROUP, when set.
join_cgroup() {
  [ -n "${WINDOW_BENCH_CGROUP:-}" ] || return 0
  echo "$1" > "$WINDOW_BENCH_CGROUP/cgroup.procs"
}
# Starts scratchcard --stats with the given options (and $WINDOW_BENCH_ARGS); sets
# app_pid and window.
start_app() {
  # shellcheck disable=SC2086
  "$bin" --stats ${WINDOW_BENCH_ARGS:-} "$@" > "$work/stats.txt" 2> "$work/stderr.txt" &
  app_pid=$!
  join_cgroup "$app_pid"
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
start_screen "$size"
join_cgroup "$xvfb_pid"
record_args=()
[ "${WINDOW_BENCH_RECORD:-0}" = 1 ] && record_args=(--record "$work/drag.trace")
start_app --size "$size" --scale 1 "${record_args[@]}"
sleep 1
idle_ticks=-
if [ "${WINDOW_BENCH_IDLE:-1}" != 0 ]; then
  idle_before=$(cpu_ticks "$app_pid"); sleep 5; idle_after=$(cpu_ticks "$app_pid")
  idle_ticks=$((idle_after - idle_before))
fi

# A zig-zag scratch over the window, every point different from the one before.
eval "$(xdotool getwindowgeometry --shell "$window")"    # X, Y, WIDTH, HEIGHT
awk -v n="$events" -v x0="$X" -v y0="$Y" -v w="$WIDTH" -v h="$HEIGHT" -v pause="${WINDOW_BENCH_PAUSE:-}" \
    -v button="${WINDOW_BENCH_BUTTON:-1}" 'BEGIN {
  print "mousemove " x0 + 40 " " y0 + 40; if (button) print "mousedown 1"
  for (i = 0; i < n; i++) {
    t = i % 2000; row = int(i / 2000) % 40
    x = (int(i / 2000) % 2 == 0) ? 40 + t * (w - 80) / 2000 : w - 40 - t * (w - 80) / 2000
    y = 40 + row * (h - 80) / 40 + (i % 7) * 3
    printf "mousemove %d %d\n", x0 + x, y0 + y
    if (pause != "") printf "sleep %s\n", pause
  }
  if (button) print "mouseup 1"
}' > "$work/drive.xdo"
cpu_before=$(cpu_ticks "$app_pid"); t0=$(now_ns)
app_ns_before=$(cpu_ns "$app_pid"); x_ns_before=$(cpu_ns "$xvfb_pid"); x_ticks_before=$(cpu_ticks "$xvfb_pid")
if [ -n "$inputdrive_pid" ]; then
  drive_input drag "$events" "$(awk -v p="${WINDOW_BENCH_PAUSE:-0.001}" 'BEGIN { printf "%d", 1 / p }')" \
    "$X" "$Y" "$WIDTH" "$HEIGHT" "${WINDOW_BENCH_BUTTON:-1}" > "$work/drive.txt"
else
  xdotool "$work/drive.xdo"
fi
t_drive=$(now_ns)
# Wait until the program has caught up: its CPU time stops growing.
prev=-1; cur=$(cpu_ns "$app_pid")
while [ "$cur" != "$prev" ]; do prev=$cur; sleep 0.2; cur=$(cpu_ns "$app_pid"); done
t1=$(now_ns); cpu_after=$(cpu_ticks "$app_pid"); app_ns_after=$cur
x_ns_after=$(cpu_ns "$xvfb_pid"); x_ticks_after=$(cpu_ticks "$xvfb_pid")
hwm_kb=$(awk '/^VmHWM/ { print $2 }' "/proc/$app_pid/status")
replay=""
if [ "${WINDOW_BENCH_RECORD:-0}" = 1 ]; then
  xwd -silent -id "$window" | convert xwd:- -alpha off "$work/shown.png"
fi
quit_app
stop_xvfb
if [ "${WINDOW_BENCH_RECORD:-0}" = 1 ]; then
  "$bin" render --trace "$work/drag.trace" --out "$work/replay.png"
  convert "$work/replay.png" -alpha off "$work/replay-rgb.png"
  diff_pixels=$(compare -metric AE "$work/shown.png" "$work/replay-rgb.png" null: 2>&1 || true)
  replay=" recorded_events=$(grep -cE '^(down|move) ' "$work/drag.trace") replay_diff_pixels=$diff_pixels"
fi
ticks_per_s=$(getconf CLK_TCK)
handled=$(field events)
wall_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
drive_s=$(awk -v a="$t0" -v b="$t_drive" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
cpu_s=$(awk -v a="$cpu_before" -v b="$cpu_after" -v hz="$ticks_per_s" 'BEGIN { printf "%.3f", (b - a) / hz }')
per_event() { awk -v a="$1" -v b="$2" -v e="$events" -v scale="$3" 'BEGIN { printf "%.1f", (b - a) * scale / e }'; }
echo "window=$size driven=$events events=$handled repaints=$(field repaints) pixels_put=$(field pixels_put)" \
  "latency_p50_us=$(field latency_p50_us) latency_p99_us=$(field latency_p99_us)" \
  "events_per_s_wall=$(awk -v e="$handled" -v s="$wall_s" 'BEGIN { printf "%d", e / s }')" \
  "app_cpu_s=$cpu_s events_per_app_cpu_s=$(awk -v e="$handled" -v s="$cpu_s" 'BEGIN { printf "%d", (s > 0 ? e / s : 0) }')" \
  "app_us_per_event=$(per_event "$app_ns_before" "$app_ns_after" 0.001)" \
  "app_us_per_event_ticks=$(per_event "$cpu_before" "$cpu_after" "$((1000000 / ticks_per_s))")" \
  "x_us_per_event=$(per_event "$x_ns_before" "$x_ns_after" 0.001)" \
  "x_us_per_event_ticks=$(per_event "$x_ticks_before" "$x_ticks_after" "$((1000000 / ticks_per_s))")" \
  "puts_per_s=$(awk -v p="$(field repaints)" -v s="$drive_s" 'BEGIN { printf "%.1f", (p - 1) / s }')" \
  "max_fps=$(field max_fps) held_puts=$(field held_puts) most_strokes_in_a_put=$(field most_strokes_in_a_put)" \
  "slot_late_p50_us=$(field slot_late_p50_us) slot_late_p99_us=$(field slot_late_p99_us)" \
  "put_to_shown_p50_us=$(field put_to_shown_p50_us) put_to_shown_p99_us=$(field put_to_shown_p99_us)" \
  "peak_rss_kb=$hwm_kb idle_cpu_ticks_5s=$idle_ticks shm=$(field shm)$replay input=${WINDOW_BENCH_INPUT:-xtest}" \
  "$(cat "$work/drive.txt" 2>/dev/null)"

# --- the first put after a pause -------------------------------------------------
pauses=${WINDOW_BENCH_PAUSES:-10}
if [ "$pauses" -gt 0 ]; then
  start_screen "$size"
  join_cgroup "$xvfb_pid"
  start_app --size "$size" --scale 1
  eval "$(xdotool getwindowgeometry --shell "$window")"
  awk -v n="$pauses" -v x0="$X" -v y0="$Y" 'BEGIN {
    print "mousemove " x0 + 40 " " y0 + 40; print "mousedown 1"
    for (i = 1; i <= n; i++) { print "sleep 0.5"; printf "mousemove %d %d\n", x0 + 40 + 30 * i, y0 + 40 }
    print "sleep 0.1"; print "mouseup 1"
  }' > "$work/pauses.xdo"
  if [ -n "$inputdrive_pid" ]; then drive_input pauses "$pauses" "$X" "$Y" > /dev/null; else xdotool "$work/pauses.xdo"; fi
  sleep 0.3
  quit_app
  stop_xvfb
  echo "pause window=$size pauses=$pauses events=$(field events) repaints=$(field repaints)" \
    "latency_p50_us=$(field latency_p50_us) latency_max_us=$(field latency_p99_us) held_puts=$(field held_puts)"
fi
[ "${WINDOW_BENCH_STARTUP:-1}" != 0 ] || exit 0

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
