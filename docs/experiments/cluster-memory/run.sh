#!/usr/bin/env bash
# Peak memory of every rank of full play on 1, 2 and 3 ranks, each rank
# under its own memcap cgroup (resident memory and page cache charged to
# it). Each arm resumes a fresh copy of the same full-play run for the
# same training time, then settles and checkpoints as a session does.
# Usage: run.sh BASE_RUN_DIR WORK_DIR [TRAIN_TIME]
set -euo pipefail
base=$1 work=$2 train_time=${3:-4m}
trainer=${TRAINER:-target/release/trainer}
memcap=${MEMCAP:-../shared/tools/memcap}
limit=${LIMIT:-11G}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1

. "$(dirname "$0")/../fresh-copy.sh"

arm() { # name ranks threads
  local name=$1 ranks=$2 threads=$3 dir=$work/$1
  fresh_copy "$base" "$dir"
  echo "== $name: $ranks rank(s) x $threads thread(s), $(date -u +%FT%TZ)"
  if [ "$ranks" = 1 ]; then
    "$memcap" "$limit" "$trainer" resume --run-dir "$dir" --for "$train_time" \
      --threads "$threads" --eval-every off
  else
    mpirun --oversubscribe --tag-output -np "$ranks" "$memcap" "$limit" \
      "$trainer" resume --run-dir "$dir" --for "$train_time" --threads "$threads" --eval-every off
  fi
  cat "$dir"/cluster.txt 2>/dev/null || true
}

arm one-process 1 2
arm two-ranks 2 1
arm three-ranks 3 1
