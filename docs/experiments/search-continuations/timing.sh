#!/usr/bin/env bash
# Time per decision of the strongest bot with and without ,continuations:
# a two-bot arena on one thread (its table prints the median and p99 ms).
# Usage: timing.sh TABLE BIDDING_BLUEPRINT DIR
set -euo pipefail
tbl=$1 bid=$2 dir=$3
trainer=${TRAINER:-target/release/trainer}
"$trainer" arena --hands 400 --seed 13 --threads 1 --unseen uniform --dir "$dir" \
  --bot strongest="bids:search-bids:200:$bid+search:400,blend,trust=50:$tbl" \
  --bot continuations="bids:search-bids:200,continuations:$bid+search:400,blend,trust=50:$tbl"
