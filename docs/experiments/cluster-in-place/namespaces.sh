#!/usr/bin/env bash
# Ranks training in place (card play keeping no average, full play's
# default), 2 and then 3 of them, each in its own network namespace,
# talking TCP over veth links shaped to 10 Gb/s (scripts/netns-mpirun), so
# the cost model fitted on loopback can be checked on the TCP path.
# Usage: namespaces.sh BASE_RUN_DIR WORK_DIR TRAINER [TRAIN_TIME]
set -euo pipefail
base=$1 work=$2 trainer=$3 train_time=${4:-3m}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
. "$(dirname "$0")/../fresh-copy.sh"
for ranks in 2 3; do
  echo "== $ranks ranks in namespaces, 10gbit links $(date -u +%FT%TZ)"
  fresh_copy "$base" "$work/netns-$ranks"
  MPIRUN_OPTIONS="--oversubscribe --tag-output" scripts/netns-mpirun --ranks "$ranks" --rate 10gbit -- \
    "$trainer" resume --for "$train_time" --eval-every off --run-dir "$work/netns-$ranks" --threads 1
  rm -rf "$work/netns-$ranks/store"
done
echo "== done $(date -u +%FT%TZ)"
