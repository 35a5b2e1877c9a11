#!/usr/bin/env bash
# Bids trained for the game against bids trained for points, at equal
# training iterations: a bidding run for points, then one with
# --bids-for game that starts from it (--bids-prior), the same iterations
# and seed; each exported and played as the "cfr0" recipe (the bidding
# policy's argmax, PIMC-50's card play), in duplicate games to 10 against
# each other and against pimc:50. The arena saves as it goes: run the same
# command again to resume it.
# With COLD=1 the game run starts cold instead (no prior; the variant
# that was dropped), as cfr0-game-cold.
# Usage: measure.sh TRAINER WORK_DIR [ITERATIONS] [GAMES] [SEED]
#   TRAINER: the trainer binary (target/release/trainer)
#   WORK_DIR: where the runs and the arena live
#   ITERATIONS: each bidding run's (default 8000000, full play's stage)
#   GAMES: sequences of deals a pair, each played twice (default 2000)
set -euo pipefail
trainer=$1 work=$2 iterations=${3:-8000000} games=${4:-2000} seed=${5:-11}
mkdir -p "$work"
train() { # NAME FLAGS...
  local name=$1; shift
  "$trainer" train --phase bidding --store memory --seed 1 \
    --until "$iterations" --run-dir "$work/$name" "$@" \
    > "$work/train-$name.txt" 2>&1
  "$trainer" export --run-dir "$work/$name" > "$work/export-$name.txt" 2>&1
}
train bids-points
if [ "${COLD:-0}" = 1 ]; then
  train bids-game-cold --bids-for game
  game=cfr0-game-cold bids=$work/bids-game-cold/policy.bin
else
  train bids-game --bids-for game --bids-prior "$work/bids-points/policy.bin"
  game=cfr0-game bids=$work/bids-game/policy.bin
fi
"$trainer" arena --games "$games" --seed "$seed" --dir "$work/arena" \
  --bot "$game=policy-argmax:$bids+pimc:50" \
  --bot "cfr0=policy-argmax:$work/bids-points/policy.bin+pimc:50" \
  --bot "pimc50=pimc:50" \
  | tee "$work/arena-$(date -u +%Y%m%dT%H%M%SZ).txt"
