#!/usr/bin/env bash
# How long dealing a new card keeps the window's loop from input (BENCHMARKS.md): two
# 4K PNGs shown in a 1920x1080 window under a private Xvfb; each round types `r` and at
# once drags across the card (one xdotool run), then waits for the deal to finish.
# Prints the --stats line: longest_wake_ms is the longest the loop spent on one wake,
# during which input waited unread.
#
# usage: scripts/deal-bench.sh [ROUNDS]    (default 5; needs a release build:
#        swift build -c release; and xvfb, xdotool, imagemagick's convert)
#        SCRATCHCARD=path/to/scratchcard runs another build (an older one, to compare).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/xvfb.sh
rounds=${1:-5}
setup_bench deal-bench

make_4k_pngs "$work"

start_xvfb 1920x1080

"$bin" --stats --cover "$work/cover4k.png" --prize "$work/prize4k.png" --size 1920x1080 --scale 1 --brush 10 \
  > "$work/stats.txt" 2> "$work/stderr.txt" &
app_pid=$!
window=$(xdotool search --sync --onlyvisible --classname scratchcard | head -1)
sleep 1
for round in $(seq "$rounds"); do
  y=$((100 + round * 150))
  moves=(mousemove --window "$window" 100 "$y" key r mousedown 1)
  for x in $(seq 110 20 1700); do moves+=(mousemove --window "$window" "$x" "$y" sleep 0.004); done
  xdotool "${moves[@]}" mouseup 1
  sleep 1.5
done
xdotool mousemove --window "$window" 1 1 key q
wait "$app_pid" || { echo "deal-bench: scratchcard failed: $(cat "$work/stderr.txt")" >&2; exit 1; }
app_pid=""
echo "deal rounds=$rounds $(cat "$work/stats.txt")"
