#!/usr/bin/env bash
# The store's figures (BENCHMARKS.md), with the release build under a private Xvfb:
#
#   store-size ...  the size of a store after N cards (default 10,000), dealt and ended
#                   through the store's own code by `scratchcard simulate --out`
#   startup ...     time from start of set-up to the first frame on screen (--stats
#                   first_frame_ms) of a kiosk at 1920x1080 with no store yet, and with
#                   the store of N cards (opening it checks it, finds the card on show,
#                   counts the stock, commits the new deal); three runs each
#
# usage: scripts/store-bench.sh [N]     (needs swift build -c release; xvfb, xdotool, convert)
# The cost per event of saving strokes is window-bench.sh's, run with and without a store:
#   WINDOW_BENCH_PAUSE=0.001 WINDOW_BENCH_ARGS="--store /tmp/k.db" scripts/window-bench.sh 20000
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/xvfb.sh
cards=${1:-10000}
setup_bench store-bench

# A deck of three cards (two stocked), 1920x1080 PNGs, in the work folder.
convert -size 1920x1080 xc:'#c8102e' "$work/bike.png"
convert -size 1920x1080 xc:'#1e9e3c' "$work/cup.png"
convert -size 1920x1080 xc:'#1428e6' "$work/sorry.png"
cat > "$work/deck.json" <<JSON
{"cards": [{"id": "bike", "prize": "bike.png", "stock": 50, "weight": 1},
           {"id": "cup", "prize": "cup.png", "stock": 500, "weight": 3},
           {"id": "sorry", "prize": "sorry.png", "weight": 6}]}
JSON

t0=$(date +%s%N)
"$bin" simulate --deck "$work/deck.json" --count "$cards" --out "$work/full.db" > /dev/null
t1=$(date +%s%N)
echo "store-size cards=$cards bytes=$(stat -c %s "$work/full.db") simulate_ms=$(( (t1 - t0) / 1000000 ))"

field() { tr ' ' '\n' < "$work/stats.txt" | sed -n "s/^$1=//p"; }
startup() {   # label, store file to start from (or none)
  rm -f "$work/kiosk.db" "$work/kiosk.db-wal" "$work/kiosk.db-shm"
  [ "$2" = none ] || cp "$2" "$work/kiosk.db"
  start_xvfb 1920x1080
  "$bin" --kiosk --stats --scale 1 --deck "$work/deck.json" --store "$work/kiosk.db" > "$work/stats.txt" 2> "$work/stderr.txt" &
  app_pid=$!
  xdotool search --sync --onlyvisible --classname scratchcard >/dev/null
  sleep 0.5
  kill -TERM "$app_pid"; wait "$app_pid" || { echo "store-bench: scratchcard failed: $(cat "$work/stderr.txt")" >&2; exit 1; }
  app_pid=""
  stop_xvfb
  echo "startup store=$1 first_frame_ms=$(field first_frame_ms)"
}
for i in 1 2 3; do startup empty none; done
for i in 1 2 3; do startup "$cards-cards" "$work/full.db"; done
