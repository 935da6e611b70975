#!/usr/bin/env bash
# The counters' figures (BENCHMARKS.md), with the release build against a private
# PostgreSQL 15 server (initdb into a temporary folder, unix socket there, no TCP, run as
# the postgres user; fsync and synchronous_commit on, as a real server has them):
#
#   claims=N counters=C  N claims made by `pool deal --claim-key` (a deck of one stocked
#                        claim card), then C `scratchcard redeem` processes at once, each
#                        reading all N codes from stdin in its own shuffled order (a
#                        scanner's lines): every code is redeemed by exactly one of them
#                        (checked: redeemed=N over all), the others answer "already"
#   redemptions_per_s    N over the wall time of the slowest counter
#   answers_per_s        all C x N answers over the same time
#   per counter p50/p99  the time one answer takes (a redemption or an "already"), from
#                        each process's --stats line
#
# usage: scripts/redeem-bench.sh [N] [C]   (default 500 claims, 8 counters; needs
#        swift build -c release, root, the postgresql package)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-500}
counters=${2:-8}
bin=.build/release/scratchcard
[ -x "$bin" ] || { echo "build first: swift build -c release" >&2; exit 2; }
. scripts/lib/postgres.sh
start_private_postgres redeem-bench

touch "$work/bike.png"   # not read: no display
cat > "$work/deck.json" <<JSON
{"cards": [{"id": "bike", "prize": "bike.png", "stock": $count, "claim": true}]}
JSON
"$bin" claim-key new "$work/promo.key" > /dev/null
"$bin" pool init --pool "$pool" --deck "$work/deck.json" --claim-key "$work/promo.key" > /dev/null
"$bin" pool deal --pool "$pool" --deck "$work/deck.json" --count "$count" --claim-key "$work/promo.key" --kiosk-id bench > /dev/null
"$bin" claims --pool "$pool" --json | sed -n 's/.*"code":"\([^"]*\)".*/\1/p' > "$work/codes.txt"
[ "$(wc -l < "$work/codes.txt")" -eq "$count" ] || { echo "expected $count claims, found $(wc -l < "$work/codes.txt")" >&2; exit 1; }
for k in $(seq 1 "$counters"); do shuf "$work/codes.txt" > "$work/in-$k.txt"; done

t0=$(date +%s%N)
pids=()
for k in $(seq 1 "$counters"); do
  "$bin" redeem --claim-key "$work/promo.key" --pool "$pool" --counter "counter-$k" --stats \
    < "$work/in-$k.txt" > "$work/counter-$k.txt" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
redeemed=$(cat "$work"/counter-*.txt | sed -n 's/^redeemed=\([0-9]*\) .*/\1/p' | paste -sd+ | bc)
p50s=$(for k in $(seq 1 "$counters"); do tr ' ' '\n' < "$work/counter-$k.txt" | sed -n 's/^redeem_ms_p50=//p'; done | sort -n | tr '\n' ' ')
p99s=$(for k in $(seq 1 "$counters"); do tr ' ' '\n' < "$work/counter-$k.txt" | sed -n 's/^redeem_ms_p99=//p'; done | sort -n | tr '\n' ' ')
open=$(psql -X -A -t -h "$work" -U scratch -d postgres -c "SELECT count(*) FROM claims WHERE redeemed_at IS NULL")
echo "claims=$count counters=$counters wall_ms=$ms redeemed=$redeemed open_after=$open redemptions_per_s=$(( count * 1000 / ms )) answers_per_s=$(( count * counters * 1000 / ms ))"
echo "  redeem_ms_p50 per counter: $p50s"
echo "  redeem_ms_p99 per counter: $p99s"
