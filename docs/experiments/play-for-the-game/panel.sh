#!/usr/bin/env bash
# The panel in duplicate games to 10 on one full-play table: the strongest
# bot playing for the game and score-blind, pimc:50, pimc:200, the "cfr0"
# recipe, the export with searched bids, the export alone and the
# heuristic. It extends the export's arena (export.sh, run with the same
# RUN_DIR, SEARCHED and seed): only the pairs not yet played are played,
# each over GAMES sequences of deals. The arena saves as it goes; run the
# same command again to resume.
# Usage: panel.sh RUN_DIR SEARCHED ARENA_DIR TRAINER [GAMES] [SEED]
#   RUN_DIR: a full-play run (its bidding/policy.bin and policy.bin)
#   SEARCHED: RUN_DIR's policy with searched bids (`trainer search-bids`)
#   GAMES: sequences of deals a new pair, each played twice (default 500)
set -euo pipefail
run=$1 searched=$2 dir=$3 trainer=$4 games=${5:-500} seed=${6:-11}
bids=$run/bidding/policy.bin table=$run/policy.bin
cards="search:400,blend,trust=50"
mkdir -p "$dir"
# The pairs are played in the order of the bots: the strongest bot's
# pairs first, then the PIMCs', then the rest.
"$trainer" arena --games "$games" --seed "$seed" --dir "$dir" --unseen uniform \
  --bot "strongest-game=bids:search-bids:200,game:$bids+$cards,game:$table" \
  --bot "pimc50=pimc:50" \
  --bot "pimc200=pimc:200" \
  --bot "strongest=bids:search-bids:200:$bids+$cards:$table" \
  --bot "cfr0=policy-argmax:$bids+pimc:50" \
  --bot "table-searched=policy-argmax:$searched" \
  --bot "table=policy-argmax:$table" \
  --bot "heuristic=heuristic" | tee "$dir/panel-$(date -u +%Y%m%dT%H%M%SZ).txt"
