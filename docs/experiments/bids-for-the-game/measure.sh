#!/usr/bin/env bash
# Bids trained for the game against bids trained for points, at equal
# training: two bidding runs of the same iterations and seed, one with
# --bids-for game; each exported and played as the "cfr0" recipe (the
# bidding policy's argmax, PIMC-50's card play), in duplicate games to 10
# against each other and against pimc:50. The arena saves as it goes: run
# the same command again to resume it.
# Usage: measure.sh TRAINER WORK_DIR [ITERATIONS] [GAMES] [SEED]
#   TRAINER: the trainer binary (target/release/trainer)
#   WORK_DIR: where the two runs and the arena live
#   ITERATIONS: each bidding run's (default 8000000, full play's stage)
#   GAMES: sequences of deals a pair, each played twice (default 2000)
set -euo pipefail
trainer=$1 work=$2 iterations=${3:-8000000} games=${4:-2000} seed=${5:-11}
mkdir -p "$work"
for bids_for in points game; do
  run=$work/bids-$bids_for
  "$trainer" train --phase bidding --store memory --seed 1 \
    --until "$iterations" --bids-for "$bids_for" --run-dir "$run" \
    > "$work/train-$bids_for.txt" 2>&1
  "$trainer" export --run-dir "$run" > "$work/export-$bids_for.txt" 2>&1
done
"$trainer" arena --games "$games" --seed "$seed" --dir "$work/arena" \
  --bot "cfr0-game=policy-argmax:$work/bids-game/policy.bin+pimc:50" \
  --bot "cfr0=policy-argmax:$work/bids-points/policy.bin+pimc:50" \
  --bot "pimc50=pimc:50" \
  | tee "$work/arena-$(date -u +%Y%m%dT%H%M%SZ).txt"
