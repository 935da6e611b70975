#!/usr/bin/env bash
# The shared pool's figures (BENCHMARKS.md), with the release build against a private
# PostgreSQL 15 server (initdb into a temporary folder, unix socket there, no TCP, run as
# the postgres user; fsync and synchronous_commit on, as a real server has them):
#
#   dealers=D deals_per_s=...  D `scratchcard pool deal` processes at once, each dealing N
#                              cards as fast as it can (each deal: the card before it's
#                              outcome sent, then the conditional update that takes a
#                              prize, as a kiosk does); the rate is all deals over the wall
#                              time of the slowest
#   per dealer p50/p99         the time one deal takes (the latency a deal adds to a card
#                              change), from each process's --stats line
#
# usage: scripts/pool-bench.sh [N] [D...]   (default 2000 cards, dealers 1 and 8; needs
#        swift build -c release, root, the postgresql package)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-2000}
shift || true
dealers=("${@:-1 8}")
dealers=(${dealers[@]})
bin=.build/release/scratchcard
[ -x "$bin" ] || { echo "build first: swift build -c release" >&2; exit 2; }
. scripts/lib/postgres.sh
start_private_postgres pool-bench

touch "$work/bike.png" "$work/thanks.png"   # the images are not read: no display
for d in "${dealers[@]}"; do
  # A fresh pool each time: 100 stocked prizes per dealer, and consolation cards.
  PGOPTIONS="-c client_min_messages=warning" psql -X -q -h "$work" -U scratch -d postgres -c "DROP TABLE IF EXISTS outcomes, deals, stock, kiosks, scratchcard_schema" > /dev/null
  cat > "$work/deck.json" <<JSON
{"cards": [{"id": "bike", "prize": "bike.png", "stock": $((100 * d)), "weight": 1},
           {"id": "thanks", "prize": "thanks.png", "weight": 3}]}
JSON
  "$bin" pool init --pool "$pool" --deck "$work/deck.json" > /dev/null
  t0=$(date +%s%N)
  pids=()
  for k in $(seq 1 "$d"); do
    "$bin" pool deal --pool "$pool" --deck "$work/deck.json" --count "$count" --kiosk-id "bench-$k" --stats \
      > "$work/dealer-$k.txt" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  t1=$(date +%s%N)
  ms=$(( (t1 - t0) / 1000000 ))
  p50s=$(for k in $(seq 1 "$d"); do tr ' ' '\n' < "$work/dealer-$k.txt" | sed -n 's/^deal_ms_p50=//p'; done | sort -n | tr '\n' ' ')
  p99s=$(for k in $(seq 1 "$d"); do tr ' ' '\n' < "$work/dealer-$k.txt" | sed -n 's/^deal_ms_p99=//p'; done | sort -n | tr '\n' ' ')
  stocked=$(psql -X -A -t -h "$work" -U scratch -d postgres -c "SELECT dealt FROM stock WHERE card = 'bike'")
  echo "dealers=$d cards_each=$count wall_ms=$ms deals_per_s=$(( d * count * 1000 / ms )) bike_dealt=$stocked/$((100 * d))"
  echo "  deal_ms_p50 per dealer: $p50s"
  echo "  deal_ms_p99 per dealer: $p99s"
done
