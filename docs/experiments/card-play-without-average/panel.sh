#!/usr/bin/env bash
# The same store exported both ways (card play's average, and its current
# strategy beside the bids' average), each played as users play a table
# (policy-argmax:, --unseen uniform), on the panel's tables and
# yardsticks, then head to head.
# Usage: panel.sh RUN_DIR OUT_DIR TRAINER
set -euo pipefail
run=$1 out=$2 trainer=$3
mkdir -p "$out"
"$trainer" export --run-dir "$run" --strategy average --out "$out/average.bin" > "$out/export-average.txt" 2>&1
"$trainer" export --run-dir "$run" --strategy current-card-play --out "$out/current.bin" > "$out/export-current.txt" 2>&1
match() {
  local name=$1; shift
  echo "== $name $(date -u +%FT%TZ)"
  "$trainer" eval "$@" --unseen uniform --threads 2 | tee "$out/$name.txt"
}
match current-vs-average --a policy-argmax:"$out/current.bin" --b policy-argmax:"$out/average.bin" --hands 20000 --seed 1
for side in current average; do
  match "$side-vs-heuristic" --a policy-argmax:"$out/$side.bin" --b heuristic --hands 20000 --seed 1
done
for side in current average; do
  match "$side-vs-pimc50" --a policy-argmax:"$out/$side.bin" --b pimc:50 --hands 4000 --seed 11
done
for side in current average; do
  match "$side-vs-pimc200" --a policy-argmax:"$out/$side.bin" --b pimc:200 --hands 4000 --seed 11
done
echo "== done $(date -u +%FT%TZ)"
