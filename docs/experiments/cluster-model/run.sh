#!/usr/bin/env bash
# The runs the cost model is fitted to and checked against: one process,
# then 2 and 3 ranks on loopback (shared memory), then 2 and 3 ranks each
# in its own network namespace, talking TCP over veth links shaped to
# 10 Gb/s (scripts/netns-mpirun). Every arm resumes a fresh copy of the
# same full-play run for the same training time, with nothing else
# running. The exchange's bandwidth on each network is measured apart
# with `trainer bench sync`.
# Usage: run.sh BASE_RUN_DIR WORK_DIR [TRAIN_TIME]
set -euo pipefail
base=$1 work=$2 train_time=${3:-4m}
trainer=${TRAINER:-target/release/trainer}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
session=(resume --for "$train_time" --eval-every off)

. "$(dirname "$0")/../fresh-copy.sh"

stamp() { echo "== $1 $(date -u +%FT%TZ)"; }

stamp "bench sync, loopback"
mpirun --oversubscribe -np 2 "$trainer" bench sync --records 1600000,16000000 --touched 1 --tries 3
stamp "bench sync, 2 namespaces at 10gbit"
scripts/netns-mpirun --ranks 2 --rate 10gbit -- "$trainer" bench sync --records 1600000,16000000 --touched 1 --tries 3
stamp "bench sync, 3 namespaces at 10gbit"
scripts/netns-mpirun --ranks 3 --rate 10gbit -- "$trainer" bench sync --records 1600000,16000000 --touched 1 --tries 3

stamp "one process, 2 threads"
fresh_copy "$base" "$work/single"
"$trainer" "${session[@]}" --run-dir "$work/single" --threads 2

for ranks in 2 3; do
  stamp "$ranks ranks on loopback"
  fresh_copy "$base" "$work/loopback-$ranks"
  mpirun --oversubscribe --tag-output -np "$ranks" "$trainer" "${session[@]}" \
    --run-dir "$work/loopback-$ranks" --threads 1
  stamp "$ranks ranks in namespaces, 10gbit links"
  fresh_copy "$base" "$work/netns-$ranks"
  MPIRUN_OPTIONS="--oversubscribe --tag-output" scripts/netns-mpirun --ranks "$ranks" --rate 10gbit -- \
    "$trainer" "${session[@]}" --run-dir "$work/netns-$ranks" --threads 1
done
stamp done
