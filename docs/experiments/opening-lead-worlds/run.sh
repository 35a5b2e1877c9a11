#!/usr/bin/env bash
# Usage: OUT=DIR run.sh (the files from the long run: runs/full-play-mmap, runs/tables/8h)
# The split of the strongest spec against pimc:200 by what each bid, then
# the opening-lead screen (docs/experiments/opening-lead-worlds.md).
set -euo pipefail
T=${TRAINER:-target/release/trainer}
mkdir -p "${OUT:-runs/lead}"
BID=runs/full-play-mmap/bidding/policy.bin
TBL=runs/tables/8h/policy.bin
S="bids:search-bids:200:$BID+search:400,blend,trust=50:$TBL"
L="bids:search-bids:200:$BID+search:400,lead=1600,blend,trust=50:$TBL"
echo "== split vs pimc:200 s11 $(date -u +%T)"
$T eval --a "$S" --b pimc:200 --hands 4000 --seed 11 --unseen uniform --threads 2 > ${OUT:-runs/lead}/split-vs-pimc200-s11.txt 2>&1
echo "== lead=1600 vs strongest s41 $(date -u +%T)"
$T eval --a "$L" --b "$S" --hands 4000 --seed 41 --unseen uniform --threads 2 > ${OUT:-runs/lead}/lead1600-vs-strongest-s41.txt 2>&1
echo "== done $(date -u +%T)"
