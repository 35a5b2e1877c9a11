#!/usr/bin/env bash
# The rest of the panel for the strongest bot with and without
# ,continuations: the heuristic and the table alone (policy-argmax:), seed 11.
# Usage: panel.sh TABLE BIDDING_BLUEPRINT OUT_DIR
set -euo pipefail
tbl=$1 bid=$2 out=$3
trainer=${TRAINER:-target/release/trainer}
base="bids:search-bids:200:$bid+search:400,blend,trust=50:$tbl"
cont="bids:search-bids:200,continuations:$bid+search:400,blend,trust=50:$tbl"
match() {
  local name=$1; shift
  echo "== $name $(date -u +%FT%TZ)"
  "$trainer" eval "$@" --unseen uniform --threads 2 > "$out/$name.txt" 2>&1
  grep -E "A's points|A's point share" "$out/$name.txt"
}
for side in cont base; do
  spec=$cont; [ "$side" = base ] && spec=$base
  match "$side-vs-heuristic-s11" --a "$spec" --b heuristic --hands 4000 --seed 11
  match "$side-vs-table-s11" --a "$spec" --b "policy-argmax:$tbl" --hands 4000 --seed 11
done
echo "== done $(date -u +%FT%TZ)"
