#!/usr/bin/env bash
# The fifth sitting (docs/experiments/cluster-in-place.md, "The settle
# emptied"): in place, records named by slot, card play keeping no average
# as a run setting, with the fix that sends or holds a record's strategy
# sums only when an update moved them; 2 ranks x 1 thread on loopback,
# then two independent one-thread processes.
# Usage: sitting5.sh BASE_RUN_DIR WORK_DIR TRAINER
# BASE_RUN_DIR: a copy of a full-play run whose settings.toml says
# card_play_strategy = "current" under [identity.solver] (here the fresh
# 2-hour run of the bare command, trained with the average, so its records
# hold sums for a rewrite to re-quantise, as sitting 4's did).
set -euo pipefail
base=$1 work=$2 trainer=$3
here=$(dirname "$0")
ROUNDS=1 "$here/../cluster-replica-overhead/run.sh" "$base" "$work" 3m inplace-sums="$trainer"
