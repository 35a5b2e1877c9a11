#!/usr/bin/env bash
# The opening lead by the table, unsearched (lead=table), against the
# strongest spec; then, on the same deals as the 8-hour arenas, against
# both PIMCs. Usage: OUT=DIR STAGE=all|screen table-lead.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
T=${TRAINER:-target/release/trainer}
OUT=${OUT:-runs/lead}
mkdir -p "$OUT"
BID=runs/full-play-mmap/bidding/policy.bin
TBL=runs/tables/8h/policy.bin
S="bids:search-bids:200:$BID+search:400,blend,trust=50:$TBL"
L="bids:search-bids:200:$BID+search:400,blend,trust=50,lead=table:$TBL"
echo "== lead=table vs strongest s41 $(date -u +%T)"
$T eval --a "$L" --b "$S" --hands 4000 --seed 41 --unseen uniform --threads 2 > "$OUT/table-lead-vs-strongest-s41.txt" 2>&1
[ "${STAGE:-all}" = screen ] && exit 0
for seed in 11 12; do
  for b in pimc:200 pimc:50; do
    echo "== lead=table vs $b s$seed $(date -u +%T)"
    $T eval --a "$L" --b $b --hands 4000 --seed $seed --unseen uniform --threads 2 > "$OUT/table-lead-vs-${b/:/}-s$seed.txt" 2>&1
  done
done
echo "== done $(date -u +%T)"
