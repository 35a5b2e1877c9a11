#!/usr/bin/env bash
# One process's training rate with card play's strategy sums and without:
# each arm resumes a fresh copy of the same checkpoint for the same
# training time on every core, the arms alternating, ROUNDS times (the
# machine is noisy; compare within a round).
# Usage: [ROUNDS=2] rate.sh AVERAGE_RUN_DIR CURRENT_RUN_DIR WORK_DIR TRAIN_TIME TRAINER
# CURRENT_RUN_DIR: the same checkpoint with card_play_strategy = "current"
# in its settings.toml and its store manifest's identity.
set -euo pipefail
average=$1 current=$2 work=$3 train_time=$4 trainer=$5
. "$(dirname "$0")/../fresh-copy.sh"
for round in $(seq "${ROUNDS:-2}"); do
  for arm in average current; do
    base=${!arm} dir=$work/$arm-r$round
    echo "== round $round: $arm $(date -u +%FT%TZ)"
    fresh_copy "$base" "$dir"
    "$trainer" resume --run-dir "$dir" --for "$train_time" --eval-every off --checkpoint-every 1000000000 > "$dir.log" 2>&1
    # The session's iterations over its training time, as the trainer
    # counts both in the store's manifest (checkpoints not counted).
    python3 - "$base/store/store-manifest.json" "$dir/store/store-manifest.json" "$arm" <<'PY'
import json, sys
before, after = (json.load(open(path))["state"] for path in sys.argv[1:3])
iterations = after["iterations"] - before["iterations"]
seconds = after["train_seconds"] - before["train_seconds"]
print(f"{sys.argv[3]}: {iterations} iterations in {seconds:.1f} s of training, {iterations / seconds:.0f} it/s")
PY
    rm -rf "$dir/store"
  done
done
echo "== done $(date -u +%FT%TZ)"
