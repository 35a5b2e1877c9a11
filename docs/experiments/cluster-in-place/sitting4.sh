#!/usr/bin/env bash
# The fourth sitting (docs/experiments/cluster-in-place.md, "Slot names"):
# card play keeping no average in both arms; in place naming records by
# slot against in place naming them by key, each 2 ranks x 1 thread on
# loopback, then two independent one-thread processes (also without card
# play's average).
# Usage: sitting4.sh BASE_RUN_DIR WORK_DIR BIN_DIR
# BIN_DIR holds trainer-measure (the trainer of commit b87edb1, with the
# measurement switches EUCHRE_CARD_PLAY_AVERAGE, EUCHRE_TRAIN_IN_PLACE and
# EUCHRE_SLOT_NAMES) and the wrappers m-inplace-slots and m-inplace-keys
# beside this script.
set -euo pipefail
base=$1 work=$2 bin=$3
here=$(dirname "$0")
ROUNDS=1 "$here/../cluster-replica-overhead/run.sh" "$base" "$work" 3m \
  inplace-slots="$bin/m-inplace-slots" inplace-keys="$bin/m-inplace-keys"
