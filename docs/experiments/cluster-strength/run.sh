#!/usr/bin/env bash
# Strength per hour: full play's card play trained for the same time by one
# process on both cores and by 2 ranks x 1 thread under mpirun (loopback),
# each from the same finished bidding stage, then each export judged on the
# panel and head to head. Nothing else should run meanwhile.
# Usage: run.sh TRAINER BIDDING_STAGE_DIR WORK_DIR [TRAIN_TIME] [HANDS] [SYNC]
#   TRAINER: a trainer built with --features mpi
#   BIDDING_STAGE_DIR: a full-play run's finished bidding stage (RUN/bidding)
#   TRAIN_TIME: each arm's --for (default 20m); HANDS: each match's (4000)
#   SYNC: the ranks' --sync-every (default 10s, the default)
set -euo pipefail
trainer=$1 stage=$2 work=$3 train_time=${4:-20m} hands=${5:-4000} sync=${6:-10s}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
session=(train --phase full-play --store mmap --for "$train_time" --eval-every off)
mkdir -p "$work"
stamp() { echo "== $1 $(date -u +%FT%TZ) $(date +%s)"; }
fresh() { # DIR: a new run holding only the finished bidding stage, caches dropped
  rm -rf "$1"
  mkdir -p "$1"
  cp -a "$stage" "$1"/bidding
  sync
  echo 3 > /proc/sys/vm/drop_caches
}

fresh "$work/single"
stamp "one process, 2 threads"
"$trainer" "${session[@]}" --run-dir "$work/single" --threads 2 2> "$work/single.log"
stamp "one process done"
"$trainer" export --run-dir "$work/single" > "$work/single-export.txt"

fresh "$work/ranks"
stamp "2 ranks x 1 thread, sync every $sync"
mpirun --oversubscribe --tag-output -np 2 "$trainer" "${session[@]}" --run-dir "$work/ranks" \
  --threads 1 --sync-every "$sync" 2> "$work/ranks.log"
stamp "2 ranks done"
"$trainer" export --run-dir "$work/ranks" > "$work/ranks-export.txt"

match() { # NAME A B HANDS
  "$trainer" eval --a "$2" --b "$3" --hands "$4" --seed 11 --unseen uniform > "$work/$1.txt"
  grep -m1 "minus B" "$work/$1.txt" | sed "s/^/$1: /"
}
single=policy-argmax:$work/single/policy.bin ranks=policy-argmax:$work/ranks/policy.bin
match ranks-vs-single "$ranks" "$single" $((hands * 5))
for arm in single ranks; do
  a=policy-argmax:$work/$arm/policy.bin
  match "$arm-vs-heuristic" "$a" heuristic "$hands"
  match "$arm-vs-pimc50" "$a" pimc:50 "$hands"
done
stamp done
