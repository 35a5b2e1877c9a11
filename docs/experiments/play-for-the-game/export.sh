#!/usr/bin/env bash
# The exported policy alone (one lookup a decision) in duplicate games to
# 10: the full-play table with its score-blind bids, the same table with
# bids trained for the game (--bids-for game --bids-prior, one bid a score
# context), pimc:50 and the heuristic, in one arena that saves as it goes
# (run the same command again to resume it; add --bot NAME=SPEC to extend
# the panel, which plays only the new pairs).
# Usage: export.sh RUN_DIR GAME_BIDS ARENA_DIR TRAINER [GAMES] [SEED] [--bot ...]
#   RUN_DIR: a full-play run (its policy.bin, exported by `trainer export`)
#   GAME_BIDS: a bidding policy trained for the game from RUN_DIR's own bids
#   GAMES: sequences of deals a pair, each played twice (default 1000)
set -euo pipefail
run=$1 game_bids=$2 dir=$3 trainer=$4 games=${5:-1000} seed=${6:-11}
table=$run/policy.bin
mkdir -p "$dir"
# The headline pairs first: the two exports against each other and
# against pimc:50; the heuristic last (the yardsticks restated in games).
"$trainer" arena --games "$games" --seed "$seed" --dir "$dir" --unseen uniform \
  --bot "table-game=bids:policy-argmax:$game_bids+policy-argmax:$table" \
  --bot "table=policy-argmax:$table" \
  --bot "pimc50=pimc:50" \
  --bot "heuristic=heuristic" \
  "${@:7}" | tee "$dir/arena-$(date -u +%Y%m%dT%H%M%SZ).txt"
