#!/usr/bin/env bash
# Does searching the bids the blueprint is sure of, once either side is
# within two points of winning (',endgame-bids'), win more games than the
# strongest bot playing for the game without it? Whole duplicate games to
# 10 in one arena, which saves as it goes (run the same command again to
# resume). The panel that followed is panel.sh.
# Usage: endgame-bids.sh RUN_DIR ARENA_DIR TRAINER [GAMES] [SEED]
#   RUN_DIR: a full-play run (its bidding/policy.bin and policy.bin)
#   GAMES: sequences of deals, each played twice (default 2000)
set -euo pipefail
run=$1 dir=$2 trainer=$3 games=${4:-2000} seed=${5:-11}
bids=$run/bidding/policy.bin table=$run/policy.bin
cards="search:400,blend,trust=50"
endgame="bids:search-bids:200,game,endgame-bids:$bids+$cards,game:$table"
for_game="bids:search-bids:200,game:$bids+$cards,game:$table"
mkdir -p "$dir"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
"$trainer" arena --games "$games" --seed "$seed" --dir "$dir" \
  --bot "strongest-game-endgame=$endgame" \
  --bot "strongest-game=$for_game" | tee "$dir/lever-$stamp.txt"
