#!/usr/bin/env bash
# Does training at the staleness of an 8 x 16 cluster cost strength?
# Bidding, one process against 3 ranks whose epochs are as long as an
# 8-machine x 16-core cluster's at the default 10-second syncs, at an equal
# total of iterations, then each export's local best response and the two
# head to head. Each arm trains until the run's total, so the script
# resumes both where a stopped session left them.
# Usage: run.sh WORK_DIR [EPOCH] [EPOCHS]
set -euo pipefail
# The default epoch: 8 machines x 16 cores x 2,734 it/s a thread x 10 s;
# `trainer bench train --phases bidding --stores memory --for 60s` measured
# 2,936 it/s a thread on 2 threads here (5,872 it/s), 3,604 on one.
work=$1 epoch=${2:-3500000} epochs=${3:-4}
trainer=${TRAINER:-target/release/trainer}
total=$((epoch * epochs))
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
common=(train --phase bidding --store memory --seed 5 --until "$total" --eval-every off)
stamp() { echo "== $1 $(date -u +%FT%TZ)"; }
stamp "one process, 2 threads, $total iterations"
"$trainer" "${common[@]}" --run-dir "$work/single" --threads 2 --checkpoint-every "$epoch"
stamp "3 ranks x 1 thread, epochs of $epoch iterations"
mpirun --oversubscribe --tag-output -np 3 "$trainer" "${common[@]}" --run-dir "$work/cluster" \
  --threads 1 --sync-iterations "$epoch" --checkpoint-every "$epoch"
for arm in single cluster; do
  stamp "export $arm"
  "$trainer" export --run-dir "$work/$arm"
done
stamp "head to head"
"$trainer" eval --a "policy:$work/cluster/policy.bin+heuristic" --b "policy:$work/single/policy.bin+heuristic" --hands 20000 --seed 3
stamp done
