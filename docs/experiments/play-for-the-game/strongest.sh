#!/usr/bin/env bash
# The strongest bot playing for the game (',game' on both of its searches)
# against itself score-blind, pimc:50 and pimc:200, then the rest of the
# panel: whole duplicate games to 10 in an arena, which saves as it goes
# (run the same command again to resume an interrupted arena).
# Usage: strongest.sh RUN_DIR ARENA_DIR TRAINER [GAMES] [SEED]
#   RUN_DIR: the bare command's run (its bidding/policy.bin and policy.bin)
#   GAMES: sequences of deals a pair, each played twice (default 2000)
set -euo pipefail
run=$1 dir=$2 trainer=$3 games=${4:-2000} seed=${5:-11}
bids=$run/bidding/policy.bin table=$run/policy.bin
strongest="bids:search-bids:200:$bids+search:400,blend,trust=50:$table"
for_game="bids:search-bids:200,game:$bids+search:400,blend,trust=50,game:$table"
mkdir -p "$dir"
# The panel in the order its pairs are played: the headline pairs first.
"$trainer" arena --games "$games" --seed "$seed" --dir "$dir" \
  --bot "strongest-game=$for_game" \
  --bot "strongest=$strongest" \
  --bot "pimc50=pimc:50" \
  --bot "pimc200=pimc:200" \
  "${@:6}" | tee "$dir/arena-$(date -u +%Y%m%dT%H%M%SZ).txt"
