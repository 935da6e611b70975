#!/usr/bin/env bash
# Frame pacing, before and after (BENCHMARKS.md, "The window: frame pacing"): runs
# scripts/window-bench.sh for two builds alternately, at 1920x1080 and 3840x2160, with
# the motions paced like a 1000 Hz mouse and like a 125 Hz one, ROUNDS times (default 1),
# and prints each window-bench line prefixed with the build's label.
#
# usage: BEFORE=path/to/old/scratchcard scripts/pacing-bench.sh [ROUNDS]
#        (the old build from another worktree, e.g. git worktree add ../wt-base main &&
#        (cd ../wt-base && swift build -c release --product scratchcard);
#        AFTER defaults to this tree's release build)
#        PACING_EVENTS_1000 (default 20000) and PACING_EVENTS_125 (default 2500) set how
#        many motions each run drives: about 22 and 22 seconds.
#        PACING_SIZES (default "1920x1080 3840x2160") and PACING_RATES (default
#        "1000 125") pick the runs. PACING_HOVER=1 adds, per size, a 1000 Hz drive with
#        no button held over each build's window (WINDOW_BENCH_BUTTON=0): what a
#        pointer passing over the card costs the X server.
#        BASE=path/to/older/scratchcard adds a third build, run first in each pair as
#        build=base (e.g. the build before pacing, when BEFORE is main's).
#        WINDOW_BENCH_INPUT=inputtest drives every run (and the input floor) through the
#        dummy Xorg's inputtest pointer instead of xdotool on Xvfb (scripts/window-bench.sh).
#        PACING_CLIENT=1 adds, per size, two runs of clientfloor at 1000 Hz (build=client,
#        build=client-hints): the least a paced client costs the X server, with its
#        motions as events and through PointerMotionHintMask (build it first:
#        swift build -c release --product clientfloor; CLIENTFLOOR=path elsewhere).
#        PACING_LOAD=N keeps N busy loops running (nice 0) through every run: a loaded
#        machine made on purpose, the same for both builds.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-1}
before=${BEFORE:?set BEFORE to the old build\'s scratchcard}
after=${AFTER:-$(swift build -c release --show-bin-path)/scratchcard}
clientfloor=${CLIENTFLOOR:-$(dirname "$after")/clientfloor}
base=${BASE:-}
builds="before after"; [ -n "$base" ] && builds="base before after"
for b in $base "$before" "$after"; do [ -x "$b" ] || { echo "pacing-bench: no executable at $b" >&2; exit 2; }; done
export WINDOW_BENCH_STARTUP=0 WINDOW_BENCH_IDLE=0
source scripts/lib/xvfb.sh
hogs=()
stop_all() { stop_xvfb; for h in "${hogs[@]}"; do kill "$h" 2>/dev/null || true; done; }
trap stop_all EXIT
for _ in $(seq "${PACING_LOAD:-0}"); do
  ( while :; do :; done ) &
  hogs+=($!)
done

# The input's own cost in the X server: the same drive (the 1000 Hz one) over a server
# with no program on it. With a third argument, clientfloor (Bench/clientfloor) runs
# on it meanwhile, with that argument as its options (`plain`: none): the least a
# client that reads the drag and puts once a frame costs the server. What the program
# adds comes on top.
input_floor() {   # size events [client options]
  local work before after client_pid="" client_before client_line="" width=${1%x*} height=${1#*x}
  work=$(mktemp -d /tmp/pacing-floor.XXXXXX)
  start_screen "$1"
  if [ "${WINDOW_BENCH_INPUT:-xtest}" != inputtest ]; then
    awk -v n="$2" 'BEGIN { for (i = 0; i < n; i++) { printf "mousemove %d %d\nsleep 0.001\n", 40 + (i % 2000) * 0.9, 40 + int(i / 2000) * 25 + (i % 7) * 3 } }' > "$work/drive.xdo"
  fi
  if [ $# -ge 3 ]; then
    # The client reads Button1 motions: the xdotool drive holds the button.
    [ -f "$work/drive.xdo" ] && sed -i '1i mousedown 1' "$work/drive.xdo" && echo "mouseup 1" >> "$work/drive.xdo"
    "$clientfloor" ${3#plain} > "$work/client.out" &
    client_pid=$!
    for _ in $(seq 100); do grep -q ready "$work/client.out" 2>/dev/null && break; sleep 0.05; done
    client_before=$(cpu_ns "$client_pid")
  fi
  before=$(cpu_ns "$xvfb_pid")
  if [ "${WINDOW_BENCH_INPUT:-xtest}" = inputtest ]; then
    drive_input drag "$2" 1000 0 0 "$width" "$height" 1 > /dev/null
  else
    xdotool "$work/drive.xdo"
  fi
  sleep 0.3
  after=$(cpu_ns "$xvfb_pid")
  if [ -n "$client_pid" ]; then
    client_line=" client_us_per_event=$(us_per_event "$client_before" "$(cpu_ns "$client_pid")" "$2")"
    kill "$client_pid"; wait "$client_pid" || true
    client_line=" $(tail -1 "$work/client.out")$client_line"
  fi
  stop_xvfb
  rm -rf "$work"
  echo "input-floor window=$1 driven=$2 x_us_per_event=$(us_per_event "$before" "$after" "$2")$client_line"
}

for round in $(seq "$rounds"); do
  for size in ${PACING_SIZES:-1920x1080 3840x2160}; do
    input_floor "$size" "${PACING_EVENTS_1000:-20000}" | sed "s/^/round=$round build=none hz=1000 /"
    if [ "${PACING_CLIENT:-0}" = 1 ]; then
      input_floor "$size" "${PACING_EVENTS_1000:-20000}" plain | sed "s/^/round=$round build=client hz=1000 /"
      input_floor "$size" "${PACING_EVENTS_1000:-20000}" --motion-hints | sed "s/^/round=$round build=client-hints hz=1000 /"
    fi
    if [ "${PACING_HOVER:-0}" = 1 ]; then
      for build in $builds; do
        bin=$before; [ "$build" = after ] && bin=$after; [ "$build" = base ] && bin=$base
        SCRATCHCARD=$bin WINDOW_BENCH_SIZE=$size WINDOW_BENCH_PAUSE=0.001 WINDOW_BENCH_BUTTON=0 WINDOW_BENCH_PAUSES=0 \
          scripts/window-bench.sh "${PACING_EVENTS_1000:-20000}" | sed "s/^/round=$round build=$build hz=1000 hover=1 /"
      done
    fi
    for hz in ${PACING_RATES:-1000 125}; do
      if [ "$hz" = 1000 ]; then pause=0.001; n=${PACING_EVENTS_1000:-20000}; else pause=0.008; n=${PACING_EVENTS_125:-2500}; fi
      for build in $builds; do
        bin=$before; [ "$build" = after ] && bin=$after; [ "$build" = base ] && bin=$base
        SCRATCHCARD=$bin WINDOW_BENCH_SIZE=$size WINDOW_BENCH_PAUSE=$pause scripts/window-bench.sh "$n" |
          sed "s/^/round=$round build=$build hz=$hz /"
      done
    done
  done
done
