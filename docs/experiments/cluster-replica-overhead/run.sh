#!/usr/bin/env bash
# What a rank's bookkeeping costs its training: two ranks on loopback, one
# thread each, against two independent one-thread processes, each on its
# own copy of the store, at the same time. Both arms use the same 2 cores
# and hold two copies of the table, so what differs is the replica (its
# delta buffer, its views of records) and the syncs; the ranks' rate is
# counted over their training time alone. Each binary in turn, then the
# independent pair, then everything once more (the machine is noisy).
# Usage: [ROUNDS=2] [THREADS=1] run.sh BASE_RUN_DIR WORK_DIR TRAIN_TIME NAME=BINARY...
# THREADS: each rank's and each process's threads (more than 1 here
# oversubscribes the 2 cores, alike in both arms).
# Each arm's store copy (2.8 GB here) is deleted once measured.
set -euo pipefail
base=$1 work=$2 train_time=$3
shift 3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
session=(resume --for "$train_time" --eval-every off)
# Each process's peak resident memory (the kernel's high-water mark), at its end.
peak=(/usr/bin/time -f "peak resident %M KiB")

fresh_copy() {
  rm -rf "$1"
  mkdir -p "$1"
  cp -a "$base"/store "$base"/bidding "$base"/settings.toml "$1"/
  # A run trained with --eval-every off has no curve.
  if [ -f "$base"/curve.csv ]; then cp -a "$base"/curve.csv "$1"/; fi
}
drop_caches() { sync; echo 1 > /proc/sys/vm/drop_caches; }
stamp() { echo "== $1 $(date -u +%FT%TZ)"; }

for round in $(seq "${ROUNDS:-2}"); do
  for arm in "$@"; do
    name=${arm%%=*} binary=${arm#*=}
    dir=$work/$name-r$round
    stamp "round $round: $name, 2 ranks on loopback, ${THREADS:-1} thread(s) each"
    fresh_copy "$dir"
    drop_caches
    mpirun --oversubscribe --tag-output -np 2 "${peak[@]}" "$binary" "${session[@]}" --run-dir "$dir" --threads "${THREADS:-1}" \
      > "$dir.log" 2>&1
    awk -F, '$1 == "sync" { it[$4] += $6; train[$4] += $7 }
      END { for (r in it) printf "rank %s: %d iterations in %.1f s of training, %.0f it/s\n", r, it[r], train[r], it[r] / train[r] }' \
      "$dir/cluster-epochs.csv"
    grep -h "per sync rank 0" "$dir.log" | sed 's/.*cluster: //'
    rm -rf "$dir/store"
  done
  binary=${1#*=}
  stamp "round $round: two independent processes, ${THREADS:-1} thread(s) each"
  for side in a b; do fresh_copy "$work/solo-$side-r$round"; done
  drop_caches
  for side in a b; do
    "${peak[@]}" "$binary" "${session[@]}" --run-dir "$work/solo-$side-r$round" --threads "${THREADS:-1}" \
      > "$work/solo-$side-r$round.log" 2>&1 &
  done
  wait
  for side in a b; do
    # The session's iterations over its time less the closing checkpoint.
    log=$work/solo-$side-r$round.log
    iterations=$(grep -o 'checkpointed at iteration [0-9,]*: [0-9,]* this session in [0-9.]* s' "$log" | tail -1)
    written=$(grep -o 'written in [0-9.]* s' "$log" | tail -1 | grep -o '[0-9.]*')
    echo "$iterations" | awk -v side="$side" -v written="$written" '{ gsub(",", "", $5); printf "process %s: %d iterations in %.1f s of training, %.0f it/s\n", side, $5, $9 - written, $5 / ($9 - written) }'
  done
  rm -rf "$work"/solo-*-r$round/store
done
stamp done
