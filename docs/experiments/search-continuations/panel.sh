#!/usr/bin/env bash
# The rest of the panel for the strongest bot with and without
# ,continuations: the heuristic and the table alone (policy-argmax:), seed 11.
# Usage: panel.sh TABLE BIDDING_BLUEPRINT OUT_DIR
set -euo pipefail
tbl=$1 bid=$2 out=$3
source "$(dirname "$0")/specs.sh"
for side in cont base; do
  spec=$cont; [ "$side" = base ] && spec=$base
  match "$side-vs-heuristic-s11" --a "$spec" --b heuristic --hands 4000 --seed 11
  match "$side-vs-table-s11" --a "$spec" --b "policy-argmax:$tbl" --hands 4000 --seed 11
done
echo "== done $(date -u +%FT%TZ)"
