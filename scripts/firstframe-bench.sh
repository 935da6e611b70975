#!/usr/bin/env bash
# The built-in card's start-up (BENCHMARKS.md, "Start-up"): `--stats` first_frame_ms of a
# kiosk (`--kiosk --stats --sound off`) on a private Xvfb whose one screen has each size,
# for one or more builds in turn (round by round, so that they share the machine's noise),
# then the median of each build at each size and the load average.
#
# usage: scripts/firstframe-bench.sh [ROUNDS] [BINARY...]
#        ROUNDS defaults to 5; BINARY defaults to the release build
#        (swift build -c release). FIRSTFRAME_SIZES="640x400 3840x2160" picks the sizes
#        (default 640x400 1920x1080 3840x2160). Needs xvfb and xdotool.
#
# Prints one line per run (`run size=... bin=N first_frame_ms=...`) and one per build and
# size (`median size=... bin=N runs=... first_frame_ms=... min=... max=...`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/xvfb.sh
rounds=${1:-5}
shift || true
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then bins=("$(swift build -c release --show-bin-path)/scratchcard"); fi
for b in "${bins[@]}"; do [ -x "$b" ] || { echo "firstframe-bench: no binary at $b" >&2; exit 2; }; done
work=$(mktemp -d /tmp/firstframe-bench.XXXXXX)
app_pid=""
end() {
  [ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null || true
  stop_xvfb
  rm -rf "$work"
}
trap end EXIT

field() { tr ' ' '\n' < "$work/stats.txt" | sed -n "s/^$1=//p"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

echo "load_average_before=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ,)"
for size in ${FIRSTFRAME_SIZES:-640x400 1920x1080 3840x2160}; do
  start_xvfb "$size"
  for round in $(seq "$rounds"); do
    for i in "${!bins[@]}"; do
      "${bins[$i]}" --kiosk --stats --sound off > "$work/stats.txt" 2> "$work/stderr.txt" &
      app_pid=$!
      xdotool search --sync --onlyvisible --classname scratchcard >/dev/null
      # The first put completes shortly after the window shows; then ask it to end
      # (SIGTERM: it finishes and prints its stats).
      sleep 0.4
      kill -TERM "$app_pid"
      # Once (of some hundred runs) a program went on after SIGTERM: asked again, and said.
      for _ in $(seq 50); do kill -0 "$app_pid" 2>/dev/null || break; sleep 0.1; done
      if kill -0 "$app_pid" 2>/dev/null; then
        echo "firstframe-bench: ${bins[$i]} still running 5 s after SIGTERM: sent again" >&2
        kill -TERM "$app_pid"
      fi
      wait "$app_pid" || { echo "firstframe-bench: ${bins[$i]} failed: $(cat "$work/stderr.txt")" >&2; exit 1; }
      app_pid=""
      ms=$(field first_frame_ms)
      echo "$ms" >> "$work/$size.$i"
      echo "run size=$size round=$round bin=$i first_frame_ms=$ms"
    done
  done
  stop_xvfb
done
echo "load_average_after=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ,)"
for size in ${FIRSTFRAME_SIZES:-640x400 1920x1080 3840x2160}; do
  for i in "${!bins[@]}"; do
    echo "median size=$size bin=$i runs=$(wc -l < "$work/$size.$i") first_frame_ms=$(median < "$work/$size.$i")" \
      "min=$(sort -n "$work/$size.$i" | head -1) max=$(sort -n "$work/$size.$i" | tail -1) binary=${bins[$i]}"
  done
done
