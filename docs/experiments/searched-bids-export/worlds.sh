#!/usr/bin/env bash
# Bids decided once over more worlds: the export searched over WORLDS_B
# worlds against the one searched over WORLDS_A, and each against the same
# bids searched at play time over 200 worlds, in duplicate matches of
# points, each match's report saved.
# Usage: worlds.sh TRAINER RUN_DIR SEARCHED_A SEARCHED_B OUT_DIR [HANDS]
#   RUN_DIR: the full-play run both were searched from (its policy.bin and
#            bidding/policy.bin)
#   SEARCHED_A, SEARCHED_B: policy files after `trainer search-bids`
#   HANDS: the play-time matches' (default 4000; the head to head 5 times it)
set -euo pipefail
trainer=$1 run=$2 a=$3 b=$4 out=$5 hands=${6:-4000}
live="bids:search-bids:200:$run/bidding/policy.bin+policy-argmax:$run/policy.bin"
mkdir -p "$out"
match() { # NAME A B SEED HANDS
  "$trainer" eval --a "$2" --b "$3" --hands "$5" --seed "$4" --unseen uniform \
    > "$out/$1-seed$4.txt"
  grep -m1 "minus B" "$out/$1-seed$4.txt" | sed "s/^/$1 seed $4: /"
}
match b-vs-a "policy-argmax:$b" "policy-argmax:$a" 11 $((hands * 5))
match b-vs-live "policy-argmax:$b" "$live" 11 "$hands"
match a-vs-live "policy-argmax:$a" "$live" 11 "$hands"
