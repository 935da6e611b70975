#!/usr/bin/env bash
# Card files (BENCHMARKS.md, "Card files"), three figures in one run:
#   1. first frame (--stats first_frame_ms) of a card of two 4K JPEGs given as a card file
#      (scratchcard FILE.scratchcard) and as two files (--cover A.jpg --prize B.jpg),
#      alternated round by round on a private 3840x2160 Xvfb;
#   2. the 256-pixel thumbnail of that card file, by scratchcard-thumbnailer (what the
#      .thumbnailer file runs) and by `scratchcard thumbnail`, against
#      gdk-pixbuf-thumbnailer on the cover JPEG alone, alternated;
#   3. thumbnails a second for a folder of 100 card files (one scratchcard-thumbnailer
#      process each, in turn, as a file manager's thumbnailer runs them).
#
# usage: scripts/cardfile-bench.sh [ROUNDS] [BINARY] [THUMBNAILER]
#        ROUNDS defaults to 7; BINARY to the release build (swift build -c release);
#        THUMBNAILER to scratchcard-thumbnailer beside BINARY. The installed programs'
#        build (static Swift runtime, immediate binding) is make install-build's:
#        scripts/cardfile-bench.sh 7 .build/install/release/scratchcard
#        CARDFILE_BENCH_FIRST_FRAME=no skips figure 1 (no Xvfb).
#        Needs xvfb, xdotool, gdk-pixbuf-thumbnailer, and /usr/bin/python3 with GdkPixbuf
#        (python3-gi, gir1.2-gdkpixbuf-2.0) to make the JPEGs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/xvfb.sh
rounds=${1:-7}
bin=${2:-"$(swift build -c release --show-bin-path)/scratchcard"}
thumbnailer=${3:-"$(dirname "$bin")/scratchcard-thumbnailer"}
[ -x "$bin" ] || { echo "cardfile-bench: no binary at $bin" >&2; exit 2; }
[ -x "$thumbnailer" ] || { echo "cardfile-bench: no thumbnailer at $thumbnailer" >&2; exit 2; }
work=$(mktemp -d /tmp/cardfile-bench.XXXXXX)
app_pid=""
end() {
  [ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null || true
  stop_xvfb
  rm -rf "$work"
}
trap end EXIT
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
# Microseconds from bash's own clock ($EPOCHREALTIME: no process started to read it,
# which `date` would add to both sides of every pair).
now_us() { local t=${EPOCHREALTIME/./}; echo $((10#$t)); }

# Two photo-like 4K JPEGs (smooth gradients and fine noise, quality 90), deterministic.
/usr/bin/python3 - "$work" <<'PY'
import sys, random
import gi
gi.require_version('GdkPixbuf', '2.0')
from gi.repository import GdkPixbuf, GLib
w, h = 3840, 2160
for name, seed, tint in (("cover.jpg", 1, (180, 180, 190)), ("prize.jpg", 2, (230, 150, 40))):
    rng = random.Random(seed)
    noise = bytes(rng.randrange(24) for _ in range(4096))
    rows = []
    for y in range(h):
        base = bytes(min(255, int(c * (0.6 + 0.4 * y / h))) for c in tint)
        row = bytearray(base * w)
        off = (y * 131) % 3000
        for x in range(0, w * 3, 3):
            row[x] = (row[x] + noise[(off + x) % 4096]) & 255
        rows.append(bytes(row))
    data = GLib.Bytes.new(b"".join(rows))
    pixbuf = GdkPixbuf.Pixbuf.new_from_bytes(data, GdkPixbuf.Colorspace.RGB, False, 8, w, h, w * 3)
    pixbuf.savev(sys.argv[1] + "/" + name, "jpeg", ["quality"], ["90"])
PY
"$bin" make --out "$work/card.scratchcard" --cover "$work/cover.jpg" --prize "$work/prize.jpg" >/dev/null
echo "files cover.jpg=$(stat -c %s "$work/cover.jpg") prize.jpg=$(stat -c %s "$work/prize.jpg") card.scratchcard=$(stat -c %s "$work/card.scratchcard")"
echo "load_average_before=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ,)"

# 1. First frame, alternated.
if [ "${CARDFILE_BENCH_FIRST_FRAME:-yes}" != no ]; then
start_xvfb 3840x2160
first_frame() {     # arguments: the program's; prints first_frame_ms
  "$bin" --stats --sound off --scale 1 "$@" > "$work/stats.txt" 2> "$work/stderr.txt" &
  app_pid=$!
  xdotool search --sync --onlyvisible --classname scratchcard >/dev/null
  sleep 0.5
  kill -TERM "$app_pid"
  wait "$app_pid" || { echo "cardfile-bench: $bin failed: $(cat "$work/stderr.txt")" >&2; exit 1; }
  app_pid=""
  tr ' ' '\n' < "$work/stats.txt" | sed -n 's/^first_frame_ms=//p'
}
for round in $(seq "$rounds"); do
  a=$(first_frame "$work/card.scratchcard"); echo "$a" >> "$work/ff.card"
  b=$(first_frame --cover "$work/cover.jpg" --prize "$work/prize.jpg"); echo "$b" >> "$work/ff.files"
  echo "run round=$round first_frame_ms card_file=$a two_files=$b"
done
stop_xvfb
fi

# 2. The 256-pixel thumbnail against gdk-pixbuf-thumbnailer on the cover alone, alternated
#    (which goes first alternates too); times in microseconds, printed in ms.
ms() { awk -v us="$1" 'BEGIN { printf "%.1f", us / 1000 }'; }
for round in $(seq "$rounds"); do
  if (( round % 2 )); then
    t0=$(now_us); "$thumbnailer" --size 256 "$work/card.scratchcard" "$work/thumb.png"; t1=$(now_us)
    gdk-pixbuf-thumbnailer -s 256 "$work/cover.jpg" "$work/pixbuf.png"; t2=$(now_us)
    ours=$((t1 - t0)); pixbuf=$((t2 - t1))
  else
    t0=$(now_us); gdk-pixbuf-thumbnailer -s 256 "$work/cover.jpg" "$work/pixbuf.png"; t1=$(now_us)
    "$thumbnailer" --size 256 "$work/card.scratchcard" "$work/thumb.png"; t2=$(now_us)
    pixbuf=$((t1 - t0)); ours=$((t2 - t1))
  fi
  t2=$(now_us); "$bin" thumbnail --size 256 "$work/card.scratchcard" "$work/thumb-command.png"; t3=$(now_us)
  cmp -s "$work/thumb.png" "$work/thumb-command.png" || { echo "cardfile-bench: the two thumbnails differ" >&2; exit 1; }
  echo "$ours" >> "$work/th.ours"; echo "$pixbuf" >> "$work/th.pixbuf"; echo $((t3 - t2)) >> "$work/th.command"
  (( ours < pixbuf )) && echo x >> "$work/th.wins"
  echo "run round=$round thumbnail_ms scratchcard_thumbnailer=$(ms $ours) gdk_pixbuf=$(ms $pixbuf) scratchcard_thumbnail=$(ms $((t3 - t2)))"
done
# 3. A folder of 100 card files, each its own two 4K JPEGs' card (copies), thumbnailed in turn.
mkdir "$work/folder"
for n in $(seq -w 1 100); do cp "$work/card.scratchcard" "$work/folder/card-$n.scratchcard"; done
t0=$(now_us)
for f in "$work"/folder/*.scratchcard; do "$thumbnailer" --size 256 "$f" "$f.png"; done
t1=$(now_us)
echo "load_average_after=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ,)"
th_ours=$(median < "$work/th.ours"); th_pixbuf=$(median < "$work/th.pixbuf")
if [ -s "$work/ff.card" ]; then
  ff_card=$(median < "$work/ff.card"); ff_files=$(median < "$work/ff.files")
  echo "median first_frame_ms card_file=$ff_card two_files=$ff_files ratio=$(awk -v a="$ff_card" -v b="$ff_files" 'BEGIN { printf "%.3f", a / b }')"
fi
th_command=$(median < "$work/th.command")
echo "median thumbnail_256_ms scratchcard_thumbnailer=$(ms $th_ours) gdk_pixbuf_thumbnailer_cover_alone=$(ms $th_pixbuf) ratio=$(awk -v a="$th_ours" -v b="$th_pixbuf" 'BEGIN { printf "%.3f", a / b }') rounds_won=$(cat "$work/th.wins" 2>/dev/null | wc -l)/$rounds"
echo "median thumbnail_256_ms scratchcard_thumbnail=$(ms $th_command) ratio_to_gdk_pixbuf=$(awk -v a="$th_command" -v b="$th_pixbuf" 'BEGIN { printf "%.3f", a / b }')"
echo "folder of 100 card files: $(( (t1 - t0) / 1000 )) ms, $(awk -v us=$((t1 - t0)) 'BEGIN { printf "%.1f", 100 / (us / 1e6) }') thumbnails a second"
