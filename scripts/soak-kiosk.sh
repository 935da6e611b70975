#!/usr/bin/env bash
# The kiosk soak: a private Xvfb, the release scratchcard in kiosk mode with a store and
# short resets, and a scripted player (xdotool, XTest) that reads the kiosk's --events and
# plays each card as it comes: every third card is touched and left (abandoned after
# --abandon-reset), the others scratched until they reveal (reset after --idle-reset).
# The deck holds exactly CARDS prizes in stock (default 10,000), so the kiosk sells out on
# the last one. Prints the kiosk's resident memory, open descriptors and shared memory
# segments after the first 100 cards and every 1000, the store's size per card, and checks
# at the end: RSS grew by less than 5 MB after the first 100 cards, descriptors and
# segments never changed, every deal has exactly one outcome. Exit 1 if any fails.
#   scripts/soak-kiosk.sh [CARDS]        (about 0.4 s a card: an hour for 10,000)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/xvfb.sh
cards=${1:-10000}
idle=0.05 abandon=0.15

# SCRATCHCARD=path: soak another build (none is made then).
if [ -z "${SCRATCHCARD:-}" ]; then swift build -c release --product scratchcard >/dev/null; fi
bin=${SCRATCHCARD:-$(swift build -c release --show-bin-path)/scratchcard}
work=$(mktemp -d /tmp/scratchcard-soak-kiosk.XXXXXX)

app=
cleanup() {
  [ -n "$app" ] && kill -9 "$app" 2>/dev/null || true
  stop_xvfb
  rm -rf "$work"
}
trap cleanup EXIT
start_xvfb 320x200 180

# Three solid-colour prizes and a cover, 320x200 PNGs, and a deck whose stock adds up to $cards.
python3 - "$work" "$cards" <<'EOF'
import json, struct, sys, zlib
folder, cards = sys.argv[1], int(sys.argv[2])
def png(path, rgb):
    row = b"\0" + bytes(rgb) * 320
    body = struct.pack(">IIBBBBB", 320, 200, 8, 2, 0, 0, 0)
    def chunk(kind, data): return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", body) + chunk(b"IDAT", zlib.compress(row * 200)) + chunk(b"IEND", b""))
png(f"{folder}/cover.png", (180, 180, 185))
stocks = {"bike": cards * 3 // 10, "cup": cards * 3 // 10}
stocks["sorry"] = cards - sum(stocks.values())
for card, rgb in zip(stocks, [(220, 30, 40), (30, 200, 60), (20, 40, 230)]):
    png(f"{folder}/{card}.png", rgb)
json.dump({"cards": [{"id": c, "prize": f"{c}.png", "weight": 1, "stock": n} for c, n in stocks.items()]},
          open(f"{folder}/deck.json", "w"))
EOF

mkfifo "$work/events"
"$bin" --kiosk --scale 1 --deck "$work/deck.json" --cover "$work/cover.png" --store "$work/kiosk.db" \
  --brush 60 --reveal-at 30 --idle-reset "$idle" --abandon-reset "$abandon" --sound off --events \
  >"$work/events" 2>"$work/err" &
app=$!
exec 3<"$work/events"

sample() {  # -> "rss_kb fds segments"
  local rss fds segs
  rss=$(awk '/^VmRSS:/ { print $2 }' /proc/$app/status)
  fds=$(ls /proc/$app/fd | wc -l)
  segs=$(awk -v p=$app 'NR > 1 && $5 == p' /proc/sysvipc/shm | wc -l)
  echo "$rss $fds $segs"
}

# The player: a revealing scratch (three rows) or a touch left alone, per card.
play() {  # card number
  if [ $(($1 % 3)) -eq 0 ]; then
    xdotool mousemove 10 100 mousedown 1 mousemove 40 110 mouseup 1
  else
    xdotool mousemove 0 35 mousedown 1 mousemove 160 35 mousemove 319 35 mouseup 1 \
            mousemove 0 100 mousedown 1 mousemove 160 100 mousemove 319 100 mouseup 1 \
            mousemove 0 165 mousedown 1 mousemove 160 165 mousemove 319 165 mouseup 1
  fi
}

dealt=0 base= first= last= fail=0 soldout=0
start=$(date +%s.%N)
while IFS= read -r -t 60 line <&3; do
  case $line in
    *'"event":"ready"'*|*'"event":"new-card"'*) ;;
    *'"event":"sold-out"'*) soldout=1; break ;;
    *) continue ;;
  esac
  case $line in *'"deal":'*) ;; *) continue ;; esac
  dealt=$((dealt + 1))
  if [ "$dealt" -eq 100 ]; then
    sleep 0.2; base=$(sample); first=$base
    echo "after 100 cards: rss_kb fds shm_segments = $base"
  elif [ "$dealt" -eq "$cards" ]; then
    # The last card, before the sold-out card (a text card: CardArt loads its fonts then).
    sleep 0.2; last=$(sample)
    echo "at card $dealt: rss_kb fds shm_segments = $last"
  elif [ $((dealt % 1000)) -eq 0 ]; then
    now=$(sample)
    echo "after $dealt cards: rss_kb fds shm_segments = $now ($(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }') s)"
    [ "${now#* }" = "${first#* }" ] || { echo "  descriptors or segments changed: $first -> $now"; fail=1; }
  fi
  play "$dealt"
done
[ "$soldout" = 1 ] || { echo "the kiosk stopped dealing after $dealt cards (no sold-out)"; tail -5 "$work/err"; exit 1; }
sleep 0.3
end_sample=$(sample)
end=$(date +%s.%N)
echo "sold out after $dealt cards: rss_kb fds shm_segments = $end_sample (the sold-out card drawn)"
growth=$(( ${last%% *} - ${base%% *} ))
echo "rss_growth_kb=$growth from card 100 to card $dealt (limit 5120)"
[ "$growth" -lt 5120 ] || { echo "  RSS grew too much"; fail=1; }
for s in "$last" "$end_sample"; do
  [ "${s#* }" = "${first#* }" ] || { echo "  descriptors or segments changed: $first -> $s"; fail=1; }
done

kill -TERM "$app"
wait "$app" && status=0 || status=$?
app_pid=$app; app=
exec 3<&-
echo "exit=$status elapsed_s=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }') cards_per_s=$(awk -v a="$start" -v b="$end" -v n="$dealt" 'BEGIN { printf "%.1f", n / (b - a) }')"
[ "$status" -eq 0 ] || fail=1
echo "shm_segments_of_app_after_exit=$(awk -v p=$app_pid 'NR > 1 && $5 == p' /proc/sysvipc/shm | wc -l)"

# The books: every deal has exactly one outcome; the stock was never exceeded.
read -r deals outcomes pending <<<"$(sqlite3 -readonly -separator ' ' "$work/kiosk.db" \
  "SELECT (SELECT count(*) FROM deals), (SELECT count(*) FROM outcomes),
          (SELECT count(*) FROM deals d WHERE NOT EXISTS (SELECT 1 FROM outcomes o WHERE o.deal = d.deal))")"
echo "deals=$deals outcomes=$outcomes deals_without_outcome=$pending"
sqlite3 -readonly "$work/kiosk.db" "SELECT outcome, count(*) FROM outcomes GROUP BY outcome" | tr '\n' ' '; echo
[ "$deals" -eq "$cards" ] && [ "$outcomes" -eq "$deals" ] && [ "$pending" -eq 0 ] || { echo "  the books do not add up"; fail=1; }
bytes=$(stat -c %s "$work/kiosk.db")
wal=$(stat -c %s "$work/kiosk.db-wal" 2>/dev/null || echo 0)
echo "store_bytes=$bytes wal_bytes=$wal bytes_per_card=$(( (bytes + wal) / deals ))"
[ -s "$work/err" ] && { echo "stderr (last lines):"; tail -5 "$work/err"; }
[ "$fail" -eq 0 ] && echo "soak-kiosk: passed" || echo "soak-kiosk: FAILED"
exit "$fail"
