#!/usr/bin/env bash
# Strength per hour: full play's card play trained for the same time by one
# process on both cores and by ranks x 1 thread under mpirun (loopback),
# each from the same finished bidding stage, then each export judged on the
# panel and head to head against the one process's. Nothing else should run
# meanwhile.
# Usage: run.sh TRAINER BIDDING_STAGE_DIR WORK_DIR [TRAIN_TIME] [HANDS] [ARM...]
#   TRAINER: a trainer built with --features mpi
#   BIDDING_STAGE_DIR: a full-play run's finished bidding stage (RUN/bidding)
#   TRAIN_TIME: each arm's --for (default 20m); HANDS: each panel match's
#   (4000; head to head plays five times as many)
#   ARM: RANKSxSYNC, for example 2x10s (the default), 2x30s, 3x10s; a bare
#   SYNC such as 30s means 2 ranks. The arms run one after another, after the
#   one process's.
set -euo pipefail
trainer=$1 stage=$2 work=$3 train_time=${4:-20m} hands=${5:-4000}
shift $(($# < 5 ? $# : 5))
arms=("$@")
[ ${#arms[@]} -gt 0 ] || arms=(2x10s)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
session=(train --phase full-play --store mmap --for "$train_time" --eval-every off)
mkdir -p "$work"
stamp() { echo "== $1 $(date -u +%FT%TZ) $(date +%s)"; }
fresh() { # DIR: a new run holding only the finished bidding stage, caches dropped
  rm -rf "$1"
  mkdir -p "$1"
  cp -a "$stage" "$1"/bidding
  rm -f "$1"/bidding/*.lock
  sync
  echo 3 > /proc/sys/vm/drop_caches
}

fresh "$work/single"
stamp "one process, 2 threads"
"$trainer" "${session[@]}" --run-dir "$work/single" --threads 2 2> "$work/single.log"
stamp "one process done"
"$trainer" export --run-dir "$work/single" > "$work/single-export.txt"

names=()
for arm in "${arms[@]}"; do
  [[ $arm == *x* ]] || arm=2x$arm
  ranks=${arm%%x*} sync=${arm#*x}
  # The first record named its only arm "ranks"; later arms carry their shape.
  name=ranks
  [ "$arm" = 2x10s ] || name=ranks-$arm
  names+=("$name")
  fresh "$work/$name"
  stamp "$ranks ranks x 1 thread, sync every $sync"
  mpirun --oversubscribe --tag-output -np "$ranks" "$trainer" "${session[@]}" --run-dir "$work/$name" \
    --threads 1 --sync-every "$sync" 2> "$work/$name.log"
  stamp "$ranks ranks done"
  "$trainer" export --run-dir "$work/$name" > "$work/$name-export.txt"
done

match() { # NAME A B HANDS
  "$trainer" eval --a "$2" --b "$3" --hands "$4" --seed 11 --unseen uniform > "$work/$1.txt"
  grep -m1 "minus B" "$work/$1.txt" | sed "s/^/$1: /"
}
single=policy-argmax:$work/single/policy.bin
for name in "${names[@]}"; do
  match "$name-vs-single" "policy-argmax:$work/$name/policy.bin" "$single" $((hands * 5))
done
for name in single "${names[@]}"; do
  a=policy-argmax:$work/$name/policy.bin
  match "$name-vs-heuristic" "$a" heuristic "$hands"
  match "$name-vs-pimc50" "$a" pimc:50 "$hands"
done
stamp done
