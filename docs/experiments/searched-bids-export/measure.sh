#!/usr/bin/env bash
# The export with searched bids (one lookup a decision) against the plain
# export, the yardsticks and "cfr0", in duplicate matches of points (the
# plain export on the same deals beside it), each match's report saved.
# Usage: measure.sh TRAINER RUN_DIR SEARCHED OUT_DIR [HANDS] [SEEDS]
#   RUN_DIR: a full-play run exported by `trainer export` (its policy.bin,
#            plain, and its bidding stage's bidding/policy.bin)
#   SEARCHED: the same policy after `trainer search-bids`
#   HANDS: each match's (default 4000); SEEDS: the yardsticks' (default "11 12")
set -euo pipefail
trainer=$1 run=$2 searched=$3 out=$4 hands=${5:-4000} seeds=${6:-"11 12"}
plain=$run/policy.bin bids=$run/bidding/policy.bin
mkdir -p "$out"
match() { # NAME A B SEED [HANDS]
  "$trainer" eval --a "$2" --b "$3" --hands "${5:-$hands}" --seed "$4" --unseen uniform \
    > "$out/$1-seed$4.txt"
  grep -m1 "minus B" "$out/$1-seed$4.txt" | sed "s/^/$1 seed $4: /"
}
match searched-vs-plain "policy-argmax:$searched" "policy-argmax:$plain" 11 20000
for seed in $seeds; do
  match searched-vs-pimc50 "policy-argmax:$searched" pimc:50 "$seed"
  match plain-vs-pimc50 "policy-argmax:$plain" pimc:50 "$seed"
done
match searched-vs-cfr0 "policy-argmax:$searched" "policy-argmax:$bids+pimc:50" 11
match plain-vs-cfr0 "policy-argmax:$plain" "policy-argmax:$bids+pimc:50" 11
# Against pimc:200 on every seed since 2026-12-01 (seed 11 alone before).
for seed in $seeds; do
  match searched-vs-pimc200 "policy-argmax:$searched" pimc:200 "$seed"
  match plain-vs-pimc200 "policy-argmax:$plain" pimc:200 "$seed"
done
