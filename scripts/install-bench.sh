#!/usr/bin/env bash
# The two ways to ship scratchcard without a Swift toolchain on the target, measured
# (BENCHMARKS.md, "Installing"):
#
#   static   swift build --static-swift-stdlib: the Swift runtime and FoundationEssentials
#            linked into the binary (what `make install` does: make install-build)
#   shared   a plain release build with the toolchain's runtime .so files copied beside
#            it into lib/scratchcard, found through RUNPATH $ORIGIN/../lib/scratchcard
#
# Each is staged into a scratch prefix (stripped, as `make install` strips), then: the
# bytes installed, the wall time of `scratchcard --version` (process start and exit, no
# window) and `--stats` first_frame_ms of the built-in card under a private Xvfb, ROUNDS
# times each (default 10), as medians. As root, each run happens in a mount namespace
# with an empty tmpfs over the toolchain's folder, so that only what was staged is used.
#
# usage: scripts/install-bench.sh [ROUNDS]      (needs xvfb, xdotool)
#        INSTALL_BENCH_OTHER=path/to/scratchcard measures that static binary too, as
#        "other" (an older build, to compare). The ways take turns in each round, so
#        that the machine's load falls on all of them alike.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/xvfb.sh
rounds=${1:-10}
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")   # /opt/swift/usr
work=$(mktemp -d /tmp/install-bench.XXXXXX)
app_pid=""
trap 'kill "$app_pid" 2>/dev/null || true; stop_xvfb; rm -rf "$work"' EXIT

make -s install-build >/dev/null     # the static binary, as make install builds it
swift build -c release --scratch-path .build/bench-shared --product scratchcard \
  -Xswiftc -no-toolchain-stdlib-rpath -Xlinker -rpath -Xlinker '$ORIGIN/../lib/scratchcard' >/dev/null

stage() {   # prefix, binary
  install -D -m 755 -s "$2" "$1/bin/scratchcard"
}
stage "$work/static" .build/install/release/scratchcard
ways="static shared"
if [ -n "${INSTALL_BENCH_OTHER:-}" ]; then stage "$work/other" "$INSTALL_BENCH_OTHER"; ways="$ways other"; fi
stage "$work/shared" .build/bench-shared/release/scratchcard
mkdir -p "$work/shared/lib/scratchcard"
# The runtime libraries the binary needs from the toolchain (and they need), found by the loader.
LD_LIBRARY_PATH="$toolchain/lib/swift/linux" ldd .build/bench-shared/release/scratchcard | awk -v t="$toolchain" '$3 ~ "^" t { print $3 }' |
  while read -r lib; do install -m 644 "$lib" "$work/shared/lib/scratchcard/"; done

# Runs a command with the toolchain out of reach when we can (root: a mount namespace).
hidden() {
  if [ "$(id -u)" -eq 0 ]; then
    unshare -m --propagation private sh -c 'mount -t tmpfs none "$0" && shift && exec "$@"' "$toolchain" -- "$@"
  else
    "$@"
  fi
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
now_ns() { date +%s%N; }

start_xvfb 1280x800
for way in $ways; do hidden "$work/$way/bin/scratchcard" --version >/dev/null; done   # they run; the page cache is warm
for _ in $(seq "$rounds"); do
  for way in $ways; do
    bin="$work/$way/bin/scratchcard"
    t0=$(now_ns); hidden "$bin" --version >/dev/null; t1=$(now_ns)
    echo $(((t1 - t0) / 1000)) >> "$work/$way.version_us"
    hidden "$bin" --stats > "$work/stats.txt" 2> "$work/stderr.txt" &
    app_pid=$!
    window=$(xdotool search --sync --onlyvisible --classname scratchcard | head -1)
    xdotool mousemove --window "$window" 1 1 key q
    wait "$app_pid" || { echo "install-bench: $way failed: $(cat "$work/stderr.txt")" >&2; exit 1; }
    app_pid=""
    tr ' ' '\n' < "$work/stats.txt" | sed -n 's/^first_frame_ms=//p' >> "$work/$way.first_frame_ms"
  done
done
for way in $ways; do
  bin="$work/$way/bin/scratchcard"
  echo "install=$way binary_bytes=$(stat -c %s "$bin")" \
    "runtime_lib_bytes=$(if [ -d "$work/$way/lib" ]; then du -sb "$work/$way/lib" | cut -f1; else echo 0; fi)" \
    "installed_bytes=$(du -sb "$work/$way" | cut -f1)" \
    "version_ms=$(median < "$work/$way.version_us" | awk '{ printf "%.1f", $1 / 1000 }')" \
    "first_frame_ms=$(median < "$work/$way.first_frame_ms")" rounds="$rounds"
done
