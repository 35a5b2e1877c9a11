#!/usr/bin/env bash
# Issue 43: the strongest bot with its searched bids valued under
# continuation strategies (each side finishes the auction in the way that
# suits it: the blueprint's bids, bolder or warier), against the strongest
# bot as it is, then both on the PIMC yardsticks.
# Usage: run.sh TABLE BIDDING_BLUEPRINT OUT_DIR
set -euo pipefail
tbl=$1 bid=$2 out=$3
source "$(dirname "$0")/specs.sh"
match cont-vs-base-s11 --a "$cont" --b "$base" --hands 4000 --seed 11
for seed in 11 12; do
  match "cont-vs-pimc50-s$seed" --a "$cont" --b pimc:50 --hands 4000 --seed "$seed"
done
for seed in 11 12; do
  match "cont-vs-pimc200-s$seed" --a "$cont" --b pimc:200 --hands 4000 --seed "$seed"
done
echo "== done $(date -u +%FT%TZ)"
