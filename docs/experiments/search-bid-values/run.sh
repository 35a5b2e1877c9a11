#!/usr/bin/env bash
# Issue 43: are the strongest bot's searched bids better valued by open hand
# plus the full-play table's own play of the hand (blend) than by open hand?
# Usage: run.sh TABLE BIDDING_BLUEPRINT SEED [DIR]
set -euo pipefail
tbl=$1 bid=$2 seed=$3 dir=${4:-runs/bidblend-screen-s$3}
trainer=${TRAINER:-target/release/trainer}
nice -n 5 "$trainer" arena --hands 2000 --seed "$seed" --threads 1 --unseen uniform --dir "$dir" \
  --bot base="bids:search-bids:200:$bid+search:400,blend,trust=50:$tbl" \
  --bot bidblend="bids:search-bids:200,blend,infer-bids:$tbl+search:400,blend,trust=50:$tbl"
