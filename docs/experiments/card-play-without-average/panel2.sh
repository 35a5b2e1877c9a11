#!/usr/bin/env bash
# After panel.sh: a second seed for the tables, each export's local best
# response, and the strongest bot's recipe on each export (its card-play
# search weighs worlds by the table and plays the rest with it).
# Usage: panel2.sh OUT_DIR BIDDING_BLUEPRINT TRAINER
set -euo pipefail
out=$1 blueprint=$2 trainer=$3
match() {
  local name=$1; shift
  echo "== $name $(date -u +%FT%TZ)"
  "$trainer" eval "$@" --unseen uniform --threads 2 | tee "$out/$name.txt"
}
strongest() { echo "bids:search-bids:200:$blueprint+search:400,blend,trust=50:$out/$1.bin"; }
for side in current average; do
  echo "== $side-exploit $(date -u +%FT%TZ)"
  "$trainer" exploit --policy "$out/$side.bin" --threads 2 | tee "$out/$side-exploit.txt"
done
for side in current average; do
  match "$side-vs-pimc50-s12" --a policy-argmax:"$out/$side.bin" --b pimc:50 --hands 4000 --seed 12
  match "$side-vs-pimc200-s12" --a policy-argmax:"$out/$side.bin" --b pimc:200 --hands 4000 --seed 12
done
match strongest-current-vs-strongest-average --a "$(strongest current)" --b "$(strongest average)" --hands 4000 --seed 11
for seed in 11 12; do
  for side in current average; do
    match "strongest-$side-vs-pimc50-s$seed" --a "$(strongest $side)" --b pimc:50 --hands 4000 --seed $seed
    match "strongest-$side-vs-pimc200-s$seed" --a "$(strongest $side)" --b pimc:200 --hands 4000 --seed $seed
  done
done
echo "== done $(date -u +%FT%TZ)"
