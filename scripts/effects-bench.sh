#!/usr/bin/env bash
# Sound and celebration figures (BENCHMARKS.md), in a release build under a private Xvfb
# and a private PulseAudio daemon with a null sink (the tests' setup). For each window
# size, one line:
#
#   effects size=WxH events=… sound_ns_per_event=… (the loop's cost of the sound per
#   scratch event: the pen's speed and foil, the hand-over to the sound thread)
#   sound_thread_cpu_pct=… (the sound thread's CPU over a 4 s scratch, % of one core:
#   the synthesis and the writes) sound_latency_p50_ms/max_ms=… (a motion's arrival to its
#   block leaving for the server, plus the buffer the server granted) celebration_frames,
#   celebration_us_per_frame, celebration_pixels_per_frame (the burst, per frame: the flakes
#   put back through the compositor and drawn again) idle_ticks_after=… (5 s from 2 s after
#   the reveal)
#
# usage: scripts/effects-bench.sh [WxH ...]     (default 800x600 1920x1080 3840x2160;
#        needs swift build -c release, xvfb, xdotool, pulseaudio, pulseaudio-utils)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/xvfb.sh
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(800x600 1920x1080 3840x2160)
setup_bench effects-bench

# The private sound server, as the tests start it; ended with the rest.
mkdir -p "$work/home" "$work/runtime"
HOME="$work/home" PULSE_RUNTIME_PATH="$work/runtime" XDG_RUNTIME_DIR="$work/runtime" \
  pulseaudio -n --daemonize=no --exit-idle-time=-1 --disallow-exit --use-pid-file=no \
  -L "module-null-sink sink_name=null rate=48000 channels=1" \
  -L "module-native-protocol-unix socket=$work/native auth-anonymous=1" >/dev/null 2>&1 &
pulse_pid=$!
recorder_pid=""
trap 'kill $recorder_pid $pulse_pid 2>/dev/null || true; end_bench' EXIT
export PULSE_SERVER="unix:$work/native"
for _ in $(seq 100); do pactl info >/dev/null 2>&1 && break; sleep 0.05; done
# A client on the monitor, as in the tests: the null sink then renders in 10 ms steps, as a
# sound card would (alone it sleeps in 2 s blocks).
parec --device=null.monitor --latency-msec=10 --raw > /dev/null &
recorder_pid=$!
sleep 2.5      # the null sink's first 2 s block passes before the first stream starts

ticks() { awk '{ print $14 + $15 }' "$1"; }
largest=$(printf '%s\n' "${sizes[@]}" | sort -t x -k1,1n | tail -1)
start_xvfb "$largest"
for size in "${sizes[@]}"; do
  "$bin" --size "$size" --scale 1 --brush 30 --reveal-at 100 --stats --verbose > "$work/stats.txt" 2> "$work/stderr.txt" &
  app_pid=$!
  window=$(xdotool search --sync --onlyvisible --classname scratchcard | head -1)
  for _ in $(seq 100); do grep -q "sound: PulseAudio" "$work/stderr.txt" && break; sleep 0.05; done
  w=${size%x*}; h=${size#*x}
  sound_thread=""
  for t in /proc/$app_pid/task/*; do
    id=$(basename "$t"); [ "$id" = "$app_pid" ] && continue
    [ "$(cat "$t/comm")" = "threaded-ml" ] && continue
    sound_thread=$t/stat
  done
  before=$(ticks "$sound_thread"); started=$(date +%s%N)
  # 4 s of zig-zag scratching at 100 events a second over fresh foil.
  awk -v w="$w" -v h="$h" -v win="$window" 'BEGIN {
    printf "mousemove --window %s 40 40 mousedown 1", win
    for (i = 0; i < 400; i++) {
      row = int(i / 40); t = i % 40
      x = (row % 2 == 0) ? 40 + t * (w - 80) / 40 : w - 40 - t * (w - 80) / 40
      printf " mousemove --window %s %d %d sleep 0.01", win, x, 40 + row * (h - 80) / 10
    }
    print " mouseup 1"
  }' | xargs xdotool
  after=$(ticks "$sound_thread"); ended=$(date +%s%N)
  hz=$(getconf CLK_TCK)
  cpu=$(awk -v t=$((after - before)) -v hz="$hz" -v ns=$((ended - started)) 'BEGIN { printf "%.1f", 100 * t / hz / (ns / 1e9) }')
  sleep 0.5
  xdotool mousemove --window "$window" 1 1 key space
  sleep 2
  idle_before=$(ticks "/proc/$app_pid/stat"); sleep 5; idle_after=$(ticks "/proc/$app_pid/stat")
  xdotool key q
  wait "$app_pid"; app_pid=""
  fields=$(tr ' ' '\n' < "$work/stats.txt" | grep -E '^(events|sound_ns_per_event|sound_latency_p50_ms|sound_latency_max_ms|celebration_frames|celebration_us_per_frame|celebration_pixels_per_frame)=' | tr '\n' ' ')
  echo "effects size=$size ${fields}sound_thread_cpu_pct=$cpu idle_ticks_after=$((idle_after - idle_before))"
done
