#!/usr/bin/env bash
# Issue 43: does choosing the next card once per history seen (',ahead')
# beat the strongest bot's card play, world for world?
# Usage: run.sh TABLE BIDDING_BLUEPRINT [DIR]
set -euo pipefail
tbl=$1 bid=$2 dir=${3:-runs/ahead-screen}
trainer=${TRAINER:-target/release/trainer}
# The time a decision of each, on a few hundred hands.
nice -n 5 "$trainer" arena --hands 200 --seed 5 --threads 1 --unseen uniform --dir "$dir-probe" \
  --bot base="bids:search-bids:200:$bid+search:400,blend,trust=50:$tbl" \
  --bot ahead400="bids:search-bids:200:$bid+search:400,blend,trust=50,ahead:$tbl" \
  --bot ahead100="bids:search-bids:200:$bid+search:100,blend,trust=50,ahead:$tbl"
# The screen.
nice -n 5 "$trainer" arena --hands 2000 --seed 21 --threads 1 --unseen uniform --dir "$dir" \
  --bot base="bids:search-bids:200:$bid+search:400,blend,trust=50:$tbl" \
  --bot ahead="bids:search-bids:200:$bid+search:400,blend,trust=50,ahead:$tbl" \
  --bot pimc50=pimc:50
