#!/usr/bin/env bash
# What training beside the syncs (--sync-overlap on) buys: full play on
# one process, then 2 and 3 ranks on loopback with the syncs blocking and
# beside the training, each arm resuming a fresh copy of the same run for
# the same training time, nothing else running. Efficiency is the ranks'
# iterations a second against the one process's (cluster-epochs.csv holds
# every epoch, the log the summaries).
# Usage: run.sh BASE_RUN_DIR WORK_DIR [TRAIN_TIME]
set -euo pipefail
base=$1 work=$2 train_time=${3:-4m}
trainer=${TRAINER:-target/release/trainer}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
session=(resume --for "$train_time" --eval-every off)

. "$(dirname "$0")/../fresh-copy.sh"

stamp() { echo "== $1 $(date -u +%FT%TZ)"; }

stamp "one process, 2 threads"
fresh_copy "$base" "$work/single"
"$trainer" "${session[@]}" --run-dir "$work/single" --threads 2

for ranks in 2 3; do
  for overlap in off on; do
    stamp "$ranks ranks on loopback, overlap $overlap"
    fresh_copy "$base" "$work/loopback-$ranks-$overlap"
    mpirun --oversubscribe --tag-output -np "$ranks" "$trainer" "${session[@]}" \
      --run-dir "$work/loopback-$ranks-$overlap" --threads 1 --sync-overlap "$overlap"
  done
done
stamp done
