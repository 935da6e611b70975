#!/usr/bin/env bash
# Start-ups in a loop, to find a rare crash at start (issue 34: SIGSEGV "Bad pointer
# dereference at 0x20" once in ~1,500 start-ups on a busy machine). Each start-up runs
# `scratchcard --events ARGS` on a private Xvfb, waits for its {"event":"ready",...} line,
# quits it (`q` typed through XTest, or SIGTERM) and checks that it exited with status 0.
# A start-up that ends on a signal, or whose stderr says it crashed (Swift's backtracer:
# "Program crashed", "Bad pointer dereference"; "Fatal error"; a ThreadSanitizer
# report), is a crash: its stderr, stdout and core (if the kernel wrote one) are kept.
#
# usage: scripts/startup-loop.sh [options] [-- SCRATCHCARD-ARGS...]
#   -n N            start-ups (default 1000)
#   --busy K        K busy loops (`yes > /dev/null`) beside the start-ups, ended at exit
#                   (default 0); they run under `nice -n $BUSY_NICE` (default 19: they
#                   still take every idle cycle and preempt the program, but leave the
#                   machine usable to others). The start-ups themselves are never niced.
#   --quit q|term   how each start-up is ended (default q: typed into the window, as a
#                   user does; term: SIGTERM right after `ready`, which must end it as a
#                   quit, status 0: the handler is installed before the line is printed)
#   --bin PATH      the binary (default: the release build, built first)
#   --keep DIR      where crashes are kept (default /tmp/startup-loop.<pid>)
#   --until-crash   stop at the first crash
#   --timeout S     seconds a start-up may take to `ready`, and a quit to exit (default 30)
# Progress every 100 start-ups; at the end one line:
#   startups=N ready=N crashes=C hangs=H failures=F seconds=S per_second=R
# Exit status 0 when every start-up reached `ready` and exited 0, else 1.
# Needs xvfb and xdotool. `make startup-loop` runs it on the release build, `make
# startup-loop-tsan` on a ThreadSanitizer build (swift build -c debug --sanitize=thread
# --scratch-path .build/tsan; --bin .build/tsan/debug/scratchcard).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/xvfb.sh

count=1000 busy=0 quit=q bin="" keep="" until_crash=0 timeout=30
while [ $# -gt 0 ]; do
  case $1 in
    -n) count=$2; shift 2 ;;
    --busy) busy=$2; shift 2 ;;
    --quit) quit=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --until-crash) until_crash=1; shift ;;
    --timeout) timeout=$2; shift 2 ;;
    --) shift; break ;;
    *) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
args=("$@")
case $quit in q|term) ;; *) echo "startup-loop: --quit q or term" >&2; exit 2 ;; esac
command -v xdotool >/dev/null || { echo "startup-loop: needs xdotool" >&2; exit 2; }
if [ -z "$bin" ]; then
  swift build -c release --product scratchcard >/dev/null 2>&1 || { echo "startup-loop: the release build failed" >&2; exit 2; }
  bin=$(swift build -c release --show-bin-path)/scratchcard
fi
[ -x "$bin" ] || { echo "startup-loop: no binary at $bin" >&2; exit 2; }
bin=$(readlink -f "$bin")
keep=${keep:-/tmp/startup-loop.$$}
mkdir -p "$keep"
work=$(mktemp -d /tmp/startup-loop-work.XXXXXX)
mkdir -p "$work/run" "$work/config" "$work/state"

busy_pids=() app=""
end() {
  [ -n "$app" ] && kill -KILL "$app" 2>/dev/null
  for p in "${busy_pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${busy_pids[@]}"; do wait "$p" 2>/dev/null; done
  stop_xvfb
  rm -rf "$work"
  rmdir "$keep" 2>/dev/null    # nothing kept: no folder left behind
}
trap end EXIT
trap 'exit 130' INT TERM

start_xvfb 1280x800 80
for _ in $(seq "$busy"); do
  nice -n "${BUSY_NICE:-19}" yes > /dev/null &
  busy_pids+=($!)
done
# Cores, if the kernel writes them into the program's folder (core_pattern "core").
ulimit -c unlimited 2>/dev/null
# The program's own settings only: no config of the user's, a state folder of its own.
export XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state
# Swift's backtracer: every thread's backtrace on a crash, never waiting on a terminal.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=yes,interactive=no,threads=all}
fifo=$work/events
mkfifo "$fifo"

ready=0 crashes=0 hangs=0 failures=0 started=$(date +%s%N)
echo "startup-loop: $count start-ups of $bin ${args[*]} (quit: $quit, busy loops: $busy), kept in $keep; load $(cut -d' ' -f1-3 /proc/loadavg)"

# keep_run I WHAT: the start-up's stderr, stdout and core kept as WHAT-I.*.
keep_run() {
  cp "$work/err" "$keep/$2-$1.stderr"
  cp "$work/out" "$keep/$2-$1.stdout"
  local core
  for core in "$work"/run/core*; do [ -e "$core" ] && mv "$core" "$keep/$2-$1.core"; done
}

for i in $(seq "$count"); do
  rm -f "$work"/run/core*
  : > "$work/out"
  (cd "$work/run" && exec "$bin" --events "${args[@]}" > "$fifo" 2> "$work/err") &
  app=$!
  exec 3< "$fifo"
  got_ready=0 hung=0
  # read_events: the program's lines into out until `ready` (with READY_ONLY=1) or its end;
  # rc > 128: none came within the timeout.
  read_events() {
    while :; do
      IFS= read -r -t "$timeout" -u 3 line; rc=$?
      [ $rc = 0 ] || break
      echo "$line" >> "$work/out"
      case $line in *'"event":"ready"'*) got_ready=1; [ "$1" = ready ] && break ;; esac
    done
  }
  read_events ready
  if [ $got_ready = 1 ]; then
    ready=$((ready + 1))
    if [ "$quit" = term ]; then
      kill -TERM "$app" 2>/dev/null
    else
      # With no window manager the focus follows the pointer: over the window, then `q`.
      window=$(timeout "$timeout" xdotool search --sync --onlyvisible --pid "$app" --classname scratchcard 2>/dev/null | head -1)
      if [ -n "$window" ]; then xdotool mousemove --window "$window" 1 1 key q 2>/dev/null; else hung=1; fi
    fi
    # The rest of its events, to the end (a reader must stay, or it dies of SIGPIPE).
    [ $hung = 0 ] && read_events end
  fi
  [ $rc -gt 128 ] && hung=1
  if [ $hung = 1 ]; then
    # Its threads' backtraces (Swift's backtracer answers SIGABRT too), then it ends.
    kill -ABRT "$app" 2>/dev/null; sleep 2; kill -KILL "$app" 2>/dev/null
  fi
  exec 3<&-
  wait "$app"; status=$?
  app=""
  crashed=0
  if [ $hung = 1 ]; then
    hangs=$((hangs + 1)); keep_run "$i" hang
    echo "startup-loop: start-up $i hung (ready: $got_ready); kept in $keep/hang-$i.*" >&2
  elif [ $status -gt 128 ] && [ $((status - 128)) -ne 15 ] \
       || grep -qE "Program crashed|Bad pointer|Fatal error|Segmentation fault|ThreadSanitizer|AddressSanitizer" "$work/err"; then
    crashed=1 crashes=$((crashes + 1)); keep_run "$i" crash
    echo "startup-loop: start-up $i crashed (status $status, ready: $got_ready): $(grep -m1 -E 'crashed|Bad pointer|Fatal|WARNING' "$work/err")" >&2
    echo "startup-loop:   kept in $keep/crash-$i.*" >&2
  elif [ $status -ne 0 ] || [ $got_ready = 0 ]; then
    failures=$((failures + 1)); keep_run "$i" failure
    echo "startup-loop: start-up $i failed (status $status, ready: $got_ready): $(head -c 300 "$work/err")" >&2
  fi
  if [ $((i % 100)) = 0 ]; then
    echo "startup-loop: $i start-ups, $crashes crashes, $hangs hangs, $failures failures; load $(cut -d' ' -f1 /proc/loadavg)"
  fi
  [ $until_crash = 1 ] && [ $crashed = 1 ] && { count=$i; break; }
done
awk -v n="$count" -v ns=$(($(date +%s%N) - started)) -v r=$ready -v c=$crashes -v h=$hangs -v f=$failures 'BEGIN {
  printf "startups=%d ready=%d crashes=%d hangs=%d failures=%d seconds=%.0f per_second=%.2f\n", n, r, c, h, f, ns / 1e9, n / (ns / 1e9) }'
[ $crashes = 0 ] && [ $hangs = 0 ] && [ $failures = 0 ]
