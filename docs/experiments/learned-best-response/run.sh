#!/usr/bin/env bash
# A learned best response to a full-play run's export, and its control:
# two copies of the run's table (store, settings, bidding stage) trained on,
# one with --best-response-to the export (every opponent decision played by
# the export's most likely action), the other as before, to the same
# iteration total; then each copy's export plays the original export in
# duplicate. The best response's margin is a lower bound on how much the
# export can be exploited; the control's is what the extra training alone
# buys. Nothing else should run meanwhile. Each step is skipped when its
# output exists, so the same command resumes.
# Usage: run.sh TRAINER RUN_DIR WORK_DIR [TRAIN_TIME] [HANDS] [SEARCHED]
#   RUN_DIR: a full-play run with its export (RUN_DIR/policy.bin)
#   TRAIN_TIME: the best response's --for (default 30m); HANDS: each
#   match's (default 20000); SEARCHED: the same export with searched bids
#   (trainer search-bids), also played by both copies when given
set -euo pipefail
trainer=$1 run=$2 work=$3 train_time=${4:-30m} hands=${5:-20000} searched=${6:-}
policy=$(realpath "$run/policy.bin")
mkdir -p "$work"
stamp() { echo "== $1 $(date -u +%FT%TZ)"; }
copy() { # DIR: the run's table, settings and bidding stage, caches dropped
  if [ ! -d "$1/store" ]; then
    mkdir -p "$1"
    cp -a "$run/store" "$run/bidding" "$run/settings.toml" "$1"/
    rm -f "$1"/store/store.lock "$1"/bidding/run.lock
  fi
  sync
  echo 3 > /proc/sys/vm/drop_caches
}
iterations() { # RUN: its last checkpoint's iteration total
  "$trainer" status --run-dir "$1" | grep -o -m1 'iteration [0-9,]*' | tr -dc 0-9
}

copy "$work/best-response"
if [ ! -f "$work/best-response/policy.bin" ]; then
  stamp "best response to $policy for $train_time"
  "$trainer" resume --run-dir "$work/best-response" --best-response-to "$policy" \
    --for "$train_time" --eval-every off --export > "$work/best-response.txt" 2>&1
fi
until=$(iterations "$work/best-response")
copy "$work/control"
if [ ! -f "$work/control/policy.bin" ]; then
  stamp "control to iteration $until"
  "$trainer" resume --run-dir "$work/control" --until "$until" --eval-every off --export \
    > "$work/control.txt" 2>&1
fi
stamp "matches"
match() { # NAME A B UNSEEN
  [ -f "$work/$1.txt" ] || "$trainer" eval --a "$2" --b "$3" --hands "$hands" --seed 11 \
    --unseen "$4" > "$work/$1.txt"
  grep -m1 "minus B" "$work/$1.txt" | sed "s/^/$1: /"
}
for arm in best-response control; do
  mine="policy-argmax:$work/$arm/policy.bin"
  match "$arm-vs-export" "$mine" "policy-argmax:$policy" heuristic
  match "$arm-vs-export-uniform" "$mine" "policy-argmax:$policy" uniform
  if [ -n "$searched" ]; then
    match "$arm-vs-searched" "$mine" "policy-argmax:$searched" heuristic
  fi
done
stamp "done"
