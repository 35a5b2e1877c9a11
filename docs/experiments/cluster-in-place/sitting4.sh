#!/usr/bin/env bash
# The fourth sitting (docs/experiments/cluster-in-place.md, "Slot names"):
# card play keeping no average in every arm; in place naming records by
# slot, in place naming them by key, and the delta buffer, each 2 ranks x
# 1 thread on loopback against two independent one-thread processes; then
# one process with card play's average against one without, side by side.
# Usage: sitting4.sh BASE_RUN_DIR WORK_DIR BIN_DIR
# BIN_DIR holds trainer-measure (this commit's trainer with the measurement
# switches EUCHRE_CARD_PLAY_AVERAGE, EUCHRE_TRAIN_IN_PLACE and
# EUCHRE_SLOT_NAMES) and its wrappers m-inplace-slots, m-inplace-keys and
# m-buffer.
set -euo pipefail
base=$1 work=$2 bin=$3
here=$(dirname "$0")
ROUNDS=1 "$here/../cluster-replica-overhead/run.sh" "$base" "$work" 3m \
  inplace-slots="$bin/m-inplace-slots" inplace-keys="$bin/m-inplace-keys" buffer="$bin/m-buffer"

echo "== one process with card play's average against one without $(date -u +%FT%TZ)"
for side in average current; do
  rm -rf "$work/one-$side"; mkdir -p "$work/one-$side"
  cp -a "$base"/store "$base"/bidding "$base"/settings.toml "$base"/curve.csv "$work/one-$side"/
done
sync; echo 1 > /proc/sys/vm/drop_caches
"$bin/trainer-measure" resume --for 3m --eval-every off --run-dir "$work/one-average" --threads 1 \
  > "$work/one-average.log" 2>&1 &
EUCHRE_CARD_PLAY_AVERAGE=off "$bin/trainer-measure" resume --for 3m --eval-every off \
  --run-dir "$work/one-current" --threads 1 > "$work/one-current.log" 2>&1 &
wait
for side in average current; do
  log=$work/one-$side.log
  iterations=$(grep -o 'checkpointed at iteration [0-9,]*: [0-9,]* this session in [0-9.]* s' "$log" | tail -1)
  written=$(grep -o 'written in [0-9.]* s' "$log" | tail -1 | grep -o '[0-9.]*')
  echo "$iterations" | awk -v side="$side" -v written="$written" '{ gsub(",", "", $5); printf "one process, card play %s: %d iterations in %.1f s of training, %.0f it/s\n", side, $5, $9 - written, $5 / ($9 - written) }'
  rm -rf "$work/one-$side/store"
done
echo "== done $(date -u +%FT%TZ)"
